"""The per-status (N, M) work of Proposal 2 (eq 27-28, 32) on a PyTorch device, e.g. a GPU.

Runs :func:`buviz.uncertainty._kernel.chunk_kernel`, the code the numpy path runs, on tensors.
The neighbour indices and labels of a fitted training set are moved to a device once and kept in a
module-level cache keyed by that set's arrays (weakly: an entry goes when its arrays go), so the
estimator itself carries no tensors and stays picklable.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from buviz.uncertainty._kernel import chunk_kernel

__all__ = ["device_for", "kernel_on_device"]

_RESIDENT: dict[tuple[int, int, str], tuple] = {}
_LOCK = threading.Lock()


def device_for(name: str | None):
    """Return the torch device ``name``, or "cuda" when available and ``name`` is None, else "cpu"."""
    import torch

    return torch.device(name or ("cuda" if torch.cuda.is_available() else "cpu"))


def _resident(neighbours: np.ndarray, labels: np.ndarray, dev):
    """``neighbours`` and ``labels`` as int64 tensors on ``dev``, moved once per (arrays, device)."""
    import torch

    key = (id(neighbours), id(labels), str(dev))
    with _LOCK:
        hit = _RESIDENT.get(key)
        if hit is not None and hit[0]() is neighbours and hit[1]() is labels:
            return hit[2], hit[3]
    nbr = torch.as_tensor(neighbours.astype(np.int64), device=dev)
    lab = torch.as_tensor(labels.astype(np.int64), device=dev)

    def forget(_ref, key=key):
        with _LOCK:
            _RESIDENT.pop(key, None)

    with _LOCK:
        _RESIDENT[key] = (weakref.ref(neighbours, forget), weakref.ref(labels, forget), nbr, lab)
    return nbr, lab


def kernel_on_device(device: str | None, chunks: list[slice], g_tilde: np.ndarray, f_all: np.ndarray | None,
                     neighbours: np.ndarray, labels: np.ndarray, pair_i: np.ndarray,
                     pair_j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (h_x, k̂^i, k̂^j) for all rows, computed chunk by chunk with torch on ``device``.

    Parameters
    ----------
    device : str or None
        The torch device (None: "cuda" if available, else "cpu").
    chunks : list of slice
        Row chunks of T, as the numpy path uses them.
    g_tilde, f_all, neighbours, labels, pair_i, pair_j : ndarray
        As :func:`buviz.uncertainty._kernel.chunk_kernel` takes them, as numpy arrays.

    Returns
    -------
    tuple of three ndarray of shape (N,)
        h_x, k̂^i and k̂^j (eq 27-28, 32), back on the host as numpy arrays.
    """
    import torch

    dev = device_for(device)
    nbr, lab = _resident(neighbours, labels, dev)
    g = torch.as_tensor(g_tilde, device=dev)
    f = None if f_all is None else torch.as_tensor(f_all, device=dev)
    pi = torch.as_tensor(pair_i, device=dev)
    pj = torch.as_tensor(pair_j, device=dev)
    parts = [chunk_kernel(sl, g, f, nbr, lab, pi, pj) for sl in chunks]
    return tuple(torch.cat([p[n] for p in parts]).cpu().numpy() for n in range(3))
