"""Shared, per-dataset step of Proposal 2: M-neighbourhoods and the perturbed set T̃ (Alg 1, eq 26, 41-42)."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from buviz._validation import InvalidParameterError, check_real

__all__ = ["neighbourhoods", "perturbed_training_set", "PERTURBATION_MODES"]

#: ``"features"``: an independent uniform draw per feature (default); ``"scalar"``: one draw per sample.
PERTURBATION_MODES = ("features", "scalar")


def neighbourhoods(X: np.ndarray, M: int, *, workers: int = -1,
                   chunk_size: int = 1 << 17) -> tuple[np.ndarray, np.ndarray]:
    """N^M(x) for every training sample (eq 26) and the distance to the nearest *other* sample.

    Returns ``(indices, nn_distance)``: ``indices`` (N, M) holds x itself in column 0 followed by its
    M - 1 nearest neighbours (int32 when N < 2^31, to halve the memory of the largest array);
    ``nn_distance`` (N,) is ||x - x^(1)|| (0 for duplicated points). The KD-tree is queried in
    chunks of ``chunk_size`` rows, so the distances never exist as one (N, M) array, and each
    query runs on all cores (``workers=-1``).
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
    """T̃ (Algorithm 1, §4.2.2): x̃ = x + r_x ⊙ ||x - x^(1)||, r_x uniform on [-a, a].

    The algorithm box is missing from every public copy of the paper; the text says only that the
    perturbation is "uniform across the features" and "adaptively small". ``mode="features"`` draws
    r_x independently per feature, ``mode="scalar"`` draws one number per sample for all its
    features. ``amplitude=0`` gives T̃ = T (the paper's "without T̃" panels). Duplicated points
    (||x - x^(1)|| = 0) are not moved.
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
