"""The moment method's spline fit at the paper's m = 10 000: the structured active-set NNLS."""

import numpy as np
import pytest
from scipy.optimize import nnls

from buviz import extrapolation as ex
from buviz._validation import InvalidParameterError


def _kkt(A, b, beta):
    """Largest violation of the NNLS optimality conditions, columns scaled to unit norm."""
    An = A / np.linalg.norm(A, axis=0)
    g = An.T @ (b - A @ beta)                  # must be <= 0, and = 0 where beta > 0
    return max(float(g.max()), float(np.abs(g[beta > 0]).max(initial=0.0)))


@pytest.mark.parametrize("m", [100, 1000, 10_000])
def test_spline_fit_solves_the_nnls_problem_as_scipy_does(m):
    ks = np.arange(2, 21)
    rng = np.random.default_rng(m)
    t = np.arange(m) / m
    H = ex.moment_matrix("linear_spline", ks, params=t)
    for rho in (0.5, 0.9):
        M, y = ex.toy_margins(20, rho, r_test=5, random_state=rng)
        risk = 1 - ex.average_accuracy(M, y, ks)
        beta, info = ex.spline_nnls(H, risk)
        ref, _ = nnls(H, risk, maxiter=50 * m)
        assert info["solver"] == "active_set" and np.all(beta >= 0)
        assert np.count_nonzero(beta) <= len(ks)
        # optimal to floating-point accuracy: the objective at most 1e-12 (relative to ||b||²) above scipy's
        obj, obj_ref = np.sum((H @ beta - risk) ** 2), np.sum((H @ ref - risk) ** 2)
        assert obj - obj_ref <= 1e-12 * np.sum(risk**2)
        assert _kkt(H, risk, beta) < 1e-12
        h = ex.moment_matrix("linear_spline", [400], params=t)[0]
        assert abs(h @ beta - h @ ref) < 1e-4


def test_ties_between_identical_columns_go_to_the_lowest_index():
    A = np.array([[1.0, 2.0, 2.0, 0.5], [0.0, 1.0, 1.0, 3.0]])
    b = np.array([2.0, 1.0])
    beta, _ = ex.spline_nnls(A, b)
    assert beta[1] > 0 and beta[2] == 0
    np.testing.assert_allclose(A @ beta, b, atol=1e-12)


def test_paper_m_by_name():
    ks, acc = np.arange(2, 11), ex.toy_average_accuracy(np.arange(2, 11), 0.7)
    fit = ex.fit_dbar(ks, acc, m="paper")
    assert fit.meta["m"] == ex.PAPER_SPLINE_M == 10_000 and len(fit.beta) == 10_000
    with pytest.raises(InvalidParameterError, match="m must"):
        ex.fit_dbar(ks, acc, m="papers")
    with pytest.raises(InvalidParameterError, match="solver"):
        ex.fit_dbar(ks, acc, solver="cvx")
