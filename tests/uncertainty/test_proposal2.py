import numpy as np
import pytest
from scipy.stats import norm
from sklearn.exceptions import NotFittedError

from buviz import classifiers, datasets
from buviz.classifiers import as_discriminant, svm_status
from buviz.uncertainty import BoundaryUncertainty, KRangeWarning, silverman_bandwidth


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
    if w / (norm.pdf(0) * N) < bu.weight_tol:  # ω = w / (φ(0)|B̂*|): the scale-free "w = 0" of eq 39
        err = np.mean(np.argmax(g, 1) != y)
        return (1.0 if err == 0 else 0.0), h, k0, k1
    return float(np.sum(k / w * U)), h, k0, k1


@pytest.fixture(scope="module")
def gmm_bu():
    ds = datasets.load("gmm", n_train=500, n_test=2000, random_state=1)
    return ds, BoundaryUncertainty(M=20, separability="threshold", random_state=0).fit(ds.X_train, ds.y_train)


@pytest.mark.parametrize("gamma", [2.0**-10, 2.0**-6, 1.0, 2.0**6, 2.0**10])
def test_vectorised_equals_sample_by_sample_reference(gmm_bu, gamma):
    ds, bu = gmm_bu
    d = svm_status(ds.X_train, ds.y_train, gamma)
    r = bu.evaluate(d)
    value, h, k0, k1 = reference_proposal2(bu, d)
    np.testing.assert_allclose(r.bandwidth, h, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.k_i, k0, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(r.k_j, k1, rtol=1e-10, atol=1e-14)
    assert r.value == pytest.approx(value, abs=1e-12)


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
    bu = BoundaryUncertainty(M=40, separability="threshold", random_state=0).fit(X, y)
    r = bu.evaluate(linear(0.0))
    assert r.value > 0.99
    assert np.all(r.posterior[r.k > 0] == pytest.approx(0.5))


def reference_proposal2_multiclass(bu, g_func, prototypes, tol):
    """Eq 25-40 for J ≥ 3, transcribed sample by sample from the paper (§4.4-4.5), independent of the
    package: neighbourhoods by brute-force distances, Î* from the prototype classifier's discriminants
    g_j(x) = −min_k ||x − p_j^k|| (eq 35), the classifier's pair {i(x;Λ), j(x;Λ)} at the training
    sample x, F at the perturbed neighbours x̃' (eq 27), eq 36-39 per pair, eq 40."""
    X, y, Xt = bu.X_, bu.y_, bu.X_tilde_
    N, M = len(X), bu.M
    J = len(prototypes)
    phi0 = norm.pdf(0)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    G, Gt = g_func(X), g_func(Xt)  # g(x; Λ) on T and on T̃
    pairs_true, pairs_cls, local, kk = [], [], np.zeros(N), np.zeros(N)
    for n in range(N):
        order = np.argsort(D[n], kind="stable")
        order = [n] + [m for m in order if m != n][: M - 1]  # x and its M − 1 nearest neighbours
        pbc = [-min(np.linalg.norm(X[n] - p) for p in prototypes[j]) for j in range(J)]
        top_true = sorted(sorted(range(J), key=lambda j: -pbc[j])[:2])
        i, j = sorted(sorted(range(J), key=lambda c: -G[n, c])[:2])
        pairs_true.append(tuple(top_true))
        pairs_cls.append((i, j))
        F = np.array([Gt[m, i] - Gt[m, j] for m in order])
        sd = np.std(F, ddof=1)
        q75, q25 = np.percentile(F, [75, 25])
        s = min(sd, (q75 - q25) / 1.34)
        h = 0.9 * (s if s > 0 else sd) * M ** -0.2
        ki = sum(norm.pdf(-F[a] / h) for a, m in enumerate(order) if y[m] == i) if h > 0 else 0.0
        kj = sum(norm.pdf(-F[a] / h) for a, m in enumerate(order) if y[m] == j) if h > 0 else 0.0
        kk[n] = ki + kj
        P = ki / kk[n] if kk[n] > 0 else 0.0
        local[n] = 1 - abs(2 * P - 1)
    value = 0.0
    for kl in sorted(set(pairs_true)):
        B = [n for n in range(N) if pairs_true[n] == kl]
        w = sum(kk[n] for n in B)
        if w / (phi0 * len(B)) < tol:
            err = np.mean([np.argmax(Gt[n]) != y[n] for n in B])
            u = 1.0 if err == 0 else 0.0
        else:
            u = sum(kk[n] / w * (local[n] if pairs_cls[n] == kl else 0.0) for n in B)
        value += len(B) / N * u
    return value, pairs_true, pairs_cls


@pytest.mark.parametrize("source", ["svc_small_gamma", "svc", "bayes"])
def test_three_class_equals_sample_by_sample_reference(source):
    ds = datasets.load("gmm3", n_train=240, n_test=0, random_state=4)
    bu = BoundaryUncertainty(M=12, separability="threshold", K=3, random_state=2).fit(ds.X_train, ds.y_train)
    if source == "bayes":
        d = as_discriminant(ds.model.log_joint, n_classes=3)
    else:
        d = svm_status(ds.X_train, ds.y_train, 2.0**-7 if source == "svc_small_gamma" else 2.0)
    r = bu.evaluate(d)
    value, pairs_true, pairs_cls = reference_proposal2_multiclass(
        bu, d, bu.true_pairs_.classifier.prototypes_, bu.weight_tol)
    est = [bu.true_pairs_.pairs[p] for p in r.true_pair_index]
    assert est == pairs_true  # pair source: Î* from the prototype classifier
    assert list(zip(r.pair_i.tolist(), r.pair_j.tolist(), strict=True)) == pairs_cls  # classifier pair at x
    np.testing.assert_array_equal(r.pair_match, [a == b for a, b in zip(pairs_true, pairs_cls, strict=True)])
    assert len(set(pairs_true)) >= 2
    assert r.value == pytest.approx(value, abs=1e-12)


def test_true_pairs_keep_K_below_class_size_with_finite_aic():
    """On ``wine`` (a class of 33 training samples) K = 33 used to win with a zero variance."""
    ds = datasets.load("wine", random_state=0)
    tp = BoundaryUncertainty(M=20, random_state=0).fit(ds.X_train, ds.y_train).true_pairs_
    counts = np.bincount(ds.y_train)
    assert np.all(tp.n_prototypes < counts)
    for j, table in tp.aic.items():
        assert max(table) < counts[j] and np.all(np.isfinite(list(table.values())))
    # a class of identical points: no K has a finite AIC but K = 1 is the fallback
    X = np.vstack([np.zeros((20, 2)), np.random.default_rng(0).normal(size=(60, 2)) + 4])
    y = np.r_[np.zeros(20, int), np.ones(30, int), np.full(30, 2)]
    tp = BoundaryUncertainty(M=10, random_state=0).fit(X, y).true_pairs_
    assert tp.n_prototypes[0] == 1 and tp.aic[0] == {}
    assert all(np.isfinite(v) for j in (1, 2) for v in tp.aic[j].values())


@pytest.mark.parametrize("N", [300, 2000])
def test_zero_error_svc_in_the_empty_band_is_case1_at_any_size(N):
    """Fig 5 Case 1: a boundary in the empty band with no error on T̃ gets U_max, at N = 300 as at
    N = 2000 (the rule that decides "w_kl = 0" is scale-free)."""
    ds = datasets.load("gmm_separable", n_train=N, n_test=0, random_state=0)
    bu = BoundaryUncertainty(M=40, separability="threshold", random_state=0).fit(ds.X_train, ds.y_train)
    for gamma in (2.0**-4, 1.0, 4.0):
        r = bu.evaluate(svm_status(ds.X_train, ds.y_train, gamma))
        assert r.pair_error_tilde[0] == 0
        assert not r.pair_weighted[0] and r.value == 1.0, (gamma, r.pair_weight_share)


def test_separability_cases_of_fig5():
    ds = datasets.load("gmm_separable", n_train=1000, n_test=0, random_state=0)
    bu = BoundaryUncertainty(M=40, separability="threshold", random_state=0).fit(ds.X_train, ds.y_train)
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
    bu = BoundaryUncertainty(M=10, separability="threshold", random_state=0).fit(X, y)
    assert np.all(bu.nn_distance_[:60] == 0)
    np.testing.assert_array_equal(bu.X_tilde_[:60], 0.0)  # duplicates are not moved
    assert np.all(bu.neighbours_[:, 0] == np.arange(len(X)))
    r = bu.evaluate(linear(0.0))
    assert np.all(r.bandwidth[:60] == 0) and np.all(r.k[:60] == 0)
    value, h, k0, k1 = reference_proposal2(bu, linear(0.0))  # h = 0 rows handled as §4.4.2 says
    np.testing.assert_allclose(r.bandwidth, h, rtol=1e-12, atol=1e-14)
    assert r.value == pytest.approx(value, abs=1e-12)
    assert np.all(silverman_bandwidth(np.ones((3, 5))) == 0)


def test_multiclass_true_pairs_on_three_class_mixture():
    ds = datasets.load("gmm3", n_train=2000, n_test=0, random_state=0)
    bu = BoundaryUncertainty(M=40, separability="threshold", random_state=0).fit(ds.X_train, ds.y_train)
    tp = bu.true_pairs_
    i, j = classifiers.top2(ds.model.posterior(ds.X_train))
    exact_pairs, exact_counts = np.unique(np.column_stack([i, j]), axis=0, return_counts=True)
    assert tp.pairs == tuple(tuple(p) for p in exact_pairs.tolist())
    np.testing.assert_allclose(tp.pair_probabilities, exact_counts / len(i), atol=0.08)
    est = np.asarray(tp.pairs)[tp.pair_index]
    assert np.mean((est[:, 0] == i) & (est[:, 1] == j)) > 0.75
    # the Bayes classifier's own pairs match the estimate where the estimate is right
    bayes = as_discriminant(ds.model.log_joint, n_classes=3)
    r = bu.evaluate(bayes)
    assert r.pair_match.mean() > 0.75


def test_fixed_K_and_aic_forms():
    ds = datasets.load("gmm3", n_train=400, n_test=0, random_state=0)
    for K in (3, [1, 2, 3]):
        bu = BoundaryUncertainty(M=20, K=K).fit(ds.X_train, ds.y_train)
        np.testing.assert_array_equal(bu.true_pairs_.n_prototypes, np.broadcast_to(K, 3))
    with pytest.warns(KRangeWarning, match="largest candidate"):  # AIC still rises at K = 5 on this set
        bu = BoundaryUncertainty(M=20, aic_form="isotropic", K_range=(1, 3, 5)).fit(ds.X_train, ds.y_train)
    assert set(bu.true_pairs_.aic[0]) == {1, 3, 5}
    assert bu.true_pairs_.K_at_bound.all()


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
    r = bu.evaluate(d, train_scores=True)
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
    (dict(M=1), None, "M must be an integer >= 2, got 1"),
    (dict(M=10_000), None, "M must be <= "),
    (dict(K=0), "3class", "K must be .*an integer >= 1.*got 0"),
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
    with pytest.raises(NotFittedError, match="fit"):
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
    r = bu.evaluate(d, train_scores=True)
    same = r.covariate_shift(r.f_train)
    assert same["f(T)"] == 0.0 and 0 < same["f(T̃)"] < 1
    g = d(ds.X_test)
    shift = r.covariate_shift(classifiers.near_boundaryness(g, *classifiers.top2(g)))
    # an overfitted status: f on T sits far from f on test data, T̃ brings it closer (Fig 10)
    assert shift["f(T̃)"] < shift["f(T)"]
    with pytest.raises(ValueError, match="f_test"):
        r.covariate_shift([])


def test_evaluate_checks_what_set_params_changed_after_fit(gmm_bu):
    from buviz._validation import InvalidParameterError

    ds, bu = gmm_bu
    fitted = bu.with_perturbation(bu.perturbation)  # a fitted copy, so the shared fixture stays as it is
    fitted.set_params(pair_at="y")
    with pytest.raises(InvalidParameterError, match="pair_at"):
        fitted.evaluate(svm_status(ds.X_train, ds.y_train, 1.0))
