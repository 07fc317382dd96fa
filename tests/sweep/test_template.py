"""Sweeps take a BoundaryUncertainty template, as UncertaintyScorer does; the keywords build one."""

import numpy as np
import pytest
from sklearn.base import clone

from buviz import datasets, sweep
from buviz._validation import InvalidParameterError
from buviz.classifiers import svm_status
from buviz.sweep import RowCache
from buviz.uncertainty import BoundaryUncertainty


@pytest.fixture(scope="module")
def small():
    return datasets.load("gmm3", n_train=150, n_test=60, random_state=2)


def test_the_template_computes_U_and_the_keywords_build_the_same_one(small, tmp_path):
    gammas = [0.5, 4.0]
    template = BoundaryUncertainty(M=15, separability="threshold", weight_tol=0.2, pair_at="x_tilde", random_state=3)
    before = template.get_params()
    tab = sweep.svm_gamma_sweep(small, gammas, cv=3, cache=tmp_path, n_jobs=1, uncertainty=template)
    assert template.get_params() == before and not hasattr(template, "X_")  # cloned, never fitted itself
    bu = clone(template).fit(small.X_train, small.y_train)
    for g, row in zip(gammas, tab.itertuples(), strict=True):
        assert row.U_tr == bu.evaluate(svm_status(small.X_train, small.y_train, g)).value
    # weight_tol is not a sweep keyword: the key tells the template's rows from the default's
    default = sweep.svm_gamma_sweep(small, gammas, cv=3, M=15, separability="threshold", random_state=3,
                                    cache=tmp_path, n_jobs=1)
    assert not np.allclose(default.U_tr, tab.U_tr)
    # the keywords are a convenience that builds the template: the same rows and the same cache key
    from_keywords = sweep.uncertainty_template(M=15, separability="threshold", random_state=3)
    assert from_keywords.get_params() == BoundaryUncertainty(M=15, separability="threshold",
                                                             random_state=3).get_params()
    same = sweep.svm_gamma_sweep(small, gammas, cv=3, cache=tmp_path, n_jobs=1, random_state=3,
                                 uncertainty=from_keywords)
    assert same.U_tr.tolist() == default.U_tr.tolist()
    assert sweep._key_params(from_keywords, 3) == sweep._key_params(sweep.uncertainty_template(
        M=15, separability="threshold", random_state=3), 3)


def test_a_template_with_a_keyword_changed_as_well_is_refused(small):
    with pytest.raises(InvalidParameterError, match="M.*template"):
        sweep.svm_gamma_sweep(small, [1.0], cv=3, M=20, uncertainty=BoundaryUncertainty(M=15), cache=False)
    with pytest.raises(InvalidParameterError, match="uncertainty must be a BoundaryUncertainty"):
        sweep.mlp_epoch_sweep(small, [1], cv=3, uncertainty="shrinkage", cache=False)


def test_the_sweep_seed_and_the_templates_seed_are_both_in_the_key():
    t = BoundaryUncertainty(M=15, random_state=1)
    assert sweep._key_params(t, 1) != sweep._key_params(t, 2)
    assert "split_random_state" not in sweep._key_params(t, 1)
    assert RowCache.key(**sweep._key_params(t, 1)) != RowCache.key(**sweep._key_params(clone(t).set_params(
        random_state=2), 1))


def test_the_test_set_quantities_of_a_status(small):
    d = svm_status(small.X_train, small.y_train, 1.0)
    te = sweep.evaluate_on_test_set(d, small.X_test, small.y_test)
    g = d(small.X_test)
    top = np.sort(g, axis=1)
    pair = np.argsort(-g, axis=1)[:, :2]
    i, j = pair.min(axis=1), pair.max(axis=1)  # the pair in class order: f = g_i − g_j, i < j
    rows = np.arange(len(g))
    np.testing.assert_allclose(te.f_test, g[rows, i] - g[rows, j])
    assert np.all(np.abs(te.f_test) == top[:, -1] - top[:, -2])
    assert te.L_te == np.mean(d.predict(small.X_test) != small.y_test)
    assert not te.f_test.flags.writeable
    empty = sweep.evaluate_on_test_set(d, small.X_test[:0], small.y_test[:0])
    assert len(empty.f_test) == 0 and np.isnan(empty.L_te)
