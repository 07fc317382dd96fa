"""The README's promises and the docs build's scripts (scripts/gallery.py, scripts/notebooks.py)."""

import importlib.util
import sys
import types
from pathlib import Path

import nbformat
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script(name):
    spec = importlib.util.spec_from_file_location(f"_docs_{name}", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_readme_is_short_and_names_the_two_commands_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 6 * 1024
    assert "bash scripts/serve.sh" in readme and "bash scripts/test.sh" in readme
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == "bash scripts/test.sh"
    for shorthand in ("SPEC §", "seed 000", "the issue's goal"):
        assert shorthand not in readme


def _fake_new_registry():
    class PaperFigure:
        pass

    class Fig6(PaperFigure):
        """Errors and −Û against log₂γ.

        Longer text.
        """

        key, paper, kind = "uncertainty_fig6", "uncertainty", "figure"

    module = types.ModuleType("buviz.figures")
    module.REGISTRY = {"uncertainty_fig6": Fig6}
    module.ALIASES = {"bu_fig6": "uncertainty_fig6"}
    module.parameter_table = lambda name: pd.DataFrame(
        [{"name": "n_train", "type": "Integer", "default": 300, "bounds": "(20, None)", "doc": "training size"}])
    return module


def test_gallery_catalogue_reads_the_paperfigure_registry(monkeypatch):
    import buviz
    import buviz.figures  # noqa: F401 -- so that monkeypatch puts the real module back afterwards

    fake = _fake_new_registry()
    monkeypatch.setitem(sys.modules, "buviz.figures", fake)
    monkeypatch.setattr(buviz, "figures", fake)
    (entry,) = _script("gallery").catalogue()
    assert (entry.key, entry.paper, entry.kind) == ("uncertainty_fig6", "uncertainty", "figure")
    assert entry.title == "Errors and −Û against log₂γ."
    assert entry.aliases == ["bu_fig6"]
    assert entry.parameters == [{"name": "n_train", "type": "Integer", "default": 300, "bounds": "(20, None)",
                                 "doc": "training size"}]


def test_gallery_catalogue_reads_the_installed_registry():
    gallery = _script("gallery")
    entries = gallery.catalogue()
    assert len(entries) >= 20
    assert {e.paper for e in entries} == set(gallery.PAPERS)
    assert all(e.title and e.kind in ("figure", "table") for e in entries)


def test_executed_notebook_is_reused_only_while_current(tmp_path):
    notebooks = _script("notebooks")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# t"), nbformat.v4.new_code_cell("1 + 1")])
    source, stored = tmp_path / "a.ipynb", tmp_path / "store" / "a.ipynb"
    nbformat.write(nb, source)
    assert not notebooks.is_current(source, stored)  # none stored
    stored.parent.mkdir()
    nbformat.write(nb, stored)
    assert not notebooks.is_current(source, stored)  # stored but never executed
    nb.cells[1].execution_count = 1
    nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)]
    nbformat.write(nb, stored)
    assert notebooks.is_current(source, stored)
    nb.cells[1].outputs = [nbformat.v4.new_output("error", ename="E", evalue="", traceback=[])]
    nbformat.write(nb, stored)
    assert not notebooks.is_current(source, stored)  # a cell raised
    nb.cells[1].outputs = []
    nbformat.write(nb, stored)
    edited = nbformat.read(source, as_version=4)
    edited.cells[1].source = "1 + 2"
    nbformat.write(edited, source)
    assert not notebooks.is_current(source, stored)  # the source changed since


@pytest.mark.parametrize("script", ["serve.sh", "test.sh", "docs.sh"])
def test_commands_use_a_project_environment(script):
    text = (ROOT / "scripts" / script).read_text()
    assert "source scripts/env.sh" in text and "pip install" in text.replace("$PY -m pip", "pip install")
