"""Boundary uncertainty as a model-selection instrument for any scikit-learn classifier."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_moons
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, validation_curve
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from buviz import datasets
from buviz.classifiers import as_discriminant
from buviz.model_selection import TrainingSetSplit, UncertaintyScorer, select_by_uncertainty
from buviz.uncertainty import BoundaryUncertainty
from buviz.uncertainty.proposal2 import FeatureMismatchWarning, FlatDiscriminantWarning

GAMMAS = [2.0**e for e in range(-6, 7, 2)]


@pytest.fixture(scope="module")
def gmm():
    ds = datasets.load("gmm", n_train=300, n_test=0, random_state=0)
    return ds.X_train, ds.y_train


@pytest.fixture(scope="module")
def direct_u(gmm):
    """Û of each γ computed directly, without scikit-learn's search machinery."""
    X, y = gmm
    bu = BoundaryUncertainty(M=20, random_state=0).fit(X, y)
    return np.array([bu.evaluate(SVC(gamma=g).fit(X, y)).value for g in GAMMAS])


# -- Deliver 2: scikit-learn's model selection, no held-out data --------------------------------------
def test_grid_search_choice_is_the_argmax_of_u_computed_directly(gmm, direct_u):
    X, y = gmm
    scorer = UncertaintyScorer(M=20, random_state=0)
    search = GridSearchCV(SVC(), {"gamma": GAMMAS}, scoring=scorer, cv=TrainingSetSplit()).fit(X, y)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], direct_u, rtol=0, atol=1e-12)
    assert search.best_params_["gamma"] == GAMMAS[int(np.argmax(direct_u))]
    assert len(set(np.round(direct_u, 6))) > 3  # the grid discriminates: not a tie won by the first
    # the per-dataset work (neighbourhoods, T̃, Î*) was done once for the seven candidates
    assert scorer.n_fits_ == 1 and scorer.n_calls_ == len(GAMMAS)


def test_validation_curve_scores_are_u_and_the_dataset_work_is_done_once(gmm, direct_u):
    X, y = gmm
    scorer = UncertaintyScorer(M=20, random_state=0)
    train, test = validation_curve(SVC(), X, y, param_name="gamma", param_range=GAMMAS,
                                   cv=TrainingSetSplit(), scoring=scorer)
    np.testing.assert_allclose(test[:, 0], direct_u, atol=1e-12)
    np.testing.assert_allclose(train[:, 0], direct_u, atol=1e-12)  # train = test = the training set
    assert scorer.n_fits_ == 1


def test_halving_search_does_the_dataset_work_once_per_training_subset(gmm):
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingGridSearchCV

    X, y = gmm
    scorer = UncertaintyScorer(M=20, random_state=0)
    search = HalvingGridSearchCV(SVC(), {"gamma": GAMMAS}, scoring=scorer, cv=TrainingSetSplit(),
                                 factor=2, min_resources=80, random_state=0).fit(X, y)
    assert search.n_iterations_ >= 2
    assert scorer.n_fits_ == search.n_iterations_  # one training subset per iteration
    # train and test parts are scored (return_train_score): twice per candidate, same subset, one fit
    assert scorer.n_calls_ == 2 * sum(search.n_candidates_)
    # Û was computed on each candidate's own training subset (train part = test part)
    sizes = sorted(len(bu.X_) for bu in scorer._cache.values())
    assert sizes == sorted(search.n_resources_)


def test_select_by_uncertainty_table_and_best_estimator(gmm, direct_u):
    X, y = gmm
    res = select_by_uncertainty(SVC(), {"gamma": GAMMAS}, X, y, M=20, random_state=0)
    t = res.table
    assert list(t["param_gamma"]) == GAMMAS
    np.testing.assert_allclose(t["U"], direct_u, atol=1e-12)
    assert res.best_params_ == {"gamma": GAMMAS[int(np.argmax(direct_u))]}
    assert res.best_estimator_.gamma == res.best_params_["gamma"]
    assert t.loc[res.best_index_, "rank"] == 1
    for col in ("error_tilde", "error_train", "fit_time", "score_time"):
        assert np.all(np.isfinite(t[col]))
    # error on T̃ against a direct count
    bu = res.scorer.fitted_for(X, y)
    err = np.mean(SVC(gamma=GAMMAS[0]).fit(X, y).predict(bu.X_tilde_) != y)
    assert t.loc[0, "error_tilde"] == pytest.approx(err, abs=1e-12)
    assert res.scorer.n_fits_ == 1


def test_select_by_uncertainty_with_string_labels_equals_integer_labels(gmm):
    X, y = gmm
    names = np.array(["setosa", "virginica"])[y]
    a = select_by_uncertainty(SVC(), {"C": [0.1, 1.0]}, X, y, M=15).table["U"]
    b = select_by_uncertainty(SVC(), {"C": [0.1, 1.0]}, X, names, M=15).table["U"]
    np.testing.assert_allclose(a, b, atol=1e-15)


@pytest.mark.parametrize("call, exc, match", [
    (lambda X, y: select_by_uncertainty(SVC(), [], X, y), ValueError, "param_grid"),
    (lambda X, y: select_by_uncertainty(SVC(), {"gamma": []}, X, y), ValueError, "param_grid"),
    (lambda X, y: select_by_uncertainty(SVC, {"gamma": [1]}, X, y), TypeError, "instance"),
    (lambda X, y: select_by_uncertainty(_OnlyPredict(), {"a": [1]}, X, y), ValueError,
     "decision_function nor predict_proba"),
    (lambda X, y: select_by_uncertainty(SVC(), {"gamma": [1]}, X, np.zeros(len(y))), ValueError, "classes"),
    (lambda X, y: select_by_uncertainty(SVC(), {"gamma": [1]}, np.where(np.arange(len(X))[:, None] == 3, np.nan, X),
                                        y), ValueError, "NaN"),
    (lambda X, y: select_by_uncertainty(SVC(), {"gamma": [1]}, X[:30], y[:30], M=40), ValueError,
     "M must be <= 30"),
])
def test_bad_input_names_the_parameter(gmm, call, exc, match):
    X, y = gmm
    with pytest.raises(exc, match=match):
        call(X, y)


class _OnlyPredict(ClassifierMixin, BaseEstimator):
    def __init__(self, a=1):
        self.a = a

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


# -- Deliver 1: the estimator contract and any labels ---------------------------------------------------
def test_boundary_uncertainty_follows_the_estimator_contract(gmm):
    X, y = gmm
    bu = BoundaryUncertainty(M=7, perturbation=0.25)
    assert bu.get_params()["M"] == 7 and clone(bu).get_params() == bu.get_params()
    assert bu.set_params(M=9).M == 9 and "M=9" in repr(bu)
    with pytest.raises(NotFittedError, match="fit"):
        bu.evaluate(SVC().fit(X, y))
    bu.fit(X, y)
    assert bu.n_features_in_ == 2 and list(bu.classes_) == [0, 1]
    with pytest.raises(ValueError, match="features"):
        bu.evaluate(SVC().fit(np.c_[X, X], y))


@pytest.mark.parametrize("labels", [np.array([-1, 1]), np.array([3, 7]), np.array(["no", "yes"])])
def test_any_labels_give_the_same_value(gmm, labels):
    X, y = gmm
    ref = BoundaryUncertainty(M=20).fit(X, y).evaluate(SVC(gamma=2.0).fit(X, y)).value
    yl = labels[y]
    bu = BoundaryUncertainty(M=20).fit(X, yl)
    assert list(bu.classes_) == list(labels)
    assert bu.evaluate(SVC(gamma=2.0).fit(X, yl)).value == pytest.approx(ref, abs=1e-15)
    assert bu.evaluate(KNeighborsClassifier(7).fit(X, yl)).value == pytest.approx(
        BoundaryUncertainty(M=20).fit(X, y).evaluate(KNeighborsClassifier(7).fit(X, y)).value, abs=1e-15)


def test_clear_messages_for_common_mistakes(gmm):
    X, y = gmm
    bu = BoundaryUncertainty(M=20).fit(X, y)
    with pytest.raises(NotFittedError, match="KNeighborsClassifier.*not fitted"):
        bu.evaluate(KNeighborsClassifier())
    with pytest.raises(TypeError, match="instance.*SVC"):
        bu.evaluate(SVC)
    with pytest.raises(ValueError, match="fitted on labels"):
        bu.evaluate(SVC().fit(X, np.array(["a", "b"])[y]))
    with pytest.raises(ValueError, match="response"):
        as_discriminant(SVC().fit(X, y), response="logit")


def test_columns_follow_training_classes_when_estimator_order_differs(gmm):
    """A classifier whose classes_ are in another order than the training set's gets its columns
    reordered (a callable wrapper here, as scikit-learn always sorts)."""
    X, y = gmm
    svc = SVC(gamma=1.0).fit(X, y)
    g = as_discriminant(svc, classes=np.array([1, 0]))(X[:5])
    np.testing.assert_allclose(g[:, 0], svc.decision_function(X[:5]))


def test_feature_mismatch_warning_when_worse_than_a_constant():
    ds = datasets.load("gmm_separable", n_train=200, n_test=0, random_state=0)
    X, y = ds.X_train, ds.y_train
    bu = BoundaryUncertainty(M=20).fit(X, y)
    from sklearn.linear_model import LogisticRegression

    flipped = LogisticRegression().fit(-X, y)  # fitted on other features: most samples misclassified
    with pytest.warns(FeatureMismatchWarning, match="same features"):
        bu.evaluate(flipped)


# -- probabilistic classifiers: f from the posteriors, not saturated log-probabilities ----------------
@pytest.mark.parametrize("seed", [0, 1])
def test_probability_reading_no_longer_ranks_1nn_best_on_moons(seed):
    X, y = make_moons(500, noise=0.3, random_state=seed)
    bu = BoundaryUncertainty(M=40, random_state=0).fit(X, y)
    models = {"knn15": KNeighborsClassifier(15), "1nn": KNeighborsClassifier(1),
              "forest": RandomForestClassifier(50, min_samples_leaf=5, random_state=0)}
    u, u_log = {}, {}
    for name, est in models.items():
        est.fit(X, y)
        u[name] = bu.evaluate(est).value
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FlatDiscriminantWarning)
            u_log[name] = bu.evaluate(as_discriminant(est, response="log_proba")).value
    assert max(u, key=u.get) != "1nn" and u["knn15"] > u["1nn"]
    # read through log-probabilities (capped at 1e-300) k-NN saturates and falls below 1-NN
    assert u_log["knn15"] < u_log["1nn"]


def test_flat_discriminant_warns(gmm):
    X, y = gmm
    bu = BoundaryUncertainty(M=20).fit(X, y)
    step = as_discriminant(lambda Z: np.column_stack([Z[:, 0] < 0, Z[:, 0] >= 0]).astype(float), n_classes=2)
    with pytest.warns(FlatDiscriminantWarning, match="flat"):
        r = bu.evaluate(step)
    assert np.mean(r.bandwidth == 0) > 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error", FlatDiscriminantWarning)
        bu.evaluate(SVC().fit(X, y))  # a smooth discriminant does not warn


@pytest.mark.slow  # a fresh interpreter importing scikit-learn
def test_compute_modules_do_not_import_the_app_stack():
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys, buviz.model_selection, buviz.uncertainty, buviz.discrete, buviz.classifiers, "
            "buviz.datasets; print(sorted(m for m in ('panel', 'holoviews', 'bokeh') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("n_classes", [2, 3])
def test_training_error_is_read_from_the_scores_without_an_extra_prediction(n_classes):
    """error_train comes from g on T (computed by evaluate for J > 2): it equals predict's error."""
    name = "gmm" if n_classes == 2 else "gmm3"
    ds = datasets.load(name, n_train=300, n_test=0, random_state=1)
    X, y = ds.X_train, np.array(["a", "b", "c"])[ds.y_train]  # labels other than the codes
    res = select_by_uncertainty(SVC(), {"gamma": [0.1, 1.0, 30.0]}, X, y, M=20)
    for gamma, err in zip(res.table["param_gamma"], res.table["error_train"], strict=True):
        assert err == pytest.approx(np.mean(SVC(gamma=gamma).fit(X, y).predict(X) != y), abs=1e-12)
