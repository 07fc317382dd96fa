"""Bad input to :mod:`buviz.sweep`."""

from __future__ import annotations

import pytest
from _bad_input import X60, check_case, y60

from buviz import datasets, sweep

CASES = [
    # sweep
    ("cv larger than a class", lambda: sweep.svm_gamma_sweep(datasets.from_arrays(X60, y60), [1.0], cv=40,
                                                             M=10, cache=False, n_jobs=1), r"cv=40 folds"),
    ("empty γ list", lambda: sweep.svm_gamma_sweep(datasets.from_arrays(X60, y60), [], cv=2, M=10, cache=False,
                                                   n_jobs=1), r"gammas must hold"),
]


@pytest.mark.parametrize("case, thunk, expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, thunk, expected):
    check_case(case, thunk, expected)
