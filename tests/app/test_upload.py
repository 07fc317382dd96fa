"""What a user brings: CSV sniffing, any number of features, M capped at N(train)
with a note, the mixture editor's messages; and the MLP sweep's warnings at their source."""

from __future__ import annotations

import gzip
import json
import warnings

import numpy as np
import pytest

from buviz.app.compute import DEFAULT_MIXTURE, parse_mixture
from buviz.app.store import SessionStore
from buviz.app.upload import check_mixture_text, prepare_csv

SMALL = dict(n_train=200, auto_sweep=False)


def _table(n=40, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    return X, y


def test_semicolon_file_with_header_is_read_with_every_feature_column():
    X, y = _table()
    lines = ["a;b;c;d;e;class"] + [";".join([*(f"{v:.6f}" for v in row), lab]) for row, lab in zip(X, y, strict=True)]
    up = prepare_csv("\n".join(lines).encode())
    assert up.dataset.n_features == 5 and set(up.dataset.classes) == {"no", "yes"}
    assert up.dataset.feature_names == ["a", "b", "c", "d", "e"]
    assert any("semicolon" in n for n in up.notes)
    assert len(up.dataset.X_train) + len(up.dataset.X_test) == 40


def test_a_file_without_header_keeps_its_first_row_and_says_so():
    X, y = _table(n=30, d=3)
    text = "\n".join(",".join([*(f"{v:.6f}" for v in row), lab]) for row, lab in zip(X, y, strict=True))
    up = prepare_csv(text.encode())
    assert len(up.dataset.X_train) + len(up.dataset.X_test) == 30  # the first row is data, not names
    assert up.dataset.feature_names == ["x1", "x2", "x3"]
    assert any("no header" in n for n in up.notes)


def test_gzip_and_tab_separated_files_are_read():
    X, y = _table(n=30, d=2)
    rows = ["\t".join([*(f"{v:.6f}" for v in row), lab]) for row, lab in zip(X, y, strict=True)]
    text = "u\tv\tlabel\n" + "\n".join(rows)
    up = prepare_csv(gzip.compress(text.encode()))
    assert up.dataset.n_features == 2 and any("tab" in n for n in up.notes)


@pytest.mark.parametrize("raw, says", [
    (b"x\n1\n2\n", "only one column"),
    (b"x,y,label\n1,2,a\n3,b\n", "different numbers of columns"),
    (b"x,y,label\n1,2,a\n3,4,a\n5,6,a\n", "single class"),
])
def test_a_refusal_says_what_would_work(raw, says):
    with pytest.raises(ValueError, match=says) as err:
        prepare_csv(raw)
    assert "What works" in str(err.value)


def test_a_five_row_file_is_shown_with_M_capped_at_its_training_size():
    state = SessionStore(**SMALL)
    rows = "x1,x2,label\n0,0,a\n0.1,0.2,a\n1,1,b\n1.2,0.9,b\n0.2,0.1,a\n"
    state.upload_csv(rows.encode(), "tiny.csv")
    state.wait()
    N = len(state.snapshot.ds.X_train)
    assert state.controls.dataset == "csv" and state.controls.M == N and state.snapshot.settings["M"] == N
    assert state.message == "" and f"M set to {N}" in state.notice and "tiny.csv" in state.notice


def test_a_smaller_N_caps_M_but_an_M_typed_beyond_N_is_refused():
    state = SessionStore(**SMALL)
    state.controls.n_train = 20  # a new dataset smaller than M = 40
    assert state.controls.M == 20 and state.snapshot.settings["M"] == 20 and "M set to 20" in state.notice
    assert state.controls.M_max == 20  # the range in the M input's label
    state.controls.M = 30  # the user's own M, beyond N: refused, and left as the user set it
    assert "M must be <= 20" in state.message and state.controls.M == 30 and state.applied["M"] == 20


def test_mixture_messages_count_classes_from_one_and_priors_must_sum_to_one():
    bad_cov = {"classes": [[{"mean": [0, 0], "cov": 1}], [{"mean": [1, 1], "cov": [[1, 2], [2, 1]]}]]}
    with pytest.raises(ValueError, match="class 2 component 1"):
        parse_mixture(json.dumps(bad_cov))
    bad_weight = {"classes": [[{"mean": [0, 0], "cov": 1, "weight": -1}], [{"mean": [1, 1], "cov": 1}]]}
    with pytest.raises(ValueError, match="class 1 component 1"):
        parse_mixture(json.dumps(bad_weight))
    priors = {**DEFAULT_MIXTURE, "priors": [0.3, 0.3]}
    with pytest.raises(ValueError, match=r"sum to 0\.6.*\[0\.5, 0\.5\]"):
        check_mixture_text(json.dumps(priors), 200, 0)
    state = SessionStore(**SMALL)
    assert not state.set_mixture(json.dumps(priors)) and "sum to 0.6" in state.message
    _, notes = check_mixture_text(json.dumps({"classes": DEFAULT_MIXTURE["classes"]}), 200, 0)
    assert any("equally likely" in n for n in notes)


def test_one_mlp_trajectory_writes_no_warning():
    from buviz.classifiers import mlp_statuses

    rng = np.random.default_rng(0)
    X = rng.normal(size=(250, 2))  # 250 = one batch of 200 and a last, smaller one of 50
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        statuses = dict(mlp_statuses(X, y, [1, 3]))
    assert [str(w.message) for w in caught] == []
    assert set(statuses) == {1, 3}


def test_a_one_feature_csv_is_refused_whole_and_the_page_keeps_its_data():
    rows = "x,label\n" + "\n".join(f"{i * 0.1:.1f},{'abc'[i % 3]}" for i in range(60))
    with pytest.raises(ValueError, match="only one feature column") as err:
        prepare_csv(rows.encode())
    assert "What works" in str(err.value)
    state = SessionStore(**SMALL)
    snap, before = state.snapshot, state.settings()
    state.upload_csv(rows.encode(), "one.csv")
    state.wait()
    assert "'one.csv' rejected: only one feature column" in state.message
    assert state.snapshot is snap and state.settings() == before and state.computing == ""


def test_a_file_read_past_the_time_budget_is_refused_and_the_data_shown_are_kept(monkeypatch):
    """UPLOAD_TIME_BUDGET_S bounds the reading: a clock that jumps past it between two steps of the
    reading refuses the file with a message, and the page keeps its data and controls."""
    from types import SimpleNamespace

    import buviz.app.upload as upload
    from buviz.app import timebudget

    state = SessionStore(**SMALL)
    snap, before = state.snapshot, state.settings()
    rows = "x1,x2,label\n" + "".join(f"{i % 7},{i % 5},{'ab'[i % 2]}\n" for i in range(200))
    ticks = iter(range(0, 10_000, 20))  # each reading of the clock 20 s after the last: past 30 s at the 3rd
    monkeypatch.setattr(timebudget, "time", SimpleNamespace(monotonic=lambda: next(ticks)))
    with pytest.raises(ValueError, match=r"took more than 30 s"):
        upload.prepare_csv(rows.encode())
    ticks = iter(range(0, 10_000, 20))
    state.upload_csv(rows.encode(), "slow.csv")
    state.wait()
    assert "CSV 'slow.csv' rejected: reading the file took more than 30 s" in state.message
    assert state.snapshot is snap and state.settings() == before and state.computing == ""
    monkeypatch.setattr(timebudget, "time", SimpleNamespace(monotonic=lambda: 0.0))  # a clock that stands still
    state.upload_csv(rows.encode(), "slow.csv")
    state.wait()
    assert state.controls.dataset == "csv"
