import io

import numpy as np
import pytest
from contourpy import contour_generator
from scipy.stats import norm

from buviz import datasets
from buviz.datasets import GaussianMixture


@pytest.mark.parametrize("cov", [np.eye(2), np.array([[1.0, 0.6], [0.6, 2.0]])])
def test_bayes_error_equal_covariance_matches_closed_form(cov):
    m1, m2 = np.array([0.0, 0.0]), np.array([1.5, -0.7])
    model = GaussianMixture([[(1, m1, cov)], [(1, m2, cov)]])
    delta = np.sqrt((m2 - m1) @ np.linalg.solve(cov, m2 - m1))
    err, acc = model.bayes_error(return_accuracy=True)
    assert abs(err - norm.cdf(-delta / 2)) < 1e-4
    assert acc < 1e-4


def test_bayes_error_agrees_with_monte_carlo_of_bayes_rule():
    model = datasets.paper_mixture("gmm")
    X, y = model.sample(200_000, random_state=1)
    mc = np.mean(model.bayes_decision(X) != y)
    se = np.sqrt(mc * (1 - mc) / len(y))
    assert abs(model.bayes_error() - mc) < 3 * se


@pytest.mark.parametrize("name", datasets.MIXTURE_NAMES)
def test_posteriors_sum_to_one_and_match_bayes_formula(name):
    model = datasets.paper_mixture(name)
    X, _ = model.sample(500, random_state=2)
    post = model.posterior(X)
    np.testing.assert_allclose(post.sum(1), 1.0, atol=1e-12)
    joint = model.class_densities(X) * model.priors
    np.testing.assert_allclose(post, joint / joint.sum(1, keepdims=True), rtol=1e-9)


@pytest.mark.parametrize("name", ["gmm", "gmm_inclusion", "gmm3"])
def test_bayes_boundary_lies_where_top_two_posteriors_are_equal(name):
    model = datasets.paper_mixture(name)
    fields = model.bayes_boundary((-4, -3, 4, 4), resolution=300)
    n_points = 0
    for (k, l), fld in fields.items():
        lines = contour_generator(fld.xs, fld.ys, fld.values).lines(0.0)
        for line in lines:
            post = model.posterior(line)
            assert np.max(np.abs(post[:, k] - post[:, l])) < 0.02
            n_points += len(line)
    assert n_points > 50
    if name == "gmm_inclusion":  # a curve and an ellipse
        (fld,) = fields.values()
        assert len(contour_generator(fld.xs, fld.ys, fld.values).lines(0.0)) >= 2


def test_load_standardises_on_training_set_and_model_follows():
    ds = datasets.load("gmm", n_train=800, n_test=500, random_state=3)
    np.testing.assert_allclose(ds.X_train.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(ds.X_train.std(0), 1, atol=1e-12)
    raw_model = datasets.paper_mixture("gmm")
    X_raw = ds.X_test * ds.scale + ds.mean
    np.testing.assert_allclose(ds.model.posterior(ds.X_test), raw_model.posterior(X_raw), atol=1e-10)
    assert abs(ds.model.bayes_error() - raw_model.bayes_error()) < 1e-5


def test_load_is_reproducible_and_seed_dependent():
    a = datasets.load("gmm_inclusion", 300, 300, random_state=7)
    b = datasets.load("gmm_inclusion", 300, 300, random_state=7)
    c = datasets.load("gmm_inclusion", 300, 300, random_state=8)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    assert a.key == b.key != c.key
    assert not np.array_equal(a.X_train, c.X_train)


def test_sampling_follows_the_mixture():
    model = datasets.paper_mixture("gmm_separable")
    X, y = model.sample(40_000, random_state=0)
    assert abs(np.mean(y) - 0.5) < 0.01
    np.testing.assert_allclose(X[y == 0].mean(0), [-2, 0], atol=0.03)
    np.testing.assert_allclose(X[y == 0].var(0), [0.15, 1.0], rtol=0.05)


@pytest.mark.parametrize("name", ["breast_cancer", "wine"])
def test_real_sets_load_without_model(name):
    ds = datasets.load(name, random_state=0)
    assert ds.model is None
    assert ds.n_classes == (2 if name == "breast_cancer" else 3)
    assert len(ds.X_test) > 0 and set(np.unique(ds.y_test)) <= set(range(ds.n_classes))


def test_three_class_mixture():
    ds = datasets.load("gmm3", 500, 500, random_state=0)
    assert ds.n_classes == 3 and ds.model.n_classes == 3


@pytest.mark.parametrize("classes, match", [
    ([[(1, (0, 0), [[1, 2], [2, 1]])], [(1, (1, 1), 1)]], "positive definite"),
    ([[(1, (0, 0), [[1, 0.5], [0.1, 1]])], [(1, (1, 1), 1)]], "symmetric"),
    ([[(0, (0, 0), 1)], [(1, (1, 1), 1)]], "weight"),
    ([[(-1, (0, 0), 1)], [(1, (1, 1), 1)]], "weight"),
    ([[(1, (0, 0), 1)]], "at least two"),
    ([[(1, (0, np.nan), 1)], [(1, (1, 1), 1)]], "mean"),
    ([[(1, (0, 0), [[1, 0], [0, 0]])], [(1, (1, 1), 1)]], "positive definite"),
])
def test_invalid_mixtures_raise(classes, match):
    with pytest.raises(ValueError, match=match):
        GaussianMixture(classes)


def test_unknown_dataset_name():
    with pytest.raises(ValueError, match="name must be one of"):
        datasets.load("nope")


def _csv(text):
    return io.BytesIO(text.encode())


def test_read_csv_good_file():
    rng = np.random.default_rng(0)
    rows = ["a,b,label"] + [f"{x:.3f},{y:.3f},{'cat' if x > 0 else 'dog'}" for x, y in rng.normal(size=(60, 2))]
    ds = datasets.read_csv(_csv("\n".join(rows)))
    assert ds.n_features == 2 and list(ds.classes) == ["cat", "dog"]
    assert ds.feature_names == ["a", "b"]


@pytest.mark.parametrize("text, match", [
    ("a,b,y\n1,2,0\n3,nan,1\n4,5,1\n", "missing"),
    ("a,b,y\n1,2,0\n3,hello,1\n4,5,1\n", "non-numeric"),
    ("a,b,y\n1,2,0\n3,4,0\n4,5,0\n", "single class"),
    ("a,y\n1,0\n3,1\n", "exactly 2 feature"),
    ("a,b,c,y\n1,2,3,0\n3,4,5,1\n", "exactly 2 feature"),
    ("", "empty"),
    ("a,b,y\n1,2,0\n1,inf,1\n", "infinite"),
])
def test_read_csv_bad_files(text, match):
    with pytest.raises(ValueError, match=match):
        datasets.read_csv(_csv(text))


def test_read_csv_rejects_oversize_and_non_utf8():
    with pytest.raises(ValueError, match="too large"):
        datasets.read_csv(b"a,b,y\n" + b"1,2,0\n" * 100, max_bytes=100)
    with pytest.raises(ValueError, match="UTF-8"):
        datasets.read_csv(b"a,b,y\n1,2,\xff\xfe\n3,4,1\n")


def test_constant_feature_left_unscaled_with_a_warning():
    X = np.column_stack([np.arange(20.0), np.ones(20)])
    with pytest.warns(datasets.ConstantFeatureWarning, match="constant"):
        ds = datasets.from_arrays(X, np.arange(20) % 2)
    assert ds.scale[1] == 1.0 and np.all(ds.X_train[:, 1] == 0)
