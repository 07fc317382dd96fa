"""Boundary uncertainty of classifier statuses: Proposal 2 (Û⁽³⁾) and the Proposal 1 baseline.

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from buviz.uncertainty import costs
from buviz.uncertainty.costs import gains, proposal1_costs, proposal2_costs, table3
from buviz.uncertainty.neighbours import PERTURBATION_MODES, neighbourhoods, perturbed_training_set
from buviz.uncertainty.opcounts import OpCounts as OpCounts  # re-exported; documented on its own page
from buviz.uncertainty.oracle import TrueBoundaryUncertainty, true_boundary_uncertainty
from buviz.uncertainty.proposal1 import Proposal1, Proposal1Result, binary_entropy
from buviz.uncertainty.proposal2 import (
    DEFAULT_SEPARABILITY,
    DEFAULT_SEPARABILITY_N0,
    PAPER_SEPARABILITY,
    TOLERANCE_SEPARABILITY,
    TOLERANCE_WEIGHT_TOL,
    U_MAX,
    U_MIN,
    ZERO_WEIGHT,
    BoundaryUncertainty,
    BoundaryUncertaintyResult,
    FlatDiscriminantWarning,
    PairValues,
    case3_error,
    local_uncertainty,
    neighbourhood_values,
    pair_uncertainty,
    silverman_bandwidth,
)
from buviz.uncertainty.prototypes import (
    PAPER_K_RANGE,
    KRangeWarning,
    TruePairEstimate,
    class_aic,
    estimate_true_pairs,
)

__all__ = [
    "BoundaryUncertainty",
    "BoundaryUncertaintyResult",
    "PairValues",
    "pair_uncertainty",
    "case3_error",
    "DEFAULT_SEPARABILITY",
    "DEFAULT_SEPARABILITY_N0",
    "PAPER_SEPARABILITY",
    "TOLERANCE_SEPARABILITY",
    "TOLERANCE_WEIGHT_TOL",
    "ZERO_WEIGHT",
    "neighbourhood_values",
    "FlatDiscriminantWarning",
    "TruePairEstimate",
    "KRangeWarning",
    "PAPER_K_RANGE",
    "estimate_true_pairs",
    "class_aic",
    "neighbourhoods",
    "perturbed_training_set",
    "local_uncertainty",
    "silverman_bandwidth",
    "PERTURBATION_MODES",
    "U_MAX",
    "U_MIN",
    "Proposal1",
    "Proposal1Result",
    "binary_entropy",
    "costs",
    "proposal1_costs",
    "proposal2_costs",
    "gains",
    "table3",
    "true_boundary_uncertainty",
    "TrueBoundaryUncertainty",
]
