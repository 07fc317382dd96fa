"""Server-side latency of the explorer: how long each applied control change took in this process.

:func:`record_apply` is called by :class:`~buviz.app.store.SessionStore` with the seconds from
reading the controls to the last view updated (snapshot computed or taken from the caches, every
view's plot refreshed). :data:`APPLY_TIMES` keeps the latest 10 000. Whoever starts the server (a
load test, an administrator) may set ``BUVIZ_TIMING_LOG`` to a file; each change then appends the line
``<unix time> <seconds> <control,...>`` there. The path comes only from the environment.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque

__all__ = ["APPLY_TIMES", "record_apply"]

#: Seconds each applied change took in this process, newest last.
APPLY_TIMES: deque[float] = deque(maxlen=10_000)
_LOCK = threading.Lock()


def record_apply(seconds: float, changed: list[str]) -> None:
    """Keep the time of one applied change (``changed``: the controls that differ from the last one)."""
    APPLY_TIMES.append(seconds)
    path = os.environ.get("BUVIZ_TIMING_LOG")
    if path:
        with _LOCK, open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{time.time():.3f} {seconds:.4f} {','.join(changed) or '-'}\n")
