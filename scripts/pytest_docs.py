"""pytest plugin: keep what the test run computes anyway and the docs build shows.

``python -m pytest -p scripts.pytest_docs --nbmake --nb-store build/notebooks --figure-store build/gallery``

* ``--nb-store DIR``: every notebook nbmake executes (in its own directory, the source untouched) is
  also written, outputs included, to ``DIR/NAME.ipynb``. ``scripts/notebooks.py`` and the docs build
  reuse those copies instead of executing the notebooks again.
* ``--figure-store DIR``: the figure layout test draws every registered figure at its default export
  size and hands each drawing to ``buviz.figures.layout_problems``; the first drawing of each figure at
  its default size is also saved as the gallery's thumbnail ``DIR/KEY.png`` (with ``DIR/KEY.stamp``, the package
  sources it was drawn from). ``scripts/gallery.py`` renders only the thumbnails missing or stale.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import nbformat
import pytest

THUMB_DPI = 60
_current: dict = {}


def pytest_addoption(parser):
    group = parser.getgroup("buviz docs")
    group.addoption("--nb-store", default=None, metavar="DIR",
                    help="write every notebook nbmake executes, with its outputs, to DIR/NAME.ipynb")
    group.addoption("--figure-store", default=None, metavar="DIR",
                    help="save the figure layout test's drawing of each figure as DIR/KEY.png")


def _atomic(target: Path, write) -> None:
    tmp = target.with_name(target.name + ".part")
    write(tmp)
    tmp.replace(target)  # a reader never sees half a file


def _store_notebooks(store: Path) -> None:
    from nbmake.nb_run import NotebookRun

    if getattr(NotebookRun.execute, "_pytest_docs", False):
        return
    execute = NotebookRun.execute

    def execute_and_store(self, *args, **kwargs):
        result = execute(self, *args, **kwargs)
        store.mkdir(parents=True, exist_ok=True)
        _atomic(store / Path(self.filename).name, lambda p: nbformat.write(result.nb, str(p)))
        return result

    execute_and_store._pytest_docs = True
    NotebookRun.execute = execute_and_store


def _store_figures(store: Path) -> None:
    try:
        figures = importlib.import_module("buviz.figures")
    except Exception:  # the suite reports that itself
        return
    check = getattr(figures, "layout_problems", None)
    if check is None or getattr(check, "_pytest_docs", False):
        return
    from scripts.gallery import stamp

    source_stamp = stamp()

    def check_and_store(fig, *args, **kwargs):
        if _current.get("figure"):  # the last drawing at the first size the test asks for
            size = tuple(fig.get_size_inches())
            _current.setdefault("size", size)
            if size == _current["size"]:
                _current["fig"] = fig
        return check(fig, *args, **kwargs)

    _current["store"], _current["stamp"] = store, source_stamp

    check_and_store._pytest_docs = True
    figures.layout_problems = check_and_store


def pytest_configure(config):
    if config.getoption("--nb-store"):
        _store_notebooks(Path(config.getoption("--nb-store")).resolve())
    if config.getoption("--figure-store"):
        _store_figures(Path(config.getoption("--figure-store")).resolve())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    params = getattr(getattr(item, "callspec", None), "params", {})
    key = params.get("name") or params.get("key")
    _current.pop("figure", None), _current.pop("size", None), _current.pop("fig", None)
    if "figure_layout" in item.nodeid and isinstance(key, str) and "fits" in item.name:
        _current["figure"] = key


def pytest_runtest_teardown(item):
    fig, key, store = _current.pop("fig", None), _current.pop("figure", None), _current.get("store")
    if fig is None or key is None or store is None:
        return
    store.mkdir(parents=True, exist_ok=True)
    _atomic(store / f"{key}.png", lambda p: fig.savefig(p, dpi=THUMB_DPI, format="png"))
    (store / f"{key}.stamp").write_text(_current["stamp"])
