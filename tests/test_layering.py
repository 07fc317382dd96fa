"""The compute layer imports no GUI library: each module, imported alone in a fresh interpreter,
leaves ``panel``, ``holoviews`` and ``bokeh`` out of ``sys.modules``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

COMPUTE_MODULES = ["buviz", "buviz.datasets", "buviz.classifiers", "buviz.uncertainty", "buviz.extrapolation",
                   "buviz.discrete", "buviz.sweep", "buviz.model_selection", "buviz.grid"]
GUI_PACKAGES = ("panel", "holoviews", "bokeh")
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("module", COMPUTE_MODULES)
def test_compute_module_imports_no_gui_library(module):
    code = (f"import sys, importlib; importlib.import_module({module!r}); "
            f"print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in {GUI_PACKAGES!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imports {out.stdout.strip()}"


def test_only_the_app_imports_panel():
    """buviz.plots and buviz.figures build HoloViews objects; Panel (widgets, panes, sessions) is the
    app's: a Display hands Panel its figure through ``__panel__`` without importing it."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1] / "buviz"
    found = [str(p.relative_to(root)) for p in root.rglob("*.py") if "app" not in p.relative_to(root).parts
             and re.search(r"^\s*(import panel|from panel)\b", p.read_text(), re.M)]
    assert found == [], found


def _code_lines(source: str) -> int:
    """Lines that carry code: not blank, not only a comment, not a docstring."""
    import ast
    import io
    import tokenize

    tree = ast.parse(source)
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            docs |= set(range(body[0].lineno, body[0].end_lineno + 1))
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            lines |= set(range(tok.start[0], tok.end[0] + 1))
    return len(lines - docs)


def test_code_lines_are_counted_as_code():
    src = ('"""Module doc."""\n\n# a comment\nx = 1  # trailing\n\n\n'
           'def f():\n    """Doc\n    more."""\n    return (x +\n            2)\n')
    assert _code_lines(src) == 4  # x = 1, def f, and the two lines of the return


def _over(paths, limit: int) -> dict[str, int]:
    """The modules of ``paths`` with more than ``limit`` code lines, and their counts."""
    return {str(p.relative_to(ROOT)): n for p in sorted(paths)
            if (n := _code_lines(p.read_text(encoding="utf-8"))) > limit}


def test_no_module_over_500_code_lines():
    """A module a reader can hold in mind: at most 500 lines of code (docstrings and comments aside)."""
    big = _over((ROOT / "buviz").rglob("*.py"), 500)
    assert big == {}, f"modules over 500 code lines: {big}"


def test_no_explorer_module_over_300_code_lines():
    """The explorer's modules are small enough to read at once (issue 42, item 1: at most 300 code lines)."""
    big = _over((ROOT / "buviz" / "app").glob("*.py"), 300)
    assert big == {}, f"explorer modules over 300 code lines: {big}"
