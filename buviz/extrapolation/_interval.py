"""An interval for the extrapolated accuracy AGA_K: the identifiability range widened by sampling error.

Two things make ÂGA_K uncertain when K is far above the k1 observed classes:

1. **Identifiability.** Theorem 4.1 ties the accuracies to D̄ through ``1 - AGA_k = Σ_l β_l H_lk``
   (eq 13). Many D̄ reproduce the observed AverageTA_k (eq 3), k <= k1, equally well and disagree at K.
   The *identifiability range* is the smallest and largest ``AGA_K = 1 - Σ β_l H_lK`` over the moment
   method's model, D̄ = Σ β_l [u - t_l]_+ with β >= 0 (convex, increasing, D̄(0) = 0; §5.1), on
   :data:`RANGE_KNOTS` knots dense towards u = 1, whose accuracies match the observed ones (two linear programs per K;
   :func:`buviz.extrapolation.moment_knot_study` computes the same range for Table 1).
2. **Sampling error.** AverageTA_k is an unbiased estimate of AGA_k (§3) but a noisy one: a different
   draw of the k1 classes (and of their test points) gives different accuracies. Its standard error
   se_k comes from the **delete-one-class jackknife** (each class removed with its test points, eq 3
   recomputed on the k1 - 1 others, in closed form from the ranks). Classes, not test points, are the
   unit: AGA_K averages over draws of classes, and with several test points per class the points of a
   class share its difficulty (a test-point bootstrap misses that between-class variance; on Telugu's
   20 classes × 50 points it is the larger part).

The interval is the range of AGA_K over every D̄ of the model whose accuracies lie within a
simultaneous band of the observed ones: ``∣Σ β_l H_lk - (1 - AverageTA_k)∣ <= c se_k + MISFIT_FACTOR
× misfit + FLOOR_TOL`` for every fitted k, and ``D̄(1) = Σ β_l (1 - t_l) <= 1`` (D̄ is a distribution
function; without this cap nothing stops the risk at large K, and the lower end drops). ``c`` is the
sup-t critical value of the band: the ``level`` quantile of ``max_k ∣Z_k∣ / se_k`` with Z Gaussian of
the jackknife covariance (:data:`N_SIM` draws, seeded), so that the true accuracies lie in the band with
probability about ``level`` at once for every k (a pointwise normal quantile would give a narrower band
and lower coverage). ``misfit`` is the largest residual of the model's own least-squares fit (zero when
the model reproduces the data), so the band is never empty. If the true D̄ belongs to the model and the
true accuracies are in the band, AGA_K is in the interval: coverage is at least the band's, up to the
jackknife's approximation. The interval is finally widened, where needed, to contain the point estimate
of the chosen method. It is conservative where identifiability dominates (K ≫ k1) and does not hold
what the model excludes (a D̄ that is not convex).

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017 (equation and section numbers are this text's); the
same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228

B. Efron and C. Stein, "The jackknife estimate of variance", *The Annals of Statistics* 9(3),
586-596, 1981. https://doi.org/10.1214/aos/1176345462
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from buviz._validation import Interval, InvalidParameterError, check_params
from buviz._values import freeze_fields

from ._core import _kernel_weights, average_accuracy_from_ranks, check_ks, check_margins, default_ks, ranks_from_margins
from ._moment import moment_matrix, spline_nnls

__all__ = ["AccuracyInterval", "accuracy_interval", "class_jackknife", "check_level"]

#: Spline knots of the range's linear programs: t = 0 and 1 - t geometric from 1 down to
#: :data:`RANGE_TAIL` (``knots="tail"`` of :func:`buviz.extrapolation.fit_dbar`), dense near u = 1 where
#: AGA_K of large K lives. 300 of them give the range of 2000 uniform knots within 1e-5 on the toy model
#: at a fifth of the time; uniform knots this few would leave no knot above u = 1 - 1/300.
RANGE_KNOTS = 300
#: The smallest 1 - t of the knot grid: D̄ is resolved up to K of about 1 / RANGE_TAIL = 10 000 classes.
RANGE_TAIL = 1e-4
#: Gaussian draws of the sup-t critical value (seeded by ``random_state``).
N_SIM = 4000
#: The band also admits this multiple of the model's own largest misfit (as in ``moment_knot_study``),
#: so that the least-squares fit itself is feasible; without it the LP can be empty when the model
#: cannot reproduce the data.
MISFIT_FACTOR = 2.0
#: A floor on the band's half-width, against LP round-off where se_k = 0 (every point correct).
FLOOR_TOL = 1e-6
_LEVEL = Interval("real", 0.0, 1.0, closed="neither")


def check_level(value, name: str = "level", owner: str = "accuracy_interval", *, optional: bool = False):
    """Return ``value`` if it is a coverage level in (0, 1) (or ``None`` when ``optional``), else raise.

    Parameters
    ----------
    value : float or None
        The level.
    name, owner : str
        The parameter and the function named in the message.
    optional : bool, default=False
        Whether ``None`` is accepted.

    Returns
    -------
    float or None

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a finite number strictly between 0 and 1.
    """
    check_params({name: value}, {name: [None, _LEVEL] if optional else [_LEVEL]}, owner)
    return None if value is None else float(value)


@dataclass(frozen=True)
class AccuracyInterval:
    """An interval for AGA_K with its point estimate (:func:`accuracy_interval`).

    Unpacks as ``estimate, lower, upper``.

    Parameters
    ----------
    k : int or ndarray
        The target class counts K.
    estimate, lower, upper : float or ndarray
        The point estimate and the interval's ends (``lower <= estimate <= upper``).
    level : float
        The nominal coverage.
    range_low, range_high : float or ndarray
        The identifiability range alone: the band without sampling error (``c = 0``).
    ks, observed, se : ndarray
        The fitted class counts, AverageTA_k (eq 3) and its jackknife standard error.
    critical_value : float
        The sup-t critical value ``c`` of the band.
    """

    k: object
    estimate: object
    lower: object
    upper: object
    level: float
    range_low: object
    range_high: object
    ks: np.ndarray
    observed: np.ndarray
    se: np.ndarray
    critical_value: float

    def __post_init__(self):
        freeze_fields(self)

    def __iter__(self):
        return iter((self.estimate, self.lower, self.upper))

    @property
    def width(self):
        """``upper - lower``."""
        return self.upper - self.lower

    def contains(self, value):
        """Return whether ``lower <= value <= upper`` (elementwise for several K).

        Parameters
        ----------
        value : float or array-like
            A value of AGA_K, e.g. the measured truth.

        Returns
        -------
        bool or ndarray of bool
        """
        v = np.asarray(value, dtype=float)
        out = (np.asarray(self.lower) <= v) & (v <= np.asarray(self.upper))
        return bool(out) if np.ndim(out) == 0 else out


def _b_matrix(M: np.ndarray, y: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """b[i, c] = 1 if wrong class c counts below the true label of point i (its removal lowers the rank by
    one); for ties broken at random the fraction of the tied classes placed below."""
    true = M[np.arange(len(y)), y][:, None]
    below = M < true
    tied = M == true
    tied[np.arange(len(y)), y] = False
    n_tied = tied.sum(axis=1)
    frac = (ranks - 1 - below.sum(axis=1)) / np.maximum(n_tied, 1)
    return below + tied * frac[:, None]


def class_jackknife(margins, labels, ks, *, ranks=None, ties: str = "max", random_state=0) -> np.ndarray:
    """Return AverageTA_k (eq 3) with each class deleted in turn, shape (k1, len(ks)).

    Row c is eq 3 on the k1 - 1 classes other than c (their columns and test points, classes weighted
    equally), in closed form: removing class c lowers the rank of point i by b_ic (1 if c scored below
    the true label, 0 if above) and ``C(R-1, k-1)/C(k1-2, k-1)`` is evaluated at the new rank, so the
    whole table is one (k1 × n) by (n × len(ks)) product.

    Parameters
    ----------
    margins : array-like of shape (n_test, k1)
        Scores, k1 >= 3.
    labels : array-like of shape (n_test,)
        True classes 0..k1-1.
    ks : sequence of int
        Class counts in 2..k1-1.
    ranks : ndarray, optional
        Ranks of the true labels (:func:`buviz.extrapolation.ranks_from_margins`); computed with
        ``ties`` and ``random_state`` if omitted. For random tie-breaking a deleted tied class counts as
        below in the proportion the rank placed tied classes below.
    ties : {"max", "random"}, default="max"
        Rank convention.
    random_state : int or Generator, default=0
        Seed of random tie-breaking.

    Returns
    -------
    ndarray of shape (k1, len(ks))
        The delete-one-class AverageTA_k.

    Raises
    ------
    InvalidParameterError
        If the inputs are malformed, k1 < 3 or a k exceeds k1 - 1.
    """
    M, y = check_margins(margins, labels)
    k1 = M.shape[1]
    if k1 < 3:
        raise InvalidParameterError(f"class_jackknife needs k1 >= 3 classes, got {k1}")
    ks = check_ks(ks, "ks", k_max=k1 - 1)
    r = ranks_from_margins(M, y, ties=ties, random_state=random_state) if ranks is None else np.asarray(ranks)
    Wp = np.zeros((len(ks), k1 + 1))                       # a'(R) for R = 0..k1 on k1 - 1 classes
    Wp[:, 1:k1] = _kernel_weights(ks, k1 - 1)
    q = 1.0 / np.bincount(y, minlength=k1)[y]              # classes weighted equally
    A = Wp[:, r].T * q[:, None]                            # (n, len(ks))
    D = (Wp[:, r] - Wp[:, r - 1]).T * q[:, None]
    G = np.zeros((k1, len(ks)))
    np.add.at(G, y, A)
    B = _b_matrix(M, y, r)
    return (A.sum(axis=0)[None, :] - G - B.T @ D) / (k1 - 1)


def _band_se(M, y, ks, ranks, level, rng):
    """Jackknife se_k of AverageTA_k at every fitted k and the sup-t critical value of the band."""
    k1 = M.shape[1]
    inner = ks[ks <= k1 - 1]
    if inner.size == 0:
        raise InvalidParameterError(f"an interval needs k1 >= 3 observed classes, got {k1}")
    theta = class_jackknife(M, y, inner, ranks=ranks)
    dev = (theta - theta.mean(axis=0)) * np.sqrt((k1 - 1) / k1)
    se_inner = np.sqrt((dev ** 2).sum(axis=0))
    # k = k1 has no delete-one value: it takes the se of the largest k below it (se grows smoothly in k)
    se = se_inner[np.minimum(np.searchsorted(inner, ks), inner.size - 1)]
    ok = se_inner > 0
    if not ok.any():
        return se, 0.0
    Z = rng.standard_normal((N_SIM, k1)) @ dev[:, ok]
    return se, float(np.quantile(np.abs(Z / se_inner[ok]).max(axis=1), level))


def _range(H, risk, h_targets, half, cap):
    """min and max of 1 - h·β over β >= 0 with ∣Hβ - risk∣ <= half and Σβ(1 - t) <= cap."""
    A = np.vstack([H, -H, cap[0][None, :]])
    b = np.concatenate([risk + half, half - risk, [cap[1]]])
    lo, hi = np.empty(len(h_targets)), np.empty(len(h_targets))
    for j, h in enumerate(h_targets):
        ends = [linprog(c, A_ub=A, b_ub=b, bounds=(0, None), method="highs") for c in (h, -h)]
        if not all(e.success for e in ends):
            raise RuntimeError(f"the range's linear program failed: {ends[0].message} / {ends[1].message}")
        hi[j], lo[j] = (1.0 - e.x @ h for e in ends)
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def accuracy_interval(margins, labels, k_target, level: float = 0.9, *, estimate=None, ks=None,
                      ties: str = "max", random_state=0) -> AccuracyInterval:
    """Return an interval for AGA_{k_target}: the identifiability range widened by sampling error.

    See the module docstring for the construction; :func:`buviz.extrapolation.extrapolate` with
    ``interval=level`` calls it with its own point estimate.

    Parameters
    ----------
    margins : array-like of shape (n_test, k1)
        Score of every observed class for each test point; k1 >= 3.
    labels : array-like of shape (n_test,)
        True class index of each test point.
    k_target : int or sequence of int
        Class counts K (>= 2).
    level : float, default=0.9
        Nominal coverage, in (0, 1).
    estimate : float or array-like, optional
        The point estimate of AGA_K (one per K); default the least-squares fit of the range's spline
        model (the moment method on :data:`RANGE_KNOTS` knots). The interval is widened to contain it.
    ks : sequence of int, optional
        Class counts at which AverageTA_k is fitted (default :func:`buviz.extrapolation.default_ks`).
    ties : {"max", "random"}, default="max"
        Rank convention (as :func:`buviz.extrapolation.fit_extrapolator`).
    random_state : int or Generator, default=0
        Seed of random tie-breaking (drawn first, as in :func:`buviz.extrapolation.fit_extrapolator`)
        and of the critical value's Gaussian draws.

    Returns
    -------
    AccuracyInterval
        ``estimate``, ``lower``, ``upper`` (floats for a scalar ``k_target``), the identifiability
        range alone, the jackknife standard errors and the critical value.

    Raises
    ------
    InvalidParameterError
        If ``level``, ``k_target`` or ``ks`` is invalid, or k1 < 3.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    level = check_level(level)
    scalar = np.ndim(k_target) == 0
    targets = check_ks(k_target, "k_target")
    M, y = check_margins(margins, labels)
    k1 = M.shape[1]
    ks = default_ks(k1) if ks is None else np.unique(check_ks(ks, "ks", k_max=k1))
    rng = np.random.default_rng(random_state)
    ranks = ranks_from_margins(M, y, ties=ties, random_state=rng)
    obs = np.atleast_1d(average_accuracy_from_ranks(ranks, ks, k1=k1, groups=y))
    se, crit = _band_se(M, y, ks, ranks, level, rng)
    t = np.concatenate([[0.0], 1.0 - np.geomspace(1.0, RANGE_TAIL, RANGE_KNOTS)[1:]])
    H = moment_matrix("linear_spline", ks, params=t)
    h_targets = moment_matrix("linear_spline", targets, params=t)
    risk = 1.0 - np.clip(obs, 0.0, 1.0)
    beta, _ = spline_nnls(H, risk)
    misfit = float(np.abs(H @ beta - risk).max())
    cap = (1.0 - t, max(1.0, float(beta @ (1.0 - t))))   # D̄(1) <= 1, or the fit's own D̄(1) above it
    tol = MISFIT_FACTOR * misfit + FLOOR_TOL
    range_low, range_high = _range(H, risk, h_targets, np.full(len(ks), tol), cap)
    lower, upper = _range(H, risk, h_targets, crit * se + tol, cap)
    if estimate is None:
        est = np.clip(1.0 - h_targets @ beta, 0.0, 1.0)
    else:
        est = np.broadcast_to(np.asarray(estimate, dtype=float), targets.shape).copy()
        if not np.all(np.isfinite(est)):
            raise InvalidParameterError(f"estimate must be finite, got {estimate!r}")
    lower, upper = np.minimum(lower, est), np.maximum(upper, est)
    pick = (lambda a: float(a[0])) if scalar else np.asarray
    return AccuracyInterval(int(targets[0]) if scalar else targets, pick(est), pick(lower), pick(upper), level,
                            pick(range_low), pick(range_high), ks, obs, se, crit)
