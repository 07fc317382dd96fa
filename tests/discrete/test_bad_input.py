"""Bad and extreme input to :mod:`buviz.discrete`."""

from __future__ import annotations

import numpy as np
import pytest
from _bad_input import check_case

from buviz import discrete

CASES = [
    # discrete case
    ("p > 1", lambda: discrete.rms_deviation("resubstitution", 10, 4, 1.5), r"p must be <= 1"),
    ("p < 0", lambda: discrete.rms_deviation("loo", 10, 4, -0.1), r"p must be >= 0"),
    ("p NaN", lambda: discrete.rms_deviation("loo", 10, 4, np.nan), r"p must be a finite number"),
    ("p array outside [0, 1]", lambda: discrete.rms_deviation("loo", 10, 4, [0.2, 1.2]), r"p must lie in \[0, 1\]"),
    ("p = 0 and 1 (edges, valid)", lambda: discrete.rms_deviation("loo", 10, 4, [0.0, 1.0]),
     lambda a: np.all(np.isfinite(a))),
    ("unknown discrete method", lambda: discrete.rms_deviation("magic", 10, 4, 0.3), r"method must be one of"),
    ("bootstrap with N = 1", lambda: discrete.cell_values("bootstrap632", 1, 1), r"N must be >= 2"),
]


@pytest.mark.parametrize("case, thunk, expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, thunk, expected):
    check_case(case, thunk, expected)
