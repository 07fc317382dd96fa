"""The T̃-law study's compute function, against direct Proposal 2 computations (oracles)."""

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from buviz import datasets
from buviz.model_selection import perturbation_amplitude_sweep
from buviz.uncertainty import BoundaryUncertainty

GAMMAS = [2.0**-4, 1.0, 2.0**4]


@pytest.fixture(scope="module")
def gmm():
    ds = datasets.load("gmm", n_train=200, n_test=300, random_state=3)
    return ds.X_train, ds.y_train, ds.X_test, ds.y_test


@pytest.fixture(scope="module")
def sweep(gmm):
    Xtr, ytr, Xte, yte = gmm
    return perturbation_amplitude_sweep(Xtr, ytr, Xte, yte, values=GAMMAS, amplitudes=(0.0, 1.0),
                                        M=20, random_state=7)


def _direct(X, y, gamma, Xfit, yfit, **bu):
    """Û computed the plain way: a fresh BoundaryUncertainty fitted on (X, y), an SVC fitted on (Xfit, yfit)."""
    return BoundaryUncertainty(M=20, random_state=7, **bu).fit(X, y).evaluate(SVC(gamma=gamma).fit(Xfit, yfit)).value


def test_amplitude_zero_is_the_unperturbed_computation(gmm, sweep):
    """a = 0 gives T̃ = T: Û_tr and Û_te equal Proposal 2 run with perturbation=0 on T and on the test set."""
    Xtr, ytr, Xte, yte = gmm
    rows = sweep[(sweep["amplitude"] == 0) & (sweep["mode"] == "features")]
    for g, u_tr, u_te in zip(rows["value"], rows["U_tr"], rows["U_te"], strict=True):
        assert u_tr == pytest.approx(_direct(Xtr, ytr, g, Xtr, ytr, perturbation=0.0), abs=1e-12)
        assert u_te == pytest.approx(_direct(Xte, yte, g, Xtr, ytr, perturbation=0.0), abs=1e-12)


def test_a_positive_law_equals_a_fresh_fit_with_that_law(gmm, sweep):
    """Redrawing only T̃ (neighbourhoods and Î* shared) gives what a fresh fit with (a, mode) gives (2 classes)."""
    Xtr, ytr, _, _ = gmm
    for mode in ("features", "scalar"):
        rows = sweep[(sweep["amplitude"] == 1.0) & (sweep["mode"] == mode)]
        direct = [_direct(Xtr, ytr, g, Xtr, ytr, perturbation=1.0, perturbation_mode=mode) for g in GAMMAS]
        np.testing.assert_allclose(rows["U_tr"], direct, atol=1e-12)
    # and the two modes do differ for a > 0 (otherwise the mode would not be exercised)
    f = sweep[(sweep["amplitude"] == 1.0) & (sweep["mode"] == "features")]["U_tr"].to_numpy()
    s = sweep[(sweep["amplitude"] == 1.0) & (sweep["mode"] == "scalar")]["U_tr"].to_numpy()
    assert not np.allclose(f, s)


def test_errors_are_the_candidates_errors(gmm, sweep):
    Xtr, ytr, Xte, yte = gmm
    for g in GAMMAS:
        m = SVC(gamma=g).fit(Xtr, ytr)
        rows = sweep[sweep["value"] == g]
        assert set(rows["L_te"]) == {np.mean(m.predict(Xte) != yte)}
        assert set(rows["L_tr"]) == {np.mean(m.predict(Xtr) != ytr)}
    assert len(sweep) == len(GAMMAS) * 2 * 2
    np.testing.assert_allclose(sweep["log2_value"].unique(), [-4, 0, 4])


def test_fitted_models_give_the_same_table_as_fitting(gmm):
    Xtr, ytr, Xte, yte = gmm
    ks = [1, 15]
    kw = dict(param="n_neighbors", values=ks, amplitudes=(0.5,), modes=("features",), M=20, random_state=1)
    fitted = perturbation_amplitude_sweep(Xtr, ytr, Xte, yte, **kw,
                                          fitted_models=[KNeighborsClassifier(k).fit(Xtr, ytr) for k in ks])
    fresh = perturbation_amplitude_sweep(Xtr, ytr, Xte, yte, estimator=KNeighborsClassifier(), **kw)
    cols = ["U_tr", "U_te", "L_tr", "L_te", "error_tilde"]
    np.testing.assert_allclose(fitted[cols].to_numpy(), fresh[cols].to_numpy(), atol=1e-12)


def test_max_test_limits_the_input_of_u_te_only(gmm):
    Xtr, ytr, Xte, yte = gmm
    kw = dict(values=[1.0], amplitudes=(0.0,), modes=("features",), M=20, random_state=7)
    t = perturbation_amplitude_sweep(Xtr, ytr, Xte, yte, max_test=100, **kw)
    assert t["U_te"].iloc[0] == pytest.approx(_direct(Xte[:100], yte[:100], 1.0, Xtr, ytr, perturbation=0.0),
                                              abs=1e-12)
    assert t["L_te"].iloc[0] == np.mean(SVC(gamma=1.0).fit(Xtr, ytr).predict(Xte) != yte)  # all test points


@pytest.mark.parametrize("kw, match", [
    (dict(amplitudes=(-1.0,)), "amplitudes"),
    (dict(amplitudes=()), "amplitudes"),
    (dict(modes=("gauss",)), "modes"),
    (dict(values=[]), "values"),
    (dict(values=[1.0, 2.0], fitted_models=[SVC()]), "fitted_models"),
])
def test_bad_input_names_the_parameter(gmm, kw, match):
    Xtr, ytr, Xte, yte = gmm
    with pytest.raises(ValueError, match=match):
        perturbation_amplitude_sweep(Xtr, ytr, Xte, yte, M=20, **kw)
