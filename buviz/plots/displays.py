"""Display objects between boundary-uncertainty results and the widgets that show them.

After scikit-learn's ``DecisionBoundaryDisplay``: ``from_result`` gathers what a picture shows from a
result (:class:`~buviz.uncertainty.BoundaryUncertaintyResult`, a sweep table) and its dataset, and
computes nothing the result lacks except, for two-feature data, the status on a grid (the predicted
regions and the fields whose zero contour is B(Λ)); the display only draws. After HoloViz's
guidance, each layer of a display is fed by its own ``hv.streams.Pipe`` and drawn by one
``hv.DynamicMap`` (layers that always change together share one, see :class:`Display`):
:meth:`update` sends new data down the pipes of the layers whose data changed, so a live plot (a
Panel pane, a notebook cell) updates its data sources in place and keeps its glyphs, tools and
streams. What a frame of a live plot costs HoloViews is kept small: the plot options ride on an
options id instead of being set on every frame, and a layer's frames share its template's options.

- :class:`SampleSpaceDisplay` -- T by class (or by f(x;Λ)), predicted regions, B(Λ), B*, Proposal 1
  (Figs 3, 5, 15); d > 2: T in a plane fitted on T with the near-boundary samples of each pair.
- :class:`WeightsDisplay` -- probability weights k̂(x)/w_kl (Fig 14), at every d.
- :class:`CovariateShiftDisplay` -- distributions of f(T;Λ), f(T̃;Λ), f(X_te;Λ) at every d, and for
  d = 2 the three maps on one colour scale (Fig 10).
- :class:`OneSampleDisplay` -- one sample's N^M(x) and its kernel estimate in f-space (Fig 4).
- :class:`ErrorCurvesDisplay` -- errors and −Û against the status, and error against −Û (Figs 6-9).

Boundary uncertainty after D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary
Uncertainty-Based Estimation for Classifier Evaluation", Journal of Signal Processing Systems,
Springer, 2021 (doi:10.1007/s11265-021-01671-1).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

import holoviews as hv
import numpy as np
import pandas as pd

from buviz.grid import evaluate_grid
from buviz.plots import style
from buviz.plots import uncertainty as pb
from buviz.plots._hv_compat import overlay_callback, share_options
from buviz.projection import Projection, fit_projection

__all__ = [
    "Display",
    "SampleSpaceDisplay",
    "WeightsDisplay",
    "CovariateShiftDisplay",
    "OneSampleDisplay",
    "ErrorCurvesDisplay",
    "class_names",
    "GRID_RESOLUTION",
]

#: Grid resolution of the d = 2 maps when the caller passes no grid evaluation.
GRID_RESOLUTION = 160


def class_names(dataset) -> list[str]:
    """Legend names of a dataset's classes: C1, C2, ... for an exact mixture, its labels otherwise."""
    if getattr(dataset, "model", None) is not None:
        return [f"C{j + 1}" for j in range(dataset.n_classes)]
    return [str(c) for c in dataset.classes]


def _same(a, b) -> bool:
    """Whether two payload values are the same data (identical objects, or equal arrays)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, (str, int, float, type(None))) and isinstance(b, (str, int, float, type(None))):
        return a == b
    return False


_SIDES = ("right", "left", "top", "bottom")


#: Height (px) of one legend entry, for the columns of a legend beside the frame.
_LEGEND_ROW = 21


def _legend_rows(item) -> int:
    """Entries a Bokeh legend item shows: one per value of its field (points coloured by class), else one."""
    label = item.label
    field = label.get("field") if isinstance(label, dict) else getattr(label, "field", None)
    if not field or not item.renderers:
        return 1
    values = item.renderers[0].data_source.data.get(field, [])
    return max(1, len(set(np.asarray(values).tolist())))


def _legend_beside(side: str):
    """A Bokeh hook moving the legends of the frame to ``side`` (once: later calls find none), in as
    many columns as it takes to stay within the figure's height (26 classes of Letter Recognition)."""

    counted = set()  # the legends given their columns (a display's classes never change)

    def hook(plot, element):
        from bokeh.models import Legend

        fig = plot.state
        for legend in [r for r in fig.center if isinstance(r, Legend)]:
            fig.center = [r for r in fig.center if r is not legend]
            legend.location = "top_left"
            fig.add_layout(legend, side)
        if side in ("right", "left"):  # the entries may arrive after the move: counted at every call
            rows = max(1, (int(fig.height or 480) - 60) // _LEGEND_ROW)
            for legend in [r for r in getattr(fig, side) if isinstance(r, Legend) and r.id not in counted]:
                n = sum(_legend_rows(item) for item in legend.items)
                if legend.items:
                    counted.add(legend.id)
                if n > rows:
                    legend.update(ncols=-(-n // rows), spacing=0, padding=4, label_text_font_size="9pt")

    return hook


class Display:
    """Named layers fed by a ``Pipe`` each, whose data is the keyword arguments of the layer's builder,
    drawn live by one ``DynamicMap`` per group of layers.

    A group is the layers that always change together (by default every layer is a group of its
    own): one ``DynamicMap`` fed by the pipes of its layers returns their overlay. HoloViews does
    the per-frame work of a live plot (calling the callbacks, computing ranges, syncing each
    sub-plot) once per ``DynamicMap`` of the overlay, so layers that a status step always changes
    together cost one callback, not one each.

    Parameters
    ----------
    builders : dict of str to callable
        Layer name -> function of keyword arguments returning a HoloViews element.
    payloads : dict of str to dict
        Layer name -> the keyword arguments of its first frame.
    opts : dict, optional
        Plot options of the overlay (Bokeh vocabulary, set on both backends by :func:`style.opts`).
    live : sequence of str, optional
        The layers of the live overlay :attr:`dmap` (all by default). Layers that stay empty while
        the display lives (no B* for real data, Proposal 1 switched off) are left out of it: every
        layer of a live overlay costs its range computation on each update.
    groups : dict of str to sequence of str, optional
        Group name -> the layers drawn by one ``DynamicMap`` (in drawing order); a layer in no group
        is a group of its own, named after it. Groups are drawn in the order of their last layers.

    Attributes
    ----------
    pipes : dict of str to hv.streams.Pipe
        A pipe per layer.
    layers : dict of str to hv.DynamicMap
        A ``DynamicMap`` per group.
    """

    def __init__(self, builders: Mapping[str, Callable], payloads: Mapping[str, dict], opts=None, live=None,
                 groups: Mapping[str, tuple] | None = None):
        self.live = tuple(builders) if live is None else tuple(live)
        self._builders = dict(builders)
        self._payloads = {k: dict(payloads[k]) for k in self._builders}
        self.opts = dict(opts or {})
        group_of = {k: g for g, members in (groups or {}).items() for k in members}
        last = {group_of.get(k, k): i for i, k in enumerate(self._builders)}  # drawn in the order of their last layer
        self.groups = {g: tuple(groups[g]) if g in (groups or {}) else (g,) for g in sorted(last, key=last.get)}
        # a Pipe per layer, its parameter renamed after the layer: several layers changed by one update
        # are sent with one trigger (one redraw of the plot), without clashing parameter names
        self.pipes = {k: hv.streams.Pipe(data=self._payloads[k]).rename(data=k) for k in self._builders}
        self._built: dict[str, tuple] = {}  # layer -> (payload, element): a group redraws only what changed
        self.layers = {g: hv.DynamicMap(self._callback(g), streams=[self.pipes[k] for k in members])
                       for g, members in self.groups.items()}
        self._overlay = None

    def _build(self, name: str, payload: dict):
        """The element of layer ``name`` for ``payload`` (the last one again when the payload is the same)."""
        last = self._built.get(name)
        if last is not None and last[0] is payload:
            return last[1]
        el = self._builders[name](**payload)
        self._built[name] = (payload, el)
        return el

    def _callback(self, group: str):
        members = self.groups[group]
        if len(members) == 1:
            (name,) = members
            return lambda **kw: self._build(name, kw[name])
        live = [k for k in members if k in self.live] or list(members)
        return lambda **kw: hv.Overlay([self._build(k, kw[k]) for k in live])

    def _live(self, extra=(), options: hv.Overlay | None = None) -> hv.DynamicMap:
        """The overlay ``a * b * ...`` of the live groups' ``DynamicMap``s (and ``extra`` ones), each
        frame carrying the plot options of ``options`` by their id.

        ``DynamicMap.opts`` would re-apply the options to every frame, building an options tree for
        every element at every step; here the outermost callback only gives its frame the template's
        options id (:mod:`buviz.plots._hv_compat`). That callback is a new function over the same
        streams: one ``DynamicMap`` (a single group) is rebuilt on its own function and pipes, an
        overlay wraps the function of ``*``. Neither calls another ``Callable``, whose memoisation,
        keyed on what its own ``DynamicMap`` passes it, would return the first frame forever.
        """
        groups = [g for g, members in self.groups.items() if any(k in self.live for k in members)]
        dmaps = [self.layers[g] for g in groups] + list(extra)
        if options is None:
            out = dmaps[0]
            for d in dmaps[1:]:
                out = out * d
            return out
        own = options.opts.get("plot", "bokeh").kwargs  # for frames that carry options of their own

        def with_options(frame):
            if isinstance(frame, hv.Overlay) and frame.id is None:
                share_options(frame, options)  # an overlay built for this frame: the template's options
            else:
                # a layer's own element (e.g. a histogram with its title): the display's options
                # are added to its own, not put in their place
                frame.opts(clone=False, backend="bokeh", **own)
            return frame

        if len(dmaps) == 1:
            build = self._callback(groups[0])
            return hv.DynamicMap(lambda **kw: with_options(build(**kw)), streams=list(dmaps[0].streams))
        out = dmaps[0]
        for d in dmaps[1:]:
            out = out * d
        product = out.callback.callable  # the function of ``*``: it reads the input DynamicMaps
        callback = overlay_callback(lambda *a, **kw: with_options(product(*a, **kw)), out.callback.inputs)
        return out.clone(callback=callback, shared_data=False)

    @property
    def dmap(self) -> hv.DynamicMap:
        """The live overlay of the layers (created once; :meth:`update` feeds it), without the plot
        options: show it through :meth:`show`."""
        if self._overlay is None:
            self._overlay = self._live()
        return self._overlay

    def show(self, *extra: hv.DynamicMap, **opts) -> hv.DynamicMap:
        """The live overlay (with ``extra`` layers on top, e.g. one carrying a Tap stream) with the
        display's plot options (and ``opts``), set once on an options template whose id every frame
        carries (:meth:`_live`).

        A legend beside the frame is placed there once, by a hook: HoloViews would take it out of
        the figure and add it back at every update, and each time the browser lays the page out again.
        """
        opts = {**self.opts, **opts}
        side = opts.get("legend_position")
        if side in _SIDES:
            opts["legend_position"] = "top_left"
            opts["hooks"] = [*opts.get("hooks", []), _legend_beside(side)]
        template = hv.Overlay([]).opts(backend="bokeh", **opts) if opts else None
        self._template = template  # the options live as long as an object carries their id
        return self._live(extra, template)

    def element(self, names=None, **opts) -> hv.Overlay:
        """A static overlay of the current data of the ``names`` layers (all by default): the same
        picture as :attr:`dmap`, for exports and figures; ``opts`` add to the display's plot options."""
        names = list(self._builders) if names is None else list(names)
        el = self._builders[names[0]](**self._payloads[names[0]])
        for k in names[1:]:
            el = el * self._builders[k](**self._payloads[k])
        if not isinstance(el, hv.Overlay):
            el = hv.Overlay([el])
        opts = {**self.opts, **opts}
        return style.opts(el, **opts) if opts else el

    def _send(self, payloads: Mapping[str, dict]) -> list[str]:
        """Send each changed payload down its pipe; return the names of the layers that changed."""
        changed = []
        for name, new in payloads.items():
            old = self._payloads[name]
            if set(new) == set(old) and all(_same(new[k], old[k]) for k in new):
                continue
            self._payloads[name] = dict(new)
            self.pipes[name].update(data=self._payloads[name])
            changed.append(name)
        if changed:
            hv.streams.Stream.trigger([self.pipes[k] for k in changed])
        return changed


# -- the sample-space coordinates: the first two features, or a plane fitted on T ------------------------
class _Plane:
    """The plotted coordinates of a dataset: its features for d = 2, else a :class:`Projection` of T."""

    def __init__(self, dataset, projection: str | Projection = "pca"):
        X = np.asarray(dataset.X_train, dtype=float)
        self.is_2d = X.shape[1] == 2
        if isinstance(projection, Projection):
            self.projection = projection
        elif self.is_2d:
            self.projection = None
        else:
            self.projection = fit_projection(X, dataset.y_train, method=projection)
        self.X_train = self(X)
        if self.projection is None:
            self.axis_names = list(getattr(dataset, "feature_names", None) or ["x1", "x2"])[:2]
        else:
            self.axis_names = list(self.projection.axis_labels)

    def __call__(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if self.projection is None:
            return X[:, :2]
        return self.projection.transform(X)

    def limits(self, dataset, pad: float = 0.1) -> dict:
        """Fixed axis ranges of the map (``xlim``, ``ylim``): the grid's bounds for d = 2, the padded
        range of T in the plane otherwise. A status step then moves no axis (and computes no range)."""
        if self.projection is None:
            x0, y0, x1, y1 = dataset.bounds(pad)
        else:
            lo, hi = self.X_train.min(axis=0), self.X_train.max(axis=0)
            span = np.maximum(hi - lo, 1e-9)
            (x0, y0), (x1, y1) = lo - pad * span, hi + pad * span
        return {"xlim": (float(x0), float(x1)), "ylim": (float(y0), float(y1))}

    def nearest(self, x: float, y: float) -> int:
        """The training sample drawn nearest to the plotted point (x, y)."""
        if not len(self.X_train):
            return -1
        return int(np.argmin((self.X_train[:, 0] - x) ** 2 + (self.X_train[:, 1] - y) ** 2))


def _grid_of(result, dataset, grid, resolution: int):
    """The status on a grid for d = 2 maps: ``grid`` when given (anything with ``xs``, ``ys``,
    ``fields`` and ``predicted`` or ``grid_predicted``), else an evaluation of ``result.discriminant``."""
    if dataset.n_features != 2 or (grid is None and result is None):
        return None
    if grid is None:
        grid = evaluate_grid(result.discriminant, dataset.bounds(), resolution)
    xs = getattr(grid, "xs", None)
    if xs is None:
        xs = grid.grid_xs
    ys = getattr(grid, "ys", None)
    if ys is None:
        ys = grid.grid_ys
    pred = getattr(grid, "predicted", None)
    if pred is None:
        pred = grid.grid_predicted
    return {"xs": xs, "ys": ys, "predicted": pred, "fields": grid.fields}


# -- builders of the layers (functions of keyword arguments) ---------------------------------------------
def _titled(el, title):
    return el if title is None else style.opts(el, title=title)


def _like(template: hv.Element, data) -> hv.Element:
    """``data`` drawn as ``template`` is: its type, dimensions, label and plot options (shared by the
    options' id). Setting options builds an options tree per element, most of the cost of an element;
    the frames of a live layer share their template's."""
    return type(template)(data, kdims=template.kdims, vdims=template.vdims, label=template.label,
                          group=template.group, id=template.id)


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


def _limits_key(limits: dict | None) -> tuple | None:
    return None if limits is None else (tuple(limits["xlim"]), tuple(limits["ylim"]))


def _regions(xs, ys, predicted, n_classes, feature_names, title=None):
    if predicted is None:
        el = pb.no_regions(feature_names)
    else:
        rgba = pb.region_rgba(predicted, n_classes)
        el = _like(_region_template(tuple(feature_names)), (np.asarray(xs), np.asarray(ys), rgba))
    return _titled(el, title)


def _class_points(X, y, classes, feature_names):
    return pb.training_points(X, y, classes, feature_names=feature_names)


def _f_points(X, f, feature_names):
    c = pb.symmetric_limit(f)
    el = pb.shift_map(X, f, c, colorbar=True, feature_names=feature_names, size=4)
    return style.opts(el.get(0).relabel(pb.TRAINING_LABEL), show_legend=True)


def _near_points(X, pairs, classes, feature_names, title=None):
    """The near-boundary samples (k̂(x) > 0) as hollow rings; the pair {k, l} of each in its hover."""
    el = hv.Points(
        {"x1": X[:, 0], "x2": X[:, 1], "pair": pairs},
        kdims=pb._kdims(feature_names),
        vdims=[hv.Dimension("pair", label="near B(Λ) of pair")],
        label="near-boundary (k̂ > 0)",
    )
    ring = style.opts(el, fill_color=None, line_color=style.HIGHLIGHT_COLOR, line_alpha=0.55, size=9,
                      line_width=1, tools=["hover"], show_legend=True)
    return _titled(ring, title)


def _p1(anchors, near, labels, feature_names, show_legend):
    return pb.proposal1_layers(anchors, near, labels, feature_names=feature_names, show_legend=show_legend)


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


def _boundary(fields, feature_names, limits=None):
    t = _path_template(fields is not None, tuple(feature_names), _limits_key(limits))
    return _like(t, _joined(pb.boundary_lines(fields)))


def _bayes(fields, feature_names, limits=None):
    t = _path_template(fields is not None, tuple(feature_names), _limits_key(limits), label="B* (Bayes)",
                       color=pb.BAYES_COLOR, dash="dashed", width=2)
    return _like(t, _joined(pb.boundary_lines(fields)))


_MAP_OPTS = dict(legend_position="right")
_SAMPLE_SPACE_GROUPS = {"status": ("regions", "boundary")}


class SampleSpaceDisplay(Display):
    """The sample space of a classifier status (Figs 3, 5, 15 of Ha et al. 2021).

    Layers: ``regions`` (predicted class on the grid, an RGB image drawn under the glyphs; it
    carries the title for d = 2), ``points`` (T by class, or by f(x;Λ) with ``color_by="f"``),
    ``near`` (d > 2: the near-boundary samples, k̂(x) > 0, of each class pair in Î*; the title),
    ``boundary`` (B(Λ)), ``bayes`` (B*, dashed) and ``proposal1`` (anchors, N_B, TDC clusters). For
    d = 2 the axes are the two features; for d > 2 a plane fitted on T
    (:func:`buviz.projection.fit_projection`), where B(Λ), B* and the regions are not drawn (they
    are surfaces of the full space).

    The regions and B(Λ) are one group, drawn by one ``DynamicMap`` (group ``status``): both are
    the status on the grid, so a status step always changes them together, and one callback and
    one synced sub-plot fewer per step is what a γ step costs less on the server. Every other layer
    keeps its own ``DynamicMap``: T and B* never change with the status, Proposal 1 arrives later.

    Build with :meth:`from_result`; :meth:`update` takes the result of another status.
    """

    def __init__(self, plane: _Plane, dataset, payloads, opts):
        self.plane, self.dataset = plane, dataset
        live = ["regions", "points", "boundary"] if plane.is_2d else ["points"]
        live += [] if plane.is_2d else ["near"]
        live += ["bayes"] if payloads["bayes"]["fields"] is not None else []
        live += ["proposal1"] if payloads["proposal1"]["anchors"] is not None else []
        super().__init__(
            {
                "regions": _regions,
                "points": _f_points if "f" in payloads["points"] else _class_points,
                "near": _near_points,
                "boundary": _boundary,
                "bayes": _bayes,
                "proposal1": _p1,
            },
            payloads,
            opts,
            live,
            groups=_SAMPLE_SPACE_GROUPS,
        )

    @classmethod
    def from_result(
        cls,
        result,
        dataset,
        *,
        grid=None,
        bayes_fields=None,
        proposal1=None,
        projection: str | Projection = "pca",
        color_by: str = "class",
        title: str | None = None,
        resolution: int = GRID_RESOLUTION,
    ) -> SampleSpaceDisplay:
        """Gather the sample space of ``result`` (a :class:`BoundaryUncertaintyResult`) on ``dataset``.

        Parameters
        ----------
        result : BoundaryUncertaintyResult or None
            The status's result (f on T, the weights, the discriminant). None draws the data alone
            (with the status of ``grid`` when given; no near-boundary samples, ``color_by="class"``).
        dataset : buviz.datasets.Dataset
            The data the result was computed on (class names, axis names, the grid's bounds).
        grid : GridEvaluation, optional
            The status on a grid (d = 2); evaluated from ``result.discriminant`` when None.
        bayes_fields : dict, optional
            B* on a grid (exact-density datasets).
        proposal1 : Proposal1Result, optional
            Proposal 1's anchors, N_B and TDC clusters of the same status.
        projection : {"pca", "lda"} or Projection, default="pca"
            The plane for d > 2.
        color_by : {"class", "f"}, default="class"
            Colour T by class, or by f(x;Λ) on the diverging scale.
        title : str, optional
        resolution : int, default=160
            Grid resolution when ``grid`` is None.
        """
        plane = _Plane(dataset, projection)
        d = cls(
            plane,
            dataset,
            cls._payloads_of(plane, dataset, result, grid, bayes_fields, proposal1, color_by, title, resolution),
            {**_MAP_OPTS, **plane.limits(dataset)},
        )
        d.color_by = color_by
        return d

    @staticmethod
    def _payloads_of(plane, dataset, result, grid, bayes_fields, proposal1, color_by, title, resolution):
        names = class_names(dataset)
        fn = plane.axis_names
        g = _grid_of(result, dataset, grid, resolution) if plane.is_2d else None
        title = title if title is not None else dataset.name
        if color_by == "f":
            points = {"X": plane.X_train, "f": np.asarray(result.f_train), "feature_names": fn}
        else:
            points = {"X": plane.X_train, "y": np.asarray(dataset.y_train), "classes": names, "feature_names": fn}
        if plane.is_2d or result is None:
            near = {"X": np.empty((0, 2)), "pairs": np.array([], dtype=object)}
        else:
            pos = np.flatnonzero(np.asarray(result.near_boundary_weights) > 0)
            near = {
                "X": plane.X_train[pos],
                "pairs": np.array(
                    [
                        f"{{{names[i]}, {names[j]}}}"
                        for i, j in zip(result.pair_i[pos], result.pair_j[pos], strict=True)
                    ],
                    dtype=object,
                ),
            }
        # the title rides on a layer that changes with the status anyway (the regions for d = 2)
        near["classes"], near["feature_names"], near["title"] = names, fn, None if plane.is_2d else title
        if proposal1 is None:
            p1 = {"anchors": None, "near": None, "labels": None, "show_legend": False}
        else:
            p1 = {
                "anchors": plane(proposal1.anchors[proposal1.anchor_valid]),
                "near": plane(proposal1.near_boundary_X).reshape(-1, 2),
                "labels": proposal1.cluster_labels[0],
                "show_legend": True,
            }
        p1["feature_names"] = fn
        return {
            "regions": {
                "xs": g and g["xs"],
                "ys": g and g["ys"],
                "predicted": g and g["predicted"],
                "n_classes": len(names),
                "feature_names": fn,
                "title": title if plane.is_2d else None,
            },
            "points": points,
            "near": near,
            "boundary": {"fields": g and g["fields"], "feature_names": fn, "limits": plane.limits(dataset)},
            "bayes": {"fields": bayes_fields if plane.is_2d else None, "feature_names": fn,
                      "limits": plane.limits(dataset)},
            "proposal1": p1,
        }

    def update(
        self,
        result,
        *,
        grid=None,
        bayes_fields=None,
        proposal1=None,
        title: str | None = None,
        resolution: int = GRID_RESOLUTION,
    ) -> list[str]:
        """Show the status of ``result`` (same dataset): send the layers whose data changed.

        Returns the names of the layers that changed.
        """
        return self._send(
            self._payloads_of(
                self.plane, self.dataset, result, grid, bayes_fields, proposal1, self.color_by, title, resolution
            )
        )

    def nearest(self, x: float, y: float) -> int:
        """The training sample drawn nearest to the plotted point (x, y) (a tap)."""
        return self.plane.nearest(x, y)


class WeightsDisplay(Display):
    """Probability weights k̂(x)/w_kl on T (Fig 14): layers ``weights`` and ``boundary`` (B(Λ), d = 2);
    for d > 2 in the plane of :class:`SampleSpaceDisplay`."""

    def __init__(self, plane, dataset, payloads, opts):
        self.plane, self.dataset = plane, dataset
        super().__init__({"weights": self._weights, "boundary": _boundary}, payloads, opts,
                         ("weights", "boundary") if plane.is_2d else ("weights",))

    @staticmethod
    def _weights(**kw):
        return pb.weights_layers(**kw)["weights"]

    @classmethod
    def from_result(
        cls,
        result,
        dataset,
        *,
        grid=None,
        projection: str | Projection = "pca",
        title: str | None = None,
        resolution: int = GRID_RESOLUTION,
    ) -> WeightsDisplay:
        """Gather the weights of ``result`` on ``dataset`` (parameters as :meth:`SampleSpaceDisplay.from_result`)."""
        plane = _Plane(dataset, projection)
        return cls(plane, dataset, cls._payloads_of(plane, dataset, result, grid, title, resolution),
                   {**_MAP_OPTS, **plane.limits(dataset)})

    @staticmethod
    def _payloads_of(plane, dataset, result, grid, title, resolution):
        g = _grid_of(result, dataset, grid, resolution) if plane.is_2d else None
        fn = plane.axis_names
        return {
            "weights": {
                "X": plane.X_train,
                "y": np.asarray(dataset.y_train),
                "weights": np.asarray(result.near_boundary_weights),
                "classes": class_names(dataset),
                "feature_names": fn,
                "title": title if title is not None else "Probability weights k̂(x)/w_kl",
            },
            "boundary": {"fields": g and g["fields"], "feature_names": fn, "limits": plane.limits(dataset)},
        }

    def update(self, result, *, grid=None, title: str | None = None, resolution: int = GRID_RESOLUTION) -> list[str]:
        """Show the weights of ``result`` (same dataset); returns the layers that changed."""
        return self._send(self._payloads_of(self.plane, self.dataset, result, grid, title, resolution))

    def nearest(self, x: float, y: float) -> int:
        """The training sample drawn nearest to the plotted point (x, y) (a tap)."""
        return self.plane.nearest(x, y)


def _shift_map(X, f, clim, fields, title, colorbar, feature_names, size):
    return pb.shift_map(
        X, f, clim, fields=fields, title=title, colorbar=colorbar, feature_names=feature_names, size=size
    )


def _hist(values, clim):
    return pb.shift_histograms(values, clim=clim)


class CovariateShiftDisplay:
    """Covariate shift in f (Fig 10): the distributions of f(T;Λ), f(T̃;Λ) and f(X_te;Λ) (layer
    ``hist``, every d) and, for d = 2, the three maps on one diverging colour scale (:attr:`maps`).

    f is defined at every d, so the histograms show the shift in the space where the paper defines it.
    """

    NAMES = ("f(T)", "f(T̃)", "f(X_te)")

    def __init__(self, plane, dataset, hist: Display, maps: list[Display]):
        self.plane, self.dataset, self.hist, self.maps = plane, dataset, hist, maps

    @classmethod
    def from_result(
        cls,
        result,
        dataset,
        *,
        f_test=None,
        grid=None,
        resolution: int = GRID_RESOLUTION,
        map_opts=None,
        hist_opts=None,
    ) -> CovariateShiftDisplay:
        """Gather f on T, T̃ and the test set.

        Parameters
        ----------
        result : BoundaryUncertaintyResult
        dataset : buviz.datasets.Dataset
        f_test : ndarray, optional
            f(x;Λ) on ``dataset.X_test``; computed from ``result.discriminant`` when None.
        grid : GridEvaluation, optional
            The status on a grid (d = 2 maps); evaluated when None.
        map_opts, hist_opts : dict, optional
            Plot options of each map and of the histograms.
        """
        plane = _Plane(dataset)
        arrays = cls._arrays(result, dataset, f_test)
        c = pb.symmetric_limit(*[f for _, f in arrays.values()])
        hist = Display(
            {"hist": _hist}, {"hist": {"values": {k: f for k, (_, f) in arrays.items()}, "clim": None}}, hist_opts
        )
        maps = []
        if plane.is_2d:
            g = _grid_of(result, dataset, grid, resolution)
            for k, (name, (X, f)) in enumerate(arrays.items()):
                maps.append(
                    Display({"map": _shift_map}, {"map": cls._map_payload(plane, X, f, c, g, name, k)}, map_opts)
                )
        return cls(plane, dataset, hist, maps)

    @staticmethod
    def _arrays(result, dataset, f_test):
        from buviz.grid import top2_difference

        if f_test is None:
            f_test = top2_difference(result.discriminant(dataset.X_test)) if len(dataset.X_test) else np.empty(0)
        return {
            "f(T)": (dataset.X_train, np.asarray(result.f_train)),
            "f(T̃)": (result.X_tilde, np.asarray(result.f_tilde)),
            "f(X_te)": (dataset.X_test, np.asarray(f_test)),
        }

    @staticmethod
    def _map_payload(plane, X, f, c, g, name, k):
        return {
            "X": plane(X) if len(X) else np.empty((0, 2)),
            "f": f,
            "clim": c,
            "fields": g["fields"],
            "title": name,
            "colorbar": k == 2,
            "feature_names": plane.axis_names,
            "size": 4 if len(X) <= 3000 else 2.5,
        }

    def update(self, result, *, f_test=None, grid=None, resolution: int = GRID_RESOLUTION) -> list[str]:
        """Show the status of ``result`` (same dataset); returns the names of the panels that changed."""
        arrays = self._arrays(result, self.dataset, f_test)
        changed = (
            ["hist"]
            if self.hist._send({"hist": {"values": {k: f for k, (_, f) in arrays.items()}, "clim": None}})
            else []
        )
        if self.maps:
            g = _grid_of(result, self.dataset, grid, resolution)
            c = pb.symmetric_limit(*[f for _, f in arrays.values()])
            for k, (name, (X, f)) in enumerate(arrays.items()):
                if self.maps[k]._send({"map": self._map_payload(self.plane, X, f, c, g, name, k)}):
                    changed.append(name)
        return changed

    def element(self) -> hv.Layout:
        """The maps (d = 2) and the histograms as one static layout (exports, figures)."""
        return hv.Layout([m.element() for m in self.maps] + [self.hist.element()]).cols(2)


class OneSampleDisplay:
    """One training sample up close (Fig 4): the sample-space map (:attr:`map`: layers ``points``,
    ``cluster``, ``boundary``; for d > 2 in the plane of :class:`SampleSpaceDisplay`) and N^M(x) on the f
    axis with its Parzen kernels and kernel estimates (:attr:`zoom`, every d)."""

    def __init__(self, plane, dataset, map_: Display, zoom: Display):
        self.plane, self.dataset, self.map, self.zoom = plane, dataset, map_, zoom

    @classmethod
    def from_result(
        cls,
        result,
        dataset,
        index: int | None,
        *,
        grid=None,
        projection: str | Projection = "pca",
        resolution: int = GRID_RESOLUTION,
        map_opts=None,
        zoom_opts=None,
    ) -> OneSampleDisplay:
        """Gather sample ``index`` of ``result`` (None: nothing selected).

        ``grid`` is the status on a grid (d = 2), evaluated when None.
        """
        plane = _Plane(dataset, projection)
        mp, zp = cls._payloads_of(plane, dataset, result, index, grid, resolution)
        map_ = Display(
            {"points": cls._points, "cluster": cls._cluster, "boundary": _boundary},
            mp,
            {**_MAP_OPTS, **plane.limits(dataset), **(map_opts or {})},
            ("points", "cluster", "boundary") if plane.is_2d else ("points", "cluster"),
        )
        zoom = Display({"zoom": cls._zoom}, zp, zoom_opts)
        return cls(plane, dataset, map_, zoom)

    @staticmethod
    def _points(**kw):
        return pb.cluster_layers(**kw)["points"]

    @staticmethod
    def _cluster(**kw):
        return pb.cluster_layers(**kw)["cluster"]

    @staticmethod
    def _zoom(view, classes, title):
        return pb.cluster_zoom(view, classes=classes, title=title)

    @staticmethod
    def _payloads_of(plane, dataset, result, index, grid, resolution):
        names = class_names(dataset)
        view = result.sample_view(index) if result is not None and index is not None and index >= 0 else None
        g = _grid_of(result, dataset, grid, resolution) if plane.is_2d and result is not None else None
        title = (
            f"Sample #{view['index']} and its N^M(x), M = {len(view['neighbours'])}"
            if view is not None
            else "N^M(x) in the sample space"
        )
        common = {
            "X": plane.X_train,
            "y": np.asarray(dataset.y_train),
            "classes": names,
            "feature_names": plane.axis_names,
            "title": title,
        }
        cluster = {
            **common,
            "index": None if view is None else view["index"],
            "neighbours": None if view is None else view["neighbours"],
            "X_tilde": None if view is None else plane(result.X_tilde),
        }
        zoom_title = "Locally 1-D count on f(·;Λ) (Fig 4)"
        if view is not None:
            zoom_title = (
                f"h_x = {view['bandwidth']:.3g}, P̂ = {view['posterior']:.2f}, Û(x) = {view['local_uncertainty']:.2f}"
            )
        points = {k: v for k, v in common.items() if k != "title"}
        return (
            {
                "points": {**points, "index": None},
                "cluster": cluster,
                "boundary": {"fields": g and g["fields"], "feature_names": plane.axis_names,
                             "limits": plane.limits(dataset)},
            },
            {"zoom": {"view": view, "classes": names, "title": zoom_title}},
        )

    def update(self, result, index: int | None, *, grid=None, resolution: int = GRID_RESOLUTION) -> list[str]:
        """Show sample ``index`` of ``result`` (same dataset); returns the layers that changed."""
        mp, zp = self._payloads_of(self.plane, self.dataset, result, index, grid, resolution)
        return self.map._send(mp) + self.zoom._send(zp)

    def nearest(self, x: float, y: float) -> int:
        """The training sample drawn nearest to the plotted point (x, y) (a tap)."""
        return self.plane.nearest(x, y)

    def element(self) -> hv.Layout:
        """The map and the zoom side by side (exports, figures)."""
        return (self.map.element() + self.zoom.element()).cols(2)


class ErrorCurvesDisplay:
    """Errors and −Û against the status (:attr:`curves`: layers ``curves`` and ``current``) and error
    against −Û (:attr:`parametric`: layers ``sweep`` and ``current``), from a sweep table (Figs 6-9).

    A new row of a running sweep feeds the curves; a status step moves only the current-status layers.
    """

    def __init__(self, curves: Display, parametric: Display, x: str):
        self.curves, self.parametric, self.x = curves, parametric, x

    @classmethod
    def from_table(
        cls,
        table: pd.DataFrame | None,
        x: str = "log2_gamma",
        current: float | None = None,
        *,
        columns=("L_te", "L_val", "L_ho", "L_tr", "U_tr", "U_te", "U1_tr"),
        title: str = "Error (left) and −Û (right) over the sweep",
        parametric_title: str = "Error against −Û (colour: status)",
        curves_opts=None,
        parametric_opts=None,
    ) -> ErrorCurvesDisplay:
        """Gather a sweep table (a row per status; columns L_te, L_val, ..., U_tr, ...)."""
        p = cls._payloads_of(table, x, current, columns)
        curves = Display(
            {"curves": pb.error_curve_layers, "current": pb.current_status_layers},
            {"curves": p["curves"], "current": p["current"]},
            {"multi_y": True, "title": title, "legend_position": "right", "framewise": True, **(curves_opts or {})},
        )
        param = Display(
            {"sweep": pb.parametric_layers, "current": pb.parametric_current},
            {"sweep": p["sweep"], "current": p["pcurrent"]},
            {
                "title": parametric_title,
                "legend_position": "right",
                "framewise": True,
                "padding": 0.08,
                **(parametric_opts or {}),
            },
        )
        d = cls(curves, param, x)
        d.columns = tuple(columns)
        return d

    @staticmethod
    def _payloads_of(table, x, current, columns):
        return {
            "curves": {"table": table, "x": x, "columns": tuple(columns)},
            "current": {"table": table, "x": x, "current": current},
            "sweep": {"table": table, "x": x},
            "pcurrent": {"table": table, "x": x, "current": current},
        }

    def update(self, table: pd.DataFrame | None, current: float | None = None, x: str | None = None) -> list[str]:
        """Show ``table`` with the marker at ``current``; returns the layers that changed."""
        x = x or self.x
        self.x = x
        p = self._payloads_of(table, x, current, self.columns)
        return self.curves._send({"curves": p["curves"], "current": p["current"]}) + [
            f"parametric {n}" for n in self.parametric._send({"sweep": p["sweep"], "current": p["pcurrent"]})
        ]

    def element(self) -> hv.Layout:
        """Both plots side by side (exports, figures)."""
        return (self.curves.element() + self.parametric.element()).cols(2)
