"""The toy bivariate-normal model of Zheng, Achanta & Benjamini (2017), §4.1 (Figs 5-8), corrected.

``(Y, X)`` is bivariate normal with correlation ρ: ``Y ~ N(0, 1)``, ``X | Y=y ~ N(ρy, 1-ρ²)``; the
Bayes rule for a label set assigns ``x`` to the nearest centre ``ρ y_i``.

**Printing error:** the paper's ``Φ((x+|ρy-x|)/ρ) - Φ((x-|ρy-x|)/ρ)`` is the probability that a
random wrong label ``Y`` has its centre *closer* to ``x`` than ``ρy`` -- the two-class **error**.
The conditional accuracy is one minus it::

    U_x(y) = 1 - [Φ((x + |ρy - x|)/ρ) - Φ((x - |ρy - x|)/ρ)],

which is highest near ``x = ρy`` as the text says. Writing ``x = ρy + s e`` (``s = √(1-ρ²)``,
``e ~ N(0,1)``) gives ``U = 1 - |Φ(y + 2 s e / ρ) - Φ(y)|``, which this module integrates exactly
(one-dimensional quadrature, no Monte Carlo). At ρ = 0 all classes coincide, U is uniform,
``D̄(u) = u`` and ``AGA_k = 1/k`` (random tie-breaking).

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017 (equation and section numbers are this text's); the
same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.special import ndtr, ndtri

from buviz._validation import InvalidParameterError

from .._validation import check_int, check_real
from ._core import check_ks

__all__ = [
    "TOY_REFERENCE_RHOS",
    "toy_accuracy_grid",
    "toy_conditional_accuracy",
    "toy_printed_error",
    "toy_dbar",
    "toy_average_accuracy",
    "toy_average_risk",
    "toy_label_set_accuracy",
    "toy_model_summary",
    "toy_risk_distribution",
    "toy_monte_carlo",
    "toy_polynomial_error",
    "toy_trained_average_accuracy",
    "toy_margins",
]


def _check_rho(rho) -> float:
    rho = check_real(rho, "rho", low=0.0)
    if rho >= 1.0:
        raise InvalidParameterError(f"rho must be < 1, got {rho}")
    return rho


def toy_printed_error(x, y, rho: float) -> np.ndarray:
    """Return the paper's printed closed form ``Φ((x+|ρy-x|)/ρ) − Φ((x-|ρy-x|)/ρ)``, the two-class error.

    Parameters
    ----------
    x : array-like of float
        Test points.
    y : array-like of float
        Labels (broadcast with ``x``).
    rho : float
        Correlation ρ in [0, 1).

    Returns
    -------
    ndarray
        The probability that a random wrong label has its centre closer to x than ρy.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    rho = _check_rho(rho)
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    if rho == 0.0:
        return np.full(x.shape, 0.5)
    d = np.abs(rho * y - x)
    return ndtr((x + d) / rho) - ndtr((x - d) / rho)


def toy_conditional_accuracy(x, y, rho: float) -> np.ndarray:
    """Return U_x(y), the probability that the Bayes rule is right in the two-class problem {y, Y}.

    Y ~ N(0, 1); U_x(y) is one minus :func:`toy_printed_error` (the corrected formula, §4.1).

    Parameters
    ----------
    x : array-like of float
        Test points.
    y : array-like of float
        Labels (broadcast with ``x``).
    rho : float
        Correlation ρ in [0, 1).

    Returns
    -------
    ndarray
        U_x(y) in [0, 1].

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    rho = _check_rho(rho)
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    if rho == 0.0:
        return np.where(x >= 0, ndtr(y), ndtr(-y))          # limit ρ -> 0 (ties broken by the sign of x)
    return 1.0 - toy_printed_error(x, y, rho)


_Y_NODES = np.linspace(-9.0, 9.0, 3601)
_Y_W = np.exp(-0.5 * _Y_NODES**2) / np.sqrt(2 * np.pi) * (_Y_NODES[1] - _Y_NODES[0])


def toy_accuracy_grid(rho: float, *, extent: float = 3.0, n: int = 121) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return U_x(y) of the toy model on an n × n grid of (y, x) ∈ [−extent, extent]² (Fig 7a).

    Parameters
    ----------
    rho : float
        Correlation ρ in [0, 1).
    extent : float, default=3.0
        Half-width of the grid in y and in x.
    n : int, default=121
        Grid points per axis.

    Returns
    -------
    y, x : ndarray of shape (n,)
        The grid's coordinates.
    U : ndarray of shape (n, n)
        ``U[i, j]`` = U_{x_i}(y_j) (:func:`toy_conditional_accuracy`), rows along x.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1), ``extent`` is not positive or ``n`` < 2.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    extent = check_real(extent, "extent", low=0.0, low_open=True)
    n = check_int(n, "n", low=2)
    y = np.linspace(-extent, extent, n)
    x = np.linspace(-extent, extent, n)
    Y, X = np.meshgrid(y, x)
    return y, x, toy_conditional_accuracy(X, Y, rho)


def toy_dbar(u, rho: float) -> np.ndarray:
    """Return D̄(u) = P(U_X(Y) <= u) for the toy model (eq 8), exact up to 1-D quadrature over y.

    ``U <= u`` iff ``|Φ(y + c e) - Φ(y)| >= 1 - u`` (``c = 2√(1-ρ²)/ρ``), i.e. ``e`` beyond two
    thresholds given in closed form for each ``y``.

    Parameters
    ----------
    u : array-like of float
        Points in [0, 1].
    rho : float
        Correlation ρ in [0, 1).

    Returns
    -------
    ndarray
        D̄(u), the same shape as ``u``.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1) or ``u`` outside [0, 1].

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    rho = _check_rho(rho)
    u = np.asarray(u, dtype=float)
    if np.any((u < 0) | (u > 1)) or not np.all(np.isfinite(u)):
        raise InvalidParameterError("u must lie in [0, 1]")
    if rho == 0.0:
        return u.copy()
    return _toy_dbar_cached(rho, u.ravel().tobytes()).reshape(u.shape)


@lru_cache(maxsize=64)
def _toy_dbar_cached(rho: float, ub: bytes) -> np.ndarray:
    u = np.frombuffer(ub, dtype=float)
    c = 2.0 * np.sqrt(1.0 - rho**2) / rho
    y = _Y_NODES[None, :]
    Py = ndtr(y)
    uu = u[:, None]
    up = Py + 1.0 - uu                                        # need Φ(y + c e) >= up
    lo = Py - (1.0 - uu)                                      # or  Φ(y + c e) <= lo
    with np.errstate(divide="ignore", invalid="ignore"):
        e_hi = (ndtri(np.clip(up, 0.0, 1.0)) - y) / c
        e_lo = (ndtri(np.clip(lo, 0.0, 1.0)) - y) / c
    p_hi = np.where(up < 1.0, ndtr(-e_hi), 0.0)
    p_lo = np.where(lo > 0.0, ndtr(e_lo), 0.0)
    p = np.where(uu >= 1.0, 1.0, p_hi + p_lo)
    out = np.clip(p @ _Y_W, 0.0, 1.0)
    return out


_U_GL = np.polynomial.legendre.leggauss(400)


def toy_average_accuracy(ks, rho: float) -> np.ndarray:
    """Return AGA_k = 1 − (k−1) ∫_0^1 D̄(u) u^(k−2) du for the toy model's Bayes rule (Theorem 4.1, eq 4).

    Parameters
    ----------
    ks : int or array-like of int
        Class counts k >= 2.
    rho : float
        Correlation ρ in [0, 1).

    Returns
    -------
    float or ndarray
        AGA_k, a float for a scalar ``ks``.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    scalar = np.ndim(ks) == 0
    ks = check_ks(ks, "ks")
    rho = _check_rho(rho)
    if rho == 0.0:
        out = 1.0 / ks
    else:
        # split [0, 1] at 0.9 and 0.99: D̄ bends sharply near u = 1 for large ρ
        out = np.zeros(len(ks))
        for a, b in ((0.0, 0.9), (0.9, 0.99), (0.99, 1.0)):
            x, w = _U_GL
            u = 0.5 * (b - a) * x + 0.5 * (b + a)
            w = 0.5 * (b - a) * w
            D = toy_dbar(u, rho)
            out += ((ks[:, None] - 1) * u[None, :] ** (ks[:, None] - 2) * D[None, :]) @ w
        out = 1.0 - out
    return float(out[0]) if scalar else out


def toy_average_risk(ks, rho: float) -> np.ndarray:
    """Return the exact toy AvRisk_k = 1 − AGA_k = (k−1) ∫ D̄(u) u^(k−2) du (Theorem 4.1).

    The sign of eq 10-12 is corrected.

    Parameters
    ----------
    ks : int or array-like of int
        Class counts k >= 2.
    rho : float
        Correlation ρ in [0, 1).

    Returns
    -------
    float or ndarray
        AvRisk_k.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    acc = toy_average_accuracy(ks, rho)
    return 1.0 - acc


def toy_label_set_accuracy(labels, rho: float) -> np.ndarray:
    """Return GA_k of the Bayes rule for given label sets (closed form from neighbouring midpoints).

    The Bayes region of the i-th sorted centre ``ρ y_(i)`` is the interval between the midpoints
    with its neighbours, so ``GA = (1/k) Σ_i [Φ((b_i - ρy_(i))/s) - Φ((a_i - ρy_(i))/s)]``,
    ``s = √(1-ρ²)``.

    Parameters
    ----------
    labels : array-like of shape (..., k)
        Label sets, k >= 2 labels each.
    rho : float
        Correlation ρ in [0, 1).

    Returns
    -------
    ndarray of shape (...)
        GA_k of each set.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1) or a set has fewer than 2 labels.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    rho = _check_rho(rho)
    y = np.sort(np.asarray(labels, dtype=float), axis=-1)
    if y.shape[-1] < 2:
        raise InvalidParameterError("labels must hold at least 2 labels per set")
    k = y.shape[-1]
    if rho == 0.0:
        return np.full(y.shape[:-1], 1.0 / k)
    s = np.sqrt(1.0 - rho**2)
    c = rho * y
    mid = 0.5 * (c[..., 1:] + c[..., :-1])
    inf = np.full(y.shape[:-1] + (1,), np.inf)
    a = np.concatenate([-inf, mid], axis=-1)
    b = np.concatenate([mid, inf], axis=-1)
    return np.mean(ndtr((b - c) / s) - ndtr((a - c) / s), axis=-1)


def toy_risk_distribution(ks=range(2, 11), rho: float = 0.7, n_sets: int = 500,
                          random_state=0) -> pd.DataFrame:
    """Return Risk(Y_1..Y_k) = 1 − GA for random label sets (Fig 6).

    Parameters
    ----------
    ks : iterable of int, default=range(2, 11)
        Class counts.
    rho : float, default=0.7
        Correlation ρ in [0, 1).
    n_sets : int, default=500
        Label sets drawn per k.
    random_state : int, Generator or None, default=0
        Seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``k`` and ``risk``, one row per set.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    ks = check_ks(list(ks), "ks")
    n_sets = check_int(n_sets, "n_sets", low=1)
    rng = np.random.default_rng(random_state)
    frames = [pd.DataFrame({"k": k, "risk": 1.0 - toy_label_set_accuracy(rng.standard_normal((n_sets, k)),
                                                                         rho)}) for k in ks]
    return pd.concat(frames, ignore_index=True)


def toy_monte_carlo(ks, rho: float, n: int = 100_000, random_state=0) -> pd.DataFrame:
    """Return a Monte Carlo of the Bayes rule (labels and test points drawn): mean risk and its std error.

    Independent of D̄ and of the closed forms, so it checks Theorem 4.1 and the corrected U.

    Parameters
    ----------
    ks : int or array-like of int
        Class counts k >= 2.
    rho : float
        Correlation ρ in [0, 1).
    n : int, default=100000
        Draws per k.
    random_state : int, Generator or None, default=0
        Seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``risk`` and ``se``.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    ks = check_ks(ks, "ks")
    rho = _check_rho(rho)
    n = check_int(n, "n", low=2)
    rng = np.random.default_rng(random_state)
    s = np.sqrt(1.0 - rho**2)
    rows = []
    for k in ks:
        y = rng.standard_normal((n, k))
        x = rho * y[:, 0] + s * rng.standard_normal(n)
        dist = np.abs(rho * y - x[:, None])
        if rho == 0.0:
            correct = rng.integers(0, k, n) == 0
        else:
            correct = np.argmin(dist, axis=1) == 0
        err = 1.0 - correct.astype(float)
        rows.append({"k": int(k), "risk": err.mean(), "se": err.std(ddof=1) / np.sqrt(n)})
    return pd.DataFrame(rows)


def toy_polynomial_error(rho: float, degrees=range(1, 11), n_grid: int = 400) -> pd.DataFrame:
    """Return the best ℓ∞ error of a degree-d polynomial approximation of D̄ on [0, 1] (Fig 8c).

    Minimax by linear programming on a Chebyshev grid (Chebyshev basis for conditioning).

    Parameters
    ----------
    rho : float
        Correlation ρ in [0, 1).
    degrees : iterable of int, default=range(1, 11)
        Polynomial degrees.
    n_grid : int, default=400
        Grid points (>= 10).

    Returns
    -------
    pandas.DataFrame
        One row per degree with its minimax error.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    rho = _check_rho(rho)
    n_grid = check_int(n_grid, "n_grid", low=10)
    u = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, n_grid))
    D = toy_dbar(u, rho)
    rows = []
    for d in degrees:
        d = check_int(d, "degree", low=0)
        V = np.polynomial.chebyshev.chebvander(2 * u - 1, d)          # (n, d+1)
        nc = d + 1
        # variables: coefficients c (free) and t >= 0; minimise t s.t. |V c - D| <= t
        cost = np.zeros(nc + 1)
        cost[-1] = 1.0
        A = np.block([[V, -np.ones((n_grid, 1))], [-V, -np.ones((n_grid, 1))]])
        b = np.concatenate([D, -D])
        res = linprog(cost, A_ub=A, b_ub=b, bounds=[(None, None)] * nc + [(0, None)], method="highs")
        rows.append({"rho": rho, "degree": d, "linf_error": float(res.x[-1]) if res.success else np.nan})
    return pd.DataFrame(rows)


#: The ρ of the toy model's reference curves (Figs 6 and 8 of Zheng, Achanta and Benjamini), drawn
#: beside a chosen ρ by :func:`toy_model_summary`.
TOY_REFERENCE_RHOS = (0.3, 0.5, 0.7, 0.9)


def toy_model_summary(rho: float, reference_rhos=TOY_REFERENCE_RHOS, *, ks=range(2, 11), n_sets: int = 300,
                      degrees=range(1, 11), random_state=0) -> dict:
    """Return what the toy model's figures show at one ρ, beside reference values of ρ.

    U_x(y) on a 121 × 121 grid (Fig 7a), D̄(u) = P(U ≤ u) (Figs 7b, 8b) and the ℓ∞ error of its
    best polynomial approximations (Fig 8c) at ``rho`` and every reference ρ, the distribution of
    the k-class risk over random label sets and AvRisk_k (Theorem 4.1) at ``rho`` (Fig 6).

    Parameters
    ----------
    rho : float
        Correlation ρ in [0, 1).
    reference_rhos : sequence of float, default=TOY_REFERENCE_RHOS
        The ρ drawn beside ``rho``.
    ks : iterable of int, default=range(2, 11)
        The numbers of classes k of the risk distribution and AvRisk_k.
    n_sets : int, default=300
        Random label sets per k (:func:`toy_risk_distribution`).
    degrees : iterable of int, default=range(1, 11)
        Polynomial degrees (:func:`toy_polynomial_error`).
    random_state : int, default=0
        Seed of the label sets.

    Returns
    -------
    dict
        ``rho``, ``reference_rhos``, ``level_grid`` ((y, x, U), :func:`toy_accuracy_grid`), ``dbar``
        ({ρ: (u, D̄(u))} on 201 points of u), ``distribution`` (:func:`toy_risk_distribution`),
        ``avrisk`` (AvRisk_k at the sorted ``ks``) and ``polynomial_error`` (rows ``rho``, ``degree``,
        ``linf_error`` for every ρ but 0).

    Raises
    ------
    InvalidParameterError
        If ``rho`` or a reference ρ is outside [0, 1).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
    Problems", *Journal of Machine Learning Research* 19, 1-30, 2018, §4.1.
    """
    rho = _check_rho(rho)
    refs = tuple(_check_rho(r) for r in reference_rhos)
    rhos = sorted({*refs, rho})
    u = np.linspace(0, 1, 201)
    ks = sorted(int(k) for k in ks)
    return {"rho": rho, "reference_rhos": refs, "level_grid": toy_accuracy_grid(rho),
            "dbar": {r: (u, toy_dbar(u, r)) for r in rhos},
            "distribution": toy_risk_distribution(ks, rho, n_sets=n_sets, random_state=random_state),
            "avrisk": toy_average_risk(np.asarray(ks), rho),
            "polynomial_error": pd.concat([toy_polynomial_error(r, degrees, n_grid=200) for r in rhos if r != 0.0],
                                          ignore_index=True)}


# ----------------------------------------------------------------------------------------------------
# the toy model with trained class centres: AGA_{k,r} for r training points per class
# ----------------------------------------------------------------------------------------------------
_X_GH = np.polynomial.hermite_e.hermegauss(120)
_GL = np.polynomial.legendre.leggauss(48)
#: Break points (in units of the conditional sd of δ = ĉ − x, and absolute near 0) of the composite
#: Gauss–Legendre rule over δ in :func:`toy_trained_average_accuracy`: U^(k−1) has a kink at δ = 0 whose
#: width shrinks like 1/k, so the rule is refined there (checked against the Bayes rule's D̄ quadrature).
_DELTA_BREAKS = (0.0, 1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0)


def _check_r_train(r_train):
    if r_train is None:
        return None
    return check_int(r_train, "r_train", low=1)


def toy_trained_average_accuracy(ks, rho: float, r_train: int | None = None) -> np.ndarray:
    """Return AGA_{k,r} of the toy model when each class centre is *estimated* from r training points.

    The classifier (a marginal one, Definition 2.1) assigns x to the label whose estimated centre
    ``ĉ = ρy + √(1−ρ²) ē`` (``ē`` the mean of ``r`` standard normals) is nearest; ``r_train=None`` is the
    Bayes rule of §4.1 (``ĉ = ρy``). A wrong label's estimated centre is ``N(0, τ²)``, ``τ² = ρ² +
    (1−ρ²)/r``, so ``U = 1 − [Φ((x + d)/τ) − Φ((x − d)/τ)]`` with ``d = |ĉ − x|``, and
    ``AGA_{k,r} = E[U^(k−1)]`` (Theorem 4.1) over the normal pair ``(x, δ = ĉ − x)``: Gauss–Hermite (120
    nodes) in x and a composite Gauss–Legendre rule in δ refined at δ = 0 (:data:`_DELTA_BREAKS`).
    Agrees with :func:`toy_average_accuracy` for the Bayes rule within 1e-5 for k ≤ 1000 (tested).

    Parameters
    ----------
    ks : int or array-like of int
        Class counts k >= 2.
    rho : float
        Correlation ρ in [0, 1) (ρ > 0 for the Bayes rule).
    r_train : int, optional
        Training points per class; ``None`` for known centres (the Bayes rule).

    Returns
    -------
    float or ndarray
        AGA_{k,r}, a float for a scalar ``ks``.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is outside [0, 1) (or 0 with ``r_train=None``) or ``r_train`` < 1.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017, §4.1 and Theorem 4.1; arXiv:1606.05228.
    """
    scalar = np.ndim(ks) == 0
    ks = check_ks(ks, "ks")
    rho = _check_rho(rho)
    r_train = _check_r_train(r_train)
    if r_train is None and rho == 0.0:
        raise InvalidParameterError("rho must be > 0 for the Bayes rule (r_train=None); use toy_average_accuracy")
    s2 = 1.0 - rho**2
    inv_r = 0.0 if r_train is None else 1.0 / r_train
    tau = np.sqrt(rho**2 + s2 * inv_r)
    # (x, δ) normal: var x = 1, cov(x, δ) = −s², var δ = s²(1 + 1/r); δ | x ~ N(−s² x, s²(ρ² + 1/r))
    xs, wx = _X_GH
    wx = wx / wx.sum()
    sd = np.sqrt(s2 * (rho**2 + inv_r))
    gx, gw = _GL
    out = np.zeros(len(ks))
    for x, w in zip(xs, wx, strict=True):
        mu = -s2 * x
        half = max(8.0 * sd, 1e-12) + abs(mu)
        edges = np.unique(np.concatenate([[-half, half], [b for b in _DELTA_BREAKS if b < half],
                                          [-b for b in _DELTA_BREAKS if b < half], [mu]]))
        a, b = edges[:-1], edges[1:]
        d = (0.5 * (b - a)[:, None] * gx[None, :] + 0.5 * (b + a)[:, None]).ravel()
        wd = (0.5 * (b - a)[:, None] * gw[None, :]).ravel()
        dens = np.exp(-0.5 * ((d - mu) / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
        ad = np.abs(d)
        U = np.clip(1.0 - (ndtr((x + ad) / tau) - ndtr((x - ad) / tau)), 0.0, 1.0)
        with np.errstate(divide="ignore"):
            logU = np.log(U)
        out += w * (np.exp((ks[:, None] - 1.0) * logU[None, :]) @ (wd * dens))
    out = np.clip(out, 0.0, 1.0)
    return float(out[0]) if scalar else out


def toy_margins(k: int, rho: float, *, r_train: int | None = None, r_test: int = 1, size: int | None = None,
                random_state=0) -> tuple[np.ndarray, np.ndarray]:
    """Draw a k-class problem from the toy model and return the classifier's margins and true labels.

    Labels ``y_i ~ N(0, 1)`` (k of them, i.i.d.); each class centre is ``ρ y_i`` (``r_train=None``) or the
    mean of ``r_train`` training points ``x ~ N(ρ y_i, 1 − ρ²)``; ``r_test`` test points per class. The
    margin of label j at test point x is ``−|x − ĉ_j|`` (nearest centre wins; a marginal classifier).

    Parameters
    ----------
    k : int
        Number of classes (>= 2).
    rho : float
        Correlation ρ in [0, 1).
    r_train : int, optional
        Training points per class (``None``: known centres, the Bayes rule).
    r_test : int, default=1
        Test points per class.
    size : int, optional
        Number of independent problems drawn at once (a leading axis); ``None`` for one.
    random_state : int, Generator or None, default=0
        Seed.

    Returns
    -------
    margins : ndarray of shape ([size,] k r_test, k)
        Margins, test points grouped by class.
    labels : ndarray of shape (k r_test,)
        True class index of each test point (the same for every problem).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017, §4.1; arXiv:1606.05228.
    """
    k = check_int(k, "k", low=2)
    rho = _check_rho(rho)
    r_train = _check_r_train(r_train)
    r_test = check_int(r_test, "r_test", low=1)
    n = 1 if size is None else check_int(size, "size", low=1)
    rng = np.random.default_rng(random_state)
    s = np.sqrt(1.0 - rho**2)
    y = rng.standard_normal((n, k))
    centre = rho * y if r_train is None else rho * y + s * rng.standard_normal((n, k)) / np.sqrt(r_train)
    x = rho * y[:, :, None] + s * rng.standard_normal((n, k, r_test))              # (n, k, r_test)
    M = -np.abs(x.reshape(n, k * r_test)[:, :, None] - centre[:, None, :])          # (n, k r_test, k)
    labels = np.repeat(np.arange(k), r_test)
    return (M[0] if size is None else M), labels
