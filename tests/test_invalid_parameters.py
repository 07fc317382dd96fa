"""Bad parameters of every public entry point of the compute layer raise InvalidParameterError naming them."""

from __future__ import annotations

import numpy as np
import pytest

import buviz
from buviz import classifiers, datasets, discrete, extrapolation, model_selection, sweep, uncertainty
from buviz._validation import InvalidParameterError

X2 = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.2], [0.2, 0.7]])
Y2 = np.array([0, 1, 0, 1, 0, 1])
MARGINS = np.array([[1.0, 0.2, 0.1], [0.1, 0.9, 0.3], [0.2, 0.1, 0.8], [0.5, 0.6, 0.1]])
LABELS = np.array([0, 1, 2, 0])


def _ds():
    return datasets.load("gmm", n_train=60, n_test=60)


# (id, call, the parameter the message must name)
CASES = [
    # datasets
    ("load-name", lambda: datasets.load("nope"), "name"),
    ("load-n_train", lambda: datasets.load("gmm", n_train=-3), "n_train"),
    ("paper_mixture-name", lambda: datasets.paper_mixture("nope"), "name"),
    ("mixture-priors", lambda: datasets.GaussianMixture(
        [[(1.0, [0, 0], np.eye(2))], [(1.0, [1, 1], np.eye(2))]], priors=[1.0]), "priors"),
    ("mixture-covariance", lambda: datasets.GaussianMixture(
        [[(1.0, [0, 0], -np.eye(2))], [(1.0, [1, 1], np.eye(2))]]), "covariance"),
    ("from_arrays-test_size", lambda: datasets.from_arrays(X2, Y2, test_size=2.0), "test_size"),
    ("read_csv-label_column", lambda: datasets.read_csv(b"a,b,y\n1,2,0\n3,4,1\n", label_column="zz"),
     "label_column"),
    # classifiers
    ("as_discriminant-class", lambda: classifiers.as_discriminant(classifiers.PrototypeClassifier), "source"),
    ("as_discriminant-response", lambda: classifiers.as_discriminant(lambda X: X, 2, response="nope"),
     "response"),
    ("as_discriminant-n_classes", lambda: classifiers.as_discriminant(lambda X: X), "n_classes"),
    ("as_discriminant-object", lambda: classifiers.as_discriminant(3), "source"),
    ("svm_status-gamma", lambda: classifiers.svm_status(X2, Y2, gamma=-1.0), "gamma"),
    ("prototype-n_prototypes", lambda: classifiers.PrototypeClassifier(n_prototypes=0).fit(X2, Y2),
     "n_prototypes"),
    # uncertainty
    ("bu-M", lambda: uncertainty.BoundaryUncertainty(M=1).fit(X2, Y2), "M"),
    ("bu-perturbation_mode", lambda: uncertainty.BoundaryUncertainty(M=3, perturbation_mode="nope").fit(X2, Y2),
     "perturbation_mode"),
    ("bu-array_backend", lambda: uncertainty.BoundaryUncertainty(M=3, array_backend="nope").fit(X2, Y2),
     "array_backend"),
    ("bu-K", lambda: uncertainty.BoundaryUncertainty(M=3, K="nope").fit(X2, Y2), "K"),
    ("proposal1-N_min", lambda: uncertainty.Proposal1(N_max=5, N_min=10).fit(X2, Y2), "N_min"),
    ("perturbed-mode", lambda: uncertainty.perturbed_training_set(X2, np.ones(6), mode="nope"), "mode"),
    ("class_aic-form", lambda: uncertainty.class_aic(X2, X2[:1], np.zeros(6, int), form="nope"), "aic_form"),
    ("proposal2_costs-mode", lambda: uncertainty.proposal2_costs(N=100, J=2, d=2, mode="nope"), "mode"),
    ("proposal1_costs-source", lambda: uncertainty.proposal1_costs("nope"), "source"),
    # extrapolation
    ("extrapolate-method", lambda: extrapolation.extrapolate(MARGINS, LABELS, 10, method="nope"), "method"),
    ("extrapolate-k_target", lambda: extrapolation.extrapolate(MARGINS, LABELS, "ten"), "k_target"),
    ("extrapolator-method", lambda: extrapolation.AccuracyExtrapolator(method="nope").fit(MARGINS, LABELS),
     "method"),
    ("average_accuracy-ties", lambda: extrapolation.average_accuracy(MARGINS, LABELS, [2], ties="nope"), "ties"),
    ("average_accuracy-margins", lambda: extrapolation.average_accuracy(np.ones(3), LABELS, [2]), "margins"),
    ("ranks-labels", lambda: extrapolation.ranks_from_margins(MARGINS, [0, 1]), "labels"),
    ("fit_dbar-basis", lambda: extrapolation.fit_dbar([2, 3], [0.9, 0.8], basis="nope"), "basis"),
    ("fit_dbar-knots", lambda: extrapolation.fit_dbar([2, 3], [0.9, 0.8], knots="nope"), "knots"),
    ("kde-bw", lambda: extrapolation.kde_favorability(MARGINS, LABELS, bw="nope"), "bw"),
    ("make_population-rho", lambda: extrapolation.make_population(rho=1.5), "rho"),
    ("margin_matrix-classifier", lambda: extrapolation.margin_matrix("nope", X2, Y2, X2), "classifier"),
    ("toy_dbar-u", lambda: extrapolation.toy_dbar(2.0, 0.5), "u"),
    ("toy_dbar-rho", lambda: extrapolation.toy_dbar(0.5, 1.0), "rho"),
    # discrete
    ("cell_values-method", lambda: discrete.cell_values("nope", 10, 5), "method"),
    ("moments-p", lambda: discrete.moments(discrete.loo_table(5, 5), 5, 2, 1.5), "p"),
    ("moments_general-alpha", lambda: discrete.moments_general(discrete.loo_table(5, 5), 5, [0.2, 0.2], 0.3),
     "alpha"),
    ("balanced_optimal-gauge", lambda: discrete.balanced_optimal(5, 2, gauge="nope"), "gauge"),
    ("bootstrap-N", lambda: discrete.bootstrap_oob_table(1, 1), "N"),
    ("rms_deviation-method", lambda: discrete.rms_deviation("nope", 10, 2, 0.3), "method"),
    # sweep
    ("svm_gamma_sweep-ds", lambda: sweep.svm_gamma_sweep("gmm", [1.0]), "ds"),
    ("svm_gamma_sweep-gammas", lambda: sweep.svm_gamma_sweep(_ds(), []), "gammas"),
    ("mlp_epoch_sweep-epochs", lambda: sweep.mlp_epoch_sweep(_ds(), []), "epochs"),
    # model_selection
    ("scorer-uncertainty", lambda: model_selection.UncertaintyScorer(uncertainty=3), "uncertainty"),
    ("select-estimator", lambda: model_selection.select_by_uncertainty(
        classifiers.PrototypeClassifier, {"n_prototypes": [1]}, X2, Y2), "estimator"),
    ("select-param_grid", lambda: model_selection.select_by_uncertainty(
        classifiers.PrototypeClassifier(), [], X2, Y2), "param_grid"),
]


def test_one_class_for_both_kinds_of_mistake():
    assert buviz.InvalidParameterError is InvalidParameterError
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, TypeError)


@pytest.mark.parametrize(("call", "param"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_parameter_raises_invalid_parameter_error_naming_it(call, param):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert param in str(info.value)
