"""Sphinx configuration of the buviz documentation (``bash scripts/docs.sh`` builds it)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's buviz, whatever the environment's install points at
os.environ.setdefault("MPLBACKEND", "Agg")

project = "buviz"
author = "the buviz developers"
copyright = "2026, the buviz developers"
try:
    from importlib.metadata import version as _version

    release = _version("buviz")
except Exception:  # not installed: read nothing else from the package
    release = "0.1.0"
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinx_design",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "README.md"]
templates_path = ["_templates"]
html_static_path = ["_static"]

# ---------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = "buviz"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False

# ---------------------------------------------------------------- MyST and notebooks
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# The notebooks are executed once, by the test step or scripts/notebooks.py, into build/notebooks/,
# and copied to docs/user_guide/ by scripts/docs.sh: the docs build never executes them.
nb_execution_mode = "off"
nb_merge_streams = True

# ---------------------------------------------------------------- API reference
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": True}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# Warnings from docstrings inside buviz/ that the docstring rewrite will fix are listed below, each
# with the docstring it comes from; remove an entry once its docstring is fixed.
suppress_warnings: list[str] = []

# Panel/HoloViews outputs also carry application/vnd.holoviews_{load,exec}.v0+json, which only a live
# Jupyter frontend uses; the text/html beside them (the figure and its inline JavaScript) is rendered.
suppress_warnings.append("mystnb.unknown_mime_type")
# buviz/model_selection.py (module docstring): a numpydoc References entry that the text does not cite
# ("Citation [R...-1] is not referenced"); for the integrator to fix, then remove this line.
suppress_warnings.append("ref.citation")


def _skip_member(app, what, name, obj, skip, options):
    # scikit-learn's metadata-routing setters (set_fit_request, set_score_request, ...) that every
    # estimator inherits: their docstrings refer to scikit-learn's own glossary.
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)


html_copy_source = False  # the notebooks are several MB each
