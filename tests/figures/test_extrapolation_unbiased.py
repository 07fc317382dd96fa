"""The unbiasedness figures draw the Monte Carlo tables of buviz.extrapolation and the exact AGA_{k,r}."""

import holoviews as hv
import numpy as np
import pytest

from buviz import extrapolation as ex
from buviz import figures
from buviz._validation import InvalidParameterError


def _layers(panel, kind):
    return [e for e in panel if isinstance(e, kind)]


def test_ta_figure_draws_the_simulated_means_and_the_exact_curves():
    kw = dict(rho=0.6, ks=[2, 4], r_trains=[3], k1=8, n_rep=60, seed=4)
    lay = figures.render("extrapolation_unbiased_ta", **kw)
    a, b, c = list(lay)
    table = ex.test_accuracy_bias([2, 4], [3, None], 0.6, k1=8, n_rep=60, random_state=4)
    drawn = np.sort(np.concatenate([s.dimension_values(1) for s in _layers(a, hv.Scatter)]))
    honest = table[table.estimator != "resubstitution"]
    np.testing.assert_allclose(drawn, np.sort(honest["mean"].to_numpy()))
    curves = _layers(a, hv.Curve)
    assert len(curves) == 2                      # r = 3 and r = ∞
    np.testing.assert_allclose(curves[0].dimension_values(1), ex.toy_trained_average_accuracy([2, 3, 4], 0.6, 3))
    resub = np.concatenate([s.dimension_values(1) for s in _layers(c, hv.Scatter)])
    np.testing.assert_allclose(np.sort(resub), np.sort(table[table.estimator == "resubstitution"].bias))
    assert len(_layers(b, hv.Scatter)) == 4


def test_beta_figure_draws_truth_and_both_fits():
    lay = figures.render("extrapolation_unbiased_beta", k1=8, n_rep=40, seed=1)
    ls, nn = list(lay)
    truth = _layers(ls, hv.Scatter)[0]
    np.testing.assert_array_equal(truth.dimension_values(1), [0.0, 1.0, 0.0])
    table = ex.regression_bias(0.7, (0.3, 0.7, 0.95), k1=8, n_rep=40, random_state=1)
    drawn = np.concatenate([s.dimension_values(1) for s in _layers(nn, hv.Scatter)[1:]])
    np.testing.assert_allclose(np.sort(drawn), np.sort(table[table.fit == "non-negative"]["mean"]))


def test_bad_parameters_are_named():
    with pytest.raises(InvalidParameterError, match="k1"):
        figures.render("extrapolation_unbiased_ta", ks=[2, 30], k1=10, n_rep=20)
    with pytest.raises(InvalidParameterError, match="rho"):
        figures.render("extrapolation_unbiased_beta", rho=0.5, n_rep=20)
