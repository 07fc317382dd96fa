"""Exact error-estimate moments for the histogram classifier (Nedelko 2009).

Setting (paper, section "Классификация в дискретном пространстве"): X = {1..k} cells, two classes,
a sample of size N is the set of cell counts ``(m_j, n_j)`` (``m_j`` points of class 1 among the
``n_j`` points in cell ``j``). Cell ``j`` has probability ``alpha_j`` and ``P(y = 1 | x = j) = p_j``;
the experiments use ``alpha_j = 1/k`` and ``p_j = p``. The histogram classifier takes the majority
class of each cell, ties (including empty cells) decided at random, so their expected error is 1/2.

Both the true risk ``g(V)`` and every estimator considered here are *additive*: a sum over cells of
a per-cell table ``x[n, m]`` (probability units; the paper's tables print ``N * x``). Their
moments are the paper's mu / sigma / omega sums:

* ``mu_phi(alpha, p) = sum_n B(n, N, alpha) pi_phi(n)`` with ``pi_phi(n) = sum_m B(m, n, p) phi(m, n)``,
* ``sigma_phi = sum_n B(n, N, alpha) pi_{phi^2}(n)``,
* ``omega_phi(c1, c2) = sum_{n1 + n2 <= N} Tri(n1, n2; N, alpha1, alpha2) pi_phi(n1) pi_phi(n2)``,

so ``E f = sum_j mu``, ``E f^2 = sum_j sigma + sum_{i != j} omega`` and the same for the mixed
moment ``E fg``. Hence ``Delta = E (f - g)^2`` and ``S = sqrt(Delta)`` are exact for any N, k, p.
All binomial and trinomial weights are evaluated in log space, so N in the hundreds is fine.

Per-cell tables (``x[n, m]``, ``m <= n``; entries with ``m > n`` are NaN in the public tables):

* resubstitution ``x~ = min(m, n - m) / N``;
* leave-one-out ``x- = [min + max * (I(m = n - m) + I(|n - 2m| = 1) / 2)] / N``;
* the exact bootstrap out-of-bag estimate ``x^`` and the .632 combination
  ``x.. = e^-1 x~ + (1 - e^-1) x^`` (the printed recurrence for ``x^`` and its ``r^`` are garbled;
  the closed form used here is derived in :func:`bootstrap_oob_table` and checked by simulation);
* the balanced-optimal ``x*`` (see :func:`balanced_optimal`).

This module never imports panel or holoviews.

References
----------
V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the discrete case"
(in Russian: "Оптимизация оценки вероятности ошибочной классификации в дискретном случае"), XV
International Conference "Knowledge-Dialogue-Solution" (KDS 2009), Varna, Bulgaria, June-July 2009.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import stats
from scipy.special import gammaln

from buviz._math import log_comb
from buviz._validation import InvalidParameterError, check_int, check_real
from buviz._values import freeze_fields

__all__ = [
    "METHODS",
    "BalancedOptimalResult",
    "BalancedOptimalWarning",
    "Moments",
    "balanced_optimal",
    "binom_pmf",
    "bootstrap632_table",
    "bootstrap_oob_table",
    "cell_values",
    "gauge_direction",
    "loo_table",
    "moments",
    "moments_general",
    "resubstitution_table",
    "rms_deviation",
    "simulate",
    "simulate_rms_deviation",
    "simulate_rms_deviation_curve",
    "true_risk_table",
]

#: Method names accepted by :func:`cell_values` and :func:`rms_deviation`.
METHODS: tuple[str, ...] = ("resubstitution", "loo", "bootstrap632", "balanced_optimal")

#: Paper's Table 1 (x*) and Table 2 (x..) in count units N * x, N = 50, k = 10, rows n = 0..8,
#: columns m = 0..min(n, 5). Kept here so tests, app and notebooks compare against one copy.
PAPER_TABLE1: tuple[tuple[float, ...], ...] = (
    (2.21,), (0.96, 0.96), (0.65, 2.67, 0.65), (0.41, 1.89, 1.89, 0.41),
    (0.21, 1.59, 3.35, 1.59, 0.21), (0.03, 1.31, 2.79, 2.79, 1.31, 0.03),
    (-0.16, 1.06, 2.57, 4.02, 2.57, 1.06), (-0.36, 0.83, 2.33, 3.61, 3.61, 2.33),
    (-0.55, 0.61, 2.08, 3.45, 4.68, 3.45),
)
PAPER_TABLE2: tuple[tuple[float, ...], ...] = (
    (0.00,), (0.32, 0.32), (0.23, 1.41, 0.23), (0.12, 1.59, 1.59, 0.12),
    (0.054, 1.53, 2.54, 1.53, 0.05), (0.022, 1.39, 2.75, 2.75, 1.39, 0.02),
    (0.0087, 1.26, 2.73, 3.65, 2.73, 1.26), (0.0032, 1.16, 2.60, 3.87, 3.87, 2.60),
    (0.0011, 1.09, 2.44, 3.88, 4.74, 3.88),
)


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------

def _check_method(method) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidParameterError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _check_p(p, name: str = "p") -> np.ndarray:
    """Probabilities in [0, 1] (scalar or 1-D), returned as a float array."""
    arr = np.asarray(p, dtype=float) if not isinstance(p, bool) else None
    if arr is None or arr.ndim > 1 or arr.size == 0:
        raise InvalidParameterError(f"{name} must be a number or a 1-D array of numbers in [0, 1], got {p!r}")
    if arr.ndim == 0:
        check_real(float(arr), name, low=0.0, high=1.0)
    elif not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise InvalidParameterError(f"{name} must lie in [0, 1]")
    return arr


def _to_array_p(p, name: str = "p") -> tuple[np.ndarray, bool]:
    if isinstance(p, bool):
        raise InvalidParameterError(f"{name} must be a number in [0, 1], got {p!r}")
    try:
        arr = _check_p(p, name)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValueError) and name in str(exc):
            raise
        raise InvalidParameterError(f"{name} must be a number or 1-D array in [0, 1], got {p!r}") from None
    return np.atleast_1d(arr), arr.ndim == 0


# --------------------------------------------------------------------------------------------
# binomial / trinomial weights in log space
# --------------------------------------------------------------------------------------------

def _xlogy(a, b):
    """``a * log(b)`` with ``0 * log(0) = 0`` (and ``a > 0, b = 0`` giving ``-inf``)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = a * np.log(b)
    return np.where(a == 0, 0.0, out)


def binom_pmf(m, n, p) -> np.ndarray:
    """Return the binomial probabilities ``B(m, n, p) = C(n, m) p^m (1 - p)^(n - m)`` (the paper's notation).

    Evaluated in log space (``gammaln``), broadcasting over all arguments; zero outside
    ``0 <= m <= n``.

    Parameters
    ----------
    m : array-like of int
        Successes.
    n : array-like of int
        Trials.
    p : array-like of float
        Success probability.

    Returns
    -------
    ndarray
        The probabilities, broadcast over the arguments.
    """
    m = np.asarray(m, dtype=float)
    n = np.asarray(n, dtype=float)
    p = np.asarray(p, dtype=float)
    ok = (m >= 0) & (m <= n)
    mm = np.where(ok, m, 0.0)
    nn = np.where(ok, n, 0.0)
    lp = log_comb(nn, mm) + _xlogy(mm, p) + _xlogy(nn - mm, 1.0 - p)
    return np.where(ok, np.exp(lp), 0.0)


def _trinomial(N: int, a1: float, a2: float) -> np.ndarray:
    """``T[n1, n2] = P(n_1 = n1, n_2 = n2)`` for two distinct cells of probabilities a1, a2."""
    n1 = np.arange(N + 1, dtype=float)[:, None]
    n2 = np.arange(N + 1, dtype=float)[None, :]
    rest = N - n1 - n2
    ok = rest >= 0
    rr = np.where(ok, rest, 0.0)
    a3 = max(0.0, 1.0 - a1 - a2)
    lt = (gammaln(N + 1) - gammaln(n1 + 1) - gammaln(n2 + 1) - gammaln(rr + 1)
          + _xlogy(n1, a1) + _xlogy(n2, a2) + _xlogy(rr, a3))
    return np.where(ok, np.exp(lt), 0.0)


def _cell_grid(n_max: int):
    n = np.arange(n_max + 1)[:, None]
    m = np.arange(n_max + 1)[None, :]
    return n, m, m <= n


def _log_binom_coef(n_max: int) -> np.ndarray:
    n, m, _ = _cell_grid(n_max)
    return log_comb(n, m)


def _binom_cube(n_max: int, p: np.ndarray, logc: np.ndarray | None = None) -> np.ndarray:
    """``cube[i, n, m] = B(m, n, p_i)`` for ``n, m <= n_max`` (zero for ``m > n``)."""
    n, m, valid = _cell_grid(n_max)
    if logc is None:
        logc = _log_binom_coef(n_max)
    p = np.asarray(p, dtype=float)[:, None, None]
    mf = np.broadcast_to(m, valid.shape).astype(float)
    kf = np.where(valid, n - m, 0).astype(float)
    lp = logc[None] + _xlogy(mf[None], p) + _xlogy(kf[None], 1.0 - p)
    return np.where(valid[None], np.exp(lp), 0.0)


# --------------------------------------------------------------------------------------------
# per-cell tables
# --------------------------------------------------------------------------------------------

def _nan_upper(x: np.ndarray) -> np.ndarray:
    _, _, valid = _cell_grid(x.shape[0] - 1)
    return np.where(valid, x, np.nan)


def true_risk_table(n_max: int, alpha: float, p: float) -> np.ndarray:
    """Return the per-cell true risk ``psi[n, m] = alpha (q I(m > n-m) + p I(m < n-m) + I(m = n-m) / 2)``.

    The true risk of the histogram classifier is ``g(V) = sum_j psi(m_j, n_j)`` (additive).

    Parameters
    ----------
    n_max : int
        Largest cell count n.
    alpha : float
        The cell's probability.
    p : float
        P(y = 1 | x in the cell); ``q = 1 - p``.

    Returns
    -------
    ndarray of shape (n_max + 1, n_max + 1)
        ``psi[n, m]``; 0 for ``m > n``.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    n, m, valid = _cell_grid(n_max)
    q = 1.0 - p
    psi = alpha * (q * (2 * m > n) + p * (2 * m < n) + 0.5 * (2 * m == n))
    return np.where(valid, psi, 0.0)


def resubstitution_table(N: int, n_max: int) -> np.ndarray:
    """Return the resubstitution (empirical risk) table ``x~_mn = min(m, n - m) / N``.

    Parameters
    ----------
    N : int
        Sample size (>= 1).
    n_max : int
        Largest cell count n of the table.

    Returns
    -------
    ndarray of shape (n_max + 1, n_max + 1)
        ``x[n, m]`` in probability units; NaN for ``m > n``.

    Raises
    ------
    InvalidParameterError
        If ``N`` or ``n_max`` is out of range.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    N = check_int(N, "N", low=1)
    n_max = check_int(n_max, "n_max", low=0)
    n, m, valid = _cell_grid(n_max)
    return _nan_upper(np.minimum(m, n - m) / N + 0.0 * valid)


def loo_table(N: int, n_max: int) -> np.ndarray:
    """Return the leave-one-out table ``x-_mn = [min + max (I(m = n-m) + I(|n - 2m| = 1)/2)] / N``.

    Removing a point of the minority class leaves it a minority (an error); removing a point of
    the majority turns the cell into a tie (error 1/2) when ``|n - 2m| = 1``, or into the other
    majority when ``m = n - m`` (Nedelko 2009, section 5).

    Parameters
    ----------
    N : int
        Sample size (>= 1).
    n_max : int
        Largest cell count n of the table.

    Returns
    -------
    ndarray of shape (n_max + 1, n_max + 1)
        ``x[n, m]`` in probability units; NaN for ``m > n``.

    Raises
    ------
    InvalidParameterError
        If ``N`` or ``n_max`` is out of range.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    N = check_int(N, "N", low=1)
    n_max = check_int(n_max, "n_max", low=0)
    n, m, _ = _cell_grid(n_max)
    lo = np.minimum(m, n - m)
    hi = np.maximum(m, n - m)
    x = (lo + hi * ((m == n - m) + 0.5 * (np.abs(n - 2 * m) == 1))) / N
    return _nan_upper(x.astype(float))


def _oob_majority_prob(N: int, n_max: int) -> np.ndarray:
    """``W[i, j]``: probability that a cell's bootstrap copy votes *against* a held-out point.

    The held-out (out-of-bag) point's cell has ``i`` other points of the same class and ``j`` of
    the other class. Given that the point is never drawn, the N draws are uniform over the other
    N - 1 points, so the cell receives ``s ~ Bin(N, (i + j)/(N - 1))`` draws of which
    ``u ~ Bin(s, i/(i + j))`` are of the point's class. The vote goes against it when ``u < s - u``
    and is a coin flip (1/2) when ``u = s - u`` (an empty bootstrap cell included).
    """
    W = np.full((n_max + 1, n_max + 1), np.nan)
    s = np.arange(N + 1, dtype=float)
    W[0, 0] = 0.5
    for t in range(1, n_max + 1):  # t = i + j points besides the held-out one
        if t > N - 1:
            break
        i = np.arange(t + 1, dtype=float)[:, None]
        r = i / t
        ws = binom_pmf(s, N, t / (N - 1))[None, :]
        below = stats.binom.cdf(np.ceil(s / 2) - 1, s[None, :], r)
        tie = np.where(s % 2 == 0, stats.binom.pmf(s / 2, s[None, :], r), 0.0)
        W[np.arange(t + 1), t - np.arange(t + 1)] = ((below + 0.5 * tie) * ws).sum(axis=1)
    return W


def bootstrap_oob_table(N: int, n_max: int) -> np.ndarray:
    """Return the exact bootstrap out-of-bag table ``x^_mn`` (the paper's ``R^``).

    The paper's recurrence is garbled; this closed form replaces it.
    ``R^ = E sum_{i in J0} L_i / E|J0|`` with ``E|J0| = N (1 - 1/N)^N``. Per point,
    ``P(i in J0 and misclassified) = (1 - 1/N)^N P(misclassified | i in J0)``, so the factor
    ``(1 - 1/N)^N`` cancels and ``x^_mn = [m W(m-1, n-m) + (n-m) W(n-m-1, m)] / N`` with ``W`` the
    probability that the out-of-bag majority is wrong. Needs ``N >= 2`` (for N = 1 no point is
    ever out of bag).

    Parameters
    ----------
    N : int
        Sample size (>= 1).
    n_max : int
        Largest cell count n of the table.

    Returns
    -------
    ndarray of shape (n_max + 1, n_max + 1)
        ``x[n, m]`` in probability units; NaN for ``m > n``.

    Raises
    ------
    InvalidParameterError
        If ``N`` or ``n_max`` is out of range.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    N = check_int(N, "N", low=2)
    n_max = check_int(n_max, "n_max", low=0)
    W = _oob_majority_prob(N, n_max)
    n, m, valid = _cell_grid(n_max)
    x = np.zeros((n_max + 1, n_max + 1))
    for nn in range(n_max + 1):
        mm = np.arange(nn + 1)
        a = np.where(mm >= 1, mm * W[np.maximum(mm - 1, 0), nn - mm], 0.0)
        b = np.where(nn - mm >= 1, (nn - mm) * W[np.maximum(nn - mm - 1, 0), mm], 0.0)
        x[nn, : nn + 1] = (a + b) / N
    return _nan_upper(x)


def bootstrap632_table(N: int, n_max: int) -> np.ndarray:
    """Return the .632 bootstrap table ``x.._mn = e^-1 x~_mn + (1 - e^-1) x^_mn`` (Table 2).

    The paper's R-double-dot; ``N >= 2``.

    Parameters
    ----------
    N : int
        Sample size (>= 1).
    n_max : int
        Largest cell count n of the table.

    Returns
    -------
    ndarray of shape (n_max + 1, n_max + 1)
        ``x[n, m]`` in probability units; NaN for ``m > n``.

    Raises
    ------
    InvalidParameterError
        If ``N`` or ``n_max`` is out of range.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    N = check_int(N, "N", low=2)
    n_max = check_int(n_max, "n_max", low=0)
    e1 = math.exp(-1.0)
    return e1 * resubstitution_table(N, n_max) + (1.0 - e1) * bootstrap_oob_table(N, n_max)


# --------------------------------------------------------------------------------------------
# balanced-optimal estimate
# --------------------------------------------------------------------------------------------

def gauge_direction(N: int, k: int, n_max: int | None = None) -> np.ndarray:
    """Return the gauge direction ``x_mn -> x_mn + lambda (n - N/k)`` (NaN for ``m > n``).

    Adding it to any table leaves every total estimate ``f(V)`` unchanged because
    ``sum_j (n_j - N/k) = 0``; for ``k >= 3`` it is the only such direction.

    Parameters
    ----------
    N : int
        Sample size.
    k : int
        Number of cells.
    n_max : int, optional
        Largest cell count (default N).

    Returns
    -------
    ndarray of shape (n_max + 1, n_max + 1)
        ``n - N/k`` in every cell ``m <= n``.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    n_max = N if n_max is None else n_max
    n, m, valid = _cell_grid(n_max)
    return _nan_upper((n - N / k) + 0.0 * m)


class BalancedOptimalWarning(UserWarning):
    """:func:`balanced_optimal` stopped at ``max_iter`` before the balance condition met ``tol``."""


@dataclass(frozen=True)
class BalancedOptimalResult:
    """Outcome of :func:`balanced_optimal`.

    Parameters
    ----------
    x : ndarray
        Per-cell table ``x*[n, m]`` for ``n <= N`` (probability units, NaN for ``m > n``).
    gauge_free : ndarray
        The converged table with its gauge component chosen so that the table is orthogonal to
        the gauge direction under the cell-probability weights at ``p = 1/2`` (an explicit,
        reproducible representative of the class).
    lam : float
        ``x = gauge_free + lam * (n - N/k)``.
    iterations : int
        Iterations run (the projected iteration; see ``paper_iterations``).
    residual : float
        ``max |delta+ + delta-| / delta2`` over cells after projecting out the gauge.
    drift : float
        The gauge component of the unprojected update at convergence (see Notes in
        :func:`balanced_optimal`); zero would mean an exact root of ``delta+ + delta- = 0``.
    p_grid : ndarray
        The grid over which ``delta+`` and ``delta-`` are taken.
    """

    x: np.ndarray
    gauge_free: np.ndarray
    lam: float
    iterations: int
    residual: float
    drift: float
    p_grid: np.ndarray = field(repr=False)

    def __post_init__(self):
        freeze_fields(self)  # a value: read-only arrays, tuples, FrozenDicts


class _BalancedProblem:
    """Scaled derivatives of Delta with respect to every cell, on a p grid (identical cells)."""

    def __init__(self, N: int, k: int, p_grid: np.ndarray):
        self.N, self.k = N, k
        a = 1.0 / k
        n, m, valid = _cell_grid(N)
        self.valid = valid
        self.cn = np.broadcast_to(n, valid.shape)[valid]          # n of each cell (flattened)
        self.cm = np.broadcast_to(m, valid.shape)[valid]
        cube = _binom_cube(N, p_grid)                                # (P, n, m)
        self.Bc = cube[:, valid]                                     # (P, cells)
        P = p_grid[:, None]
        self.psi = a * ((1 - P) * (2 * self.cm > self.cn) + P * (2 * self.cm < self.cn)
                        + 0.5 * (2 * self.cm == self.cn))            # (P, cells)
        self.starts = np.searchsorted(self.cn, np.arange(N + 1))   # cells are sorted by n
        self.pi_g = np.add.reduceat(self.Bc * self.psi, self.starts, axis=1)  # (P, n)
        # conditional law of a second cell's count given n in the first: Bin(N - n, a / (1 - a))
        nn = np.arange(N + 1)
        if k > 1:
            self.C = binom_pmf(nn[None, :], N - nn[:, None], a / (1 - a))
        else:
            self.C = np.zeros((N + 1, N + 1))
        self.Cdiag = np.diag(self.C)[self.cn]

    def residual(self, xc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(delta+ + delta-, delta2)`` per cell, all divided by ``2 k B(n, N, 1/k)`` (> 0)."""
        k = self.k
        pi_h = np.add.reduceat(self.Bc * xc, self.starts, axis=1) - self.pi_g                 # (P, n)
        c = pi_h @ self.C.T                                          # (P, n)
        D = self.Bc * ((xc - self.psi) + (k - 1) * c[:, self.cn])   # eq: dDelta/dx_mn, scaled
        ip = D.argmax(axis=0)
        im = D.argmin(axis=0)
        cols = np.arange(D.shape[1])
        bp = self.Bc[ip, cols]
        bm = self.Bc[im, cols]
        d2 = bp * (1 + (k - 1) * self.Cdiag * bp) + bm * (1 + (k - 1) * self.Cdiag * bm)
        return D[ip, cols] + D[im, cols], d2


def balanced_optimal(N: int, k: int, *, tau: float = 0.1, n_p: int = 201, tol: float = 1e-7,
                     max_iter: int = 3000, gauge: str | float = "paper", paper_iterations: int = 117,
                     min_cell_prob: float = 1e-12, switch_iter: int = 1000) -> BalancedOptimalResult:
    """Return the balanced-optimal estimate ``x*_mn`` (the paper's section "Оптимизация оценки риска").

    With ``alpha_j = 1/k``, ``p_j = p`` the derivative of ``Delta = E(f - g)^2`` with respect to one
    cell value is (paper's first displayed derivative)
    ``dDelta/dx_mn = 2k B(m,n,p) [(x_mn - psi_mn) B(n,N,alpha) + (k-1) c(n, N-n, alpha, p)]``, with
    ``c = sum_i Tri(n, i) (pi_phi(i) - pi_psi(i))``, and the second derivative
    ``2k B(m,n,p) (B(n,N,alpha) + (k-1) B(2n,N,2alpha) B(n,2n,1/2) B(m,n,p))``. With
    ``delta+ = max_p``, ``delta- = min_p`` of the first derivative over **p in [0, 1]** (a grid of
    ``n_p`` points) and ``delta2`` the sum of the second derivatives at the two maximisers, the
    damped iteration is ``x <- x - tau (delta+ + delta-) / delta2`` started from resubstitution.
    All cells ``n <= N`` are iterated jointly; the common factor ``B(n, N, alpha)`` is divided out,
    which leaves the update unchanged and avoids underflow for large ``n``.

    Parameters
    ----------
    N : int
        Sample size.
    k : int
        Number of cells.
    tau : float, default=0.1
        Damping of the iteration.
    n_p : int, default=201
        Points of the grid over p in [0, 1].
    tol : float, default=1e-7
        Convergence threshold on the largest projected update (probability units).
    max_iter : int, default=3000
        Largest number of iterations.
    gauge : {"paper", "orthogonal"} or float, default="paper"
        How the gauge is fixed (see Notes).
    paper_iterations : int, default=117
        Steps of the literal iteration whose gauge ``gauge="paper"`` reads off.
    min_cell_prob : float, default=1e-12
        Cells whose largest probability over p is below this are left out of the convergence
        test.
    switch_iter : int, default=1000
        Step after which the divisor becomes the running maximum of ``delta2`` (see Notes).

    Returns
    -------
    BalancedOptimalResult
        The table and the iteration's diagnostics.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range or ``gauge`` is unknown.

    Warns
    -----
    BalancedOptimalWarning
        If ``max_iter`` is reached before convergence.

    Notes
    -----
    The gauge. Adding ``lambda (n - N/k)`` to every cell changes no total estimate, so ``Delta`` and all
    derivatives are invariant along that direction. The iteration does not reach a root of
    ``delta+ + delta- = 0``: it settles on a point where the update is a constant multiple of
    the gauge direction and then drifts along it forever (``drift`` reports that constant). Here
    each update has its gauge component removed, the iteration is run to convergence (``tol`` on the
    largest projected update, probability units), and the gauge is then fixed explicitly:

    * ``gauge="paper"`` -- the gauge the paper's own procedure reaches: the literal, unprojected
      iteration from resubstitution with ``tau`` for ``paper_iterations`` steps, whose gauge
      component is read off and added to the converged class. With the defaults (``tau = 0.1``,
      ``n_p = 201``, 117 steps) Table 1 (N = 50, k = 10) is reproduced to within 0.0064 in count
      units: 30 of the 39 printed cells agree to the printed two decimals, the others (rows
      n = 6..8) differ by at most 0.0014 beyond rounding, a non-gauge difference (it has opposite
      signs within one row) we attribute to the paper's p grid / stopping rule, which it does not
      state. The row ``n = N/k = 5`` is gauge-free and agrees to the printed digits (max 0.0046).
      117 is the step count at which the literal iteration is closest to Table 1;
    * ``gauge="orthogonal"`` -- the representative orthogonal to the gauge direction with the cell
      weights ``B(n, N, 1/k) B(m, n, 1/2)``;
    * a number -- ``N * x*_00`` (count units) is set to that value.

    Convergence is tested on cells whose largest probability over p exceeds ``min_cell_prob``;
    the tie cells of huge ``n`` (probability ~1e-30 for N = 50) keep jumping between grid maximisers.
    Convergence. The Newton-like step divides by ``delta2`` taken at the current maximisers over
    p; where a cell's maximiser jumps between two values of p from one step to the next, its step
    jumps too and the projected iteration can cycle for ever (N = 20, k = 4: a 2-cycle on the tie
    cells n = 16, 18, residual 0.009 after 3000 steps). After ``switch_iter`` steps the divisor is
    therefore replaced by the running maximum of ``delta2`` per cell, a divisor that no longer
    jumps; the iteration then settles (N = 20, k = 4: residual < 1e-7 after about 1300 steps; N = 40,
    k = 5 likewise). Runs that converge before ``switch_iter`` (N = 50, k = 10: 261 steps) are
    unchanged. If ``max_iter`` is reached anyway, :class:`BalancedOptimalWarning` is raised with the
    residual. For k = 2 further directions leave every total unchanged (the two cell counts sum to
    N) and the iteration may not settle (N = 20, k = 2: residual 0.009, with the warning).

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    N = check_int(N, "N", low=1)
    k = check_int(k, "k", low=1)
    tau = check_real(tau, "tau", low=0.0, low_open=True, high=1.0)
    n_p = check_int(n_p, "n_p", low=3)
    max_iter = check_int(max_iter, "max_iter", low=1)
    switch_iter = check_int(switch_iter, "switch_iter", low=0)
    paper_iterations = check_int(paper_iterations, "paper_iterations", low=0)
    if not (isinstance(gauge, str) and gauge in ("paper", "orthogonal")):
        if isinstance(gauge, str):
            raise InvalidParameterError(f"gauge must be 'paper', 'orthogonal' or a number, got {gauge!r}")
        gauge = check_real(gauge, "gauge")
    p_grid = np.linspace(0.0, 1.0, n_p)
    prob = _BalancedProblem(N, k, p_grid)
    valid = prob.valid
    g = (prob.cn - N / k).astype(float)
    w = binom_pmf(prob.cn, N, 1.0 / k) * binom_pmf(prob.cm, prob.cn, 0.5)
    gw = g * w
    gg = float(g @ gw)
    x0 = np.minimum(prob.cm, prob.cn - prob.cm) / N
    # largest probability of a cell over p (at p = m/n): cells below min_cell_prob never matter
    cell_prob = binom_pmf(prob.cn, N, 1.0 / k) * binom_pmf(prob.cm, prob.cn, prob.cm / np.maximum(prob.cn, 1))
    relevant = cell_prob > min_cell_prob

    def step_of(xc):
        r, d2 = prob.residual(xc)
        return np.where(d2 > 0, r / np.where(d2 > 0, d2, 1.0), 0.0)

    def proj(v):  # gauge component coefficient in the weighted inner product
        return float(v @ gw) / gg if gg > 0 else 0.0

    xc = x0.copy()
    it = 0
    curvature = None
    switch = min(max_iter, switch_iter)
    converged = False
    for it in range(1, max_iter + 1):  # noqa: B007
        if it > switch:
            r, d2 = prob.residual(xc)
            curvature = np.maximum(curvature, d2) if curvature is not None else np.maximum(d2, 1e-300)
            s = r / curvature
        else:
            s = step_of(xc)
        s_perp = s - proj(s) * g
        if np.max(np.abs(s_perp[relevant])) < tol:
            converged = True
            break
        xc = xc - tau * s_perp
    if curvature is not None:
        r, d2 = prob.residual(xc)
        s = r / np.maximum(curvature, d2)
    else:
        s = step_of(xc)
    drift = proj(s)
    residual = float(np.max(np.abs(s - drift * g)[relevant]))
    if not converged:
        warnings.warn(f"balanced_optimal(N={N}, k={k}) stopped at max_iter={max_iter} with residual "
                      f"{residual:.2g} (tol={tol:g}): the table is not balanced to tol (see the result's residual)",
                      BalancedOptimalWarning, stacklevel=2)
    gauge_free = xc - proj(xc) * g
    if gauge == "paper":
        xp = x0.copy()
        for _ in range(paper_iterations):
            xp = xp - tau * step_of(xp)
        lam = proj(xp)
    elif gauge == "orthogonal":
        lam = 0.0
    else:
        i00 = 0  # cell (0, 0) is the first flattened cell
        lam = (gauge / N - gauge_free[i00]) / g[i00] if g[i00] != 0 else 0.0
    x = np.full(valid.shape, np.nan)
    x[valid] = gauge_free + lam * g
    gf = np.full(valid.shape, np.nan)
    gf[valid] = gauge_free
    return BalancedOptimalResult(x=x, gauge_free=gf, lam=float(lam), iterations=it, residual=residual,
                                 drift=float(drift), p_grid=p_grid)


@lru_cache(maxsize=32)
def _bootstrap632_cached(N: int, n_max: int) -> np.ndarray:
    x = bootstrap632_table(N, n_max)
    x.setflags(write=False)
    return x


@lru_cache(maxsize=16)
def _balanced_cached(N: int, k: int) -> np.ndarray:
    x = balanced_optimal(N, k).x
    x.setflags(write=False)
    return x


# --------------------------------------------------------------------------------------------
# public tables
# --------------------------------------------------------------------------------------------

def cell_values(method: str, N: int, n_max: int, k: int | None = None) -> np.ndarray:
    """Return the per-cell table ``x[n, m]`` of an estimator, for ``0 <= m <= n <= n_max``.

    Multiply by ``N`` for the paper's units.

    Parameters
    ----------
    method : {"resubstitution", "loo", "bootstrap632", "balanced_optimal"}
        x~, x-, x.. (Table 2) or x* (Table 1; needs ``k`` and ``n_max <= N``, with the default
        settings of :func:`balanced_optimal`, i.e. the paper's gauge).
    N : int
        Sample size.
    n_max : int
        Largest cell count.
    k : int, optional
        Number of cells (``"balanced_optimal"`` only).

    Returns
    -------
    ndarray of shape (n_max + 1, n_max + 1)
        Probability units; NaN for ``m > n``.

    Raises
    ------
    InvalidParameterError
        If ``method`` is unknown or a count is out of range.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    method = _check_method(method)
    N = check_int(N, "N", low=1)
    n_max = check_int(n_max, "n_max", low=0)
    if method in ("bootstrap632",) and N < 2:
        raise InvalidParameterError(f"N must be >= 2 for the bootstrap (no point is ever out of bag), got {N}")
    if method == "resubstitution":
        return resubstitution_table(N, n_max)
    if method == "loo":
        return loo_table(N, n_max)
    if method == "bootstrap632":
        return np.array(_bootstrap632_cached(N, n_max))
    if k is None:
        raise InvalidParameterError("k is required for method 'balanced_optimal'")
    k = check_int(k, "k", low=1)
    if n_max > N:
        raise InvalidParameterError(f"n_max must be <= N for 'balanced_optimal' (got n_max={n_max}, N={N})")
    return np.array(_balanced_cached(N, k)[: n_max + 1, : n_max + 1])


# --------------------------------------------------------------------------------------------
# exact moments
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Moments:
    """Exact moments of an additive estimator ``f`` and the true risk ``g`` (arrays over p).

    Parameters
    ----------
    E_f, E_f2 : ndarray
        E f and E f^2.
    E_fg : ndarray
        E fg.
    E_g, E_g2 : ndarray
        E g and E g^2.
    delta : ndarray
        ``E(f - g)^2 = E f^2 - 2 E fg + E g^2`` (the paper's Delta_fg).
    S : ndarray
        ``sqrt(delta)``.
    """

    E_f: np.ndarray
    E_f2: np.ndarray
    E_fg: np.ndarray
    E_g: np.ndarray
    E_g2: np.ndarray
    delta: np.ndarray
    S: np.ndarray

    def __post_init__(self):
        freeze_fields(self)  # a value: read-only arrays, tuples, FrozenDicts


def _table_for_N(x, N: int) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < N + 1 or x.shape[1] < N + 1:
        raise InvalidParameterError(f"x must be a table x[n, m] covering n, m <= N = {N}, got shape {x.shape}")
    x = x[: N + 1, : N + 1]
    _, _, valid = _cell_grid(N)
    if not np.all(np.isfinite(x[valid])):
        raise InvalidParameterError("x has non-finite entries for m <= n")
    return np.where(valid, x, 0.0)


def moments(x, N: int, k: int, p, *, chunk: int = 32) -> Moments:
    """Return the exact ``E f, E f^2, E fg, E g, E g^2, Delta, S`` for ``alpha_j = 1/k``, ``p_j = p``.

    ``f = sum_j x[n_j, m_j]``; the paper's mu, sigma and omega sums with all k cells alike:
    ``E f = k mu``, ``E f^2 = k sigma + k (k - 1) omega``, ``E fg`` likewise with ``pi_phi pi_psi``.

    Parameters
    ----------
    x : array-like
        Per-cell table ``x[n, m]`` covering ``n <= N``.
    N : int
        Sample size.
    k : int
        Number of cells.
    p : float or array-like of float
        P(y = 1 | x) in [0, 1], the same in every cell; vectorised over an array.
    chunk : int, default=32
        Values of ``p`` computed at once.

    Returns
    -------
    Moments
        Arrays over ``p``.

    Raises
    ------
    InvalidParameterError
        If ``x`` does not cover ``n <= N`` or ``p`` is outside [0, 1].

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    N = check_int(N, "N", low=1)
    k = check_int(k, "k", low=1)
    parr, scalar = _to_array_p(p)
    x = _table_for_N(x, N)
    a = 1.0 / k
    n, m, valid = _cell_grid(N)
    Igt = ((2 * m > n) & valid).astype(float)
    Ilt = ((2 * m < n) & valid).astype(float)
    Ieq = ((2 * m == n) & valid).astype(float)
    W = np.stack([x, x * x, Igt, Ilt, Ieq, x * Igt, x * Ilt, x * Ieq])
    Bn = binom_pmf(np.arange(N + 1), N, a)
    T = _trinomial(N, a, a) if k > 1 else np.zeros((N + 1, N + 1))
    logc = _log_binom_coef(N)
    out = {key: np.empty(parr.size) for key in ("E_f", "E_f2", "E_fg", "E_g", "E_g2", "delta")}
    for s in range(0, parr.size, chunk):
        pp = parr[s: s + chunk]
        cube = _binom_cube(N, pp, logc)
        pis = np.einsum("pnm,wnm->wpn", cube, W, optimize=True)
        pf, pff, pgt, plt, peq, pfgt, pflt, pfeq = pis
        q = (1 - pp)[:, None]
        P = pp[:, None]
        pg = a * (q * pgt + P * plt + 0.5 * peq)
        pgg = a * a * (q * q * pgt + P * P * plt + 0.25 * peq)
        pfg = a * (q * pfgt + P * pflt + 0.5 * pfeq)
        ph = pf - pg
        phh = pff - 2 * pfg + pgg

        def cross(u, v):
            return k * (k - 1) * np.einsum("pn,nl,pl->p", u, T, v, optimize=True)

        out["E_f"][s: s + chunk] = k * pf @ Bn
        out["E_g"][s: s + chunk] = k * pg @ Bn
        out["E_f2"][s: s + chunk] = k * pff @ Bn + cross(pf, pf)
        out["E_fg"][s: s + chunk] = k * pfg @ Bn + cross(pf, pg)
        out["E_g2"][s: s + chunk] = k * pgg @ Bn + cross(pg, pg)
        out["delta"][s: s + chunk] = k * phh @ Bn + cross(ph, ph)
    out["delta"] = np.maximum(out["delta"], 0.0)
    out["S"] = np.sqrt(out["delta"])
    if scalar:
        out = {key: val[0] for key, val in out.items()}
    return Moments(**out)


def moments_general(x, N: int, alpha, p) -> Moments:
    """Return the exact moments for general cell probabilities ``alpha_j`` and ``p_j``.

    Cross terms use the trinomial law of two cells, grouped by distinct ``alpha`` values so that
    equal-probability cells share one trinomial matrix.

    Parameters
    ----------
    x : array-like
        Per-cell table ``x[n, m]`` covering ``n <= N``.
    N : int
        Sample size.
    alpha : array-like of float
        Cell probabilities, summing to 1.
    p : float or array-like of float
        P(y = 1 | x = j), one value or one per cell.

    Returns
    -------
    Moments
        Scalars (one distribution).

    Raises
    ------
    InvalidParameterError
        If ``alpha`` is not a probability vector or ``p`` has another length.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    N = check_int(N, "N", low=1)
    alpha = np.atleast_1d(np.asarray(alpha, dtype=float))
    if alpha.ndim != 1 or alpha.size < 1 or not np.all(np.isfinite(alpha)) or np.any(alpha < 0):
        raise InvalidParameterError("alpha must be a 1-D array of non-negative cell probabilities")
    if abs(alpha.sum() - 1.0) > 1e-9:
        raise InvalidParameterError(f"alpha must sum to 1, got {alpha.sum()!r}")
    pj = np.atleast_1d(_check_p(p, "p")) * np.ones_like(alpha)
    if pj.shape != alpha.shape:
        raise InvalidParameterError("p must be a scalar or have the same length as alpha")
    x = _table_for_N(x, N)
    n, m, valid = _cell_grid(N)
    logc = _log_binom_coef(N)
    cube = _binom_cube(N, pj, logc)                                  # (k, n, m)
    psi = np.stack([true_risk_table(N, a, q) for a, q in zip(alpha, pj, strict=True)])
    pf = (cube * x).sum(-1)
    pg = (cube * psi).sum(-1)
    pff = (cube * x * x).sum(-1)
    pfg = (cube * x * psi).sum(-1)
    pgg = (cube * psi * psi).sum(-1)
    Bn = binom_pmf(np.arange(N + 1)[None, :], N, alpha[:, None])    # (k, n)

    groups = {}
    for j, a in enumerate(alpha):
        groups.setdefault(float(a), []).append(j)
    keys = list(groups)

    def cross(u, v):
        tot = 0.0
        for ia, a1 in enumerate(keys):
            for a2 in keys[ia:]:
                g1, g2 = groups[a1], groups[a2]
                if a1 == a2 and len(g1) < 2:
                    continue
                T = _trinomial(N, a1, a2)
                su1, sv1 = u[g1].sum(0), v[g1].sum(0)
                su2, sv2 = u[g2].sum(0), v[g2].sum(0)
                if a1 == a2:
                    tot += su1 @ T @ sv1 - np.einsum("jn,nl,jl->", u[g1], T, v[g1])
                else:
                    tot += su1 @ T @ sv2 + su2 @ T.T @ sv1
        return tot

    E_f = float((Bn * pf).sum())
    E_g = float((Bn * pg).sum())
    E_f2 = float((Bn * pff).sum() + cross(pf, pf))
    E_fg = float((Bn * pfg).sum() + cross(pf, pg))
    E_g2 = float((Bn * pgg).sum() + cross(pg, pg))
    ph = pf - pg
    delta = max(float((Bn * (pff - 2 * pfg + pgg)).sum() + cross(ph, ph)), 0.0)
    return Moments(E_f=E_f, E_f2=E_f2, E_fg=E_fg, E_g=E_g, E_g2=E_g2, delta=delta, S=math.sqrt(delta))


def rms_deviation(method: str, N: int, k: int, p):
    """Return the exact ``S = sqrt(Delta_fg) = sqrt(E (f - g)^2)`` (Fig. 2) for ``alpha_j = 1/k``, ``p_j = p``.

    Parameters
    ----------
    method : str
        An estimator of :func:`cell_values`.
    N : int
        Sample size.
    k : int
        Number of cells.
    p : float or array-like of float
        P(y = 1 | x) in [0, 1].

    Returns
    -------
    float or ndarray
        A float for a number ``p``, an array for a 1-D ``p``.

    Raises
    ------
    InvalidParameterError
        If ``method`` is unknown or ``p`` is outside [0, 1].

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    method = _check_method(method)
    N = check_int(N, "N", low=1)
    k = check_int(k, "k", low=1)
    parr, scalar = _to_array_p(p)
    x = cell_values(method, N, N, k=k)
    S = moments(x, N, k, parr).S
    return float(S[0]) if scalar else S


# --------------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------------

def simulate(x, N: int, k: int, p: float, n_samples: int = 100_000, *, alpha=None,
             random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Draw samples of size N and return the estimate and the true risk of each.

    ``f = sum_j x[n_j, m_j]`` (the additive estimate) and ``g`` the histogram classifier's true
    risk (ties counted 1/2). Cell counts are drawn as ``n ~ Multinomial(N, alpha)`` and
    ``m_j ~ Bin(n_j, p_j)``.

    Parameters
    ----------
    x : array-like
        Per-cell table ``x[n, m]`` covering ``n <= N``.
    N : int
        Sample size.
    k : int
        Number of cells.
    p : float or array-like of float
        P(y = 1 | x = j), one value or one per cell.
    n_samples : int, default=100000
        Number of samples drawn.
    alpha : array-like of float, optional
        Cell probabilities (default ``1/k`` in every cell).
    random_state : int, Generator or None, default=None
        Seed.

    Returns
    -------
    f, g : ndarray of shape (n_samples,)
        The estimate and the true risk per sample.

    Raises
    ------
    InvalidParameterError
        If ``alpha`` is not ``k`` probabilities summing to 1.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    N = check_int(N, "N", low=1)
    k = check_int(k, "k", low=1)
    n_samples = check_int(n_samples, "n_samples", low=1)
    x = _table_for_N(x, N)
    alpha = np.full(k, 1.0 / k) if alpha is None else np.asarray(alpha, dtype=float)
    if alpha.shape != (k,) or abs(alpha.sum() - 1) > 1e-9:
        raise InvalidParameterError("alpha must hold k probabilities summing to 1")
    pj = np.atleast_1d(_check_p(p)) * np.ones(k)
    rng = np.random.default_rng(random_state)
    nj = rng.multinomial(N, alpha, size=n_samples)
    mj = rng.binomial(nj, pj[None, :])
    f = x[nj, mj].sum(axis=1)
    tie = 2 * mj == nj
    g = (alpha[None, :] * np.where(tie, 0.5, np.where(2 * mj > nj, 1 - pj[None, :], pj[None, :]))).sum(1)
    return f, g


def simulate_rms_deviation(x, N: int, k: int, p: float, n_samples: int = 100_000, *, alpha=None,
                           random_state=None) -> tuple[float, float]:
    """Return the Monte Carlo ``S = sqrt(E (f - g)^2)`` and its standard error (Fig. 2's check).

    The samples of :func:`simulate`; the standard error of ``S`` is the delta method's
    ``se(mean of (f - g)^2) / (2 S)`` (0 where every draw gives ``f = g``). The exact value is
    :func:`rms_deviation` (or ``moments(x, N, k, p).S``); the two agree within a few standard errors.

    Parameters
    ----------
    x : array-like
        Per-cell table ``x[n, m]`` covering ``n <= N`` (:func:`cell_values`).
    N : int
        Sample size.
    k : int
        Number of cells.
    p : float or array-like of float
        P(y = 1 | x = j), one value or one per cell.
    n_samples : int, default=100000
        Number of samples drawn (>= 2).
    alpha : array-like of float, optional
        Cell probabilities (default ``1/k`` in every cell).
    random_state : int, Generator or None, default=None
        Seed.

    Returns
    -------
    S, se : float
        The simulated root mean square deviation and its standard error.

    Raises
    ------
    InvalidParameterError
        If ``n_samples`` < 2 or an argument of :func:`simulate` is invalid.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    n_samples = check_int(n_samples, "n_samples", low=2)
    f, g = simulate(x, N, k, p, n_samples, alpha=alpha, random_state=random_state)
    sq = (f - g) ** 2
    S = float(np.sqrt(sq.mean()))
    se = float(sq.std(ddof=1) / np.sqrt(sq.size) / (2 * S)) if S > 0 else 0.0
    return S, se


def simulate_rms_deviation_curve(x, N: int, k: int, p, n_samples: int = 100_000, *,
                                 random_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return the Monte Carlo ``S`` and its standard error at each of several p (Fig. 2's check).

    :func:`simulate_rms_deviation` at every ``p[i]``, with the seed ``random_state + i``: each
    point is an independent simulation, reproducible on its own.

    Parameters
    ----------
    x : array-like
        Per-cell table ``x[n, m]`` covering ``n <= N`` (:func:`cell_values`).
    N : int
        Sample size.
    k : int
        Number of cells.
    p : array-like of float
        The values of P(y = 1 | x), in [0, 1].
    n_samples : int, default=100000
        Samples drawn at each p (>= 2).
    random_state : int, default=0
        The seed of the first p.

    Returns
    -------
    S, se : ndarray of shape (len(p),)
        The simulated root mean square deviation at each p and its standard error.

    Raises
    ------
    InvalidParameterError
        If an argument of :func:`simulate_rms_deviation` is invalid.

    References
    ----------
    V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the
    discrete case" (in Russian: "Оптимизация оценки вероятности ошибочной классификации в
    дискретном случае"), XV International Conference "Knowledge-Dialogue-Solution" (KDS 2009),
    Varna, Bulgaria, June-July 2009.
    """
    p = np.atleast_1d(_check_p(p))
    random_state = check_int(random_state, "random_state", low=0)
    out = np.array([simulate_rms_deviation(x, N, k, float(pv), n_samples, random_state=random_state + i)
                    for i, pv in enumerate(p)]).reshape(len(p), 2)
    return out[:, 0], out[:, 1]
