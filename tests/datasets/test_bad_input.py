"""Bad input to :mod:`buviz.datasets`: arrays, CSV uploads and Gaussian mixtures."""

from __future__ import annotations

import io

import numpy as np
import pytest
from _bad_input import GOOD_ROWS, X60, _csv, _mix, check_case, y60

from buviz import datasets
from buviz.datasets import GaussianMixture

CASES = [
    # datasets
    ("constant feature", lambda: datasets.from_arrays(np.column_stack([X60[:, 0], np.ones(60)]), y60),
     r"constant"),
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
