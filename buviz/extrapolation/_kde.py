"""Kay's kernel-density accuracy extrapolation with R's binned UCV / BCV bandwidths.

For every test point the scores of the *wrong* labels are treated as a sample; a Gaussian kernel
density estimate of that sample gives the probability ``a`` that a random wrong label scores below the
true label, and the k-class accuracy is predicted as the mean of ``a^(k-1)`` (Kay, 2008; used as a
competitor by Zheng, Achanta & Benjamini, 2018). The bandwidth is chosen separately for every test
point, on the wrong-label scores of that point only.

The unbiased (least-squares) and biased cross-validation bandwidths follow the conventions of R's
``stats::bw.ucv`` / ``stats::bw.bcv`` so that results agree with implementations built on them:

- pairwise distances are binned: ``nb = 1000`` bins of width ``d = 1.01 (max - min) / nb``, bin index
  ``trunc(x / d)`` (truncation toward zero, as a C integer cast), and the criterion is evaluated on the
  counts of pairs per bin lag, the lag-``l`` pairs sitting at distance ``l d``;
- UCV criterion (Scott 1992, eq 6.67): ``(1/2 + S/n) / (n h sqrt(pi))`` with
  ``S = sum_l c_l [exp(-δ_l/4) - sqrt(8) exp(-δ_l/2)]``, ``δ_l = (l d / h)^2``;
  BCV criterion (Scott 1992, eq 6.69 corrected): ``(1 + S/(32 n)) / (2 n h sqrt(pi))`` with
  ``S = sum_l c_l exp(-δ_l/4) (δ_l^2 - 12 δ_l + 12)``; lags with ``δ_l >= 1000`` are dropped;
- the criterion is minimised on ``[0.1 h_max, h_max]``, ``h_max = 1.144 sd n^(-1/5)`` (sd with
  ``n - 1``), by Brent's golden-section / parabolic search (Brent 1973, procedure *localmin*) with
  absolute tolerance ``0.1 * 0.1 h_max``. The search is run for all test points at once (vectorised
  over rows), step for step as the scalar algorithm, so the same local minimum is found.

References
----------
K. N. Kay, T. Naselaris, R. J. Prenger and J. L. Gallant, "Identifying natural images from human
brain activity", *Nature* 452, 352-355, 2008. https://doi.org/10.1038/nature06713

C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)

Scott, D. W. (1992). *Multivariate Density Estimation: Theory, Practice, and Visualization*. Wiley.

Brent, R. P. (1973). *Algorithms for Minimization without Derivatives*. Prentice-Hall.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from buviz._validation import InvalidParameterError

__all__ = ["binned_pair_counts", "cv_bandwidths", "wrong_label_scores"]

_NB = 1000
_DELMAX = 1000.0
_GOLD = 0.5 * (3.0 - np.sqrt(5.0))
_SQRT_EPS = np.sqrt(np.finfo(float).eps)


def wrong_label_scores(M: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(true score (n,), wrong-label scores (n, k1 - 1)) of a validated margin matrix."""
    n, k1 = M.shape
    rows = np.arange(n)
    true = M[rows, y]
    mask = np.ones(M.shape, dtype=bool)
    mask[rows, y] = False
    return true, M[mask].reshape(n, k1 - 1)


def binned_pair_counts(W: np.ndarray, nb: int = _NB) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``W``: bin width ``d`` and the number of pairs ``i < j`` whose bins are ``l`` apart.

    Returns ``d`` (rows,) and counts (rows, nb). Bins are ``trunc(x / d)``, ``d = 1.01 range / nb``.
    """
    lo = W.min(axis=1)
    hi = W.max(axis=1)
    d = (hi - lo) * 1.01 / nb
    d_safe = np.where(d > 0, d, 1.0)
    idx = np.trunc(W / d_safe[:, None]).astype(np.int64)
    idx -= idx.min(axis=1, keepdims=True)
    width = int(idx.max()) + 1
    rows = W.shape[0]
    hist = np.zeros((rows, width))
    np.add.at(hist, (np.repeat(np.arange(rows), W.shape[1]), idx.ravel()), 1.0)
    size = 1 << int(np.ceil(np.log2(2 * width)))
    f = np.fft.rfft(hist, size, axis=1)
    auto = np.rint(np.fft.irfft(f * np.conj(f), size, axis=1)[:, :width])   # sum_i c_i c_{i+l}
    auto[:, 0] = (auto[:, 0] - W.shape[1]) / 2.0                            # pairs within one bin
    counts = np.zeros((rows, nb))
    m = min(width, nb)
    counts[:, :m] = auto[:, :m]
    return d, counts


def _criterion(kind: str, h: np.ndarray, d: np.ndarray, counts: np.ndarray, n: int) -> np.ndarray:
    lag = np.arange(counts.shape[1], dtype=float)
    delta = (lag[None, :] * (d / h)[:, None]) ** 2
    e4 = np.exp(-0.25 * delta)
    e4[delta >= _DELMAX] = 0.0                      # R stops the sum at δ >= 1000
    if kind == "ucv":
        term = e4 - np.sqrt(8.0) * (e4 * e4)         # exp(-δ/4) - sqrt(8) exp(-δ/2)
        s = np.einsum("rl,rl->r", term, counts)
        return (0.5 + s / n) / (n * h * np.sqrt(np.pi))
    term = e4 * (delta * delta - 12.0 * delta + 12.0)
    s = np.einsum("rl,rl->r", term, counts)
    return (1.0 + s / (32.0 * n)) / (2.0 * n * h * np.sqrt(np.pi))


def _brent_min(fun, ax: np.ndarray, bx: np.ndarray, tol: np.ndarray, max_iter: int = 200) -> np.ndarray:
    """Brent's localmin run independently on many intervals at once; ``fun(rows, u)`` evaluates the
    objectives of the given rows at the points ``u``."""
    a, b = ax.astype(float).copy(), bx.astype(float).copy()
    v = a + _GOLD * (b - a)
    w, x = v.copy(), v.copy()
    d = np.zeros_like(a)
    e = np.zeros_like(a)
    all_rows = np.arange(len(a))
    fx = fun(all_rows, x)
    fv, fw = fx.copy(), fx.copy()
    tol3 = tol / 3.0
    active = np.ones(len(a), dtype=bool)
    for _ in range(max_iter):
        xm = 0.5 * (a + b)
        tol1 = _SQRT_EPS * np.abs(x) + tol3
        t2 = 2.0 * tol1
        active &= ~(np.abs(x - xm) <= t2 - 0.5 * (b - a))
        if not active.any():
            break
        r_ = np.flatnonzero(active)
        A, B, V, Wp, X = a[r_], b[r_], v[r_], w[r_], x[r_]
        FV, FW, FX = fv[r_], fw[r_], fx[r_]
        D, E, T1, T2, XM = d[r_], e[r_], tol1[r_], t2[r_], xm[r_]
        P = np.zeros_like(A)
        Q = np.zeros_like(A)
        R = np.zeros_like(A)
        fit = np.abs(E) > T1
        r1 = (X - Wp) * (FX - FV)
        q1 = (X - V) * (FX - FW)
        p1 = (X - V) * q1 - (X - Wp) * r1
        q1 = 2.0 * (q1 - r1)
        p1 = np.where(q1 > 0, -p1, p1)
        q1 = np.abs(q1)
        P = np.where(fit, p1, P)
        Q = np.where(fit, q1, Q)
        R = np.where(fit, E, R)
        E = np.where(fit, D, E)
        golden = (np.abs(P) >= np.abs(0.5 * Q * R)) | (P <= Q * (A - X)) | (P >= Q * (B - X))
        # golden-section step
        Eg = np.where(X < XM, B - X, A - X)
        Dg = _GOLD * Eg
        # parabolic step
        with np.errstate(divide="ignore", invalid="ignore"):
            Dp = P / Q
        U = X + Dp
        near_end = (U - A < T2) | (B - U < T2)
        Dp = np.where(near_end, np.where(X >= XM, -T1, T1), Dp)
        E = np.where(golden, Eg, E)
        D = np.where(golden, Dg, Dp)
        U = np.where(np.abs(D) >= T1, X + D, np.where(D > 0, X + T1, X - T1))
        FU = fun(r_, U)
        better = FU <= FX
        # fu <= fx
        nA = np.where(better, np.where(U < X, A, X), np.where(U < X, U, A))
        nB = np.where(better, np.where(U < X, X, B), np.where(U < X, B, U))
        c1 = ~better & ((FU <= FW) | (Wp == X))
        c2 = ~better & ~c1 & ((FU <= FV) | (V == X) | (V == Wp))
        nV = np.where(better, Wp, np.where(c1, Wp, np.where(c2, U, V)))
        nFV = np.where(better, FW, np.where(c1, FW, np.where(c2, FU, FV)))
        nW = np.where(better, X, np.where(c1, U, Wp))
        nFW = np.where(better, FX, np.where(c1, FU, FW))
        nX = np.where(better, U, X)
        nFX = np.where(better, FU, FX)
        a[r_], b[r_], v[r_], w[r_], x[r_] = nA, nB, nV, nW, nX
        fv[r_], fw[r_], fx[r_] = nFV, nFW, nFX
        d[r_], e[r_] = D, E
    return x


def cv_bandwidths(W: np.ndarray, kind: str = "ucv", nb: int = _NB) -> np.ndarray:
    """UCV or BCV bandwidth of every row of ``W`` (each row one sample), as R's ``bw.ucv``/``bw.bcv``.

    Rows with zero spread get bandwidth 0 (their kernel is a point mass).
    """
    if kind not in ("ucv", "bcv"):
        raise InvalidParameterError(f"bw must be 'ucv' or 'bcv' here, got {kind!r}")
    W = np.asarray(W, dtype=float)
    rows, n = W.shape
    sd = W.std(axis=1, ddof=1)
    hmax = 1.144 * sd * n ** (-0.2)
    out = np.zeros(rows)
    ok = hmax > 0
    if not ok.any():
        return out
    d, counts = binned_pair_counts(W[ok], nb)
    lower = 0.1 * hmax[ok]
    # lags beyond sqrt(DELMAX) * h_max / d never contribute: trim the work
    max_lag = int(np.ceil(np.max(np.sqrt(_DELMAX) * hmax[ok] / np.where(d > 0, d, np.inf)))) + 1
    counts = counts[:, :min(max_lag, nb)]

    def fun(r, u):
        return _criterion(kind, u, d[r], counts[r], n)

    out[ok] = _brent_min(fun, lower, hmax[ok], 0.1 * lower)
    return out


def kde_accuracy_terms(true: np.ndarray, W: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Per test point ``a = mean_l Φ((m_true - m_l) / h)`` (a point mass kernel where h = 0)."""
    diff = true[:, None] - W
    with np.errstate(divide="ignore", invalid="ignore"):
        z = diff / h[:, None]
    z = np.where(h[:, None] > 0, z, np.where(diff > 0, np.inf, np.where(diff < 0, -np.inf, 0.0)))
    return ndtr(z).mean(axis=1)
