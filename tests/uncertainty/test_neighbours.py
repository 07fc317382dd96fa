"""N^M(x) is defined by (distance, index): both searches equal an independent reference on data full of ties."""

import numpy as np
import pytest

from buviz.uncertainty import neighbours
from buviz.uncertainty.neighbours import neighbourhoods


def _reference(X_int: np.ndarray, M: int) -> tuple[np.ndarray, np.ndarray]:
    """x, then the others by (squared distance, index), from integer arithmetic (no rounding at all)."""
    sq = ((X_int[:, None, :] - X_int[None, :, :]) ** 2).sum(-1)
    N = len(X_int)
    idx = np.empty((N, M), dtype=np.intp)
    for i in range(N):
        key = sq[i].copy()
        key[i] = -1  # x itself first, whatever its twins
        idx[i] = np.lexsort((np.arange(N), key))[:M]
    others = sq + np.diag(np.full(N, np.iinfo(sq.dtype).max))
    return idx, np.sqrt(others.min(axis=1))


def _grid_with_twins(rng, n: int, d: int, levels: int, n_twins: int) -> np.ndarray:
    """Integer grid points (many exact ties in distance), some rows repeated, in shuffled order."""
    X = rng.integers(0, levels, size=(n, d))
    X = np.vstack([X, X[rng.integers(0, n, n_twins)]])
    return X[rng.permutation(len(X))]


@pytest.mark.parametrize(("d", "M"), [(2, 9), (3, 15), (9, 20), (16, 40)])
def test_both_searches_equal_the_reference_on_ties_and_duplicates(d, M):
    rng = np.random.default_rng(d)
    X_int = _grid_with_twins(rng, 500, d, 3 if d > 3 else 5, 150)
    ref, ref_nn = _reference(X_int, M)
    X = X_int.astype(float) * 0.25 + 3.0  # exact in binary: the same ties, away from the origin
    for algorithm in ("kd_tree", "brute"):
        idx, nn = neighbourhoods(X, M, algorithm=algorithm)
        np.testing.assert_array_equal(idx, ref, err_msg=algorithm)
        np.testing.assert_array_equal(nn, 0.25 * ref_nn, err_msg=algorithm)


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_a_tie_group_larger_than_the_candidates_is_resolved_by_index(algorithm):
    """30 copies of one point and a shell of 40 points at one distance: the M-th place falls inside
    a tie group much larger than M + 8, the rows the searches handle apart."""
    rng = np.random.default_rng(0)
    X_int = np.vstack([np.zeros((30, 3), dtype=np.int64), rng.integers(-4, 5, size=(300, 3))])
    shell = np.array([[s * (i == a) for i in range(3)] for a in range(3) for s in (-2, 2)])  # distance 2
    X_int = np.vstack([X_int, np.repeat(shell, 7, axis=0)])[rng.permutation(372)]
    for M in (10, 40, 60):
        ref, _ = _reference(X_int, M)
        idx, _ = neighbourhoods(X_int.astype(float), M, algorithm=algorithm)
        np.testing.assert_array_equal(idx, ref)


def test_the_brute_search_does_not_depend_on_the_chunking_with_ties(monkeypatch):
    rng = np.random.default_rng(3)
    X = _grid_with_twins(rng, 400, 12, 2, 100).astype(float)
    whole = neighbourhoods(X, 30, algorithm="brute")
    monkeypatch.setattr(neighbours, "_BRUTE_CHUNK", 3000)  # a few rows per chunk
    chunked = neighbourhoods(X, 30, algorithm="brute")
    np.testing.assert_array_equal(chunked[0], whole[0])
    np.testing.assert_array_equal(chunked[1], whole[1])


def test_the_brute_candidates_survive_scores_off_by_the_rounding_bound(monkeypatch):
    """The brute search's BLAS scores may be off by up to E_x (ROUNDING_SAFETY): scores perturbed by
    anything within E_x give the same neighbourhoods, so no BLAS kernel's rounding can change them."""
    rng = np.random.default_rng(5)
    X = _grid_with_twins(rng, 300, 10, 3, 80).astype(float)
    ref, _ = _reference(X.astype(np.int64), 25)
    _, bound = neighbours._rounding_bound(X)
    real_partition = np.partition

    for sign in (-1.0, 1.0, None):
        noise = rng.uniform(-1, 1, size=(len(X), len(X))) if sign is None else np.full((len(X), len(X)), sign)

        def noisy_partition(a, kth, axis=-1, noise=noise, **kw):  # sees the scores of the (one) chunk
            if a.ndim == 2 and a.shape[1] == len(X):
                a += noise[:len(a)] * bound[:len(a), None]  # one chunk: rows 0..len(a)
            return real_partition(a, kth, axis=axis, **kw)

        monkeypatch.setattr(neighbours.np, "partition", noisy_partition)
        idx, _ = neighbourhoods(X, 25, algorithm="brute")
        monkeypatch.setattr(neighbours.np, "partition", real_partition)
        np.testing.assert_array_equal(idx, ref)
