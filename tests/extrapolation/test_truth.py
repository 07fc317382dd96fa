"""The Fig 11 experiment as package functions: the truth curve is eq 3 on the whole population."""

import numpy as np
import pytest

from buviz import extrapolation as ex
from buviz._validation import InvalidParameterError


@pytest.fixture(scope="module")
def pop():
    return ex.make_population(9, 4, rho=0.6, n_train=4, n_test=6, random_state=3)


def test_truth_curve_is_eq3_by_enumeration_of_every_class_subset(pop):
    M, y = ex.population_margins(pop, "nearest_centroid", random_state=0)
    ks, truth = ex.truth_curve(M, y)
    np.testing.assert_array_equal(ks, np.arange(2, 10))
    brute = [ex.average_accuracy_bruteforce(M, y, k) for k in ks]  # every C(9, k) subset, argmax over it
    np.testing.assert_allclose(truth, brute, atol=1e-12)
    assert truth[-1] == pytest.approx(np.mean(np.argmax(M, axis=1) == y))  # k = k1: the plain accuracy
    np.testing.assert_allclose(ex.truth_curve(M, y, [3, 5])[1], brute[1:4:2], atol=1e-12)


def test_extrapolation_curves_fit_on_the_observed_classes_and_compare_with_the_truth(pop):
    c = ex.extrapolation_curves(pop, "nearest_centroid", 5, ("moment", "kde"), k_grid=[2, 5, 9], random_state=1)
    np.testing.assert_array_equal(c.classes, ex.observed_classes(9, 5, 1))
    assert c.K == 5 and c.n_classes == 9
    np.testing.assert_allclose(c.truth, ex.ground_truth(pop, "nearest_centroid", c.truth_ks, random_state=1),
                               atol=1e-12)
    # the observed curve: eq 3 on the classifier retrained on the five classes, by enumeration
    M, y = ex.population_margins(ex.subsample_classes(pop, c.classes), "nearest_centroid", random_state=1)
    np.testing.assert_allclose(c.observed, [ex.average_accuracy_bruteforce(M, y, k) for k in c.ks], atol=1e-12)
    for m in ("moment", "kde"):
        np.testing.assert_allclose(c.estimates[m], c.fits[m].accuracy([2, 5, 9]))
    with pytest.raises(AttributeError):
        c.truth = None
    assert not c.estimates["kde"].flags.writeable


@pytest.mark.parametrize("K, match", [(1, "K"), (9, "K")])
def test_bad_K_is_named(pop, K, match):
    with pytest.raises(InvalidParameterError, match=match):
        ex.extrapolation_curves(pop, "nearest_centroid", K)


def test_unknown_method_is_named(pop):
    with pytest.raises(InvalidParameterError, match="methods"):
        ex.extrapolation_curves(pop, "nearest_centroid", 4, ("nope",))
