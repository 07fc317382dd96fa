import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC

from buviz import datasets
from buviz._validation import InvalidParameterError
from buviz.classifiers import as_discriminant, boundary_score, svm_status, top2
from buviz.uncertainty import BoundaryUncertainty, Proposal1, binary_entropy

W = np.array([1.0, 2.0]) / np.sqrt(5.0)
C0 = 0.3


def linear_disc(w=W):
    """Discriminant of the hyperplane w·x = c: class 1 where w·x > c."""
    def g(X):
        s = X @ w - C0
        return np.column_stack([-s, s])
    return as_discriminant(g, n_classes=2)


@pytest.fixture(scope="module")
def linear_data():
    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, size=(600, 2))
    p = 1 / (1 + np.exp(-3 * (X @ W - C0)))  # class overlap around the line
    y = (rng.random(600) < p).astype(int)
    return X, y


@pytest.fixture(scope="module")
def gmm_svc():
    ds = datasets.load("gmm", n_train=500, n_test=100, random_state=0)
    return ds, svm_status(ds.X_train, ds.y_train, 1.0)


@pytest.fixture(scope="module")
def gmm_result(gmm_svc):
    ds, disc = gmm_svc
    p1 = Proposal1(random_state=0).fit(ds.X_train, ds.y_train)
    return p1, p1.evaluate(disc)


def reference_value(p1, r, prior_correction=True):
    """Eq 9-11 recomputed cluster by cluster from the result's partitions.

    With ``prior_correction`` each cluster posterior P̂(C_l | C) = n_l / |C| is divided by the
    class prior P̂_l = N_l / N (§4.4.4) and the pair is renormalised before the entropy.
    """
    N = len(p1.y_)
    prior = np.bincount(p1.y_, minlength=p1.n_classes_) / N
    values = []
    for run in range(p1.R_T):
        total, acc = 0, 0.0
        for members in r.clusters(run):
            pred = r.predicted[members]
            y = p1.y_[members]
            counts = np.bincount(pred, minlength=p1.n_classes_)
            i, j = sorted(np.argsort(-counts, kind="stable")[:2])
            n_i, n_j = np.sum(y == i), np.sum(y == j)
            if prior_correction:
                n_i, n_j = n_i / len(members) / prior[i], n_j / len(members) / prior[j]
            if n_i + n_j == 0:
                u = 0.0
            else:
                p = n_i / (n_i + n_j)
                u = 0.0 if p in (0, 1) else -(p * np.log(p) + (1 - p) * np.log(1 - p)) / np.log(2)
            acc += u * len(members)
            total += len(members)
        values.append(acc / total if total else 0.0)
    return float(np.mean(values))


def test_anchors_lie_on_the_svc_boundary(gmm_svc, gmm_result):
    ds, disc = gmm_svc
    p1, r = gmm_result
    assert r.anchor_valid.all()
    X = ds.X_train
    a, b = r.anchor_pairs.T
    f_pair = np.abs(boundary_score(disc, X[a])) + np.abs(boundary_score(disc, X[b]))
    f_anchor = np.abs(boundary_score(disc, r.anchors))
    # i_max = 20 halvings: the final bracket and |f| shrink by ~2^-20 relative to the pair.
    assert np.all(f_anchor <= 1e-3 * f_pair)
    assert np.all(f_anchor <= np.abs(r.f_bracket).max(1) + 1e-12)
    width = np.linalg.norm(r.bracket_b - r.bracket_a, axis=1)
    assert np.all(width <= np.linalg.norm(X[a] - X[b], axis=1) * 2.0 ** -p1.i_max * (1 + 1e-9))
    # sign change across each anchor: the bracket ends are predicted k and l, f_kl >= 0 >= f_kl
    k, l = r.anchor_classes.T
    assert np.array_equal(disc.predict(r.bracket_a), k)
    assert np.array_equal(disc.predict(r.bracket_b), l)
    assert np.all(r.f_bracket[:, 0] >= 0) and np.all(r.f_bracket[:, 1] <= 0)
    assert np.all(k != l)
    # the segment ends straddle B(Λ)
    assert np.all(r.predicted[a] != r.predicted[b])


def test_batched_dichotomy_calls_the_classifier_i_max_plus_one_times(gmm_svc, gmm_result):
    ds, _ = gmm_svc
    p1, r = gmm_result
    N = len(ds.X_train)
    assert r.classifier_calls == p1.i_max + 1
    assert r.classified_samples == N + p1.R_A_ * p1.i_max
    assert p1.R_A_ == N and len(r.anchors) == N


def test_linear_discriminant_anchors_on_the_known_line(linear_data):
    X, y = linear_data
    disc = linear_disc()
    p1 = Proposal1(R_A=300, random_state=1).fit(X, y)
    r = p1.evaluate(disc)
    assert len(r.anchors) == 300
    np.testing.assert_allclose(r.anchors @ W, C0, atol=1e-9)
    # the anchor lies on the segment joining its pair
    xa, xb = X[r.anchor_pairs[:, 0]], X[r.anchor_pairs[:, 1]]
    t = ((r.anchors - xa) * (xb - xa)).sum(1) / ((xb - xa) ** 2).sum(1)
    assert np.all((t > 0) & (t < 1))
    np.testing.assert_allclose(xa + t[:, None] * (xb - xa), r.anchors, atol=1e-9)
    # near-boundary set = nearest training sample of each anchor (brute force)
    nn = cdist(r.anchors, X).argmin(1)
    assert np.array_equal(r.anchor_neighbour, nn)
    assert np.array_equal(r.near_boundary, np.unique(nn))
    assert r.value == pytest.approx(reference_value(p1, r), abs=1e-12)


def test_tdc_cluster_sizes_respect_n_min_and_n_max():
    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, size=(800, 4))  # a 3-D boundary: many distinct near-boundary samples
    w = np.array([1.0, -1.0, 0.5, 0.0]) / 1.5
    y = (X @ w - C0 + 0.5 * rng.standard_normal(800) > 0).astype(int)
    p1 = Proposal1(N_max=12, N_min=4, R_T=4, random_state=0).fit(X, y)
    r = p1.evaluate(linear_disc(w))
    n_B = len(r.near_boundary)
    assert n_B > 3 * 12  # enough for several TDC levels
    assert r.tdc_levels >= 2
    assert r.cluster_labels.shape == (4, n_B)
    for run in range(4):
        sizes = r.cluster_sizes[run]
        assert len(sizes) >= 2
        assert np.all(sizes > 4) and np.all(sizes <= 12)
        lab = r.cluster_labels[run]
        assert np.array_equal(np.bincount(lab[lab >= 0], minlength=len(sizes)), sizes)
        members = r.clusters(run)
        assert sum(len(m) for m in members) == sizes.sum()
        assert np.all(r.cluster_pairs[run][:, 0] < r.cluster_pairs[run][:, 1])
    # the TDC runs differ (independent random seeds) but partition the same set
    assert not all(np.array_equal(r.cluster_labels[0], r.cluster_labels[q]) for q in range(1, 4))
    assert r.value == pytest.approx(reference_value(p1, r), abs=1e-12)


def test_score_range_and_reproducible(gmm_svc, gmm_result):
    ds, disc = gmm_svc
    p1, r = gmm_result
    r2 = Proposal1(random_state=0).fit(ds.X_train, ds.y_train).evaluate(disc)
    assert r2.value == r.value
    assert np.array_equal(r2.anchors, r.anchors)
    assert np.array_equal(r2.cluster_labels, r.cluster_labels)
    assert p1.evaluate(disc).value == r.value  # evaluate twice: same random stream
    r3 = Proposal1(random_state=7).fit(ds.X_train, ds.y_train).evaluate(disc)
    assert not np.array_equal(r3.anchor_pairs, r.anchor_pairs)
    assert r.value == pytest.approx(reference_value(p1, r), abs=1e-12)


def test_prior_correction_divides_cluster_posteriors_by_class_priors():
    """§4.4.4: Proposal 1 replaced P̂(C_l | x) by P̂(C_l | x) / P̂_l. On a 9:1 imbalanced set the
    corrected and plain values differ, and each equals its cluster-by-cluster recomputation."""
    rng = np.random.default_rng(11)
    X = np.vstack([rng.normal([-1, 0], 1.0, size=(900, 2)), rng.normal([1, 0], 1.0, size=(100, 2))])
    y = np.r_[np.zeros(900, int), np.ones(100, int)]
    disc = as_discriminant(lambda Z: np.column_stack([-Z[:, 0], Z[:, 0]]), n_classes=2)  # B(Λ): x₁ = 0
    on = Proposal1(R_A=400, R_T=3, random_state=0).fit(X, y)
    off = Proposal1(R_A=400, R_T=3, prior_correction=False, random_state=0).fit(X, y)
    r_on, r_off = on.evaluate(disc), off.evaluate(disc)
    np.testing.assert_array_equal(r_on.cluster_labels, r_off.cluster_labels)  # same clusters
    assert r_on.value == pytest.approx(reference_value(on, r_on, prior_correction=True), abs=1e-12)
    assert r_off.value == pytest.approx(reference_value(off, r_off, prior_correction=False), abs=1e-12)
    # near x₁ = 0 the minority class is ~1/(1 + 9 e^{0}) of the samples: the plain share is far from
    # ½ (low entropy); divided by the priors the shares are about equal (entropy near 1)
    assert r_off.value < 0.75 < r_on.value


def test_binary_entropy():
    np.testing.assert_allclose(binary_entropy([0.0, 0.5, 1.0, 0.25]), [0.0, 1.0, 0.0, 0.8112781244591328])


def test_multiclass_anchors_pass_the_top2_check():
    ds = datasets.load("gmm3", n_train=450, n_test=100, random_state=0)
    X, y = ds.X_train, ds.y_train
    # a smooth 3-class discriminant (linear), so f vanishes on B(Λ)
    Wm = np.array([[1.0, 0.2], [-0.6, 1.0], [-0.4, -1.2]])
    disc = as_discriminant(lambda Z: Z @ Wm.T + np.array([0.0, 0.1, -0.1]), n_classes=3)
    p1 = Proposal1(random_state=0).fit(X, y)
    r = p1.evaluate(disc)
    assert r.anchor_valid.mean() > 0.95
    A = r.anchors[r.anchor_valid]
    i, j = top2(disc(A))
    kl = np.sort(r.anchor_classes[r.anchor_valid], axis=1)
    assert np.array_equal(np.column_stack([i, j]), kl)  # anchors lie between the two top classes
    assert np.all(np.abs(boundary_score(disc, A)) < 1e-9)
    assert len({tuple(p) for p in kl}) == 3
    assert r.value == pytest.approx(reference_value(p1, r), abs=1e-12)
    # SVC "ovr" scores jump across B(Λ) (votes): anchors are still where the decision changes
    svc = svm_status(X, y, 1.0)
    r = p1.evaluate(svc)
    ok = r.anchor_valid
    assert ok.mean() > 0.9
    assert np.array_equal(svc.predict(r.bracket_a[ok]), r.anchor_classes[ok, 0])
    assert np.array_equal(svc.predict(r.bracket_b[ok]), r.anchor_classes[ok, 1])
    assert r.value == pytest.approx(reference_value(p1, r), abs=1e-12)


def test_single_predicted_class_gives_no_anchors(linear_data):
    X, y = linear_data
    disc = as_discriminant(lambda Z: np.column_stack([np.ones(len(Z)), np.zeros(len(Z))]), n_classes=2)
    r = Proposal1(random_state=0).fit(X, y).evaluate(disc)
    assert len(r.anchors) == 0 and len(r.near_boundary) == 0
    assert r.value == 0.0 and r.classifier_calls == 1


def test_gmm_both_proposals_agree_from_underfit_to_cv_best():
    ds = datasets.load("gmm", n_train=1000, n_test=100, random_state=0)
    X, y = ds.X_train, ds.y_train
    grid = 2.0 ** np.arange(-8, 7)
    cv = GridSearchCV(SVC(C=1.0), {"gamma": grid}, cv=StratifiedKFold(5, shuffle=True, random_state=0))
    best = cv.fit(X, y).best_params_["gamma"]
    assert best >= 2.0 ** -4
    p1 = Proposal1(random_state=0).fit(X, y)
    bu = BoundaryUncertainty(M=40, random_state=0).fit(X, y)
    under, good = svm_status(X, y, 2.0 ** -8), svm_status(X, y, best)
    u1 = p1.evaluate(under).value, p1.evaluate(good).value
    u2 = bu.evaluate(under).value, bu.evaluate(good).value
    assert u1[1] > u1[0] + 0.1
    assert u2[1] > u2[0] + 0.1
    assert np.sign(u1[1] - u1[0]) == np.sign(u2[1] - u2[0])


@pytest.mark.parametrize("kwargs, name", [
    (dict(R_T=0), "R_T"), (dict(i_max=0), "i_max"), (dict(i_K=0), "i_K"), (dict(R_A=0), "R_A"),
    (dict(N_min=50, N_max=40), "N_min"), (dict(N_min=40, N_max=40), "N_min"), (dict(N_max=0), "N_max"),
    (dict(N_min=-1), "N_min"), (dict(R_T=2.5), "R_T"),
])
def test_bad_parameters(linear_data, kwargs, name):
    X, y = linear_data
    with pytest.raises(InvalidParameterError, match=name):
        Proposal1(**kwargs).fit(X, y)


def test_bad_data(linear_data):
    X, y = linear_data
    with pytest.raises(ValueError, match="y"):
        Proposal1().fit(X, np.zeros(len(X)))
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        Proposal1().fit(Xn, y)
    with pytest.raises(NotFittedError, match="fit"):
        Proposal1().evaluate(linear_disc())
    p1 = Proposal1(R_A=10).fit(X, y)
    nan_disc = as_discriminant(lambda Z: np.full((len(Z), 2), np.nan), n_classes=2)
    with pytest.raises(ValueError, match="NaN"):
        p1.evaluate(nan_disc)
    three = as_discriminant(lambda Z: np.zeros((len(Z), 3)), n_classes=3)
    with pytest.raises(ValueError, match="classes"):
        p1.evaluate(three)
