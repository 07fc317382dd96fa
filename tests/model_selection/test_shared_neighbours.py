"""One neighbour search for a k-NN grid over n_neighbors: scikit-learn's predict_proba, the same Û."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.neighbors import KNeighborsClassifier

from buviz import model_selection
from buviz.model_selection import _SharedNeighbours, select_by_uncertainty
from buviz.uncertainty import BoundaryUncertainty


def _data(n, d, n_classes, seed=0):
    X, y = make_classification(n, n_features=d, n_informative=min(d, 4), n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=seed)
    return (X - X.mean(0)) / X.std(0), y


def _fitted(estimator, grid, X, y):
    return [clone(estimator).set_params(**cand).fit(X, y) for cand in grid]


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("algorithm", ["auto", "kd_tree", "ball_tree", "brute"])
def test_probabilities_are_scikit_learns_on_t_tilde_and_t(weights, algorithm):
    X, y = _data(300, 5, 3)
    y = np.array(["a", "b", "c"])[y]  # any labels
    bu = BoundaryUncertainty(M=20).fit(X, y)
    # k = 160 >= N // 2: with algorithm="auto" that candidate resolves to brute force, the others to a tree
    grid = [{"n_neighbors": k} for k in (1, 4, 15, 60, 160)]
    est = KNeighborsClassifier(weights=weights, algorithm=algorithm)
    fitted = _fitted(est, grid, X, y)
    shared = _SharedNeighbours.for_grid(est, grid, fitted, X, y, bu)
    assert shared is not None
    for cand in fitted:
        disc = shared.discriminant(cand)
        for Q in (bu.X_tilde_, bu.X_, X.copy()):  # T̃, T, and T as another array with the same values
            np.testing.assert_allclose(disc(Q), cand.predict_proba(Q), rtol=1e-12, atol=1e-15)
        other = np.random.default_rng(0).normal(size=(40, 5))  # any other X: the estimator itself
        np.testing.assert_array_equal(disc(other), cand.predict_proba(other))
    if algorithm == "auto":  # one search per algorithm the candidates resolved to
        assert sorted(shared._searches) == ["brute", "kd_tree"]
        assert shared.k_max == {"kd_tree": 60, "brute": 160}


def test_distance_weights_keep_only_zero_distance_neighbours_at_a_training_point():
    X, y = _data(200, 3, 2)
    bu = BoundaryUncertainty(M=10).fit(X, y)
    grid = [{"n_neighbors": k} for k in (5, 9)]
    est = KNeighborsClassifier(weights="distance", algorithm="kd_tree")
    fitted = _fitted(est, grid, X, y)
    shared = _SharedNeighbours.for_grid(est, grid, fitted, X, y, bu)
    g = shared.discriminant(fitted[1])(bu.X_)
    np.testing.assert_array_equal(g, np.eye(2)[bu.y_])  # each sample is its own neighbour at distance 0


@pytest.mark.parametrize(("estimator", "grid"), [
    (KNeighborsClassifier(), {"n_neighbors": [3, 5], "weights": ["uniform", "distance"]}),
    (KNeighborsClassifier(weights=lambda d: np.ones_like(d)), {"n_neighbors": [3, 5]}),
    (KNeighborsClassifier(), {"n_neighbors": [3]}),
    (KNeighborsClassifier(), {"n_neighbors": [3, 5000]}),
])
def test_not_shared_where_it_would_not_be_exact(estimator, grid):
    from sklearn.model_selection import ParameterGrid

    X, y = _data(150, 3, 2)
    bu = BoundaryUncertainty(M=10).fit(X, y)
    grid = list(ParameterGrid(grid))
    fitted = _fitted(estimator, grid, X, y)
    assert _SharedNeighbours.for_grid(estimator, grid, fitted, X, y, bu) is None

    class Knn(KNeighborsClassifier):
        pass

    knn_grid = [{"n_neighbors": 3}, {"n_neighbors": 5}]
    assert _SharedNeighbours.for_grid(Knn(), knn_grid, _fitted(Knn(), knn_grid, X, y), X, y, bu) is None


@pytest.mark.parametrize(("n_classes", "weights", "pair_at"), [
    (2, "uniform", "x"), (3, "uniform", "x"), (3, "distance", "x"), (4, "distance", "x_tilde"),
])
def test_select_by_uncertainty_is_unchanged(monkeypatch, n_classes, weights, pair_at):
    X, y = _data(400, 6, n_classes, seed=n_classes)
    grid = {"n_neighbors": [1, 3, 7, 15, 31, 61, 201]}
    est = KNeighborsClassifier(weights=weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shared = select_by_uncertainty(est, grid, X, y, M=20, pair_at=pair_at)
        monkeypatch.setattr(model_selection._SharedNeighbours, "for_grid", classmethod(lambda cls, *a: None))
        plain = select_by_uncertainty(est, grid, X, y, M=20, pair_at=pair_at)
    assert shared.best_index_ == plain.best_index_
    for col in ("U", "error_tilde", "error_train"):
        np.testing.assert_allclose(shared.table[col], plain.table[col], rtol=0, atol=1e-12)
    assert len(set(np.round(plain.table["U"], 6))) > 3  # the grid discriminates
