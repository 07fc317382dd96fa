"""The explorer's roles without a browser: Controls hold only the controls, the SessionStore owns every
derived output (read-only) and all background work through its job bus, views keep their panes."""

from __future__ import annotations

import threading

import param
import pytest

from buviz.app import tasks
from buviz.app.bus import Requested
from buviz.app.controls import CONTROL_PARAMS, DATA_BOUNDS, URL_PARAMS, Controls
from buviz.app.runner import Job
from buviz.app.store import SessionStore

SMALL = dict(n_train=150, cv=2, M=20, auto_sweep=False)


@pytest.fixture(scope="module")
def store():
    s = SessionStore(**SMALL)
    yield s
    s.close()


def test_controls_hold_the_controls_only():
    assert set(Controls.param) - {"name", *DATA_BOUNDS} == set(URL_PARAMS) == {*CONTROL_PARAMS, "sweep_proposal1"}
    assert len(URL_PARAMS) == 16
    assert all(Controls.param[b].constant for b in DATA_BOUNDS)  # what the data allow: not the user's to set
    derived = {"snapshot", "message", "computing", "notice"}
    assert not derived & set(Controls.param) and derived <= set(SessionStore.param)
    parts = {"cv_sweep": {"table", "progress", "state"}, "sensitivity": {"tables", "state"}, "proposal1": {"result"},
             "amplitude": {"table", "settings", "state"}}
    s = SessionStore(controls=None)
    for part, outputs in parts.items():  # the stores beside the snapshot: outputs of their own, read-only
        store = getattr(s, part)
        assert outputs <= set(store.param) and not outputs & set(Controls.param)
        assert all(store.param[o].constant for o in outputs), part
    c = Controls(log2_gamma=3, M=30)
    c.reset()
    assert c.is_default() and c.settings() == {p: Controls.param[p].default for p in CONTROL_PARAMS}


def test_every_output_of_the_store_is_read_only(store):
    outputs = {n: p for n, p in store.param.objects().items() if p.constant and n not in ("name", "controls")}
    assert {"snapshot", "notice", "status_notice"} <= set(outputs)
    other = {param.String: "changed", param.Integer: 7, param.Dict: {"M": {}}}
    parts = [(store, outputs)] + [(part, {n: p for n, p in part.param.objects().items() if p.constant and n != "name"})
                                  for part in (store.cv_sweep, store.sensitivity, store.proposal1, store.amplitude)]
    assert [len(o) for _, o in parts[1:]] == [3, 2, 1, 3]  # table, progress, state; tables, state; result; ...
    for obj, params in parts:
        for name, p in params.items():
            with pytest.raises(TypeError, match="cannot be modified"):
                setattr(obj, name, other.get(type(p), object()))
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
    store.sensitivity.run("M", values=(20, 40))  # in the background
    assert store.sensitivity.state == "running M sweeps" and pane is view.plot_pane and not pane.visible
    store.wait()  # no server: the caller waits
    assert store.sensitivity.state == "done" and set(store.sensitivity.tables["M"]) == {"M = 20", "M = 40"}
    assert view.plot_pane is pane and pane.visible and not view.hint.visible
    assert view.kind_boxes["M"].visible and not view.kind_boxes["K"].visible  # K not run
    frame = view.displays["M"].element()  # the M plot's picture of the tables the store holds
    labels = {el.label for el in frame}
    assert {"M = 20", "M = 40"} <= labels  # one −Û_tr curve per M
    m_plot = {m.id for m in root.select({"type": Plot})}
    assert len(m_plot) == 1
    store.sensitivity.run("K", values=("3", "aic"))
    store.wait()
    assert view.kind_boxes["K"].visible and set(store.sensitivity.tables) == {"M", "K"}
    assert m_plot < {m.id for m in root.select({"type": Plot})}  # the M plot stays; K's is added beside it


def test_request_answers_a_cached_step_at_once_and_delivers_on_the_session(store):
    key = tasks.DiscreteKey(12, 3, 0.25)
    tasks.discrete_at_p(key)  # cached now
    got = []
    job = store.bus.request("t", tasks.discrete_at_p, key, on_done=got.append)
    assert job.finished and job.status == "done" and job.result is tasks.discrete_at_p(key)
    assert got == []  # the delivery waits for the session (here: its flush), never a thread's callback
    store.link.flush()
    assert got == [job]


def test_request_latest_wins_in_a_slot_never_waits_and_the_caller_waits_explicitly(store):
    gate = threading.Event()
    first = store.bus.request("slow", lambda: gate.wait(30))
    got = []
    second = store.bus.request("slow", lambda: 42, on_done=got.append)
    assert got == []  # returned at once: the delivery waits for the caller
    gate.set()
    store.wait()  # no server: the caller waits, and the deliveries run here
    assert first.status == "cancelled"  # the newer request of the slot replaced it
    assert second.status == "done" and second.result == 42 and got == [second]
    progress = []

    def work(job: Job, n):
        for i in range(n):
            job.progress(i + 1, n)
        return n

    job = store.bus.request("steps", work, 3, with_job=True, on_progress=lambda j: progress.append(j.done),
                        on_done=lambda j: None)
    store.wait()
    assert job.result == 3 and progress and progress[-1] == 3


def test_wait_names_the_job_still_running_after_its_timeout_and_waits_for_what_deliveries_ask_for():
    s = SessionStore(controls=None)
    gate = threading.Event()
    s.bus.request("held", lambda: gate.wait(30), label="a held job")
    assert s.bus.busy
    with pytest.raises(TimeoutError, match="'a held job' still running after 0.2 s"):
        s.wait(0.2)
    gate.set()
    got = []

    def first(job):  # a delivery that asks for more, as the store's coalescing does
        got.append(job.result)
        s.bus.request("b", lambda: 2, on_done=lambda j: got.append(j.result))

    s.bus.request("a", lambda: 1, on_done=first)
    s.wait()
    assert got == [1, 2] and not s.bus.busy


def test_a_background_only_store_has_no_controls_and_computes_nothing():
    s = SessionStore(controls=None)
    assert s.controls is None and s.snapshot is None
    job = s.bus.request("x", lambda: 7, on_done=lambda j: None)
    s.wait()
    assert job.result == 7


def test_closing_cancels_the_sessions_requests():
    s = SessionStore(**SMALL)
    gate = threading.Event()
    job = s.bus.request("proposal1", lambda: gate.wait(30))
    s.close()
    gate.set()
    assert job.wait(30) and job.cancelled and s.snapshot is None
    with param.parameterized.discard_events(s):
        assert s.cv_sweep.shared is None


def test_a_requested_result_is_an_output_where_the_latest_request_wins_and_a_failure_keeps_the_last():
    from buviz.app.cache import cached

    @cached(max_items=4)
    def answer(x):
        return x

    s = SessionStore(controls=None)
    curves = Requested(s.bus, "curves", answer)
    curves.request("a")
    s.wait()  # no server: the caller waits for the delivery
    assert (curves.key, curves.value, curves.state) == ("a", "a", "done")
    assert curves.value_for("a") == "a" and curves.value_for("b") is None
    # a slow request, then a newer one answered from the cache at once: the slow one ends last, and
    # must not replace the newer result (nor its state)
    answer("b")
    gate, started = threading.Event(), threading.Event()

    def slow():
        started.set()
        gate.wait(30)
        return "stale"

    stale = curves.request("slow", fn=slow)
    assert started.wait(30) and curves.state == "running"
    published = []
    curves.param.watch(lambda e: published.append(e.new), "key")
    curves.request("b")  # cached: shown at once
    assert (curves.key, curves.value, curves.state) == ("b", "b", "done")
    gate.set()
    assert stale.wait(30) and stale.status == "done"  # it ran to its end ...
    s.wait()
    assert published == ["b"] and curves.value == "b" and curves.state == "done"  # ... unseen

    def bad_input():
        raise ValueError("K must be <= 10")

    curves.request("bad", fn=bad_input)
    s.wait()
    assert curves.state == "error: K must be <= 10" and curves.error == "K must be <= 10"
    assert curves.value_for("b") == "b" and curves.value_for("bad") is None
    with pytest.raises(TypeError, match="cannot be modified"):
        curves.value = None


def test_a_result_replaced_by_a_newer_request_is_cancelled_and_never_published():
    s = SessionStore(controls=None)
    curves = Requested(s.bus, "curves", lambda key: key)
    gate, started = threading.Event(), threading.Event()

    def slow():
        started.set()
        gate.wait(30)
        return "stale"

    stale = curves.request(1, fn=slow)
    assert started.wait(30)
    published = []
    curves.param.watch(lambda e: published.append(e.new), "key")
    curves.request(2)  # in the runner: latest wins in the slot
    gate.set()
    s.wait()
    assert stale.cancelled and published == [2] and (curves.value, curves.state) == (2, "done")


def test_closing_cancels_every_named_request_and_delivers_nothing_more():
    s = SessionStore(controls=None)
    figure = Requested(s.bus, "figure", lambda key: "old")
    figure.request("fig")
    s.wait()
    gate = threading.Event()
    job = figure.request("fig", fn=lambda: gate.wait(30) and "new")
    s.close()
    gate.set()
    assert job.wait(30) and job.cancelled
    s.wait()
    assert figure.value is None and figure.state == "running"  # dropped with the session, nothing delivered
    late = figure.request("fig", fn=lambda: "late")  # a late widget event: nothing is asked for
    assert late.cancelled and figure.value is None and s.bus.request("x", lambda: 1).cancelled


def test_a_result_store_without_a_function_of_its_own_needs_one_per_request():
    from buviz.app.bus import JobBus

    bus = JobBus()
    figure = Requested(bus, "figure", lambda key: key)
    with pytest.raises(ValueError, match="fn"):
        Requested(bus, "render", None).request("k")
    job = figure.request("k")
    bus.wait()
    assert job.result == "k" and figure.value == "k"


def test_the_tabs_results_live_in_result_stores_on_the_sessions_bus_not_in_their_views():
    import holoviews as hv

    from buviz.app.discrete import DiscreteEstimatorsView
    from buviz.app.extrapolation import ExtrapolationView

    s = SessionStore(controls=None)
    disc = DiscreteEstimatorsView(N=20, k=4, p=0.3, mc_samples=200, bus=s.bus)
    ext = ExtrapolationView(population="digits", K=4, method="kde", bus=s.bus)
    s.wait()
    assert disc.bus is s.bus and ext.bus is s.bus
    assert disc.tables.key == tasks.DiscreteKey(20, 4, 0.3) and ext.curves.key.K == 4
    assert all(r.state == "done" for r in (disc.tables, ext.toy_model, ext.curves, ext.classex, ext.interval))

    def mc_points():
        return [el for el in disc.fig2.element() if isinstance(el, hv.Scatter) and len(el)]

    disc.run_monte_carlo(n_points=3)
    s.wait()
    mc = disc.mc
    assert mc is not None and disc.monte_carlo.value is mc and mc_points()
    assert not {"mc", "mc_state", "table"} & (set(disc.param) | set(ext.param))
    disc.controls.N = 21  # the Monte Carlo answers N = 20: not drawn now, but its store keeps it
    s.wait()
    assert disc.mc is None and not mc_points() and disc.monte_carlo.value is mc
    disc.controls.N = 20
    s.wait()
    assert disc.mc is mc and mc_points()
    shown = ext.ext.observed
    ext.controls.K = 12  # more than the 10 digit classes: the store says why; the last curves stay
    s.wait()
    assert ext.curves.state.startswith("error: K must be") and ext.alerts["ext"].visible
    assert ext.ext.observed is shown and ext.curves.key.K == 4


def test_every_tab_reads_controls_of_its_own_that_nothing_writes_back():
    """The Discrete and Extrapolation tabs as the explorer's: what the user chose is a Parameterized of
    its own (State), the view (its widgets, result stores and displays) only reads it, and a refused
    choice stays as set, with the message."""
    from buviz.app.bus import JobBus
    from buviz.app.controls import Controls
    from buviz.app.discrete import DiscreteControls, DiscreteEstimatorsView
    from buviz.app.extrapolation import ExtrapolationControls, ExtrapolationView

    s = SessionStore(controls=None)
    for View, Ctl, explicit in ((DiscreteEstimatorsView, DiscreteControls, {"N": 20, "k": 4}),
                                (ExtrapolationView, ExtrapolationControls, {"population": "digits", "K": 4})):
        view = View(bus=s.bus, **explicit)
        s.wait()
        assert isinstance(view.controls, Ctl) and not isinstance(view.controls, Controls)
        assert not set(Ctl.param) - {"name"} & set(View.param)  # the choices are not the view's parameters
        assert all(getattr(view.controls, k) == v for k, v in explicit.items())
        seen: list[str] = []
        view.controls.param.watch(lambda *e, seen=seen: seen.extend(x.name for x in e),
                                  [p for p in Ctl.param if p != "name"])
        assert view.sidebar() is not None and seen == []  # building the widgets writes nothing
        # two views may share one State (on a bus of its own: the slots of one bus are one view's)
        same = View(bus=JobBus(), controls=view.controls)
        assert same.controls is view.controls
    ext = view
    ext.controls.K = 12  # more than the 10 digit classes: refused by the store, kept in the controls
    s.wait()
    assert ext.controls.K == 12 and ext.curves.state.startswith("error: K must be") and seen == ["K"]


@pytest.mark.slow
def test_sensitivity_tables_belong_to_the_dataset_they_were_run_on():
    """Shown for the data they were computed on: another sample shows none, going back shows them again
    (as when the page goes back to its last good state), and a run that ends after the data changed is
    kept for its own data, not drawn on the new."""
    from buviz.app.runner import RUNNER

    s = SessionStore(**SMALL)
    s.sensitivity.run("M", values=(20,))
    s.wait()
    first = s.sensitivity.tables
    assert set(first) == {"M"} and s.sensitivity.state == "done"
    s.controls.n_train = 160  # another sample of the mixture: other data
    assert s.sensitivity.tables == {}
    s.controls.n_train = SMALL["n_train"]
    assert s.sensitivity.tables is first
    gate = threading.Event()
    RUNNER.submit(lambda job: gate.wait(30), lane="heavy")  # the heavy lane is busy: the run waits
    s.sensitivity.run("K", values=("3",))
    s.controls.n_train = 170  # the data change before the run ends
    gate.set()
    s.wait(120)
    assert s.sensitivity.tables == {} and s.sensitivity.state.startswith("done for the data shown before")
    s.controls.n_train = SMALL["n_train"]
    assert set(s.sensitivity.tables) == {"M", "K"} and s.sensitivity.tables["M"] is first["M"]
    s.close()
