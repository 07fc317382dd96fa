"""Small numerical helpers shared by the computation modules."""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln


def log_comb(n, k) -> np.ndarray:
    """log C(n, k) for broadcast arrays via ``gammaln`` (no overflow for n in the thousands).

    -inf where k < 0 or k > n, so ``exp(log_comb(...))`` is 0 there.
    """
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    ok = (k >= 0) & (k <= n)
    kk = np.where(ok, k, 0.0)
    nn = np.where(ok, n, 0.0)
    return np.where(ok, gammaln(nn + 1) - gammaln(kk + 1) - gammaln(nn - kk + 1), -np.inf)
