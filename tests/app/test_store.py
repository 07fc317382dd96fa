"""The explorer's roles without a browser: Controls hold only the controls, the SessionStore owns every
derived output (read-only) and all background work through ``request``, views keep their panes."""

from __future__ import annotations

import threading

import param
import pytest

from buviz.app import tasks
from buviz.app.controls import CONTROL_PARAMS, URL_PARAMS, Controls
from buviz.app.runner import Job
from buviz.app.store import SessionStore

SMALL = dict(n_train=150, cv=2, M=20, auto_sweep=False)


@pytest.fixture(scope="module")
def store():
    s = SessionStore(**SMALL)
    yield s
    s.close()


def test_controls_hold_the_controls_only():
    assert set(Controls.param) - {"name"} == set(URL_PARAMS) == {*CONTROL_PARAMS, "sweep_proposal1"}
    assert len(URL_PARAMS) == 16
    derived = {"snapshot", "sweep_table", "sensitivity", "message", "computing", "proposal1", "amplitude_table"}
    assert not derived & set(Controls.param) and derived <= set(SessionStore.param)
    c = Controls(log2_gamma=3, M=30)
    c.reset()
    assert c.is_default() and c.settings() == {p: Controls.param[p].default for p in CONTROL_PARAMS}


def test_every_output_of_the_store_is_read_only(store):
    outputs = {n: p for n, p in store.param.objects().items() if p.constant and n not in ("name", "controls")}
    assert {"snapshot", "sweep_table", "sweep_state", "notice", "status_notice", "proposal1"} <= set(outputs)
    other = {param.String: "changed", param.Integer: 7, param.Dict: {"M": {}}}
    for name, p in outputs.items():
        with pytest.raises(TypeError, match="cannot be modified"):
            setattr(store, name, other.get(type(p), object()))
    store.report("a message")  # the store's own way to say something
    assert store.message == "a message"
    store.report("")


def test_views_depend_on_the_store_and_keep_their_panes(store):
    from bokeh.document import Document
    from bokeh.models import Plot

    from buviz.app.curves import SensitivityView

    view = SensitivityView(store=store)
    pane = view.plot_pane
    assert not pane.visible and view.hint.visible  # nothing run yet
    root = pane.get_root(Document())
    store.run_sensitivity("M", values=(20, 40))  # no server: waits for the tables
    assert store.sensitivity_state == "done" and set(store.sensitivity["M"]) == {"M = 20", "M = 40"}
    assert view.plot_pane is pane and pane.visible and not view.hint.visible
    assert view.kind_boxes["M"].visible and not view.kind_boxes["K"].visible  # K not run
    frame = view.displays["M"].element()  # the M plot's picture of the tables the store holds
    labels = {el.label for el in frame}
    assert {"M = 20", "M = 40"} <= labels  # one −Û_tr curve per M
    m_plot = {m.id for m in root.select({"type": Plot})}
    assert len(m_plot) == 1
    store.run_sensitivity("K", values=("3", "aic"))
    assert view.kind_boxes["K"].visible and set(store.sensitivity) == {"M", "K"}
    assert m_plot < {m.id for m in root.select({"type": Plot})}  # the M plot stays; K's is added beside it


def test_request_answers_a_cached_step_at_once_and_delivers_on_the_session(store):
    key = tasks.DiscreteKey(12, 3, 0.25)
    tasks.discrete_at_p(key)  # cached now
    got = []
    job = store.request("t", tasks.discrete_at_p, key, on_done=got.append, blocking=False)
    assert job.finished and job.status == "done" and job.result is tasks.discrete_at_p(key)
    assert got == []  # the delivery waits for the session (here: its flush), never a thread's callback
    store.link.flush()
    assert got == [job]


def test_request_latest_wins_in_a_slot_and_blocks_only_without_a_server(store):
    gate = threading.Event()
    first = store.request("slow", lambda: gate.wait(30), blocking=False)
    second = store.request("slow", lambda: 42, on_done=lambda j: None)  # no server: waits for the result
    gate.set()
    assert first.wait(30) and first.status == "cancelled"  # the newer request of the slot replaced it
    assert second.status == "done" and second.result == 42
    progress = []

    def work(job: Job, n):
        for i in range(n):
            job.progress(i + 1, n)
        return n

    job = store.request("steps", work, 3, with_job=True, on_progress=lambda j: progress.append(j.done),
                        on_done=lambda j: None)
    assert job.result == 3 and progress and progress[-1] == 3


def test_a_background_only_store_has_no_controls_and_computes_nothing():
    s = SessionStore(controls=None)
    assert s.controls is None and s.snapshot is None
    assert s.request("x", lambda: 7, on_done=lambda j: None).result == 7


def test_closing_cancels_the_sessions_requests():
    s = SessionStore(**SMALL)
    gate = threading.Event()
    job = s.request("proposal1", lambda: gate.wait(30), blocking=False)
    s.close()
    gate.set()
    assert job.wait(30) and job.cancelled and s.snapshot is None
    with param.parameterized.discard_events(s):
        assert s.sweep is None


def test_published_results_are_outputs_where_the_latest_request_wins_and_a_failure_keeps_the_last():
    s = SessionStore(controls=None)
    s.request("curves", lambda: "a", publish=True, key=1)  # no server: waits for the delivery
    assert (s.results["curves"].key, s.results["curves"].value, s.states["curves"]) == (1, "a", "done")
    assert s.result_for("curves", 1) == "a" and s.result_for("curves", 2) is None
    # a slow request, then a newer one answered from the cache at once: the slow one ends last, and
    # must not replace the newer result (nor its state)
    from buviz.app.cache import cached

    @cached(max_items=2)
    def answer(x):
        return x

    answer("b")
    gate, started = threading.Event(), threading.Event()

    def slow():
        started.set()
        gate.wait(30)
        return "stale"

    stale = s.request("curves", slow, publish=True, key=2, blocking=False)
    assert started.wait(30) and s.states["curves"] == "running"
    published = []
    s.param.watch(lambda e: published.append(e.new["curves"].key), "results")
    s.request("curves", answer, "b", publish=True, key=3, blocking=False)  # shown at once
    assert (s.results["curves"].key, s.results["curves"].value, s.states["curves"]) == (3, "b", "done")
    gate.set()
    assert stale.wait(30) and stale.status == "done"  # it ran to its end ...
    s.link.wait()
    assert published == [3] and s.results["curves"].value == "b" and s.states["curves"] == "done"  # ... unseen

    def bad_input():
        raise ValueError("K must be <= 10")

    s.request("curves", bad_input, publish=True, key=4)
    assert s.states["curves"] == "error: K must be <= 10" and s.result_for("curves", 3) == "b"
    with pytest.raises(TypeError, match="cannot be modified"):
        s.results = {}


def test_closing_cancels_every_named_request_and_drops_the_results():
    s = SessionStore(controls=None)
    s.request("figure", lambda: "old", publish=True, key="fig")
    gate = threading.Event()
    job = s.request("figure", lambda: gate.wait(30), publish=True, key="fig", blocking=False)
    s.close()
    gate.set()
    assert job.wait(30) and job.cancelled
    with param.parameterized.discard_events(s):
        assert s.results == {}


def test_the_tabs_results_live_in_the_store_not_in_their_views():
    import holoviews as hv

    from buviz.app.discrete import DiscreteEstimatorsView
    from buviz.app.extrapolation import ExtrapolationView

    s = SessionStore(controls=None)
    disc = DiscreteEstimatorsView(N=20, k=4, p=0.3, mc_samples=200, store=s)
    ext = ExtrapolationView(population="digits", K=4, method="kde", store=s)
    assert {"discrete", "extrapolation-toy", "extrapolation-curves", "extrapolation-classex"} <= set(s.results)
    assert s.results["discrete"].key == tasks.DiscreteKey(20, 4, 0.3) and s.results["extrapolation-curves"].key.K == 4

    def mc_points():
        return [el for el in disc.fig2.element() if isinstance(el, hv.Scatter) and len(el)]

    mc = disc.run_monte_carlo(n_points=3)
    assert s.results["monte-carlo"].value is mc and mc_points()
    assert not {"mc", "mc_state", "table"} & (set(disc.param) | set(ext.param))
    disc.N = 21  # the Monte Carlo answers N = 20: not drawn now, but the store keeps it
    assert disc.mc is None and not mc_points() and s.results["monte-carlo"].value is mc
    disc.N = 20
    assert disc.mc is mc and mc_points()
    shown = ext.ext.observed
    ext.K = 12  # more than the 10 digit classes: the store says why; the last curves stay
    assert s.states["extrapolation-curves"].startswith("error: K must be") and ext.alerts["ext"].visible
    assert ext.ext.observed is shown and s.results["extrapolation-curves"].key.K == 4
