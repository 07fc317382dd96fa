"""Bad input to :mod:`buviz.datasets`: arrays, CSV uploads and Gaussian mixtures."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest
from _bad_input import GOOD_ROWS, X60, _csv, _mix, check_case, y60

from buviz import datasets
from buviz.datasets import GaussianMixture

CASES = [
    # datasets
    ("constant feature in an upload", lambda: datasets.read_csv(_csv([f"1,{i},{'ab'[i % 2]}" for i in range(40)])),
     r"constant"),
    ("split: test label unseen in training", lambda: datasets.from_split(X60[:40], y60[:40], X60[40:],
                                                                         np.full(20, 7)), r"y_test holds label"),
    ("split: test lengths differ", lambda: datasets.from_split(X60[:40], y60[:40], X60[40:], y60[40:50]),
     r"y_test must have one label per row"),
    ("split: feature names", lambda: datasets.from_split(X60[:40], y60[:40], X60[40:], y60[40:],
                                                         feature_names=["a"]), r"feature_names must have 2"),
    ("real set: n_train above the training part", lambda: datasets.load("banknote", n_train=5000),
     r"n_train must be at most"),
    ("real set: n_train below the classes", lambda: datasets.load("letter", n_train=10), r"n_train must be at least"),
    ("real set: zero test_size", lambda: datasets.load("banknote", test_size=0), r"test_size must be positive"),
    ("describe unknown", lambda: datasets.describe("nope"), r"name must be one of"),
    ("CSV n_features not an int", lambda: datasets.read_csv(_csv(GOOD_ROWS), n_features="two"),
     r"n_features must be an integer"),
    ("CSV broken gzip", lambda: datasets.read_csv(b"\x1f\x8b\x08\x00garbage"), r"could not be decompressed"),
    ("CSV gzip bomb", lambda: datasets.read_csv(gzip.compress(b"x1,x2,label\n" + b"1,2,a\n" * 200_000),
                                                max_bytes=100_000), r"too large once decompressed"),
    ("class with one sample", lambda: datasets.from_arrays(X60, np.r_[np.zeros(59), 1]), r"at least 2 samples"),
    ("unknown dataset name", lambda: datasets.load("nope"), r"name must be one of"),
    # CSV upload parsing
    ("CSV NaN", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "nan,1,a"])), r"missing values"),
    ("CSV empty cell", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "1,,a"])), r"missing values"),
    ("CSV inf", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "inf,1,a"])), r"infinite"),
    ("CSV text", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "1,hello,a"])), r"non-numeric text"),
    ("CSV one feature column", lambda: datasets.read_csv(_csv(["1,a", "2,b", "3,a"], "x1,label")),
     r"exactly 2 feature columns"),
    ("CSV three feature columns", lambda: datasets.read_csv(_csv(["1,2,3,a", "2,3,4,b"], "x1,x2,x3,label")),
     r"exactly 2 feature columns"),
    ("CSV empty file", lambda: datasets.read_csv(b""), r"empty"),
    ("CSV whitespace only", lambda: datasets.read_csv(b"  \n\n"), r"empty"),
    ("CSV header only", lambda: datasets.read_csv(b"x1,x2,label\n"), r"header|no data rows"),
    ("CSV 50 MB", lambda: datasets.read_csv(b"1.0,2.0,a\n" * 5_300_000), r"too large"),
    ("CSV 50 MB file object", lambda: datasets.read_csv(io.BytesIO(b"1.0,2.0,a\n" * 5_300_000)), r"too large"),
    ("CSV not UTF-8", lambda: datasets.read_csv("x1,x2,label\n1,2,é\n3,4,ü\n".encode("latin-1")), r"not UTF-8"),
    ("CSV binary (NUL bytes)", lambda: datasets.read_csv(b"\x00\x01\x02PK\x03\x04" * 100), r"looks binary"),
    ("CSV single class", lambda: datasets.read_csv(_csv(["1,2,a", "3,4,a", "5,6,a"])), r"single class"),
    ("CSV ragged rows", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "1,2,a,extra,more"])), r"could not be parsed"),
    ("CSV spreadsheet formula", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "=cmd|' /C calc'!A0,1,a"])),
     r"non-numeric text"),
    ("CSV Python literal payload", lambda: datasets.read_csv(
        _csv([*GOOD_ROWS, "__import__('os').system('touch /tmp/pwn'),1,a"])), r"non-numeric text"),
    ("CSV pickle-looking bytes", lambda: datasets.read_csv(b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00."),
     r"not UTF-8|binary"),
    ("CSV missing label", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "1,2,"])), r"label column .* missing"),
    ("CSV label column out of range", lambda: datasets.read_csv(_csv(GOOD_ROWS), label_column=7), r"out of range"),
    # Gaussian mixtures
    ("singular covariance", lambda: _mix(cov=[[1.0, 1.0], [1.0, 1.0]]), r"positive definite"),
    ("non-symmetric covariance", lambda: _mix(cov=[[1.0, 0.5], [0.0, 1.0]]), r"symmetric"),
    ("negative variance", lambda: _mix(cov=-1.0), r"positive definite"),
    ("NaN covariance", lambda: _mix(cov=[np.nan, 1.0]), r"NaN or infinite"),
    ("covariance wrong shape", lambda: _mix(cov=np.eye(3)), r"must be \(2, 2\)"),
    ("zero mixture weight", lambda: _mix(weight=0.0), r"weight .* must be positive"),
    ("NaN mixture weight", lambda: _mix(weight=np.nan), r"weight .* must be positive"),
    ("zero prior", lambda: _mix(prior=[0.0, 1.0]), r"priors must be 2 positive numbers"),
    ("NaN mean", lambda: _mix(mean=(np.nan, 0.0)), r"finite numbers"),
    ("mixture with one class", lambda: GaussianMixture([[(1.0, [0, 0], 1.0)]]), r"at least two classes"),
    ("class with no component", lambda: GaussianMixture([[(1.0, [0, 0], 1.0)], []]), r"at least one component"),
]


@pytest.mark.parametrize("case, thunk, expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, thunk, expected):
    check_case(case, thunk, expected)
