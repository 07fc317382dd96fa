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
#: Safety factor of the rounding bound both searches use to decide which samples may be among the k
#: nearest. For a sample x of a training set with d features, E_x = ROUNDING_SAFETY · (d + 3) · ε ·
#: (||x − x̄|| + max_x' ||x' − x̄||)², ε = 2⁻⁵² (twice the unit roundoff u), bounds the rounding of a
#: dot product of d terms in any summation order, with or without fused multiply-add (|fl(a·b) − a·b| ≤
#: γ_d Σ|a_k b_k|, γ_d = du / (1 − du); Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed.,
#: SIAM 2002, §3.1), of the squared norms and of the direct squared distance Σ(x_k − x'_k)², with a
#: factor of about 4 to spare (ε is already 2u). The brute search widens its candidate set by 4 E_x
#: and the KD-tree search its radius by the same relative margin, so that the neighbourhoods do not
#: depend on how a BLAS kernel or the tree rounds. Without the margin, which samples tie at the M-th
#: distance (duplicated rows, integer-valued features) is decided by the rounding of the BLAS kernel
#: the machine picks (e.g. ``OPENBLAS_CORETYPE``) or of the tree's traversal.
ROUNDING_SAFETY = 2.0
#: Candidates beyond k computed exactly per row in the common case (more when a tie group is larger).
_EXTRA_CANDIDATES = 8
#: Entries of the brute search's largest temporary arrays per chunk of rows (8 MB of float64).
_BRUTE_CHUNK = 1 << 20


def neighbourhoods(X: np.ndarray, M: int, *, workers: int = -1, chunk_size: int = 1 << 17,
                   algorithm: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """Return N^M(x) for every training sample (eq 26) and the distance to the nearest other sample.

    N^M(x) is x itself followed by the M − 1 other samples that come first in the order of (squared
    Euclidean distance to x, sample index): distances are computed directly, Σ_k (x_k − x'_k)², in
    numpy (never through BLAS), and ties in distance, e.g. between duplicated rows, go to the lower
    index. Both algorithms only *propose* candidates (by BLAS scores or a KD-tree query) and take
    every sample that could be among the M nearest under their rounding (see ``ROUNDING_SAFETY``), so
    the result is the same for both algorithms, for any chunking, BLAS kernel and thread count. The
    neighbours are found in chunks of rows (``chunk_size`` for the KD-tree, about 10⁶ distances for
    the brute search), so the distances never exist as one (N, N) or (N, M) array.

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
        How candidates are proposed. ``"brute"`` ranks all samples by the BLAS score
        ||x' − x̄||² − 2 (x − x̄)·(x' − x̄) and keeps those within the rounding bound of the M-th score;
        ``"kd_tree"`` queries SciPy's KD-tree for M + 8 and queries further for rows whose M-th
        distance is not clearly below the farthest returned one. ``"auto"`` uses brute for more than
        ``BRUTE_MIN_FEATURES`` features.

    Returns
    -------
    indices : ndarray of shape (N, M)
        x itself in column 0 followed by its M − 1 nearest neighbours in (distance, index) order
        (int32 when N < 2^31, to halve the memory of the largest array).
    nn_distance : ndarray of shape (N,)
        ||x − x⁽¹⁾||, the direct distance to the nearest other sample (0 for duplicated points).

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
    X = np.ascontiguousarray(X, dtype=float)
    N, d = X.shape
    k = min(max(M, 2), N)
    brute = algorithm == "brute" or (algorithm == "auto" and d > BRUTE_MIN_FEATURES)
    if brute:
        # rows per chunk: the (rows, N) scores and the (rows, k + 8, d) differences stay within
        # about 8 MB each, so they are reused from the heap (larger temporaries
        # are mapped afresh by the allocator on every call and cost more in page faults than in
        # arithmetic); the values do not depend on the chunking
        query = _brute_query(X, k)
        step = max(1, _BRUTE_CHUNK // max(N, min(N, k + _EXTRA_CANDIDATES) * d, 1))
    else:
        # the (rows, q, d) differences of the direct distances stay within about 32 MB per chunk
        query = _kd_query(X, k, workers)
        step = max(1, min(chunk_size, 4 * _BRUTE_CHUNK // max(min(N, k + _EXTRA_CANDIDATES) * d, 1)))
    idx_type = np.int32 if N < 2**31 else np.intp
    indices = np.empty((N, M), dtype=idx_type)
    nn_distance = np.empty(N)
    for start in range(0, N, step):
        stop = min(start + step, N)
        sq_dist, idx = query(np.arange(start, stop))
        indices[start:stop] = idx[:, :M]
        nn_distance[start:stop] = np.sqrt(sq_dist[:, 1]) if k > 1 else 0.0
    return indices, nn_distance


def _direct_sq_distances(X: np.ndarray, rows: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Σ_k (x_k − x'_k)² for each row and its candidates (rows, n), in numpy's elementwise arithmetic."""
    diff = X[rows][:, None, :] - X[cand]
    diff *= diff
    return diff.sum(-1)


def _first_k(X: np.ndarray, rows: np.ndarray, cand: np.ndarray, k: int):
    """The k first candidates of each row in the order (self first, squared distance, index).

    ``cand`` (rows, n) must hold the row itself and every sample that could precede the k-th; each
    row's candidates distinct. Returns (squared distances, indices), each (rows, k).
    """
    cand = np.sort(cand, axis=1)
    sq = _direct_sq_distances(X, rows, cand)
    key = np.where(cand == rows[:, None], -1.0, sq)  # x itself first, whatever its twins
    order = np.argsort(key, axis=1, kind="stable")[:, :k]  # stable on index-sorted candidates
    return np.take_along_axis(sq, order, 1), np.take_along_axis(cand, order, 1)


def _rounding_bound(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """X centred (the scores' data) and E_x of each sample (see ``ROUNDING_SAFETY``)."""
    Xc = X - X.mean(axis=0)
    norms = np.sqrt(np.einsum("ij,ij->i", Xc, Xc))
    eps = np.finfo(float).eps
    return Xc, ROUNDING_SAFETY * (X.shape[1] + 3) * eps * (norms + norms.max(initial=0.0)) ** 2


def _brute_query(X: np.ndarray, k: int):
    """A query(rows) -> (squared distances, indices) of the k first samples, by exhaustive search.

    The BLAS score s(x, x') = ||x'||² − 2 x·x' of the centred data equals ||x − x'||² − ||x||², so it
    ranks x's neighbours; its computed value is within E_x of the exact one, and so is the direct
    squared distance. Every sample whose direct squared distance is at most the k-th smallest one has
    a computed score within 4 E_x of the k-th smallest computed score: those are the candidates. A row
    has at most k + 8 of them unless a tie group (duplicates) is larger; such rows are done one by one.
    """
    N = len(X)
    Xc, bound = _rounding_bound(X)
    sq = np.einsum("ij,ij->i", Xc, Xc)
    n_cand = min(N, k + _EXTRA_CANDIDATES)

    def query(rows: np.ndarray):
        D = Xc[rows] @ Xc.T  # BLAS: its rounding depends on the kernel, hence the margin below
        D *= -2.0
        D += sq[None, :]
        if n_cand == N:
            return _first_k(X, rows, np.broadcast_to(np.arange(N), D.shape), k)
        kth = np.partition(D, k - 1, axis=1)[:, k - 1]
        within = D <= (kth + 4.0 * bound[rows])[:, None]
        count = within.sum(axis=1)
        small = count <= n_cand
        out_sq = np.empty((len(rows), k))
        out_idx = np.empty((len(rows), k), dtype=np.intp)
        if small.any():
            # the n_cand smallest scores include every score within the margin (count <= n_cand)
            cand = np.argpartition(D[small], n_cand - 1, axis=1)[:, :n_cand]
            out_sq[small], out_idx[small] = _first_k(X, rows[small], cand, k)
        for r in np.flatnonzero(~small):  # a tie group larger than k + 8: this row alone
            cand = np.flatnonzero(within[r])[None, :]
            out_sq[r], out_idx[r] = (a[0] for a in _first_k(X, rows[r:r + 1], cand, k))
        return out_sq, out_idx

    return query


def _kd_query(X: np.ndarray, k: int, workers: int):
    """A query(rows) -> (squared distances, indices) of the k first samples, by SciPy's KD-tree.

    The tree returns the q = k + 8 nearest by its own distances, in its own order among ties. The q
    returned samples hold the k first in (distance, index) order when the k-th direct squared distance
    is below the farthest returned one by more than the relative rounding bound (then no sample left
    out can tie with it); otherwise (a tie group at the boundary, or x's twins crowding x out) the row
    is queried again with twice q, until it is or q = N.
    """
    N, d = X.shape
    tree = cKDTree(X)
    rel = 4.0 * ROUNDING_SAFETY * (d + 3) * np.finfo(float).eps

    def query(rows: np.ndarray):
        out_sq = np.empty((len(rows), k))
        out_idx = np.empty((len(rows), k), dtype=np.intp)
        todo = np.arange(len(rows))
        q = min(N, k + _EXTRA_CANDIDATES)
        while len(todo):
            dist, cand = tree.query(X[rows[todo]], k=q, workers=workers)
            cand = cand.reshape(len(todo), q)
            sq, idx = _first_k(X, rows[todo], cand, k)
            has_self = (idx == rows[todo][:, None]).any(axis=1)
            limit = np.asarray(dist).reshape(len(todo), q)[:, -1] ** 2 * (1.0 - rel)
            done = (q == N) | (has_self & (sq[:, -1] < limit))
            out_sq[todo[done]], out_idx[todo[done]] = sq[done], idx[done]
            todo = todo[~done]
            q = min(N, 2 * q)
        return out_sq, out_idx

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
