"""Figs 12 and 13 on every set (buviz._reproduce_variants): the variant cells agree with the sweep cells and
with the shipped tables."""

import pandas as pd
import pytest

from buviz import reproduce
from buviz._reproduce_variants import variant_cell


def _new_sets(table: str, column: str) -> list[str]:
    """The shipped sets of ``table`` computed from variant cells (not from the sweep cells)."""
    return [n for n in reproduce.TABLES[table].datasets
            if n not in reproduce._IN_SWEEP[column] and reproduce.has_table(table, n)]


@pytest.mark.parametrize(("table", "column"), [("u_by_M", "M"), ("u_by_K", "K")])
def test_variant_tables_agree_with_the_sweep_tables(table, column):
    """Every base row (M = 40, K by AIC, with T̃) of a variant table equals the svm_gamma row of the same seed and
    γ: the variant cell's single SVC and Û reproduce the sweep cell's, and the errors are the sweep's."""
    names = _new_sets(table, column)
    assert names, f"no {table} table from variant cells is shipped"
    for name in names:
        t = reproduce.load_table(table, name)
        svm = reproduce.load_table("svm_gamma", name)
        base = t[t["variant"] == "base"].merge(svm[svm["variant"] == "base"], on=["seed", "log2_gamma"],
                                               suffixes=("", "_svm"))
        assert len(base) == len(t[t["variant"] == "base"]) > 0
        for col in ("U_tr", "U_tr_threshold", "n_eff_tr", "L_val", "L_ho", "C"):
            pd.testing.assert_series_equal(base[col], base[f"{col}_svm"], check_names=False, rtol=1e-9, atol=1e-12)
        assert set(t["variant"]) == set(reproduce._figure_variants(name, column)), name
        assert (t["errors_from"] == "svm_gamma").all()


def test_a_recomputed_variant_cell_equals_the_shipped_rows():
    """One variant cell of Banknote redone from scratch: Û_tr under both readings for every K (1 s)."""
    name, seed, lg = "banknote", 1, -2.0
    shipped = reproduce.load_table("u_by_K", name)
    rows = shipped[(shipped["seed"] == seed) & (shipped["log2_gamma"] == lg)].set_index("variant")
    specs = reproduce._figure_variants(name, "K")
    est = reproduce._fit_variants(name, seed, variants=specs)
    cell = variant_cell(reproduce.load_dataset, name, lg, float(rows["C"].iloc[0]),
                        {k: tr for k, (tr, _) in est.items()})
    assert set(cell["values"]) == set(rows.index) == set(specs)
    for key, got in cell["values"].items():
        for col in ("U_tr", "U_tr_threshold", "n_eff_tr"):
            assert got[col] == pytest.approx(rows.at[key, col], rel=1e-9, abs=1e-12), (key, col)


@pytest.mark.slow
def test_reproduce_writes_a_variant_table_equal_to_the_shipped_one(tmp_path):
    """``reproduce(table="u_by_K", datasets=[...], seeds=[0])`` from an empty work dir (C read off the shipped
    svm_gamma table, no CV): the table it writes equals the shipped rows of seed 0 (about 6 s)."""
    name = "breast_cancer_wisconsin"
    written = reproduce.reproduce(table="u_by_K", datasets=[name], seeds=[0], recompute=True,
                                  directory=tmp_path / "tables", work_dir=tmp_path / "cells", log=lambda _: None)
    assert [p.name for p in written] == [f"u_by_K_{name}.csv"]
    got = pd.read_csv(written[0])
    shipped = reproduce.load_table("u_by_K", name)
    shipped = shipped[shipped["seed"] == 0].reset_index(drop=True)
    values = [c for c in shipped.columns if not c.startswith("time_")]
    pd.testing.assert_frame_equal(got[values], shipped[values], rtol=1e-9, atol=1e-12)


def test_a_later_run_adds_to_the_variant_cells_and_computes_only_what_they_lack(tmp_path, monkeypatch):
    """A variant cell grows: a second run (another seed, another figure's variants) computes only the (seed,
    variant) pairs the cells lack, fits only those estimators, and keeps the values already there."""
    from buviz import _reproduce_variants as rv

    asked, fitted = [], []

    def fake_cell(load_dataset, name, lg, C, estimators):
        asked.append((lg, sorted(estimators)))
        return {"log2_gamma": float(lg), "gamma": 2.0 ** lg, "C": C, "L_te": 0.0, "time_fit": 0.0,
                "separability": rv.SEPARABILITY, "values": {k: {"U_tr": float(lg)} for k in estimators}}

    def fake_fit(name, seed, variants, keys):
        fitted.append((seed, sorted(keys)))
        return {k: (f"{seed}:{k}", None) for k in keys}

    monkeypatch.setattr(rv, "variant_cell", fake_cell)
    run = dict(work_dir=tmp_path, log2_gammas=[0, 1], fit=fake_fit, load_dataset=None,
               choose_C=lambda: {"C": 1.0}, log=lambda _: None, n_jobs=1)
    spec = dict(M=40, K="aic", perturbation=0.5, te=False)
    rv.run_variant_cells("banknote", [0], {"base": spec, "M20": spec}, **run)
    rv.run_variant_cells("banknote", [0, 1], {"base": spec, "K3": spec}, **run)
    assert fitted == [(0, ["M20", "base"]), (0, ["K3"]), (1, ["K3", "base"])]
    assert sorted(asked[2:]) == [(lg, ["0|K3", "1|K3", "1|base"]) for lg in (0, 1)]
    for lg in (0, 1):
        cell = rv._read_cell(rv._cell_path(tmp_path, "uvar", "banknote", None, lg))
        assert sorted(cell["values"]) == ["0|K3", "0|M20", "0|base", "1|K3", "1|base"]
    rv.run_variant_cells("banknote", [0, 1], {"base": spec, "K3": spec}, **run)  # nothing left to do
    assert len(asked) == 4 and len(fitted) == 3


@pytest.mark.slow
def test_one_pass_writes_both_figures_variant_tables(tmp_path):
    """``reproduce --all`` computes Fig 12's and Fig 13's variant cells in one pass per dataset, two γ at a time:
    the estimators are fitted once, each γ's cell (one SVC) holds the union of the M and K variants, and both
    tables equal the shipped seed-0 rows, which were computed one variant table and one cell at a time."""
    name = "breast_cancer_wisconsin"
    lines: list[str] = []
    written = reproduce.reproduce(all_tables=True, datasets=[name], seeds=[0], recompute=True, kinds=["uvar"],
                                  n_jobs=2, directory=tmp_path / "tables", work_dir=tmp_path / "cells",
                                  log=lines.append)
    assert sorted(p.name for p in written) == [f"u_by_K_{name}.csv", f"u_by_M_{name}.csv"]
    assert len([line for line in lines if "variants fitted" in line]) == 1, lines
    assert len([line for line in lines if f"{name} variants: cell" in line]) == len(reproduce.LOG2_GAMMAS)
    union = {**reproduce._figure_variants(name, "M"), **reproduce._figure_variants(name, "K")}
    cell = reproduce._read_cell(reproduce._cell_path(tmp_path / "cells", "uvar", name, None, 0))
    assert set(cell["values"]) == {f"0|{k}" for k in union}
    for path in written:
        got = pd.read_csv(path)
        shipped = reproduce.load_table(path.stem[: -len(name) - 1], name)
        shipped = shipped[shipped["seed"] == 0].reset_index(drop=True)
        values = [c for c in shipped.columns if not c.startswith("time_")]
        pd.testing.assert_frame_equal(got[values], shipped[values], rtol=1e-9, atol=1e-12)


@pytest.mark.slow  # imports buviz.figures (its captions are computed at import): 17 s alone, 2 s once imported
@pytest.mark.parametrize(("key", "table", "column"), [("uncertainty_fig12", "u_by_M", "M"),
                                                       ("uncertainty_fig13", "u_by_K", "K")])
def test_insensitivity_verdict_counts_a_direct_scan(key, table, column):
    """The verdict's counts of sets and (set, seed) pairs whose argmins of −Û_tr over the variants lie within one
    step of log₂ γ, against a scan of the shipped tables (argmax of Û_tr per variant, the smallest γ on ties)."""
    from buviz.figures import real_data

    for reading in reproduce.READINGS:
        sets = pairs = n_pairs = 0
        names = real_data._present(key)
        for name in names:
            t = reproduce.load_table(table, name)
            col = reproduce.reading_column(t, reading)
            ok = []
            for _, ts in t.groupby("seed"):
                wide = ts.pivot_table(index="log2_gamma", columns=column, values=col, aggfunc="first").sort_index()
                argmax = wide.idxmax()
                ok.append(argmax.max() - argmax.min() <= 1)
            sets += all(ok)
            pairs += sum(ok)
            n_pairs += len(ok)
        text = real_data._verdict_sensitivity(key, table, column)(reading)
        assert f"on {sets}/{len(names)} sets (in every seed), in {pairs}/{n_pairs} (set, seed) pairs" in text, text
