"""Bad and extreme input to :mod:`buviz.extrapolation`."""

from __future__ import annotations

import numpy as np
import pytest
from _bad_input import Mg, check_case, yg

import buviz.extrapolation as xp

CASES = [
    # extrapolation
    ("k > k1 in AverageTA_k", lambda: xp.average_accuracy(Mg, yg, [2, 5]), r"ks must be <= 4"),
    ("k < 2", lambda: xp.average_accuracy(Mg, yg, [1]), r"ks must be >= 2"),
    ("fit ks > k1", lambda: xp.fit_extrapolator(Mg, yg, "moment", ks=[2, 3, 9]), r"ks must be <= 4"),
    ("k_target = 1", lambda: xp.extrapolate(Mg, yg, 1, "moment"), r"k_target must be >= 2"),
    ("k_target > k1 (extrapolation, valid)", lambda: xp.extrapolate(Mg, yg, 40, "moment"),
     lambda a: np.isfinite(a) and 0 <= a <= 1),
    ("margins with NaN", lambda: xp.extrapolate(np.where(Mg > 2, np.nan, Mg), yg, 10), r"NaN or infinite"),
    ("one observed class", lambda: xp.extrapolate(Mg[:, :1], np.zeros(60, int), 10), r"at least 2"),
    ("labels out of range", lambda: xp.average_accuracy(Mg, yg + 1, [2]), r"labels must lie in"),
    ("unknown extrapolation method", lambda: xp.extrapolate(Mg, yg, 10, "magic"), r"method must be one of"),
]


@pytest.mark.parametrize("case, thunk, expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, thunk, expected):
    check_case(case, thunk, expected)
