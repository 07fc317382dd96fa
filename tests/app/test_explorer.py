"""The explorer's state and views driven directly through their param objects (no browser)."""

import holoviews as hv
import numpy as np
import pandas as pd
import panel as pn
import param
import pytest

from buviz.app import compute as st
from buviz.app.controls import Controls
from buviz.app.curves import CurvesView
from buviz.app.layout import tab_views
from buviz.app.sample import SampleView
from buviz.app.store import SessionStore
from buviz.app.uncertainty import SampleSpaceView, ShiftView, WeightsView, numbers_markdown
from buviz.plots import uncertainty as pb

hv.extension("bokeh")

SMALL = dict(n_train=200, auto_sweep=False)


@pytest.fixture
def state():
    return SessionStore(**SMALL)


class _Shown:
    """What a live pane draws: its object drawn once by Bokeh, each layer's current frame read after
    every step. A view that stops following its store leaves these frames behind (its static
    ``plot()`` would still be right, so the tests read the pane, not ``plot()``)."""

    def __init__(self, pane):
        assert pane.object is not None, "the pane shows nothing"
        self.plot = hv.renderer("bokeh").get_plot(pane.object)

    def frames(self, label: str | None = None, kind: type | None = None) -> list:
        from holoviews.plotting.bokeh.element import ElementPlot

        out = [p.current_frame for p in self.plot.traverse(lambda p: p, [ElementPlot])]
        return [f for f in out if f is not None and (label is None or f.label == label)
                and (kind is None or isinstance(f, kind))]


def _contour_points(shown: _Shown):
    (path,) = shown.frames("B(Λ)", hv.Path)
    return np.concatenate([p.array() for p in path.split()])


def test_initial_snapshot_has_every_result(state):
    s = state.snapshot
    assert s.is_2d and s.status.fields and s.bayes_fields
    assert 0 <= s.result.value <= 1
    assert 0.1 < s.bayes_error < 0.3 and 0 <= s.status.L_te <= 1
    assert set(s.ks) == {"f(T)", "f(T̃)"}
    assert state.message == ""
    md = numbers_markdown(state)
    assert "Bayes error" in md and f"{s.result.value:.4f}" in md


def test_gamma_change_gives_new_contour_and_cached_step_reuses_objects(state):
    view = SampleSpaceView(store=state)
    shown = _Shown(view.map_pane)
    before = _contour_points(shown)
    snap0 = state.snapshot
    state.controls.log2_gamma = 4
    after = _contour_points(shown)
    assert state.snapshot is not snap0
    assert state.snapshot.status.label.startswith("SVM γ = 2^4")
    assert before.shape != after.shape or not np.allclose(before, after, equal_nan=True)  # NaN: path breaks
    state.controls.log2_gamma = 0  # cached: the very same status and result objects come back
    assert state.snapshot.status is snap0.status and state.snapshot.result is snap0.result


def test_bad_M_shows_message_keeps_the_plots_and_leaves_the_control_to_the_user(state):
    snap, before = state.snapshot, state.settings()
    assert state.controls.M_max == 200  # the M input's end follows N(train)
    state.controls.M = 500  # > N = 200, set in code (the input's label says 2 to 200): the estimator rejects it
    assert "M must be <= 200" in state.message and "last settings that worked" in state.message
    # nothing writes the control back: it keeps the user's 500, the page keeps the last settings that worked
    assert state.controls.M == 500 and state.snapshot is snap and state.applied == before
    state.controls.log2_gamma = 1  # still M = 500: refused again, the plots unchanged
    assert "M must be <= 200" in state.message and state.snapshot is snap
    state.controls.M = 40  # the user corrects M: a valid change clears the message
    assert state.message == "" and state.snapshot is not snap
    assert state.applied == {**before, "log2_gamma": 1} == state.snapshot.settings


def test_fixed_K_larger_than_a_class_is_rejected():
    s = SessionStore(dataset="gmm3", n_train=60, auto_sweep=False)
    snap = s.snapshot
    s.controls.K = "40"
    assert "K" in s.message and s.controls.K == "40" and s.snapshot is snap and s.applied["K"] == "aic"


@pytest.mark.parametrize("content, words", [
    (b"x1,x2,label\n1,2,a\n3,,b\n4,5,a\n", "missing"),
    (b"x1,x2,label\n1,2,a\n3,hello,b\n4,5,a\n", "non-numeric"),
    (b"x1,x2,label\n1,2,a\n3,4,a\n4,5,a\n", "single class"),
    (b"x1,x2,x3,label\n1,2,3,a\n3,4,b\n", "different numbers of columns"),
    (b"", "empty"),
    (b"x1,x2,label\n" + b"1.0,2.0,a\n" * 600_000, "too large"),
])
def test_bad_csv_shows_message_and_keeps_state(state, content, words):
    snap = state.snapshot
    state.upload_csv(content, "bad.csv")
    state.wait()
    assert "rejected" in state.message and words in state.message
    assert state.controls.dataset == "gmm" and state.snapshot is snap


def test_good_csv_switches_dataset():
    s = SessionStore(**SMALL)
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1, 1, (60, 2)), rng.normal(1, 1, (60, 2))])
    y = np.repeat(["cat", "dog"], 60)
    data = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "label": y}).to_csv(index=False).encode()
    s.upload_csv(data, "ok.csv")
    s.wait()
    assert s.controls.dataset == "csv" and s.message == "" and s.snapshot.is_2d
    assert s.snapshot.bayes_error is None  # no exact model
    assert "—" in numbers_markdown(s)


def test_custom_mixture_valid_and_invalid(state):
    snap = state.snapshot
    assert not state.set_mixture('{"classes": [[{"mean": [0, 0], "cov": -1}], [{"mean": [1, 1], "cov": 1}]]}')
    assert "positive definite" in state.message and state.snapshot is snap
    assert not state.set_mixture("{not json")
    assert "not valid JSON" in state.message
    assert not state.set_mixture('{"classes": [[{"mean": [0, 0, 0], "cov": 1}], [{"mean": [1, 1], "cov": 1}]]}')
    assert "2 numbers" in state.message
    assert state.set_mixture(st.DEFAULT_MIXTURE_JSON)
    assert state.controls.dataset == "custom" and state.message == "" and state.snapshot.bayes_error is not None


def test_tap_selects_nearest_sample_and_up_close_view(state):
    """A tap on the sample-space map selects the sample drawn nearest to it; the One sample view
    (which owns the selection) shows it, and forgets it with the training set."""
    views = tab_views(state)
    space, v = views["Sample space"], views["One sample"]
    space._follow()  # the map's display (built when its tab opens)
    X = state.snapshot.ds.X_train
    space._tapped(*(X[17] + 1e-6))
    assert v.selected == 17 and v.selected_index() == 17
    md = v.details()
    assert "Sample #17 (tapped)" in md
    zoom = v.zoom_plot(state.snapshot, 17)
    spikes = np.concatenate([e.dimension_values(0) for e in zoom if isinstance(e, hv.Spikes)])
    np.testing.assert_allclose(np.sort(spikes), np.sort(state.snapshot.result.sample_view(17)["F"]))
    state.controls.seed = 3  # a new training set forgets the selection: the sample with the largest weight
    assert v.tapped_index() == -1
    assert v.selected_index() == int(np.argmax(state.snapshot.result.near_boundary_weights))
    assert "largest weight" in v.details()


def test_views_render_for_each_tab(state):
    for View in (SampleSpaceView, WeightsView, ShiftView, CurvesView, SampleView):
        view = View(store=state)
        pn.panel(view).get_root()  # builds the Bokeh models of the tab


def test_real_dataset_is_shown_in_a_plane_fitted_on_T():
    """d = 30: every sample-space tab draws T in its PCA plane (formerly: "needs 2-D data")."""
    from buviz.projection import fit_projection

    s = SessionStore(dataset="breast_cancer", log2_gamma=-6, auto_sweep=False)
    snap = s.snapshot
    assert not snap.is_2d and snap.status.fields is None
    Z = fit_projection(snap.ds.X_train).transform(snap.ds.X_train)
    view = SampleSpaceView(store=s)
    layers = {e.label: e for e in view.plot(snap) if e.label}
    pts = layers[pb.TRAINING_LABEL]  # in legend order: the first sample of each class in front
    np.testing.assert_allclose(np.column_stack([pts.dimension_values(i) for i in (0, 1)]),
                               Z[pb.legend_order(snap.ds.y_train)])
    near = layers["near-boundary (k̂ > 0)"]
    assert len(near) == int(np.sum(snap.result.near_boundary_weights > 0)) > 0
    assert len(layers["B(Λ)"].split()) in (0, 1) and not layers["B(Λ)"].data  # no boundary curve in the plane
    view.projection = "lda"  # a new plane: the live display is rebuilt
    lda = fit_projection(snap.ds.X_train, snap.ds.y_train, method="lda").transform(snap.ds.X_train)
    np.testing.assert_allclose(view.display.plane.X_train, lda)
    # a tap selects the sample drawn nearest to it, in the plane
    picked = []
    view.on_select = picked.append
    view._tapped(*lda[11])
    assert picked == [11]
    w = WeightsView(store=s)
    zero, hot = w.display.element().get(0), w.display.element().get(1)
    assert len(zero) + len(hot) == len(snap.ds.X_train) and len(hot) == len(near)
    sv = SampleView(store=s)
    sv.select(picked[0])
    assert "Sample #11 (tapped)" in sv.details()
    sh = ShiftView(store=s)
    assert sh.display.map_names == [] and not sh.maps_row.visible
    hist = sh.display.element(panel="hist")
    assert {h.label for h in hist} == {"f(T)", "f(T̃)", "f(X_te)"}
    assert 0 <= snap.result.value <= 1


def test_mlp_status_uses_the_epoch(state):
    state.controls.classifier = "MLP"
    assert state.snapshot.status.label.endswith("epoch 20")
    state.controls.epoch = 5
    assert state.snapshot.status.label.endswith("epoch 5")
    state.controls.set_status_from_tap(11.0)
    assert state.controls.epoch == 12  # nearest sweep epoch


def test_a_snapshot_and_its_status_are_frozen(state):
    import dataclasses

    snap = state.snapshot
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.result = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.status.L_te = 0.0


def test_reset_restores_defaults(state):
    state.controls.log2_gamma = 3
    state.reset()
    assert state.controls.log2_gamma == 0 and state.controls.n_train == Controls.param.n_train.default


@pytest.mark.slow
def test_background_sweep_fills_curves_and_marker():
    # settings off the sweeps' own defaults (M 40, K by AIC, a = 0.5): the sweep scores with the estimator
    # the snapshot is computed with (FitKey.estimator, handed to the sweep as its template)
    s = SessionStore(n_train=150, cv=2, M=15, K="3", perturbation=0.25, auto_sweep=False)
    s.cv_sweep.start()
    assert s.cv_sweep.wait(timeout=240)
    assert s.cv_sweep.state == "done" and s.cv_sweep.progress == 100
    t = s.cv_sweep.table
    assert list(t.log2_gamma) == list(map(float, st.GAMMA_GRID))
    row = s.cv_sweep.current_row()
    assert row is not None and row["U_tr"] == pytest.approx(s.snapshot.result.value)
    view = CurvesView(store=s)
    shown = _Shown(view.curves_pane)  # what the tab draws, followed live
    (vline,) = shown.frames(kind=hv.VLine)
    assert vline.data == 0
    s.controls.set_status_from_tap(3.2)  # a click on the curves selects the nearest γ
    assert s.controls.log2_gamma == 3
    (vline,) = shown.frames(kind=hv.VLine)
    assert vline.data == 3
    marker = shown.frames("current status", hv.Scatter)[0]
    assert marker.dimension_values(1)[0] == pytest.approx(float(t[t.log2_gamma == 3].L_te.iloc[0]))
    assert "L_val" in numbers_markdown(s) and f"{row['L_val']:.4f}" not in ("—",)
    # settings that change the sweep start a new one; going back adopts the finished table
    s.controls.M = 30
    s.cv_sweep.start()
    s.cv_sweep.cancel()
    s.controls.M = 15
    s.cv_sweep.start()
    assert s.cv_sweep.state == "done" and len(s.cv_sweep.table) == len(st.GAMMA_GRID)


@pytest.mark.slow
def test_sensitivity_runs_on_demand():
    s = SessionStore(n_train=150, auto_sweep=False)
    s.sensitivity.run("M", values=(20, 40))
    s.wait()
    assert s.sensitivity.state == "done"
    assert set(s.sensitivity.tables["M"]) == {"M = 20", "M = 40"}


def test_app_builds_with_all_tabs():
    from buviz.app.layout import ExplorerApp

    app = ExplorerApp(store=SessionStore(**SMALL))
    names = app.tab_names
    assert len(app.tabs) == len(names)
    assert names[:6] == ["Sample space", "Weights k̂/w", "Covariate shift", "Error vs −Û", "One sample",
                         "Sensitivity M, K"]
    assert "Extrapolation" in names and "Discrete" in names
    app._show_sample(3)
    assert app.tabs.active == 4
    app.store.controls.M = 1000
    assert app.message.visible and "M" in app.message.object
    # every control of the boundary-uncertainty tabs reaches the store at the next tick, not after
    # Panel's 50 ms debounce (tests/app/test_panel_compat.py checks what that marking does in Panel)
    from buviz.app._panel_compat import change_debounced

    slow = [p for p, w in app.widgets.items() if change_debounced(w)]
    assert not slow, f"controls left to Panel's debounce: {slow}"


def test_sidebar_follows_the_tab():
    from buviz.app.layout import ExplorerApp

    app = ExplorerApp(store=SessionStore(**SMALL))
    assert app.boundary_controls.visible
    assert not any(col.visible for col in app._other_controls.values())
    for name, labels in [("Extrapolation", ("Observed classes K", "Extrapolation estimator")),
                         ("Discrete", ("Sample size N", "Number of cells k", "Monte Carlo samples"))]:
        app.tabs.active = app.tab_names.index(name)
        assert not app.boundary_controls.visible and app._other_controls[name].visible
        shown = [w.name for w in app._other_controls[name].select(pn.widgets.Widget)]
        for label in labels:  # labels a reader understands, not parameter names
            assert any(n.startswith(label) for n in shown), (label, shown)
        others = [n for n in app.OTHER_TABS if n != name]
        assert not any(app._other_controls[o].visible for o in others)
    app.tabs.active = 0
    assert app.boundary_controls.visible and not any(c.visible for c in app._other_controls.values())


def test_each_applied_change_records_its_server_side_time(tmp_path, monkeypatch):
    from buviz.app import timing

    log = tmp_path / "times.log"
    monkeypatch.setenv("BUVIZ_TIMING_LOG", str(log))
    s = SessionStore(**SMALL)
    n = len(timing.APPLY_TIMES)
    s.controls.log2_gamma = 2
    s.controls.M = 30
    assert len(timing.APPLY_TIMES) == n + 2 and all(t > 0 for t in list(timing.APPLY_TIMES)[-2:])
    rows = [ln.split() for ln in log.read_text().splitlines()]
    assert [r[2] for r in rows[-2:]] == ["log2_gamma", "M"] and all(float(r[1]) > 0 for r in rows)


# -- the served page's first state ---------------------------------------------------------------------
@pytest.fixture
def url_args(monkeypatch):
    """Fake the served request's query arguments (``pn.state.session_args``)."""
    import panel as pn

    holder = {}
    monkeypatch.setattr(type(pn.state), "session_args", property(lambda self: holder), raising=False)
    return holder


def test_url_controls_are_computed_once_not_after_the_defaults(url_args):
    from buviz.app import timing
    from buviz.app.layout import build_store

    url_args.update({"n_train": [b"200"], "M": [b"30"], "log2_gamma": [b"-2"], "K": [b"3"], "tilde": [b"false"]})
    n = len(timing.APPLY_TIMES)
    s = build_store(auto_sweep=False)
    c = s.controls
    assert (c.n_train, c.M, c.log2_gamma, c.K, c.tilde) == (200, 30, -2, "3", False)
    assert len(timing.APPLY_TIMES) == n + 1  # one snapshot, for the URL's settings
    assert s.snapshot.settings["M"] == 30 and s.message == ""


@pytest.mark.parametrize("args, kept, message", [
    # valid one by one, but K larger than a class together: the defaults, and the estimator's message
    ({"dataset": [b"gmm3"], "n_train": [b"60"], "K": [b"40"]}, {"dataset": "gmm", "n_train": 1000, "K": "aic"},
     "Could not apply these settings: K"),
    # each bad value is dropped and named; the good ones stay
    ({"n_train": [b"200"], "M": [b"abc"]}, {"n_train": 200, "M": 40}, "Ignored in the URL: M=abc"),
    ({"log2_gamma": [b"99"], "tilde": [b"0"]}, {"log2_gamma": 0, "tilde": False}, "log2_gamma=99"),
    ({"seed": [b"true"], "K": [b"7"]}, {"seed": 0, "K": "aic"}, "seed=true, K=7"),
])
def test_bad_url_controls_are_named_and_the_rest_applies(url_args, args, kept, message):
    from buviz.app.layout import build_store

    url_args.update(args)
    s = build_store(auto_sweep=False)
    assert s.snapshot is not None
    assert {k: getattr(s.controls, k) for k in kept} == kept
    assert message in s.message


def test_a_url_M_beyond_N_is_lowered_to_N_with_a_note(url_args):
    from buviz.app.layout import build_store

    url_args.update({"n_train": [b"200"], "M": [b"500"]})
    s = build_store(auto_sweep=False)
    assert s.message == "" and s.controls.M == 200 == s.snapshot.settings["M"] == s.controls.M_max
    assert "M = 500 is more than the 200 training samples" in s.notice


def test_a_url_refused_together_leaves_every_control_at_its_default(url_args):
    """γ fitted to the refused data and M lowered to it are put back too, not only the URL's keys."""
    from buviz.app.layout import build_store

    url_args.update({"dataset": [b"gmm3"], "n_train": [b"30"], "K": [b"40"]})
    s = build_store(auto_sweep=False)
    assert "Could not apply these settings: K must be" in s.message
    assert s.controls.is_default() and s.snapshot.settings == s.settings() == s.applied


def test_app_plots_render_on_canvas_not_webgl():
    import panel as pn

    from buviz.app.layout import build_app

    build_app(n_train=200, auto_sweep=False)
    fig = hv.render(hv.Points([(0, 0)]), backend="bokeh")
    assert fig.output_backend == "canvas"
    pn.state.curdoc = None


def test_opening_the_curves_tab_starts_the_sweep_and_sessions_share_it():
    from buviz.app import sweeps as jobs
    from buviz.app.layout import ExplorerApp

    jobs.clear()
    apps = [ExplorerApp(store=SessionStore(n_train=120, cv=2, auto_sweep=False)) for _ in range(2)]
    names = list(apps[0].tabs._names)
    for app in apps:
        assert app.store.cv_sweep.shared is None and app.store.cv_sweep.state == "idle"
        app.tabs.active = names.index("Weights k̂/w")
        assert app.store.cv_sweep.shared is None  # a tab without sweep curves starts nothing
    for app in apps:
        app.tabs.active = names.index("Error vs −Û")
        assert app.store.auto_sweep and app.store.cv_sweep.shared is not None
    assert apps[0].store.cv_sweep.shared is apps[1].store.cv_sweep.shared  # one run for both sessions
    # with auto_sweep off, adding the Proposal 1 column drops the table of the other key
    s = SessionStore(n_train=120, cv=2, auto_sweep=False)
    with param.edit_constant(s.cv_sweep):  # a table of the other key, as if adopted
        s.cv_sweep.table = pd.DataFrame({"log2_gamma": [0.0]})
    s.controls.sweep_proposal1 = True
    assert s.cv_sweep.table is None and s.cv_sweep.state == "idle"
    for app in apps:
        app.store.close()
    jobs.clear()


def test_gamma_and_C_of_minus_one_and_minus_two_are_distinct_statuses():
    """pn.cache hashes floats with hash(), and hash(-1.0) == hash(-2.0): the state keys its caches
    with integers so 2^-1 and 2^-2 are never served from one entry (the explorer once showed γ = 2^-1
    when 2^-2 was selected)."""
    s = SessionStore(**SMALL)
    labels, values = {}, {}
    for g in (-1, -2, -1, -2):
        s.controls.log2_gamma = g
        labels[g], values[g] = s.snapshot.status.label, s.snapshot.result.value
    assert labels == {-1: "SVM γ = 2^-1, C = 2^0", -2: "SVM γ = 2^-2, C = 2^0"}
    assert values[-1] != values[-2]
    s.controls.log2_gamma = 0
    for c in (-1, -2):
        s.controls.log2_C = c
        assert s.snapshot.status.label == f"SVM γ = 2^0, C = 2^{c}"


def test_views_are_built_on_the_one_view_base():
    """The tabs share viewbase's TabView and text-pane helper; the explorer module keeps no copy."""
    from buviz.app import uncertainty as views
    from buviz.app import viewbase
    from buviz.app.curves import SensitivityView

    for cls in (SampleSpaceView, WeightsView, ShiftView, CurvesView, SampleView, SensitivityView):
        assert issubclass(cls, viewbase.TabView)
    for name in ("bound_pane", "_View", "tab_views", "_math", "NOT_2D_MESSAGE"):
        assert not hasattr(views, name), name


def test_pair_table_shows_the_blend_case_and_effective_size_under_shrinkage(state):
    """Under separability="shrinkage" λ_kl lies strictly between 0 and 1: the pair table shows it,
    the dominant case and n_eff, not a yes/no that would read "yes" for every pair."""
    import dataclasses

    from buviz.uncertainty import BoundaryUncertainty

    s = state.snapshot
    r = BoundaryUncertainty(M=int(s.settings["M"]), separability="shrinkage", separability_n0=10.0, random_state=0).fit(
        s.ds.X_train, s.ds.y_train).evaluate(s.status.discriminant)
    assert np.all(r.pair_weighted) and np.any((r.pair_blend > 0) & (r.pair_blend < 1))
    # the numbers the table shows, from the per-sample k̂ by hand (Kish's n_eff, λ = n/(n + n0)),
    # so that a broken shrinkage formula cannot pass by being shown faithfully
    phi0 = 1.0 / np.sqrt(2.0 * np.pi)
    for n in range(len(r.pairs)):
        k = r.k[r.true_pair_index == n]
        n_eff = k.sum() ** 2 / np.sum(k * k)
        n_kl = min(n_eff, k.sum() / phi0)
        assert r.pair_effective_size[n] == pytest.approx(n_eff, rel=1e-12)
        assert r.pair_blend[n] == pytest.approx(n_kl / (n_kl + 10.0), rel=1e-12)
        assert r.pair_case[n] == (2 if r.pair_blend[n] >= 0.5 else 1 if r.pair_error_tilde[n] == 0 else 3)
    view = WeightsView(store=state)
    view._snap = lambda: dataclasses.replace(s, result=r)
    lines = view.pair_text().splitlines()
    assert "λ_kl" in lines[0] and "case" in lines[0] and "n_eff" in lines[0] and "weighted" not in lines[0]
    names = [f"C{j + 1}" for j in range(s.ds.n_classes)]  # a mixture's classes, as the plots name them
    for n, (k, l) in enumerate(r.pairs):
        cells = [c.strip() for c in lines[2 + n].strip("|").split("|")]
        assert cells[0] == f"({names[k]}, {names[l]})"
        assert float(cells[4]) == pytest.approx(r.pair_blend[n], abs=5e-4)
        assert int(cells[5]) == int(r.pair_case[n]) and cells[5] in {"1", "2", "3"}
        assert float(cells[6]) == pytest.approx(r.pair_effective_size[n], abs=0.05)


def test_curves_tab_hosts_the_cases_panel_of_the_sweep_table():
    """Issue 24 item 5: the Error vs −Û tab shows each pair's separability case and n_eff along the
    sweep, built from the sweep table and rebuilt when it changes (a status step leaves it alone)."""
    from buviz.plots import cases

    s = SessionStore(n_train=120, cv=2, auto_sweep=False)
    view = CurvesView(store=s)
    assert sum(len(el) for el in view.cases_panes[0].object[()]) == 0  # no sweep yet: no case markers
    s.cv_sweep.start()
    assert s.cv_sweep.wait(timeout=240) and s.cv_sweep.state == "done"
    t = s.cv_sweep.table
    assert {"pairs_tr", "pair_case_tr", "pair_n_eff_tr", "pair_blend_tr"} <= set(t.columns)
    marks = view.cases_panes[0].object[()]  # the live plot, drawn from what its stream holds
    by_label = {label: case for case, label in cases.CASE_LABELS.items()}
    shown = pd.concat([el.dframe().assign(case=by_label[el.label]) for el in marks], ignore_index=True)
    expected = cases.case_table(t)
    assert len(shown) == len(expected) == sum(len(p) for p in t["pairs_tr"])
    assert sorted(shown["case"].astype(int)) == sorted(expected["case"])
    assert np.allclose(np.sort(shown["n_eff"].to_numpy(float)), np.sort(expected["n_eff"].to_numpy(float)))
    sizes = view.cases_panes[1].object[()]
    assert np.allclose(np.sort(sizes.dimension_values("n_eff")), np.sort(expected["n_eff"][expected["n_eff"] > 0]))
    sent = []
    for pipe in (*view.cases.panels["cases"].pipes.values(), *view.cases.panels["n_eff"].pipes.values()):
        pipe.add_subscriber(lambda **kw: sent.append(kw))
    live = [p.object for p in view.cases_panes]
    s.controls.log2_gamma = 2  # a status step: the marker moves, the cases plots get nothing
    assert sent == [] and view.cases.table is t and [p.object for p in view.cases_panes] == live
    s.close()


def test_the_curves_tab_offers_ha_schematics_in_a_sub_tab_drawn_when_it_first_opens():
    """Ha et al.'s schematic figures (Figs 1, 2 and Fig 15's inset) are the Error vs −Û tab's second sub-tab:
    nothing is drawn until it opens; then it lists those three figures only and shows Fig 1 as the registry
    draws it (at the curves' width), once, without waiting for the heavy lane (where the tab's sweep runs);
    Render uses the heavy lane; the Figures tab's gallery keeps its own figure."""
    import threading
    import time

    from buviz import figures
    from buviz.app.gallery import HA_SCHEMATICS, FigureGallery
    from buviz.app.runner import RUNNER

    s = SessionStore(n_train=120, cv=2, auto_sweep=False)
    view = CurvesView(store=s)
    tabs = view.__panel__()
    assert tabs._names == list(CurvesView.SUB_TABS) == ["Curves", "Schematics"] and tabs.active == 0
    gallery = view.schematics
    assert [k for g in gallery.select.groups.values() for k in g.values()] == list(HA_SCHEMATICS)
    assert gallery.rendered_key is None
    held = threading.Event()
    safety = threading.Timer(60, held.set)
    safety.start()
    try:
        RUNNER.submit(lambda job: held.wait(60), lane="heavy", label="a sweep holding the heavy lane")
        t0 = time.monotonic()
        tabs.active = 1
        s.wait(30)
        assert gallery.rendered_key == HA_SCHEMATICS[0] and time.monotonic() - t0 < 30
        gallery.figure = HA_SCHEMATICS[1]
        assert gallery.render() and gallery.rendering  # Render: queued behind the heavy lane
    finally:
        held.set()
        safety.cancel()
    s.wait(30)  # not served: the caller waits, and the delivery runs here
    assert gallery.rendered_key == HA_SCHEMATICS[1] and not gallery.rendering
    gallery.figure = HA_SCHEMATICS[0]
    assert gallery.render()
    s.wait()
    assert gallery.plot.object is gallery.obj
    drawn = (gallery.obj, figures.render(HA_SCHEMATICS[0]))
    frames = [o.traverse(lambda el: el.dframe(), [hv.Element]) for o in drawn]
    assert len(frames[0]) == len(frames[1]) > 0
    for a, b in zip(*frames, strict=True):  # the same shipped sweep
        pd.testing.assert_frame_equal(a, b)
    first = gallery.obj
    tabs.active, tabs.active = 0, 1  # opened again: not drawn again
    assert gallery.obj is first
    others = FigureGallery(bus=s.bus)
    assert others.render()
    s.wait()
    assert others.rendered_key != HA_SCHEMATICS[0] and gallery.rendered_key == HA_SCHEMATICS[0]
    s.close()

# -- a new dataset starts at gamma="scale"; degenerate statuses are explained beside the numbers ---------
@pytest.mark.parametrize("name", ["satimage", "banknote", "breast_cancer", "gmm3"])
def test_a_new_dataset_starts_at_scikit_learns_scale_gamma_on_the_grid(name):
    from sklearn.svm import SVC

    from buviz.app.compute import GAMMA_GRID

    s = SessionStore(dataset=name, n_train=300, auto_sweep=False)
    ds = s.snapshot.ds
    scale = SVC(gamma="scale").fit(ds.X_train, ds.y_train)._gamma  # scikit-learn's own value
    assert s.controls.log2_gamma == min(GAMMA_GRID, key=lambda g: abs(g - np.log2(scale)))
    g = s.controls.log2_gamma
    assert abs(g - np.log2(scale)) <= 0.5 and s.snapshot.settings["log2_gamma"] == g
    assert (s.controls.log2_gamma == 0) or f"γ set to 2^{s.controls.log2_gamma}" in s.notice


def test_switching_dataset_moves_gamma_unless_given_and_reset_keeps_the_defaults():
    s = SessionStore(n_train=300, auto_sweep=False)
    assert s.controls.log2_gamma == 0  # the default dataset at the default γ, as before
    s.controls.dataset = "satimage"  # 36 standardised features: 1/36 -> 2^-5, not 2^0
    assert s.controls.log2_gamma == -5 and s.snapshot.settings["log2_gamma"] == -5 and "gamma = \"scale\"" in s.notice
    s.controls.param.update(dataset="letter", log2_gamma=2)  # a γ given with the dataset is kept
    assert s.controls.log2_gamma == 2 and s.snapshot.ds.name == "letter"
    s.reset()
    assert (s.controls.dataset, s.controls.log2_gamma) == ("gmm", 0) and s.snapshot.settings["log2_gamma"] == 0


def test_a_uci_set_never_shows_more_N_than_it_uses():
    s = SessionStore(dataset="banknote", auto_sweep=False)
    full = len(s.snapshot.ds.X_train)
    assert s.controls.n_train == full < 1000  # the slider reads what is used, not 1000 over 960
    s.controls.n_train = 2000
    assert s.controls.n_train == full and s.message == ""


def test_degenerate_statuses_are_explained_in_the_state_and_beside_the_numbers():
    from buviz.app.layout import ExplorerApp

    app = ExplorerApp(store=SessionStore(dataset="satimage", n_train=1000, log2_gamma=3, auto_sweep=False))
    s, view = app.store, app.views["Sample space"]
    r = s.snapshot.result
    assert r.value == 0.0 and not np.any(r.near_boundary_weights > 0)  # Û_tr = 0, every weight 0
    share3 = float(r.pair_probabilities[r.pair_case == 3].sum())
    assert "No near-boundary sample" in s.status_notice and f"P̂ = {share3:.2f} of T" in s.status_notice
    assert view.status_notice_pane.object == s.status_notice and view.status_notice_pane.visible
    s.controls.log2_gamma = 4
    s.controls.n_train = 200  # flat on most neighbourhoods of T̃: FlatDiscriminantWarning's condition
    flat = float(np.mean(s.snapshot.result.bandwidth == 0))
    assert flat > 0.5 and f"Flat classifier**: f(x;Λ) is constant (h_x = 0, k̂ = 0) on the neighbourhoods of " \
                          f"{100 * flat:.0f}% of T̃" in s.status_notice
    s.controls.param.update(dataset="breast_cancer", log2_gamma=-5)  # an ordinary status: the notice goes away
    assert s.status_notice == "" and view.status_notice_pane.object == "" and not view.status_notice_pane.visible

