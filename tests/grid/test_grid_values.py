"""A grid evaluation, its boundary fields and a 2-D projection are values: frozen, read-only arrays that
neither the caller's arrays nor a later evaluation can change."""

import dataclasses

import numpy as np
import pytest

from buviz.grid import GridEvaluation, GridField, evaluate_grid
from buviz.projection import fit_projection


def _linear(X):
    return np.column_stack([X[:, 0] - 0.2, -(X[:, 0] - 0.2), 0.1 * X[:, 1]])


def test_a_grid_evaluation_is_frozen_and_read_only():
    ev = evaluate_grid(_linear, (-1, -1, 1, 1), 7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.scores = np.zeros(3)
    arrays = [ev.xs, ev.ys, ev.scores, ev.predicted, *[f.values for f in ev.fields.values()]]
    for a in arrays:
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 99
    with pytest.raises(TypeError, match="read-only"):
        ev.fields[(5, 6)] = next(iter(ev.fields.values()))


def test_the_fresh_arrays_are_held_without_a_copy():
    """The grid's own arrays are sealed where they are made: every field shares the evaluation's axes
    and views the sealed difference of scores, nothing is copied on the way into the values."""
    ev = evaluate_grid(_linear, (-1, -1, 1, 1), 7)
    for f in ev.fields.values():
        assert np.shares_memory(f.xs, ev.xs) and np.shares_memory(f.ys, ev.ys)  # views, not copies
        assert f.values.base is not None and not f.values.base.flags.writeable  # a view of the sealed array
    assert ev.predicted.base is not None and not ev.predicted.base.flags.writeable
    two = evaluate_grid(lambda X: np.column_stack([X[:, 0], -X[:, 0]]), (-1, -1, 1, 1), 5)
    assert np.shares_memory(two.fields[(0, 1)].xs, two.xs) and two.fields[(0, 1)].values.base is not None


def test_the_discriminants_array_is_copied_not_frozen_in_place():
    kept = {}

    def discriminant(X):  # a classifier that keeps (and may reuse) the array it returns
        kept["g"] = _linear(X)
        return kept["g"]

    ev = evaluate_grid(discriminant, (-1, -1, 1, 1), 7)
    assert kept["g"].flags.writeable  # the caller's array is left as it was
    before = ev.scores.copy()
    kept["g"][:] = 0.0  # the caller writes into its array afterwards
    np.testing.assert_array_equal(ev.scores, before)


def test_a_field_or_evaluation_built_from_writeable_arrays_holds_copies():
    xs, ys, values = np.linspace(0, 1, 3), np.linspace(0, 1, 2), np.arange(6.0).reshape(2, 3)
    f = GridField(xs, ys, values)
    values[0, 0] = -5.0
    assert f.values[0, 0] == 0.0 and not f.values.flags.writeable and xs.flags.writeable
    scores = np.zeros((6, 2))
    ev = GridEvaluation(xs, ys, scores, np.zeros((2, 3), int), {(0, 1): f})
    scores[:] = 1.0
    assert ev.scores.sum() == 0.0


@pytest.mark.parametrize("method", ["pca", "lda"])
def test_a_projection_is_read_only_and_independent_of_its_training_data(method):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 5)), rng.integers(0, 3, 120)
    p = fit_projection(X, y, method)
    for a in (p.mean, p.components, p.explained_variance_ratio):
        assert not a.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 99
    mean = p.mean.copy()
    X[:] = 0.0  # the training data changes afterwards: the plane does not
    np.testing.assert_array_equal(p.mean, mean)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.mean = np.zeros(5)
