"""Matplotlib export engine of the :mod:`buviz.plots` builders (no browser involved).

A HoloViews object built by the builders is drawn with the Matplotlib backend at an explicit size in
inches and dpi, with one font setting, the palette of :mod:`buviz.plots.style` and the papers' axis
conventions (errors on the left axis, −Û on a right-hand twin axis); :func:`draw` returns the
Matplotlib figure, :func:`save` writes it, and :func:`layout_problems` lists overlapping or clipped
text. Used by :func:`buviz.figures.export` and the explorer's export buttons.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd
from cycler import cycler

from buviz.plots._hv_compat import layout_columns
from buviz.plots.style import OKABE_ITO, PALETTE

__all__ = ["OKABE_ITO", "FONT_SIZE", "FORMATS", "to_matplotlib", "draw", "save", "figure_bytes", "layout_problems"]

#: Base font size (points) of every exported figure; titles get +1.
FONT_SIZE = 8.0
#: Extensions :func:`export` writes (``.csv`` for tables only).
FORMATS = (".svg", ".pdf", ".png", ".csv")



def _align_with_boxes(overlay):
    """Put an overlay's categorical Scatter and Curve on its BoxWhisker's boxes.

    HoloViews' Matplotlib backend draws the boxes of a BoxWhisker at x = 1..n (Matplotlib's ``boxplot``
    default) but a Scatter or Curve with categorical (text) x at 0..n-1, so the points and curves of an
    overlay such as Fig 6's would sit one category to the left of their boxes. Their x is replaced by
    the position of the box with the same label. Bokeh shares one categorical axis and needs nothing.
    """
    if not isinstance(overlay, hv.Overlay):
        return overlay
    boxes = [e for e in overlay if isinstance(e, hv.BoxWhisker) and e.kdims]
    if not boxes:
        return overlay
    kdim = boxes[0].kdims[0]
    keys = pd.unique(boxes[0].dimension_values(kdim))  # HoloViews groups the boxes in order of appearance
    position = {}
    for i, key in enumerate(keys):
        position.setdefault(kdim.pprint_value(key), i + 1.0)
        position.setdefault(str(key), i + 1.0)

    def move(el):
        x = el.dimension_values(0)
        if x.dtype.kind not in "OUS" or not all(str(v) in position for v in x):
            return el
        data = {d.name: el.dimension_values(d) for d in el.dimensions()}
        data[el.kdims[0].name] = np.array([position[str(v)] for v in x])
        return el.clone(data)

    return overlay.map(move, [hv.Scatter, hv.Curve])


def to_matplotlib(obj):
    """The object as the Matplotlib backend should draw it.

    The builders set each element's Matplotlib options at build time (:func:`buviz.plots.style.opts`),
    so only what belongs to a static page is added here: a layout loses its panel letters, and
    categorical points and curves drawn over boxes are put on their boxes (:func:`_align_with_boxes`).
    """
    if isinstance(obj, hv.Overlay):
        obj = _align_with_boxes(obj)
    elif isinstance(obj, hv.Layout | hv.NdLayout):
        obj = obj.map(_align_with_boxes, hv.Overlay)
    if isinstance(obj, hv.Layout | hv.NdLayout):
        ncols = layout_columns(obj)
        out = hv.Layout(list(obj)).opts(backend="matplotlib", sublabel_format="")
        return out.cols(ncols) if ncols else out
    return obj


def _has_data(artist) -> bool:
    if hasattr(artist, "get_xdata"):
        x = np.asarray(artist.get_xdata(), dtype=float)
        y = np.asarray(artist.get_ydata(), dtype=float)
        return bool(len(x)) and bool(np.isfinite(x).any() and np.isfinite(y).any())
    offs = np.asarray(artist.get_offsets(), dtype=float)
    return bool(len(offs)) and bool(np.isfinite(offs).all(axis=1).any())


def _is_vertical(ln) -> bool:
    x = np.asarray(ln.get_xdata(), dtype=float)
    return len(x) == 2 and x[0] == x[1]


def _twin_axes(fig) -> None:
    """Move the −Û artists of each axes that also shows errors onto a right-hand twin axis (Figs 6-13);
    an axes showing only −Û gets its y axis on the right, as in the paper."""
    from matplotlib.collections import PathCollection

    for ax in list(fig.axes):
        if getattr(ax, "_buviz_twin", False):
            continue
        u_lines = [ln for ln in ax.lines if getattr(ln, "_buviz_u", False) and _has_data(ln)]
        u_colls = [c for c in ax.collections if isinstance(c, PathCollection) and getattr(c, "_buviz_u", False)
                   and _has_data(c)]
        others = [ln for ln in ax.lines if not getattr(ln, "_buviz_u", False) and _has_data(ln)
                  and not _is_vertical(ln)]
        if not (u_lines or u_colls):
            continue
        if not others:  # only −Û on this axes: the paper reads it against the right-hand axis
            ax.yaxis.tick_right()
            ax.yaxis.set_label_position("right")
            ax.set_ylabel("−Û (best −1)")
            continue
        ax.set_aspect("auto")  # a fixed data aspect would move the frozen limits (adjustable="datalim")
        tw = ax.twinx()
        tw._buviz_twin = True
        for ln in u_lines:
            ln.remove()
            ln.set_transform(tw.transData)
            tw.add_line(ln)
        for c in u_colls:
            c.remove()
            c.set_offset_transform(tw.transData)
            c.set_transform(c.get_transform())
            tw.add_collection(c)
        for a in (ax, tw):
            a.relim()
            a.set_autoscaley_on(True)
            a.autoscale_view(scalex=False)
            a.set_ylim(a.get_ylim())  # freeze: a lazy re-autoscale at draw time would undo this
        tw.set_ylabel("−Û (best −1)")
        ax.set_ylabel("error rate")


def _uniform_fonts(fig, size: float) -> None:
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        is_title = any(t is getattr(ax, attr, None) for ax in fig.axes for attr in ("title", "_left_title",
                                                                                     "_right_title"))
        t.set_fontsize(size + 1 if is_title else size)


#: Most of a table export's height its caption may take; a longer caption (the claim and the verdict at a
#: small size) is cut to its title sentence, then to the lines that fit, ending in "…".
CAPTION_SHARE = 0.25


def _table_figure(df: pd.DataFrame, width: float, height: float, title: str):
    """A table as the screen shows it (:func:`buviz.plots.tables.shown_table`: no index column, each
    column at the decimals that matter, empty cells marked), its caption wrapped above and the note on
    its empty cells below, the columns as wide as their text in proportion."""
    import textwrap

    import matplotlib.figure

    from buviz.plots.tables import missing_note, shown_table

    fig = matplotlib.figure.Figure(figsize=(width, height))
    chars = max(int(width * 72 / (0.62 * (FONT_SIZE + 1))), 20)  # characters per line at the title's size
    line = 1.35 * (FONT_SIZE + 1) / 72 / height  # one line of text, as a fraction of the height
    caption = textwrap.wrap(title, chars)
    most = max(1, int(CAPTION_SHARE / line))  # lines the caption may take
    if len(caption) > most:  # a small export: the title sentence, then cut (the full caption is the figure's)
        caption = textwrap.wrap(title.split(". Paper: ")[0], chars)
        if len(caption) > most:
            caption = [*caption[:most - 1], caption[most - 1].rstrip(" .,;") + " …"]
    note = textwrap.wrap(missing_note(df), int(chars * 1.1))
    top, bottom = 0.02 + line * len(caption), 0.02 + line * len(note)
    if caption:
        fig.text(0.01, 0.99, "\n".join(caption), fontsize=FONT_SIZE + 1, ha="left", va="top")
    if note:
        fig.text(0.01, 0.01, "\n".join(note), fontsize=FONT_SIZE - 1, ha="left", va="bottom")
    ax = fig.add_axes((0.01, bottom, 0.98, max(1 - top - bottom, 0.05)))
    ax.axis("off")
    shown = shown_table(df)
    chars_of = [max([len(str(c)), *map(len, shown[c])]) + 2 for c in shown.columns]
    tab = ax.table(cellText=shown.to_numpy(), colLabels=[str(c) for c in shown.columns], loc="center",
                   cellLoc="center", colWidths=[n / sum(chars_of) for n in chars_of])  # widths ∝ their text
    tab.auto_set_font_size(False)
    tab.set_fontsize(FONT_SIZE - 1)
    tab.scale(1.0, 1.2)
    return fig


def _rc():
    return {"font.size": FONT_SIZE, "font.family": "DejaVu Sans", "axes.titlesize": FONT_SIZE + 1,
            "axes.labelsize": FONT_SIZE, "xtick.labelsize": FONT_SIZE, "ytick.labelsize": FONT_SIZE,
            "legend.fontsize": FONT_SIZE - 1, "svg.fonttype": "none", "pdf.fonttype": 42,
            "svg.hashsalt": "buviz",  # stable element ids: the same figure gives the same bytes
            "axes.prop_cycle": cycler(color=list(PALETTE))}



def draw(obj, kind: str, width: float, height: float, dpi: int, *, twin_y: bool = False, title: str = ""):
    """A Matplotlib figure of a HoloViews object (or a DataFrame drawn as a table) at the given size.

    Parameters
    ----------
    obj : HoloViews object built by the :mod:`buviz.plots` builders, or a ``pandas.DataFrame``.
    kind : ``"figure"`` or ``"table"`` (a DataFrame drawn as a table).
    width, height : float
        Size in inches; it never changes, fonts and tick counts shrink to fit instead.
    dpi : int
        Resolution.
    twin_y : bool
        Move the −Û elements to a right-hand axis (the papers' convention for errors and −Û).
    title : str
        Title of a table.
    """
    import warnings

    import matplotlib

    with matplotlib.rc_context(_rc()), warnings.catch_warnings():
        # Two notices HoloViews' own Matplotlib plots trigger (hollow 'x' markers, VSpan colours); the
        # drawing is right, so they are not passed on to the user.
        for message in ("You passed an edgecolor", "Setting the 'color' property will override"):
            warnings.filterwarnings("ignore", message=message, category=UserWarning)
        if kind == "table":
            return _table_figure(obj, width, height, title)
        mobj = to_matplotlib(obj)
        fig = hv.render(mobj, backend="matplotlib")
        fig.set_size_inches(width, height)
        fig.set_dpi(dpi)
        if twin_y:
            _twin_axes(fig)
        named = obj.opts.get(backend="matplotlib").kwargs.get("title") if isinstance(obj, hv.Layout) else None
        if named:  # the data a layout shows (dataset, N, seeds): HoloViews draws no layout title
            fig.suptitle(named, fontsize=FONT_SIZE + 1)
        _tidy_layout(fig)
    return fig


def save(fig, target, fmt: str, dpi: int) -> None:
    """Write a drawn figure to ``target`` (a path or a binary file object) as ``fmt`` (svg, pdf, png),
    without a creation date so that the same figure gives the same bytes; closes the figure."""
    import matplotlib
    import matplotlib.pyplot as plt

    try:
        with matplotlib.rc_context(_rc()):
            # no creation date in the file, so exports are reproducible byte for byte
            metadata = {"Date": None} if fmt == "svg" else {"CreationDate": None} if fmt == "pdf" else None
            fig.savefig(target, dpi=dpi, format=fmt, metadata=metadata)
    finally:
        plt.close(fig)



def _tidy_layout(fig) -> None:
    """Fit titles, labels, legends and colorbars inside the requested size (the size itself never changes).

    HoloViews places the axes itself (fixed positions, data aspects, colorbars added beside the axes);
    here every axes goes back on one figure-level grid with a box aspect instead of a data aspect, the
    colorbars are re-attached so that Matplotlib's constrained layout makes room for them, and the fonts
    and tick counts shrink step by step until :func:`layout_problems` finds no overlapping or clipped text
    (or the smallest step is reached).
    """
    from matplotlib.legend import Legend
    from matplotlib.ticker import FixedLocator, MaxNLocator

    for ax in fig.axes:  # one categorical legend per layer: keep one of each (title, entries)
        seen = set()
        for leg in reversed([c for c in ax.get_children() if isinstance(c, Legend)]):  # the last one is drawn
            key = (leg.get_title().get_text(), frozenset(t.get_text() for t in leg.get_texts()))
            if key in seen:
                leg.set_visible(False)
            seen.add(key)
    grids: dict = {}
    for ax in list(fig.axes):
        spec = ax.get_subplotspec()
        if spec is None:
            continue
        spec = spec.get_topmost_subplotspec()
        gs = spec.get_gridspec()
        if gs not in grids:
            grids[gs] = fig.add_gridspec(gs.nrows, gs.ncols)
        if ax.get_aspect() != "auto":
            ratio = ax.get_data_ratio() * ax.get_aspect()
            ax.set_aspect("auto")
            ax.set_box_aspect(ratio)
        ax.set_in_layout(True)
        ax.set_subplotspec(grids[gs][spec.rowspan.start:spec.rowspan.stop, spec.colspan.start:spec.colspan.stop])
    _outer_axis_labels_only(fig)
    fig.set_layout_engine("constrained", w_pad=0.02, h_pad=0.02, wspace=0.02, hspace=0.02)
    for cax in list(fig.axes):
        cbar = getattr(cax, "_colorbar", None)
        parent = getattr(getattr(cbar, "mappable", None), "axes", None)
        if cbar is None or parent is None:
            continue
        label = cax.get_ylabel()
        cax.remove()
        fig.colorbar(cbar.mappable, ax=parent, fraction=0.08, pad=0.02).set_label(label)
    for size, nbins in ((FONT_SIZE, None), (FONT_SIZE - 1, 5), (FONT_SIZE - 2, 4), (FONT_SIZE - 3, 3)):
        _uniform_fonts(fig, size)
        if nbins:
            for ax in fig.axes:
                if hasattr(ax, "_colorbar"):
                    continue
                for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
                    if scale == "linear":
                        axis.set_major_locator(MaxNLocator(nbins))
        problems = layout_problems(fig)
        if problems and size == FONT_SIZE and _legends_inside(fig):
            problems = layout_problems(fig)
        if not problems:
            break
    else:
        _stack_legends(fig)
    layout_problems(fig)  # one last draw with the layout engine on, then freeze: a later draw or save
    fig.set_layout_engine("none")  # (outside this rc context) must not move what was checked
    for ax in fig.axes:  # nor change the ticks: an automatic locator picks them by the font size of the
        for axis in (ax.xaxis, ax.yaxis):  # moment, and wider tick labels push a label off the figure
            if isinstance(axis.get_major_locator(), MaxNLocator):  # AutoLocator is one
                axis.set_major_locator(FixedLocator(axis.get_majorticklocs()))


def _outer_axis_labels_only(fig) -> bool:
    """In a uniform grid of twin-axis panels (the same left and right y labels in every panel), keep a
    left label only in the first column and a right label only in the last one: the inner ones repeat
    the outer ones and, at small sizes, collide with the neighbour's. Returns whether a label was removed."""
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None and not hasattr(ax, "_colorbar")]
    left = [ax for ax in panels if ax.yaxis.get_label_position() == "left"]
    right = [ax for ax in panels if ax.yaxis.get_label_position() == "right"]
    if len(left) < 2 or len(right) != len(left) or len({a.get_ylabel() for a in left}) != 1 \
            or len({a.get_ylabel() for a in right}) != 1:
        return False  # only a uniform grid (every panel the same twin-axis pair, e.g. Figs 8 and 11)
    removed = False
    for ax in panels:
        spec = ax.get_subplotspec()
        if spec is None or not ax.get_ylabel():
            continue
        spec = spec.get_topmost_subplotspec()
        right = ax.yaxis.get_label_position() == "right"
        inner = spec.colspan.stop < spec.get_gridspec().ncols if right else spec.colspan.start > 0
        same_row = [o for o in fig.axes if o is not ax and o.get_subplotspec() is not None
                    and o.get_subplotspec().get_topmost_subplotspec().rowspan == spec.rowspan
                    and (o.yaxis.get_label_position() == "right") == right]
        if inner and any(o.get_ylabel() == ax.get_ylabel() for o in same_row):
            ax.set_ylabel("")
            removed = True
    return removed


def _stack_legends(fig) -> None:
    """Still crowded at the smallest fonts: drop a legend repeating another panel's, stack the rest."""
    from matplotlib.legend import Legend

    # still crowded at the smallest fonts: stack the legends of each axes in one corner, one below the other
    renderer = fig.canvas.get_renderer()
    shown = set()
    for ax in fig.axes:  # a legend that repeats another panel's entries and covers text goes
        for leg in [c for c in ax.get_children() if isinstance(c, Legend) and c.get_visible()]:
            key = (leg.get_title().get_text(), tuple(t.get_text() for t in leg.get_texts()))
            too_tall = leg.get_window_extent(renderer).height > 0.7 * ax.get_window_extent(renderer).height
            if key in shown and (too_tall or _legend_hits_text(fig, leg, renderer)):
                leg.set_visible(False)
            shown.add(key)
    for ax in fig.axes:
        legends = [c for c in ax.get_children() if isinstance(c, Legend) and c.get_visible()]
        if len(legends) < 2 and not (legends and _legend_hits_text(fig, legends[0], renderer)):
            continue
        top = 1.0
        for leg in legends:
            leg.set_loc("upper right")
            leg.set_bbox_to_anchor((0, 0, 1, top), transform=ax.transAxes)
            fig.canvas.draw()
            bb = leg.get_window_extent(renderer).transformed(ax.transAxes.inverted())
            top = bb.y0


def _legend_hits_text(fig, legend, renderer) -> bool:
    """True if a legend overlaps a text of the figure outside the legend."""
    from matplotlib.text import Text

    box = legend.get_window_extent(renderer)
    own = {id(t) for t in legend.findobj(Text)}
    return any(t.get_visible() and t.get_text().strip() and box.overlaps(t.get_window_extent(renderer))
               for t in fig.findobj(Text) if id(t) not in own)


def _legends_inside(fig) -> bool:
    """Move legends that stick out of the figure into their axes; True if one moved."""
    from matplotlib.legend import Legend

    renderer = fig.canvas.get_renderer()
    moved = False
    for ax in fig.axes:
        for leg in [c for c in ax.get_children() if isinstance(c, Legend)]:
            bb = leg.get_window_extent(renderer)
            if bb.x0 < fig.bbox.x0 or bb.x1 > fig.bbox.x1 or bb.y0 < fig.bbox.y0 or bb.y1 > fig.bbox.y1:
                leg.set_bbox_to_anchor(None)
                leg.set_loc("best")
                moved = True
    return moved


def layout_problems(fig, tol: float = 1.0) -> list[str]:
    """Overlapping or clipped text of a drawn Matplotlib figure: a list of readable messages, empty when
    every tick label, axis label, title, colorbar label and legend entry lies inside the figure and no
    two of them overlap by more than ``tol`` pixels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.legend import Legend
    from matplotlib.text import Text

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts, tick_texts = [], set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks = axis.get_major_ticks() + axis.get_minor_ticks()
            tick_texts.update(id(lab) for t in ticks for lab in (t.label1, t.label2))
            if not (ax.get_visible() and ax.axison and axis.get_visible()):
                continue
            lo, hi = sorted(axis.get_view_interval())
            eps = 1e-9 * (hi - lo)
            for tick in axis.get_major_ticks():  # only the ticks drawn (inside the view limits)
                loc = tick.get_loc()
                if loc is None or not lo - eps <= loc <= hi + eps:
                    continue
                texts += [lab for lab in (tick.label1, tick.label2) if lab.get_visible() and lab.get_text().strip()]

    def visible(artist):  # the artists that are drawn: an invisible parent hides its children
        if artist.get_visible():
            yield artist
            for child in artist.get_children():
                yield from visible(child)

    texts += [t for t in visible(fig) if isinstance(t, Text) and id(t) not in tick_texts and t.get_text().strip()]
    boxes = [(t, t.get_window_extent(renderer)) for t in texts]
    boxes = [(t, bb) for t, bb in boxes if bb.width > 0 and bb.height > 0]
    fb = fig.bbox
    out = [f"clipped text {t.get_text()!r}" for t, bb in boxes
           if bb.x0 < fb.x0 - tol or bb.y0 < fb.y0 - tol or bb.x1 > fb.x1 + tol or bb.y1 > fb.y1 + tol]
    def hit(a, b) -> bool:
        return min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol

    for i, (t, a) in enumerate(boxes):
        for u, b in boxes[i + 1:]:
            if hit(a, b):
                out.append(f"overlapping text {t.get_text()!r} / {u.get_text()!r}")
    # legend frames: two legends must not overlap, nor a legend cover a text that is not its own
    legends = [(leg, leg.get_window_extent(renderer)) for leg in visible(fig) if isinstance(leg, Legend)]
    for i, (leg, a) in enumerate(legends):
        own = {id(t) for t in leg.findobj(Text)}
        for other, b in legends[i + 1:]:
            if hit(a, b):
                out.append(f"overlapping legends {_legend_name(leg)} / {_legend_name(other)}")
        out += [f"legend {_legend_name(leg)} covers {t.get_text()!r}" for t, b in boxes
                if id(t) not in own and hit(a, b)]
    return out


def _legend_name(leg) -> str:
    return repr(leg.get_title().get_text() or ", ".join(t.get_text() for t in leg.get_texts()[:2]))



def figure_bytes(obj, fmt: str = "svg", width: float = 6.0, height: float = 4.0, dpi: int = 150, *,
                 twin_y: bool = False, title: str = "") -> bytes:
    """:func:`draw` then :func:`save` into memory: the file content as bytes (``fmt``: svg, pdf or png)."""
    import io

    kind = "table" if isinstance(obj, pd.DataFrame) else "figure"
    fig = draw(obj, kind, width, height, dpi, twin_y=twin_y, title=title)
    buf = io.BytesIO()
    save(fig, buf, fmt, dpi)
    return buf.getvalue()
