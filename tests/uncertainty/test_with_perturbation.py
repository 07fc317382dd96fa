"""BoundaryUncertainty.with_perturbation: another T̃ law on a fitted estimator, without refitting."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from buviz import datasets
from buviz._validation import InvalidParameterError
from buviz.classifiers import svm_status
from buviz.uncertainty import BoundaryUncertainty


@pytest.fixture(scope="module")
def gmm():
    ds = datasets.load("gmm", n_train=300, n_test=0, random_state=1)
    return ds.X_train, ds.y_train


@pytest.mark.parametrize("a, mode", [(0.0, "features"), (2.0, "features"), (1.0, "scalar")])
def test_equals_a_fresh_fit_with_that_law(gmm, a, mode):
    X, y = gmm
    base = BoundaryUncertainty(M=15, random_state=3).fit(X, y)
    fresh = BoundaryUncertainty(M=15, random_state=3, perturbation=a, perturbation_mode=mode).fit(X, y)
    moved = base.with_perturbation(a, mode)
    np.testing.assert_array_equal(moved.X_tilde_, fresh.X_tilde_)
    assert moved.get_params() == fresh.get_params()
    d = svm_status(X, y, 4.0)
    assert moved.evaluate(d).value == fresh.evaluate(d).value  # two classes: Î* = {(0, 1)} either way


def test_shares_the_law_free_work_and_leaves_the_original_alone(gmm):
    X, y = gmm
    base = BoundaryUncertainty(M=15).fit(X, y)
    tilde = base.X_tilde_.copy()
    moved = base.with_perturbation(3.0)
    assert moved is not base and moved.perturbation_mode == base.perturbation_mode
    assert moved.neighbours_ is base.neighbours_ and moved.true_pairs_ is base.true_pairs_
    assert moved.nn_distance_ is base.nn_distance_
    np.testing.assert_array_equal(base.X_tilde_, tilde)
    assert base.perturbation == 0.5
    # the wider law moves the samples further (|x̃ − x| <= a·||x − x⁽¹⁾|| per feature)
    assert np.abs(moved.X_tilde_ - X).max() > np.abs(base.X_tilde_ - X).max()
    assert np.all(np.abs(moved.X_tilde_ - X) <= 3.0 * base.nn_distance_[:, None] + 1e-12)


def test_bad_law_and_unfitted_estimator():
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = np.arange(40) % 2
    with pytest.raises(NotFittedError, match="with_perturbation"):
        BoundaryUncertainty().with_perturbation(1.0)
    bu = BoundaryUncertainty(M=5).fit(X, y)
    with pytest.raises(InvalidParameterError, match="perturbation must be"):
        bu.with_perturbation(-1.0)
    with pytest.raises(InvalidParameterError, match="perturbation_mode"):
        bu.with_perturbation(1.0, "gaussian")
