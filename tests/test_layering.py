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
