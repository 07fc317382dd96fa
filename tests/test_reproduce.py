"""The shipped real-data tables (buviz.reproduce): recomputing a cell gives back the shipped values."""

import numpy as np
import pandas as pd
import pytest

import buviz
from buviz import reproduce
from buviz._validation import InvalidParameterError
from buviz.cli import main

SETTINGS = ["dataset", "n_train", "n_test", "n_classes", "cv", "M", "K", "perturbation", "seed", "buviz_version"]


def _shipped():
    return [(s.name, d) for s in reproduce.TABLES.values() for d in s.datasets if reproduce.has_table(s.name, d)]


@pytest.mark.parametrize(("table", "name"), _shipped())
def test_every_shipped_table_states_its_settings(table, name):
    t = reproduce.load_table(table, name)
    assert len(t)
    for col in ("dataset", "n_train", "n_test", "n_classes", "seed", "buviz_version"):
        assert col in t.columns and t[col].notna().all(), col
    assert (t["dataset"] == name).all()
    assert (t["seed"] == reproduce.SEED).all()
    assert set(t["buviz_version"].astype(str)) <= {buviz.__version__}
    assert (t["n_train"] <= reproduce.MAX_TRAIN).all() or name == "gmm"
    if "log2_gamma" in t and table != "table3":
        for _, g in t.groupby([c for c in ("perturbation", "M", "K") if c in t.columns]):
            assert list(g["log2_gamma"]) == list(map(float, reproduce.LOG2_GAMMAS))
    for col in set(reproduce.VALUE_COLUMNS) & set(t.columns) - {"U1_tr"}:
        assert t[col].notna().all(), col


def test_letter_is_subsampled_as_stated():
    t = reproduce.load_table("svm_gamma", "letter")
    assert set(t["n_train"]) == {2000} and set(t["n_test"]) == {2000} and set(t["n_classes"]) == {26}


def test_banknote_cell_recomputed_equals_the_shipped_table():
    """Three γ of the Banknote sweep, with and without T̃, redone from the settings stored in the table."""
    from buviz import sweep

    shipped = reproduce.load_table("svm_gamma", "banknote")
    log2_gammas = [-2.0, 0.0, 2.0]
    for perturbation in (reproduce.PERTURBATION, 0.0):
        rows = shipped[(shipped["perturbation"] == perturbation) & shipped["log2_gamma"].isin(log2_gammas)]
        s = rows.iloc[0]
        ds = reproduce.load_dataset(s["dataset"], int(s["n_train"]), int(s["n_test"]), int(s["seed"]))
        assert (len(ds.y_train), len(ds.y_test)) == (s["n_train"], s["n_test"])
        t = sweep.svm_gamma_sweep(ds, 2.0 ** np.array(log2_gammas), C=float(s["C"]), cv=int(s["cv"]), M=int(s["M"]),
                                  K=s["K"], K_range=reproduce.K_RANGE if s["K_range"] == "paper" else "auto",
                                  separability=s["separability"],
                                  perturbation=perturbation, random_state=int(s["seed"]), n_jobs=1,
                                  cache=False)
        for col in ("L_tr", "L_val", "L_ho", "L_te", "U_tr", "U_te"):
            np.testing.assert_allclose(t[col].to_numpy(), rows[col].to_numpy(), rtol=1e-9, atol=1e-12, err_msg=col)


def test_reproduce_writes_what_load_table_reads_back(tmp_path, monkeypatch):
    """A table written by reproduce() is read back value for value; present tables are kept unless recompute."""
    calls = []

    def fake(name, n_jobs, cache):
        calls.append(name)
        return pd.DataFrame({"dataset": [name] * 2, "seed": [0, 0], "U_tr": [1 / 3, np.pi], "K": ["aic", "aic"]})

    spec = reproduce.TableSpec("svm_gamma", fake, ("banknote",), "test")
    monkeypatch.setitem(reproduce.TABLES, "svm_gamma", spec)
    lines = []
    written = reproduce.reproduce(table="svm_gamma", directory=tmp_path, log=lines.append)
    assert [p.name for p in written] == ["svm_gamma_banknote.csv"] and calls == ["banknote"]
    back = reproduce.load_table("svm_gamma", "banknote", tmp_path)
    assert back["U_tr"].tolist() == [1 / 3, np.pi]  # floats round-trip exactly
    assert reproduce.reproduce(table="svm_gamma", directory=tmp_path, log=lines.append) == []
    assert "present" in lines[-1] and calls == ["banknote"]
    reproduce.reproduce(table="svm_gamma", directory=tmp_path, recompute=True, log=lines.append)
    assert calls == ["banknote", "banknote"]


def test_minima_on_a_known_table():
    t = pd.DataFrame({"log2_gamma": [-2.0, 0.0, 2.0, 4.0], "L_val": [0.3, 0.1, 0.2, 0.4],
                      "U_tr": [0.2, 0.5, 0.9, 0.1]})
    m = reproduce.minima(t)
    assert (m["x_error"], m["x_u"], m["error_at_u"], m["error_min"]) == (0.0, 2.0, 0.2, 0.1)
    # ranks of L_val 3,1,2,4 and of −Û = (−0.2, −0.5, −0.9, −0.1): 3,2,1,4 (the argmin of −Û is the argmax of Û)
    assert m["rho"] == pytest.approx(np.corrcoef([3, 1, 2, 4], [3, 2, 1, 4])[0, 1])


def test_bad_names_are_refused(tmp_path):
    with pytest.raises(InvalidParameterError, match="table"):
        reproduce.load_table("nope", "banknote")
    with pytest.raises(InvalidParameterError, match="dataset"):
        reproduce.load_table("svm_gamma", "gmm")
    with pytest.raises(InvalidParameterError, match="figure"):
        reproduce.reproduce(figure="uncertainty_fig6", directory=tmp_path)
    with pytest.raises(InvalidParameterError, match="exactly one"):
        reproduce.reproduce(directory=tmp_path)
    with pytest.raises(FileNotFoundError, match="buviz reproduce"):
        reproduce.load_table("svm_gamma", "banknote", tmp_path)


def test_cli_reproduce_lists_and_keeps_present_tables(tmp_path, capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "uncertainty_fig7_real" in out and "svm_gamma" in out
    src = reproduce.tables_dir() / "svm_gamma_letter.csv"
    (tmp_path / "svm_gamma_letter.csv").write_bytes(src.read_bytes())
    assert main(["reproduce", "--figure", "uncertainty_fig7_real", "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "present" in out and "wrote 0 table(s)" in out
    assert main(["reproduce", "--figure", "uncertainty_fig77_real"]) == 2
    assert "did you mean" in capsys.readouterr().err
    assert main(["reproduce"]) == 2
