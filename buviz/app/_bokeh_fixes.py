"""A guard around one Bokeh server race, installed by :func:`buviz.app.layout.build_app`.

Bokeh's keep-alive job pings every client; a ping to a socket the browser has just closed makes it
call ``client_lost``, which detaches the connection from its session (bokeh#13655). When Tornado
then delivers the close, ``WSHandler.on_close`` reads ``connection.session``, which asserts the
session is still attached: an ``AssertionError`` traceback in the server log for a session that was
already cleaned up. It shows when many browsers close at once on a busy server (the 20-session
load test). The guard finishes the clean-up without that read; everything else is Bokeh's own code.
"""

from __future__ import annotations

import logging

__all__ = ["guard_close_after_failed_ping"]

log = logging.getLogger(__name__)


def guard_close_after_failed_ping() -> None:
    """Make ``WSHandler.on_close`` tolerate a connection already detached by the keep-alive job (idempotent)."""
    from bokeh.server.views.ws import WSHandler

    if getattr(WSHandler.on_close, "_buviz_guard", False):
        return
    original = WSHandler.on_close

    def on_close(self) -> None:
        connection = getattr(self, "connection", None)
        if connection is not None and getattr(connection, "_session", True) is None:
            log.info("WebSocket connection closed after its session was detached by a failed keep-alive ping")
            self.application.client_lost(connection)
            return
        original(self)

    on_close._buviz_guard = True
    on_close.__doc__ = original.__doc__
    WSHandler.on_close = on_close
