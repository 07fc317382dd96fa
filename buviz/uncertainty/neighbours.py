"""Shared, per-dataset step of Proposal 2: M-neighbourhoods and the perturbed set T̃.

Algorithm 1 and eq 26, 41-42 of Ha et al. (2021).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from buviz._validation import InvalidParameterError, check_real

__all__ = ["neighbourhoods", "perturbed_training_set", "PERTURBATION_MODES", "NEIGHBOUR_ALGORITHMS",
           "BRUTE_MIN_FEATURES"]

#: ``"features"``: an independent uniform draw per feature (default); ``"scalar"``: one draw per sample.
PERTURBATION_MODES = ("features", "scalar")


#: ``"kd_tree"``: SciPy's KD-tree; ``"brute"``: chunked exhaustive search; ``"auto"``: brute above
#: ``BRUTE_MIN_FEATURES`` features, where a KD-tree degrades. Measured (``benchmarks/bench_fixed_cost.py``
#: machine, one thread, N = 10 000 normal samples, M = 40), KD-tree against brute: d = 8 1.2 s / 1.1 s,
#: d = 12 3.2 s / 1.2 s, d = 16 4.1 s / 1.1 s, d = 57 7.2 s / 2.0 s; at N = 2000, d = 8 0.11 s / 0.09 s.
NEIGHBOUR_ALGORITHMS = ("auto", "kd_tree", "brute")
BRUTE_MIN_FEATURES = 8
#: Entries of the brute search's largest temporary arrays per chunk of rows (8 MB of float64).
_BRUTE_CHUNK = 1 << 20


def neighbourhoods(X: np.ndarray, M: int, *, workers: int = -1, chunk_size: int = 1 << 17,
                   algorithm: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """Return N^M(x) for every training sample (eq 26) and the distance to the nearest other sample.

    The neighbours are found in chunks of rows (``chunk_size`` for the KD-tree, about 10⁶
    distances for the brute search), so the distances never exist as one (N, N) or (N, M) array.
    Both algorithms return the same neighbourhoods up to ties in distance.

    Parameters
    ----------
    X : ndarray of shape (N, d)
        The training set.
    M : int
        Neighbourhood size: x and its M − 1 nearest neighbours.
    workers : int, default=-1
        Threads of each KD-tree query (-1: all cores).
    chunk_size : int, default=131072
        Rows per KD-tree query.
    algorithm : {"auto", "kd_tree", "brute"}, default="auto"
        ``"brute"`` ranks candidates by ||x'||² − 2 x·x' and orders the best M + 8 by exact
        distances; ``"auto"`` uses it for more than ``BRUTE_MIN_FEATURES`` features.

    Returns
    -------
    indices : ndarray of shape (N, M)
        x itself in column 0 followed by its M − 1 nearest neighbours (int32 when N < 2^31, to
        halve the memory of the largest array).
    nn_distance : ndarray of shape (N,)
        ||x − x⁽¹⁾|| (0 for duplicated points).

    Raises
    ------
    InvalidParameterError
        If ``algorithm`` is unknown.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    if algorithm not in NEIGHBOUR_ALGORITHMS:
        raise InvalidParameterError(f"algorithm must be one of {NEIGHBOUR_ALGORITHMS}, got {algorithm!r}")
    N, d = X.shape
    k = max(M, 2)
    brute = algorithm == "brute" or (algorithm == "auto" and d > BRUTE_MIN_FEATURES)
    if brute:
        # rows per chunk: the (rows, N) scores and the (rows, M + 8, d) differences stay within
        # about 8 MB each, so they are reused from the heap (larger temporaries
        # are mapped afresh by the allocator on every call and cost more in page faults than in
        # arithmetic); the values do not depend on the chunking
        query, step = _brute_query(X, k), max(1, _BRUTE_CHUNK // max(N, min(N, k + 8) * d, 1))
    else:
        tree = cKDTree(X)
        query, step = (lambda rows: tree.query(X[rows], k=k, workers=workers)), chunk_size
    idx_type = np.int32 if N < 2**31 else np.intp
    indices = np.empty((N, M), dtype=idx_type)
    nn_distance = np.empty(N)
    for start in range(0, N, step):
        stop = min(start + step, N)
        dist, idx = query(slice(start, stop))
        rows = np.arange(start, stop)
        r = np.arange(stop - start)
        # With duplicates the query may list a twin before x itself: put x in column 0 so N^M(x) ∋ x.
        where_self = idx == rows[:, None]
        pos = np.where(where_self.any(1), where_self.argmax(1), k - 1)
        idx[r, pos] = idx[:, 0]
        idx[:, 0] = rows
        indices[start:stop] = idx[:, :M]
        nn_distance[start:stop] = dist[:, 1]
    return indices, nn_distance


def _brute_query(X: np.ndarray, k: int):
    """A query(rows) -> (distances, indices) of the k nearest samples, by exhaustive search."""
    N = len(X)
    sq = np.einsum("ij,ij->i", X, X)
    n_cand = min(N, k + 8)

    def query(rows: slice):
        Xr = X[rows]
        D = Xr @ X.T  # ranks ||x'||² − 2 x·x' (||x||² is the same along a row)
        D *= -2.0
        D += sq[None, :]
        if n_cand < N:
            cand = np.argpartition(D, n_cand - 1, axis=1)[:, :n_cand]
        else:
            cand = np.broadcast_to(np.arange(N), D.shape).copy()
        exact = np.sqrt(((Xr[:, None, :] - X[cand]) ** 2).sum(-1))
        order = np.argsort(exact, axis=1, kind="stable")
        return np.take_along_axis(exact, order, 1)[:, :k], np.take_along_axis(cand, order, 1)[:, :k]

    return query


def perturbed_training_set(X: np.ndarray, nn_distance: np.ndarray, amplitude: float = 0.5,
                           mode: str = "features", random_state=None) -> np.ndarray:
    """Return the perturbed training set T̃: x̃ = x + r_x ⊙ ||x − x⁽¹⁾||, r_x uniform on [−a, a].

    Algorithm 1 (§4.2.2) of Ha et al. (2021). The algorithm box is missing from every public copy
    of the paper; the text says only that the perturbation is "uniform across the features" and
    "adaptively small". Duplicated points (||x − x⁽¹⁾|| = 0) are not moved.

    Parameters
    ----------
    X : ndarray of shape (N, d)
        The training set T.
    nn_distance : ndarray of shape (N,)
        ||x − x⁽¹⁾||, from :func:`neighbourhoods`.
    amplitude : float, default=0.5
        a >= 0; 0 gives T̃ = T (the paper's "without T̃" panels).
    mode : {"features", "scalar"}, default="features"
        ``"features"`` draws r_x independently per feature, ``"scalar"`` one number per sample
        for all its features.
    random_state : int, Generator or None, default=None
        Seed of the draw.

    Returns
    -------
    ndarray of shape (N, d)
        T̃.

    Raises
    ------
    InvalidParameterError
        If ``amplitude`` is negative or ``mode`` unknown.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    amplitude = check_real(amplitude, "perturbation", low=0.0)
    if mode not in PERTURBATION_MODES:
        raise InvalidParameterError(f"perturbation_mode must be one of {PERTURBATION_MODES}, got {mode!r}")
    if amplitude == 0:
        return X.copy()
    rng = np.random.default_rng(random_state)
    n, d = X.shape
    r = rng.uniform(-amplitude, amplitude, size=(n, d) if mode == "features" else (n, 1))
    return X + r * nn_distance[:, None]
