"""A k-NN grid's shared neighbour search on data full of exact ties: still each candidate's own predict_proba."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.neighbors import KNeighborsClassifier

from buviz.model_selection import _SharedNeighbours
from buviz.uncertainty import BoundaryUncertainty


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_ties_at_the_kth_place_give_the_candidates_own_probabilities(weights, algorithm):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 3)).astype(float)  # a grid: ties at every distance, twins
    y = (X.sum(1) + rng.integers(0, 2, 300)) % 3
    bu = BoundaryUncertainty(M=10, random_state=0).fit(X, y)
    grid = [{"n_neighbors": k} for k in (3, 7, 12, 25)]
    est = KNeighborsClassifier(weights=weights, algorithm=algorithm)
    fitted = [clone(est).set_params(**cand).fit(X, y) for cand in grid]
    shared = _SharedNeighbours.for_grid(est, grid, fitted, X, y, bu)
    assert shared is not None
    for cand in fitted:
        disc = shared.discriminant(cand)
        for Q in (bu.X_tilde_, bu.X_):
            np.testing.assert_allclose(disc(Q), cand.predict_proba(Q), rtol=1e-12, atol=1e-12)
