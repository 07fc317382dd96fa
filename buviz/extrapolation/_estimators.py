"""Extrapolating the average accuracy from k1 observed classes to k_target > k1.

Estimators (all take the margin matrix of the k1 observed classes and the true labels):

``"moment"``
    the moment method of Zheng, Achanta & Benjamini (eq 9-14): AverageTA_k (eq 3) at
    ``ks``, then :func:`fit_dbar` (linear spline + NNLS by default) and eq 14.
``"classexreg"``
    the same authors' regression estimator (ClassExReg): AverageTA_k regressed, with
    β >= 0 (NNLS), on the columns ``E[Φ(Z)^(k-1)]``, ``Z ~ N(t_l, h²)``, knots ``t_l``
    equally spaced on ``[0, Φ⁻¹(1 - 1/k1²)]`` (``ceil(t_max/h)`` of them) plus a constant
    column; ``h ∈ {0.1, …, 1.0}`` chosen by a subsample-and-predict bootstrap: with ``L``
    fitted class counts, draw ``ks[L//2 - 1]`` classes, fit their exact AverageTA at the
    first ``L//2`` counts, predict AverageTA at ``ks[-1]`` and compare with the full data
    (20 rounds, as in the reference simulation).
``"kde"``
    Kay's KDE estimator: per test point, ``a = mean over wrong labels of
    Φ((m_true - m_wrong)/bw)`` with a per-point bandwidth estimated on that point's
    wrong-label scores (``"ucv"``, ``"bcv"`` exactly as R's ``bw.ucv`` / ``bw.bcv``;
    ``"silverman"``, ``"scott"``), and ``ÂGA_k = mean a^(k-1)``.
``"probit_ml"``
    (extra, experimental) a two-parameter model ``U = Φ(Z)``, ``Z ~ N(μ, s²)``, fitted by
    maximum likelihood to the per-test-point counts ``c_i`` of wrong labels scoring at least
    as high as the true one (``c_i | U ~ Binomial(k1 - 1, 1 - U)``); ``ÂGA_k = E[Φ(Z)^(k-1)]``.
``"best"``
    the project's recommendation: ClassExReg's bootstrap (40 rounds) scores every ClassExReg
    width and the UCV KDE on the same subsets and the same exact subsampled accuracies; the
    prediction is ``w · ClassExReg(best width) + (1 - w) · KDE`` with ``w ∈ {0, ¼, ½, ¾, 1}``
    minimising the bootstrap error of the mixture. No ground truth is used.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)

C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017 (the moment method; equation and section numbers are
this text's); the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228

K. N. Kay, T. Naselaris, R. J. Prenger and J. L. Gallant, "Identifying natural images from human
brain activity", *Nature* 452, 352-355, 2008. https://doi.org/10.1038/nature06713
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache, partial

import numpy as np
from scipy.optimize import nnls
from scipy.special import log_ndtr, ndtr, ndtri

from buviz._validation import InvalidParameterError, Options, check_int, check_params
from buviz._values import freeze_fields

from ._core import average_accuracy_from_ranks, check_ks, check_margins, default_ks, ranks_from_margins
from ._interval import accuracy_interval, check_level
from ._kde import cv_bandwidths, kde_accuracy_terms, wrong_label_scores
from ._moment import DbarFit, fit_dbar

__all__ = [
    "METHODS",
    "EXTRA_METHODS",
    "Extrapolation",
    "default_ks",
    "fit_extrapolator",
    "extrapolate",
    "gaussian_basis",
    "kde_favorability",
]

METHODS = ("moment", "classexreg", "kde", "best")
EXTRA_METHODS = ("probit_ml",)   # accepted by fit_extrapolator/extrapolate; not shown in the app
CLASSEXREG_BANDWIDTHS = tuple(round(i / 10, 1) for i in range(1, 11))
KDE_BANDWIDTHS = ("ucv", "bcv", "silverman", "scott")
#: The one declaration of the accepted ``method`` values (:func:`fit_extrapolator`, :class:`AccuracyExtrapolator`).
METHOD_OPTIONS = Options(*METHODS, *EXTRA_METHODS)


def check_method(method) -> str:
    """Return ``method`` if it names an extrapolator, else raise :class:`InvalidParameterError` naming it."""
    check_params({"method": method}, {"method": [METHOD_OPTIONS]}, "fit_extrapolator")
    return method


# ----------------------------------------------------------------------------------------------------
# input handling
# ----------------------------------------------------------------------------------------------------
def _check_problem(margins, labels):
    M, y = check_margins(margins, labels)
    present = np.bincount(y, minlength=M.shape[1])
    if np.any(present == 0):
        empty = np.flatnonzero(present == 0)[:5].tolist()
        raise ValueError(f"labels: every observed class needs at least one test point; empty classes {empty}")
    return M, y


def _subsets_ata(M, y, ks, classes, ties, rng):
    """AverageTA_k on the sub-problem restricted to ``classes`` (ranks recomputed within it)."""
    sel = np.isin(y, classes)
    remap = np.full(M.shape[1], -1)
    remap[classes] = np.arange(len(classes))
    Ms = M[np.ix_(sel, classes)]
    ys = remap[y[sel]]
    r = ranks_from_margins(Ms, ys, ties=ties, random_state=rng)
    return average_accuracy_from_ranks(r, ks, k1=len(classes), groups=ys)


# ----------------------------------------------------------------------------------------------------
# ClassExReg
# ----------------------------------------------------------------------------------------------------
_QN = 10_000
_ZQ = ndtri((np.arange(1, _QN + 1) - 0.5) / _QN)


def _knot_means(h: float, max_mu: float, symmetric: bool) -> np.ndarray:
    n_half = max(int(np.ceil(max_mu / h)), 1)
    half = np.linspace(0.0, max_mu, n_half)
    return np.concatenate([-half[:0:-1], half]) if symmetric else half


@lru_cache(maxsize=512)
def _gaussian_basis_cached(h: float, max_mu: float, ks: tuple, symmetric: bool = False
                           ) -> tuple[np.ndarray, np.ndarray]:
    mus = _knot_means(h, max_mu, symmetric)
    logp = log_ndtr(mus[:, None] + h * _ZQ[None, :])          # (n_mu, QN)
    cols = np.empty((len(ks), len(mus) + 1))
    for a, kk in enumerate(ks):
        cols[a, :-1] = np.exp((kk - 1.0) * logp).mean(axis=1)
    cols[:, -1] = 1.0                                           # t = +inf: a point mass at U = 1
    return cols, mus


def gaussian_basis(ks, h: float, max_mu: float, *, symmetric: bool = False) -> np.ndarray:
    """ClassExReg design matrix: columns ``E[Φ(Z)^(k-1)]``, ``Z ~ N(t_l, h²)``, plus a constant column.

    The knots ``t_l`` are ``ceil(max_mu / h)`` equally spaced points on ``[0, max_mu]`` (the reference
    implementation's grid; ``symmetric=True`` mirrors them to ``[-max_mu, max_mu]``). Each column is the
    accuracy curve ``AGA_k`` of a population whose conditional accuracies are ``U = Φ(Z)``; the constant
    column is the limit ``t -> +inf`` (``U = 1``). Expectations by the mid-point rule on 10 000 normal
    quantiles in log space (stable for k in the tens of thousands).

    Parameters
    ----------
    ks : int or sequence of int (>= 2)
        Class counts (rows).
    h : float
        Kernel width (standard deviation of Z).
    max_mu : float
        Largest knot; Zheng, Achanta & Benjamini use ``Φ⁻¹(1 - 1/k1²)``.
    symmetric : bool, default=False
        Also use the negative knots.

    Returns
    -------
    ndarray of shape (len(ks), n_knots + 1)
        The design matrix, the constant column last.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large
    Multi-Class Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
    https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)
    """
    ks = check_ks(ks, "ks")
    return _gaussian_basis_cached(float(h), float(max_mu), tuple(int(k) for k in ks), bool(symmetric))[0].copy()


def _nnls_coef(X, yv):
    return nnls(X, yv, maxiter=50 * X.shape[1])[0]


# ----------------------------------------------------------------------------------------------------
# KDE (Kay)
# ----------------------------------------------------------------------------------------------------
def _row_bandwidth(W: np.ndarray, bw) -> np.ndarray:
    n = W.shape[1]
    if isinstance(bw, int | float) and not isinstance(bw, bool):
        if not np.isfinite(bw) or bw <= 0:
            raise InvalidParameterError(f"bw must be positive, got {bw}")
        return np.full(W.shape[0], float(bw))
    if n < 2:
        return np.zeros(W.shape[0])
    sd = W.std(axis=1, ddof=1)
    if bw in ("silverman", "nrd0"):
        q75, q25 = np.percentile(W, [75, 25], axis=1)
        s = np.minimum(sd, (q75 - q25) / 1.34)
        s = np.where(s > 0, s, sd)
        return 0.9 * s * n ** (-0.2)
    if bw in ("scott", "nrd"):
        return 1.06 * sd * n ** (-0.2)
    if bw in ("ucv", "bcv"):
        out = np.empty(W.shape[0])
        step = 512
        for s0 in range(0, W.shape[0], step):
            out[s0:s0 + step] = cv_bandwidths(W[s0:s0 + step], bw)
        return out
    raise InvalidParameterError(f"bw must be a positive number or one of {KDE_BANDWIDTHS}, got {bw!r}")


def kde_favorability(margins, labels, bw="ucv", scale=1.0) -> np.ndarray:
    """Kay's per-test-point favourability ``a_i = mean_{l != y_i} Φ((m_{i,y_i} - m_{i,l}) / (scale · h_i))``.

    ``h_i`` is a kernel bandwidth estimated on the wrong-label scores of test point ``i`` alone
    (``"ucv"`` and ``"bcv"`` exactly as R's ``bw.ucv`` / ``bw.bcv``, see :mod:`._kde`; ``"silverman"``,
    ``"scott"``, or a fixed positive number). ``a_i`` is the kernel estimate of the probability that a
    random wrong label scores below the true one, so ``mean a_i^(k-1)`` estimates ``AGA_k``
    (Kay et al., 2008; Zheng, Achanta & Benjamini, 2018).

    Parameters
    ----------
    margins : array-like of shape (n_test, k1)
        Score of every observed class for each test point.
    labels : array-like of shape (n_test,)
        True class index of each test point.
    bw : {"ucv", "bcv", "silverman", "scott"} or float, default="ucv"
        Bandwidth rule, or a fixed positive bandwidth.
    scale : float or sequence of float, default=1.0
        Multiplies the bandwidths; a sequence gives one row per value (bandwidths computed once).

    Returns
    -------
    ndarray
        ``a`` of shape (n_test,), or (len(scale), n_test) when ``scale`` is a sequence.

    Notes
    -----
    The estimate depends on the scale of the scores, not only on their order: the reference simulation
    scores 1-NN by minus the Euclidean distance, and minus the *squared* distance gives very different
    (much worse) predictions on the same data.
    """
    M, y = _check_problem(margins, labels)
    true, W = wrong_label_scores(M, y)
    h = _row_bandwidth(W, bw)
    out = [kde_accuracy_terms(true, W, float(sc) * h) for sc in np.atleast_1d(scale)]
    return out[0] if np.ndim(scale) == 0 else np.array(out)


def _class_mean(values: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean over test points with classes weighted equally; values (..., n)."""
    _, gi = np.unique(y, return_inverse=True)
    cnt = np.bincount(gi)
    if np.all(cnt == 1):
        return values.mean(axis=-1)
    sums = np.zeros(values.shape[:-1] + (len(cnt),))
    np.add.at(sums.T, gi, np.moveaxis(values, -1, 0))
    return (sums / cnt).mean(axis=-1)


def _kde_curve(a: np.ndarray, y: np.ndarray, ks: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        la = np.log(np.clip(a, 1e-300, 1.0))
    return _class_mean(np.exp((np.asarray(ks, dtype=float)[:, None] - 1.0) * la[None, :]), y)


# ----------------------------------------------------------------------------------------------------
# shared bootstrap (subsample-and-predict cross-validation)
# ----------------------------------------------------------------------------------------------------
@dataclass
class _Bootstrap:
    """Random class subsets and their exact AverageTA_k (eq 3), computed once for every candidate."""

    subsets: list
    ks_fit: np.ndarray        # k at which the subsample's accuracies are fitted
    ata: np.ndarray           # (n_boot, len(ks_fit))
    target: int               # k predicted from each subsample ...
    observed: float           # ... and the full data's AverageTA there


def _make_bootstrap(M, y, ks, obs, *, n_boot, ties, rng) -> _Bootstrap | None:
    n_fit = int(len(ks) * BOOT_FRACTION)
    if n_fit < 2:
        return None
    k_sub = int(ks[n_fit - 1])
    k1 = M.shape[1]
    subsets = [np.sort(rng.choice(k1, k_sub, replace=False)) for _ in range(n_boot)]
    ata = np.array([_subsets_ata(M, y, ks[:n_fit], cls, ties, rng) for cls in subsets])
    return _Bootstrap(subsets, ks[:n_fit], ata, int(ks[-1]), float(obs[-1]))


def _cer_boot_predictions(boot: _Bootstrap, h: float, max_mu: float, symmetric: bool) -> np.ndarray:
    X = gaussian_basis(boot.ks_fit, h, max_mu, symmetric=symmetric)
    xt = gaussian_basis(boot.target, h, max_mu, symmetric=symmetric)[0]
    return np.array([xt @ _nnls_coef(X, a) for a in boot.ata])


def _kde_boot_predictions(boot: _Bootstrap, P: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``P[i, l] = Φ((m_true - m_l) / h_i)`` on the full problem (0 on the true label); the favourability
    of test point i within a subset is the mean of P over the subset's wrong labels (the bandwidth
    estimated on all wrong labels is kept)."""
    out = np.empty(len(boot.subsets))
    for b, cls in enumerate(boot.subsets):
        sel = np.isin(y, cls)
        a = P[np.ix_(sel, cls)].sum(axis=1) / (len(cls) - 1)
        out[b] = _kde_curve(a, y[sel], np.array([boot.target]))[0]
    return out


# ----------------------------------------------------------------------------------------------------
# probit-normal model fitted by likelihood on the per-test-point counts
# ----------------------------------------------------------------------------------------------------
_HZ, _HW = np.polynomial.hermite_e.hermegauss(80)
_LHW = np.log(_HW / _HW.sum())


def _probit_ml_fit(M, y):
    """(μ, s) of ``Z ~ N(μ, s²)``, ``U = Φ(Z)``, maximising Σ_i log ∫ Binom(c_i; k1-1, 1-Φ(z)) dN(z; μ, s²)."""
    from scipy.optimize import minimize
    from scipy.special import gammaln, logsumexp

    n, k1 = M.shape
    true = M[np.arange(n), y]
    c = np.count_nonzero(M >= true[:, None], axis=1) - 1        # wrong labels scoring >= the true one
    nw = k1 - 1
    vals, mult = np.unique(c, return_counts=True)
    lb = gammaln(nw + 1) - gammaln(vals + 1) - gammaln(nw - vals + 1)

    def nll(p):
        z = p[0] + np.exp(p[1]) * _HZ
        lp = lb[:, None] + (nw - vals)[:, None] * log_ndtr(z) + vals[:, None] * log_ndtr(-z) + _LHW
        v = -(mult * logsumexp(lp, axis=1)).sum()
        return v if np.isfinite(v) else 1e300

    best = None
    for mu0 in (0.5, 1.5, 2.5, 3.5):
        r = minimize(nll, [mu0, np.log(0.7)], method="Nelder-Mead",
                     options={"maxiter": 2000, "xatol": 1e-5, "fatol": 1e-8})
        if best is None or r.fun < best.fun:
            best = r
    return float(best.x[0]), float(np.exp(best.x[1]))


def _probit_ml_predict(mu, s, ks):
    ks = np.asarray(ks, dtype=float)
    return np.exp((ks[:, None] - 1.0) * log_ndtr(mu + s * _HZ)[None, :] + _LHW[None, :]).sum(axis=1)


# ----------------------------------------------------------------------------------------------------
# Result object and the dispatcher
# ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Extrapolation:
    """A fitted extrapolator: ``accuracy(k)`` gives the predicted average accuracy AGA_k.

    Parameters
    ----------
    method : str
        Estimator name.
    k1 : int
        Number of observed classes.
    ks, observed : ndarray
        The class counts and AverageTA_k (eq 3) on the data.
    details : dict
        Estimator-specific choices (chosen width, bootstrap scores and predictions, mixture weights,
        favourabilities, the D̄ fit, ``dbar``: the fitted D̄ as a callable).
    _predict : callable
        ``ks -> AGA_k`` (private).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large
    Multi-Class Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
    https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)
    """

    method: str
    k1: int
    ks: np.ndarray
    observed: np.ndarray
    details: dict = field(default_factory=dict)
    _predict: object = field(default=None, repr=False)

    def __post_init__(self):
        freeze_fields(self)  # a value: read-only arrays, tuples, FrozenDicts

    def accuracy(self, k):
        """Return the predicted AGA_k for any k >= 2.

        Parameters
        ----------
        k : int or array-like of int
            Class counts k >= 2.

        Returns
        -------
        float or ndarray
            AGA_k clipped to [0, 1], a float for a scalar ``k``.

        Raises
        ------
        InvalidParameterError
            If a k is not an integer >= 2.
        """
        scalar = np.ndim(k) == 0
        ks = check_ks(k, "k_target")
        out = np.clip(np.asarray(self._predict(ks), dtype=float), 0.0, 1.0)
        return float(out[0]) if scalar else out

    def dbar(self, u) -> np.ndarray:
        """Return the fitted D̄(u) = P(U <= u), U the conditional accuracy of a random test point.

        Theorem 4.1 of Zheng, Achanta & Benjamini (2017): AGA_k = E[U^(k-1)] = 1 - (k-1) ∫ D̄(u)
        u^(k-2) du.

        Parameters
        ----------
        u : array-like of float
            Points in [0, 1].

        Returns
        -------
        ndarray
            D̄(u).

        Raises
        ------
        ValueError
            If the method has no D̄.
        """
        fn = self.details.get("dbar")
        if fn is None:
            raise ValueError(f"method {self.method!r} has no D̄")
        return np.asarray(fn(np.asarray(u, dtype=float)), dtype=float)

    @property
    def dbar_fit(self) -> DbarFit | None:
        """The moment method's fitted D̄ (``None`` for other estimators)."""
        return self.details.get("fit")


def _cer_dbar(u, h, max_mu, beta, symmetric):
    """D̄(u) = P(U <= u) of the fitted ClassExReg mixture: Σ_l β_l Φ((Φ⁻¹(u) - t_l)/h), plus the
    constant column's mass at u = 1."""
    mus = _knot_means(h, max_mu, symmetric)
    with np.errstate(divide="ignore"):
        z = ndtri(np.clip(u, 0.0, 1.0))
    out = ndtr((z[..., None] - mus) / h) @ beta[:-1]
    return np.where(u >= 1.0, out + beta[-1], np.where(u < 0, 0.0, out))


def _empirical_dbar(u, a, y):
    """D̄(u) of the KDE estimator: the (class-weighted) empirical CDF of the favourabilities."""
    u = np.asarray(u, dtype=float)
    return _class_mean((a[None, :] <= u.reshape(-1, 1)).astype(float), y).reshape(u.shape)


def _kde_matrix(M, y, bw, scale):
    """``P[i, l] = Φ((m_{i,y_i} - m_{i,l}) / (scale h_i))`` with ``P[i, y_i] = 0``, and the row bandwidths."""
    true, W = wrong_label_scores(M, y)
    h = _row_bandwidth(W, bw)
    hs = float(scale) * h
    diff = true[:, None] - M
    with np.errstate(divide="ignore", invalid="ignore"):
        z = diff / hs[:, None]
    z = np.where(hs[:, None] > 0, z, np.where(diff > 0, np.inf, np.where(diff < 0, -np.inf, 0.0)))
    P = ndtr(z)
    P[np.arange(len(y)), y] = 0.0
    return P, h


def _mixture_dbar(u, *, fits, weights, max_mu, symmetric, y):
    """D̄(u) of a weighted mixture of fitted ClassExReg and KDE candidates (see :func:`_fit_candidates`)."""
    u = np.asarray(u, dtype=float)
    out = np.zeros(u.shape)
    for (kind, par, obj), wt in zip(fits, weights, strict=True):
        if kind == "classexreg":
            out += wt * _cer_dbar(u, par, max_mu, obj, symmetric)
        else:
            out += wt * _empirical_dbar(u, obj, y)
    return out


def _mixture_predict(kt, *, fits, weights, max_mu, symmetric, y):
    """AGA_k of a weighted mixture of fitted ClassExReg and KDE candidates (see :func:`_fit_candidates`)."""
    out = np.zeros(len(kt))
    for (kind, par, obj), wt in zip(fits, weights, strict=True):
        if kind == "classexreg":
            out += wt * (gaussian_basis(kt, par, max_mu, symmetric=symmetric) @ obj)
        else:
            out += wt * _kde_curve(obj, y, kt)
    return out


def _probit_dbar(u, *, mu, s):
    """D̄(u) of the probit-normal model: Φ((Φ⁻¹(u) − μ) / s)."""
    with np.errstate(divide="ignore"):
        return ndtr((ndtri(np.clip(u, 0.0, 1.0)) - mu) / s)


def _fit_candidates(M, y, ks, obs, cands, *, n_boot, ties, rng, symmetric=False, combine="select"):
    """Subsample-and-predict selection among candidate extrapolators (ClassExReg widths, KDE scales).

    Every candidate is scored on the same bootstrap subsets and the same exact subsampled accuracies
    (computed once). ``combine="select"`` keeps the candidate with the smallest bootstrap RMSE;
    ``"average"`` averages the predictions of the candidates whose bootstrap RMSE is within the
    smallest one plus its standard error; ``"mix"`` (needs ClassExReg and KDE candidates) takes the best
    of each kind and the mixture weight ``w`` on a ``MIX_GRID``-point grid of [0, 1] whose mixed
    bootstrap predictions have the smallest RMSE (``details["weights"]``).
    """
    k1 = M.shape[1]
    max_mu = float(ndtri(1.0 - 1.0 / k1**2))
    boot = _make_bootstrap(M, y, ks, obs, n_boot=n_boot, ties=ties, rng=rng)
    kde_P = {}
    for kind, par in cands:
        if kind == "kde" and par not in kde_P:
            kde_P[par] = _kde_matrix(M, y, par[0], par[1])
    if boot is None:
        scores = np.full(len(cands), np.nan)
        chosen = [len(cands) // 2 if cands[0][0] == "classexreg" else 0]
        weights = [1.0]
        preds_boot = None
    else:
        preds_boot = np.empty((len(cands), len(boot.subsets)))
        for c, (kind, par) in enumerate(cands):
            if kind == "classexreg":
                preds_boot[c] = _cer_boot_predictions(boot, par, max_mu, symmetric)
            else:
                preds_boot[c] = _kde_boot_predictions(boot, kde_P[par][0], y)
        sq = (preds_boot - boot.observed) ** 2
        scores = np.sqrt(sq.mean(axis=1))
        best = int(np.argmin(scores))
        weights = [1.0]
        if combine == "average":
            se = np.sqrt(sq.var(axis=1, ddof=1) / sq.shape[1]) / (2 * np.maximum(scores, 1e-12))
            chosen = [int(c) for c in np.flatnonzero(scores <= scores[best] + se[best])]
            weights = [1.0 / len(chosen)] * len(chosen)
        elif combine == "mix" and len({k for k, _ in cands}) == 2:
            kinds = np.array([k for k, _ in cands])
            c1 = int(np.flatnonzero(kinds == "classexreg")[np.argmin(scores[kinds == "classexreg"])])
            c2 = int(np.flatnonzero(kinds == "kde")[np.argmin(scores[kinds == "kde"])])
            grid = np.linspace(0.0, 1.0, MIX_GRID)
            mix = grid[:, None] * preds_boot[c1] + (1 - grid[:, None]) * preds_boot[c2]
            wbest = float(grid[np.argmin(np.mean((mix - boot.observed) ** 2, axis=1))])
            chosen, weights = [c1, c2], [wbest, 1.0 - wbest]
        else:
            chosen = [best]

    fits = []
    for c in chosen:
        kind, par = cands[c]
        if kind == "classexreg":
            beta = _nnls_coef(gaussian_basis(ks, par, max_mu, symmetric=symmetric), obs)
            fits.append(("classexreg", par, beta))
        else:
            P, h = kde_P[par]
            a = P.sum(axis=1) / (k1 - 1)
            fits.append(("kde", par, a))

    mixture = dict(fits=fits, weights=weights, max_mu=max_mu, symmetric=symmetric, y=y)
    dbar, predict = partial(_mixture_dbar, **mixture), partial(_mixture_predict, **mixture)
    details = {"candidates": cands, "bootstrap_rmse": scores, "chosen": [cands[c] for c in chosen], "weights": weights,
               "max_mu": max_mu, "bootstrap_predictions": preds_boot,
               "bootstrap": None if boot is None else {"k_subsample": len(boot.subsets[0]),
                                                       "ks_fit": boot.ks_fit, "target": boot.target,
                                                       "observed": boot.observed}}
    details["dbar"] = dbar
    first = fits[0]
    if first[0] == "classexreg":
        details.update(h=first[1], beta=first[2])
    else:
        details.update(bw=first[1][0], scale=first[1][1], favorability=first[2])
    return predict, details


def fit_extrapolator(margins, labels, method: str = "classexreg", *, ks=None, random_state=0,
                     basis: str = "linear_spline", m: int | str | None = None, knots: str = "uniform",
                     bw="ucv", bandwidths=CLASSEXREG_BANDWIDTHS, n_boot: int | None = None,
                     ties: str = "max") -> Extrapolation:
    """Fit an accuracy extrapolator on the k1 observed classes (see the module docstring).

    Parameters
    ----------
    margins : array-like of shape (n_test, k1)
        Score of every observed class for each test point (higher = more likely).
    labels : array-like of shape (n_test,)
        True class index ``0 .. k1-1``; every class needs at least one test point.
    method : {"moment", "classexreg", "kde", "best", "probit_ml"}, default="classexreg"
        The estimator (see the module docstring).
    ks : sequence of int, optional
        The k (2..k1) at which AverageTA_k (eq 3) is computed and fitted; default :func:`default_ks`.
    random_state : int or Generator, default=0
        Seed of the bootstrap (ClassExReg, best) and of random tie-breaking.
    basis : str, default="linear_spline"
        The moment method's D̄ basis (:func:`fit_dbar`).
    m : int or "paper", optional
        The moment method's number of basis functions (:func:`fit_dbar`; the spline's default is the
        paper's m = 10 000).
    knots : {"uniform", "tail"}, default="uniform"
        The moment method's knot grid.
    bw : {"ucv", "bcv", "silverman", "scott"} or float, default="ucv"
        KDE bandwidth rule.
    bandwidths : sequence of float
        ClassExReg's kernel widths h (0.1, ..., 1.0).
    n_boot : int, optional
        Bootstrap rounds of the subsample-and-predict selection (default 20 for ClassExReg, as in the
        reference simulation, and 40 for "best").
    ties : {"max", "random"}, default="max"
        Rank convention for eq 3.

    Returns
    -------
    Extrapolation
        The fitted extrapolator.

    Raises
    ------
    InvalidParameterError
        If ``method``, ``bw``, ``ks`` or ``bandwidths`` is invalid.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large
    Multi-Class Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
    https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)

    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    check_method(method)
    M, y = _check_problem(margins, labels)
    k1 = M.shape[1]
    ks = default_ks(k1) if ks is None else np.unique(check_ks(ks, "ks", k_max=k1))
    if n_boot is None:
        n_boot = BEST_N_BOOT if method == "best" else 20
    n_boot = check_int(n_boot, "n_boot", low=1)
    if not (isinstance(bw, str) or (isinstance(bw, int | float) and not isinstance(bw, bool))):
        raise InvalidParameterError(f"bw must be a positive number or one of {KDE_BANDWIDTHS}, got {bw!r}")
    if isinstance(bw, str) and bw not in KDE_BANDWIDTHS + ("nrd0", "nrd"):
        raise InvalidParameterError(f"bw must be a positive number or one of {KDE_BANDWIDTHS}, got {bw!r}")
    rng = np.random.default_rng(random_state)
    ranks = ranks_from_margins(M, y, ties=ties, random_state=rng)
    obs = np.atleast_1d(average_accuracy_from_ranks(ranks, ks, k1=k1, groups=y))
    if method == "moment":
        fit = fit_dbar(ks, obs, basis=basis, m=m, knots=knots)
        return Extrapolation("moment", k1, ks, obs, {"fit": fit, "basis": basis, "dbar": fit.dbar},
                             fit.accuracy)
    if method == "probit_ml":
        mu, s = _probit_ml_fit(M, y)
        # module-level functions bound with partial (not closures), so a fitted extrapolator pickles
        return Extrapolation("probit_ml", k1, ks, obs, {"mu": mu, "s": s, "dbar": partial(_probit_dbar, mu=mu, s=s)},
                             partial(_probit_ml_predict, mu, s))
    if method == "kde":
        a = kde_favorability(M, y, bw=bw)
        return Extrapolation("kde", k1, ks, obs,
                             {"bw": bw, "favorability": a, "dbar": partial(_empirical_dbar, a=a, y=y)},
                             partial(_kde_curve, a, y))
    if method == "classexreg":
        bws = np.atleast_1d(np.asarray(bandwidths, dtype=float))
        if bws.ndim != 1 or bws.size == 0 or not np.all(np.isfinite(bws) & (bws > 0)):
            raise InvalidParameterError(f"bandwidths must be a non-empty sequence of positive numbers, "
                                        f"got {bandwidths!r}")
        cands = [("classexreg", float(h)) for h in bws]
        predict, details = _fit_candidates(M, y, ks, obs, cands, n_boot=n_boot, ties=ties, rng=rng)
        return Extrapolation("classexreg", k1, ks, obs, details, predict)
    cands = BEST_CANDIDATES
    predict, details = _fit_candidates(M, y, ks, obs, cands, n_boot=n_boot, ties=ties, rng=rng,
                                       combine=BEST_COMBINE)
    return Extrapolation("best", k1, ks, obs, details, predict)


# "best": the ClassExReg widths and the reference KDE (UCV) scored on one shared bootstrap; the
# prediction mixes the best-scoring ClassExReg with the KDE, the weight (0, 1/4, ..., 1) chosen by the
# same bootstrap. Measured on the ClassEx fixture (docs/extrapolation_benchmark.md): KDE scales other
# than 1 were tried and lowered the score (the bootstrap's 2x extrapolation favours too small scales).
BEST_N_BOOT = 40
BOOT_FRACTION = 0.5
MIX_GRID = 5
BEST_COMBINE = "mix"
BEST_CANDIDATES = [("classexreg", float(h)) for h in CLASSEXREG_BANDWIDTHS] + [("kde", ("ucv", 1.0))]


def extrapolate(margins, labels, k_target, method: str = "classexreg", ks=None, random_state=0,
                interval=None, **options):
    """Return the predicted average accuracy AGA_{k_target} from the k1 observed classes.

    The package's stable API for accuracy extrapolation.

    Parameters
    ----------
    margins : array-like of shape (n_test, k1)
        Score of every observed class for each test point.
    labels : array-like of shape (n_test,)
        True class index of each test point.
    k_target : int or sequence of int
        Class counts (>= 2) at which AGA_k is predicted.
    method : {"moment", "classexreg", "kde", "best", "probit_ml"}, default="classexreg"
        "moment" is the moment method (eq 9-14 of Zheng, Achanta & Benjamini 2017), "classexreg" and
        "kde" the estimators compared by Zheng, Achanta & Benjamini (2018), "best" the package's
        bootstrap-weighted mixture of the two (module docstring).
    ks : sequence of int, optional
        Class counts at which AverageTA_k (eq 3) is computed and fitted.
    random_state : int, default=0
        Seed of the bootstrap and of random tie-breaking.
    interval : float, optional
        A coverage level in (0, 1): also return an interval for AGA_{k_target}, the identifiability
        range of the moment method's spline model widened by the jackknife sampling error of the
        observed accuracies (:func:`accuracy_interval`; needs k1 >= 3).
    **options
        Passed to :func:`fit_extrapolator` (``bw``, ``bandwidths``, ``n_boot``, ``basis``, ...).

    Returns
    -------
    float or ndarray or AccuracyInterval
        AGA_k, a float if ``k_target`` is a scalar; with ``interval``, an :class:`AccuracyInterval`
        (``estimate, lower, upper = extrapolate(..., interval=0.9)``).

    Raises
    ------
    InvalidParameterError
        If ``k_target``, ``method``, ``interval`` or an option is invalid.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large
    Multi-Class Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
    https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)

    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    check_ks(k_target, "k_target")
    check_level(interval, "interval", "extrapolate", optional=True)
    ext = fit_extrapolator(margins, labels, method, ks=ks, random_state=random_state, **options)
    if interval is None:
        return ext.accuracy(k_target)
    return accuracy_interval(margins, labels, k_target, interval, estimate=ext.accuracy(k_target), ks=ext.ks,
                             ties=options.get("ties", "max"), random_state=random_state)
