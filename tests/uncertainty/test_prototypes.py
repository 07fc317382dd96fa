"""Î* (Ha et al. 2021, Algorithm 2, §4.4.3): K by AIC from one Ward tree per class, the search range."""

import warnings

import numpy as np
import pytest
from scipy.cluster.hierarchy import cut_tree
from sklearn.cluster import KMeans

from buviz import datasets
from buviz._validation import InvalidParameterError
from buviz.uncertainty import BoundaryUncertainty
from buviz.uncertainty.neighbours import neighbourhoods
from buviz.uncertainty.prototypes import (
    PAPER_K_RANGE,
    KRangeWarning,
    _cut_labels,
    aic_from_sse,
    auto_K_cap,
    class_aic,
    estimate_true_pairs,
    ward_sse,
)


def _pairs(tp):
    return np.asarray(tp.pairs)[tp.pair_index]


def _agreement(a, b) -> float:
    """Share of samples whose estimated pair {î*(x), ĵ*(x)} is the same."""
    return float(np.mean(np.all(_pairs(a) == _pairs(b), axis=1)))


@pytest.mark.parametrize("form", ["literal", "isotropic"])
def test_ward_curve_is_the_aic_of_every_cut(rng, form):
    """The sum of squares read off the merge heights is that of the tree's cut, for every K."""
    X = np.vstack([rng.normal(size=(40, 3)), rng.normal(size=(35, 3)) + 4, np.zeros((5, 3))])  # 5 duplicates
    Z, sse = ward_sse(X)
    assert sse[len(X)] == 0 and np.all(np.diff(sse[1:]) <= 1e-12)  # non-increasing in K
    for K in (1, 2, 3, 7, 30, 76, 79):
        labels = cut_tree(Z, n_clusters=K).ravel()
        ours = _cut_labels(Z, K)  # the cut the search uses: the same partition as SciPy's
        assert len(np.unique(np.column_stack([labels, ours]), axis=0)) == K == len(np.unique(ours))
        centers = np.array([X[labels == c].mean(0) for c in range(K)])
        direct = ((X - centers[labels]) ** 2).sum()
        assert sse[K] == pytest.approx(direct, rel=1e-9, abs=1e-9)
        expected = class_aic(X, centers, labels, form)
        got = aic_from_sse(sse[K], len(X), X.shape[1], K, form)
        assert got == pytest.approx(expected, rel=1e-9) or (got == expected == -np.inf)
    assert ward_sse(X)[1][76] == 0  # 76 = 75 distinct samples + 1: every sample on its prototype


def _old_search(X, y, J, seed=0, form="literal"):
    """Transcription of the §6.3 search: one K-means per K of (1, 3, ..., 39) below the distinct count."""
    ks = []
    for j in range(J):
        Xj = X[y == j]
        n_distinct = len(np.unique(Xj, axis=0))
        scores = {}
        for k in [k for k in PAPER_K_RANGE if k < n_distinct] or [1]:
            km = KMeans(k, max_iter=20, n_init=1, random_state=seed).fit(Xj)
            scores[k] = class_aic(Xj, km.cluster_centers_, km.labels_, form)
        ks.append(max(scores, key=scores.get))
    return ks


def test_paper_range_keeps_the_kmeans_search_of_section_6_3():
    ds = datasets.load("gmm3", n_train=300, n_test=0, random_state=2)
    X, y = ds.X_train, ds.y_train
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KRangeWarning)
        tp = estimate_true_pairs(X, y, 3, K_range=PAPER_K_RANGE, random_state=0)
    assert tp.search == "kmeans"
    assert tp.n_prototypes.tolist() == _old_search(X, y, 3)
    assert all(set(t) <= set(PAPER_K_RANGE) for t in tp.aic.values())


def _check_auto_invariants(tp, X, y):
    n, d = np.bincount(y), X.shape[1]
    assert tp.search == "ward"
    for j, table in tp.aic.items():
        K, upper = int(tp.n_prototypes[j]), int(tp.K_upper[j])
        n_distinct = len(np.unique(X[y == j], axis=0))
        assert 1 <= K <= upper < max(n_distinct, 2) and upper <= n[j] - 1
        assert upper * d + 1 < n[j] or upper == 1  # eq 48 keeps fewer parameters than distances
        assert np.all(np.isfinite(list(table.values())))
        assert sorted(table) == list(range(1, max(table) + 1))  # scanned 1, 2, 3, ... in order
        assert table[K] == max(table.values())
        # the first local maximum: AIC rose up to K and turned down right after it (or K is the bound)
        assert all(table[k] < table[k + 1] for k in range(1, K))
        assert tp.K_at_bound[j] == (K == upper and upper > 1)
        if not tp.K_at_bound[j] and upper > 1:
            assert max(table) == K + 1 and table[K + 1] < table[K]


def test_abalone_range_grows_past_the_bound_the_paper_range_hits():
    """On abalone the range of §6.3 ends on its bound (K = 39 of 1…39); the growing range does not."""
    ds = datasets.load("abalone", random_state=0)
    X, y = ds.X_train, ds.y_train
    with pytest.warns(KRangeWarning, match="largest candidate"):
        old = estimate_true_pairs(X, y, 3, K_range=PAPER_K_RANGE, random_state=0)
    assert old.K_at_bound.any() and 39 in old.n_prototypes.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        new = estimate_true_pairs(X, y, 3, random_state=0)
    _check_auto_invariants(new, X, y)
    assert not new.K_at_bound.any() and np.all(new.K_upper > 39)
    assert np.all(new.n_prototypes < np.bincount(y))
    # Î* moves from the old search's no more than the old search moves with its own seed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KRangeWarning)
        old1 = estimate_true_pairs(X, y, 3, K_range=PAPER_K_RANGE, random_state=1)
    assert _agreement(old, new) >= _agreement(old, old1) - 0.02


def test_auto_range_in_two_dimensions_reports_its_bound_in_the_field():
    """In 2-D eq 48 keeps rising up to the range's end (2⌈√n⌉ here): the field says so, no warning."""
    ds = datasets.load("gmm3", n_train=400, n_test=0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        bu = BoundaryUncertainty(M=20, random_state=0).fit(ds.X_train, ds.y_train)
    tp = bu.true_pairs_
    _check_auto_invariants(tp, ds.X_train, ds.y_train)
    assert tp.K_at_bound.all()
    n = np.bincount(ds.y_train)
    np.testing.assert_array_equal(tp.K_upper, [min((m - 2) // 2, auto_K_cap(m)) for m in n])
    assert np.all(tp.n_prototypes <= 2 * np.ceil(np.sqrt(n)))  # far from n / 2: no near-1-NN Î*


def test_auto_cap_is_twice_the_ceiling_of_the_square_root():
    for n in (1, 2, 3, 4, 5, 99, 100, 101, 361, 362, 985):
        assert auto_K_cap(n) == 2 * int(np.ceil(np.sqrt(n)))


@pytest.mark.parametrize("name", ["winequality_white", "iris_like"])
def test_ward_estimate_agrees_with_kmeans_as_kmeans_agrees_with_itself(name):
    if name == "iris_like":
        from sklearn.datasets import load_iris

        b = load_iris()
        X, y = (b.data - b.data.mean(0)) / b.data.std(0), b.target
    else:
        ds = datasets.load(name, random_state=0)
        X, y = ds.X_train, ds.y_train
    J = len(np.unique(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KRangeWarning)
        old = [estimate_true_pairs(X, y, J, K_range=PAPER_K_RANGE, random_state=s) for s in (0, 1)]
        ward_same_range = estimate_true_pairs(X, y, J, K_range=PAPER_K_RANGE, search="ward")
    new = estimate_true_pairs(X, y, J)
    _check_auto_invariants(new, X, y)
    seed_noise = _agreement(*old)
    assert _agreement(old[0], ward_same_range) >= seed_noise - 0.03
    assert _agreement(old[0], new) >= seed_noise - 0.03
    assert _agreement(old[0], new) > 0.7


@pytest.mark.slow
@pytest.mark.parametrize("name", ["satimage", "letter"])
def test_ward_estimate_agrees_on_the_larger_real_sets(name):
    ds = datasets.load(name, random_state=0)
    X, y = ds.X_train, ds.y_train
    J = len(np.unique(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KRangeWarning)
        old = [estimate_true_pairs(X, y, J, K_range=PAPER_K_RANGE, random_state=s) for s in (0, 1)]
    new = estimate_true_pairs(X, y, J)
    _check_auto_invariants(new, X, y)
    assert _agreement(old[0], new) >= _agreement(*old) - 0.03


def test_large_class_ward_tree_on_a_subset_still_keeps_K_below_the_class(rng, monkeypatch):
    import buviz.uncertainty.prototypes as proto

    monkeypatch.setattr(proto, "WARD_MAX_SAMPLES", 60)
    centers = rng.normal(scale=6, size=(3, 4))
    X = np.vstack([c + rng.normal(size=(150, 4)) for c in centers])
    y = np.repeat([0, 1, 2], 150)
    tp = estimate_true_pairs(X, y, 3, random_state=0)
    assert np.all(tp.K_upper <= 59) and np.all(tp.n_prototypes <= tp.K_upper)
    assert [len(p) for p in tp.classifier.prototypes_] == tp.n_prototypes.tolist()
    again = estimate_true_pairs(X, y, 3, random_state=0)
    np.testing.assert_array_equal(_pairs(tp), _pairs(again))  # the subset is seeded


@pytest.mark.parametrize("kwargs, name", [({"K_range": "wide"}, "K_range"), ({"K_range": []}, "K_range"),
                                          ({"K_range": [0, 3]}, "K_range"), ({"search": "tree"}, "search")])
def test_bad_search_settings_name_the_parameter(kwargs, name):
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.repeat([0, 1, 2], 10)
    with pytest.raises(InvalidParameterError, match=name):
        estimate_true_pairs(X, y, 3, **kwargs)


@pytest.mark.parametrize("d", [3, 20])
def test_brute_neighbourhoods_equal_the_kd_tree(rng, d):
    X = rng.normal(size=(300, d))
    a, da = neighbourhoods(X, 15, algorithm="kd_tree")
    b, db = neighbourhoods(X, 15, algorithm="brute")
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(db, da, atol=1e-12)
    # duplicates: x itself in column 0 and ||x − x⁽¹⁾|| = 0 by both algorithms
    Xd = np.vstack([X, np.zeros((4, d))])
    for algorithm in ("kd_tree", "brute"):
        idx, dist = neighbourhoods(Xd, 6, algorithm=algorithm)
        assert np.all(idx[:, 0] == np.arange(len(Xd))) and np.all(dist[300:] == 0)
        assert all(set(idx[300 + i, :4]) == set(range(300, 304)) for i in range(4))
    with pytest.raises(InvalidParameterError, match="algorithm"):
        neighbourhoods(X, 5, algorithm="ball")


def test_brute_neighbourhoods_do_not_depend_on_the_chunking(rng, monkeypatch):
    from buviz.uncertainty import neighbours

    X = rng.normal(size=(700, 30))
    whole = neighbourhoods(X, 20, algorithm="brute")  # 700 x 700 scores: one chunk
    monkeypatch.setattr(neighbours, "_BRUTE_CHUNK", 5000)  # 5 rows per chunk
    chunked = neighbourhoods(X, 20, algorithm="brute")
    np.testing.assert_array_equal(chunked[0], whole[0])
    np.testing.assert_array_equal(chunked[1], whole[1])
