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

__all__ = ["neighbourhoods", "perturbed_training_set", "PERTURBATION_MODES"]

#: ``"features"``: an independent uniform draw per feature (default); ``"scalar"``: one draw per sample.
PERTURBATION_MODES = ("features", "scalar")


def neighbourhoods(X: np.ndarray, M: int, *, workers: int = -1,
                   chunk_size: int = 1 << 17) -> tuple[np.ndarray, np.ndarray]:
    """Return N^M(x) for every training sample (eq 26) and the distance to the nearest other sample.

    The KD-tree is queried in chunks of ``chunk_size`` rows, so the distances never exist as one
    (N, M) array.

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

    Returns
    -------
    indices : ndarray of shape (N, M)
        x itself in column 0 followed by its M − 1 nearest neighbours (int32 when N < 2^31, to
        halve the memory of the largest array).
    nn_distance : ndarray of shape (N,)
        ||x − x⁽¹⁾|| (0 for duplicated points).

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    N = len(X)
    tree = cKDTree(X)
    k = max(M, 2)
    idx_type = np.int32 if N < 2**31 else np.intp
    indices = np.empty((N, M), dtype=idx_type)
    nn_distance = np.empty(N)
    for start in range(0, N, chunk_size):
        stop = min(start + chunk_size, N)
        dist, idx = tree.query(X[start:stop], k=k, workers=workers)
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
