"""The HoloViews internals that the live displays of :mod:`buviz.plots.displays` rely on, in one place.

Checked with holoviews 1.23.2 (bokeh 3.9.2, panel 1.9.4). ``tests/plots/test_displays.py`` checks each
behaviour named here (``test_hv_compat_*``) and fails, naming this module, when a release changes it.

1. **An overlay's callback is flagged.** HoloViews' ``*`` between ``DynamicMap`` objects returns one
   whose ``Callable`` carries ``_is_overlay = True``; the plotting code
   (``holoviews.plotting.util.split_dmap_overlay``) then draws each input ``DynamicMap`` as a layer of
   its own, so that a stream event redraws only the layers it feeds. A callback that wraps the one of
   ``*`` (to give its frames the display's options) must carry the flag too: :func:`overlay_callback`.
2. **Options travel by id.** ``element.opts(...)`` stores the options in ``Store.custom_options()``
   under a new ``element.id``; another element given that id is drawn with the same options, without
   an options tree being built for it: :func:`share_options`.

3. **The options a backend accepts for an element** (:func:`allowed_options`): the option tree
   ``Store.options(backend=...)[name].groups[group].allowed_keywords``, which the Matplotlib export
   reads to drop Bokeh-only options (``buviz.plots.style``). An element type the backend does not
   draw has no entry (an empty set); any other failure is a change of HoloViews and raises.
4. **A layout's column count** (:func:`layout_columns`): ``Layout.cols(n)`` keeps ``n`` in
   ``Layout._max_cols`` and no public attribute returns it.
5. **A new kind of ``param`` parameter** (:func:`parameter_slot_defaults`): a ``Parameter`` subclass
   with slots of its own declares their defaults in ``_slot_defaults``, extending its base's (the way
   param's own parameter types are written; param 2 has no public hook for it).

The public alternative to 2, ``DynamicMap.opts``, wraps the map in an operation that applies the options
to every element of every frame (``holoviews.core.accessors.Opts._dynamicmap_opts``), which costs a
live plot a few milliseconds per layer at each status step.

A wrapper of a ``DynamicMap``'s callback must call the wrapped *function* (``Callable.callable``), not
the ``Callable``: a ``Callable`` memoises its result on its inputs' streams and on the memoisation
hash that only its own ``DynamicMap`` passes, so one without inputs, called from another callback,
sees the same (empty) key at every call and returns its first frame forever.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import holoviews as hv

__all__ = ["CHECKED", "allowed_options", "overlay_callback", "share_options", "wrap_overlay", "layout_columns",
           "parameter_slot_defaults"]

#: The releases whose internals this module was checked against.
CHECKED = {"holoviews": "1.23.2", "bokeh": "3.9.2", "panel": "1.9.4", "param": "2.4.2"}


def overlay_callback(fn: Callable, inputs: Sequence[hv.DynamicMap]) -> hv.Callable:
    """A ``Callable`` of ``fn`` over the ``DynamicMap`` objects ``inputs`` that the plot draws, as the
    result of ``*``, one layer per input."""
    callback = hv.Callable(fn, inputs=list(inputs))
    callback._is_overlay = True
    return callback


def wrap_overlay(dmaps: Sequence[hv.DynamicMap], wrap: Callable) -> hv.DynamicMap:
    """The overlay ``dmaps[0] * dmaps[1] * ...`` whose every frame is passed through ``wrap``, still drawn
    one layer per input ``DynamicMap`` (item 1).

    It reads the function that ``*`` put in its result's ``Callable`` (``Callable.callable``, which
    reads the input maps) and wraps that function, not the ``Callable`` (see the module's last note).
    """
    out = dmaps[0]
    for d in dmaps[1:]:
        out = out * d
    product = out.callback.callable
    callback = overlay_callback(lambda *a, **kw: wrap(product(*a, **kw)), out.callback.inputs)
    return out.clone(callback=callback, shared_data=False)


def share_options(frame, template) -> None:
    """Give ``frame`` (an element built for one frame, without options of its own) the plot options set
    on ``template``; ``template`` must stay alive as long as frames carry its options."""
    frame.id = template.id


def allowed_options(element: str, group: str, backend: str = "matplotlib") -> frozenset[str]:
    """The ``group`` options (``"style"`` or ``"plot"``) that ``backend`` accepts for the element type
    named ``element`` (``"Curve"``); empty for a type the backend does not draw."""
    tree = hv.Store.options(backend=backend)
    try:
        node = tree[element]
    except (KeyError, AttributeError):
        return frozenset()
    if element not in tree.children:  # the tree answers an unknown name with its root
        return frozenset()
    return frozenset(node.groups[group].allowed_keywords)


def layout_columns(layout: hv.Layout) -> int | None:
    """The number of columns set by ``layout.cols(n)`` (item 4); HoloViews' default, 4, where none was
    set."""
    return getattr(layout, "_max_cols", None)


def parameter_slot_defaults(base: type, **extra) -> dict:
    """The slot defaults of a ``param.Parameter`` subclass of ``base`` with the slots ``extra`` added
    (item 5)."""
    return dict(base._slot_defaults, **extra)
