"""A time budget for work done in steps: a check to call between them.

An upload is read (:func:`buviz.app.upload.prepare_csv`, :data:`~buviz.app.upload.UPLOAD_TIME_BUDGET_S`)
and a snapshot computed (:func:`buviz.app.compute.compute_snapshot`,
:data:`~buviz.app.compute.SNAPSHOT_TIME_BUDGET_S`) in steps that cannot be interrupted; between them, the
check of :func:`time_budget` stops the work once it ran too long, or once its job was cancelled.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["time_budget"]


def time_budget(seconds: float, doing: str, why: str, check: Callable[[], None] | None = None
                ) -> Callable[[], None]:
    """A check to call between the steps of some work, started now.

    Parameters
    ----------
    seconds : float
        How long the work may take, counted from this call.
    doing : str
        What the work is, for the message ("reading the file").
    why : str
        What the user should know or do, for the message.
    check : callable, optional
        Called first at every check: a job's :meth:`~buviz.app.runner.Job.check`, so that a cancelled job
        stops there.

    Returns
    -------
    callable
        The check: it raises :class:`ValueError` ("{doing} took more than {seconds} s ({why})") once
        ``seconds`` have passed, and whatever ``check`` raises.
    """
    start = time.monotonic()

    def within() -> None:
        if check is not None:
            check()
        if time.monotonic() - start > seconds:
            raise ValueError(f"{doing} took more than {seconds:g} s ({why})")

    return within
