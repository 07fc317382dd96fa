"""Accuracy extrapolation through D̄(u) (Zheng, Achanta & Benjamini 2017 and 2018).

Pure numpy/scipy/scikit-learn (never imports panel or holoviews).

- Ranks and exact subsampled accuracies: :func:`ranks_from_margins`, :func:`test_accuracy` (eq 1-2),
  :func:`average_accuracy_from_ranks` (eq 3, log-space binomials).
- Theorem 4.1 and the moment method: :func:`fit_dbar` -> :class:`DbarFit` (eq 9-14),
  :func:`moment_matrix` (closed-form H_lk).
- Estimators and the API entry point: :func:`extrapolate`, :func:`fit_extrapolator` ("moment",
  "classexreg", "kde", "best"), and the scikit-learn-shaped :class:`AccuracyExtrapolator`.
- Intervals for AGA_K (``extrapolate(..., interval=0.9)``): :func:`accuracy_interval` ->
  :class:`AccuracyInterval`, the delete-one-class jackknife :func:`class_jackknife`.
- The reference implementation's fixture: :func:`load_classex_fixture`, :func:`peer_comparison`.
- Toy bivariate-normal model (Zheng, Achanta & Benjamini 2017, section 4.1) with the corrected
  U_x(y): :func:`toy_average_risk` etc.; with centres estimated from r training points,
  :func:`toy_trained_average_accuracy` (exact AGA_{k,r}) and :func:`toy_margins` (draws).
- The paper's unbiasedness claims by Monte Carlo: :func:`test_accuracy_bias` (E[TA_k] = AGA_{k,r}) and
  :func:`regression_bias` (E[β̂] = β).
- Table 1 (section 5.2) on the authors' own classifier outputs: :func:`telugu_table1`,
  :func:`authors_moment`, :func:`moment_knot_study`, :func:`shipped_table`.
- Populations with ground truth and classifiers' margins: :func:`make_population`,
  :func:`margin_matrix`, :func:`ground_truth`, :func:`compare_classifiers`; the Fig 11 experiment
  (fit on K observed classes, compare with the whole population): :func:`extrapolation_curves`,
  :func:`truth_curve`.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017 (equation and section numbers are this text's); the
same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228

C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)
"""

from ._core import (
    average_accuracy,
    average_accuracy_bruteforce,
    average_accuracy_from_ranks,
    check_ks,
    ranks_from_margins,
    test_accuracy,
)
from ._estimators import (
    EXTRA_METHODS,
    METHODS,
    Extrapolation,
    default_ks,
    extrapolate,
    fit_extrapolator,
    gaussian_basis,
    kde_favorability,
)
from ._extrapolator import AccuracyExtrapolator
from ._interval import AccuracyInterval, accuracy_interval, class_jackknife
from ._moment import BASES, PAPER_SPLINE_M, DbarFit, basis_functions, fit_dbar, moment_matrix, spline_nnls
from ._peers import PEER_FIELDS, classex_instance, load_classex_fixture, peer_comparison
from ._population import (
    CLASSIFIERS,
    MARGINAL,
    NON_MARGINAL,
    LabelPopulation,
    compare_classifiers,
    ground_truth,
    load_digits_population,
    make_population,
    margin_matrix,
    peers_benchmark_margins,
    population_margins,
    subsample_classes,
)
from ._telugu import (
    PAPER_TABLE1,
    TABLE1_CLAIM,
    TABLE1_METHODS,
    authors_average_accuracy,
    authors_moment,
    moment_knot_study,
    shipped_table,
    telugu_table1,
)
from ._telugu import SHIPPED as SHIPPED_TABLES
from ._toy import (
    TOY_REFERENCE_RHOS,
    toy_accuracy_grid,
    toy_average_accuracy,
    toy_average_risk,
    toy_conditional_accuracy,
    toy_dbar,
    toy_label_set_accuracy,
    toy_margins,
    toy_model_summary,
    toy_monte_carlo,
    toy_polynomial_error,
    toy_printed_error,
    toy_risk_distribution,
    toy_trained_average_accuracy,
)
from ._truth import ExtrapolationCurves, extrapolation_curves, observed_classes, truth_curve
from ._unbiased import TA_ESTIMATORS, WEIGHTINGS, regression_bias, test_accuracy_bias

__all__ = [
    "BASES", "CLASSIFIERS", "EXTRA_METHODS", "MARGINAL", "METHODS", "NON_MARGINAL", "PEER_FIELDS",
    "TOY_REFERENCE_RHOS",
    "AccuracyExtrapolator", "DbarFit", "Extrapolation", "LabelPopulation",
    "average_accuracy", "average_accuracy_bruteforce", "average_accuracy_from_ranks", "basis_functions",
    "check_ks", "classex_instance", "compare_classifiers", "default_ks", "extrapolate", "fit_dbar",
    "fit_extrapolator", "gaussian_basis", "ground_truth", "kde_favorability", "load_classex_fixture",
    "load_digits_population", "make_population", "margin_matrix", "moment_matrix", "peer_comparison",
    "peers_benchmark_margins", "population_margins", "ranks_from_margins", "subsample_classes", "test_accuracy",
    "toy_accuracy_grid", "toy_average_accuracy", "toy_average_risk", "toy_conditional_accuracy", "toy_dbar",
    "toy_label_set_accuracy", "toy_model_summary", "toy_monte_carlo", "toy_polynomial_error", "toy_printed_error",
    "toy_risk_distribution", "toy_margins", "toy_trained_average_accuracy",
    # the unbiasedness claims (§3, §4.3) by Monte Carlo on the toy model; the spline's solver
    "TA_ESTIMATORS", "WEIGHTINGS", "regression_bias", "test_accuracy_bias", "PAPER_SPLINE_M", "spline_nnls",
    "ExtrapolationCurves", "extrapolation_curves", "observed_classes", "truth_curve",
    # Table 1 on the authors' outputs (section 5.2)
    "PAPER_TABLE1", "SHIPPED_TABLES", "TABLE1_CLAIM", "TABLE1_METHODS", "authors_average_accuracy", "authors_moment",
    "moment_knot_study", "shipped_table", "telugu_table1",
    # intervals for AGA_K: identifiability range + jackknife sampling error
    "AccuracyInterval", "accuracy_interval", "class_jackknife",
]
