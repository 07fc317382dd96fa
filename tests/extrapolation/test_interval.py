"""Intervals for AGA_K (buviz.extrapolation._interval): jackknife, invariants, toy-model coverage, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from buviz import extrapolation as ex
from buviz._validation import InvalidParameterError


def _delete_class(M, y, c):
    keep = np.array([j for j in range(M.shape[1]) if j != c])
    code = np.full(M.shape[1], -1)
    code[keep] = np.arange(len(keep))
    sel = y != c
    return M[np.ix_(sel, keep)], code[y[sel]]


def test_class_jackknife_equals_eq3_recomputed_without_each_class():
    M, y = ex.toy_margins(8, 0.6, r_test=3, random_state=1)
    M = np.round(M, 1)                                    # ties with the true label's score
    ks = [2, 3, 5, 7]
    J = ex.class_jackknife(M, y, ks)
    for c in range(8):
        Mc, yc = _delete_class(M, y, c)
        ref = ex.average_accuracy_from_ranks(ex.ranks_from_margins(Mc, yc), ks, k1=7, groups=yc)
        np.testing.assert_allclose(J[c], ref, rtol=0, atol=1e-12)


def test_perfect_classifier_gives_the_point_interval_at_one():
    y = np.repeat(np.arange(5), 2)
    M = -np.ones((10, 5))
    M[np.arange(10), y] = 0.0
    iv = ex.accuracy_interval(M, y, 100, 0.9)
    assert iv.critical_value == 0.0 and np.all(iv.se == 0)
    # only the band's floor (FLOOR_TOL = 1e-6 on each AverageTA_k, k <= 5) is left; at K = 100 it admits
    # a risk of some 1e-5 from spline mass near u = 1
    assert (iv.estimate, iv.lower, iv.upper) == pytest.approx((1.0, 1.0, 1.0), abs=1e-4)


def test_interval_holds_estimate_and_range_and_widens_with_level():
    M, y = ex.toy_margins(12, 0.7, r_test=2, random_state=3)
    ivs = [ex.accuracy_interval(M, y, [50, 200], level) for level in (0.5, 0.8, 0.95)]
    for iv in ivs:
        assert np.all(iv.lower <= iv.estimate) and np.all(iv.estimate <= iv.upper)
        assert np.all(iv.lower <= iv.range_low + 1e-9) and np.all(iv.range_high <= iv.upper + 1e-9)
        assert np.all(iv.se > 0) and iv.critical_value > 0
    for a, b in zip(ivs, ivs[1:], strict=False):           # nested, wider with the level
        assert np.all(b.lower <= a.lower + 1e-9) and np.all(a.upper <= b.upper + 1e-9)
        assert b.critical_value > a.critical_value
    assert np.all(ivs[2].width > ivs[0].width)
    outside = ex.accuracy_interval(M, y, 50, 0.8, estimate=0.99)   # a point estimate outside the band
    assert outside.upper == 0.99 and outside.contains(0.99)


def test_extrapolate_interval_keeps_the_scalar_return_and_wraps_the_estimate():
    M, y = ex.toy_margins(10, 0.7, r_test=2, random_state=5)
    est = ex.extrapolate(M, y, 100, method="moment")
    assert isinstance(est, float)
    iv = ex.extrapolate(M, y, 100, method="moment", interval=0.9)
    assert isinstance(iv, ex.AccuracyInterval) and iv.level == 0.9 and iv.k == 100
    point, lower, upper = iv
    assert point == est and lower <= est <= upper
    many = ex.extrapolate(M, y, [20, 100], method="moment", interval=0.9)
    assert many.lower.shape == (2,) and many.upper[1] == pytest.approx(upper)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, float("nan"), "0.9", True])
def test_bad_level_raises_naming_the_parameter(bad):
    M, y = ex.toy_margins(6, 0.7, random_state=0)
    with pytest.raises(InvalidParameterError, match="interval"):
        ex.extrapolate(M, y, 50, method="moment", interval=bad)
    with pytest.raises(InvalidParameterError, match="level"):
        ex.accuracy_interval(M, y, 50, bad)


def test_bad_problem_raises():
    M, y = ex.toy_margins(2, 0.7, r_test=3, random_state=0)
    with pytest.raises(InvalidParameterError, match="k1 >= 3"):
        ex.accuracy_interval(M, y, 50)
    M, y = ex.toy_margins(6, 0.7, random_state=0)
    with pytest.raises(InvalidParameterError, match="k_target"):
        ex.accuracy_interval(M, y, 1)
    with pytest.raises(InvalidParameterError, match="estimate"):
        ex.accuracy_interval(M, y, 50, estimate=float("nan"))


@pytest.mark.slow
def test_toy_model_coverage_at_least_nominal():
    """Monte Carlo coverage of the exact AGA_50 (toy model, known centres) from k1 = 10 classes.

    80 independent 10-class problems, two test points per class; nominal 0.8. The MC tolerance is three
    binomial standard errors, 3 √(0.8 · 0.2 / 80) = 0.134. The identifiability range alone (no sampling
    error) must fall short of the nominal level: the jackknife band is what makes the coverage.
    """
    rho, k1, K, level, R = 0.7, 10, 50, 0.8, 80
    truth = float(ex.toy_average_accuracy([K], rho)[0])
    Ms, y = ex.toy_margins(k1, rho, r_test=2, size=R, random_state=2024)
    ivs = [ex.accuracy_interval(Ms[i], y, K, level, random_state=i) for i in range(R)]
    coverage = np.mean([iv.contains(truth) for iv in ivs])
    range_coverage = np.mean([iv.range_low <= truth <= iv.range_high for iv in ivs])
    tol = 3 * math.sqrt(level * (1 - level) / R)
    assert coverage >= level - tol, (coverage, level - tol)
    assert range_coverage < level, range_coverage
    assert np.mean([iv.width for iv in ivs]) < 0.5         # informative: AGA_50 ≈ 0.055 is not [0, 1]
