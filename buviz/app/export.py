"""Static export from the explorer: SVG/PNG of each view and the sweep table as CSV.

The figures go through :func:`buviz.figures.to_bytes` -- the Matplotlib path of ``buviz figure``
(Okabe–Ito colours, one font size, −Û on a right-hand axis) -- on the server, so no browser is
involved in the rendering. Each view provides ``figure()`` (a HoloViews object of what it shows now)
and ``twin_y`` (errors left, −Û right); :func:`export_buttons` wraps them in ``FileDownload`` widgets.
"""

from __future__ import annotations

import io
import re

import pandas as pd
import panel as pn

from buviz import figures

__all__ = ["EXPORT_SIZE", "view_bytes", "export_buttons", "sweep_csv", "sweep_filename", "sweep_download"]

#: Width, height (inches) and dpi of an exported view.
EXPORT_SIZE = (7.0, 5.0, 150)


def view_bytes(view, fmt: str = "svg", width: float | None = None, height: float | None = None,
               dpi: int | None = None) -> bytes:
    """The current figure of ``view`` (an object with ``figure()`` and ``twin_y``) as SVG/PNG/PDF bytes."""
    w, h, d = EXPORT_SIZE
    size = getattr(view, "export_size", None) or (w, h)
    return figures.to_bytes(view.figure(), fmt, width or size[0], height or size[1], dpi or d,
                            twin_y=bool(getattr(view, "twin_y", False)))


def export_buttons(view, stem: str, visible=True) -> pn.Row:
    """Two download buttons (SVG, PNG) drawing ``view`` when clicked; ``visible`` (a bool or a
    reactive reference, e.g. "the snapshot has a map") hides them when there is nothing to export."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", stem).strip("_") or "view"

    def make(fmt):
        def callback():
            return io.BytesIO(view_bytes(view, fmt))
        return pn.widgets.FileDownload(callback=callback, filename=f"buviz_{stem}.{fmt}", label=f"Export {fmt.upper()}",
                                       color="light", width=130, embed=False)

    return pn.Row(make("svg"), make("png"), css_classes=["buviz-export"], visible=visible)


def sweep_csv(table: pd.DataFrame | None) -> bytes:
    """The sweep table as UTF-8 CSV (a header only when there is no table yet)."""
    if table is None:
        table = pd.DataFrame()
    return table.to_csv(index=False).encode("utf-8")


def sweep_filename(settings: dict | None) -> str:
    if not settings:
        return "buviz_sweep.csv"
    status = (f"svm_C2^{int(settings['log2_C'])}" if settings.get("classifier") == "SVM" else "mlp")
    name = re.sub(r"[^A-Za-z0-9_^-]+", "_", f"buviz_sweep_{settings['dataset']}_N{settings['n_train']}_"
                                           f"{status}_M{settings['M']}_K{settings['K']}_seed{settings['seed']}")
    return name + ".csv"


def sweep_download(store) -> pn.widgets.FileDownload:
    """Download of the rows of the current sweep received so far (``store.cv_sweep.table``)."""
    fd = pn.widgets.FileDownload(label="Download sweep CSV", color="light", width=180, embed=False,
                                 filename=sweep_filename(store.snapshot.settings if store.snapshot else None))

    def callback():
        fd.filename = sweep_filename(store.snapshot.settings if store.snapshot else None)
        return io.BytesIO(sweep_csv(store.cv_sweep.table))

    fd.callback = callback
    return fd
