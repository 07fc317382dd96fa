"""Same seed and parameters -> bit-identical Û and sweep tables, across runs and processes."""

import json
import subprocess
import sys

import numpy as np

SCRIPT = r"""
import json, sys
import numpy as np
from buviz import datasets, sweep
from buviz.classifiers import svm_status
from buviz.uncertainty import BoundaryUncertainty
ds = datasets.load("gmm3", n_train=400, n_test=800, random_state=3)
bu = BoundaryUncertainty(M=20, random_state=7).fit(ds.X_train, ds.y_train)
r = bu.evaluate(svm_status(ds.X_train, ds.y_train, 2.0))
tab = sweep.svm_gamma_sweep(ds, [0.5, 4.0], cv=3, M=20, cache=False, n_jobs=int(sys.argv[1]))
cols = ["L_tr", "L_val", "L_ho", "L_te", "U_tr", "U_te"]
print(json.dumps({"u": r.value.hex(), "k": float(np.sum(r.k)).hex(),
                  "table": [float(v).hex() for v in tab[cols].to_numpy().ravel()]}))
"""


def _run(n_jobs: int) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(n_jobs)], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": str(n_jobs * 17), "PATH": "/usr/bin:/bin"}, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_bit_identical_across_processes_and_worker_counts():
    a, b = _run(1), _run(2)
    assert a == b
    assert len(a["table"]) == 12 and np.all(np.isfinite([float.fromhex(v) for v in a["table"]]))
