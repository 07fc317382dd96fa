"""Per-status (N, M) work of Proposal 2: numpy (default) vs PyTorch (``array_backend="torch"``).

Cheap prototype-classifier discriminant, M = 40. Prints the device; on a CUDA machine the torch
path runs on the GPU. Run:  python benchmarks/bench_backend.py [--sizes 1000000 10000000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def _median_time(fn, repeat=3):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


if __name__ == "__main__":
    import torch

    from buviz.classifiers import PrototypeClassifier, as_discriminant
    from buviz.uncertainty import BoundaryUncertainty

    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[1_000_000])
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    name = torch.cuda.get_device_name(0) if device == "cuda" else "CPU (no CUDA device)"
    print(f"torch {torch.__version__}, device: {name}")
    pbc = PrototypeClassifier.from_prototypes([np.array([[-1.0, 0.0], [-1.0, 1.0]]),
                                               np.array([[1.0, 0.0], [1.0, 1.0]])])
    d = as_discriminant(pbc)
    print(f"{'N':>9} {'numpy s':>8} {'torch s':>8} {'numpy/torch':>11} {'|ΔÛ|':>9}")
    for N in args.sizes:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(N, 2))
        y = (X[:, 0] + 0.5 * rng.normal(size=N) > 0).astype(int)
        bu = BoundaryUncertainty(M=40, random_state=0).fit(X, y)
        t_np, r_np = _median_time(lambda bu=bu: bu.evaluate(d))
        bu.array_backend, bu.device = "torch", device
        bu.evaluate(d)  # moves the neighbour arrays to the device once
        t_t, r_t = _median_time(lambda bu=bu: bu.evaluate(d))
        print(f"{N:>9} {t_np:>8.3f} {t_t:>8.3f} {t_np / t_t:>11.2f} {abs(r_np.value - r_t.value):>9.1e}", flush=True)
