"""buviz.grid: the top-2 pair and f(x;Λ) of every row, and a discriminant on a 2-D grid."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from buviz import datasets
from buviz._validation import InvalidParameterError
from buviz.grid import boundary_fields, evaluate_grid, grid_points, top2, top2_difference


def test_top2_is_the_pair_of_the_two_largest_scores_in_class_order():
    rng = np.random.default_rng(0)
    g = rng.normal(size=(200, 5))
    i, j = top2(g)
    for n in range(len(g)):
        best = sorted(np.argsort(g[n])[-2:])
        assert (i[n], j[n]) == tuple(best)


def test_top2_stable_breaks_ties_toward_the_lower_index():
    counts = np.array([[3, 5, 5, 5], [4, 4, 1, 4], [0, 0, 0, 0]])
    i, j = top2(counts, stable=True)
    assert i.tolist() == [1, 0, 0] and j.tolist() == [2, 1, 1]


def test_top2_difference_equals_the_brute_force_pair_difference():
    rng = np.random.default_rng(1)
    g = rng.normal(size=(50, 4))
    expected = [max((g[n, a] - g[n, b] for a, b in itertools.combinations(range(4), 2)
                     if {a, b} == set(np.argsort(g[n])[-2:])), key=abs) for n in range(50)]
    np.testing.assert_allclose(top2_difference(g), expected)
    # two classes: g_0 - g_1 on every row, whatever the sign
    np.testing.assert_allclose(top2_difference(g[:, :2]), g[:, 0] - g[:, 1])


def test_top2_refuses_a_single_column():
    with pytest.raises(InvalidParameterError, match="g must be a 2-D array"):
        top2(np.ones((3, 1)))


def test_evaluate_grid_matches_the_points_row_by_row():
    mix = datasets.paper_mixture("gmm3")
    ev = evaluate_grid(mix.log_joint, (-3.0, -2.0, 3.0, 2.0), 30)
    xs, ys, pts = grid_points((-3.0, -2.0, 3.0, 2.0), 30)
    np.testing.assert_array_equal(ev.xs, xs)
    np.testing.assert_array_equal(ev.scores, mix.log_joint(pts))
    assert ev.predicted.shape == (30, 30)
    np.testing.assert_array_equal(ev.predicted.ravel(), mix.bayes_decision(pts))
    assert set(ev.fields) == set(boundary_fields(mix.log_joint(pts), xs, ys))


def test_boundary_fields_are_the_top2_difference_where_their_pair_is_top2():
    mix = datasets.paper_mixture("gmm3")
    xs, ys, pts = grid_points((-3.0, -2.0, 3.0, 2.0), 25)
    g = mix.log_joint(pts)
    f = top2_difference(g)
    i, j = top2(g)
    fields = boundary_fields(g, xs, ys)
    assert len(fields) >= 2
    for (k, l), field in fields.items():
        mask = ((i == k) & (j == l)).reshape(25, 25)
        np.testing.assert_allclose(field.values[mask], f.reshape(25, 25)[mask])
        assert np.isnan(field.values[~mask]).all()
