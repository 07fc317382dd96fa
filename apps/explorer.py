"""The buviz explorer: boundary uncertainty, accuracy extrapolation and discrete error estimates.

Serve it on this machine only (recommended)::

    panel serve apps/explorer.py --address 127.0.0.1 --port 5006

or ``buviz serve`` (binds 127.0.0.1 by default). Note that a bare ``panel serve apps/explorer.py``
listens on *all* network interfaces (Bokeh's default address); only pass ``--address 0.0.0.0`` together
with ``--allow-websocket-origin HOST:PORT`` when other machines are meant to reach the app. Uploaded
CSVs are capped at 5 MB and parsed as data only (never evaluated); the file name is never used as a path.
"""

from buviz.app.layout import TITLE, build_app

build_app().servable(title=TITLE)
