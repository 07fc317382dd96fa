"""The explorer's controls: what depends on the data lives on them (bounds, γ at a new dataset), and
nothing else writes them, not even when settings are refused or a view fails."""

from __future__ import annotations

import numpy as np
import pytest

from buviz import datasets
from buviz.app.compute import real_sizes
from buviz.app.controls import CONTROL_PARAMS, Controls
from buviz.app.notes import scale_log2_gamma
from buviz.app.store import SessionStore


def test_the_bounds_of_N_and_M_follow_the_data():
    c = Controls(n_train=200)
    assert (c.n_train_max, c.M_max, c.adjusted) == (5000, 200, "")
    c.n_train = 30  # smaller than M = 40: M follows N(train), said in `adjusted`
    assert (c.M, c.M_max) == (30, 30) and "M = 40 is more than the 30 training samples" in c.adjusted
    c.n_train = 300  # larger again: M stays where it was lowered, its end widens, no note
    assert (c.M, c.M_max, c.adjusted) == (30, 300, "")
    rows = real_sizes("german")[0]  # a UCI dataset with fewer training rows than N's 5000
    assert rows < 5000
    c.param.update(dataset="german", n_train=4000)
    assert c.n_train == rows == c.n_train_max and c.M_max == rows
    c.dataset = "gmm"
    assert c.n_train_max == 5000 and c.n_train == rows  # N is not raised back: the user's slider


def test_gamma_starts_at_scale_for_a_new_dataset_unless_given_with_it():
    c = Controls(n_train=200)
    assert c.log2_gamma == 0  # the defaults are taken as given
    c.dataset = "wine"
    g = scale_log2_gamma(datasets.load("wine").X_train)
    assert c.log2_gamma == g != 0 and f"γ set to 2^{g}" in c.adjusted
    c.param.update(dataset="gmm3", log2_gamma=2)  # γ given with the dataset: kept
    assert c.log2_gamma == 2 and "γ set" not in c.adjusted
    c.seed = 1  # new data of the same dataset: γ is the user's
    assert c.log2_gamma == 2
    c.log2_gamma = 3
    c.reset()  # the defaults as given, not fitted to the default data
    assert c.is_default() and c.log2_gamma == 0
    assert Controls(dataset="wine").log2_gamma == g  # first settings naming a dataset but no γ
    assert Controls(dataset="wine", log2_gamma=1).log2_gamma == 1
    c.update_as_given(dataset="wine")
    assert c.log2_gamma == 0


def test_one_update_may_change_the_data_and_M_together():
    """The parameters keep their widest bounds: M above the current N(train) is valid with new data."""
    c = Controls(n_train=30)
    assert c.M == 30
    c.param.update(n_train=500, M=400)
    assert (c.n_train, c.M, c.M_max) == (500, 400, 500)


def _record(controls: Controls) -> list[str]:
    seen: list[str] = []
    controls.param.watch(lambda *events: seen.extend(e.name for e in events), list(CONTROL_PARAMS))
    return seen


@pytest.mark.parametrize("action, refused", [
    (lambda s: setattr(s.controls, "M", 500), "M must be <= 200"),
    (lambda s: s.controls.param.update(n_train=40, K="40"), "K must be <= "),
])
def test_the_store_never_writes_the_controls_back(action, refused):
    s = SessionStore(n_train=200, auto_sweep=False)
    before, snap = s.settings(), s.snapshot
    seen = _record(s.controls)
    action(s)
    user = list(seen)  # the user's own changes, and nothing else
    assert refused in s.message and s.snapshot is snap and s.applied == before
    assert set(user) <= {"M", "n_train", "K"}
    chosen = s.settings()
    s.controls.log2_gamma = 1  # refused again: still nothing written back
    assert seen == [*user, "log2_gamma"] and s.settings() == {**chosen, "log2_gamma": 1}
    assert refused in s.message and s.snapshot is snap
    s.controls.param.update(**{k: before[k] for k in ("M", "n_train", "K")}, log2_gamma=0)
    assert s.message == "" and s.snapshot is snap  # back to what is shown: the message goes, nothing recomputed


def test_the_notice_of_new_data_is_what_the_controls_changed():
    s = SessionStore(n_train=200, auto_sweep=False)
    seen = _record(s.controls)
    s.controls.n_train = 20  # below M = 40
    assert sorted(seen) == ["M", "n_train"]  # the controls' own dependency, not the store
    assert s.snapshot.settings["M"] == 20 and "M set to 20" in s.notice and s.message == ""
    s.controls.log2_gamma = 1  # the same data: the notice stays
    assert "M set to 20" in s.notice
    s.controls.seed = 3  # new data, nothing to change: no notice
    assert s.notice == "" and np.isfinite(s.snapshot.result.value)


def test_a_change_that_lowers_N_keeps_the_note_of_gamma_and_reaches_the_store_once():
    """A UCI dataset with fewer rows than N: the controls lower N and fit γ in one change, say both, and
    the store computes that change once (not once for the adjustments and again for the dataset)."""
    from buviz.app import timing

    rows = real_sizes("banknote")[0]
    assert rows < 1000
    s = SessionStore(n_train=1000, auto_sweep=False)
    before = len(timing.APPLY_TIMES)
    s.controls.dataset = "banknote"
    assert s.controls.n_train == rows and s.controls.log2_gamma != 0
    assert f"γ set to 2^{s.controls.log2_gamma}" in s.controls.adjusted
    assert f"γ set to 2^{s.controls.log2_gamma}" in s.notice and s.applied == s.settings()
    assert len(timing.APPLY_TIMES) == before + 1


def test_a_refused_data_change_is_computed_once(monkeypatch):
    import buviz.app.store as store_module

    s = SessionStore(n_train=200, auto_sweep=False)
    computed = []
    real = store_module.compute_snapshot

    def counted(settings):
        computed.append(settings)
        return real(settings)

    monkeypatch.setattr(store_module, "compute_snapshot", counted)
    s.controls.param.update(dataset="gmm3", n_train=60, K="40")  # K larger than a class; γ fitted to the new data
    assert "K must be" in s.message and len(computed) == 1 and computed[0] == s.settings()
