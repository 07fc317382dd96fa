"""``buviz figure <bad name>`` is refused before any figure module is imported (issue 40: it imported
every figure first, 13 s and up to 56 s on a busy machine, to say the name was wrong)."""

from __future__ import annotations

import json
import subprocess
import sys

from buviz import figures
from buviz.cli import figure_names

_PROBE = """
import contextlib, io, json, sys
from buviz.cli import main
err = io.StringIO()
with contextlib.redirect_stderr(err):
    code = main(["figure", "uncertainty_fig_6"])
heavy = sorted(m for m in sys.modules if m.startswith(("buviz.figures", "holoviews", "panel", "bokeh", "matplotlib")))
print(json.dumps({"code": code, "err": err.getvalue(), "heavy": heavy}))
"""


def test_a_bad_figure_name_is_refused_without_importing_the_figures():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["code"] == 2
    assert "NAME: unknown figure 'uncertainty_fig_6'" in got["err"] and "did you mean 'uncertainty_fig6'" in got["err"]
    assert "buviz figure --list" in got["err"]
    assert got["heavy"] == [], f"imported to refuse a name: {got['heavy']}"


def test_the_names_read_from_the_source_are_the_registry():
    keys, aliases = figure_names()
    assert keys == set(figures.REGISTRY)
    assert aliases == set(figures.ALIASES)
