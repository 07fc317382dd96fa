"""Sweep wall time: local joblib workers vs a 2-worker dask.distributed LocalCluster.

Same sweep both ways (gmm, N = 2000, N_te = 5000, γ = 2^-10 … 2^10, 10-fold CV, no cache); the tables
must be identical. Run:  python benchmarks/bench_dask.py
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from buviz import datasets, sweep

if __name__ == "__main__":
    from distributed import LocalCluster

    ds = datasets.load("gmm", n_train=2000, n_test=5000, random_state=0)
    gammas = 2.0 ** np.arange(-10, 11)
    t0 = time.perf_counter()
    local = sweep.svm_gamma_sweep(ds, gammas, cv=10, cache=False, n_jobs=2)
    t_local = time.perf_counter() - t0
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        t0 = time.perf_counter()
        remote = sweep.svm_gamma_sweep(ds, gammas, cv=10, cache=False, scheduler=cluster.scheduler_address)
        t_dask = time.perf_counter() - t0
    cols = ["L_tr", "L_val", "L_ho", "L_te", "U_tr", "U_te"]
    pd.testing.assert_frame_equal(local[cols], remote[cols])
    print(f"21-γ sweep, 10-fold CV, N = 2000: local joblib (2 workers) {t_local:.1f} s; "
          f"LocalCluster (2 workers) {t_dask:.1f} s; ratio {t_dask / t_local:.2f}; tables identical")
