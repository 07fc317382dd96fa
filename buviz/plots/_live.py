"""The live machinery under every :class:`~buviz.plots.displays.Display`: named layers, a
``hv.streams.Pipe`` per layer, one ``hv.DynamicMap`` per group of layers.

After HoloViz's guidance, each layer is fed by its own ``Pipe`` and drawn by one ``DynamicMap``
(layers that always change together share one, see :class:`LiveOverlay`): sending new data down the
pipes of the layers whose data changed lets a live plot (a Panel pane, a notebook cell) update its
data sources in place and keep its glyphs, tools and streams. What a frame of a live plot costs
HoloViews is kept small: the plot options ride on an options id instead of being set on every frame
(:mod:`buviz.plots._hv_compat`), and a layer's frames share its template's options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import holoviews as hv
import numpy as np

from buviz.plots import style
from buviz.plots._hv_compat import share_options, wrap_overlay

__all__ = ["LiveOverlay", "drawn_in_legend", "same_data"]


def same_data(a, b) -> bool:
    """Whether two layer arguments are the same data (identical objects, or equal arrays)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_data(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_data(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, (str, int, float, type(None))) and isinstance(b, (str, int, float, type(None))):
        return a == b
    return False


def drawn_in_legend(overlay: hv.Overlay) -> hv.Overlay:
    """``overlay`` with no legend entry for a layer that draws nothing (an absent column, no current
    status): a legend lists only what the plot shows. Sets the option on those layers and returns
    ``overlay`` itself, with its own options."""
    for el in overlay:
        if len(el) == 0 and not isinstance(el, hv.VLine):
            el.opts(show_legend=False, backend="bokeh")
            el.opts(show_legend=False, backend="matplotlib")  # the exports
    return overlay


_SIDES = ("right", "left", "top", "bottom")
#: HoloViews' legend sides as Bokeh names the places around a frame.
_BOKEH_PLACE = {"top": "above", "bottom": "below"}


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
            fig.add_layout(legend, _BOKEH_PLACE.get(side, side))
        if side in ("right", "left"):  # the entries may arrive after the move: counted at every call
            rows = max(1, (int(fig.height or 480) - 60) // _LEGEND_ROW)
            for legend in [r for r in getattr(fig, side) if isinstance(r, Legend) and r.id not in counted]:
                n = sum(_legend_rows(item) for item in legend.items)
                if legend.items:
                    counted.add(legend.id)
                if n > rows:
                    legend.update(ncols=-(-n // rows), spacing=0, padding=4, label_text_font_size="9pt")

    return hook


def _has_data(renderer) -> bool:
    data = renderer.data_source.data
    return max((len(v) for v in data.values()), default=0) > 0


def _legend_drawn(plot, element) -> None:
    """A Bokeh hook run at every frame: a legend entry whose glyphs draw nothing (a sweep column not
    computed yet, no current status) is hidden, and shown again once they draw. HoloViews builds a
    live plot's legend entries once, from the first frame, so they would list what is not drawn."""
    for legend in plot.state.legend:  # the figure's own legends (no walk of its whole model graph)
        for item in legend.items:
            drawn = any(_has_data(r) for r in item.renderers)
            if item.visible != drawn:
                item.visible = drawn


#: Option templates a live overlay keeps (one per figure shown with options of its own).
_TEMPLATES_KEPT = 8


class LiveOverlay:
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
    args : dict of str to dict
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

    def __init__(self, builders: Mapping[str, Callable], args: Mapping[str, dict], opts=None, live=None,
                 groups: Mapping[str, tuple] | None = None):
        self.live = tuple(builders) if live is None else tuple(live)
        self._builders = dict(builders)
        self._args = {k: dict(args[k]) for k in self._builders}
        self.opts = dict(opts or {})
        group_of = {k: g for g, members in (groups or {}).items() for k in members}
        last = {group_of.get(k, k): i for i, k in enumerate(self._builders)}  # drawn in the order of their last layer
        self.groups = {g: tuple(groups[g]) if g in (groups or {}) else (g,) for g in sorted(last, key=last.get)}
        # a Pipe per layer, its parameter renamed after the layer: several layers changed by one update
        # are sent with one trigger (one redraw of the plot), without clashing parameter names
        self.pipes = {k: hv.streams.Pipe(data=self._args[k]).rename(data=k) for k in self._builders}
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
        return wrap_overlay(dmaps, with_options)

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

        A legend lists only the layers that draw something (:func:`_legend_drawn`, at every update). A
        legend beside the frame is placed there once, by a hook: HoloViews would take it out of
        the figure and add it back at every update, and each time the browser lays the page out again.
        """
        opts = {**self.opts, **opts}
        side = opts.get("legend_position")
        if side is not None:
            opts["hooks"] = [*opts.get("hooks", []), _legend_drawn]
        if side in _SIDES:
            opts["legend_position"] = "top_left"
            opts["hooks"] = [*opts.get("hooks", []), _legend_beside(side)]
        template = hv.Overlay([]).opts(backend="bokeh", **opts) if opts else None
        # the options live as long as an object carries their id: every figure shown keeps its own
        self._templates = [*getattr(self, "_templates", [])[-(_TEMPLATES_KEPT - 1):], template]
        return self._live(extra, template)

    def element(self, names=None, **opts) -> hv.Overlay:
        """A static overlay of the current data of the ``names`` layers (all by default): the same
        picture as :attr:`dmap`, for exports and figures; ``opts`` add to the display's plot options."""
        names = list(self._builders) if names is None else list(names)
        el = self._builders[names[0]](**self._args[names[0]])
        for k in names[1:]:
            el = el * self._builders[k](**self._args[k])
        opts = {**self.opts, **opts}
        if isinstance(el, hv.Table):  # a table is no overlay layer: drawn as it is
            return style.opts(el, **opts) if opts else el
        el = drawn_in_legend(el if isinstance(el, hv.Overlay) else hv.Overlay([el]))  # as _legend_drawn live
        return style.opts(el, **opts) if opts else el

    def send(self, args: Mapping[str, dict]) -> list[str]:
        """Send the changed arguments of each layer down its pipe; return the names of the layers that changed."""
        changed = []
        for name, new in args.items():
            old = self._args[name]
            if set(new) == set(old) and all(same_data(new[k], old[k]) for k in new):
                continue
            self._args[name] = dict(new)
            self.pipes[name].update(data=self._args[name])
            changed.append(name)
        if changed:
            hv.streams.Stream.trigger([self.pipes[k] for k in changed])
        return changed

