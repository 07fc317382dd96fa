import numpy as np
import pytest
from scipy.stats import norm

from buviz import classifiers, datasets
from buviz.classifiers import as_discriminant, svm_status
from buviz.uncertainty import BoundaryUncertainty, silverman_bandwidth


def linear(c=0.0, scale=1.0, feature=0):
    """Discriminant of the line x_feature = c: class 0 left, class 1 right."""
    def g(X):
        s = scale * (X[:, feature] - c)
        return np.column_stack([-s, s])
    return as_discriminant(g, n_classes=2)


def reference_proposal2(bu, disc):
    """Sample-by-sample transcription of eq 26-40 (J = 2), to check the vectorised code."""
    y, Xt, nbr = bu.y_, bu.X_tilde_, bu.neighbours_
    g = disc(Xt)
    f = g[:, 0] - g[:, 1]
    N, M = nbr.shape
    h = np.zeros(N)
    k0 = np.zeros(N)
    k1 = np.zeros(N)
    for n in range(N):
        F = f[nbr[n]]
        sd = np.std(F, ddof=1)
        q75, q25 = np.percentile(F, [75, 25])
        s = min(sd, (q75 - q25) / 1.34)
        if s == 0:
            s = sd
        h[n] = 0.9 * s * M ** -0.2
        if h[n] == 0:
            continue
        for m in range(M):
            phi = norm.pdf((0 - F[m]) / h[n])
            if y[nbr[n, m]] == 0:
                k0[n] += phi
            else:
                k1[n] += phi
    k = k0 + k1
    P = np.array([k0[n] / k[n] if k[n] > 0 else 0.0 for n in range(N)])
    U = 1 - np.abs(2 * P - 1)
    w = k.sum()
    if w < bu.weight_tol:
        err = np.mean(np.argmax(g, 1) != y)
        return (1.0 if err == 0 else 0.0), h, k0, k1
    return float(np.sum(k / w * U)), h, k0, k1


@pytest.fixture(scope="module")
def gmm_bu():
    ds = datasets.load("gmm", n_train=500, n_test=2000, random_state=1)
    return ds, BoundaryUncertainty(M=20, random_state=0).fit(ds.X_train, ds.y_train)


@pytest.mark.parametrize("gamma", [2.0**-6, 1.0, 2.0**6])
def test_vectorised_equals_sample_by_sample_reference(gmm_bu, gamma):
    ds, bu = gmm_bu
    d = svm_status(ds.X_train, ds.y_train, gamma)
    r = bu.evaluate(d)
    value, h, k0, k1 = reference_proposal2(bu, d)
    np.testing.assert_allclose(r.bandwidth, h, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.k_i, k0, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(r.k_j, k1, rtol=1e-10, atol=1e-14)
    assert r.value == pytest.approx(value, abs=1e-12)


def test_value_in_unit_interval_and_weights_are_a_distribution(gmm_bu):
    ds, bu = gmm_bu
    for gamma in 2.0 ** np.arange(-10, 11, 4):
        r = bu.evaluate(svm_status(ds.X_train, ds.y_train, gamma))
        assert 0.0 <= r.value <= 1.0
        assert np.all((r.local_uncertainty >= 0) & (r.local_uncertainty <= 1))
        if r.pair_weighted[0]:
            assert r.near_boundary_weights.sum() == pytest.approx(1.0)
            assert r.value == pytest.approx(np.sum(r.near_boundary_weights * r.local_uncertainty))


def test_invariant_to_positive_scaling_and_common_shift(gmm_bu):
    ds, bu = gmm_bu
    d = svm_status(ds.X_train, ds.y_train, 1.0)
    base = bu.evaluate(d)
    moved = bu.evaluate(as_discriminant(lambda X: 7.5 * d(X) + 3.0, n_classes=2))
    assert moved.value == pytest.approx(base.value, abs=1e-12)
    np.testing.assert_allclose(moved.posterior, base.posterior, atol=1e-12)
    assert moved.value == pytest.approx(bu.evaluate(d.estimator).value, abs=1e-15)


def test_boundary_through_perfectly_mixed_labels_scores_one(rng):
    pts = rng.uniform(-1, 1, size=(300, 2))
    X = np.repeat(pts, 2, axis=0)  # every location once with each label
    y = np.tile([0, 1], 300)
    bu = BoundaryUncertainty(M=40, random_state=0).fit(X, y)
    r = bu.evaluate(linear(0.0))
    assert r.value > 0.99
    assert np.all(r.posterior[r.k > 0] == pytest.approx(0.5))


def test_separability_cases_of_fig5():
    ds = datasets.load("gmm_separable", n_train=1000, n_test=0, random_state=0)
    bu = BoundaryUncertainty(M=40, random_state=0).fit(ds.X_train, ds.y_train)
    left = ds.X_train[ds.y_train == 0, 0]
    # Case 1: B(Λ) in the empty band -> w = 0, no error on T̃ -> U_max
    r1 = bu.evaluate(linear(0.0))
    assert not r1.pair_weighted[0] and r1.value == 1.0
    # Case 2: B(Λ) crosses class 1's crowd -> pure-label neighbourhoods -> about U_min
    r2 = bu.evaluate(linear(float(np.median(left))))
    assert r2.pair_weighted[0] and r2.value < 0.1
    # Case 3: B(Λ) outside both crowds -> w = 0 but every class-1 sample misclassified -> U_min
    r3 = bu.evaluate(linear(float(left.min() - 1.0)))
    assert not r3.pair_weighted[0] and r3.value == 0.0 and r3.pair_error_tilde[0] > 0.4


def test_zero_bandwidth_and_duplicates(rng):
    X = np.vstack([np.zeros((60, 2)), rng.normal(size=(200, 2)) + 3])
    y = np.r_[np.tile([0, 1], 30), (rng.uniform(size=200) < 0.5).astype(int)]
    bu = BoundaryUncertainty(M=10, random_state=0).fit(X, y)
    assert np.all(bu.nn_distance_[:60] == 0)
    np.testing.assert_array_equal(bu.X_tilde_[:60], 0.0)  # duplicates are not moved
    assert np.all(bu.neighbours_[:, 0] == np.arange(len(X)))
    r = bu.evaluate(linear(0.0))
    assert np.all(r.bandwidth[:60] == 0) and np.all(r.k[:60] == 0)
    assert np.all(np.isfinite(r.posterior)) and 0 <= r.value <= 1
    assert np.all(silverman_bandwidth(np.ones((3, 5))) == 0)


def test_multiclass_true_pairs_on_three_class_mixture():
    ds = datasets.load("gmm3", n_train=2000, n_test=0, random_state=0)
    bu = BoundaryUncertainty(M=40, random_state=0).fit(ds.X_train, ds.y_train)
    tp = bu.true_pairs_
    i, j = classifiers.top2(ds.model.posterior(ds.X_train))
    exact_pairs, exact_counts = np.unique(np.column_stack([i, j]), axis=0, return_counts=True)
    assert tp.pairs == [tuple(p) for p in exact_pairs.tolist()]
    np.testing.assert_allclose(tp.pair_probabilities, exact_counts / len(i), atol=0.08)
    est = np.asarray(tp.pairs)[tp.pair_index]
    assert np.mean((est[:, 0] == i) & (est[:, 1] == j)) > 0.75
    # the Bayes classifier's own pairs match the estimate where the estimate is right
    bayes = as_discriminant(ds.model.log_joint, n_classes=3)
    r = bu.evaluate(bayes)
    assert 0 < r.value <= 1 and len(r.pair_values) == 3
    assert r.pair_probabilities.sum() == pytest.approx(1.0)
    assert r.pair_match.mean() > 0.75


def test_fixed_K_and_aic_forms():
    ds = datasets.load("gmm3", n_train=400, n_test=0, random_state=0)
    for K in (3, [1, 2, 3]):
        bu = BoundaryUncertainty(M=20, K=K).fit(ds.X_train, ds.y_train)
        np.testing.assert_array_equal(bu.true_pairs_.n_prototypes, np.broadcast_to(K, 3))
    bu = BoundaryUncertainty(M=20, aic_form="isotropic", K_range=(1, 3, 5)).fit(ds.X_train, ds.y_train)
    assert set(bu.true_pairs_.aic[0]) == {1, 3, 5}


def test_same_random_state_identical_results(gmm_bu):
    ds, _ = gmm_bu
    d = svm_status(ds.X_train, ds.y_train, 1.0)
    r = [BoundaryUncertainty(M=20, random_state=s).fit(ds.X_train, ds.y_train).evaluate(d) for s in (5, 5, 6)]
    assert r[0].value == r[1].value
    np.testing.assert_array_equal(r[0].k, r[1].k)
    assert r[0].value != r[2].value


def test_chunked_equals_unchunked(gmm_bu):
    ds, bu = gmm_bu
    d = svm_status(ds.X_train, ds.y_train, 4.0)
    whole = BoundaryUncertainty(M=20, chunk_size=10**9, n_jobs=1).fit(ds.X_train, ds.y_train).evaluate(d)
    pieces = BoundaryUncertainty(M=20, chunk_size=37, n_jobs=2).fit(ds.X_train, ds.y_train).evaluate(d)
    assert abs(whole.value - pieces.value) < 1e-12
    np.testing.assert_allclose(whole.k, pieces.k, rtol=1e-12)


def test_result_exposes_per_sample_arrays(gmm_bu):
    ds, bu = gmm_bu
    d = svm_status(ds.X_train, ds.y_train, 1.0)
    r = bu.evaluate(d)
    N = len(ds.X_train)
    for name in ("bandwidth", "k_i", "k_j", "k", "posterior", "local_uncertainty", "near_boundary_weights",
                 "f_tilde", "f_train", "pair_match"):
        assert getattr(r, name).shape == (N,), name
    assert r.F.shape == (N, 20)
    np.testing.assert_allclose(r.F[:, 0], r.f_tilde)  # column 0 is x itself
    g = d(ds.X_train)
    np.testing.assert_allclose(r.f_train, g[:, 0] - g[:, 1])
    view = r.sample_view(3)
    assert view["F"].shape == (20,) and view["neighbours"][0] == 3
    assert view["local_uncertainty"] == r.local_uncertainty[3]


@pytest.mark.parametrize("kwargs, fit_args, match", [
    (dict(M=1), None, "M must be >= 2"),
    (dict(M=10_000), None, "M must be <= "),
    (dict(K=0), "3class", "K must be >= 1"),
    (dict(K=10_000), "3class", "K must be <= "),
    (dict(K="bic"), "3class", "K must be"),
    (dict(perturbation=-1), None, "perturbation"),
    (dict(perturbation_mode="gaussian"), None, "perturbation_mode"),
])
def test_bad_parameters_raise(kwargs, fit_args, match):
    ds = datasets.load("gmm3" if fit_args else "gmm", 200, 0, random_state=0)
    with pytest.raises(ValueError, match=match):
        BoundaryUncertainty(**kwargs).fit(ds.X_train, ds.y_train)


def test_bad_data_raise(gmm_bu):
    ds, bu = gmm_bu
    X, y = ds.X_train.copy(), ds.y_train
    with pytest.raises(ValueError, match="at least 2 classes"):
        BoundaryUncertainty(M=5).fit(X, np.zeros(len(X)))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BoundaryUncertainty(M=5).fit(X, y)
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        BoundaryUncertainty(M=5).fit(X, y)
    with pytest.raises(ValueError, match="different lengths"):
        BoundaryUncertainty(M=5).fit(ds.X_train, y[:-1])
    with pytest.raises(ValueError, match="shape"):
        bu.evaluate(as_discriminant(lambda Z: np.zeros((len(Z), 3)), n_classes=2))
    with pytest.raises(ValueError, match="fit"):
        BoundaryUncertainty().evaluate(linear())


@pytest.mark.parametrize("name", ["gmm", "gmm3"])
def test_torch_backend_equals_numpy(name):
    pytest.importorskip("torch")
    ds = datasets.load(name, n_train=400, n_test=0, random_state=0)
    d = svm_status(ds.X_train, ds.y_train, 2.0)
    ref = BoundaryUncertainty(M=20, random_state=0).fit(ds.X_train, ds.y_train).evaluate(d)
    tb = BoundaryUncertainty(M=20, random_state=0, array_backend="torch", device="cpu", chunk_size=97)
    got = tb.fit(ds.X_train, ds.y_train).evaluate(d)
    assert abs(got.value - ref.value) < 1e-12
    np.testing.assert_allclose(got.k, ref.k, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(got.bandwidth, ref.bandwidth, rtol=1e-12)


def test_unknown_array_backend():
    ds = datasets.load("gmm", 100, 0, random_state=0)
    with pytest.raises(ValueError, match="array_backend"):
        BoundaryUncertainty(M=10, array_backend="jax").fit(ds.X_train, ds.y_train)


def test_covariate_shift_statistics(gmm_bu):
    ds, bu = gmm_bu
    d = svm_status(ds.X_train, ds.y_train, 2.0**6)
    r = bu.evaluate(d)
    same = r.covariate_shift(r.f_train)
    assert same["f(T)"] == 0.0 and 0 < same["f(T̃)"] < 1
    g = d(ds.X_test)
    shift = r.covariate_shift(classifiers.near_boundaryness(g, *classifiers.top2(g)))
    # an overfitted status: f on T sits far from f on test data, T̃ brings it closer (Fig 10)
    assert shift["f(T̃)"] < shift["f(T)"]
    with pytest.raises(ValueError, match="f_test"):
        r.covariate_shift([])
