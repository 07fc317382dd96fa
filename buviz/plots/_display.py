"""The base of every display (:class:`Display`) and what the sample-space displays share: the plotted
plane of a dataset, the status on a grid, and the builders of the map layers.

After scikit-learn's Display objects (``RocCurveDisplay``, ``DecisionBoundaryDisplay``): the
constructor takes the data to draw, keyword only, and keeps each argument as a public attribute of
the same name; class methods (``from_result``, ``from_table``, ``from_estimator``) compute those
attributes; :meth:`Display.plot` only draws.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

import holoviews as hv
import numpy as np

from buviz.grid import GridEvaluation, evaluate_grid
from buviz.plots import style
from buviz.plots import uncertainty as pb
from buviz.plots._hv_compat import share_options
from buviz.plots._live import LiveOverlay
from buviz.projection import Projection, fit_projection

__all__ = ["Display", "GRID_RESOLUTION", "class_names", "as_grid"]

#: Grid resolution of the d = 2 maps when the caller passes no grid evaluation.
GRID_RESOLUTION = 160


def _same(a: tuple, b: tuple) -> bool:
    """Whether two calls of :meth:`Display.plot` asked for the same figure: the same extra layers (by
    identity) and equal style."""
    (xa, sa, oa), (xb, sb, ob) = a, b
    return len(xa) == len(xb) and all(p is q for p, q in zip(xa, xb, strict=True)) and sa == sb and oa == ob


def class_names(dataset) -> list[str]:
    """Legend names of a dataset's classes: C1, C2, ... for an exact mixture, its labels otherwise."""
    if getattr(dataset, "model", None) is not None:
        return [f"C{j + 1}" for j in range(dataset.n_classes)]
    return [str(c) for c in dataset.classes]


class Display:
    """The base of every buviz display: data as public attributes, drawn live by Panel and Jupyter.

    A subclass's constructor takes the data to draw, keyword only, and stores each argument as a
    public attribute of the same name (arrays, tables, :class:`~buviz.grid.GridEvaluation` records);
    its class methods compute them from a result, a sweep table or an estimator. Nothing is drawn
    before :meth:`plot`, which returns the same live HoloViews object at every call with the same
    arguments (the whole figure kept as :attr:`figure_`, a panel's own figure beside it);
    :meth:`update` replaces attributes and pushes the new data down the streams of every figure drawn,
    so a pane or a notebook cell showing one redraws in place, keeping its glyphs and tools.

    A display is one or several *panels* (a panel: one live overlay of named layers, each fed by a
    ``Pipe``; :class:`buviz.plots._live.LiveOverlay`). :meth:`plot` draws them all, or one
    (``panel=``) for a pane of its own; style is given there, never to the constructor.

    Parameters
    ----------
    feature_names : sequence of str, optional
        The names of the two plotted axes.
    class_names : sequence of str, optional
        The legend names of the classes, by class code.
    title : str, optional
        The plot's title.

    Attributes
    ----------
    figure_ : hv.DynamicMap or hv.Layout or None
        The live figure of :meth:`plot` (None before the first call).
    """

    #: The data attributes :meth:`update` may replace (besides ``title``).
    _fields: ClassVar[tuple[str, ...]] = ()
    #: Columns of the layout of a display of several panels.
    _cols: ClassVar[int] = 2
    #: Panel name -> the prefix of its layers' names in what :meth:`update` returns.
    _prefix: ClassVar[dict[str, str]] = {}

    def __init__(self, *, feature_names=None, class_names=None, title: str | None = None):
        self.feature_names = None if feature_names is None else list(feature_names)
        self.class_names = None if class_names is None else [str(c) for c in class_names]
        self.title = title
        self.figure_ = None
        self._shown: dict[str | None, tuple] = {}  # panel (None: all) -> (plot's arguments, live figure)
        self._live: dict[str, LiveOverlay] | None = None

    # -- what a subclass provides ---------------------------------------------------------------------
    def _panels(self) -> dict[str, dict]:
        """Panel name -> ``dict(builders=..., opts=..., live=..., groups=...)`` of its :class:`LiveOverlay`."""
        raise NotImplementedError

    def _args(self) -> dict[str, dict[str, dict]]:
        """Panel name -> layer name -> the keyword arguments of the layer's builder, from the attributes."""
        raise NotImplementedError

    def _attributes_of(self, result, **kw) -> dict[str, Any]:
        """The attributes of ``result`` (the computation of ``from_result``/``from_table``)."""
        raise TypeError(f"{type(self).__name__}.update takes its data as named attributes {self._fields}")

    @classmethod
    def from_result(cls, result, dataset, **kw):
        """Compute a display of ``result`` on ``dataset`` (the displays of results override it)."""
        raise NotImplementedError(f"{cls.__name__} is not built from a result")

    @classmethod
    def from_table(cls, table, **kw):
        """Compute a display of a sweep table (the displays of tables override it)."""
        raise NotImplementedError(f"{cls.__name__} is not built from a table")

    # -- drawing --------------------------------------------------------------------------------------
    @property
    def panels(self) -> dict[str, LiveOverlay]:
        """Panel name -> its live overlay (created at the first use, from the current attributes)."""
        if self._live is None:
            args = self._args()
            self._live = {name: LiveOverlay(args=args[name], **spec) for name, spec in self._panels().items()}
        return self._live

    def plot(self, *extra: hv.DynamicMap, panel: str | None = None, **style) -> hv.DynamicMap | hv.Layout:
        """The live figure: the one drawing verb, in the explorer and in notebooks alike. Only draws.

        Parameters
        ----------
        *extra : hv.DynamicMap
            Live layers drawn on top (e.g. one carrying a Tap stream); on a display of one panel, or on
            the ``panel`` named.
        panel : str, optional
            One panel of the display (a key of :attr:`panels`): its live overlay alone, for a pane of
            its own. By default every panel: one ``DynamicMap``, or a ``Layout`` of them.
        **style
            Plot options (Bokeh vocabulary) added to the display's own, for every panel drawn; a keyword
            that names a panel takes a dict of that panel's options alone
            (``plot(map=dict(height=420), zoom=dict(width=300))``).

        Returns
        -------
        hv.DynamicMap or hv.Layout
            The same object at every call with the same arguments, or none (the whole figure is kept as
            :attr:`figure_`), fed by :meth:`update`: a pane or a cell showing it redraws in place.

        Raises
        ------
        ValueError
            If ``panel`` names no panel of the display.
        TypeError
            If ``extra`` layers are given for several panels, or a panel's style is not a dict.
        """
        names, style, own = self._drawn(panel, style, "plot")
        if extra and len(names) != 1:
            raise TypeError(f"{type(self).__name__}.plot: extra layers go on one panel; name it with panel=")
        panels = self.panels
        args = (extra, style, own)
        kept = self._shown.get(panel)
        if kept is not None and (not (extra or style or own) or _same(kept[0], args)):
            return kept[1]  # no arguments: the figure shown, whatever it was drawn with
        shown = [panels[n].show(*extra, **{**style, **own.get(n, {})}) for n in names]
        figure = shown[0] if len(shown) == 1 else hv.Layout(shown).cols(self._cols)
        self._shown[panel] = (args, figure)
        if panel is None:
            self.figure_ = figure
        return figure

    def element(self, names=None, *, panel: str | None = None, **style) -> hv.Overlay | hv.Layout:
        """A static picture of the current data (exports, paper figures): what :meth:`plot` draws live.

        ``names`` picks layers of a display of one panel (all by default); ``panel`` one panel of a
        display of several (by default a ``Layout`` of every panel); ``style`` as for :meth:`plot`.
        """
        chosen, style, own = self._drawn(panel, style, "element")
        panels = self.panels
        if len(chosen) == 1:
            return panels[chosen[0]].element(names, **{**style, **own.get(chosen[0], {})})
        return hv.Layout([panels[n].element(**{**style, **own.get(n, {})}) for n in chosen]).cols(self._cols)

    def _drawn(self, panel: str | None, style: dict, verb: str) -> tuple[list[str], dict, dict]:
        """What :meth:`plot` and :meth:`element` draw: the panels' names (``panel``, else all), the style
        for every panel, and each panel's own style (the keywords that name a panel)."""
        panels = self.panels
        if panel is not None and panel not in panels:
            raise ValueError(f"panel: {type(self).__name__} has the panels {list(panels)}, not {panel!r}")
        style = dict(style)
        own = {k: style.pop(k) for k in list(style) if k in panels}
        for k, v in own.items():
            if not isinstance(v, Mapping):
                raise TypeError(f"{type(self).__name__}.{verb}: {k}= names a panel and takes a dict of its options, "
                                f"got {type(v).__name__}")
        return (list(panels) if panel is None else [panel]), style, own

    def update(self, **data) -> list[str]:
        """Show new data, always by name: ``result=`` (a display computed ``from_result``) with the
        keyword arguments of that computation, or the display's attributes. Replaces the attributes,
        sends the layers whose data changed down their streams (the live figure redraws them in place)
        and returns their names.

        ``display.update(result=r, dataset=ds, grid=g)`` computes what ``from_result(r, ds, grid=g)``
        would, in the plane the display was built in, and draws it into the same figure (a display holds
        what it draws, never the data to compute it from); ``display.update(title="...")`` replaces one
        attribute.

        Raises
        ------
        TypeError
            If ``data`` names an attribute the display does not have.
        """
        panels = self.panels  # created from the attributes before they change: the update is a change
        data = self._data_of(data)
        unknown = sorted(set(data) - {*self._fields, "title"})
        if unknown:
            raise TypeError(f"{type(self).__name__}.update got unknown attribute(s) {unknown}; "
                            f"expected some of {(*self._fields, 'title')}")
        for k, v in data.items():
            setattr(self, k, v)
        changed = []
        for name, args in self._args().items():
            sent = panels[name].send(args)
            one = len(panels[name].pipes) == 1
            changed += [name] if one and sent else [self._prefix.get(name, "") + k for k in sent]
        return changed

    def _data_of(self, data: dict) -> dict:
        """The attributes ``update(**data)`` names: those of ``data["result"]`` computed, else ``data``."""
        if "result" in data and "result" not in self._fields:
            data = dict(data)
            result = data.pop("result")
            return data if result is None else self._attributes_of(result, **data)
        return data

    def __panel__(self):
        """The live figure, for Panel: ``pn.panel(display)`` and a display inside a Panel layout show it
        (Panel wraps the HoloViews object in its HoloViews pane; :mod:`buviz.plots` never imports Panel)."""
        return self.plot()

    def _repr_mimebundle_(self, include=None, exclude=None):
        """A display as a notebook cell's last line shows its live figure (HoloViews' own notebook repr)."""
        return self.plot()._repr_mimebundle_(include, exclude)

    def __repr__(self) -> str:
        def short(v):
            if isinstance(v, np.ndarray):
                return f"array{v.shape}"
            if hasattr(v, "shape") and hasattr(v, "columns"):
                return f"DataFrame{v.shape}"
            return type(v).__name__ if not isinstance(v, (str, int, float, type(None))) else repr(v)

        fields = ", ".join(f"{k}={short(getattr(self, k))}" for k in self._fields)
        return f"{type(self).__name__}({fields}, title={self.title!r})"


# -- the sample-space coordinates: the first two features, or a plane fitted on T ------------------------
def plane_of(dataset, projection: str | Projection = "pca") -> tuple[Projection | None, np.ndarray, list[str]]:
    """The plotted coordinates of a dataset's T: ``(projection, X, axis_names)``; no projection (the
    first two features) for d = 2, else a :class:`Projection` fitted on T (or the one given)."""
    X = np.asarray(dataset.X_train, dtype=float)
    if isinstance(projection, Projection):
        proj = projection
    elif X.shape[1] == 2:
        proj = None
    else:
        proj = fit_projection(X, dataset.y_train, method=projection)
    if proj is None:
        return None, X[:, :2], list(getattr(dataset, "feature_names", None) or ["x1", "x2"])[:2]
    return proj, proj.transform(X), list(proj.axis_labels)


def project(projection: Projection | None, X) -> np.ndarray:
    """``X`` in the plotted plane (its first two features without a projection)."""
    X = np.asarray(X, dtype=float)
    if not len(X):
        return np.empty((0, 2))
    return X[:, :2] if projection is None else projection.transform(X)


def limits(X, dataset=None, pad: float = 0.1) -> tuple[tuple[float, float], tuple[float, float]]:
    """Fixed axis ranges ``(xlim, ylim)`` of a map: the dataset's grid bounds for d = 2 (``dataset``
    given), the padded range of the plotted ``X`` otherwise. A status step then moves no axis."""
    if dataset is not None:
        x0, y0, x1, y1 = dataset.bounds(pad)
    else:
        X = np.asarray(X, dtype=float)
        lo, hi = X.min(axis=0), X.max(axis=0)
        span = np.maximum(hi - lo, 1e-9)
        (x0, y0), (x1, y1) = lo - pad * span, hi + pad * span
    return (float(x0), float(x1)), (float(y0), float(y1))


def nearest(X, x: float, y: float) -> int:
    """The row of the plotted ``X`` nearest to the point (x, y) (a tap); -1 for no rows."""
    if not len(X):
        return -1
    return int(np.argmin((X[:, 0] - x) ** 2 + (X[:, 1] - y) ** 2))


def as_grid(grid) -> GridEvaluation | None:
    """``grid`` as a :class:`GridEvaluation`: one as it is, or the ``grid`` attribute of a status that
    carries one (None when it has none: d > 2)."""
    if grid is None or isinstance(grid, GridEvaluation):
        return grid
    return getattr(grid, "grid", None)


def grid_of(result, dataset, grid=None, resolution: int = GRID_RESOLUTION) -> GridEvaluation | None:
    """The status on a grid for d = 2 maps: ``grid`` (:func:`as_grid`) when given, else an evaluation
    of ``result.discriminant`` on the dataset's bounds; None for d > 2."""
    if dataset.n_features != 2 or (grid is None and result is None):
        return None
    if grid is None:
        return evaluate_grid(result.discriminant, dataset.bounds(), resolution)
    return as_grid(grid)


# -- builders of the map layers (functions of keyword arguments) ----------------------------------------
def titled(el, title):
    """``el`` with ``title`` (as it is for None)."""
    return el if title is None else style.opts(el, title=title)


def _like(template: hv.Element, data) -> hv.Element:
    """``data`` drawn as ``template`` is: its type, dimensions, label and plot options (shared by the
    options' id). Setting options builds an options tree per element, most of the cost of an element;
    the frames of a live layer share their template's."""
    el = type(template)(data, kdims=template.kdims, vdims=template.vdims, label=template.label,
                        group=template.group)
    share_options(el, template)
    return el


@functools.lru_cache(maxsize=32)
def _region_template(feature_names: tuple) -> hv.RGB:
    return pb.region_image(np.arange(2.0), np.arange(2.0), np.zeros((2, 2), np.uint8), 1,
                           feature_names=list(feature_names))


@functools.lru_cache(maxsize=32)
def _path_template(drawn: bool, feature_names: tuple, limits: tuple | None, **kw) -> hv.Path:
    t = pb.boundary_path([] if drawn else None, feature_names=list(feature_names), **kw)
    if limits is None:
        return t
    # the map's fixed axis ranges on the dimensions: a live plot then computes no range of the path
    (x0, x1), (y0, y1) = limits
    return t.clone(kdims=[t.kdims[0].clone(range=(x0, x1)), t.kdims[1].clone(range=(y0, y1))])


def regions_layer(xs, ys, predicted, n_classes, feature_names, title=None):
    """The predicted class on the grid (``predicted`` of shape (len(ys), len(xs))), an RGB image (a
    transparent one for ``predicted=None``)."""
    if predicted is None:
        el = pb.no_regions(feature_names)
    else:
        rgba = pb.region_rgba(predicted, n_classes)
        el = _like(_region_template(tuple(feature_names)), (np.asarray(xs), np.asarray(ys), rgba))
    return titled(el, title)


def _joined(lines: list[np.ndarray]) -> list[np.ndarray]:
    """The polylines of a boundary as one, with a row of NaN between two (a gap where drawn).

    HoloViews handles each polyline of a ``Path`` as a dataset of its own when it draws the path
    and computes its ranges, a few milliseconds per polyline and frame of a live plot; one
    NaN-separated polyline draws the same lines at the cost of one.
    """
    if len(lines) < 2:
        return list(lines)
    gap = np.full((1, 2), np.nan)
    return [np.concatenate([part for ln in lines for part in (gap, np.asarray(ln, dtype=float))][1:])]


def boundary_layer(fields, feature_names, limits=None):
    """B(Λ), the zero contours of ``fields`` (empty for None)."""
    t = _path_template(fields is not None, tuple(feature_names), limits)
    return _like(t, _joined(pb.boundary_lines(fields)))


def bayes_layer(fields, feature_names, limits=None):
    """B*, dashed (empty for None)."""
    t = _path_template(fields is not None, tuple(feature_names), limits, label="B* (Bayes)",
                       color=pb.BAYES_COLOR, dash="dashed", width=2)
    return _like(t, _joined(pb.boundary_lines(fields)))


def fields_of(grid: GridEvaluation | None) -> Mapping | None:
    """The boundary fields of a grid (None without one)."""
    return None if grid is None else grid.fields


#: Plot options of every map: the legend right of the frame.
MAP_OPTS = dict(legend_position="right")
