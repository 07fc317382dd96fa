"""Classifier statuses with extreme but legitimate γ and C, and invalid ones."""

from __future__ import annotations

import numpy as np
import pytest
from _bad_input import X60, _bu_value, _finite_bu, check_case, y60

from buviz.classifiers import svm_status

CASES = [
    # classifier status: extreme but legitimate γ and C
    ("γ = 2^30", lambda: _bu_value(X60, y60, gamma=2.0 ** 30), _finite_bu),
    ("γ = 2^-30", lambda: _bu_value(X60, y60, gamma=2.0 ** -30), _finite_bu),
    ("C = 2^30", lambda: _bu_value(X60, y60, C=2.0 ** 30), _finite_bu),
    ("C = 2^-30", lambda: _bu_value(X60, y60, C=2.0 ** -30), _finite_bu),
    ("γ = 0", lambda: svm_status(X60, y60, 0.0), r"gamma must be > 0"),
    ("γ = inf", lambda: svm_status(X60, y60, np.inf), r"gamma must be a finite number"),
    ("C < 0", lambda: svm_status(X60, y60, 1.0, -1.0), r"C must be > 0"),
]


@pytest.mark.parametrize("case, thunk, expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, thunk, expected):
    check_case(case, thunk, expected)
