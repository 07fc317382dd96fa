"""One style for the screen (Bokeh) and the static export (Matplotlib).

One palette -- Okabe & Ito's colour-blind-safe eight colours, extended for many classes by Glasbey's
categorical colours -- and the semantic styles of the papers'
figures built from it: a colour and dash per estimator or sweep column, class colours, B(Λ) and the
Bayes boundary B*, the colour map of the probability weights and the diverging map of f(x;Λ). The
builders of :mod:`buviz.plots` set their options through :func:`opts`, which gives every element the
same colours, widths, dashes and markers on both backends at build time, so an exported figure shows
what the screen shows.

References
----------
M. Okabe, K. Ito, "Color Universal Design (CUD): how to make figures and presentations that are
friendly to colorblind people", J*FLY, 2008, https://jfly.uni-koeln.de/color/.

C. Glasbey, G. van der Heijden, V. F. K. Toh, A. Gray, "Colour displays for categorical images",
Color Research & Application 32(4), 304-309, 2007 (doi:10.1002/col.20327); the palettes of colorcet
(P. Kovesi, "Good colour maps: how to design them", arXiv:1509.03700, 2015).
"""

from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the bokeh backend so .opts works headless)
import holoviews.plotting.mpl  # noqa: F401  (registers the matplotlib backend; the current one stays bokeh)
import numpy as np
from colorcet import glasbey_dark

from buviz.plots._hv_compat import allowed_options, layout_columns

__all__ = ["OKABE_ITO", "PALETTE", "CLASS_COLORS", "BOUNDARY_COLOR", "BAYES_COLOR", "HIGHLIGHT_COLOR",
           "WEIGHT_CMAP", "DIVERGING_CMAP", "SEQUENTIAL_CMAP", "CURVE_STYLES", "AMPLITUDE_PALETTE", "METHOD_COLORS",
           "NEG_U", "COLOR_WORDS",
           "CLASS_DELTA_E", "cie_lab", "class_color", "opts", "SCREEN_DPI", "screen_sized", "wrapped_title",
           "LEGEND_BELOW"]

#: Okabe & Ito (2008) colour-blind-safe palette: orange, sky blue, bluish green, yellow, blue,
#: vermillion, reddish purple, black.
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
#: Colours of curves, estimators and settings in order (the palette without yellow first, then grey).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#777777")


def cie_lab(colors) -> np.ndarray:
    """CIE L*a*b* coordinates (D65 white) of ``#rrggbb`` colours: an (n, 3) array.

    Euclidean distances between rows are CIE76 colour differences ΔE*ab (about 2.3 is a just
    noticeable difference; tens are colours told apart at a glance).
    """
    rgb = np.array([[int(c.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)] for c in colors], dtype=float)
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                       [0.0193339, 0.1191920, 0.9503041]])
    xyz = lin @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])])


#: Least CIE76 difference ΔE*ab between any two class colours.
CLASS_DELTA_E = 20.0
#: Lightest class colour allowed (L*): lighter ones vanish on the white page and in the tinted regions.
_CLASS_MAX_L = 82.0


def _class_colors(first, extra) -> tuple[str, ...]:
    """``first``, then each colour of ``extra`` (in order) at least :data:`CLASS_DELTA_E` from every colour
    kept so far and no lighter than ``_CLASS_MAX_L``."""
    kept = list(first)
    lab = cie_lab(kept)
    for c in extra:
        c_lab = cie_lab([c])
        if c_lab[0, 0] <= _CLASS_MAX_L and np.linalg.norm(lab - c_lab, axis=1).min() >= CLASS_DELTA_E:
            kept.append(c.upper())
            lab = np.vstack([lab, c_lab])
    return tuple(kept)


#: Class colours: class 1 orange, class 2 blue (the papers' yellow and purple), then Okabe & Ito's
#: reddish purple, vermillion, sky blue and bluish green, then Glasbey's dark categorical colours
#: (colorcet ``glasbey_dark``), each at least ΔE*ab = 20 from all before it: 68 colours, so that
#: Letter's 26 classes get 26 colours told apart.
CLASS_COLORS = _class_colors(("#E69F00", "#0072B2", "#CC79A7", "#D55E00", "#56B4E9", "#009E73"), glasbey_dark)


def class_color(j: int) -> str:
    """The colour of class code ``j`` (cycled past :data:`CLASS_COLORS`)."""
    return CLASS_COLORS[int(j) % len(CLASS_COLORS)]

#: B(Λ), the classifier's boundary (solid).
BOUNDARY_COLOR = "#009E73"
#: B*, the Bayes boundary (dashed).
BAYES_COLOR = "#000000"
#: Emphasis: the selected sample, the near-boundary set, the current status.
HIGHLIGHT_COLOR = "#D55E00"
#: Probability weights k̂(x)/w_kl (perceptually uniform).
WEIGHT_CMAP = "viridis"
#: f(x;Λ): negative (class 2 side) purple, zero white, positive (class 1 side) orange.
DIVERGING_CMAP = "PuOr_r"
#: Words for the ends of the colour maps above, for texts shown beside the plots (so that a text never
#: names a colour the plot does not draw): viridis runs dark purple -> yellow, PuOr_r purple -> orange.
COLOR_WORDS = {"weight_low": "dark purple", "weight_high": "yellow", "f_negative": "purple", "f_positive": "orange"}
#: Densities and other one-signed values.
SEQUENTIAL_CMAP = "viridis"
#: Colour, dash and label of each sweep column: L_te vermillion, L_val green, L_HO dotted black,
#: L_tr orange, −Û_tr blue, −Û_te black, Proposal 1 purple dashed.
CURVE_STYLES = {
    "L_te": ("#D55E00", "solid", "L_te (test)"),
    "L_val": ("#009E73", "solid", "L_val (CV)"),
    "L_ho": ("#000000", "dotted", "L_HO (hold-out)"),
    "L_tr": ("#E69F00", "solid", "L_tr (CV train)"),
    "U_tr": ("#0072B2", "solid", "−Û_tr"),
    "U_te": ("#000000", "solid", "−Û_te"),
    "U1_tr": ("#CC79A7", "dashed", "−Û1_tr (Proposal 1)"),
}
#: One colour per T̃ amplitude a, light (small a) to dark (large a), blue as −Û_tr; a = 0 is grey dashed.
AMPLITUDE_PALETTE = ("#9ecae1", "#6baed6", "#3182bd", "#0072B2", "#08519c", "#08306b")
#: The discrete case's four estimators.
METHOD_COLORS = {"resubstitution": "#D55E00", "loo": "#0072B2", "bootstrap632": "#009E73",
                 "balanced_optimal": "#000000"}
#: Options of a legend under the frame, in two columns: beside the frame it would take the frame's width
#: (a twin-axis panel of a three-panel figure kept a frame tens of pixels wide), inside it covers curves.
LEGEND_BELOW = {"legend_position": "bottom", "legend_cols": 2}
#: Name of the −Û value dimension: elements on it go to the right-hand axis of the static export.
NEG_U = "neg_U"

_DASH = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-.", "dotdash": "-."}
_MARKERS = {"circle": "o", "square": "s", "triangle": "^", "inverted_triangle": "v", "diamond": "D",
            "star": "*", "x": "x", "cross": "+", "plus": "P"}
_LEGEND_POS = {"top_left", "top_right", "bottom_left", "bottom_right", "right", "left", "top", "bottom",
               "inner", "best"}
_PLOT_KEYS = ("title", "logx", "logy", "xlim", "ylim", "show_legend", "colorbar", "clim", "xlabel", "ylabel",
              "invert_axes")


def _mark_u(plot, element) -> None:
    """Matplotlib hook: flag the artist of a −Û element so that the export moves it to the right axis."""
    artist = plot.handles.get("artist")
    if artist is not None:
        artist._buviz_u = True


def _matplotlib_options(el, kw: dict) -> dict:
    """The Matplotlib spelling of Bokeh-style options (same colours: the palette is shared)."""
    name = type(el).__name__
    is_points = name in ("Points", "Scatter")
    out: dict = {}
    for key, val in kw.items():
        if key in ("color", "alpha", "cmap"):
            out[key] = val
        elif key == "line_width":
            out["linewidth"] = val
        elif key == "line_dash":
            out["linestyle"] = _DASH.get(val, val) if isinstance(val, str) else val
        elif key == "size" and is_points:
            out["s"] = float(val) ** 2 / 1.6
        elif key == "marker":
            out["marker"] = _MARKERS.get(val, val)
        elif key == "line_color" and is_points:
            out["edgecolors"] = "none" if val is None else val
        elif key == "line_color" and name in ("Histogram", "Bars", "Area", "VSpan"):
            out["edgecolor"] = val
        elif key == "fill_color" and is_points and val is None:  # hollow markers
            out["facecolors"] = "none"
        elif key == "fill_color":
            out["facecolor"] = val
        elif key == "fill_alpha":
            out["alpha"] = val
        elif key == "box_line_color":  # Matplotlib's boxes are outlines: keep box_fill_color white
            for part in ("boxprops", "whiskerprops", "capprops", "medianprops"):
                out[part] = {"color": val}
            out["flierprops"] = {"markeredgecolor": val}
        elif key in _PLOT_KEYS:
            out[key] = val
        elif key == "legend_position" and val in _LEGEND_POS:
            # outside legends would overlap the neighbouring panels of a layout
            out[key] = "inner" if val in ("right", "left", "top", "bottom") else val
    if is_points and out.get("facecolors") == "none":
        out.pop("color", None)
        out.setdefault("edgecolors", HIGHLIGHT_COLOR)
    if name in ("VSpan", "HSpan") and "color" in out:
        out["facecolor"] = out.pop("color")
        out.setdefault("edgecolor", "none")
    if name == "Histogram" and "facecolor" in out:
        out["color"] = out.pop("facecolor")
    allowed = allowed_options(name, "style") | allowed_options(name, "plot")
    out = {k: v for k, v in out.items() if k in allowed}
    vdims = getattr(el, "vdims", None)
    if vdims and vdims[0].name == NEG_U and "hooks" in allowed:
        out["hooks"] = [_mark_u]
    return out


def opts(el, **kw):
    """Set options on both backends at once.

    Parameters
    ----------
    el : HoloViews element, overlay or layout
    **kw
        Options in Bokeh's vocabulary (``color``, ``line_width``, ``line_dash``, ``size``, ``marker``,
        ``fill_color``, ``cmap``, ``title``, ``legend_position``, ...). Bokeh gets them as given; the
        Matplotlib backend gets their Matplotlib spelling (same colours and colour maps, dashes and marker
        shapes translated, Bokeh-only options such as ``tools`` left out).

    Returns
    -------
    The element with the options set (a new object, as ``.opts`` returns).
    """
    el = el.opts(backend="bokeh", **kw)
    if kw.get("framewise") and isinstance(el, (hv.Overlay, hv.NdOverlay, hv.Layout)):
        # HoloViews reads the framewise norm of each layer, not of the overlay: without this a
        # DynamicMap's axes keep the ranges of its first frame (an empty sweep: [0, 1])
        el = el.map(lambda e: e.opts(framewise=True, backend="bokeh"), hv.Element)
    mpl = _matplotlib_options(el, kw)
    return el.opts(backend="matplotlib", **mpl) if mpl else el


#: Pixels per inch of a figure's export size on screen: the Figures tab draws a figure of w × h inches
#: export size at ``w·SCREEN_DPI`` × ``h·SCREEN_DPI`` pixels.
SCREEN_DPI = 100


def screen_sized(obj, size: tuple[float, float], *, dpi: float = SCREEN_DPI):
    """``obj`` with each panel's Bokeh width and height set from the figure's export ``size`` (inches):
    the panels of a layout share the figure's width by column and its height by row, so that a
    figure shows on screen in the proportions of its export, whatever the plots' defaults.

    Parameters
    ----------
    obj : HoloViews element, overlay or layout
    size : (width, height) in inches, e.g. ``PaperFigure.size``
    dpi : pixels per inch on screen

    Returns
    -------
    The same object with the sizes set on its panels; anything else (a table) unchanged.
    """
    if not isinstance(obj, (hv.Element, hv.Overlay, hv.NdOverlay, hv.Layout)):
        return obj
    panels = list(obj) if isinstance(obj, hv.Layout) else [obj]
    cols = min(layout_columns(obj) or 4, len(panels)) if isinstance(obj, hv.Layout) else 1
    rows = -(-len(panels) // cols)
    width, height = round(size[0] * dpi / cols), round(size[1] * dpi / rows)
    for p in panels:  # in place: the layout keeps its own options (columns, shared axes)
        p.opts(width=width, height=height, responsive=False, backend="bokeh", clone=False)
        title = hv.Store.lookup_options("bokeh", p, "plot").kwargs.get("title")
        if isinstance(title, str) and "\n" not in title:
            wrapped = wrapped_title(title, width)
            if wrapped != title:
                p.opts(title=wrapped, backend="bokeh", clone=False)
    return obj


#: Average width (px) of a character of a Bokeh plot title (12 pt bold) and the room a panel's axis
#: and padding take from its width: what :func:`wrapped_title` reckons with.
TITLE_CHAR_PX, TITLE_MARGIN_PX = 7.0, 45


def wrapped_title(title: str, width: int) -> str:
    """``title`` broken into lines (at spaces) that fit a panel ``width`` pixels wide: Bokeh draws a
    title on one line and cuts what does not fit (a schematic drawn smaller lost the end of each
    title). A title that fits is returned unchanged."""
    import textwrap

    chars = max(int((width - TITLE_MARGIN_PX) / TITLE_CHAR_PX), 12)
    return title if len(title) <= chars else "\n".join(textwrap.wrap(title, chars))
