"""The buviz explorer (Panel): boundary uncertainty, accuracy extrapolation and discrete error estimates.

Served with ``buviz serve`` or ``panel serve apps/explorer.py``; inside a Jupyter notebook with
:func:`explorer`.
"""

from __future__ import annotations

__all__ = ["serve", "explorer", "TITLE", "UNUSED_SESSION_LIFETIME_MS"]

from buviz.app.meta import TITLE, UNUSED_SESSION_LIFETIME_MS


def _app():
    from buviz.app.layout import build_app

    return build_app()


def __getattr__(name: str):
    # ``buviz.app.explorer`` is imported on first use: importing this package stays free of Panel
    if name == "explorer":
        from buviz.app.notebook import explorer

        return explorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def serve(port: int = 5006, address: str = "127.0.0.1", show: bool = False,
          allow_websocket_origin: tuple[str, ...] = (), uploads: bool = True,
          session_budget: float | None = None, **kwargs):
    """Serve the explorer at ``http://address:port/`` (also ``/explorer``, as with ``panel serve``).

    Same app factory as ``apps/explorer.py`` (one :class:`~buviz.app.layout.ExplorerApp` per session);
    localhost only by default -- pass ``address="0.0.0.0"`` to expose it, with the ``HOST:PORT`` the
    other machines will use in ``allow_websocket_origin``; ``uploads=False`` leaves out the CSV upload
    (``buviz serve --no-upload``: it sets ``BUVIZ_NO_UPLOAD=1`` for the app). ``session_budget`` is the
    compute seconds per minute a page may use before its requests queue behind the other pages'
    (:class:`~buviz.app.runner.ComputeBudget`; None: ``BUVIZ_SESSION_BUDGET``, else off; 0: no fair
    share). Blocks until stopped;
    extra keyword arguments go to :func:`panel.serve` (e.g. ``threaded=True, start=False``).

    A page's session is kept 2 minutes (Bokeh's default: 15 s) while its browser has not connected:
    when a class opens the page at once the browsers may take that long, and a session Bokeh drops
    in between must be built again. Bokeh's keep-alive pings are off: a ping that meets a socket the
    browser is closing detaches its session while the socket's last messages are still being
    handled, and each such message then raises ``AssertionError`` in the server (bokeh#13655; seen
    when 20 browsers close together). Closed sockets are still cleaned up by Tornado's close. Behind a
    proxy that drops idle connections, pass ``keep_alive_milliseconds=37000`` (Bokeh's default).
    ``panel serve --unused-session-lifetime 120000 --keep-alive 0`` does the same as these defaults.
    """
    import os

    import panel as pn

    from buviz.app.layout import WEBSOCKET_MAX_MESSAGE_BYTES
    from buviz.app.runner import RUNNER, ComputeBudget

    if not uploads:
        os.environ["BUVIZ_NO_UPLOAD"] = "1"
    if session_budget is not None:
        if not float(session_budget) >= 0:
            raise ValueError(f"session_budget must be a number of seconds ≥ 0 (0: no budget), got {session_budget!r}")
        RUNNER.budget = ComputeBudget(float(session_budget)) if session_budget > 0 else None
    port = int(port)
    origins = {f"{address}:{port}", f"localhost:{port}", f"127.0.0.1:{port}", *allow_websocket_origin}
    kwargs.setdefault("websocket_origin", sorted(origins))
    kwargs.setdefault("title", TITLE)
    kwargs.setdefault("unused_session_lifetime_milliseconds", UNUSED_SESSION_LIFETIME_MS)
    kwargs.setdefault("keep_alive_milliseconds", 0)
    # above the largest message an upload sends, whatever Bokeh's default becomes (a message over it
    # closes the page's socket)
    kwargs.setdefault("websocket_max_message_size", WEBSOCKET_MAX_MESSAGE_BYTES)
    return pn.serve({"/": _app, "explorer": _app}, port=port, address=address, show=show, **kwargs)
