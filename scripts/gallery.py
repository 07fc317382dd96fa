"""Generate the docs' figure gallery from the figure registry.

Writes ``docs/gallery/index.md`` (one section per paper, a thumbnail per figure) and
``docs/gallery/KEY.md`` (the figure, its parameter table and the ``buviz figure KEY`` command).
Thumbnails are PNGs of each figure at its default export size and a low dpi, kept in
``build/gallery/``: the test run's figure layout test leaves them there (``scripts/pytest_docs.py``),
and this script renders only those missing or drawn from other package sources (the stamp is a hash
of ``buviz``'s sources outside the app).

Works with both registries: ``buviz.figures.REGISTRY`` of ``PaperFigure`` classes (attributes
``key``, ``paper``, ``kind``, docstring title; ``parameter_table(name)``) and the older one of
``Figure`` records (``name``, ``description``, ``paper``, ``kind``, ``parameter_table()``);
:func:`catalogue` is the adapter.

    python scripts/gallery.py [--jobs 2] [--dpi 60]
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "gallery"
THUMBS = ROOT / "build" / "gallery"

PAPERS = {  # paper id -> (section title, reference label in docs/references.md)
    "uncertainty": ("Boundary uncertainty (Ha et al., 2021)", "ref-uncertainty"),
    "extrapolation": ("Accuracy extrapolation (Zheng, Achanta and Benjamini, 2018)", "ref-extrapolation"),
    "discrete": ("Error estimates in the discrete case (Nedel'ko, 2019)", "ref-discrete"),
}
# the older registry's paper field starts with the source's number
_OLD_PAPER = {"000": "uncertainty", "003": "extrapolation", "004": "extrapolation", "002": "discrete"}


@dataclass
class Entry:
    key: str
    title: str
    paper: str
    kind: str
    parameters: list[dict] = field(default_factory=list)  # name, type, default, bounds, doc
    aliases: list[str] = field(default_factory=list)


def catalogue() -> list[Entry]:
    """Every registered figure as an :class:`Entry`, whichever registry ``buviz.figures`` has."""
    from buviz import figures

    entries = []
    registry = figures.REGISTRY
    aliases: dict[str, list[str]] = {}
    for old, new in getattr(figures, "ALIASES", {}).items():
        aliases.setdefault(new, []).append(old)
    for key, spec in registry.items():
        if isinstance(spec, type):  # the PaperFigure classes
            doc = inspect.getdoc(spec) or key
            table = figures.parameter_table(key)
            params = [{c: row.get(c, "") for c in ("name", "type", "default", "bounds", "doc")}
                      for row in table.to_dict("records")]
            entries.append(Entry(getattr(spec, "key", key), doc.splitlines()[0].strip(), spec.paper,
                                 getattr(spec, "kind", "figure"), params, sorted(aliases.get(key, []))))
        else:  # the older Figure records
            params = [{"name": n, "type": type(d).__name__ if d is not None else "", "default": d, "bounds": b,
                       "doc": ""} for n, d, b in spec.parameter_table()]
            source = str(spec.paper).split()  # e.g. "000 Fig 6": the source's number, then the figure
            paper = _OLD_PAPER.get(source[0], str(spec.paper)) if source else ""
            entries.append(Entry(key, spec.description, paper, spec.kind, params))
    return entries


def stamp() -> str:
    """Hash of the package's non-app sources: a thumbnail is current while this is unchanged."""
    h = hashlib.sha256()
    for path in sorted((ROOT / "buviz").rglob("*.py")):
        if "app" not in path.relative_to(ROOT / "buviz").parts:
            h.update(str(path.relative_to(ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _render(key: str, path: str, dpi: int) -> tuple[str, float, str]:
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    from buviz import figures

    t0 = time.perf_counter()
    kwargs = {"dpi": dpi} if "dpi" in inspect.signature(figures.export).parameters else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            figures.export(key, path, **kwargs)
    except Exception as exc:  # reported by the caller, which fails the build
        return key, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"
    return key, time.perf_counter() - t0, ""


def thumbnails(entries: list[Entry], dpi: int, jobs: int) -> None:
    """Make sure ``build/gallery/KEY.png`` is current for every entry, rendering only what is not.

    A thumbnail is current when ``KEY.stamp`` holds this checkout's :func:`stamp`. The test run's
    figure layout test leaves current ones behind (``scripts/pytest_docs.py``), possibly under an older
    key that :data:`buviz.figures.ALIASES` maps to the entry's.
    """
    THUMBS.mkdir(parents=True, exist_ok=True)
    current = stamp()

    def fresh(key: str) -> bool:
        s = THUMBS / f"{key}.stamp"
        return (THUMBS / f"{key}.png").exists() and s.exists() and s.read_text().strip() == current

    for e in entries:
        for alias in e.aliases:
            if not fresh(e.key) and fresh(alias):
                shutil.copy2(THUMBS / f"{alias}.png", THUMBS / f"{e.key}.png")
                (THUMBS / f"{e.key}.stamp").write_text(current)
    todo = [e.key for e in entries if not fresh(e.key)]
    if not todo:
        print(f"gallery: {len(entries)} thumbnails are current", flush=True)
        return
    t0 = time.perf_counter()
    errors = []
    with ProcessPoolExecutor(max_workers=max(1, min(jobs, len(todo)))) as pool:
        futures = [pool.submit(_render, key, str(THUMBS / f"{key}.png"), dpi) for key in todo]
        for f in futures:
            key, seconds, error = f.result()
            if error:
                errors.append(f"{key}: {error}")
            else:
                (THUMBS / f"{key}.stamp").write_text(current)
            print(f"gallery: {key} {seconds:.1f} s {error}", flush=True)
    if errors:
        raise SystemExit("gallery: figures failed to render:\n" + "\n".join(errors))
    print(f"gallery: rendered {len(todo)} of {len(entries)} thumbnails in {time.perf_counter() - t0:.0f} s",
          flush=True)


def _cell(value) -> str:
    text = "" if value is None else (", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value))
    return text.replace("|", "\\|").replace("\n", " ")


def write_pages(entries: list[Entry]) -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    (OUT / "img").mkdir(parents=True)
    for e in entries:
        shutil.copy2(THUMBS / f"{e.key}.png", OUT / "img" / f"{e.key}.png")
    index = ["# Figure gallery", "",
             "Every figure and table that buviz draws for the three papers, rendered with its default "
             "parameters. The real-data figures draw the shipped tables (their captions say which data sets "
             "and how many seeds they rest on, and which are not shipped yet); the substitutes on "
             "scikit-learn's data or mixtures carry `_sklearn`, `_toy` or `_synthetic` in their keys. "
             "Each page lists the parameters "
             "and the command that exports the figure at print quality.", "",
             "```{toctree}", ":hidden:", ""]
    index += [e.key for e in entries]
    index += ["```", ""]
    for paper, (title, label) in PAPERS.items():
        group = [e for e in entries if e.paper == paper]
        if not group:
            continue
        index += [f"## {title}", "", f"Paper: {{ref}}`{label}`.", "", "::::{grid} 1 2 3 3", ":gutter: 2", ""]
        for e in group:
            index += [f":::{{grid-item-card}} {e.key}", f":link: {e.key}", ":link-type: doc",
                      f":img-top: img/{e.key}.png", f":img-alt: {e.key}", "", e.title, ":::", ""]
        index += ["::::", ""]
    others = [e for e in entries if e.paper not in PAPERS]
    if others:
        index += ["## Other figures", ""] + [f"- {{doc}}`{e.key}`" for e in others] + [""]
    (OUT / "index.md").write_text("\n".join(index), encoding="utf-8")

    for e in entries:
        title, label = PAPERS.get(e.paper, (e.paper, ""))
        page = [f"# {e.key}", "", e.title, "",
                f"*{e.kind.capitalize()} from* {{ref}}`{label}`." if label else "", "",
                f"```{{image}} img/{e.key}.png", f":alt: {e.key}", "```", "",
                "Export it (SVG, PDF or PNG; tables also as CSV), changing any parameter with `--set`:", "",
                "```bash", f"buviz figure {e.key} --out {e.key}.pdf", f"buviz figure {e.key} --params", "```", ""]
        if e.aliases:
            page += ["Older key" + ("s" if len(e.aliases) > 1 else "") + ": "
                     + ", ".join(f"`{a}`" for a in e.aliases) + ".", ""]
        page += ["## Parameters", ""]
        if e.parameters:
            page += ["| name | type | default | accepted values | description |", "|---|---|---|---|---|"]
            page += ["| " + " | ".join(f"`{_cell(p['name'])}`" if c == "name" else _cell(p[c])
                                        for c in ("name", "type", "default", "bounds", "doc")) + " |"
                     for p in e.parameters]
        else:
            page += ["None."]
        page += [""]
        (OUT / f"{e.key}.md").write_text("\n".join(page), encoding="utf-8")
    print(f"gallery: wrote {len(entries) + 1} pages to {OUT.relative_to(ROOT)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--dpi", type=int, default=60, help="thumbnail resolution (the export's default size)")
    args = p.parse_args(argv)
    entries = catalogue()
    thumbnails(entries, args.dpi, args.jobs)
    write_pages(entries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
