"""The paper's unbiasedness claims (§3, §4.3) by Monte Carlo on the toy model, against its exact AGA_{k,r}.

Each claim is checked by ``|mean − truth| < 4 se`` in every cell; each test also runs a deliberately biased
variant (every estimate shifted) through the same check and asserts that it fails, so the check has power.
"""

import numpy as np
import pytest

from buviz import extrapolation as ex
from buviz._validation import InvalidParameterError

Z_MAX = 4.0


def _passes(table) -> bool:
    return bool(np.all(np.abs(table["z"].to_numpy()) < Z_MAX))


def test_trained_toy_accuracy_reduces_to_the_bayes_rule_and_matches_monte_carlo():
    ks = np.array([2, 3, 10, 50, 400, 1000])
    for rho in (0.3, 0.7, 0.9):
        exact = ex.toy_trained_average_accuracy(ks, rho, None)
        np.testing.assert_allclose(exact, ex.toy_average_accuracy(ks, rho), atol=1e-5, rtol=0)
        # r -> infinity: estimated centres become the true ones
        np.testing.assert_allclose(ex.toy_trained_average_accuracy(ks, rho, 10**9), exact, atol=1e-5, rtol=0)
    # fewer training points, lower accuracy; r = 1 against an independent brute-force draw
    acc = [ex.toy_trained_average_accuracy(10, 0.7, r) for r in (1, 2, 5, 50)]
    assert np.all(np.diff(acc) > 0)
    M, y = ex.toy_margins(10, 0.7, r_train=1, size=20000, random_state=3)
    hits = (M.argmax(axis=2) == y).mean(axis=1)
    assert abs(hits.mean() - acc[0]) < Z_MAX * hits.std(ddof=1) / np.sqrt(len(hits))


def test_test_accuracy_is_unbiased_for_aga_and_a_shifted_estimator_is_caught():
    kw = dict(ks=(2, 5, 10), r_trains=(1, 5, None), rho=0.7, k1=20, n_rep=1500, random_state=1)
    table = ex.test_accuracy_bias(**kw)
    honest = table[table.estimator != "resubstitution"]
    assert set(honest.estimator) == {"test accuracy", "AverageTA (eq 3)"}
    assert set(honest.r_train) == {"1", "5", "∞"} and len(honest) == 18
    assert _passes(honest), honest[["estimator", "r_train", "k", "bias", "se", "z"]]
    # the same check has power: 0.03 added to every estimate fails it ...
    shifted = ex.test_accuracy_bias(**kw, shift=0.03)
    assert not _passes(shifted[shifted.estimator != "resubstitution"])
    # ... and so does the textbook biased estimator, the accuracy on the training points
    resub = table[table.estimator == "resubstitution"]
    assert (resub.bias > 0).all() and not _passes(resub)


def test_regression_estimate_is_unbiased_for_beta_under_positive_weights_but_not_the_nonnegative_fit():
    kw = dict(rho=0.7, dictionary=(0.3, 0.7, 0.95), k1=20, r_test=5, n_rep=1000, random_state=2)
    table = ex.regression_bias(**kw)
    assert set(table.weighting) == set(ex.WEIGHTINGS)
    ls = table[table.fit == "least squares"]
    np.testing.assert_array_equal(ls.groupby("rho_l").beta.first().to_numpy(), [0.0, 1.0, 0.0])
    assert _passes(ls), ls[["weighting", "rho_l", "beta", "mean", "se", "z"]]
    # β ≥ 0 is not a linear estimator: its estimates of the zero coefficients are pushed up
    nn = table[table.fit == "non-negative"]
    assert not _passes(nn) and (nn[nn.beta == 0].bias > 0).all()
    shifted = ex.regression_bias(**kw, shift=0.02, weightings=("w = 1",))
    assert not _passes(shifted[shifted.fit == "least squares"])


@pytest.mark.parametrize("call, name", [
    (lambda: ex.regression_bias(rho=0.6), "rho"),
    (lambda: ex.regression_bias(weightings=("w = 2",)), "weightings"),
    (lambda: ex.test_accuracy_bias(ks=(2, 50), k1=20), "k1"),
    (lambda: ex.test_accuracy_bias(r_trains=(0,)), "r_trains"),
    (lambda: ex.toy_trained_average_accuracy(5, 0.5, 0), "r_train"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(InvalidParameterError, match=name):
        call()
