"""Background results delivered to a session (buviz.app.session), the idle page at rest, and the one
cache and runner shared by every tab."""

from __future__ import annotations

import threading

from bokeh.document import Document

from buviz.app import cache
from buviz.app._panel_compat import is_background, periodic_callbacks, session_document
from buviz.app.runner import JobRunner
from buviz.app.session import BackgroundPoll, SessionLink


class _Doc:
    """A served session's document whose next-tick callbacks are queued here (stepped by hand)."""

    def __init__(self):
        self.doc = Document()
        self.pending = []
        self.doc.add_next_tick_callback = self.pending.append

    def run(self):
        while self.pending:
            self.pending.pop(0)()


def test_served_deliveries_go_to_the_event_loop_and_same_key_deliveries_coalesce():
    link, loop = SessionLink(), _Doc()
    link.attach(loop.doc)
    seen = []
    for i in range(5):
        link.deliver(lambda i=i: seen.append(i), key="rows")
    link.deliver(lambda: seen.append("other"))
    assert seen == [] and len(loop.pending) == 2  # five row deliveries became one
    loop.run()
    assert seen == [0, "other"]
    link.deliver(lambda: seen.append("later"), key="rows")  # the key is free again once delivered
    loop.run()
    assert seen[-1] == "later"


def test_a_watched_job_is_delivered_on_flush_when_not_served_and_nothing_after_close():
    runner, link = JobRunner(), SessionLink()
    gate = threading.Event()
    job = runner.submit(lambda j: gate.wait(10) and 42)
    got = []
    link.watch(job, lambda j: got.append(j.result))
    assert link.busy() and got == []
    gate.set()
    assert job.wait(10) and link.busy() and got == []  # ended; its delivery waits for the flush
    assert link.flush() and got == [42] and not link.busy()
    job2 = runner.submit(lambda j: 1)
    link.watch(job2, lambda j: got.append("late"))
    link.close()
    job2.wait(10)
    assert not link.flush() and got == [42]


def test_the_served_page_runs_no_periodic_callback_so_the_busy_indicator_rests():
    """Panel counts every periodic callback as a busy event: the explorer's former 400 ms poll kept the
    header spinner turning. Served, results are pushed; nothing runs while the page is idle."""
    from buviz.app.layout import ExplorerApp

    doc = Document()
    with session_document(doc):
        app = ExplorerApp()
        app.start_server_hooks()
        assert periodic_callbacks(doc) == []


def test_the_notebook_poll_is_a_background_callback_and_stops_when_idle():
    link = SessionLink()
    runner = JobRunner()
    gate = threading.Event()
    job = link.watch(runner.submit(lambda j: gate.wait(10)), lambda j: None)
    poll = BackgroundPoll(link, period=50)
    poll.start()
    assert poll.running and is_background(poll._cb)  # not counted as busy by Panel
    gate.set()
    job.wait(10)
    poll._tick()  # results flushed; the next tick finds nothing running and stops
    poll._tick()
    assert not poll.running


def test_every_in_memory_store_of_the_explorer_is_in_the_one_cache():
    import buviz.app.sweeps  # noqa: F401  (registers the finished-sweep store)
    import buviz.app.tasks  # noqa: F401

    names = set(cache.sizes())
    for step in ("dataset_for", "status_eval", "bu_result", "proposal1_result", "amplitude_sweep",
                 "discrete_tables", "discrete_at_p", "discrete_monte_carlo", "toy_model",
                 "extrapolation_curves", "finished_sweeps"):
        assert any(n.endswith("." + step) for n in names), step
    assert all(items <= bound for items, bound in cache.sizes().values())
