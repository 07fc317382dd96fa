"""The claims ledger (buviz.claims, ``buviz claims``): one entry per judged claim, its verdict written in one
place (docs/claims.md is generated from it), and a check that recomputes evidence and notices a change."""

from __future__ import annotations

import pathlib

import pytest

from buviz import claims, reproduce
from buviz.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_registry_figure_that_states_a_claim_is_in_the_ledger_once():
    import buviz.figures as figures

    ids = [c.id for c in claims.claims()]
    stated = {k for k, cls in figures.REGISTRY.items() if getattr(cls, "claim", "")}
    assert len(ids) == len(set(ids)) and stated <= set(ids)
    for c in claims.claims():
        assert c.claim and c.place and c.command and c.verdict(), c.id


def test_the_docs_page_is_the_ledger():
    """docs/claims.md is generated (``buviz claims --markdown``): a verdict changed in the code and not
    in the page fails here."""
    page = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    assert page == claims.markdown(), "docs/claims.md is stale: run `buviz claims --markdown > docs/claims.md`"


def test_a_real_data_verdict_names_both_readings_of_eq_39():
    from buviz.verdicts import READINGS

    text = claims.get("uncertainty_fig8").verdict()
    assert all(f"[{label}]" in text for label in READINGS.values()), text


def test_check_recomputes_a_cell_and_finds_it_equal_to_the_shipped_table():
    result = claims.check("uncertainty_fig8", max_cells=1)  # Breast Cancer, the cheapest set: about 1 s
    assert result.holds is True and "breast_cancer_wisconsin" in result.details[0] and "equal" in result.details[0]


def test_check_notices_evidence_that_no_longer_matches(monkeypatch):
    """The same check against a shipped table whose L_val at −Û_tr's minimum was altered by 1e-6."""
    real = reproduce.load_table

    def altered(table, dataset, directory=None):
        t = real(table, dataset, directory).copy()
        base = (t["seed"] == 0) & (t["variant"] == "base")
        col = reproduce.reading_column(t, "literal") or "U_tr"
        lg = t.loc[base].set_index("log2_gamma")[col].idxmax()
        t.loc[base & (t["log2_gamma"] == lg), "L_val"] += 1e-6
        return t

    monkeypatch.setattr(reproduce, "load_table", altered)
    result = claims.check("uncertainty_fig8", max_cells=1)
    assert result.holds is False and "differ" in result.details[0]


def test_the_command_lists_checks_and_refuses_unknown_ids(capsys):
    assert main(["claims"]) == 0
    out = capsys.readouterr().out
    assert "uncertainty_fig7" in out and "verdict:" in out and "redo:" in out
    assert main(["claims", "--check", "uncertainty_fig77"]) == 2
    assert "did you mean" in capsys.readouterr().err
    with pytest.raises(ValueError, match="max_cells"):
        claims.check("uncertainty_fig8", max_cells=0)
    assert main(["claims", "--check", "extrapolation_fig11"]) == 0  # no quick check: says how to redo it
    assert "no quick check" in capsys.readouterr().out
