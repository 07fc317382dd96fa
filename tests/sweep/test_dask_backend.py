"""Sweeps on a real dask.distributed LocalCluster (scheduler and worker processes on loopback)."""

import os
import signal

import numpy as np
import pandas as pd
import pytest

from buviz import datasets, sweep

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dask")]
METRICS = ["L_tr", "L_val", "L_ho", "L_te", "U_tr", "U_te"]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c


@pytest.fixture(scope="module")
def small():
    return datasets.load("gmm", n_train=300, n_test=1500, random_state=0)


@pytest.fixture(scope="module")
def local_table(small):
    return sweep.svm_gamma_sweep(small, 2.0 ** np.arange(-3, 4), cv=4, M=20, cache=False)


def test_sweep_on_cluster_equals_local(cluster, small, local_table, tmp_path):
    tab = sweep.svm_gamma_sweep(small, 2.0 ** np.arange(-3, 4), cv=4, M=20, cache=tmp_path,
                                scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(tab[METRICS], local_table[METRICS])
    # the rows went into the same cache: a local re-run is served from it
    calls = []
    again = sweep.svm_gamma_sweep(small, 2.0 ** np.arange(-3, 4), cv=4, M=20, cache=tmp_path,
                                  progress=lambda d, t: calls.append(t))
    assert calls == [0]
    pd.testing.assert_frame_equal(again[METRICS], local_table[METRICS])


def test_worker_killed_mid_sweep_loses_no_row(cluster, small, local_table):
    with distributed.Client(cluster.scheduler_address) as client:
        pids = list(client.run(os.getpid).values())
    killed = []

    def progress(done, total):
        if done == 3 and not killed:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    tab = sweep.svm_gamma_sweep(small, 2.0 ** np.arange(-3, 4), cv=4, M=20, cache=False,
                                scheduler=cluster.scheduler_address, progress=progress)
    assert killed
    assert len(tab) == len(local_table)
    pd.testing.assert_frame_equal(tab[METRICS], local_table[METRICS])
