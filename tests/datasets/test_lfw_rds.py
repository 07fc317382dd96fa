"""The authors' LFW replicates read from their R file with the R-data reader ``rdata`` (no hand conversion).

The fixture is written by ``rdata``'s own writer in the shape of the authors' ``saveRDS(accs_final)``: a
named list with one numeric vector of replicate predictions per K (``facerec`` script of snarles/fmri).
"""

from __future__ import annotations

import numpy as np
import pytest

from buviz._fetch_lfw import read_lfw_rds
from buviz.datasets import DataFetchError, fetch_lfw_predictions

rdata = pytest.importorskip("rdata")


def _write(path, preds):
    rdata.write_rds(path, {str(k): np.asarray(v, float) for k, v in preds.items()})
    return path


def test_named_list_becomes_one_row_per_replicate(tmp_path):
    preds = {800: [0.43, 0.44], 100: [0.39, 0.0, 0.48], 50: [0.5]}
    raw = read_lfw_rds(_write(tmp_path / "lfw_sub_preds.rds", preds), check_sha=False)
    assert list(raw.columns) == ["source", "K_subsample", "replicate", "predicted_acc_1672"]
    assert raw.K_subsample.tolist() == [50, 100, 100, 100, 800, 800]  # ordered by K, R's order inside
    assert raw.replicate.tolist() == [1, 1, 2, 3, 1, 2]
    assert raw.predicted_acc_1672.tolist() == [0.5, 0.39, 0.0, 0.48, 0.43, 0.44]
    assert raw.source.str.startswith("lfw_sub_preds.rds (top level").all()


def test_other_files_are_refused(tmp_path):
    p = _write(tmp_path / "lfw_sub_preds.rds", {100: [0.4]})
    with pytest.raises(DataFetchError, match="sha256 does not start with c4b9b044"):
        read_lfw_rds(p)
    (tmp_path / "zheng").mkdir()
    _write(tmp_path / "zheng" / "lfw_sub_preds.rds", {100: [0.4]})
    with pytest.raises(DataFetchError, match="c4b9b044"):  # the R file is read first, and checked
        fetch_lfw_predictions(data_dir=tmp_path)
    rdata.write_rds(tmp_path / "vector.rds", np.array([0.1, 0.2]))
    with pytest.raises(DataFetchError, match="named list"):
        read_lfw_rds(tmp_path / "vector.rds", check_sha=False)
