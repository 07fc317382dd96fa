"""Constants of the explorer shared by the package entry point and the page (no Panel import).

:mod:`buviz.app` (``serve``) and :mod:`buviz.app.layout` (the page) both read these; keeping them
here, below both, means neither imports the other at module level.
"""

from __future__ import annotations

__all__ = ["TITLE", "UNUSED_SESSION_LIFETIME_MS"]

#: The page title: the app covers the three papers' topics.
TITLE = "buviz · boundary uncertainty, accuracy extrapolation and discrete error estimates"

#: How long a page's session waits for its browser to connect (ms).
UNUSED_SESSION_LIFETIME_MS = 120_000
