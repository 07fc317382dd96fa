"""Elementary time costs of Proposal 1 and Proposal 2 per classifier status.

Section, equation and table numbers are those of Ha et al. (2021) (§5, eq 43-47; Table 3).

The paper counts, for one classifier status Λ, additions c_add, multiplications c_mul, comparisons
c_comp, exponentials c_exp and classifications c_CL(d, J, Λ), and reports in Table 3 the gains
G_op(Λ) = c_op⁽¹⁾(Λ) / c_op⁽²⁾(Λ) of Proposal 2 over Proposal 1 (§6.10.1). Only the per-status costs
are compared; the shared costs of Proposal 2 (eq 42) and ``Proposal1.fit`` (a KD-tree) are left out.

Two kinds of counts are offered:

- ``"paper"``: the §5 formulas with every O(·) constant set to 1 — eq 43 for Proposal 2, eq 46-47
  for Proposal 1 (logarithms in base 2, N_max = 40). This is what Table 3 was computed from; with
  R_A = N, i_max = 20, R_T = 10, i_K = 20, M = 40 it reproduces four of the five printed rows to the
  printed digit (Cardiotocography gives 8E+02 where 7E+02 is printed), see :func:`table3`.
- ``"counted"``: the operations our implementations perform. For Proposal 1 they are tallied
  during :meth:`~buviz.uncertainty.Proposal1.evaluate` from the actual array sizes and iteration
  counts (:class:`OpCounts` per step in ``Proposal1Result.costs``); the KD-tree query is the one
  exception, counted with §5.2.1's ⌈log₂ N⌉ distance computations per query because SciPy does not
  report its work. For Proposal 2 there are no data-dependent iterations: the counts are per-element
  tallies of the array operations in ``BoundaryUncertainty.evaluate`` times the (N, M) sizes
  (:func:`proposal2_costs`, ``mode="counted"``).

A squared Euclidean distance in d dimensions counts 2d − 1 additions (subtractions included) and
d multiplications; an arg-max over J values J − 1 comparisons; a top-2 selection 2J − 3.
Logarithms (the entropies of eq 9, a handful per cluster) are kept in their own ``log`` field and
left out of the gains, like c_exp, which Proposal 1 does not use (§6.10.1).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from buviz._validation import InvalidParameterError, check_int
from buviz.uncertainty.opcounts import OPS, OpCounts
from buviz.uncertainty.proposal1 import Proposal1, Proposal1Result
from buviz.uncertainty.proposal2 import BoundaryUncertainty, BoundaryUncertaintyResult

__all__ = ["proposal1_costs", "proposal2_costs", "gains", "table3",
           "TABLE2", "TABLE3_PRINTED"]

#: (N, d, J) of the real-life datasets of Table 3 (from Table 2 of the paper).
TABLE2 = {
    "Abalone": (4177, 7, 3),
    "Cardiotocography": (1831, 30, 2),
    "Letter Recognition": (10000, 16, 26),
    "Landsat": (6435, 36, 7),
    "Spambase": (4601, 57, 2),
}
#: Table 3 as printed: G_add, G_mul, G_comp, G_CL.
TABLE3_PRINTED = {
    "Abalone": (2e2, 2e2, 2e1, 2e1),
    "Cardiotocography": (7e2, 7e2, 2e1, 2e1),
    "Letter Recognition": (6e2, 6e2, 2e1, 2e1),
    "Landsat": (1e3, 1e3, 2e1, 2e1),
    "Spambase": (2e3, 2e3, 2e1, 2e1),
}


def _jlogj(J: int) -> float:
    return J * math.log2(J)


def proposal1_costs(source=None, *, N: int | None = None, d: int | None = None, J: int | None = None,
                    R_A: int | None = None, i_max: int = 20, R_T: int = 10, i_K: int = 20,
                    N_max: int = 40) -> OpCounts:
    """Return the per-status costs c⁽¹⁾(Λ) of Proposal 1 (Ha et al. 2021, eq 44-47).

    From a :class:`~buviz.uncertainty.Proposal1Result`: the counts tallied during that run
    (``"counted"``, actual array sizes and iterations; see the module docstring). From a fitted
    :class:`~buviz.uncertainty.Proposal1`, or from N, d, J: the §5 formulas (``"paper"``) with
    every O(·) constant 1, logarithms in base 2:

    - c_add⁽¹⁾ = R_A·i_max·d + R_A·log N + R_T·i_K·d·N·log(N/N_max)  (eq 46 + eq 47)
    - c_mul⁽¹⁾ = R_A·log N + R_T·i_K·d·N·log(N/N_max)
    - c_comp⁽¹⁾ = R_A·i_max·J·log J  (the printed c_comp⁽¹⁾ = c_add⁽¹'¹⁾ is a slip for c_comp⁽¹'¹⁾: Table 3's
      G_comp = 2E+01 = i_max is only obtained this way)
    - c_CL⁽¹⁾ = R_A·i_max classified samples (the N classifications of T needed to find pairs with
      f > 0 and f < 0 are not counted by the paper; the counted mode includes them).

    R_A defaults to N (§6.10.1: "we optimistically assumed R_A ∼ N"); log(N/N_max) is clipped at 0.

    Parameters
    ----------
    source : Proposal1Result, Proposal1 or None, default=None
        A result, a fitted estimator, or None to use the numbers below.
    N, d, J : int, optional
        Training-set size, dimension and number of classes (with ``source=None``).
    R_A : int, optional
        Anchors (default N).
    i_max, R_T, i_K, N_max : int, default=20, 10, 20, 40
        Dichotomy steps, TDC runs, 2-means iterations and TDC split size.

    Returns
    -------
    OpCounts
        The per-status costs.

    Raises
    ------
    InvalidParameterError
        If ``source`` is of another type, or a count is out of range.
    sklearn.exceptions.NotFittedError
        If ``source`` is an unfitted estimator.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    if isinstance(source, Proposal1Result):
        return OpCounts.total(source.costs.values())
    if isinstance(source, Proposal1):
        check_is_fitted(source, "X_", msg="source: this %(name)s is not fitted yet: call fit(X, y) before "
                                          "counting its costs")
        N, d = source.X_.shape
        J = source.n_classes_
        R_A, i_max, R_T, i_K, N_max = (source.R_A_, source.i_max, source.R_T, source.i_K, source.N_max)
    elif source is not None:
        raise InvalidParameterError("source must be a Proposal1Result, a fitted Proposal1 or None, "
                         f"got {type(source).__name__}")
    N = check_int(N, "N", low=1)
    d = check_int(d, "d", low=1)
    J = check_int(J, "J", low=2)
    R_A = N if R_A is None else check_int(R_A, "R_A", low=1)
    i_max = check_int(i_max, "i_max", low=1)
    R_T = check_int(R_T, "R_T", low=1)
    i_K = check_int(i_K, "i_K", low=1)
    N_max = check_int(N_max, "N_max", low=1)
    tdc = R_T * i_K * d * N * max(math.log2(N / N_max), 0.0)
    return OpCounts(add=R_A * i_max * d + R_A * math.log2(N) + tdc,
                    mul=R_A * math.log2(N) + tdc,
                    comp=R_A * i_max * _jlogj(J),
                    cl_calls=R_A * i_max, cl_samples=R_A * i_max)


def proposal2_costs(source=None, *, N: int | None = None, M: int = 40, J: int | None = None,
                    d: int | None = None, mode: str = "paper", pair_at: str | None = None) -> OpCounts:
    """Return the per-status costs c⁽²⁾(Λ) of Proposal 2 (Ha et al. 2021, eq 43).

    d does not enter the per-status costs (eq 43); it is accepted for symmetry.
    ``mode="paper"``: eq 43 with constants 1 — N·M additions, multiplications and exponentials,
    N·J·log₂J comparisons, N classified samples.
    ``mode="counted"``: per-element tallies of ``BoundaryUncertainty.evaluate`` (J = 2 unless noted):
    g on T̃ (N samples, 1 call; J > 2: also g on T, N more samples, unless the pair is read at x̃,
    ``pair_at="x_tilde"``; a top-2 selection, N(2J − 3) comparisons, and the F gather g_i − g_j,
    N·M additions); f = g₁ − g₂ on T̃ (N additions);
    per row of F (M values): Silverman σ̂ (3M additions, M + 3 multiplications), IQR by partition
    (≈ 2M comparisons + 7 operations), kernel z = F/h, z², −½z², exp, /√2π (4M multiplications,
    M exponentials), label masks (2M comparisons), masked sums (2M multiplications, 2M additions);
    per sample: k̂, P̂, Û, the pair match, the error on T̃ and the weighted bincounts (8 additions,
    5 multiplications, J + 4 comparisons).

    Parameters
    ----------
    source : BoundaryUncertaintyResult, BoundaryUncertainty or None, default=None
        A result or a fitted estimator (N, M, J, d are read from it), or None with N, J (and M)
        given.
    N : int, optional
        Training-set size.
    M : int, default=40
        Neighbourhood size.
    J : int, optional
        Number of classes.
    d : int, optional
        Dimension (checked, unused).
    mode : {"paper", "counted"}, default="paper"
        The §5 formula or the per-element tallies of this implementation.
    pair_at : {"x", "x_tilde"} or None, default=None
        Where ``evaluate`` read the top-2 pair (``BoundaryUncertainty.pair_at``): "x" costs one
        more classifier evaluation, on T, for J > 2. None: the estimator's setting when ``source``
        is one, else "x".

    Returns
    -------
    OpCounts
        The per-status costs.

    Raises
    ------
    InvalidParameterError
        If ``source`` is of another type, ``mode`` is unknown or a count is out of range.
    sklearn.exceptions.NotFittedError
        If ``source`` is an unfitted estimator.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    if isinstance(source, BoundaryUncertaintyResult):
        N, M = source.neighbours.shape
        J = source.g_tilde.shape[1]
        d = source.X.shape[1]
    elif isinstance(source, BoundaryUncertainty):
        check_is_fitted(source, "neighbours_", msg="source: this %(name)s is not fitted yet: call fit(X, y) "
                                                   "before counting its costs")
        N, M = source.neighbours_.shape
        J = source.n_classes_
        d = source.X_.shape[1]
        pair_at = source.pair_at if pair_at is None else pair_at
    elif source is not None:
        raise InvalidParameterError("source must be a BoundaryUncertaintyResult, a fitted BoundaryUncertainty or None, "
                         f"got {type(source).__name__}")
    N = check_int(N, "N", low=1)
    M = check_int(M, "M", low=2)
    J = check_int(J, "J", low=2)
    if d is not None:
        check_int(d, "d", low=1)
    if pair_at not in (None, "x", "x_tilde"):
        raise InvalidParameterError(f"pair_at must be 'x', 'x_tilde' or None, got {pair_at!r}")
    if mode == "paper":
        return OpCounts(add=N * M, mul=N * M, comp=N * _jlogj(J), exp=N * M, cl_calls=1, cl_samples=N)
    if mode != "counted":
        raise InvalidParameterError(f"mode must be 'paper' or 'counted', got {mode!r}")
    row = OpCounts(add=5 * M + 3, mul=7 * M + 9, comp=4 * M + 3, exp=M)
    post = OpCounts(add=8, mul=5, comp=J + 4)
    out = (row + post) * N + OpCounts(add=N, cl_calls=1, cl_samples=N)
    if J > 2:
        out = out + OpCounts(add=N * M, comp=N * (2 * J - 3))
        if (pair_at or "x") == "x":
            out = out + OpCounts(cl_calls=1, cl_samples=N)
    return out


def gains(p1: OpCounts, p2: OpCounts) -> pd.DataFrame:
    """Return the Table 3 gains G_op = c_op⁽¹⁾ / c_op⁽²⁾ of Proposal 2 over Proposal 1.

    Parameters
    ----------
    p1 : OpCounts
        Costs of Proposal 1.
    p2 : OpCounts
        Costs of Proposal 2.

    Returns
    -------
    pandas.DataFrame
        Indexed by op (add, mul, comp, exp, CL for classified samples, CL_calls for classifier
        calls), columns ``proposal1``, ``proposal2`` and ``gain``; NaN where a count is 0 (c_exp:
        Proposal 1 has none, §6.10.1).

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    rows = []
    for op in (*OPS, "CL_calls"):
        a = p1.cl_calls if op == "CL_calls" else p1.get(op)
        b = p2.cl_calls if op == "CL_calls" else p2.get(op)
        rows.append({"op": op, "proposal1": float(a), "proposal2": float(b),
                     "gain": float(a) / float(b) if a > 0 and b > 0 else np.nan})
    return pd.DataFrame(rows).set_index("op")


def table3(datasets: dict | None = None, *, M: int = 40, i_max: int = 20, R_T: int = 10, i_K: int = 20,
           N_max: int = 40, R_A: int | None = None) -> pd.DataFrame:
    """Return Table 3 of Ha et al. (2021) from the §5 formulas (``"paper"`` mode of both proposals).

    Parameters
    ----------
    datasets : dict, optional
        {name: (N, d, J)}; default the five datasets of Table 3 (:data:`TABLE2`).
    M : int, default=40
        Neighbourhood size of Proposal 2 (§6.10.1).
    i_max, R_T, i_K : int, default=20, 10, 20
        Proposal 1's dichotomy steps, TDC runs and 2-means iterations (§6.10.1).
    N_max : int, default=40
        Proposal 1's TDC split size (unpublished).
    R_A : int, optional
        Proposal 1's anchors (default N).

    Returns
    -------
    pandas.DataFrame
        Indexed by dataset; columns N, d, J, G_add, G_mul, G_comp, G_CL and, for the paper's
        datasets, the printed values (``printed_G_*``).

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    datasets = TABLE2 if datasets is None else datasets
    rows = []
    for name, (N, d, J) in datasets.items():
        p1 = proposal1_costs(N=N, d=d, J=J, R_A=R_A, i_max=i_max, R_T=R_T, i_K=i_K, N_max=N_max)
        p2 = proposal2_costs(N=N, M=M, J=J, d=d, mode="paper")
        g = gains(p1, p2)["gain"]
        row = {"dataset": name, "N": N, "d": d, "J": J, "G_add": g["add"], "G_mul": g["mul"],
               "G_comp": g["comp"], "G_CL": g["CL"]}
        if name in TABLE3_PRINTED:
            row.update(zip(("printed_G_add", "printed_G_mul", "printed_G_comp", "printed_G_CL"),
                           TABLE3_PRINTED[name], strict=True))
        rows.append(row)
    return pd.DataFrame(rows).set_index("dataset")
