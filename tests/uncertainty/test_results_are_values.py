"""A result is a value: refitting the estimator that made it leaves it unchanged (no back-link)."""

import numpy as np
import pytest

from buviz import datasets
from buviz.classifiers import svm_status
from buviz.uncertainty import BoundaryUncertainty, Proposal1


@pytest.fixture(scope="module")
def two_sizes():
    small = datasets.load("gmm", n_train=200, n_test=100, random_state=0)
    large = datasets.load("gmm", n_train=300, n_test=100, random_state=1)
    return small, large


def test_proposal2_result_survives_a_refit(two_sizes):
    small, large = two_sizes
    bu = BoundaryUncertainty(M=10, random_state=0).fit(small.X_train, small.y_train)
    status = svm_status(small.X_train, small.y_train, gamma=1.0)
    r = bu.evaluate(status, train_scores=True)
    X_tilde, view_before, F_before = r.X_tilde.copy(), r.sample_view(5), r.F.copy()
    bu.fit(large.X_train, large.y_train)  # the same estimator, another training set
    assert bu.X_tilde_.shape == (300, 2)
    assert r.X_tilde.shape == (200, 2) and len(r.k) == 200
    np.testing.assert_array_equal(r.X_tilde, X_tilde)
    np.testing.assert_array_equal(r.F, F_before)
    view_after = r.sample_view(5)
    for key in ("neighbours", "F", "labels"):
        np.testing.assert_array_equal(view_after[key], view_before[key])
    np.testing.assert_array_equal(r.neighbours[5], view_before["neighbours"])
    # f on T is read on the training set the status was scored on, not the refitted one
    np.testing.assert_allclose(r.f_train, status(small.X_train)[:, 0] - status(small.X_train)[:, 1])


def test_proposal2_result_arrays_are_read_only(two_sizes):
    small, _ = two_sizes
    r = BoundaryUncertainty(M=10).fit(small.X_train, small.y_train).evaluate(
        svm_status(small.X_train, small.y_train, gamma=1.0))
    for name in ("X", "y", "X_tilde", "neighbours"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(r, name)[0] = 0
    assert not hasattr(r, "_estimator")


def test_proposal1_result_survives_a_refit(two_sizes):
    small, large = two_sizes
    p1 = Proposal1(R_A=60, random_state=0).fit(small.X_train, small.y_train)
    r = p1.evaluate(svm_status(small.X_train, small.y_train, gamma=1.0))
    expected = small.X_train[r.near_boundary]
    p1.fit(large.X_train, large.y_train)
    np.testing.assert_array_equal(r.near_boundary_X, expected)
    assert not hasattr(r, "_estimator")


def test_proposal2_result_survives_changes_to_the_callers_data_and_classifier(two_sizes):
    """The result holds its own T (the estimator copies X) and f(T) computed at evaluate time."""
    from sklearn.svm import SVC

    small, _ = two_sizes
    X = small.X_train.copy()
    clf = SVC(gamma=1.0).fit(X, small.y_train)
    r = BoundaryUncertainty(M=10).fit(X, small.y_train).evaluate(clf, train_scores=True)
    f_before, X_before = r.f_train.copy(), r.X.copy()
    X[0, 0] = 99.0
    clf.set_params(gamma=100.0).fit(small.X_train, small.y_train)
    np.testing.assert_array_equal(r.X, X_before)
    np.testing.assert_array_equal(r.f_train, f_before)


def test_f_train_needs_the_scores_on_T(two_sizes):
    small, _ = two_sizes
    r = BoundaryUncertainty(M=10).fit(small.X_train, small.y_train).evaluate(
        svm_status(small.X_train, small.y_train, gamma=1.0))
    with pytest.raises(ValueError, match="train_scores=True"):
        _ = r.f_train
