"""The boundary-uncertainty explorer (Panel): ``buviz serve`` or ``panel serve apps/explorer.py``."""

from __future__ import annotations

__all__ = ["serve"]


def _app():
    from buviz.app.layout import build_app

    return build_app()


def serve(port: int = 5006, address: str = "127.0.0.1", show: bool = False, **kwargs):
    """Serve the explorer at ``http://address:port/`` (also ``/explorer``, as with ``panel serve``).

    Same app factory as ``apps/explorer.py`` (one :class:`~buviz.app.layout.ExplorerApp` per session);
    localhost only by default -- pass ``address="0.0.0.0"`` to expose it. Blocks until stopped;
    extra keyword arguments go to :func:`panel.serve` (e.g. ``threaded=True, start=False``).
    """
    import panel as pn

    port = int(port)
    origins = {f"{address}:{port}", f"localhost:{port}", f"127.0.0.1:{port}"}
    kwargs.setdefault("websocket_origin", sorted(origins))
    kwargs.setdefault("title", "buviz explorer")
    return pn.serve({"/": _app, "explorer": _app}, port=port, address=address, show=show, **kwargs)
