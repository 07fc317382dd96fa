"""The top-2 pair breaks ties between classes toward the lower class index, whatever the code path."""

import numpy as np

from buviz.grid import top2


def _reference(g):
    """The two first classes of each row in the order (score descending, class index)."""
    order = np.array([sorted(range(g.shape[1]), key=lambda c: (-row[c], c))[:2] for row in g])
    return order.min(1), order.max(1)


def test_ties_go_to_the_lower_class_index_by_default():
    rng = np.random.default_rng(0)
    g = rng.integers(0, 3, size=(3000, 7)).astype(float)  # counts: ties everywhere
    g[:50, 2:] = -np.inf  # classes that cannot win
    g[50:60] = -np.inf
    ref = _reference(g)
    for stable in (False, True):
        i, j = top2(g, stable=stable)
        np.testing.assert_array_equal(i, ref[0])
        np.testing.assert_array_equal(j, ref[1])
