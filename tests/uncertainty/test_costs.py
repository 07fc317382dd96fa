import math

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from buviz import datasets
from buviz.classifiers import as_discriminant, svm_status
from buviz.uncertainty import BoundaryUncertainty, OpCounts, Proposal1, gains, proposal1_costs, proposal2_costs
from buviz.uncertainty.costs import TABLE3_PRINTED, table3
from buviz.uncertainty.opcounts import distance_ops


def linear_disc():
    def g(X):
        s = X[:, 0] + X[:, 1]
        return np.column_stack([-s, s])
    return as_discriminant(g, n_classes=2)


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(30, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    y[:3] = 1 - y[:3]
    return X, y


def test_distance_ops_by_hand():
    # ||a - b||² in 3-D: 3 subtractions + 2 additions, 3 squares
    c = distance_ops(4, 3)
    assert (c.add, c.mul, c.comp) == (20, 12, 0)


def test_proposal1_counts_by_hand_on_a_tiny_problem(tiny):
    X, y = tiny
    R_A, i_max, R_T = 4, 3, 2  # N = 30, d = 2, J = 2
    p1 = Proposal1(R_A=R_A, i_max=i_max, R_T=R_T, N_max=40, N_min=0, random_state=0).fit(X, y)
    disc = linear_disc()
    r = p1.evaluate(disc)
    c = r.costs
    # classify T once: N samples, arg-max over J = 2 -> 1 comparison each
    assert c["predict_T"] == OpCounts(comp=30, cl_calls=1, cl_samples=30)
    # 3 bisection steps on 4 pairs: midpoint 4·2 adds + 4·2 muls, arg-max 4, two class tests 8;
    # final interpolation: f at both ends 8 adds, f_a − f_b 4 adds, x_b − x_a and x_a + t·(…) 16 adds,
    # t = f_a / (…) 4 muls, t·(x_b − x_a) 8 muls, den > 0 4 comparisons
    assert c["anchors"] == OpCounts(add=3 * 8 + 28, mul=3 * 8 + 12, comp=3 * 12 + 4, cl_calls=3, cl_samples=12)
    # 1-NN by KD-tree: ⌈log2 30⌉ = 5 distances (3 adds, 2 muls) and 5 comparisons per anchor
    assert c["nearest_neighbour"] == OpCounts(add=4 * 5 * 3, mul=4 * 5 * 2, comp=4 * 5)
    # at most 4 near-boundary samples <= N_max: no split, one cluster per run (N_min = 0)
    n_B = len(r.near_boundary)
    assert r.tdc_levels == 0 and c["tdc"] == OpCounts()
    assert [len(s) for s in r.cluster_sizes] == [1, 1]
    # per run: label counts 2·n_B adds; one cluster: top-2 of J=2 -> 1 comparison (+ n_B label tests),
    # share and entropy 4 adds, 5 muls, 2 logs; eq 10: 1 add, 1 mul; eq 11: R_T adds, 1 mul
    per_run = OpCounts(add=2 * n_B + 4 + 1, mul=5 + 1, comp=1 + n_B, log=2)
    assert c["entropy"] == per_run * 2 + OpCounts(add=2, mul=1)
    total = proposal1_costs(r)
    assert total.cl_calls == r.classifier_calls == disc.n_calls == 4
    assert total.cl_samples == r.classified_samples == disc.n_evaluated == 30 + 12
    assert total.add == 52 + 60 + 2 * (2 * n_B + 5) + 2
    assert total.exp == 0


def test_tdc_counts_by_hand():
    # Two points, N_max = 1: one 2-means on each run; its seeds are the two points, so it converges
    # at the second assignment. 2 iterations x (2·2 distances + 4 comparisons) + 1 centroid update.
    p1 = Proposal1(R_T=3, N_max=1, N_min=0, i_K=20)
    costs = {}
    labels, levels = p1._tdc(np.array([[0.0, 0.0], [1.0, 0.5]]), np.random.default_rng(0), costs)
    assert levels == 1
    assert all(len(set(row)) == 2 for row in labels)
    d, m, C = 2, 6, 3  # 3 runs x 2 points, 3 clusters split together
    per_iter = distance_ops(2 * m, d) + OpCounts(comp=2 * m)
    assert costs["tdc"] == per_iter * 2 + OpCounts(add=m * (d + 1), mul=2 * C * d)
    assert costs["tdc"] == OpCounts(add=2 * 12 * 3 + 18, mul=2 * 12 * 2 + 12, comp=24)
    # Four points in two tight pairs, N_max = 2: always 2 iterations, whatever the seeds.
    costs = {}
    X4 = np.array([[0.0, 0.0], [0.0, 0.1], [10.0, 0.0], [10.0, 0.1]])
    for seed in range(5):
        costs = {}
        labels, levels = Proposal1(R_T=1, N_max=2, N_min=0)._tdc(X4, np.random.default_rng(seed), costs)
        assert levels == 1 and np.bincount(labels[0] - labels[0].min()).max() == 2
        assert costs["tdc"] == OpCounts(add=2 * 8 * 3 + 4 * 3, mul=2 * 8 * 2 + 4, comp=16)


def test_paper_formulas_by_hand():
    # N = 1024, N_max = 32: log2 N = 10, log2(N/N_max) = 5
    p1 = proposal1_costs(N=1024, d=2, J=2, N_max=32)
    assert p1.add == 1024 * 20 * 2 + 1024 * 10 + 10 * 20 * 2 * 1024 * 5
    assert p1.mul == 1024 * 10 + 10 * 20 * 2 * 1024 * 5
    assert p1.comp == 1024 * 20 * 2 * 1
    assert p1.cl_samples == 1024 * 20
    p2 = proposal2_costs(N=1024, M=40, J=2)
    assert (p2.add, p2.mul, p2.exp, p2.comp, p2.cl_samples) == (40960, 40960, 40960, 2048, 1024)
    g = gains(p1, p2)
    assert g.loc["add", "gain"] == pytest.approx(p1.add / 40960)
    assert g.loc["comp", "gain"] == 20 and g.loc["CL", "gain"] == 20
    assert math.isnan(g.loc["exp", "gain"])  # no exponentials in Proposal 1 (§6.10.1)


def test_proposal2_counted_by_hand():
    # J = 2, N = 10, M = 4: per row 5M+3 adds, 7M+9 muls, 4M+3 comps, M exps; per sample 8 adds,
    # 5 muls, J+4 comps; plus f = g1 − g2 (N adds); one call on T̃.
    c = proposal2_costs(N=10, M=4, J=2, mode="counted")
    assert c == OpCounts(add=10 * (23 + 8) + 10, mul=10 * (37 + 5), comp=10 * (19 + 6), exp=40,
                         cl_calls=1, cl_samples=10)
    c3 = proposal2_costs(N=10, M=4, J=3, mode="counted")
    assert c3.cl_samples == 20 and c3.cl_calls == 2
    assert c3.add == 10 * 31 + 10 + 40 and c3.comp == 10 * (19 + 7) + 10 * 3
    with pytest.raises(ValueError, match="mode"):
        proposal2_costs(N=10, M=4, J=2, mode="other")


def test_counts_from_fitted_objects_match_their_sizes():
    ds = datasets.load("gmm", n_train=300, n_test=100, random_state=0)
    X, y = ds.X_train, ds.y_train
    disc = svm_status(X, y, 1.0)
    bu = BoundaryUncertainty(M=20, random_state=0).fit(X, y)
    r2 = bu.evaluate(disc)
    assert proposal2_costs(r2) == proposal2_costs(N=300, M=20, J=2)
    assert proposal2_costs(bu, mode="counted") == proposal2_costs(N=300, M=20, J=2, mode="counted")
    p1 = Proposal1(random_state=0).fit(X, y)
    assert proposal1_costs(p1) == proposal1_costs(N=300, d=2, J=2)
    r1 = p1.evaluate(disc)
    g = gains(proposal1_costs(r1), proposal2_costs(r2, mode="counted"))
    assert g.loc["CL", "gain"] == pytest.approx(21.0)  # (N + R_A·i_max) / N with R_A = N
    assert g.loc["CL_calls", "gain"] == 21.0
    # the counted TDC work is bounded by its actual size: R_T runs, n_B points, i_K iterations per level
    r1 = Proposal1(N_max=10, N_min=2, random_state=0).fit(X, y).evaluate(disc)
    n_B, bound = len(r1.near_boundary), distance_ops(2 * 10 * len(r1.near_boundary), 2)
    assert r1.tdc_levels >= 1
    assert 0 < r1.costs["tdc"].mul <= (bound.mul + 2 * 10 * n_B * 2) * 20 * r1.tdc_levels
    assert list(g.columns) == ["proposal1", "proposal2", "gain"]


def test_table3_reproduced_from_the_formulas():
    t = table3()
    assert np.allclose(t["G_comp"], 20) and np.allclose(t["G_CL"], 20)

    def one_digit(x):
        return float(f"{x:.0e}")

    for name in ["Abalone", "Letter Recognition", "Landsat", "Spambase"]:
        assert one_digit(t.loc[name, "G_add"]) == TABLE3_PRINTED[name][0]
        assert one_digit(t.loc[name, "G_mul"]) == TABLE3_PRINTED[name][1]
    # Cardiotocography: 8E+02 from the formulas, 7E+02 printed
    assert t.loc["Cardiotocography", "G_add"] == pytest.approx(7e2, rel=0.25)


@pytest.mark.parametrize("kwargs, name", [
    (dict(N=0, d=2, J=2), "N"), (dict(N=10, d=0, J=2), "d"), (dict(N=10, d=2, J=1), "J"),
    (dict(N=10, d=2, J=2, i_max=0), "i_max"),
])
def test_bad_cost_inputs(kwargs, name):
    with pytest.raises(ValueError, match=name):
        proposal1_costs(**kwargs)
    with pytest.raises(NotFittedError, match="fit"):
        proposal1_costs(Proposal1())
    with pytest.raises(ValueError, match="source"):
        proposal2_costs("x", N=10, J=2)


def test_counted_costs_follow_where_the_pair_is_read():
    """For J > 2 the pair read at x costs one classifier evaluation on T more than at x̃, as evaluate does."""
    from buviz import datasets
    from buviz.classifiers import as_discriminant, svm_status
    from buviz.uncertainty import BoundaryUncertainty, proposal2_costs

    ds = datasets.load("gmm3", n_train=200, n_test=0, random_state=0)
    status = svm_status(ds.X_train, ds.y_train, 1.0)
    for pair_at, calls in (("x", 2), ("x_tilde", 1)):
        bu = BoundaryUncertainty(M=10, pair_at=pair_at).fit(ds.X_train, ds.y_train)
        disc = as_discriminant(status.estimator, n_classes=3)
        bu.evaluate(disc)
        counted = proposal2_costs(bu, mode="counted")
        assert counted.cl_calls == calls == disc.n_calls
        assert counted.cl_samples == calls * 200 == disc.n_evaluated
