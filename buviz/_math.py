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


def read_only(a) -> np.ndarray:
    """A read-only view of ``a``, for a result object to hold.

    A view, not a copy: the owner of ``a`` (an estimator's own arrays, which it only ever rebinds,
    never writes) keeps it unchanged, so the result does too.
    """
    v = np.asarray(a).view()
    v.flags.writeable = False
    return v
