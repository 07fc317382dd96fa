"""buviz/data/tables/letter_extrapolation.csv (notebook 04) is what its script computes: k = 2 recomputed."""

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    path = ROOT / "benchmarks" / "bench_letter_extrapolation.py"
    spec = importlib.util.spec_from_file_location("_bench_letter", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_shipped_letter_table_recomputes_at_k_2():
    shipped = pd.read_csv(ROOT / "buviz" / "data" / "tables" / "letter_extrapolation.csv")
    first = shipped.iloc[0]
    again = _script().letter_extrapolation(int(first.n_draws), int(first.n_train), int(first.n_test),
                                           int(first.seed), ks=[2], progress=None)
    expected = shipped[shipped.k == 2].reset_index(drop=True)
    assert len(again) == len(expected) == 8  # 2 classifiers × 4 methods
    cols = ["classifier", "k", "method", "n_draws", "n_failed", "n_train", "n_test", "seed"]
    pd.testing.assert_frame_equal(again[cols], expected[cols], check_dtype=False)
    for col in ("truth_26", "mean_pred", "sd_pred", "bias", "rmse", "observed_k_acc"):
        pd.testing.assert_series_equal(again[col], expected[col], check_exact=False, atol=2e-6, rtol=0)
