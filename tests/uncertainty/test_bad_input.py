"""Bad and extreme input to the Proposal 2 estimator (:class:`buviz.uncertainty.BoundaryUncertainty`)."""

from __future__ import annotations

import numpy as np
import pytest
from _bad_input import X60, Xdup, _bu_value, _finite_bu, check_case, y60, ydup

from buviz.classifiers import svm_status
from buviz.uncertainty import BoundaryUncertainty

CASES = [
    # Proposal 2 estimator
    ("M > N", lambda: BoundaryUncertainty(M=61).fit(X60, y60), r"M must be <= 60"),
    ("M < 2", lambda: BoundaryUncertainty(M=1).fit(X60, y60), r"M must be an integer >= 2, got 1"),
    ("M not an integer", lambda: BoundaryUncertainty(M=2.5).fit(X60, y60), r"M must be an integer"),
    ("M = N (edge, valid)", lambda: _bu_value(X60, y60, M=60), _finite_bu),
    ("K larger than a class", lambda: BoundaryUncertainty(M=10, K=31).fit(X60, y60), r"K must be <= 30"),
    ("K = 0", lambda: BoundaryUncertainty(M=10, K=0).fit(X60, y60), r"K must be .*an integer >= 1.*got 0"),
    ("K unknown text", lambda: BoundaryUncertainty(M=10, K="bic").fit(X60, y60), r"K"),
    ("one class", lambda: BoundaryUncertainty(M=10).fit(X60, np.zeros(60)), r"at least 2 classes"),
    ("X and y lengths differ", lambda: BoundaryUncertainty(M=10).fit(X60, y60[:-1]), r"different lengths"),
    ("NaN in X", lambda: BoundaryUncertainty(M=10).fit(np.where(np.eye(60, 2) > 0, np.nan, X60), y60),
     r"NaN or infinite"),
    ("X is 1-D", lambda: BoundaryUncertainty(M=10).fit(X60[:, 0], y60), r"must be 2-D"),
    ("text in X", lambda: BoundaryUncertainty(M=10).fit([["a", "b"]] * 60, y60), r"X must be numeric"),
    ("negative perturbation", lambda: BoundaryUncertainty(M=10, perturbation=-1).fit(X60, y60), r"perturbation"),
    ("unknown perturbation mode", lambda: BoundaryUncertainty(M=10, perturbation_mode="x").fit(X60, y60),
     r"perturbation_mode"),
    ("duplicate points (h_x = 0)", lambda: _bu_value(Xdup, ydup, M=8), _finite_bu),
    ("evaluate before fit", lambda: BoundaryUncertainty().evaluate(svm_status(X60, y60, 1.0)), r"call fit"),
]


@pytest.mark.parametrize("case, thunk, expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, thunk, expected):
    check_case(case, thunk, expected)
