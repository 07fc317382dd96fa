"""The sweep tables report the one-off fit time of Û (``fit_time_``), shared by the rows of one call."""

import numpy as np
import pytest

from buviz import datasets, sweep
from buviz.uncertainty import BoundaryUncertainty, Proposal1


@pytest.fixture(scope="module")
def small():
    return datasets.load("gmm", n_train=200, n_test=400, random_state=1)


class _StampedBU(BoundaryUncertainty):
    """Û whose fit reports a known time: fit on T stamps 11.0, fit on the test set 22.0."""

    def fit(self, X, y):
        super().fit(X, y)
        self.fit_time_ = 11.0 if len(y) == 200 else 22.0
        return self


class _StampedP1(Proposal1):
    def fit(self, X, y):
        super().fit(X, y)
        self.fit_time_ = 33.0
        return self


def test_svm_sweep_reports_the_estimators_fit_time(small, monkeypatch):
    monkeypatch.setattr(sweep, "BoundaryUncertainty", _StampedBU)
    monkeypatch.setattr("buviz.uncertainty.Proposal1", _StampedP1)
    tab = sweep.svm_gamma_sweep(small, [0.5, 2.0], cv=3, M=20, cache=False, n_jobs=1, proposal1=True)
    assert tab.time_u_fit.tolist() == [11.0, 11.0]
    assert tab.time_u_fit_te.tolist() == [22.0, 22.0]
    assert tab.time_u1_fit.tolist() == [33.0, 33.0]


def test_fit_time_is_measured_kept_in_the_cache_and_zero_without_a_test_estimator(small, tmp_path):
    tab = sweep.svm_gamma_sweep(small, [0.5, 2.0], cv=3, M=20, cache=tmp_path, n_jobs=1)
    assert np.all(tab.time_u_fit > 0) and tab.time_u_fit.nunique() == 1
    assert "time_u1_fit" not in tab
    again = sweep.svm_gamma_sweep(small, [0.5, 2.0], cv=3, M=20, cache=tmp_path, n_jobs=1)
    assert again.time_u_fit.tolist() == tab.time_u_fit.tolist()  # from the cache, not refitted
    no_test = datasets.load("gmm", n_train=200, n_test=10, random_state=1)  # fewer test points than M
    tab = sweep.svm_gamma_sweep(no_test, [1.0], cv=3, M=20, cache=False, n_jobs=1)
    assert tab.time_u_fit_te.tolist() == [0.0] and np.isnan(tab.U_te[0]) and tab.time_u_fit[0] > 0


def test_mlp_sweep_reports_the_fit_time(small, monkeypatch):
    monkeypatch.setattr(sweep, "BoundaryUncertainty", _StampedBU)
    tab = sweep.mlp_epoch_sweep(small, [1, 2], cv=2, M=20, hidden_layer_sizes=(8,), cache=False, n_jobs=1)
    assert tab.time_u_fit.tolist() == [11.0, 11.0] and tab.time_u_fit_te.tolist() == [22.0, 22.0]
