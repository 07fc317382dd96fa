"""Executed copies of the teaching notebooks, shared by the test run and the docs build.

Each notebook in ``notebooks/`` is executed once: the test step (``pytest --nbmake`` with the
``pytest_docs`` plugin, see ``scripts/pytest_docs.py``) writes every notebook it executes to
``build/notebooks/NAME.ipynb``, outputs included, and the docs build reads those copies
(myst-nb with ``nb_execution_mode = "off"``). This script completes the set for a docs build on
its own: a stored copy is reused when its code and markdown cells are the ones of the source and no
cell raised, otherwise the notebook is executed here (in ``notebooks/``, as nbmake does).

    python scripts/notebooks.py [--store build/notebooks] [--timeout 600]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "notebooks"
STORE = ROOT / "build" / "notebooks"


def _cells(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source) for c in nb.cells]


def is_current(source: Path, stored: Path) -> bool:
    """Whether ``stored`` is an executed, error-free copy of ``source``'s present cells."""
    if not stored.exists():
        return False
    try:
        a, b = nbformat.read(source, as_version=4), nbformat.read(stored, as_version=4)
    except Exception:  # a half-written copy
        return False
    if _cells(a) != _cells(b):
        return False
    code = [c for c in b.cells if c.cell_type == "code" and c.source.strip()]
    if code and all(c.get("execution_count") is None for c in code):
        return False  # never executed
    return not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))


def execute(source: Path, stored: Path, timeout: int) -> None:
    from nbclient import NotebookClient

    # the kernel imports this checkout's buviz, whatever the environment's install points at
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    nb = nbformat.read(source, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(source.parent)}}).execute()
    stored.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, stored)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", type=Path, default=STORE)
    p.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = p.parse_args(argv)
    for source in sorted(SOURCE.glob("*.ipynb")):
        stored = args.store / source.name
        if is_current(source, stored):
            print(f"notebooks: {source.name}: executed copy is current", flush=True)
            continue
        t0 = time.perf_counter()
        execute(source, stored, args.timeout)
        print(f"notebooks: {source.name}: executed in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
