"""A result is a value: frozen, read-only arrays that nothing else can change, no back-link to its estimator."""

import dataclasses

import numpy as np
import pytest

from buviz import datasets
from buviz.classifiers import svm_status
from buviz.uncertainty import BoundaryUncertainty, Proposal1


@pytest.fixture(scope="module")
def two_sizes():
    small = datasets.load("gmm", n_train=200, n_test=100, random_state=0)
    large = datasets.load("gmm", n_train=300, n_test=100, random_state=1)
    return small, large


def test_proposal2_result_survives_a_refit(two_sizes):
    small, large = two_sizes
    bu = BoundaryUncertainty(M=10, random_state=0).fit(small.X_train, small.y_train)
    status = svm_status(small.X_train, small.y_train, gamma=1.0)
    r = bu.evaluate(status, train_scores=True)
    X_tilde, view_before, F_before = r.X_tilde.copy(), r.sample_view(5), r.F.copy()
    bu.fit(large.X_train, large.y_train)  # the same estimator, another training set
    assert bu.X_tilde_.shape == (300, 2)
    assert r.X_tilde.shape == (200, 2) and len(r.k) == 200
    np.testing.assert_array_equal(r.X_tilde, X_tilde)
    np.testing.assert_array_equal(r.F, F_before)
    view_after = r.sample_view(5)
    for key in ("neighbours", "F", "labels"):
        np.testing.assert_array_equal(view_after[key], view_before[key])
    np.testing.assert_array_equal(r.neighbours[5], view_before["neighbours"])
    # f on T is read on the training set the status was scored on, not the refitted one
    np.testing.assert_allclose(r.f_train, status(small.X_train)[:, 0] - status(small.X_train)[:, 1])


def test_proposal2_result_arrays_are_read_only(two_sizes):
    small, _ = two_sizes
    r = BoundaryUncertainty(M=10).fit(small.X_train, small.y_train).evaluate(
        svm_status(small.X_train, small.y_train, gamma=1.0))
    for name in ("X", "y", "X_tilde", "neighbours"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(r, name)[0] = 0
    assert not hasattr(r, "_estimator")


def test_proposal1_result_survives_a_refit(two_sizes):
    small, large = two_sizes
    p1 = Proposal1(R_A=60, random_state=0).fit(small.X_train, small.y_train)
    r = p1.evaluate(svm_status(small.X_train, small.y_train, gamma=1.0))
    expected = small.X_train[r.near_boundary]
    p1.fit(large.X_train, large.y_train)
    np.testing.assert_array_equal(r.near_boundary_X, expected)
    assert not hasattr(r, "_estimator")


def test_proposal2_result_survives_changes_to_the_callers_data_and_classifier(two_sizes):
    """The result holds its own T (the estimator copies X) and f(T) computed at evaluate time."""
    from sklearn.svm import SVC

    small, _ = two_sizes
    X = small.X_train.copy()
    clf = SVC(gamma=1.0).fit(X, small.y_train)
    r = BoundaryUncertainty(M=10).fit(X, small.y_train).evaluate(clf, train_scores=True)
    f_before, X_before = r.f_train.copy(), r.X.copy()
    g_before = r.discriminant(small.X_test)
    X[0, 0] = 99.0
    clf.set_params(gamma=100.0).fit(small.X_train, small.y_train)
    np.testing.assert_array_equal(r.X, X_before)
    np.testing.assert_array_equal(r.f_train, f_before)
    # the result's discriminant is the status it scored, not the caller's refitted classifier
    assert not np.allclose(clf.decision_function(small.X_test), g_before[:, 1])
    np.testing.assert_array_equal(r.discriminant(small.X_test), g_before)
    assert r.discriminant.estimator is not clf


def test_a_frozen_discriminant_reads_its_copy_the_same_way():
    """Columns in the training set's class order and predict_proba are kept by the copy."""
    from sklearn.linear_model import LogisticRegression

    from buviz.classifiers import as_discriminant

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    y = np.repeat(["b", "c", "a"], 30)
    X[y == "a"] += 3.0
    clf = LogisticRegression().fit(X, y)
    d = as_discriminant(clf, classes=np.array(["c", "a", "b"]), response="predict_proba")
    frozen = d.frozen()
    np.testing.assert_array_equal(frozen(X), d(X))
    np.testing.assert_array_equal(frozen(X), clf.predict_proba(X)[:, [2, 0, 1]])
    assert frozen.estimator is not clf and frozen.name == d.name
    plain = as_discriminant(lambda Z: np.column_stack([Z[:, 0], -Z[:, 0]]), n_classes=2)
    assert plain.frozen() is plain  # a plain callable is the caller's: nothing to copy


def test_f_train_needs_the_scores_on_T(two_sizes):
    small, _ = two_sizes
    r = BoundaryUncertainty(M=10).fit(small.X_train, small.y_train).evaluate(
        svm_status(small.X_train, small.y_train, gamma=1.0))
    with pytest.raises(ValueError, match="train_scores=True"):
        _ = r.f_train


def _arrays(obj):
    """Every ndarray a result holds: its fields, inside its tuples and mappings."""
    stack = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    while stack:
        v = stack.pop()
        if isinstance(v, np.ndarray):
            yield v
        elif isinstance(v, (tuple, list)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())


def _writeable_somewhere(a):
    """True if a or any array it is a view of can be written."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return True
        a = a.base
    return a is not None  # memory owned by something other than numpy


@pytest.fixture(scope="module")
def three_class():
    return datasets.load("gmm3", n_train=240, n_test=60, random_state=0)


def _fitted_arrays(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_") and isinstance(v, np.ndarray)}


@pytest.mark.parametrize("pair_at", ["x", "x_tilde"])
def test_proposal2_result_is_frozen_and_owns_read_only_arrays(three_class, pair_at):
    ds = three_class
    bu = BoundaryUncertainty(M=10, pair_at=pair_at, random_state=0).fit(ds.X_train, ds.y_train)
    r = bu.evaluate(svm_status(ds.X_train, ds.y_train, gamma=1.0), train_scores=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.value = 99.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.pair_values = np.zeros(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        del r.k
    arrays = list(_arrays(r)) + [r.F, r.f_tilde, r.f_train]
    assert len(arrays) >= 28
    for a in arrays:
        assert not _writeable_somewhere(a)
        with pytest.raises(ValueError, match="read-only"):
            a.reshape(-1)[:1] = 0
    assert isinstance(r.pairs, tuple)
    for name in ("pairs", "aic"):  # Î* the result came from is a value too
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(bu.true_pairs_, name, None)
    with pytest.raises(TypeError, match="read-only"):
        bu.true_pairs_.aic[0] = {}


def test_writing_through_the_estimator_cannot_change_a_result(three_class):
    ds = three_class
    bu = BoundaryUncertainty(M=10, random_state=0).fit(ds.X_train, ds.y_train)
    r = bu.evaluate(svm_status(ds.X_train, ds.y_train, gamma=1.0))
    before = {id(a): a.copy() for a in _arrays(r)}
    fitted = _fitted_arrays(bu) | {"true_pairs_.pair_index": bu.true_pairs_.pair_index}
    assert {"X_", "y_", "X_tilde_", "neighbours_", "neighbour_labels_", "nn_distance_"} <= set(fitted)
    viewed = ("X_", "y_", "X_tilde_", "neighbours_", "neighbour_labels_", "nn_distance_", "true_pairs_.pair_index")
    for name in viewed:
        with pytest.raises(ValueError, match="read-only"):
            fitted[name].reshape(-1)[:1] = -7  # the estimator's arrays that results may view are read-only
    for name, a in fitted.items():  # and a result shares memory with no writeable one
        for b in _arrays(r):
            assert not (np.shares_memory(a, b) and _writeable_somewhere(a)), name
    for name in viewed:  # nor can they be made writeable again
        with pytest.raises(ValueError, match="WRITEABLE"):
            fitted[name].flags.writeable = True
    for a in _arrays(r):
        with pytest.raises(ValueError, match="WRITEABLE"):
            a.flags.writeable = True
    # a copy with another T̃ shares N^M(x) and Î*, yet its results are values as well
    wide = bu.with_perturbation(2.0)
    assert not wide.X_tilde_.flags.writeable
    wide.evaluate(svm_status(ds.X_train, ds.y_train, gamma=4.0))
    for a in _arrays(r):
        np.testing.assert_array_equal(a, before[id(a)])


def test_proposal1_result_is_frozen_and_read_only(two_sizes):
    small, _ = two_sizes
    r = Proposal1(R_A=60, random_state=0).fit(small.X_train, small.y_train).evaluate(
        svm_status(small.X_train, small.y_train, gamma=1.0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.value = 0.5
    for a in _arrays(r):
        assert not _writeable_somewhere(a)
    assert isinstance(r.cluster_sizes, tuple)
    with pytest.raises(TypeError, match="read-only"):
        r.costs["tdc"] = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.costs["tdc"].mul = 0.0


def test_a_writeable_array_given_to_a_result_is_copied_not_frozen_in_place():
    from buviz.uncertainty.proposal2 import PairValues

    mine = np.arange(3.0)
    pv = PairValues(*([mine] * 7))
    assert mine.flags.writeable and not pv.values.flags.writeable
    mine[0] = 42.0
    assert pv.values[0] == 0.0


def test_the_callers_scores_are_not_frozen_in_place(two_sizes):
    small, _ = two_sizes
    bu = BoundaryUncertainty(M=10).fit(small.X_train, small.y_train)
    g = svm_status(small.X_train, small.y_train, gamma=1.0)(bu.X_tilde_)
    r = bu.evaluate(lambda X: g)  # a callable returning an array its caller keeps
    assert g.flags.writeable and not r.g_tilde.flags.writeable
    g[:] = 0.0
    assert np.any(r.g_tilde != 0.0)


def test_selection_result_is_a_value(two_sizes):
    import pickle

    from sklearn.svm import SVC

    from buviz.model_selection import select_by_uncertainty

    small, _ = two_sizes
    res = select_by_uncertainty(SVC(), {"gamma": [0.5, 2.0]}, small.X_train, small.y_train, M=10)
    for name in ("best_params_", "table", "best_score_"):
        with pytest.raises(AttributeError, match="value"):
            setattr(res, name, None)
    with pytest.raises(AttributeError, match="value"):
        del res.table
    with pytest.raises(TypeError, match="read-only"):
        res.best_params_["gamma"] = 99.0
    U = res.table["U"].to_numpy().copy()
    table = res.table
    table.loc[:, "U"] = -1.0  # writing into the table handed out changes nothing of the result
    table["params"].iloc[0]["gamma"] = 99.0  # nor into one of its parameter dicts
    np.testing.assert_array_equal(res.table["U"].to_numpy(), U)
    assert res.table["params"].iloc[0]["gamma"] == 0.5
    assert res.best_score_ == U[res.best_index_]
    assert pickle.loads(pickle.dumps(res)).best_params_ == res.best_params_


def test_discrete_and_extrapolation_results_are_values():
    from buviz import discrete
    from buviz import extrapolation as ex

    m = discrete.moments(discrete.cell_values("loo", 8, 8), 8, 2, np.array([0.2, 0.4]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.S = None
    assert not any(a.flags.writeable for a in _arrays(m))
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(6), 5)
    margins = rng.normal(size=(30, 6)) + 2.0 * np.eye(6)[y]
    fit = ex.fit_extrapolator(margins, y, "moment")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.k1 = 3
    assert not any(a.flags.writeable for a in _arrays(fit))
    with pytest.raises(TypeError, match="read-only"):
        fit.details["fit"] = None
    assert pickle_roundtrip(fit).accuracy(12) == fit.accuracy(12)


def pickle_roundtrip(obj):
    import pickle

    return pickle.loads(pickle.dumps(obj))


def test_an_unpickled_estimator_keeps_its_arrays_read_only_and_its_results_view_them(two_sizes):
    import pickle

    small, _ = two_sizes
    bu = pickle.loads(pickle.dumps(BoundaryUncertainty(M=10).fit(small.X_train, small.y_train)))
    assert not any(bu.__dict__[n].flags.writeable for n in ("X_", "y_", "X_tilde_", "neighbours_"))
    r = bu.evaluate(svm_status(small.X_train, small.y_train, gamma=1.0))
    assert r.X is bu.X_ and r.neighbours is bu.neighbours_  # no copy per status


def test_a_discriminant_with_its_own_function_or_an_uncopyable_classifier_is_kept(two_sizes):
    """frozen() copies only what it can read the same way: a function put in place of the estimator's
    reading (the shared k-NN search of select_by_uncertainty) is kept as it is, and a classifier that
    cannot be deep-copied is kept with a warning, the result's numbers unchanged."""
    import threading

    from sklearn.svm import SVC

    from buviz.classifiers import as_discriminant

    small, _ = two_sizes
    clf = SVC(gamma=1.0).fit(small.X_train, small.y_train)
    d = as_discriminant(clf)
    d.func = lambda X: np.column_stack([-X[:, 0], X[:, 0]])
    assert d.frozen() is d

    class LockedSVC(SVC):
        def fit(self, X, y):
            self.lock_ = threading.Lock()
            return super().fit(X, y)

    locked = LockedSVC(gamma=1.0).fit(small.X_train, small.y_train)
    bu = BoundaryUncertainty(M=10, random_state=0).fit(small.X_train, small.y_train)
    with pytest.warns(UserWarning, match="cannot be copied"):
        r = bu.evaluate(locked)
    assert r.value == pytest.approx(bu.evaluate(clf).value, abs=1e-12) and r.discriminant.estimator is locked
