"""svc_decision_function: an SVC's decision function by matrix products, against scikit-learn's own."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.svm import SVC, NuSVC

from buviz.classifiers import as_discriminant, svc_decision_function


def _data(n_classes, d, n=400, shift=0.0, seed=0):
    X, y = make_classification(n, n_features=d, n_informative=min(d, 5 if n_classes < 26 else 6), n_redundant=0,
                               n_classes=n_classes, n_clusters_per_class=1, random_state=seed)
    X = (X - X.mean(0)) / X.std(0) + shift
    query = np.random.default_rng(seed + 1).normal(scale=1.5, size=(150, d)) + shift
    return X, y, np.vstack([X, query])  # the training points (as Û queries them) and fresh points


CASES = [  # (classes, features, SVC parameters)
    (2, 2, {}),
    (2, 8, {"gamma": 4.0, "C": 10.0}),
    (3, 2, {"gamma": 2.0**-8}),
    (3, 8, {"gamma": "scale", "C": 0.3}),
    (3, 57, {"gamma": 0.25}),
    (3, 8, {"gamma": "auto", "break_ties": True}),
    (3, 8, {"gamma": 1.0, "decision_function_shape": "ovo"}),
    (26, 8, {"gamma": "scale", "C": 3.0}),
    (26, 16, {"gamma": 0.5, "decision_function_shape": "ovo"}),
    (3, 8, {"kernel": "linear", "C": 0.5}),
    (3, 8, {"kernel": "poly", "degree": 3, "gamma": 0.1, "coef0": 1.0}),
    (2, 8, {"kernel": "sigmoid", "gamma": 0.01, "coef0": 0.5}),
]


@pytest.mark.parametrize(("n_classes", "d", "params"), CASES)
def test_equals_scikit_learns_decision_function(n_classes, d, params):
    X, y, query = _data(n_classes, d, n=520 if n_classes == 26 else 400)
    svc = SVC(**params).fit(X, y)
    expected = svc.decision_function(query)
    got = svc_decision_function(svc, query)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)
    if params.get("decision_function_shape", "ovr") == "ovr":
        assert got.shape == ((len(query),) if n_classes == 2 else (len(query), n_classes))
    else:
        assert got.shape == (len(query), n_classes * (n_classes - 1) // 2)


@pytest.mark.parametrize("gamma", [2.0**10, 2.0**30])
@pytest.mark.parametrize("shift", [0.0, 100.0])
def test_exact_for_very_narrow_kernels_and_far_from_the_origin(gamma, shift):
    """Where ||x||² + ||s||² − 2 x·s cancels (x = s, large γ, data far from 0) the entries are
    recomputed from x − s: K(x, x) stays 1 at the training points."""
    X, y, query = _data(3, 8, shift=shift)
    svc = SVC(gamma=gamma).fit(X, y)
    np.testing.assert_allclose(svc_decision_function(svc, query), svc.decision_function(query), rtol=0, atol=1e-10)


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_chunks_give_the_same_values(monkeypatch, kernel):
    """One kernel buffer serves every chunk, the last one (550 = 34 · 16 + 6 rows) shorter."""
    from buviz import classifiers

    X, y, query = _data(3, 8)
    svc = SVC(kernel=kernel).fit(X, y)
    whole = svc_decision_function(svc, query)
    monkeypatch.setattr(classifiers, "_KERNEL_CHUNK", 100)  # 16 rows per chunk
    chunked = svc_decision_function(svc, query)
    np.testing.assert_allclose(chunked, whole, rtol=0, atol=1e-13)
    np.testing.assert_allclose(chunked, svc.decision_function(query), rtol=0, atol=1e-10)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_nu_svc(n_classes):
    X, y, query = _data(n_classes, 8)
    for kernel in ("rbf", "linear"):
        nu = NuSVC(kernel=kernel, nu=0.3).fit(X, y)
        expected = nu.decision_function(query)
        # ν-SVC's dual coefficients are not bounded by C (here up to ~10³ for the linear kernel):
        # both computations round at the size of sum |α| |K|, so compare at that scale
        scale = np.abs(nu.dual_coef_).sum() * np.abs(query).max() ** 2 * query.shape[1] if kernel == "linear" else 1.0
        np.testing.assert_allclose(svc_decision_function(nu, query), expected, rtol=0, atol=1e-12 * max(scale, 1.0))


def test_falls_back_to_the_estimator_for_everything_else():
    X, y, query = _data(3, 4)
    # sparse data: scikit-learn's own path (its error for a sparse query of a dense fit, its values
    # for a sparse fit)
    svc = SVC().fit(X, y)
    with pytest.raises(ValueError, match="sparse"):
        svc_decision_function(svc, sp.csr_matrix(query))
    sparse_fit = SVC().fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(svc_decision_function(sparse_fit, query), sparse_fit.decision_function(query))
    # precomputed and callable kernels
    pre = SVC(kernel="precomputed").fit(X @ X.T, y)
    np.testing.assert_allclose(svc_decision_function(pre, query @ X.T), pre.decision_function(query @ X.T))
    call = SVC(kernel=lambda a, b: a @ b.T).fit(X, y)
    np.testing.assert_allclose(svc_decision_function(call, query), call.decision_function(query))

    class Shifted(SVC):  # a subclass may redefine its decision function: it is asked, not bypassed
        def decision_function(self, X):
            return super().decision_function(X) + 1.0

    sub = Shifted().fit(X, y)
    np.testing.assert_allclose(svc_decision_function(sub, query), svc.decision_function(query) + 1.0)
    # scikit-learn's own input errors
    bad = query.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        svc_decision_function(svc, bad)
    with pytest.raises(ValueError, match="features"):
        svc_decision_function(svc, query[:, :3])


def test_as_discriminant_reads_an_svc_by_matrix_products(monkeypatch):
    X, y, query = _data(3, 8)
    svc = SVC(gamma=0.5).fit(X, y)
    expected = svc.decision_function(query)

    def refuse(X):
        raise AssertionError("libsvm's decision_function was called")

    monkeypatch.setattr(svc, "decision_function", refuse)  # the adapter must not need it
    g = as_discriminant(svc)(query)
    np.testing.assert_allclose(g, expected, rtol=0, atol=1e-10)
    binary = SVC().fit(X, (y > 0).astype(int))
    s = binary.decision_function(query)
    np.testing.assert_allclose(as_discriminant(binary)(query), np.column_stack([-s, s]), rtol=0, atol=1e-10)


def test_selection_by_uncertainty_is_unchanged(monkeypatch):
    import warnings

    from buviz import classifiers
    from buviz.model_selection import select_by_uncertainty

    X, y, _ = _data(3, 6, n=400)
    grid = {"gamma": [2.0**e for e in range(-6, 5, 2)]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = select_by_uncertainty(SVC(), grid, X, y, M=20)
        monkeypatch.setattr(classifiers, "_blas_ready", lambda est, X: False)  # libsvm for every g
        plain = select_by_uncertainty(SVC(), grid, X, y, M=20)
    assert fast.best_index_ == plain.best_index_
    for col in ("U", "error_tilde", "error_train"):
        np.testing.assert_allclose(fast.table[col], plain.table[col], rtol=0, atol=1e-9)
    assert len(set(np.round(plain.table["U"], 6))) > 3  # the grid discriminates
