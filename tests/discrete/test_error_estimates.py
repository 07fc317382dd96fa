"""Tests for buviz.discrete (Nedelko 2009): exact moments, per-cell tables, Tables 1-2."""

from __future__ import annotations

import math

import numpy as np
import pytest

from buviz import discrete as d


def _paper(table) -> np.ndarray:
    out = np.full((len(table), 6), np.nan)
    for n, row in enumerate(table):
        out[n, : len(row)] = row
    return out


# ------------------------------------------------------------------ exact moments vs simulation
@pytest.mark.parametrize("method,N,k,p", [
    ("resubstitution", 20, 4, 0.3), ("loo", 30, 5, 0.5), ("bootstrap632", 25, 10, 0.15),
    ("loo", 12, 3, 0.0),
])
def test_moments_match_simulation(method, N, k, p):
    x = d.cell_values(method, N, N, k=k)
    mom = d.moments(x, N, k, p)
    f, g = d.simulate(x, N, k, p, n_samples=200_000, random_state=1)
    for exact, sample in [(mom.E_f, f), (mom.E_f2, f * f), (mom.E_fg, f * g), (mom.E_g, g), (mom.E_g2, g * g),
                          (mom.delta, (f - g) ** 2)]:
        se = sample.std(ddof=1) / math.sqrt(sample.size)
        assert abs(sample.mean() - exact) <= 3 * se + 1e-12, (exact, sample.mean(), se)


def test_general_alpha_p_match_simulation_and_identical_case():
    N = 15
    x = d.cell_values("loo", N, N)
    alpha = np.array([0.1, 0.2, 0.2, 0.5])
    pj = np.array([0.1, 0.5, 0.7, 0.4])
    mom = d.moments_general(x, N, alpha, pj)
    f, g = d.simulate(x, N, 4, pj, n_samples=200_000, alpha=alpha, random_state=2)
    for exact, sample in [(mom.E_f, f), (mom.E_f2, f * f), (mom.E_fg, f * g), (mom.E_g2, g * g),
                          (mom.delta, (f - g) ** 2)]:
        se = sample.std(ddof=1) / math.sqrt(sample.size)
        assert abs(sample.mean() - exact) <= 3 * se
    # equal cells: the general formula equals the vectorised one
    a = d.moments_general(x, N, np.full(5, 0.2), 0.35)
    b = d.moments(x, N, 5, 0.35)
    assert np.allclose([a.E_f, a.E_f2, a.E_fg, a.E_g2, a.delta], [b.E_f, b.E_f2, b.E_fg, b.E_g2, b.delta])


def test_large_N_log_space_is_finite():
    S = d.rms_deviation("resubstitution", 300, 30, np.array([0.0, 0.2, 0.5]))
    assert np.all(np.isfinite(S)) and np.all(S > 0)
    # resubstitution at p = 0: f = 0, g = (#empty cells)/(2k): S^2 = E g^2 exactly
    k, N = 30, 300
    m = d.moments(d.cell_values("resubstitution", N, N), N, k, 0.0)
    e_empty = k * (1 - 1 / k) ** N
    assert m.E_g == pytest.approx(e_empty / (2 * k), rel=1e-10)


# ------------------------------------------------------------------ per-cell formulas vs brute force
def _histogram_error(cells, labels, k, train_mask, test_idx):
    """Expected errors of the histogram classifier trained on train_mask, on points test_idx."""
    ones = np.bincount(cells[train_mask], weights=labels[train_mask], minlength=k)
    tot = np.bincount(cells[train_mask], minlength=k)
    zeros = tot - ones
    c = cells[test_idx]
    y = labels[test_idx]
    pred1 = np.where(ones[c] > zeros[c], 1.0, np.where(ones[c] < zeros[c], 0.0, 0.5))
    return np.where(y == 1, 1 - pred1, pred1).sum()


def test_loo_formula_equals_brute_force():
    rng = np.random.default_rng(3)
    N, k = 17, 4
    x = d.cell_values("loo", N, N)
    for _ in range(40):
        cells = rng.integers(k, size=N)
        labels = (rng.random(N) < rng.random()).astype(float)
        brute = sum(_histogram_error(cells, labels, k, np.arange(N) != i, [i]) for i in range(N)) / N
        nj = np.bincount(cells, minlength=k)
        mj = np.bincount(cells, weights=labels, minlength=k).astype(int)
        assert x[nj, mj].sum() == pytest.approx(brute, abs=1e-12)


def test_bootstrap_formula_equals_resampling():
    """Exact out-of-bag expectation vs 40000 bootstrap resamples of fixed samples (ties = 1/2)."""
    rng = np.random.default_rng(4)
    N, k, B = 12, 3, 40_000
    xhat = d.bootstrap_oob_table(N, N)
    for _ in range(3):
        cells = rng.integers(k, size=N)
        labels = (rng.random(N) < 0.4).astype(float)
        draws = rng.integers(N, size=(B, N))
        inbag = np.zeros((B, N), bool)
        np.put_along_axis(inbag, draws, True, axis=1)
        # per resample: cell vote counts from the bootstrap copy
        ones = np.zeros((B, k))
        tot = np.zeros((B, k))
        np.add.at(ones, (np.arange(B)[:, None], cells[draws]), labels[draws])
        np.add.at(tot, (np.arange(B)[:, None], cells[draws]), 1.0)
        pred1 = np.where(2 * ones > tot, 1.0, np.where(2 * ones < tot, 0.0, 0.5))[:, cells]  # (B, N)
        err = np.where(labels[None, :] == 1, 1 - pred1, pred1) * (~inbag)
        per_b = err.sum(1) / (N * (1 - 1 / N) ** N)
        nj = np.bincount(cells, minlength=k)
        mj = np.bincount(cells, weights=labels, minlength=k).astype(int)
        exact = xhat[nj, mj].sum()
        se = per_b.std(ddof=1) / math.sqrt(B)
        assert abs(per_b.mean() - exact) <= 3.5 * se
        # the .632 estimate against its definition on this sample: e^-1 × (brute-force training
        # error of the histogram classifier) + (1 - e^-1) × (resampled out-of-bag error)
        x632 = d.cell_values("bootstrap632", N, N)
        resub_brute = _histogram_error(cells, labels, k, np.ones(N, bool), np.arange(N)) / N
        sample_632 = math.exp(-1) * resub_brute + (1 - math.exp(-1)) * per_b
        assert abs(x632[nj, mj].sum() - sample_632.mean()) <= 3.5 * sample_632.std(ddof=1) / math.sqrt(B)


# ------------------------------------------------------------------ paper's tables
def test_table2_reproduced_cell_by_cell():
    ours = 50 * d.cell_values("bootstrap632", 50, 8)[:, :6]
    paper = _paper(d.PAPER_TABLE2)
    mask = np.isfinite(paper)
    # printed to 2 decimals (3-4 significant digits for the first column): half a unit of the last digit
    decimals = np.array([[len(f"{v}".split(".")[1]) if np.isfinite(v) else 2 for v in row] for row in paper])
    tol = 0.5 * 10.0 ** (-decimals) + 1e-9
    assert np.all(np.abs(ours - paper)[mask] <= tol[mask])


@pytest.fixture(scope="module")
def table1():
    return d.balanced_optimal(50, 10)


def test_table1_reproduced(table1):
    """Paper gauge (tau = 0.1, 117 literal steps from resubstitution, p grid of 201 points)."""
    ours = 50 * table1.x[:9, :6]
    paper = _paper(d.PAPER_TABLE1)
    mask = np.isfinite(paper)
    err = np.abs(ours - paper)[mask]
    assert np.all(err <= 0.007)           # 2-decimal rounding (0.005) plus ~0.0015 (see module docs)
    assert np.mean(err <= 0.005) >= 0.75  # most cells agree to the printed digits
    assert np.all(np.abs(ours[5] - paper[5]) <= 0.005)  # gauge-free row n = N/k
    assert table1.residual < 1e-6


def test_balanced_optimal_gauge_invariance(table1):
    x = table1.x
    # totals unchanged by the gauge: S(p) identical for both representatives
    p = np.linspace(0, 1, 5)
    s1 = d.moments(x, 50, 10, p).S
    s2 = d.moments(np.nan_to_num(table1.gauge_free), 50, 10, p).S
    assert np.allclose(s1, s2, rtol=1e-9, atol=1e-12)


def test_balanced_optimal_converges_where_the_newton_step_cycles():
    """N = 20, k = 4: the plain projected iteration cycles (residual 0.009 after 3000 steps); the
    balance condition itself is checked here, on the returned table: delta+ + delta- over p is the
    same multiple of the gauge direction for every relevant cell."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", d.BalancedOptimalWarning)
        res = d.balanced_optimal(20, 4)
    assert res.residual < 1e-6 and res.iterations < 3000
    # independent check of balance: dDelta/dx_mn by central differences of the exact moments (Delta
    # is quadratic in x) over a grid of p. Row n = N/k is gauge-free and must be balanced exactly
    # (largest improvement = largest worsening); elsewhere the imbalance is the gauge drift, whose
    # sign is that of n - N/k.
    x = np.nan_to_num(res.x)
    p_grid = np.linspace(0, 1, 201)
    for n, m in [(5, 0), (5, 1), (5, 2), (2, 1), (3, 0), (7, 3), (8, 2)]:
        xp, xm = x.copy(), x.copy()
        xp[n, m] += 1e-6
        xm[n, m] -= 1e-6
        deriv = (d.moments(xp, 20, 4, p_grid).delta - d.moments(xm, 20, 4, p_grid).delta) / 2e-6
        imbalance = (deriv.max() + deriv.min()) / np.abs(deriv).max()
        if n == 5:
            assert abs(imbalance) < 1e-3, (n, m, imbalance)
        else:
            assert np.sign(imbalance) == np.sign(n - 5) and abs(imbalance) < 0.3, (n, m, imbalance)


def test_balanced_optimal_warns_at_max_iter():
    with pytest.warns(d.BalancedOptimalWarning, match="max_iter=5"):
        res = d.balanced_optimal(20, 4, max_iter=5)
    assert res.residual > 1e-7


def test_fig2_shape_claims():
    """Paper: resubstitution is best at small p but worst near 0.5; x* and .632 are close."""
    p = np.array([0.02, 0.5])
    S = {m: d.rms_deviation(m, 50, 10, p) for m in ("resubstitution", "loo", "bootstrap632")}
    assert S["resubstitution"][0] < S["loo"][0] and S["resubstitution"][0] < S["bootstrap632"][0]
    assert S["resubstitution"][1] > S["loo"][1] and S["resubstitution"][1] > S["bootstrap632"][1]


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("call,name", [
    (lambda: d.rms_deviation("loo", 0, 3, 0.2), "N"),
    (lambda: d.rms_deviation("loo", 10, 0, 0.2), "k"),
    (lambda: d.rms_deviation("loo", 10, 3, 1.5), "p"),
    (lambda: d.rms_deviation("loo", 10, 3, -0.1), "p"),
    (lambda: d.rms_deviation("loo", 10, 3, [0.2, 2.0]), "p"),
    (lambda: d.rms_deviation("nope", 10, 3, 0.2), "method"),
    (lambda: d.cell_values("nope", 10, 5), "method"),
    (lambda: d.cell_values("loo", 0, 5), "N"),
    (lambda: d.cell_values("loo", 10, -1), "n_max"),
    (lambda: d.cell_values("balanced_optimal", 10, 5), "k"),
    (lambda: d.cell_values("bootstrap632", 1, 1), "N"),
    (lambda: d.rms_deviation("loo", 2.5, 3, 0.2), "N"),
])
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ------------------------------------------------------------------ Monte Carlo S with its standard error
@pytest.mark.parametrize("method,N,k,p", [("resubstitution", 20, 4, 0.3), ("loo", 24, 3, 0.35),
                                          ("bootstrap632", 16, 5, 0.1)])
def test_simulated_rms_deviation_agrees_with_the_exact_S(method, N, k, p):
    S, se = d.simulate_rms_deviation(d.cell_values(method, N, N, k=k), N, k, p, 100_000, random_state=3)
    exact = d.rms_deviation(method, N, k, p)
    assert 0 < se < 0.02 * exact
    assert abs(S - exact) <= 3 * se
    # the standard error is the spread of S over independent runs (delta method)
    runs = [d.simulate_rms_deviation(d.cell_values(method, N, N, k=k), N, k, p, 2_000, random_state=s)[0]
            for s in range(200)]
    se_small = d.simulate_rms_deviation(d.cell_values(method, N, N, k=k), N, k, p, 2_000, random_state=0)[1]
    assert np.std(runs, ddof=1) == pytest.approx(se_small, rel=0.25)


def test_simulated_rms_deviation_is_exact_where_f_equals_g():
    # resubstitution at p = 0 in one cell: f = g = 0 on every draw
    assert d.simulate_rms_deviation(d.cell_values("resubstitution", 5, 5, k=1), 5, 1, 0.0, 100) == (0.0, 0.0)
    with pytest.raises(d.InvalidParameterError, match="n_samples"):
        d.simulate_rms_deviation(d.cell_values("loo", 5, 5), 5, 2, 0.3, 1)


def test_simulated_curve_is_the_simulation_at_each_p_and_meets_the_exact_S():
    N, k, p = 30, 4, np.array([0.1, 0.35, 0.5, 0.8])
    x = d.cell_values("loo", N, N, k=k)
    S, se = d.simulate_rms_deviation_curve(x, N, k, p, 20_000, random_state=5)
    assert S.shape == se.shape == (4,) and np.all(se > 0)
    # each point is its own simulation, seeded random_state + i
    assert (S[2], se[2]) == d.simulate_rms_deviation(x, N, k, 0.5, 20_000, random_state=7)
    exact = d.rms_deviation("loo", N, k, p)
    assert np.all(np.abs(S - exact) <= 4 * se), (S, exact, se)
    with pytest.raises(d.InvalidParameterError, match="p"):
        d.simulate_rms_deviation_curve(x, N, k, [0.2, 1.5], 100)
