import time

import numpy as np
import pandas as pd
import pytest

from buviz import datasets, sweep
from buviz.classifiers import svm_status
from buviz.sweep import RowCache


@pytest.fixture(scope="module")
def small():
    return datasets.load("gmm", n_train=300, n_test=2000, random_state=0)


def test_svm_sweep_table_matches_direct_computation(small, tmp_path):
    gammas = [2.0**-4, 1.0, 2.0**4]
    seen = []
    tab = sweep.svm_gamma_sweep(small, gammas, cv=5, M=20, cache=tmp_path, n_jobs=2,
                                progress=lambda d, t: seen.append((d, t)))
    assert list(tab.columns[:4]) == ["status", "gamma", "log2_gamma", "C"]
    assert set(sweep.SWEEP_COLUMNS) <= set(tab.columns)
    assert len(tab) == 3 and tab.gamma.tolist() == gammas
    assert seen[-1] == (3 * 7, 3 * 7)  # 5 folds + hold-out + full fit per status
    for col in sweep.SWEEP_COLUMNS:
        assert tab[col].between(0, 1).all(), col
    # L_te and U_tr recomputed by hand agree with the table
    from buviz.uncertainty import BoundaryUncertainty

    bu = BoundaryUncertainty(M=20, random_state=0).fit(small.X_train, small.y_train)
    for g, row in zip(gammas, tab.itertuples(), strict=True):
        d = svm_status(small.X_train, small.y_train, g)
        assert row.L_te == np.mean(d.predict(small.X_test) != small.y_test)
        assert row.U_tr == bu.evaluate(d).value
    # L_val is a stratified 5-fold CV estimate
    from sklearn.model_selection import StratifiedKFold

    errs = []
    for tr, va in StratifiedKFold(5, shuffle=True, random_state=0).split(small.X_train, small.y_train):
        d = svm_status(small.X_train[tr], small.y_train[tr], gammas[1])
        errs.append(np.mean(d.predict(small.X_train[va]) != small.y_train[va]))
    assert tab.L_val[1] == pytest.approx(np.mean(errs))


def test_repeated_sweep_is_served_from_cache(small, tmp_path):
    gammas = 2.0 ** np.arange(-2, 3)
    t0 = time.perf_counter()
    first = sweep.svm_gamma_sweep(small, gammas, cv=4, M=20, cache=tmp_path)
    t_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    calls = []
    second = sweep.svm_gamma_sweep(small, gammas, cv=4, M=20, cache=tmp_path, progress=lambda d, t: calls.append(t))
    t_second = time.perf_counter() - t0
    pd.testing.assert_frame_equal(first, second)
    assert calls == [0]  # nothing left to compute
    assert t_second < t_first / 5
    # a different parameter is a different key
    third = sweep.svm_gamma_sweep(small, gammas[:2], cv=4, M=21, cache=tmp_path)
    assert not np.allclose(third.U_tr, first.U_tr[:2])


def test_partial_cache_hits_keep_order(small, tmp_path):
    sweep.svm_gamma_sweep(small, [1.0], cv=3, M=20, cache=tmp_path)
    tab = sweep.svm_gamma_sweep(small, [0.25, 1.0, 4.0], cv=3, M=20, cache=tmp_path)
    assert tab.gamma.tolist() == [0.25, 1.0, 4.0]


def test_sweep_is_deterministic_without_cache(small):
    a = sweep.svm_gamma_sweep(small, [0.5, 2.0], cv=3, M=20, cache=False)
    b = sweep.svm_gamma_sweep(small, [0.5, 2.0], cv=3, M=20, cache=False, n_jobs=1)
    pd.testing.assert_frame_equal(a.filter(regex="^(L|U)_"), b.filter(regex="^(L|U)_"))


def test_a_cancelled_sweep_leaves_a_running_one_of_the_process_alone():
    """Two sweeps in one process (the explorer's in its background thread, the user's in the notebook):
    closing one before its end (a cancelled sweep) must not interrupt the other. joblib's loky backend
    runs both on one shared executor, and a ``Parallel`` generator abandoned midway shuts it down; before
    ``_run_tasks`` ended a closed call cleanly, a real sweep beside a cancelled one had 72 of its 84
    tasks interrupted and run again (its rows' ``retries``). Here the running sweep's tasks sleep 3 s,
    so that they are certainly in flight when the other is closed."""
    import threading

    running_tasks = [(time.sleep, (0.05,), {})] + [(time.sleep, (3.0,), {})] * 4
    first, closed, outputs, retried, failed = threading.Event(), threading.Event(), [], {}, []

    def running():
        try:
            for t, _ in sweep._run_tasks(running_tasks, 2, retried):
                outputs.append(t)
                if t == 0:
                    first.set()
                    closed.wait(60)  # the call open, its 3 s tasks running, while the other is closed
        except Exception as exc:  # reported below
            failed.append(exc)

    thread = threading.Thread(target=running, daemon=True)
    thread.start()
    try:
        assert first.wait(120)
        it = sweep._run_tasks([(time.sleep, (0.01,), {})] * 20, 2, {})
        assert [next(it)[0] for _ in range(3)] == [0, 1, 2]
        t0 = time.perf_counter()
        it.close()  # the cancelled sweep
        took = time.perf_counter() - t0
    finally:
        closed.set()
        thread.join(120)
    assert failed == [] and not thread.is_alive()
    assert retried == {}, f"tasks of the running sweep run again: {retried}"
    assert outputs == list(range(len(running_tasks)))
    assert took < sweep.CLOSE_DRAIN_S
    again = list(sweep._run_tasks([(time.sleep, (0.01,), {})] * 3, 2, retried))  # the executor still works
    assert [t for t, _ in again] == [0, 1, 2] and retried == {}


def test_mlp_epoch_sweep(small, tmp_path):
    tab = sweep.mlp_epoch_sweep(small, [1, 3, 6], cv=3, M=20, hidden_layer_sizes=(16, 8), cache=tmp_path)
    assert tab.epoch.tolist() == [1, 3, 6] and (tab.status == "epoch").all()
    for col in sweep.SWEEP_COLUMNS:
        assert tab[col].between(0, 1).all(), col
    again = sweep.mlp_epoch_sweep(small, [1, 3, 6], cv=3, M=20, hidden_layer_sizes=(16, 8), cache=tmp_path)
    pd.testing.assert_frame_equal(tab, again)


def test_row_cache_is_bounded(tmp_path):
    cache = RowCache(tmp_path, max_entries=3)
    for i in range(6):
        cache.put(f"k{i}", {"i": i})
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert cache.get("k5") == {"i": 5} and cache.get("k0") is None


@pytest.mark.parametrize("kwargs, match", [
    (dict(gammas=[]), "gammas"),
    (dict(gammas=[-1.0]), "gammas"),
    (dict(gammas=[1.0], C=0), "C"),
    (dict(gammas=[1.0], cv=1), "cv"),
    (dict(gammas=[1.0], cv=10_000), "cv"),
    (dict(gammas=[1.0], M=1), "M"),
])
def test_bad_sweep_parameters(small, kwargs, match):
    with pytest.raises(ValueError, match=match):
        sweep.svm_gamma_sweep(small, cache=False, **kwargs)


@pytest.fixture(scope="module")
def fig6(tmp_path_factory):
    """Paper Fig 6 setting on `gmm`: N = 2000, N_te = 18000, γ = 2^−10 … 2^10. The tests read Û_tr and
    L_te only, which do not depend on the CV (they equal the 10-fold sweep's exactly), so the sweep runs
    the cheapest CV, 2 folds: 6 s instead of 136 s (measured, the suite on two workers)."""
    ds = datasets.load("gmm", n_train=2000, n_test=18000, random_state=0)
    tab = sweep.svm_gamma_sweep(ds, 2.0 ** np.arange(-10, 11), cv=2, cache=tmp_path_factory.mktemp("c"))
    return ds, tab


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="measured: argmin −Û_tr at log2 γ = 5, argmin L_te at 2 (3 steps); "
                   "with the SPEC's T̃ amplitude a = 1/2 Û_tr favours slightly higher γ (README, Fig 6)")
def test_uncertainty_minimum_within_two_steps_of_test_error_minimum(fig6):
    _, tab = fig6
    best_u = tab.log2_gamma[tab.U_tr.idxmax()]
    best_l = tab.log2_gamma[tab.L_te.idxmin()]
    assert abs(best_u - best_l) <= 2


@pytest.mark.slow
def test_uncertainty_selects_a_near_optimal_gamma_and_perturbation_helps(fig6):
    ds, tab = fig6
    # the status Û_tr prefers costs at most 0.015 of test error over the best γ of the grid
    assert tab.L_te[tab.U_tr.idxmax()] - tab.L_te.min() < 0.015
    # far from the optimum −Û_tr is worse: underfitting (2^-8) and overfitting (2^10) both score lower
    u = dict(zip(tab.log2_gamma, tab.U_tr, strict=True))
    assert max(u[-8.0], u[10.0]) < tab.U_tr.max() - 0.1
    # without T̃ the overfitted statuses look good again (paper Fig 11): T̃ matters at high γ
    from buviz.uncertainty import BoundaryUncertainty

    naive = BoundaryUncertainty(M=40, perturbation=0.0, random_state=0).fit(ds.X_train, ds.y_train)
    u_naive_10 = naive.evaluate(svm_status(ds.X_train, ds.y_train, 2.0**10)).value
    assert u_naive_10 > u[10.0] + 0.1
