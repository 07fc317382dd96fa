"""Accuracy extrapolation through D̄(u): exact formulas, estimators, ground truth, bad input."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import quad
from sklearn.exceptions import NotFittedError

from buviz import extrapolation as ex
from buviz._validation import InvalidParameterError
from buviz.extrapolation import _kde

# ---------------------------------------------------------------------------------------- toy model


@pytest.mark.parametrize("rho", [0.3, 0.5, 0.7, 0.9])
def test_toy_average_risk_matches_monte_carlo_of_bayes_rule(rho):
    ks = np.arange(2, 11)
    exact = ex.toy_average_risk(ks, rho)
    mc = ex.toy_monte_carlo(ks, rho, n=100_000, random_state=12345 + int(rho * 10))
    z = (exact - mc["risk"].to_numpy()) / mc["se"].to_numpy()
    assert np.all(np.abs(z) < 3), z
    assert np.all(np.diff(exact) > 0)                      # more classes, more risk


def test_toy_rho_zero_is_chance():
    ks = np.arange(2, 11)
    np.testing.assert_allclose(ex.toy_average_accuracy(ks, 0.0), 1.0 / ks)
    np.testing.assert_allclose(ex.toy_dbar(np.linspace(0, 1, 5), 0.0), np.linspace(0, 1, 5))
    # the exact small-ρ limit is continuous at 0
    np.testing.assert_allclose(ex.toy_average_accuracy(ks, 0.02), 1.0 / ks, atol=0.01)


def test_printed_formula_is_the_two_class_error():
    rng = np.random.default_rng(1)
    rho, x, y = 0.7, 0.4, 1.1
    Y = rng.standard_normal(400_000)
    correct = np.abs(rho * Y - x) > np.abs(rho * y - x)
    p_hat, se = correct.mean(), correct.std() / np.sqrt(len(Y))
    assert abs(ex.toy_conditional_accuracy(x, y, rho) - p_hat) < 4 * se
    assert abs(1 - ex.toy_printed_error(x, y, rho) - p_hat) < 4 * se
    # U is highest near x = ρ y (the text's description), the printed one is lowest there
    assert ex.toy_conditional_accuracy(rho * 1.0, 1.0, rho) > ex.toy_conditional_accuracy(2.0, 1.0, rho)


def test_theorem_41_equals_moment_of_u_and_label_set_closed_form():
    rho = 0.7
    rng = np.random.default_rng(2)
    y = rng.standard_normal(300_000)
    x = rho * y + np.sqrt(1 - rho**2) * rng.standard_normal(300_000)
    U = ex.toy_conditional_accuracy(x, y, rho)
    for k in (2, 5, 10):
        v = U ** (k - 1)
        assert abs(ex.toy_average_accuracy(k, rho) - v.mean()) < 4 * v.std() / np.sqrt(len(v))
    ga = ex.toy_label_set_accuracy(rng.standard_normal((40_000, 4)), rho)
    assert abs((1 - ga.mean()) - ex.toy_average_risk(4, rho)) < 4 * ga.std() / np.sqrt(len(ga))


def test_toy_dbar_is_a_cdf_and_polynomial_error_shrinks():
    u = np.linspace(0, 1, 101)
    for rho in (0.3, 0.9):
        D = ex.toy_dbar(u, rho)
        assert D[0] == pytest.approx(0, abs=1e-9) and D[-1] == pytest.approx(1)
        assert np.all(np.diff(D) >= -1e-9)
    err = ex.toy_polynomial_error(0.7, range(1, 7), n_grid=150)["linf_error"].to_numpy()
    assert np.all(np.diff(err) <= 1e-9) and err[-1] < 0.01


# ---------------------------------------------------------------------------------------- eq 1-3


def test_eq3_equals_bruteforce_enumeration():
    rng = np.random.default_rng(0)
    k1, r2 = 7, 3
    labels = np.repeat(np.arange(k1), r2)
    margins = rng.normal(size=(k1 * r2, k1)) + 1.2 * np.eye(k1)[labels]
    ranks = ex.ranks_from_margins(margins, labels).reshape(k1, r2)
    ks = np.arange(2, k1 + 1)
    fast = ex.average_accuracy_from_ranks(ranks, ks)
    brute = [ex.average_accuracy_bruteforce(margins, labels, k) for k in ks]
    np.testing.assert_allclose(fast, brute, rtol=1e-12)
    assert fast[-1] == pytest.approx(ex.test_accuracy(ranks))                  # eq 1-2
    assert ex.test_accuracy(ranks) == pytest.approx(np.mean(margins.argmax(1) == labels))


def test_eq3_unbalanced_classes_and_random_ties():
    rng = np.random.default_rng(3)
    labels = np.array([0, 0, 0, 1, 2, 2, 3, 4, 4, 4])
    margins = rng.integers(0, 3, size=(10, 5)).astype(float)         # many ties
    brute = ex.average_accuracy_bruteforce(margins, labels, 3)
    r = ex.ranks_from_margins(margins, labels)
    assert ex.average_accuracy_from_ranks(r, 3, k1=5, groups=labels) == pytest.approx(brute)
    # random tie-breaking: averaged over many draws, the test accuracy (eq 3 at k = k1) is the chance
    # that the true label wins its tie, 1 / (1 + number of wrong labels tied with it at the top)
    true = margins[np.arange(10), labels]
    above = np.count_nonzero(margins > true[:, None], axis=1)
    tied = np.count_nonzero(margins == true[:, None], axis=1) - 1
    p_win = np.where(above == 0, 1.0 / (1 + tied), 0.0)
    oracle = np.mean([p_win[labels == c].mean() for c in range(5)])
    draws = [ex.average_accuracy_from_ranks(ex.ranks_from_margins(margins, labels, ties="random", random_state=s),
                                            5, k1=5, groups=labels) for s in range(1500)]
    assert abs(np.mean(draws) - oracle) < 4 * np.std(draws) / np.sqrt(len(draws)) + 1e-12


def test_eq3_overflow_safe_for_thousands_of_classes():
    rng = np.random.default_rng(0)
    k1 = 3000
    ranks = rng.integers(1, k1 + 1, size=(k1, 2))
    out = ex.average_accuracy_from_ranks(ranks, [2, 1500, 3000])
    assert np.all(np.isfinite(out))
    assert out[-1] == pytest.approx(np.mean(ranks == k1))
    # uniform ranks: E C(R-1,k-1)/C(k1-1,k-1) = 1/k
    assert out[0] == pytest.approx(0.5, abs=0.02)


# ---------------------------------------------------------------------------------------- moment method


@pytest.mark.parametrize("basis", ex.BASES)
def test_moment_closed_forms_equal_numerical_integrals(basis):
    m = {"linear_spline": 8, "polynomial": 4, "monotone": 8}[basis]
    ks = np.array([2, 3, 7, 20])
    H = ex.moment_matrix(basis, ks, m=m)
    params = ex._moment._knots(basis, m, "uniform")
    for a, k in enumerate(ks):
        for ell in range(H.shape[1]):
            def f(u, ell=ell, k=k):
                return (k - 1) * ex.basis_functions(basis, u, params)[0, ell] * u ** (k - 2)
            num, _ = quad(f, 0, 1, points=list(np.clip(params, 0, 1)) if basis != "polynomial" else None,
                          limit=200)
            assert H[a, ell] == pytest.approx(num, abs=1e-10)


def test_fit_recovers_known_dbar():
    ks = np.arange(2, 60)
    # polynomial: D̄(u) = u²  =>  AGA_k = 1 - (k-1)/(k+1)
    fit = ex.fit_dbar(ks, 1 - (ks - 1) / (ks + 1), basis="polynomial", m=3)
    np.testing.assert_allclose(fit.beta, [0, 1, 0], atol=1e-8)
    # linear spline, knots t = (l-1)/10: D̄ = 0.5 [u-0.2]_+ + 1.0 [u-0.6]_+
    beta = np.zeros(10)
    beta[[2, 6]] = [0.5, 1.0]
    H = ex.moment_matrix("linear_spline", ks, m=10)
    fit = ex.fit_dbar(ks, 1 - H @ beta, basis="linear_spline", m=10)
    u = np.linspace(0, 1, 51)
    np.testing.assert_allclose(fit.dbar(u), 0.5 * np.maximum(u - 0.2, 0) + np.maximum(u - 0.6, 0), atol=1e-6)
    np.testing.assert_allclose(fit.accuracy([100, 1000]), 1 - ex.moment_matrix("linear_spline", [100, 1000],
                                                                                m=10) @ beta, atol=1e-6)
    # monotone: D̄ = uniform CDF on [0.5, 1]  (two ramps of a 4-bin grid, weights 1/2 each)
    target = np.array([0, 0, 0.5, 0.5])
    Hm = ex.moment_matrix("monotone", ks, m=4)
    fit = ex.fit_dbar(ks, 1 - Hm @ target, basis="monotone", m=4)
    np.testing.assert_allclose(fit.dbar(u), np.clip((u - 0.5) / 0.5, 0, 1), atol=1e-5)
    assert fit.dbar(1.0)[0] == pytest.approx(1.0)


def test_fit_on_toy_accuracies_extrapolates():
    ks = np.arange(2, 21)
    acc = ex.toy_average_accuracy(ks, 0.5)
    fit = ex.fit_dbar(ks, acc, basis="polynomial", m=6)
    assert fit.accuracy(40) == pytest.approx(ex.toy_average_accuracy(40, 0.5), abs=0.01)
    u = np.linspace(0, 1, 41)
    assert np.max(np.abs(fit.dbar(u) - ex.toy_dbar(u, 0.5))) < 0.05


# ---------------------------------------------------------------------------------------- estimators


@pytest.fixture(scope="module")
def population_problem():
    pop = ex.make_population(1000, 10, rho=0.8, n_train=5, n_test=20, random_state=0)
    M, y = ex.population_margins(pop, "nearest_centroid")
    return M, y


def _subproblem(M, y, K, seed):
    rng = np.random.default_rng(seed)
    S = np.sort(rng.choice(M.shape[1], K, replace=False))
    sel = np.isin(y, S)
    remap = np.full(M.shape[1], -1)
    remap[S] = np.arange(K)
    return M[np.ix_(sel, S)], remap[y[sel]]


# |best - truth| at k = 400 from K = 20 measured by benchmarks/bench_extrapolation.py on this population
# (nearest centroid, rho = 0.8, 20 test points per class): subsample seeds 0..2 give |errors|
# 0.248, 0.007, 0.058. The 0.03 goal is NOT met reliably: a 20x extrapolation from 20 classes is
# dominated by which 20 classes were drawn. The bound only guards against regressions.
BEST_BOUND_400_FROM_20 = 0.30


@pytest.mark.slow
def test_extrapolation_400_from_20_against_ground_truth(population_problem):
    M, y = population_problem
    truth = ex.average_accuracy(M, y, 400)
    errors = {}
    for seed in range(3):
        Ms, ys = _subproblem(M, y, 20, seed)
        for method in ex.METHODS:
            errors.setdefault(method, []).append(ex.extrapolate(Ms, ys, 400, method=method,
                                                                random_state=seed) - truth)
    print({k: np.round(v, 3) for k, v in errors.items()})
    assert np.max(np.abs(errors["best"])) <= BEST_BOUND_400_FROM_20
    for v in errors.values():
        assert np.all(np.isfinite(v))


def test_extrapolate_api_shapes_and_observed_range(population_problem):
    M, y = population_problem
    Ms, ys = _subproblem(M, y, 40, 0)
    for method in ("moment", "kde", "classexreg"):
        fit = ex.fit_extrapolator(Ms, ys, method, n_boot=3)
        # within the observed range the regression fits track eq 3 (KDE is not fitted to it)
        if method != "kde":
            assert np.max(np.abs(fit.accuracy(fit.ks) - fit.observed)) < 0.02
        a = ex.extrapolate(Ms, ys, [100, 400], method=method, n_boot=3)
        assert a.shape == (2,) and a[0] >= a[1]
    assert isinstance(ex.extrapolate(Ms, ys, 100, method="moment"), float)


def test_classexreg_basis_against_closed_form_and_monte_carlo():
    from scipy.special import ndtr
    h, t_max = 0.3, 3.0
    X = ex.gaussian_basis([2, 10, 100, 1000], h, t_max)
    mus = ex._estimators._knot_means(h, t_max, False)
    assert X.shape == (4, len(mus) + 1)
    # k = 2: E Φ(Z) = Φ(t / sqrt(1 + h²)) (closed form)
    np.testing.assert_allclose(X[0, :-1], ndtr(mus / np.sqrt(1 + h**2)), atol=1e-5)
    # any k: Monte Carlo of E Φ(Z)^(k-1), Z ~ N(t, h²)
    z = np.random.default_rng(0).standard_normal(200_000)
    for a, k in enumerate([10, 100, 1000]):
        for j in (0, len(mus) // 2, len(mus) - 1):
            v = ndtr(mus[j] + h * z) ** (k - 1)
            assert abs(X[a + 1, j] - v.mean()) < 4 * v.std() / np.sqrt(len(v)) + 1e-4


def test_marginal_classifier_margins_are_columnwise():
    pop = ex.make_population(30, 4, rho=0.8, n_train=4, n_test=3, random_state=1)
    sub = ex.subsample_classes(pop, np.arange(10))
    for clf in ex.MARGINAL:
        full = ex.margin_matrix(clf, pop.X_train, pop.y_train, sub.X_test)
        part = ex.margin_matrix(clf, sub.X_train, sub.y_train, sub.X_test)
        np.testing.assert_allclose(full[:, :10], part, atol=1e-9)


# ---------------------------------------------------------------------------------------- bad input


def test_bad_input_raises_value_error_naming_parameter():
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(5), 2)
    M = rng.normal(size=(10, 5))
    ranks = ex.ranks_from_margins(M, labels).reshape(5, 2)
    with pytest.raises(ValueError, match="ks"):
        ex.average_accuracy_from_ranks(ranks, 1)                        # k < 2
    with pytest.raises(ValueError, match="ks"):
        ex.average_accuracy_from_ranks(ranks, 6)                        # k > k1
    with pytest.raises(ValueError, match="ks"):
        ex.average_accuracy_from_ranks(ranks, 2.5)                      # non-integer
    with pytest.raises(ValueError, match="ks"):
        ex.average_accuracy_from_ranks(ranks, [])
    with pytest.raises(ValueError, match="k_target"):
        ex.extrapolate(M, labels, 1, method="moment")
    with pytest.raises(ValueError, match="k_target"):
        ex.extrapolate(M, labels, 10.5, method="moment")
    with pytest.raises(ValueError, match="empty classes"):
        ex.extrapolate(M, np.array([0, 0, 1, 1, 2, 2, 3, 3, 3, 3]), 10)    # class 4 has no test point
    with pytest.raises(ValueError, match="method"):
        ex.extrapolate(M, labels, 10, method="nope")
    with pytest.raises(ValueError, match="labels"):
        ex.extrapolate(M, labels[:-1], 10)
    with pytest.raises(ValueError, match="margins"):
        ex.extrapolate(np.full((10, 5), np.nan), labels, 10)
    with pytest.raises(ValueError, match="rho"):
        ex.toy_average_risk([2, 3], 1.0)
    with pytest.raises(ValueError, match="ks"):
        ex.toy_average_risk([0, 3], 0.5)
    with pytest.raises(ValueError, match="basis"):
        ex.fit_dbar([2, 3], [0.5, 0.4], basis="spline")
    with pytest.raises(ValueError, match="accuracies"):
        ex.fit_dbar([2, 3], [0.5])
    with pytest.raises(ValueError, match="classifier"):
        ex.margin_matrix("tree", M, labels, M)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_probit_ml_recovers_a_probit_normal_model(seed):
    # U = Φ(Z), Z ~ N(2, 0.6²); wrong scores uniform(0, 1), true score = U, so the count of wrong labels
    # above the true one is Binomial(k1 - 1, 1 - U) exactly as the model assumes
    rng = np.random.default_rng(seed)
    n, k1, mu, s = 2000, 200, 2.0, 0.6
    U = ex._estimators.ndtr(mu + s * rng.standard_normal(n))
    M = rng.random((n, k1))
    y = np.arange(n) % k1
    M[np.arange(n), y] = U
    ext = ex.fit_extrapolator(M, y, "probit_ml")
    assert abs(ext.details["mu"] - mu) < 0.15 and abs(ext.details["s"] - s) < 0.1, ext.details
    z = mu + s * rng.standard_normal(400_000)
    for k in (1000, 4000):
        exact = np.mean(ex._estimators.ndtr(z) ** (k - 1))
        assert abs(ext.accuracy(k) - exact) < 0.03


def test_class_sampling_floor_of_400_from_20(population_problem):
    # Why |error| <= 0.03 at k=400 from K=20 cannot be guaranteed: even the mean of the *exact*
    # population accuracies at k=400 of the 20 drawn classes misses the truth by more than 0.03 for
    # some draws (measured: max over seeds 0..9 about 0.09).
    M, y = population_problem
    truth = ex.average_accuracy(M, y, 400)
    r = ex.ranks_from_margins(M, y)
    k1 = M.shape[1]
    per_class = np.array([ex.average_accuracy_from_ranks(r[y == c], 400, k1=k1) for c in range(k1)])
    assert abs(per_class.mean() - truth) < 1e-9
    floor = [per_class[np.sort(np.random.default_rng(s).choice(k1, 20, replace=False))].mean() - truth
             for s in range(10)]
    assert np.max(np.abs(floor)) > 0.03


# ---------------------------------------------------------------------------------------- the ClassEx peer


@pytest.fixture(scope="module")
def classex():
    """The ClassEx R package's predictions on its own 1-NN simulation (shipped with the package; see
    buviz/data/peers/README.md).

    Margins are minus the Euclidean distances, as in the peer's simulation script."""
    d = ex.load_classex_fixture()
    from scipy.spatial.distance import cdist
    d["margins"] = [-cdist(d["ys"][i], d["mu_hats"][i]) for i in range(len(d["sigma2"]))]
    return d


def test_classex_fixture_is_package_data_as_its_readme_describes(classex):
    """The fixture lives in the package (a wheel or a fresh clone has it; nothing is read from beside the
    repository), declared as package data, with the fields and peer scores its README states."""
    import tomllib

    import buviz
    from buviz.extrapolation._peers import CLASSEX_FIXTURE

    pkg = Path(buviz.__file__).resolve().parent
    assert CLASSEX_FIXTURE.is_relative_to(pkg) and CLASSEX_FIXTURE.is_file()
    data = tomllib.loads((pkg.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    rel = CLASSEX_FIXTURE.relative_to(pkg)
    assert any(rel.match(glob) for glob in data["buviz"])
    assert any(rel.with_name("README.md").match(glob) for glob in data["buviz"])
    assert classex["ys"].shape == classex["mu_hats"].shape == (30, 500, 10)
    assert classex["ys"].dtype == np.float64
    np.testing.assert_allclose(np.unique(classex["sigma2"]), np.arange(1, 11) * 0.05)
    assert int(classex["k_total"]) == 2000 and int(classex["k_observed"]) == 500
    np.testing.assert_array_equal(classex["ks_train"], 20 * np.arange(1, 26))
    readme = (CLASSEX_FIXTURE.parent / "README.md").read_text()
    for key, label in (("ClassExReg", "ClassExReg"), ("KDE_UCV", "KDE-UCV"), ("KDE_BCV", "KDE-BCV")):
        score = _max_rmse_over_sigma2(classex[key], classex["truth"], classex["sigma2"])
        assert f"{label} {score:.3f}" in readme, (label, score)


@pytest.mark.parametrize("bw,key", [("ucv", "KDE_UCV"), ("bcv", "KDE_BCV")])
def test_kde_reproduces_classex_predictions(classex, bw, key):
    y = np.arange(500)
    for i in (0, 13, 29):                        # sigma2 = 0.05, 0.25, 0.5
        pred = ex.extrapolate(classex["margins"][i], y, 2000, method="kde", bw=bw)
        assert abs(pred - classex[key][i]) < 1e-6, (i, pred, classex[key][i])


def test_classexreg_reproduces_classex_predictions(classex):
    y, ks = np.arange(500), classex["ks_train"]
    # the bootstrap draws differ from R's, so the selected width may differ; on these instances both
    # pick the same width and the predictions agree
    for i in (0, 6, 12):
        pred = ex.extrapolate(classex["margins"][i], y, 2000, method="classexreg", ks=ks, random_state=0)
        assert abs(pred - classex["ClassExReg"][i]) < 0.01
    # whatever R selected, one of our widths reproduces its prediction (same basis, knots, NNLS)
    for i in (3, 10, 14):
        per_h = [ex.extrapolate(classex["margins"][i], y, 2000, method="classexreg", ks=ks, bandwidths=(h,))
                 for h in ex._estimators.CLASSEXREG_BANDWIDTHS]
        assert np.min(np.abs(np.array(per_h) - classex["ClassExReg"][i])) < 1e-4


def _max_rmse_over_sigma2(pred, truth, sigma2):
    return max(np.sqrt(np.mean((pred[sigma2 == s] - truth[sigma2 == s]) ** 2)) for s in np.unique(sigma2))


@pytest.mark.slow
def test_best_beats_classex_on_fixture(classex):
    y, ks = np.arange(500), classex["ks_train"]
    pred = np.array([ex.extrapolate(M, y, 2000, method="best", ks=ks) for M in classex["margins"]])
    ours = _max_rmse_over_sigma2(pred, classex["truth"], classex["sigma2"])
    peer = _max_rmse_over_sigma2(classex["ClassExReg"], classex["truth"], classex["sigma2"])
    assert ours < peer, (ours, peer)


def test_binned_pair_counts_equal_brute_force():
    rng = np.random.default_rng(0)
    W = np.vstack([rng.normal(size=60), -rng.exponential(size=60), rng.normal(size=60) - 3.0])
    d, counts = _kde.binned_pair_counts(W, nb=50)
    for r in range(3):
        b = np.trunc(W[r] / d[r]).astype(int)
        lags = np.abs(b[:, None] - b[None, :])[np.triu_indices(60, 1)]
        np.testing.assert_array_equal(counts[r], np.bincount(lags, minlength=50)[:50])


@pytest.mark.parametrize("kind", ["ucv", "bcv"])
def test_cv_bandwidth_is_the_criterion_minimum(kind):
    # Brent's search against an exhaustive grid of the same binned criterion (unimodal for normal data)
    rng = np.random.default_rng(1)
    W = rng.normal(size=(4, 300)) * np.array([[1.0], [0.5], [2.0], [0.1]])
    h = _kde.cv_bandwidths(W, kind)
    d, counts = _kde.binned_pair_counts(W)
    hmax = 1.144 * W.std(axis=1, ddof=1) * 300 ** (-0.2)
    for r in range(4):
        grid = np.linspace(0.1 * hmax[r], hmax[r], 2000)
        crit = _kde._criterion(kind, grid, np.full(2000, d[r]), np.repeat(counts[r:r + 1], 2000, 0), 300)
        assert abs(h[r] - grid[np.argmin(crit)]) <= 0.011 * hmax[r]


def test_kde_favorability_against_direct_sum():
    rng = np.random.default_rng(2)
    M = rng.normal(size=(30, 8))
    y = np.arange(30) % 8
    a = ex.kde_favorability(M, y, bw=0.7)
    for i in range(30):
        wrong = np.delete(M[i], y[i])
        direct = np.mean([0.5 * (1 + math.erf((M[i, y[i]] - w) / (0.7 * math.sqrt(2)))) for w in wrong])
        assert a[i] == pytest.approx(direct, abs=1e-12)


def test_peers_benchmark_margins_are_minus_euclidean_distances():
    M, y = ex.peers_benchmark_margins(50, 0.2, random_state=3)
    M2, _ = ex.peers_benchmark_margins(50, 0.2, random_state=3, squared=True)
    np.testing.assert_allclose(M2, -(M**2), rtol=1e-10, atol=1e-10)
    assert np.all(M <= 0)


# ---------------------------------------------------------------------------------------- estimator object


def test_accuracy_extrapolator_is_a_scikit_learn_estimator():
    from sklearn.base import clone
    M, y = ex.peers_benchmark_margins(120, 0.2, random_state=0)
    est = ex.AccuracyExtrapolator(method="classexreg", n_boot=5, random_state=1)
    assert est.get_params()["method"] == "classexreg"
    est2 = clone(est).set_params(method="kde")
    assert est2.method == "kde" and est.method == "classexreg"
    est.fit(M, y)
    assert est.predict(1000) == pytest.approx(ex.extrapolate(M, y, 1000, method="classexreg", n_boot=5,
                                                             random_state=1))
    np.testing.assert_array_equal(est.ks_, ex.default_ks(120))
    np.testing.assert_allclose(est.observed_accuracy_, ex.average_accuracy(M, y, est.ks_))


@pytest.mark.parametrize("method", ["moment", "classexreg", "kde", "best"])
def test_dbar_integrates_to_the_predictions(method):
    # Theorem 4.1 in Stieltjes form: AGA_k = ∫ u^(k-1) dD̄(u) = D̄(1) - (k-1) ∫_0^1 D̄(u) u^(k-2) du,
    # checked by numerical quadrature of the fitted D̄ (an oracle independent of the predict code)
    M, y = ex.peers_benchmark_margins(150, 0.25, random_state=4)
    est = ex.AccuracyExtrapolator(method=method, n_boot=5).fit(M, y)
    u = np.unique(np.concatenate([np.linspace(0, 0.99, 2000), 1 - np.geomspace(0.01, 1e-12, 60_000)]))
    D = est.dbar_(u)
    total = est.dbar_(np.array([1.0]))[0] if method != "moment" else 1.0
    for k in (150, 1500):
        integral = np.trapezoid(D * (k - 1) * u ** (k - 2), u)
        assert total - integral == pytest.approx(est.predict(k), abs=2e-3)


def test_bad_input_raises_value_error_naming_the_parameter():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(10, 5))
    y = np.repeat(np.arange(5), 2)
    est = ex.AccuracyExtrapolator(method="kde")
    with pytest.raises(NotFittedError, match="not fitted"):
        est.predict(10)
    with pytest.raises(NotFittedError, match="not fitted"):
        est.predict_curve([2, 3])
    with pytest.raises(ValueError, match="margins"):
        est.fit(M[0], y)                                                  # 1-D margins
    with pytest.raises(ValueError, match="labels"):
        est.fit(M, y[:-1])                                                # wrong length
    with pytest.raises(ValueError, match="labels"):
        est.fit(M, y.reshape(5, 2))                                       # 2-D labels
    bad = M.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="margins"):
        est.fit(bad, y)                                                   # NaN margin
    with pytest.raises(ValueError, match="margins"):
        est.fit(M[:, :1], np.zeros(10, dtype=int))                        # one class
    with pytest.raises(InvalidParameterError, match="method"):
        ex.AccuracyExtrapolator(method="nope").fit(M, y)
    with pytest.raises(InvalidParameterError, match="bw"):
        ex.AccuracyExtrapolator(method="kde", bw="iqr").fit(M, y)
    with pytest.raises(InvalidParameterError, match="bandwidths"):
        ex.AccuracyExtrapolator(method="classexreg", bandwidths=(0.5, -1.0)).fit(M, y)
    est.fit(M, y)
    with pytest.raises(ValueError, match="k must be at least the number of observed classes"):
        est.predict(4)                                                    # k below k1 = 5
    with pytest.raises(ValueError, match="k"):
        est.predict(7.5)
