"""The per-status (N, M) work of Proposal 2, written once for numpy arrays and PyTorch tensors.

Ha et al. (2021), eq 27-28 and 32: for each training sample x, the neighbourhood values
F[x, m] = f_{i j}(x̃'_m; Λ) over N^M(x), Silverman's bandwidth h_x of each row, and the Gaussian
kernel sums k̂^i(x), k̂^j(x) of the members labelled i and j. Every function here takes its arrays
from one *array namespace*, numpy or torch, and returns arrays of the same kind:
:class:`~buviz.uncertainty.BoundaryUncertainty` runs it on numpy arrays (``array_backend="numpy"``)
and :mod:`buviz.uncertainty._torch` on tensors on a device (``array_backend="torch"``). The two
namespaces differ in a handful of spellings (row sort, row standard deviation, masked row sums),
which :func:`namespace` hides; the arithmetic below is the same code for both.

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace

import numpy as np

__all__ = ["SPREAD_RTOL", "namespace", "quartile_positions", "silverman_bandwidth", "neighbourhood_values",
           "chunk_kernel"]

_SQRT_2PI = math.sqrt(2 * math.pi)

#: Relative tolerance below which a spread counts as 0 in Silverman's rule (eq 32): σ̂_x or IQR_x at
#: most ``SPREAD_RTOL`` times the status's scale, max ∣g∣ over T̃, is taken as exactly 0. The
#: discriminant's values carry rounding that depends on the machine: an SVC's g on T̃ differs between
#: OpenBLAS's Haswell and Sandybridge kernels by up to 9e-14 · max ∣g∣ on the shipped cells (Wine Quality
#: Red, log₂ γ = −3), and duplicated inputs get values that differ by that rounding alone. Without the
#: tolerance such an IQR (~1e-16 where it is not exactly 0) is "positive", h_x becomes that rounding
#: noise, and k̂ explodes or vanishes depending on how it fell (Wine Quality Red, seed 0, log₂ γ = 4:
#: Û_tr 0.171 or 0.252 on two machines). With it, the IQR rule falls back to σ̂ (§4.4.2), and a σ̂ that
#: small makes the row flat (h_x = 0).
#:
#: The margin is thin at both ends of the γ grid, and no single relative value clears both: at
#: log₂ γ = −15, where g is nearly constant, kernel-to-kernel differences up to 1.3e-12 · max ∣g∣ were
#: measured on 2 000-row subsets (a spread of rounding could pass 1e-12 there), while at log₂ γ = 15
#: genuine spreads of order 1e-11 · max ∣g∣ exist (raising the tolerance to 1e-10 changes Banknote's
#: seed-0 cell at log₂ γ = 15: n_eff_tr moves by 1.07). A bound from the status's own terms
#: (eps · (Σ|α_i K_i| + |b|) for an SVC) would separate them; until then the shipped tables are computed
#: with 1e-12 and the cross-kernel test recomputes three of their cells.
SPREAD_RTOL = 1e-12

_NUMPY = SimpleNamespace(
    name="numpy",
    where=np.where,
    minimum=np.minimum,
    maximum=np.maximum,
    exp_=lambda Z: np.exp(Z, out=Z),
    sort_rows=lambda F: np.sort(F, axis=1),
    std_rows=lambda F: F.std(axis=1, ddof=1),
    row_dot=lambda Z, W: np.einsum("ij,ij->i", Z, W),
    like=lambda a, ref: a.astype(ref.dtype),
)


@functools.cache
def _torch_namespace():
    import torch

    return SimpleNamespace(
        name="torch",
        where=torch.where,
        minimum=torch.minimum,
        maximum=lambda a, b: torch.clamp(a, min=b) if not torch.is_tensor(b) else torch.maximum(a, b),
        exp_=lambda Z: torch.exp(Z, out=Z),
        sort_rows=lambda F: torch.sort(F, dim=1).values,
        std_rows=lambda F: F.std(dim=1, correction=1),
        row_dot=lambda Z, W: (Z * W.to(Z.dtype)).sum(1),
        like=lambda a, ref: a.to(ref.dtype),
    )


def namespace(array) -> SimpleNamespace:
    """Return the operations of this module for ``array``'s library (numpy, or torch for a tensor).

    Parameters
    ----------
    array : ndarray or torch.Tensor
        Any array of the computation.

    Returns
    -------
    types.SimpleNamespace
        ``where``, ``minimum``, ``maximum``, ``exp_`` (in place), ``sort_rows``, ``std_rows`` (ddof 1)
        ``row_dot`` (row-wise Σ_m Z W) and ``like`` (an array cast to another's dtype) for that library.
    """
    if isinstance(array, np.ndarray):
        return _NUMPY
    if type(array).__module__.split(".")[0] == "torch":
        return _torch_namespace()
    raise TypeError(f"expected a numpy array or a torch tensor, got {type(array).__name__}")


def quartile_positions(M: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted-row positions (lo, hi) and weights of Q1 and Q3 with numpy's linear interpolation."""
    q = np.array([0.25, 0.75]) * (M - 1)
    lo = np.floor(q).astype(int)
    return lo, np.minimum(lo + 1, M - 1), q - lo


def silverman_bandwidth(F, scale=None):
    """Return Silverman's bandwidth h_x = 0.9 · min(σ̂_x, IQR_x / 1.34) · M^(−1/5) per row (eq 32).

    Ha et al. (2021) typeset M^(−1/5) inside the min; the standard rule (and this code) has it
    outside. Where min(σ̂, IQR/1.34) = 0 the rule falls back to σ̂ (§4.4.2); a row with σ̂ = 0
    gets h = 0. "0" is decided with a relative tolerance, ``SPREAD_RTOL``: σ̂_x or IQR_x at most
    ``SPREAD_RTOL`` · ``scale`` counts as 0, so that a spread made only of rounding (duplicated inputs
    whose values differ by ~1e-16) gives the same h_x on every machine; without it such a row's h_x
    would be that rounding noise, and Û would depend on the BLAS kernel. The IQR uses numpy's linear
    interpolation of the sorted row (for M ~ 40 a row sort beats ``np.percentile``).

    Parameters
    ----------
    F : ndarray or torch.Tensor of shape (N, M)
        Neighbourhood values f(x̃'_m; Λ), one row per training sample.
    scale : float, optional
        The magnitude of the values F is computed from (Proposal 2 passes max ∣g∣ over T̃); default
        each row's max_m ∣F[x, m]∣.

    Returns
    -------
    ndarray or torch.Tensor of shape (N,)
        h_x, the kernel bandwidth of each row, of the same library as ``F``.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    xp = namespace(F)
    M = F.shape[1]
    S = xp.sort_rows(F)
    # the spread that counts as 0 (a constant row, whose computed σ̂ can be ~1e-17 from rounding in the
    # mean, is flat exactly)
    zero = (xp.maximum(S[:, -1], -S[:, 0]) if scale is None else scale) * SPREAD_RTOL
    sd = xp.std_rows(F)
    sd = sd * (sd > zero)
    lo, hi, frac = quartile_positions(M)
    q1, q3 = (S[:, int(lo[n])] * (1 - frac[n]) + S[:, int(hi[n])] * frac[n] for n in (0, 1))
    iqr = q3 - q1
    iqr = iqr * (iqr > zero)
    spread = xp.minimum(sd, iqr / 1.34)
    spread = xp.where(spread > 0, spread, sd)
    return 0.9 * spread * M ** (-0.2)


def neighbourhood_values(g_tilde, neighbours, pair_i, pair_j, rows=slice(None)):
    """Return F[x, m] = f_{i(x;Λ) j(x;Λ)}(x̃'_m; Λ) for x'_m ∈ N^M(x), the argument of eq 27.

    Ha et al. (2021), eq 27: the discriminant difference of the classifier's top-2 pair at x, read at
    the perturbed members x̃'_m of x's neighbourhood. All arrays come from one library (numpy or
    torch); the result is a new array the caller may overwrite.

    Parameters
    ----------
    g_tilde : ndarray of shape (N, J)
        The status's discriminants on T̃.
    neighbours : ndarray of shape (N, M)
        Indices of N^M(x), x itself in column 0.
    pair_i, pair_j : ndarray of shape (N,)
        The classifier's top-2 pair at each training sample.
    rows : slice or ndarray, default=slice(None)
        The training samples (rows of T) to compute.

    Returns
    -------
    ndarray of shape (n_rows, M)
        The neighbourhood values of each requested row.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    nbr = neighbours[rows]
    if g_tilde.shape[1] == 2:
        return (g_tilde[:, 0] - g_tilde[:, 1])[nbr]
    return g_tilde[nbr, pair_i[rows][:, None]] - g_tilde[nbr, pair_j[rows][:, None]]


def chunk_kernel(rows: slice, g_tilde, f_all, neighbours, labels, pair_i, pair_j):
    """Return (h_x, k̂^i(x), k̂^j(x)) for the training samples ``rows`` (Ha et al. 2021, eq 27-28, 32).

    k̂^c(x) = Σ_{x'_m ∈ N^M(x), y(x'_m) = c} φ((0 − F[x, m]) / h_x), φ the standard normal density:
    the kernel estimate at f = 0 (on B(Λ)) of the density of f over x's neighbourhood, split by the
    members' given labels. Rows with h_x = 0 (f constant on the neighbourhood, to ``SPREAD_RTOL`` of max ∣g∣)
    get k̂ = 0 (§4.4.2).

    Parameters
    ----------
    rows : slice
        The rows of T to compute (a chunk, so that the (rows, M) work stays bounded in memory).
    g_tilde : ndarray of shape (N, J)
        The status's discriminants on T̃.
    f_all : ndarray of shape (N,) or None
        For two classes, f = g₁ − g₂ on T̃ computed once for all chunks (then ``g_tilde`` is not
        read); None for J > 2.
    neighbours : ndarray of shape (N, M)
        Indices of N^M(x).
    labels : ndarray of shape (N, M)
        Given labels of the members of N^M(x), codes 0..J−1.
    pair_i, pair_j : ndarray of shape (N,)
        The classifier's top-2 pair at each training sample (0 and 1 for two classes).

    Returns
    -------
    tuple of three arrays of shape (n_rows,)
        h_x, k̂^i and k̂^j, of the library of the inputs.

    Notes
    -----
    For two classes the labels are 0/1, so k̂^j is the label-weighted row sum and k̂^i the rest
    (clipped at 0 against rounding); for J > 2 each is a masked row sum.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    nbr = neighbours[rows]
    F = f_all[nbr] if f_all is not None else neighbourhood_values(g_tilde, neighbours, pair_i, pair_j, rows)
    xp = namespace(F)
    h = silverman_bandwidth(F, scale=float(max(g_tilde.max(), -g_tilde.min())))  # the status's magnitude
    positive = h > 0
    inv_h = xp.where(positive, 1.0 / xp.where(positive, h, 1.0), 0.0)
    # Gaussian kernel φ((0 − F)/h_x) (eq 27), in place on the fresh array F
    Z = F
    Z *= inv_h[:, None]
    Z *= Z
    Z *= -0.5
    xp.exp_(Z)
    Z *= xp.like(positive, Z)[:, None] / _SQRT_2PI
    lab = labels[rows]
    if f_all is not None:
        k_j = xp.row_dot(Z, lab)  # labels are 0/1: the class-1 share
        k_i = xp.maximum(Z.sum(1) - k_j, 0.0)
    else:
        k_i = xp.row_dot(Z, lab == pair_i[rows][:, None])
        k_j = xp.row_dot(Z, lab == pair_j[rows][:, None])
    return h, k_i, k_j
