"""The true boundary uncertainty U(Λ) (buviz.uncertainty.oracle) against closed forms and Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from buviz import datasets
from buviz._mixture import GaussianMixture
from buviz._validation import InvalidParameterError
from buviz.classifiers import as_discriminant, svm_status
from buviz.uncertainty import true_boundary_uncertainty
from buviz.uncertainty.oracle import BoundaryRegion

MU, SIGMA = 1.0, 1.0
TWO = GaussianMixture([[(1.0, (-MU, 0.0), SIGMA ** 2)], [(1.0, (MU, 0.0), SIGMA ** 2)]])
BOX = (-8.0, -8.0, 8.0, 8.0)


def _status(s_func, name="status"):
    """A two-class status g = [−s, s] (class 2 where s > 0)."""
    return as_discriminant(lambda X: np.column_stack([-s_func(X), s_func(X)]), n_classes=2, name=name)


def _u_exact(x1):
    """U(x) on TWO: 1 − |2 P(C_2|x) − 1| = 1 − |tanh(μ x1 / σ²)|."""
    return 1.0 - np.abs(np.tanh(MU * x1 / SIGMA ** 2))


def test_vertical_line_closed_form():
    """B(Λ): x1 = c. U(x) is constant on it and ∫_B p ds = ½[φ_σ(c + μ) + φ_σ(c − μ)]."""
    c = 0.7
    r = true_boundary_uncertainty(_status(lambda X: X[:, 0] - c), TWO, bounds=BOX)
    assert r.value == pytest.approx(_u_exact(c), abs=1e-6)
    mass = 0.5 * (stats.norm.pdf(c + MU, scale=SIGMA) + stats.norm.pdf(c - MU, scale=SIGMA))
    assert r.boundary_mass == pytest.approx(mass, rel=1e-4)
    # traced where the data can be (p ≥ DENSITY_FLOOR · max p on the grid), a straight line there
    assert 8.0 < r.boundary_length <= BOX[3] - BOX[1]
    assert np.allclose(r.points[:, 0], c)


def test_bayes_boundary_has_the_maximum():
    """Eq 21: U(Λ) = U_max = 1 exactly when B(Λ) lies on B* (here x1 = 0)."""
    assert true_boundary_uncertainty(_status(lambda X: X[:, 0]), TWO, bounds=BOX).value == pytest.approx(1.0)


def _tilted(t):
    """B(Λ): x1 = t·x2, through the origin. Along it (unit direction u, arc length s), p(s) is a
    Gaussian mixture in s and U(s) = 1 − |tanh(μ s u1/σ²)|: a 1-D integral; ∫ p ds = φ_σ(μ u2) exactly."""
    u1, u2 = t / np.hypot(t, 1.0), 1.0 / np.hypot(t, 1.0)

    def p(s):
        return 0.5 * (stats.norm.pdf(s, loc=MU * u1, scale=SIGMA) + stats.norm.pdf(s, loc=-MU * u1, scale=SIGMA)) \
            * stats.norm.pdf(MU * u2, scale=SIGMA)

    mass = stats.norm.pdf(MU * u2, scale=SIGMA)
    num = integrate.quad(lambda s: _u_exact(s * u1) * p(s), -12, 12, points=[0.0], limit=200)[0]
    return num / mass, mass


def test_tilted_line_against_a_one_dimensional_integral():
    t = 1.5
    value, mass = _tilted(t)
    r = true_boundary_uncertainty(_status(lambda X: X[:, 0] - t * X[:, 1]), TWO, bounds=BOX)
    assert r.boundary_mass == pytest.approx(mass, rel=1e-4)
    assert r.value == pytest.approx(value, abs=2e-4)
    # the test tells a wrong normalisation apart: the plain mean along B(Λ) (weight ds, not p ds),
    # or the unnormalised integral (∫ U p ds), miss the closed form by far more than the tolerance
    plain = np.sum(r.local_uncertainty * r.lengths) / np.sum(r.lengths)
    assert abs(plain - value) > 0.1
    assert abs(np.sum(r.local_uncertainty * r.weights * r.lengths) - value) > 0.1


def _cubic(X):
    """A curved status whose |∇f| varies along B(Λ) (so the two bands of eq 15 differ)."""
    return X[:, 0] - 0.3 + 0.15 * X[:, 1] ** 3


def _cubic_grad_norm(X):
    return np.hypot(np.ones(len(X)), 0.45 * X[:, 1] ** 2)


def _mc(model, s_func, grad_norm, band: str, n: int, eps: float, seed: int = 0):
    """Monte Carlo of the band δV of eq 15: points with |f|/|∇f| < ε (geometric) or |f| < ε
    (discriminant); mass ≈ P(band)/(2ε), U ≈ the mean of U(x) over the band; with standard errors."""
    X, _ = model.sample(n, random_state=seed)
    f = -2.0 * s_func(X)  # f = g_1 − g_2 (eq 12) of g = [−s, s]
    dist = np.abs(f) / (2.0 * grad_norm(X)) if band == "geometric" else np.abs(f)
    on = dist < eps
    post = model.posterior(X[on])[:, 1]
    u = 1.0 - np.abs(2 * post - 1)
    k = on.sum()
    mass, mass_se = k / n / (2 * eps), np.sqrt(k) / n / (2 * eps)
    return u.mean(), u.std() / np.sqrt(k), mass, mass_se


@pytest.mark.parametrize("band", ["geometric", "discriminant"])
def test_curved_boundary_against_monte_carlo(band):
    """A band of width 2ε around B(Λ) in the sample space (or in f) sampled from the mixture; both
    U(Λ) and the band's mass agree with the line integral within 4 standard errors (+ the O(ε²) bias)."""
    r = true_boundary_uncertainty(_status(_cubic), TWO, bounds=BOX, band=band, resolution=401)
    u, u_se, mass, mass_se = _mc(TWO, _cubic, _cubic_grad_norm, band, n=1_000_000, eps=0.02)
    assert abs(r.value - u) < 4 * u_se + 1e-3
    assert abs(r.boundary_mass - mass) < 4 * mass_se + 1e-3 * mass
    # and the other band's integral is caught: the two differ by more than the Monte Carlo's error here
    other = true_boundary_uncertainty(_status(_cubic), TWO, bounds=BOX, resolution=401,
                                      band="discriminant" if band == "geometric" else "geometric")
    assert abs(other.value - u) > 4 * u_se + 1e-3


def _rbf_s_and_grad_norm(est):
    sv, coef, b, gamma = est.support_vectors_, est.dual_coef_[0], est.intercept_[0], est._gamma

    def s_and_grad(X):
        d = X[:, None, :] - sv[None, :, :]
        k = np.exp(-gamma * (d ** 2).sum(-1)) * coef
        return k.sum(1) + b, np.linalg.norm(-2 * gamma * np.einsum("ns,nsk->nk", k, d), axis=1)

    return s_and_grad


def test_svc_status_on_gmm_against_monte_carlo():
    """An RBF SVC on buviz's gmm (standardised coordinates): the traced integral against sampling."""
    ds = datasets.load("gmm", n_train=200, n_test=0, random_state=1)
    d = svm_status(ds.X_train, ds.y_train, 2.0, C=1.0)
    r = true_boundary_uncertainty(d, ds.model)
    s_and_grad = _rbf_s_and_grad_norm(d.estimator)
    assert np.allclose(s_and_grad(ds.X_train[:5])[0], d.estimator.decision_function(ds.X_train[:5]))
    X, _ = ds.model.sample(200_000, random_state=2)
    s, gn = np.concatenate([np.column_stack(s_and_grad(X[i:i + 20_000])) for i in range(0, len(X), 20_000)]).T
    eps = 0.02
    on = np.abs(s) / gn < eps
    u = 1.0 - np.abs(2 * ds.model.posterior(X[on])[:, 1] - 1)
    k = on.sum()
    assert abs(r.value - u.mean()) < 4 * u.std() / np.sqrt(k) + 2e-3
    mass = k / len(X) / (2 * eps)
    assert abs(r.boundary_mass - mass) < 4 * np.sqrt(k) / len(X) / (2 * eps) + 5e-3 * mass


def test_fine_region_agrees_with_the_box_grid_and_reports_its_accuracy():
    """A large-γ SVC: the certified region of svc_boundary_region (traced on a fine grid around the
    support vectors) gives what a fine grid over the whole box gives."""
    ds = datasets.load("gmm", n_train=150, n_test=0, random_state=0)
    d = svm_status(ds.X_train, ds.y_train, 2.0 ** 7, C=16.0)
    auto = true_boundary_uncertainty(d, ds.model, check=True)
    x0, y0, x1, y1 = (*ds.X_train.min(0) - 1.0, *ds.X_train.max(0) + 1.0)
    box = true_boundary_uncertainty(d, ds.model, bounds=(x0, y0, x1, y1), region=None,
                                    resolution=int(max(x1 - x0, y1 - y0) * 8 * 2 ** 3.5) + 1)
    assert auto.accuracy is not None and auto.accuracy < 5e-3
    assert auto.value == pytest.approx(box.value, abs=5e-3)
    assert auto.boundary_length == pytest.approx(box.boundary_length, rel=1e-2)


def test_empty_boundary_is_u_min():
    r = true_boundary_uncertainty(_status(lambda X: np.ones(len(X))), TWO, bounds=BOX)
    assert r.value == 0.0 and r.boundary_length == 0.0


def test_three_classes_weight_the_pairs():
    """Eq 19 for J = 3: the Bayes rule of gmm3 is on B* everywhere (U = 1); a status that swaps two
    classes' discriminants puts the wrong pair along part of B(Λ) and loses there."""
    ds = datasets.load("gmm3", n_train=60, n_test=0, random_state=0)
    bayes = as_discriminant(ds.model.log_joint, n_classes=3, name="bayes")
    r = true_boundary_uncertainty(bayes, ds.model)
    assert sum(r.pair_probabilities.values()) == pytest.approx(1.0)
    assert r.value == pytest.approx(1.0, abs=1e-3)  # the chords' midpoints are O(h²) off B*
    shifted = as_discriminant(lambda X: ds.model.log_joint(X) + np.array([0.0, 1.5, 0.0]), n_classes=3)
    assert true_boundary_uncertainty(shifted, ds.model).value < 0.95


def test_bad_input_names_the_parameter():
    st = _status(lambda X: X[:, 0])
    with pytest.raises(InvalidParameterError, match="band"):
        true_boundary_uncertainty(st, TWO, band="width")
    with pytest.raises(InvalidParameterError, match="bounds"):
        true_boundary_uncertainty(st, TWO, bounds=(1, 0, 0, 1))
    with pytest.raises(InvalidParameterError, match="resolution"):
        true_boundary_uncertainty(st, TWO, resolution=3)
    with pytest.raises(InvalidParameterError, match="region"):
        true_boundary_uncertainty(st, TWO, region="fine")
    one_d = GaussianMixture([[(1.0, (0.0,), 1.0)], [(1.0, (1.0,), 1.0)]])
    with pytest.raises(InvalidParameterError, match="model"):
        true_boundary_uncertainty(st, one_d)
    assert isinstance(BoundaryRegion(np.zeros((1, 2)), 1.0, 0.1), BoundaryRegion)
