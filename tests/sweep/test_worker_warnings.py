"""Warnings raised inside the sweeps' worker processes reach the caller, under the caller's filters
(raised in a worker they were only printed there: no filter of the caller could silence them or turn
them into errors), and FlatDiscriminantWarning's advice follows what the classifier offers."""

import warnings

import numpy as np
import pytest
from joblib import delayed
from sklearn.datasets import make_moons
from sklearn.svm import SVC

from buviz import datasets, sweep
from buviz.classifiers import as_discriminant
from buviz.sweep import _run_tasks
from buviz.uncertainty import BoundaryUncertainty
from buviz.uncertainty.proposal2 import FlatDiscriminantWarning


class _WorkerWarning(UserWarning):
    pass


def _warn_and_return(n: int) -> int:
    warnings.warn(f"task {n} says so", _WorkerWarning, stacklevel=1)
    return n


@pytest.mark.parametrize("n_jobs", [1, 2])
# the 'error' case stops reading the results: joblib then says that tasks ran unused
@pytest.mark.filterwarnings("ignore:.*tasks have been successfully executed:UserWarning")
def test_worker_warnings_reach_the_caller_and_obey_its_filters(n_jobs):
    tasks = [delayed(_warn_and_return)(n) for n in range(3)]
    with pytest.warns(_WorkerWarning) as record:
        out = dict(_run_tasks(tasks, n_jobs, {}))
    assert out == {0: 0, 1: 1, 2: 2}
    assert sorted(str(w.message) for w in record if w.category is _WorkerWarning) == [
        "task 0 says so", "task 1 says so", "task 2 says so"]
    with warnings.catch_warnings(record=True) as caught:  # the caller ignores them: none is shown
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=_WorkerWarning)
        assert dict(_run_tasks(tasks, n_jobs, {})) == out
    assert not [w for w in caught if w.category is _WorkerWarning]
    retried = {}
    with warnings.catch_warnings():  # the caller makes them errors: raised here, the task is not retried
        warnings.simplefilter("error", _WorkerWarning)
        with pytest.raises(_WorkerWarning, match="task 0 says so"):
            list(_run_tasks(tasks, n_jobs, retried))
    assert retried == {}


def _flat_message(discriminant, X, y) -> str:
    bu = BoundaryUncertainty(M=20, random_state=0).fit(X, y)
    with pytest.warns(FlatDiscriminantWarning) as record:
        bu.evaluate(discriminant)
    return str(next(w.message for w in record if w.category is FlatDiscriminantWarning))


class _StepClassifier:
    """Class probabilities that step from 0 to 1 at x₀ = 0 (flat everywhere but on the boundary)."""

    classes_ = np.array([0, 1])

    def fit(self, X, y):
        return self

    def predict_proba(self, X):
        right = (np.asarray(X)[:, 0] >= 0).astype(float)
        return np.column_stack([1 - right, right])

    def predict(self, X):
        return (np.asarray(X)[:, 0] >= 0).astype(int)


class _StepWithDecision(_StepClassifier):
    def decision_function(self, X):
        return 2.0 * self.predict(X) - 1.0


def test_flat_warning_advice_follows_what_the_classifier_offers():
    X, y = make_moons(300, noise=0.3, random_state=0)
    # an RBF SVC with an enormous γ: its decision function is the intercept away from the samples;
    # it has no predict_proba, so the advice must not be to read its probabilities
    svc = _flat_message(SVC(gamma=2.0**30).fit(X, y), X, y)
    assert "decision_function is constant" in svc and "predict_proba" not in svc
    both = _flat_message(_StepWithDecision(), X, y)  # read through decision_function by default
    assert "response='predict_proba'" in both and "it has predict_proba" in both
    only_proba = _flat_message(_StepClassifier(), X, y)  # read through predict_proba
    assert "read through log-probabilities? use response='predict_proba'" in only_proba
    step = as_discriminant(lambda Z: np.column_stack([Z[:, 0] < 0, Z[:, 0] >= 0]).astype(float), n_classes=2)
    plain = _flat_message(step, X, y)
    assert "continuous scores" in plain and "predict_proba" not in plain


@pytest.mark.slow  # a sweep in two worker processes
@pytest.mark.filterwarnings("ignore:.*tasks have been successfully executed:UserWarning")
def test_flat_discriminant_warning_from_a_sweep_worker_is_filterable():
    """γ = 2^30 makes the SVC flat on T̃: the warning raised in a worker reaches the caller, which can
    silence it or make it an error."""
    X, y = make_moons(400, noise=0.3, random_state=0)
    ds = datasets.from_arrays(X, y, test_size=0.5, random_state=0)
    kw = dict(cv=2, M=20, n_jobs=2, cache=False)
    with pytest.warns(FlatDiscriminantWarning, match="decision_function is constant"):
        sweep.svm_gamma_sweep(ds, [2.0**30], **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=FlatDiscriminantWarning)
        sweep.svm_gamma_sweep(ds, [2.0**30], **kw)
    assert not [w for w in caught if w.category is FlatDiscriminantWarning]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FlatDiscriminantWarning)
        with pytest.raises(FlatDiscriminantWarning):
            sweep.svm_gamma_sweep(ds, [2.0**30], **kw)
