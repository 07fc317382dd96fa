"""The shipped real-data tables (buviz.reproduce): the paper's settings, and a recomputed cell equals the table."""

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import buviz
from buviz import reproduce
from buviz._validation import InvalidParameterError
from buviz.cli import main
from buviz.uncertainty import costs


def _shipped():
    return [(s.name, d) for s in reproduce.TABLES.values() for d in s.datasets if reproduce.has_table(s.name, d)]


@pytest.mark.parametrize(("table", "name"), _shipped())
def test_every_shipped_table_states_its_settings(table, name):
    t = reproduce.load_table(table, name)
    assert len(t)
    for col in ("dataset", "n_train", "n_test", "n_classes", "cv", "C", "C_rule", "seed", "settings",
                "buviz_version"):
        assert col in t.columns and t[col].notna().all(), col
    assert (t["dataset"] == name).all()
    assert set(t["settings"]) == {reproduce.SETTINGS}
    assert set(t["seed"]) <= set(reproduce.SEEDS)
    assert set(t["buviz_version"].astype(str)) <= {buviz.__version__}
    assert (t["cv"] == reproduce.CV).all()
    assert t["C"].isin(reproduce.C_GRID).all() and t["C_rule"].str.contains("10-fold stratified CV").all()
    ds = reproduce.load_dataset(name)
    assert (t["n_train"] == len(ds.y_train)).all() and (t["n_test"] == len(ds.y_test)).all()
    if name in reproduce.TABLE3_DATASETS:  # the paper's N: the whole set (Letter Recognition: 10 000)
        assert (t["n_train"] == costs.TABLE2[reproduce.TABLE3_DATASETS[name]][0]).all()
    if "log2_gamma" in t and table != "table3":
        for _, g in t.groupby(["seed", "variant"]):
            assert list(g["log2_gamma"]) == list(map(float, reproduce.LOG2_GAMMAS))
    for col in set(reproduce.VALUE_COLUMNS) & set(t.columns) - {"U1_tr", "L_te", "U_te"}:
        missing = t[col].isna()  # a reading of Û_te is missing exactly where Û_te is (no test set, an M or K variant)
        assert not missing.any() or (col.startswith("U_te_") and t.loc[missing, "U_te"].isna().all()), col


def test_settings_are_the_papers():
    assert reproduce.LOG2_GAMMAS == tuple(range(-15, 16))
    assert (reproduce.CV, reproduce.HOLDOUT, reproduce.M) == (10, 0.25, 40)
    assert reproduce.SEPARABILITY == "literal" and tuple(reproduce.K_RANGE) == tuple(range(1, 40, 2))
    letter = reproduce.load_dataset("letter")
    assert (len(letter.y_train), len(letter.y_test)) == (10000, 10000)
    for name in ("banknote", "satimage", "abalone"):  # the whole set is the training set, no test set
        ds = reproduce.load_dataset(name)
        assert len(ds.y_test) == 0 and len(ds.y_train) == buviz.datasets.uci_metadata()["datasets"][name]["rows"]


def test_a_recomputed_cell_equals_the_shipped_table():
    """One (dataset, seed, γ) cell of Breast Cancer Wisconsin redone from scratch: every value of the table's rows."""
    shipped = reproduce.load_table("svm_gamma", "breast_cancer_wisconsin")
    seed, lg = 0, -3.0
    rows = shipped[(shipped["seed"] == seed) & (shipped["log2_gamma"] == lg)].set_index("variant")
    est = reproduce._fit_variants("breast_cancer_wisconsin", seed)
    cell = reproduce.sweep_cell("breast_cancer_wisconsin", seed, lg, float(rows["C"].iloc[0]), est)
    for key in ("base", "noT"):
        for col in ("L_tr", "L_val", "L_ho"):
            assert cell["common"][col] == pytest.approx(rows.at[key, col], rel=1e-12, abs=1e-15), col
        assert cell["variants"][key]["n_eff_tr"] == pytest.approx(rows.at[key, "n_eff_tr"], rel=1e-9, abs=1e-12)
        for reading in reproduce.READINGS:  # each reading of eq 39 the table holds, wherever it holds it
            col = reproduce.reading_column(shipped, reading)
            mine = "U_tr" if reading == reproduce.SEPARABILITY else f"U_tr_{reading}"
            if col is not None:
                assert cell["variants"][key][mine] == pytest.approx(rows.at[key, col], rel=1e-9, abs=1e-12), (key, col)
    assert rows.at["noT", "perturbation"] == 0.0 and rows.at["base", "perturbation"] == reproduce.PERTURBATION


#: Cells recomputed under several BLAS kernels: Breast Cancer's duplicated rows (exact ties in the
#: brute neighbour search, d = 9), Banknote's (KD-tree, d = 4) and Wine Quality Red at log₂ γ = 4,
#: where a near-zero IQR decides a bandwidth (Silverman's rule, eq 32).
_KERNEL_CELLS = (("breast_cancer_wisconsin", 0, -3.0), ("banknote", 0, 0.0), ("winequality_red", 0, 4.0))

_CELL_SCRIPT = """
import json, sys
import threadpoolctl
from buviz import reproduce
arch = sorted({i.get("architecture") or "" for i in threadpoolctl.threadpool_info() if i["internal_api"] == "openblas"})
cells = []
for name, seed, lg in json.loads(sys.argv[1]):
    C = float(reproduce.load_table("svm_gamma", name)["C"].iloc[0])
    cells.append(reproduce.sweep_cell(name, seed, lg, C, reproduce._fit_variants(name, seed)))
print(json.dumps({"architecture": arch, "cells": cells}))
"""


def _assert_cell_equals_rows(cell, rows, where):
    """Every value of the shipped rows (with and without T̃) equals the recomputed cell to 1e-9."""
    for key in ("base", "noT"):
        for col in ("L_tr", "L_val", "L_ho", "L_te"):
            assert cell["common"][col] == pytest.approx(rows.at[key, col], rel=1e-12, abs=1e-15, nan_ok=True), \
                (where, col)
        mine = cell["variants"][key]
        for col in ("n_eff_tr", "U_te"):
            assert mine[col] == pytest.approx(rows.at[key, col], rel=1e-9, abs=1e-12, nan_ok=True), (where, key, col)
        for reading in reproduce.READINGS:
            col = reproduce.reading_column(rows, reading)
            got = mine["U_tr" if reading == reproduce.SEPARABILITY else f"U_tr_{reading}"]
            if col is not None:
                assert got == pytest.approx(rows.at[key, col], rel=1e-9, abs=1e-12), (where, key, col)


@pytest.mark.slow
def test_cells_equal_the_shipped_tables_under_every_blas_kernel_and_thread_count():
    """The shipped numbers do not depend on the machine: cells recomputed in subprocesses under
    different OpenBLAS kernels (``OPENBLAS_CORETYPE``) and with one and two BLAS threads equal the
    shipped rows to 1e-9 (exact ties in the neighbour search, a near-zero IQR)."""
    import os
    import subprocess
    import sys

    # Prescott is reported by threadpoolctl as "Katmai" and would be skipped: Sandybridge runs with one
    # and with two threads instead, beside the default kernel (Haswell on an AVX2 machine)
    configs = [(None, 1), (None, 2), ("Sandybridge", 1), ("Sandybridge", 2)]
    procs = []
    for coretype, threads in configs:
        env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
        env.pop("OPENBLAS_CORETYPE", None)
        if coretype:
            env["OPENBLAS_CORETYPE"] = coretype
        procs.append(subprocess.Popen([sys.executable, "-c", _CELL_SCRIPT, json.dumps(_KERNEL_CELLS)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    kernels, skipped = set(), []
    for (coretype, threads), proc in zip(configs, procs, strict=True):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
        got = json.loads(out.strip().splitlines()[-1])
        if coretype is not None and got["architecture"] != [coretype]:
            skipped.append((coretype, got["architecture"]))
            continue  # this CPU cannot run that kernel (OpenBLAS picked another)
        kernels.update(got["architecture"])
        for (name, seed, lg), cell in zip(_KERNEL_CELLS, got["cells"], strict=True):
            shipped = reproduce.load_table("svm_gamma", name)
            rows = shipped[(shipped["seed"] == seed) & (shipped["log2_gamma"] == lg)].set_index("variant")
            _assert_cell_equals_rows(cell, rows, (name, seed, lg, got["architecture"], threads))
    if len(kernels) < 2:
        pytest.skip(f"only the OpenBLAS kernel(s) {sorted(kernels)} run on this machine (asked for and not run: "
                    f"{skipped})")


def test_the_chosen_C_is_the_best_of_the_grid():
    c = reproduce.choose_C("breast_cancer_wisconsin", n_jobs=1)
    assert c["C"] == reproduce.C_GRID[int(np.argmin(c["C_val"]))] and len(c["C_val"]) == len(reproduce.C_GRID)
    shipped = reproduce.load_table("svm_gamma", "breast_cancer_wisconsin")
    assert set(shipped["C"]) == {c["C"]} and set(shipped["C_rule"]) == {c["C_rule"]}


def test_cells_are_shared_kept_and_resumed(tmp_path, monkeypatch):
    """A cell on disk is not computed again; each (dataset, seed, γ) runs CV once for all Û variants."""
    calls = []
    real = reproduce.sweep_cell

    def counting(name, seed, lg, C, est):
        calls.append((name, seed, lg, tuple(est)))
        return real(name, seed, lg, C, est)

    monkeypatch.setattr(reproduce, "LOG2_GAMMAS", (-2, 0))
    monkeypatch.setattr(reproduce, "sweep_cell", counting)
    monkeypatch.setattr(reproduce, "C_GRID", (1.0,))
    two = dataclasses.replace(reproduce.TABLES["svm_gamma"], datasets=("breast_cancer_wisconsin", "banknote"))
    monkeypatch.setitem(reproduce.TABLES, "svm_gamma", two)
    lines = []
    written = reproduce.reproduce(table="svm_gamma", directory=tmp_path / "out", work_dir=tmp_path / "w", seeds=[0],
                                  n_jobs=1, kinds=["sweep"], log=lines.append, recompute=True)
    banknote = reproduce.load_table("svm_gamma", "banknote", tmp_path / "out")
    assert len(banknote) == 4 and set(banknote["variant"]) == {"base", "noT"}  # two γ × (with, without T̃)
    assert len(calls) == 2 * 2  # one cell per (dataset, γ)
    assert any(p.name == "svm_gamma_banknote.csv" for p in written)
    assert any("cell s0_+00 done" in line for line in lines)
    # an interrupted run: drop one cell; the next run computes it alone and the table is the same
    cell = reproduce._cell_path(tmp_path / "w", "sweep", "banknote", 0, 0)
    before = json.loads(cell.read_text())
    cell.unlink()
    calls.clear()
    reproduce.reproduce(table="svm_gamma", directory=tmp_path / "out", work_dir=tmp_path / "w", seeds=[0],
                        n_jobs=1, kinds=["sweep"], log=lines.append, recompute=True)
    assert [c[:3] for c in calls] == [("banknote", 0, 0)]
    after = json.loads(cell.read_text())
    for key in ("base", "noT"):
        assert after["variants"][key]["U_tr"] == before["variants"][key]["U_tr"]
    assert after["common"]["L_val"] == before["common"]["L_val"]
    pd.testing.assert_frame_equal(reproduce.load_table("svm_gamma", "banknote", tmp_path / "out")
                                  .drop(columns=[c for c in banknote if c.startswith("time")]),
                                  banknote.drop(columns=[c for c in banknote if c.startswith("time")]))


def test_minima_on_a_known_table():
    t = pd.DataFrame({"log2_gamma": [-2.0, 0.0, 2.0, 4.0], "L_val": [0.3, 0.1, 0.2, 0.4],
                      "U_tr": [0.2, 0.5, 0.9, 0.1]})
    m = reproduce.minima(t)
    assert (m["x_error"], m["x_u"], m["error_at_u"], m["error_min"]) == (0.0, 2.0, 0.2, 0.1)
    # ranks of L_val 3,1,2,4 and of −Û = (−0.2, −0.5, −0.9, −0.1): 3,2,1,4 (the argmin of −Û is the argmax of Û)
    assert m["rho"] == pytest.approx(np.corrcoef([3, 1, 2, 4], [3, 2, 1, 4])[0, 1])


def test_seed_mean_averages_each_status_over_the_seeds():
    t = pd.DataFrame({"log2_gamma": [0.0, 1.0, 0.0, 1.0], "seed": [0, 0, 1, 1], "L_val": [0.1, 0.2, 0.3, 0.6]})
    m = reproduce.seed_mean(t)
    assert m["log2_gamma"].tolist() == [0.0, 1.0] and m["L_val"].tolist() == pytest.approx([0.2, 0.4])
    assert "seed" not in m


def test_bad_names_are_refused(tmp_path):
    with pytest.raises(InvalidParameterError, match="table"):
        reproduce.load_table("nope", "banknote")
    with pytest.raises(InvalidParameterError, match="dataset"):
        reproduce.load_table("svm_gamma", "gmm")
    with pytest.raises(InvalidParameterError, match="figure"):
        reproduce.reproduce(figure="uncertainty_fig6", directory=tmp_path)
    with pytest.raises(InvalidParameterError, match="exactly one"):
        reproduce.reproduce(directory=tmp_path)
    with pytest.raises(InvalidParameterError, match="name"):
        reproduce.load_dataset("nope")
    with pytest.raises(FileNotFoundError, match="buviz reproduce"):
        reproduce.load_table("svm_gamma", "banknote", tmp_path)


def test_cli_reproduce_lists_and_keeps_present_tables(tmp_path, capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "uncertainty_fig7 " in out and "svm_gamma" in out
    key = next((k for k, (t, names) in reproduce.FIGURE_TABLES.items()
                if all(reproduce.has_table(t, n) for n in names)), None)
    if key is None:
        pytest.skip("no figure has all its tables shipped")
    table, names = reproduce.FIGURE_TABLES[key]
    for n in names:
        (tmp_path / f"{table}_{n}.csv").write_bytes((reproduce.tables_dir() / f"{table}_{n}.csv").read_bytes())
    assert main(["reproduce", "--figure", key, "--out-dir", str(tmp_path), "--work-dir", str(tmp_path / "w")]) == 0
    out = capsys.readouterr().out
    assert "present" in out and "wrote 0 table(s)" in out
    assert main(["reproduce", "--figure", "uncertainty_fig77"]) == 2
    assert "did you mean" in capsys.readouterr().err
    assert main(["reproduce"]) == 2
    assert main(["reproduce", "--all", "--table", "svm_gamma"]) == 2


def test_a_table_computed_without_C_cells_records_the_shipped_C(tmp_path):
    """The MLP's cells never choose C, yet its table records the set's C and C's rule: from an empty work dir
    they are the shipped svm_gamma table's (a recomputed mlp_epoch table once came out with C = NaN)."""
    shipped = reproduce.load_table("svm_gamma", "letter")
    got = reproduce._settings("letter", 0, tmp_path, c_from_shipped=True)
    assert got["C"] == float(shipped["C"].iloc[0]) and got["C_rule"] == shipped["C_rule"].iloc[0]
    assert not (tmp_path / reproduce.SETTINGS).exists()  # read, not written: the work dir is left as it was
    assert np.isnan(reproduce._settings("letter", 0, tmp_path)["C"])  # an SVC table's C is its own cells'


def test_the_mlp_table_records_the_shipped_C():
    t = reproduce.load_table("mlp_epoch", "letter")
    svm = reproduce.load_table("svm_gamma", "letter")
    assert (t["C"] == svm["C"].iloc[0]).all() and (t["C_rule"] == svm["C_rule"].iloc[0]).all()
