"""The per-status (N, M) work of Proposal 2 (eq 27-28, 32) on a PyTorch device, e.g. a GPU.

Mirrors ``BoundaryUncertainty._chunk_work`` operation by operation; the neighbour indices and labels
are moved to the device once per fitted estimator and kept there.
"""

from __future__ import annotations

import math

import numpy as np

from buviz.uncertainty.proposal2 import quartile_positions


def _device(bu):
    import torch

    name = bu.device or ("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def _resident(bu, dev):
    """Neighbour indices and labels on the device (cached on the estimator)."""
    import torch

    cache = getattr(bu, "_torch_cache", None)
    if cache is None or cache[0] != (str(dev), id(bu.neighbours_)):
        nbr = torch.as_tensor(bu.neighbours_.astype(np.int64), device=dev)
        lab = torch.as_tensor(bu.neighbour_labels_.astype(np.int64), device=dev)
        cache = ((str(dev), id(bu.neighbours_)), nbr, lab)
        bu._torch_cache = cache
    return cache[1], cache[2]


def chunk_work_torch(bu, sl: slice, g_tilde, f_all, pair_i, pair_j):
    """(h_x, k̂^i, k̂^j) for the rows ``sl`` of T, computed with torch; returns numpy arrays."""
    import torch

    dev = _device(bu)
    nbr_all, lab_all = _resident(bu, dev)
    nbr, lab = nbr_all[sl], lab_all[sl]
    M = nbr.shape[1]
    pi = torch.as_tensor(pair_i[sl], device=dev)
    pj = torch.as_tensor(pair_j[sl], device=dev)
    if f_all is not None:
        F = torch.as_tensor(f_all, device=dev)[nbr]
    else:
        g = torch.as_tensor(g_tilde, device=dev)
        F = g[nbr, pi[:, None]] - g[nbr, pj[:, None]]
    # Silverman bandwidth (eq 32), quartiles with numpy's linear interpolation
    sd = F.std(dim=1, correction=1)
    S = torch.sort(F, dim=1).values
    lo, hi, fr = quartile_positions(M)
    q1, q3 = (S[:, lo[n]] * (1 - fr[n]) + S[:, hi[n]] * fr[n] for n in (0, 1))
    spread = torch.minimum(sd, (q3 - q1) / 1.34)
    spread = torch.where(spread > 0, spread, sd)
    h = 0.9 * spread * M ** (-0.2)
    inv_h = torch.where(h > 0, 1.0 / torch.where(h > 0, h, torch.ones_like(h)), torch.zeros_like(h))
    Z = torch.exp(-0.5 * (F * inv_h[:, None]) ** 2) * (h > 0).to(F.dtype)[:, None] / math.sqrt(2 * math.pi)
    k_i = (Z * (lab == pi[:, None])).sum(1)
    k_j = (Z * (lab == pj[:, None])).sum(1)
    return h.cpu().numpy(), k_i.cpu().numpy(), k_j.cpu().numpy()
