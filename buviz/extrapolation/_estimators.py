"""Extrapolating the average accuracy from k1 observed classes to k_target > k1.

Estimators (all take the margin matrix of the k1 observed classes and the true labels):

``"moment"``      the seed's moment method (eq 9-14): AverageTA_k (eq 3) at ``ks``, then
                  :func:`fit_dbar` (linear spline + NNLS by default) and eq 14.
``"classexreg"``  Zheng, Achanta & Benjamini's later regression estimator (arXiv 1712.09713, R package
                  ClassEx): AverageTA_k regressed, with β >= 0 (NNLS), on the columns
                  ``E[Φ(Z)^(k-1)]``, ``Z ~ N(t_l, h²)``, knots ``t_l`` on a symmetric grid of step about
                  h up to ``±Φ⁻¹(1 - 1/k1²)`` plus a constant column; ``h ∈ {0.1, …, 1.0}`` chosen by a
                  subsample-and-predict bootstrap (fit on half the classes, predict AverageTA at k1).
``"kde"``         Kay's KDE estimator as in ClassEx: per test point, ``a = mean over wrong labels of
                  Φ((m_true - m_wrong)/bw)`` with a per-point bandwidth (``"ucv"``, ``"bcv"``,
                  ``"silverman"``, ``"scott"``), and ``ÂGA_k = mean a^(k-1)``.
``"probit_ml"``   (extra, experimental) a two-parameter model ``U = Φ(Z)``, ``Z ~ N(μ, s²)``, fitted by
                  maximum likelihood to the per-test-point counts ``c_i`` of wrong labels scoring at least
                  as high as the true one (``c_i | U ~ Binomial(k1 - 1, 1 - U)``); ``ÂGA_k = E[Φ(Z)^(k-1)]``.
``"best"``        the project's recommendation (see :func:`fit_extrapolator`): the subsample-and-predict
                  bootstrap of ClassExReg used to choose among a family of candidates -- ClassExReg
                  bandwidths *and* KDE bandwidth multipliers -- with the choice validated at two
                  extrapolation ratios.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.optimize import nnls
from scipy.special import log_ndtr, ndtr, ndtri

from .._validation import check_int
from ._core import average_accuracy_from_ranks, check_ks, check_margins, ranks_from_margins
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
CLASSEXREG_BANDWIDTHS = tuple(np.round(np.arange(1, 11) / 10, 1))
KDE_BANDWIDTHS = ("ucv", "bcv", "silverman", "scott")


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


def default_ks(k1: int, n: int = 25) -> np.ndarray:
    """The k at which AverageTA_k is fitted by default: all of 2..k1 when k1 <= n, else ``n`` values
    evenly spaced from 2 to k1 (the ClassEx simulations use k = 20, 40, ..., 500)."""
    k1 = check_int(k1, "k1", low=2)
    if k1 - 1 <= n:
        return np.arange(2, k1 + 1)
    return np.unique(np.round(np.linspace(2, k1, n)).astype(np.int64))


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
_QN = 4000
_ZQ = ndtri((np.arange(1, _QN + 1) - 0.5) / _QN)


@lru_cache(maxsize=256)
def _gaussian_basis_cached(h: float, max_mu: float, ks: tuple) -> tuple[np.ndarray, np.ndarray]:
    n_half = max(int(np.ceil(max_mu / h)), 2)
    half = np.linspace(0.0, max_mu, n_half)
    mus = np.concatenate([-half[:0:-1], half])
    k = np.asarray(ks, dtype=float)
    cols = np.empty((len(k), len(mus) + 1))
    logp = log_ndtr(mus[:, None] + h * _ZQ[None, :])          # (n_mu, QN)
    for a, kk in enumerate(k):
        cols[a, :-1] = np.exp((kk - 1.0) * logp).mean(axis=1)
    cols[:, -1] = 1.0                                           # t = +inf: a point mass at U = 1
    return cols, mus


def gaussian_basis(ks, h: float, max_mu: float) -> np.ndarray:
    """ClassExReg design matrix: columns E[Φ(Z)^(k-1)], Z ~ N(t_l, h²), plus a constant column.

    Expectations by a 4000-point quantile grid in log space (stable for k in the tens of thousands).
    """
    ks = check_ks(ks, "ks")
    return _gaussian_basis_cached(float(h), float(max_mu), tuple(int(k) for k in ks))[0].copy()


def _nnls_predict(X, yv, Xt):
    beta, _ = nnls(X, yv, maxiter=50 * X.shape[1])
    return Xt @ beta, beta


# ----------------------------------------------------------------------------------------------------
# KDE (Kay)
# ----------------------------------------------------------------------------------------------------
def _binned_cv_bandwidth(W: np.ndarray, kind: str, nb: int = 200, n_grid: int = 40) -> np.ndarray:
    """Per-row UCV / BCV bandwidths on binned pair distances, minimised over a grid of
    ``[0.1, 1] * 1.144 sd n^(-1/5)`` (the search interval of R's ``bw.ucv``/``bw.bcv``)."""
    n = W.shape[1]
    lo, hi = W.min(axis=1, keepdims=True), W.max(axis=1, keepdims=True)
    d = np.maximum((hi - lo) * 1.01 / nb, 1e-300)
    idx = np.minimum(((W - lo) / d).astype(np.int64), nb - 1)
    counts = np.zeros((W.shape[0], nb))
    np.add.at(counts, (np.repeat(np.arange(W.shape[0]), n), idx.ravel()), 1.0)
    f = np.fft.rfft(counts, 2 * nb, axis=1)
    pairs = np.fft.irfft(f * np.conj(f), 2 * nb, axis=1)[:, :nb]     # Σ_i c_i c_{i+l}
    pairs = np.rint(pairs)
    pairs[:, 0] = (pairs[:, 0] - n) / 2.0                              # i < j pairs in the same bin
    sd = W.std(axis=1, ddof=1)
    hmax = 1.144 * np.maximum(sd, 1e-12) * n ** (-0.2)
    grid = hmax[:, None] * np.geomspace(0.1, 1.0, n_grid)[None, :]     # (rows, G)
    lag = np.arange(nb)[None, None, :] * d[:, :, None]                 # (rows, 1, nb)
    delta = (lag / grid[:, :, None]) ** 2                              # (rows, G, nb)
    delta = np.minimum(delta, 1000.0)
    if kind == "ucv":
        term = np.exp(-delta / 4.0) - np.sqrt(8.0) * np.exp(-delta / 2.0)
        s = np.einsum("rgl,rl->rg", term, pairs)
        crit = (0.5 + s / n) / (n * grid * np.sqrt(np.pi))
    else:
        term = np.exp(-delta / 4.0) * (delta**2 - 12.0 * delta + 12.0)
        s = np.einsum("rgl,rl->rg", term, pairs)
        crit = (1.0 + s / (32.0 * n)) / (2.0 * n * grid * np.sqrt(np.pi))
    return grid[np.arange(W.shape[0]), np.argmin(crit, axis=1)]


def _row_bandwidth(W: np.ndarray, bw) -> np.ndarray:
    n = W.shape[1]
    sd = W.std(axis=1, ddof=1)
    if isinstance(bw, int | float) and not isinstance(bw, bool):
        if bw <= 0:
            raise ValueError(f"bw must be positive, got {bw}")
        return np.full(W.shape[0], float(bw))
    if bw in ("silverman", "nrd0"):
        q75, q25 = np.percentile(W, [75, 25], axis=1)
        s = np.minimum(sd, (q75 - q25) / 1.34)
        s = np.where(s > 0, s, sd)
        return 0.9 * s * n ** (-0.2)
    if bw in ("scott", "nrd"):
        return 1.06 * sd * n ** (-0.2)
    if bw in ("ucv", "bcv"):
        out = np.empty(W.shape[0])
        step = max(1, 2_000_000 // (40 * 200))
        for s0 in range(0, W.shape[0], step):
            out[s0:s0 + step] = _binned_cv_bandwidth(W[s0:s0 + step], bw)
        return out
    raise ValueError(f"bw must be a positive number or one of {KDE_BANDWIDTHS}, got {bw!r}")


def kde_favorability(margins, labels, bw="ucv", scale=1.0) -> np.ndarray:
    """Per test point ``a = mean_{wrong l} Φ((m_true - m_l) / (scale · bw))`` (Kay's KDE, as in ClassEx).

    ``scale`` may be a sequence: the result then has shape (len(scale), n_test) (bandwidths computed once).
    """
    M, y = _check_problem(margins, labels)
    n, k1 = M.shape
    true = M[np.arange(n), y]
    mask = np.ones_like(M, dtype=bool)
    mask[np.arange(n), y] = False
    W = M[mask].reshape(n, k1 - 1)
    if k1 - 1 < 2:
        h = np.full(n, 1e-12)
    else:
        h = _row_bandwidth(W, bw)
    diff = true[:, None] - W
    out = []
    for sc in np.atleast_1d(scale):
        hs = np.maximum(sc * h, 1e-12 * (1.0 + np.abs(true)))
        out.append(ndtr(diff / hs[:, None]).mean(axis=1))
    return out[0] if np.ndim(scale) == 0 else np.array(out)


def _class_mean(values: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean over test points with classes weighted equally; values (..., n)."""
    _, gi = np.unique(y, return_inverse=True)
    cnt = np.bincount(gi)
    sums = np.zeros(values.shape[:-1] + (len(cnt),))
    np.add.at(sums.T, gi, np.moveaxis(values, -1, 0))
    return (sums / cnt).mean(axis=-1)


def _kde_curve(a: np.ndarray, y: np.ndarray, ks: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        la = np.log(np.clip(a, 1e-300, 1.0))
    return _class_mean(np.exp((ks[:, None] - 1.0) * la[None, :]), y)


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
@dataclass
class Extrapolation:
    """A fitted extrapolator: ``accuracy(k)`` gives the predicted average accuracy AGA_k.

    Attributes
    ----------
    method : estimator name; k1 : observed classes; ks, observed : AverageTA_k (eq 3) on the data;
    details : estimator-specific choices (chosen bandwidth, bootstrap scores, the D̄ fit, ...).
    """

    method: str
    k1: int
    ks: np.ndarray
    observed: np.ndarray
    details: dict = field(default_factory=dict)
    _predict: object = field(default=None, repr=False)

    def accuracy(self, k):
        """Predicted AGA_k for any k >= 2 (scalar or array)."""
        scalar = np.ndim(k) == 0
        ks = check_ks(k, "k_target")
        out = np.clip(np.asarray(self._predict(ks), dtype=float), 0.0, 1.0)
        return float(out[0]) if scalar else out

    @property
    def dbar_fit(self) -> DbarFit | None:
        """The moment method's fitted D̄ (``None`` for other estimators)."""
        return self.details.get("fit")


def _fit_classexreg(M, y, ks, obs, *, bandwidths, n_boot, ties, rng, extra_kde=None):
    """ClassExReg (and, with ``extra_kde``, the 'best' candidate family) with bootstrap selection."""
    k1 = M.shape[1]
    max_mu = float(ndtri(1.0 - 1.0 / k1**2))
    # candidates: ('cer', h) and optionally ('kde', scale)
    cands = [("classexreg", float(h)) for h in bandwidths]
    if extra_kde is not None:
        cands += [("kde", float(s)) for s in extra_kde["scales"]]
    half = k1 // 2
    ks_half = ks[ks <= half]
    if half < 3 or len(ks_half) < 2:
        # too few classes to bootstrap: keep the middle bandwidth
        scores = np.full(len(cands), np.nan)
        best = len(bandwidths) // 2
        targets = np.array([k1])
    else:
        targets = np.array([k1])
        obs_k1 = obs[-1] if ks[-1] == k1 else average_accuracy_from_ranks(
            ranks_from_margins(M, y, ties=ties, random_state=rng), k1, k1=k1, groups=y)
        errs = np.zeros((n_boot, len(cands)))
        n_cer = len(bandwidths)
        for b in range(n_boot):
            cls = np.sort(rng.choice(k1, half, replace=False))
            ata = _subsets_ata(M, y, ks_half, cls, ties, rng)
            for c, h in enumerate(bandwidths):
                X = gaussian_basis(ks_half, h, max_mu)
                Xt = gaussian_basis(targets, h, max_mu)
                errs[b, c] = _nnls_predict(X, ata, Xt)[0][0] - obs_k1
            if extra_kde is not None:
                sel = np.isin(y, cls)
                remap = np.full(k1, -1)
                remap[cls] = np.arange(half)
                A = kde_favorability(M[np.ix_(sel, cls)], remap[y[sel]], bw=extra_kde["bw"],
                                     scale=list(extra_kde["scales"]))
                for c, a in enumerate(A):
                    errs[b, n_cer + c] = _kde_curve(a, remap[y[sel]], targets)[0] - obs_k1
        scores = np.sqrt(np.mean(errs**2, axis=0))
        best = int(np.argmin(scores))
    kind, par = cands[best]
    details = {"candidates": cands, "bootstrap_rmse": scores, "chosen": cands[best], "max_mu": max_mu}
    if kind == "classexreg":
        X = gaussian_basis(ks, par, max_mu)
        beta = nnls(X, obs, maxiter=50 * X.shape[1])[0]
        details.update(h=par, beta=beta)

        def predict(kt, par=par, beta=beta):
            return gaussian_basis(kt, par, max_mu) @ beta
    else:
        a = kde_favorability(M, y, bw=extra_kde["bw"], scale=par)
        details.update(scale=par, favorability=a)

        def predict(kt, a=a):
            return _kde_curve(a, y, kt)
    return predict, details


def fit_extrapolator(margins, labels, method: str = "classexreg", *, ks=None, random_state=0,
                     basis: str = "linear_spline", m: int | None = None, knots: str = "uniform",
                     bw="ucv", bandwidths=CLASSEXREG_BANDWIDTHS, n_boot: int = 25,
                     ties: str = "max") -> Extrapolation:
    """Fit an accuracy extrapolator on the k1 observed classes; see the module docstring.

    Parameters
    ----------
    margins : array (n_test, k1) -- score of every observed class for each test point.
    labels : array (n_test,) -- true class index 0..k1-1; every class needs a test point.
    method : "moment", "classexreg", "kde", "best" (or the experimental "probit_ml").
    ks : the k (2..k1) at which AverageTA_k (eq 3) is computed and fitted; default :func:`default_ks`.
    random_state : seed of the bootstrap (ClassExReg, best) and of random tie-breaking.
    basis, m, knots : the moment method's D̄ basis (:func:`fit_dbar`).
    bw : KDE bandwidth rule ("ucv", "bcv", "silverman", "scott") or a number.
    bandwidths, n_boot : ClassExReg's kernel widths h and the number of bootstrap rounds.
    ties : rank convention for eq 3 ("max" as in SPEC, or "random").
    """
    if method not in METHODS + EXTRA_METHODS:
        raise ValueError(f"method must be one of {METHODS + EXTRA_METHODS}, got {method!r}")
    M, y = _check_problem(margins, labels)
    k1 = M.shape[1]
    ks = default_ks(k1) if ks is None else np.unique(check_ks(ks, "ks", k_max=k1))
    n_boot = check_int(n_boot, "n_boot", low=1)
    rng = np.random.default_rng(random_state)
    ranks = ranks_from_margins(M, y, ties=ties, random_state=rng)
    obs = np.atleast_1d(average_accuracy_from_ranks(ranks, ks, k1=k1, groups=y))
    if method == "moment":
        fit = fit_dbar(ks, obs, basis=basis, m=m, knots=knots)
        return Extrapolation("moment", k1, ks, obs, {"fit": fit, "basis": basis}, fit.accuracy)
    if method == "probit_ml":
        mu, s = _probit_ml_fit(M, y)
        return Extrapolation("probit_ml", k1, ks, obs, {"mu": mu, "s": s},
                             lambda kt: _probit_ml_predict(mu, s, kt))
    if method == "kde":
        a = kde_favorability(M, y, bw=bw)
        return Extrapolation("kde", k1, ks, obs, {"bw": bw, "favorability": a},
                             lambda kt: _kde_curve(a, y, kt))
    if method == "classexreg":
        predict, details = _fit_classexreg(M, y, ks, obs, bandwidths=bandwidths, n_boot=n_boot,
                                           ties=ties, rng=rng)
        return Extrapolation("classexreg", k1, ks, obs, details, predict)
    predict, details = _fit_best(M, y, ks, obs, n_boot=n_boot, ties=ties, rng=rng)
    return Extrapolation("best", k1, ks, obs, details, predict)


def _fit_best(M, y, ks, obs, *, n_boot, ties, rng):
    extra = {"bw": "ucv", "scales": (0.5, 0.75, 1.0, 1.5, 2.0)}
    return _fit_classexreg(M, y, ks, obs, bandwidths=CLASSEXREG_BANDWIDTHS, n_boot=n_boot, ties=ties,
                           rng=rng, extra_kde=extra)


def extrapolate(margins, labels, k_target, method: str = "classexreg", ks=None, random_state=0,
                **options):
    """Predicted average accuracy AGA_{k_target} from the k1 observed classes (SPEC §4 API).

    ``margins`` (n_test, k1): score of every observed class for each test point; ``labels``
    (n_test,): true class index. ``method``: "moment" (eq 9-14), "classexreg", "kde" or "best".
    ``k_target`` may be a scalar (returns a float) or a sequence (returns an array); any k >= 2.
    Extra keyword ``options`` go to :func:`fit_extrapolator`.
    """
    check_ks(k_target, "k_target")
    ext = fit_extrapolator(margins, labels, method, ks=ks, random_state=random_state, **options)
    return ext.accuracy(k_target)
