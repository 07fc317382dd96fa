"""Boundary-uncertainty explorer: ``panel serve apps/explorer.py``."""

from buviz.app.layout import build_app

build_app().servable(title="buviz explorer")
