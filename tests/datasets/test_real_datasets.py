"""The ten real datasets of Ha et al. (2021), Table 2, shipped in the package; constant columns; from_split."""

from __future__ import annotations

import gzip
import hashlib
import io
import warnings
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import StandardScaler

from buviz import datasets

DATA = resources.files("buviz") / "data" / "real"
META = datasets.uci_metadata()


def _raw(name):
    """The shipped file read by pandas: a second parser, independent of the package's numpy one."""
    frame = pd.read_csv(io.BytesIO((DATA / f"{name}.csv.gz").read_bytes()), compression="gzip")
    return frame.drop(columns=["label"]).to_numpy(float), frame["label"].astype(str).to_numpy()


def _load(name, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", datasets.ConstantFeatureWarning)
        return datasets.load(name, **kw)


def test_shipped_files_are_the_ten_sets_with_their_sha256():
    shipped = sorted(p.name for p in DATA.iterdir() if p.name.endswith(".csv.gz"))
    assert shipped == sorted(f"{n}.csv.gz" for n in datasets.UCI_NAMES)
    assert sorted(META["datasets"]) == sorted(datasets.UCI_NAMES)
    for name, m in META["datasets"].items():
        assert m["file"] == f"{name}.csv.gz"
        assert hashlib.sha256((DATA / m["file"]).read_bytes()).hexdigest() == m["sha256"], name


@pytest.mark.parametrize("name", datasets.UCI_NAMES)
def test_loaded_set_matches_its_metadata_and_the_file(name):
    m = META["datasets"][name]
    ds = _load(name)
    X_raw, y_raw = _raw(name)
    assert ds.n_features == m["features"] == X_raw.shape[1]
    assert len(ds.y_train) + len(ds.y_test) == m["rows"] == len(y_raw)
    assert ds.n_classes == m["classes"]
    labels = ds.classes[np.r_[ds.y_train, ds.y_test]]
    assert dict(zip(*np.unique(labels, return_counts=True), strict=True)) == m["class_counts"]
    constant = [c for c, s in zip(ds.feature_names, X_raw.std(0), strict=True) if s == 0]
    assert constant == m["constant_features"]
    # standardised on the training part; the test part with the same mean and scale
    varying = ds.scale != 1.0
    np.testing.assert_allclose(ds.X_train.mean(0), 0, atol=1e-9)
    np.testing.assert_allclose(ds.X_train.std(0)[varying], 1, rtol=1e-9)
    back = np.r_[ds.X_train, ds.X_test] * ds.scale + ds.mean
    order = np.lexsort(back.T)
    np.testing.assert_allclose(back[order], X_raw[np.lexsort(X_raw.T)], rtol=1e-12, atol=1e-9)
    assert ds.model is None and ds.key.startswith(name)


def test_numpy_parser_agrees_with_pandas():
    for name in datasets.UCI_NAMES:
        X, y, columns = datasets._read_uci(name)
        X_raw, y_raw = _raw(name)
        np.testing.assert_array_equal(X, X_raw)
        np.testing.assert_array_equal(y, y_raw)
        assert len(columns) == X.shape[1]


def test_letter_uses_the_papers_split_first_10000_rows():
    ds = datasets.load("letter")
    X_raw, y_raw = _raw("letter")
    assert len(ds.y_train) == len(ds.y_test) == 10_000
    np.testing.assert_allclose(ds.X_train * ds.scale + ds.mean, X_raw[:10_000], atol=1e-9)
    np.testing.assert_array_equal(ds.classes[ds.y_test], y_raw[10_000:])
    np.testing.assert_allclose(ds.mean, X_raw[:10_000].mean(0))
    # the fixed split does not depend on the seed; a numeric test_size makes a stratified one
    np.testing.assert_array_equal(datasets.load("letter", random_state=5).X_train, ds.X_train)
    strat = datasets.load("letter", test_size=0.5)
    assert len(strat.y_train) == 10_000 and not np.array_equal(strat.X_train, ds.X_train)


def test_stratified_split_keeps_class_shares_and_follows_the_seed():
    a, b, c = (_load("cardiotocography", random_state=s) for s in (0, 0, 1))
    np.testing.assert_array_equal(a.X_train, b.X_train)
    assert a.key == b.key != c.key and not np.array_equal(a.X_train, c.X_train)
    share_tr = np.bincount(a.y_train) / len(a.y_train)
    share_te = np.bincount(a.y_test) / len(a.y_test)
    np.testing.assert_allclose(share_tr, [1655 / 1831, 176 / 1831], atol=2e-3)
    np.testing.assert_allclose(share_te, share_tr, atol=5e-3)
    assert len(a.y_test) == np.ceil(0.3 * 1831)  # scikit-learn rounds the test part up


def test_read_csv_of_a_shipped_file_gives_the_same_split_as_load():
    path = DATA / "banknote.csv.gz"
    with resources.as_file(path) as p:
        from_csv = datasets.read_csv(p, name="banknote")
    loaded = datasets.load("banknote")
    np.testing.assert_array_equal(from_csv.X_train, loaded.X_train)
    np.testing.assert_array_equal(from_csv.classes[from_csv.y_test], loaded.classes[loaded.y_test])


def test_subsampling_the_training_part():
    full = datasets.load("satimage")
    small = datasets.load("satimage", n_train=600, n_test=300)
    assert len(small.y_train) == 600 and len(small.y_test) == 300 and small.n_classes == 6
    # stratified: class shares as in the full training part
    np.testing.assert_allclose(np.bincount(small.y_train) / 600, np.bincount(full.y_train) / len(full.y_train),
                               atol=2e-3)
    # standardised on the subsample the classifier sees
    np.testing.assert_allclose(small.X_train.mean(0), 0, atol=1e-9)
    np.testing.assert_allclose(small.X_train.std(0), 1, rtol=1e-9)
    # drawn from the training part: every subsampled row is a full-training row
    full_rows = {tuple(r) for r in np.round(full.X_train * full.scale + full.mean, 6)}
    assert all(tuple(r) in full_rows for r in np.round(small.X_train * small.scale + small.mean, 6))
    assert small.key != full.key and "subsampled" in small.description


def test_describe_says_source_choices_licence_and_which_breast_cancer():
    for name in datasets.UCI_NAMES:
        m = META["datasets"][name]
        text = datasets.describe(name)
        assert "CC BY 4.0" in text and m["source"] in text and m["sha256"] in text
        assert all(c in text for c in m["choices"])
        assert "subsample" in text
    assert "first 10000 rows" in datasets.describe("letter")
    assert "WDBC" in datasets.describe("breast_cancer") and "breast_cancer_wisconsin" in datasets.describe(
        "breast_cancer")
    assert "original" in datasets.describe("breast_cancer_wisconsin").lower()
    for name in datasets.DATASET_NAMES:
        assert datasets.describe(name).startswith(name)


# -- constant columns ---------------------------------------------------------------------------------
def test_constant_column_is_left_unscaled_with_a_warning_like_standard_scaler():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=60), np.full(60, 3.0), rng.normal(5, 2, size=60)])
    y = np.arange(60) % 2
    with pytest.warns(datasets.ConstantFeatureWarning, match=r"\['x2'\]"):
        ds = datasets.from_arrays(X, y)
    scaler = StandardScaler().fit(ds.X_train * ds.scale + ds.mean)
    np.testing.assert_allclose(ds.scale, scaler.scale_)
    np.testing.assert_allclose(ds.X_test, scaler.transform(ds.X_test * ds.scale + ds.mean))
    assert ds.scale[1] == 1.0 and np.all(ds.X_train[:, 1] == 0)


def test_cardiotocography_dr_is_constant_and_warned_about():
    with pytest.warns(datasets.ConstantFeatureWarning, match=r"\['DR'\]"):
        ds = datasets.load("cardiotocography")
    j = ds.feature_names.index("DR")
    assert ds.scale[j] == 1.0 and np.all(ds.X_train[:, j] == 0) and np.all(np.isfinite(ds.X_test))


# -- from_split -----------------------------------------------------------------------------------------
def test_from_split_standardises_with_the_training_part_like_standard_scaler():
    rng = np.random.default_rng(1)
    X_tr, X_te = rng.normal(2, 3, size=(50, 4)), rng.normal(2, 3, size=(30, 4))
    y_tr, y_te = np.array(["a", "b"])[np.arange(50) % 2], np.array(["b"] * 30)
    ds = datasets.from_split(X_tr, y_tr, X_te, y_te, name="mine", feature_names=list("pqrs"))
    scaler = StandardScaler().fit(X_tr)
    np.testing.assert_allclose(ds.X_train, scaler.transform(X_tr))
    np.testing.assert_allclose(ds.X_test, scaler.transform(X_te))
    assert list(ds.classes) == ["a", "b"] and np.all(ds.y_test == 1) and ds.feature_names == list("pqrs")
    again = datasets.from_split(X_tr, y_tr, X_te, y_te, name="mine")
    other = datasets.from_split(X_tr, y_tr, X_te[::-1], y_te, name="mine")
    assert ds.key == again.key != other.key
    empty = datasets.from_split(X_tr, y_tr, np.empty((0, 4)), [])
    assert empty.X_test.shape == (0, 4)


# -- read_csv ---------------------------------------------------------------------------------------------
def _many_feature_csv(d=5, n=40):
    rng = np.random.default_rng(2)
    header = ",".join(f"f{i}" for i in range(d)) + ",label"
    rows = [",".join(f"{v:.4f}" for v in rng.normal(size=d)) + f",{'ab'[i % 2]}" for i in range(n)]
    return (header + "\n" + "\n".join(rows) + "\n").encode()


def test_read_csv_reads_gzip_and_any_number_of_features_from_a_path(tmp_path):
    raw = _many_feature_csv()
    plain, packed = tmp_path / "five.csv", tmp_path / "five.csv.gz"
    plain.write_bytes(raw)
    packed.write_bytes(gzip.compress(raw))
    a, b = datasets.read_csv(plain), datasets.read_csv(packed)
    assert a.n_features == 5 and a.feature_names == [f"f{i}" for i in range(5)]
    np.testing.assert_array_equal(a.X_train, b.X_train)
    # bytes or file objects are the explorer's upload: exactly two features unless told otherwise
    with pytest.raises(ValueError, match="exactly 2 feature columns"):
        datasets.read_csv(gzip.compress(raw))
    c = datasets.read_csv(io.BytesIO(gzip.compress(raw)), upload=False)
    np.testing.assert_array_equal(a.X_train, c.X_train)
    assert datasets.read_csv(raw, n_features=5).n_features == 5
    with pytest.raises(ValueError, match="exactly 4 feature columns"):
        datasets.read_csv(plain, n_features=4)


def test_read_csv_from_a_path_accepts_a_constant_column_with_a_warning(tmp_path):
    path = tmp_path / "const.csv"
    path.write_text("x1,x2,label\n" + "".join(f"1,{i},{'ab'[i % 2]}\n" for i in range(40)))
    with pytest.warns(datasets.ConstantFeatureWarning):
        ds = datasets.read_csv(path)
    assert ds.scale[0] == 1.0
    with pytest.raises(ValueError, match="constant"):
        datasets.read_csv(path.read_bytes())
