"""The moment method (eq 9-14): a linear model for D̄(u) fitted to AverageTA_k.

Theorem 4.1: ``AGA_k = 1 - (k-1) ∫_0^1 D̄(u) u^(k-2) du``. With ``D̄(u) = Σ_l β_l h_l(u)`` (eq 9)
the k-class risk is linear in β: ``1 - AGA_k = Σ_l β_l H_lk`` with ``H_lk = (k-1) ∫ h_l(u) u^(k-2) du``
(eq 13). **Sign slip in the paper:** eq 10-12 print ``1 - AGA_k = 1 - (k-1)∫...`` and
``= 1 - Σ β H``; the correct identity (which eq 14 uses) is ``1 - AGA_k = Σ β H``; checked in
the test suite (``tests/extrapolation/``) by quadrature.

Bases (closed-form H, checked against numerical integrals):

``"linear_spline"``
    h_l(u) = [u - t_l]_+, t_l = (l-1)/m, β >= 0 (NNLS), as in §5.1; m = 10 000 as there by default
    (solved by :func:`spline_nnls`, an active-set method for the k × m design).
    H_lk = t^k/k - t + (k-1)/k. D̄ is then convex, increasing, D̄(0) = 0.
``"polynomial"``
    h_l(u) = u^l, l = 1..m, unconstrained least squares; H_lk = (k-1)/(k+l-1).
``"monotone"``
    D̄ = Σ β_l G_l with G_l the CDF of the uniform law on bin l of a knot grid,
    β >= 0 and Σβ = 1, i.e. a piecewise-linear CDF: monotone, D̄(0) = 0, D̄(1) = 1.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017 (equation and section numbers are this text's); the
same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.optimize import nnls

from buviz._validation import InvalidParameterError
from buviz._values import freeze_fields

from .._validation import check_int
from ._core import check_ks

__all__ = ["BASES", "PAPER_SPLINE_M", "DbarFit", "fit_dbar", "moment_matrix", "basis_functions", "spline_nnls"]

BASES = ("linear_spline", "polynomial", "monotone")
#: The number of linear splines of the paper's face example (§5.1): ``fit_dbar(..., m="paper")``.
PAPER_SPLINE_M = 10_000
#: Default number of basis functions. The spline's m = 10 000 (the paper's) is where the predicted
#: accuracy has converged: the knot study (``benchmarks/study_moment_knots.py``, docs/extrapolation.md)
#: found ÂGA within 0.005 of its m = 100 000 value on every task at m = 10 000, and m = 100 off by up to 0.23.
_DEFAULT_M = {"linear_spline": PAPER_SPLINE_M, "polynomial": 6, "monotone": 100}
#: Below this many spline knots :func:`fit_dbar`'s ``solver="auto"`` uses :func:`scipy.optimize.nnls`
#: (faster on small designs, measured by ``benchmarks/bench_spline_nnls.py``), from it on :func:`spline_nnls`.
SOLVER_SWITCH_M = 3000
#: Gradient entries within this relative distance of the largest are tied; the lowest knot index wins
#: (:func:`spline_nnls`). Without it the entering knot could depend on the last bit of a BLAS product.
NNLS_TIE_RTOL = 1e-9
#: :func:`spline_nnls` stops when no column's normalised gradient exceeds this times ``||b||``.
NNLS_TOL_REL = 1e-16


def _knots(basis: str, m: int, knots: str) -> np.ndarray:
    if basis == "polynomial":
        return np.arange(1, m + 1, dtype=float)              # the powers
    if knots == "uniform":
        grid = np.linspace(0.0, 1.0, m + 1)
    elif knots == "tail":
        # denser towards u = 1, where the large-k moments live: 1 - u geometric from 1 to 1e-5
        grid = np.concatenate([[0.0], 1.0 - np.geomspace(1.0, 1e-5, m)[1:], [1.0]])
    else:
        raise InvalidParameterError(f"knots must be 'uniform' or 'tail', got {knots!r}")
    if basis == "linear_spline":
        return grid[:-1]                                     # t_l = (l-1)/m for uniform knots
    return grid                                              # bin edges for the monotone basis


def _spline_H(t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """H for h(u) = [u - t]_+ : (k-1)/k - t + t^k/k, shape (len(k), len(t))."""
    k = k[:, None].astype(float)
    return (k - 1) / k - t[None, :] + t[None, :] ** k / k


def moment_matrix(basis: str, ks, *, m: int | None = None, knots: str = "uniform",
                  params: np.ndarray | None = None) -> np.ndarray:
    """Return the moments H_lk of eq 13 in closed form, shape (len(ks), n_basis).

    Parameters
    ----------
    basis : {"linear_spline", "polynomial", "monotone"}
        The basis of D̄ (see the module docstring).
    ks : int or sequence of int
        Class counts k >= 2.
    m : int, optional
        Number of basis functions (default of the basis).
    knots : {"uniform", "tail"}, default="uniform"
        The knot grid.
    params : ndarray, optional
        Overrides the knot grid (spline knots, polynomial powers or monotone bin edges).

    Returns
    -------
    ndarray of shape (len(ks), n_basis)
        H_lk.

    Raises
    ------
    InvalidParameterError
        If ``basis`` or ``knots`` is unknown or ``ks`` invalid.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    basis = _check_basis(basis)
    ks = check_ks(ks, "ks")
    if params is None:
        params = _knots(basis, _check_m(m, basis), knots)
    params = np.asarray(params, dtype=float)
    if basis == "linear_spline":
        return _spline_H(params, ks)
    if basis == "polynomial":
        k = ks[:, None].astype(float)
        return (k - 1) / (k + params[None, :] - 1)
    a, b = params[:-1], params[1:]
    Hs = _spline_H(params, ks)
    # ramp_l = ([u-a]_+ - [u-b]_+)/(b-a)  =>  H = (Hs(a) - Hs(b))/(b-a)
    return (Hs[:, :-1] - Hs[:, 1:]) / (b - a)[None, :]


def basis_functions(basis: str, u, params: np.ndarray) -> np.ndarray:
    """Evaluate every basis function h_l at the points ``u`` (eq 9).

    Parameters
    ----------
    basis : {"linear_spline", "polynomial", "monotone"}
        The basis.
    u : array-like of float
        Points in [0, 1].
    params : ndarray
        Knots, powers or bin edges.

    Returns
    -------
    ndarray of shape (len(u), n_basis)
        h_l(u).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    u = np.atleast_1d(np.asarray(u, dtype=float))[:, None]
    p = np.asarray(params, dtype=float)[None, :]
    if basis == "linear_spline":
        return np.maximum(u - p, 0.0)
    if basis == "polynomial":
        return u ** p
    a, b = p[:, :-1], p[:, 1:]
    return np.clip((u - a) / (b - a), 0.0, 1.0)


def spline_nnls(A, b, *, max_iter: int | None = None) -> tuple[np.ndarray, dict]:
    """Solve ``min ||A β − b||₂`` subject to ``β >= 0`` for a short, very wide ``A`` (k rows, m >> k columns).

    The moment method's spline design (eq 13) has one row per fitted class count (tens) and one column per
    knot (up to 10⁵), and an optimal β has at most k non-zero entries. This is the Lawson–Hanson active-set
    algorithm written for that shape: each step costs one product ``Aᵀ r`` (O(k m)) and a least-squares
    solve on the at most k active columns, so a fit at m = 10 000 takes milliseconds where
    :func:`scipy.optimize.nnls` (which works on all m columns) takes about ten times longer
    (``benchmarks/bench_spline_nnls.py``). Columns are scaled to unit norm first (the solution set is
    unchanged; the last knots' columns are tiny and would otherwise never enter). Entering knots are
    chosen by the largest scaled gradient, ties within :data:`NNLS_TIE_RTOL` going to the lowest index, so
    the result does not depend on the BLAS kernel. Stops when no gradient exceeds
    :data:`NNLS_TOL_REL` ``· ||b||``.

    Parameters
    ----------
    A : ndarray of shape (k, m)
        Design (the moments H of eq 13, rows weighted).
    b : ndarray of shape (k,)
        Target (the observed risks 1 − AverageTA_k, weighted).
    max_iter : int, optional
        Largest number of active-set steps (default ``30 k + 100``); beyond it the solution of
        :func:`scipy.optimize.nnls` is returned and ``info["solver"]`` says so.

    Returns
    -------
    beta : ndarray of shape (m,)
        The non-negative solution.
    info : dict
        ``solver`` ("active_set" or "scipy"), ``iterations`` and ``max_gradient`` (the largest scaled
        gradient at the end: the optimality certificate).

    References
    ----------
    C. L. Lawson and R. J. Hanson, *Solving Least Squares Problems*, Prentice-Hall, 1974, chapter 23.
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float).ravel()
    if A.ndim != 2 or b.shape != (A.shape[0],):
        raise InvalidParameterError(f"A must be (k, m) and b (k,), got {A.shape} and {b.shape}")
    n, m = A.shape
    norms = np.sqrt(np.einsum("ij,ij->j", A, A))
    usable = norms > 0
    scale = np.where(usable, norms, 1.0)
    An = A / scale

    def grad(r):  # Aᵀ r without BLAS: the same bits on every machine, and no thread start-up per call
        return np.einsum("ij,i->j", An, r)

    max_iter = 30 * n + 100 if max_iter is None else max_iter
    tol = NNLS_TOL_REL * max(float(np.linalg.norm(b)), np.finfo(float).tiny)
    x = np.zeros(m)
    active: list[int] = []
    blocked = ~usable                                         # zero columns never enter
    w = grad(b)
    it = 0
    while True:
        cand = np.where(blocked, -np.inf, w)
        wmax = float(cand.max())
        if wmax <= tol:
            break
        if it >= max_iter:
            beta, _ = nnls(A, b, maxiter=50 * m)
            return beta, {"solver": "scipy", "iterations": it, "max_gradient": float("nan")}
        j = int(np.flatnonzero(cand >= wmax - NNLS_TIE_RTOL * abs(wmax))[0])
        active.append(j)
        blocked[j] = True
        while True:
            it += 1
            z = np.linalg.lstsq(An[:, active], b, rcond=None)[0]
            if np.all(z > 0):
                x[active] = z
                break
            xa = x[active]
            neg = np.flatnonzero(z <= 0)
            ratios = xa[neg] / (xa[neg] - z[neg])
            first = int(neg[np.argmin(ratios)])               # the blocking variable leaves (lowest on ties)
            xa = xa + float(ratios.min()) * (z - xa)
            keep = xa > 0
            keep[first] = False
            for a, k in zip(active, keep, strict=True):
                if not k:
                    x[a] = 0.0
                    blocked[a] = not usable[a]
            active = [a for a, k in zip(active, keep, strict=True) if k]
            x[active] = xa[keep]
            if not active or it >= max_iter:
                break
        w = grad(b - An[:, active] @ x[active]) if active else grad(b)
    return x / scale, {"solver": "active_set", "iterations": it, "max_gradient": max(wmax, 0.0)}


def _check_basis(basis) -> str:
    if basis not in BASES:
        raise InvalidParameterError(f"basis must be one of {BASES}, got {basis!r}")
    return basis


@dataclass(frozen=True)
class DbarFit:
    """A fitted D̄(u) = Σ β_l h_l(u) (eq 9) and the accuracies it implies (eq 14).

    Parameters
    ----------
    basis : str
        Name of the basis.
    params : ndarray
        Knots, powers or bin edges.
    beta : ndarray
        Coefficients.
    ks : ndarray
        Class counts fitted.
    accuracies : ndarray
        AverageTA_k fitted.
    residual : float, default=0.0
        Root-mean-square residual on them.
    meta : dict, optional
        Further details of the fit.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """

    basis: str
    params: np.ndarray
    beta: np.ndarray
    ks: np.ndarray
    accuracies: np.ndarray
    residual: float = 0.0
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        freeze_fields(self)  # a value: read-only arrays, tuples, FrozenDicts

    def dbar(self, u) -> np.ndarray:
        """Return D̄(u) of the fitted model (eq 9).

        Parameters
        ----------
        u : array-like of float
            Points in [0, 1].

        Returns
        -------
        ndarray
            D̄(u).
        """
        if self.basis == "linear_spline":  # only the active knots (at most len(ks) of m = 10 000)
            on = self.beta != 0
            return basis_functions(self.basis, u, self.params[on]) @ self.beta[on]
        return basis_functions(self.basis, u, self.params) @ self.beta

    def risk(self, k) -> np.ndarray:
        """Return the average k-class risk Σ_l β_l H_lk (eq 12 with the sign corrected).

        Parameters
        ----------
        k : int or array-like of int
            Class counts k >= 2.

        Returns
        -------
        float or ndarray
            The risk, a float for a scalar ``k``.
        """
        scalar = np.ndim(k) == 0
        if self.basis == "linear_spline":
            on = self.beta != 0
            out = moment_matrix(self.basis, k, params=self.params[on]) @ self.beta[on]
        else:
            out = moment_matrix(self.basis, k, params=self.params) @ self.beta
        return float(out[0]) if scalar else out

    def accuracy(self, k) -> np.ndarray:
        """Return the extrapolated average accuracy ÂGA_k = 1 − Σ_l β̂_l H_lk (eq 14), any k >= 2.

        Parameters
        ----------
        k : int or array-like of int
            Class counts k >= 2.

        Returns
        -------
        float or ndarray
            ÂGA_k clipped to [0, 1], a float for a scalar ``k``.
        """
        scalar = np.ndim(k) == 0
        out = np.clip(1.0 - np.atleast_1d(self.risk(k)), 0.0, 1.0)
        return float(out[0]) if scalar else out


def fit_dbar(ks, accuracies, basis: str = "linear_spline", m: int | str | None = None, *, weights=None,
             knots: str = "uniform", solver: str = "auto") -> DbarFit:
    """Fit D̄ to average accuracies by the moment method (eq 9-14).

    ``β̂ = argmin Σ_k w_k ((1 - TA_k) - Σ_l β_l H_lk)^2`` with the constraints of the basis
    (β >= 0 for ``"linear_spline"``; β >= 0, Σβ = 1 for ``"monotone"``; none for ``"polynomial"``).

    Parameters
    ----------
    ks : sequence of int
        Class counts k >= 2.
    accuracies : sequence of float
        AverageTA_k for those k (eq 3), in [0, 1].
    basis : {"linear_spline", "polynomial", "monotone"}, default="linear_spline"
        The paper's spline, polynomials, or "monotone" (D̄ a CDF: monotone, D̄(1) = 1).
    m : int or "paper", optional
        Number of basis functions: default 10 000 for the spline (the paper's, :data:`PAPER_SPLINE_M`,
        also accepted as ``"paper"``; the knot study found the prediction converged there), 100 for
        ``"monotone"``, degree 6 for polynomials. A spline fit at m = 10 000 takes about 1-50 ms
        (``benchmarks/bench_spline_nnls.py``: 0.6-46 ms on 19 fitted k, best of 5, on a shared 2-core
        machine; 7.8 times faster than :func:`scipy.optimize.nnls` in the median).
    weights : sequence of float, optional
        Positive w_k (default 1).
    knots : {"uniform", "tail"}, default="uniform"
        ``"uniform"`` (t_l = (l-1)/m, the paper's) or ``"tail"`` (denser near u = 1).
    solver : {"auto", "active_set", "scipy"}, default="auto"
        The spline's non-negative least squares: :func:`spline_nnls` (fast for large m),
        :func:`scipy.optimize.nnls` (the reference; the same solution wherever it is unique), or
        ``"auto"``: scipy below :data:`SOLVER_SWITCH_M` knots, :func:`spline_nnls` from it on.

    Returns
    -------
    DbarFit
        The fitted D̄ and the accuracies it implies.

    Raises
    ------
    InvalidParameterError
        If an option is unknown or the data are malformed.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    basis = _check_basis(basis)
    ks = check_ks(ks, "ks")
    acc = np.asarray(accuracies, dtype=float).ravel()
    if acc.shape != ks.shape:
        raise InvalidParameterError(f"accuracies must have one value per k: {acc.shape} vs {ks.shape}")
    if not np.all(np.isfinite(acc)) or acc.min() < 0 or acc.max() > 1:
        raise InvalidParameterError("accuracies must be finite and within [0, 1]")
    m = _check_m(m, basis)
    w = np.ones(len(ks)) if weights is None else np.asarray(weights, dtype=float).ravel()
    if w.shape != ks.shape or np.any(~np.isfinite(w)) or np.any(w <= 0):
        raise InvalidParameterError("weights must be positive, one per k")
    if solver not in ("auto", "active_set", "scipy"):
        raise InvalidParameterError(f"solver must be 'auto', 'active_set' or 'scipy', got {solver!r}")
    if solver == "auto":
        solver = "active_set" if m >= SOLVER_SWITCH_M else "scipy"
    params = _knots(basis, m, knots)
    H = _cached_moments(basis, tuple(int(k) for k in ks), m, knots)
    sw = np.sqrt(w)[:, None]
    A, b = H * sw, (1.0 - acc) * sw[:, 0]
    info = {}
    if basis == "linear_spline":
        if solver == "active_set":
            beta, info = spline_nnls(A, b)
        else:
            beta, _ = nnls(A, b, maxiter=50 * A.shape[1])
            info = {"solver": "scipy"}
    elif basis == "polynomial":
        beta = np.linalg.lstsq(A, b, rcond=None)[0]
    else:
        big = 1e3 * max(1.0, float(np.abs(A).max()))
        A2 = np.vstack([A, big * np.ones(A.shape[1])])
        beta, _ = nnls(A2, np.append(b, big), maxiter=50 * A.shape[1])
    res = float(np.sqrt(np.mean((H @ beta - (1.0 - acc)) ** 2)))
    return DbarFit(basis=basis, params=params, beta=beta, ks=ks, accuracies=acc, residual=res,
                   meta={"m": m, "knots": knots, **info})


def _check_m(m, basis: str) -> int:
    """``None`` -> the basis' default, ``"paper"`` -> :data:`PAPER_SPLINE_M`, else an integer in 1..10⁶."""
    if m is None:
        return _DEFAULT_M[basis]
    if isinstance(m, str):
        if m != "paper":
            raise InvalidParameterError(f"m must be a positive integer or 'paper', got {m!r}")
        return PAPER_SPLINE_M
    return check_int(m, "m", low=1, high=1_000_000)


@lru_cache(maxsize=64)
def _cached_moments(basis: str, ks: tuple, m: int, knots: str) -> np.ndarray:
    """The design H of eq 13 for a fitted grid of k (the explorer refits on the same grid)."""
    H = moment_matrix(basis, np.array(ks), params=_knots(basis, m, knots))
    H.setflags(write=False)
    return H
