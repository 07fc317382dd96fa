"""Small bad and extreme inputs shared by the bad-input catalogues of each subject (``test_bad_input.py``).

Every catalogue case either raises a ``ValueError`` whose message names the problem, or (for legitimate
but extreme input: γ = 2^±30, C = 2^±30, duplicate points, M = N) returns a finite, valid result.
"""

from __future__ import annotations

import numpy as np
import pytest

from buviz.classifiers import svm_status
from buviz.datasets import GaussianMixture
from buviz.uncertainty import BoundaryUncertainty


# -- small inputs ---------------------------------------------------------------------------------
def _blobs(n=60, seed=0, J=2):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % J
    X = rng.normal(size=(n, 2)) + 2.0 * y[:, None]
    return X, y


def _csv(rows, header="x1,x2,label"):
    return (header + "\n" + "\n".join(rows) + "\n").encode()


GOOD_ROWS = [f"{i % 7 - 3},{(i * 3) % 5 - 2},{'ab'[i % 2]}" for i in range(40)]


def _bu_value(X, y, gamma=1.0, C=1.0, **kw):
    est = BoundaryUncertainty(M=kw.pop("M", 10), random_state=0, **kw).fit(X, y)
    r = est.evaluate(svm_status(X, y, gamma, C))
    return r


def _finite_bu(r) -> bool:
    return np.isfinite(r.value) and 0.0 <= r.value <= 1.0 and np.all(np.isfinite(r.k))


def _mix(*, cov=1.0, weight=1.0, prior=None, mean=(0.0, 0.0), n_classes=2):
    classes = [[(weight, list(mean), cov)]] + [[(1.0, [2.0 * j, 0.0], 1.0)] for j in range(1, n_classes)]
    return GaussianMixture(classes, priors=prior)


def _margins(n=60, k1=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k1
    M = rng.normal(size=(n, k1))
    M[np.arange(n), y] += 1.5
    return M, y


X60, y60 = _blobs()
Xdup = np.repeat(X60[:30], 2, axis=0)  # every point twice: the nearest-neighbour distance h_x is 0
ydup = np.repeat(y60[:30], 2)
Mg, yg = _margins()


def check_case(case, thunk, expected):
    """Catalogue case ``(id, thunk, expected)``: ``expected`` is a regex the ``ValueError`` must match,
    or a callable(result) -> bool for legitimate-but-extreme input that must give a finite, valid result."""
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected) as info:
            thunk()
        assert len(str(info.value)) < 400, "an error message fit for a user is short"
    else:
        result = thunk()
        assert expected(result), f"{case}: not a finite valid result: {result!r}"
