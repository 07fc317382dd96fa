"""The per-chunk kernel of eq 27-28 (buviz.uncertainty._kernel): one code path for numpy and torch.

Checked against a row-by-row transcription with ``np.percentile`` and ``scipy.stats.norm``, and the
torch path (CPU) against the numpy path to 1e-10.
"""

import pickle

import numpy as np
import pytest
from scipy.stats import norm

from buviz import datasets
from buviz.classifiers import svm_status
from buviz.uncertainty import BoundaryUncertainty
from buviz.uncertainty._kernel import chunk_kernel, neighbourhood_values, silverman_bandwidth


def _problem(J, N=300, M=12, seed=0):
    """Random discriminants on T̃, neighbourhoods and labels; a few rows see one constant f (h = 0)."""
    rng = np.random.default_rng(seed)
    g = rng.normal(size=(N, J))
    nbr = np.column_stack([np.arange(N), rng.integers(0, N, size=(N, M - 1))])
    flat = np.arange(0, N, 37)
    nbr[flat] = flat[:, None]  # every member is x itself: F constant on the row ...
    g[flat] = np.round(4 * g[flat]) / 4  # ... and exactly so (dyadic values: σ̂ = 0 without rounding)
    y = rng.integers(0, J, size=N)
    labels = y[nbr].astype(np.int8)
    if J == 2:
        pi, pj = np.zeros(N, np.intp), np.ones(N, np.intp)
    else:
        order = np.argsort(-g, axis=1)
        pi, pj = np.minimum(order[:, 0], order[:, 1]), np.maximum(order[:, 0], order[:, 1])
    f_all = g[:, 0] - g[:, 1] if J == 2 else None
    return g, f_all, nbr, labels, pi, pj, flat


def _by_hand(g, nbr, labels, pi, pj):
    """Eq 27-28 and 32 row by row: h_x from np.std / np.percentile, φ from scipy."""
    N, M = nbr.shape
    h, ki, kj = np.zeros(N), np.zeros(N), np.zeros(N)
    for x in range(N):
        F = g[nbr[x], pi[x]] - g[nbr[x], pj[x]]
        sd = F.std(ddof=1)
        q1, q3 = np.percentile(F, [25, 75])
        spread = min(sd, (q3 - q1) / 1.34)
        h[x] = 0.9 * (spread if spread > 0 else sd) * M ** -0.2
        if h[x] > 0:
            phi = norm.pdf((0.0 - F) / h[x])
            ki[x] = phi[labels[x] == pi[x]].sum()
            kj[x] = phi[labels[x] == pj[x]].sum()
    return h, ki, kj


@pytest.mark.parametrize("J", [2, 3, 5])
def test_chunk_kernel_equals_row_by_row_transcription(J):
    g, f_all, nbr, labels, pi, pj, flat = _problem(J)
    rows = slice(20, 250)
    h, ki, kj = chunk_kernel(rows, g, f_all, nbr, labels, pi, pj)
    h_ref, ki_ref, kj_ref = (a[rows] for a in _by_hand(g, nbr, labels, pi, pj))
    np.testing.assert_allclose(h, h_ref, rtol=1e-12)
    np.testing.assert_allclose(ki, ki_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(kj, kj_ref, rtol=1e-9, atol=1e-12)
    inside = flat[(flat >= 20) & (flat < 250)] - 20
    assert np.all(h[inside] == 0) and np.all(ki[inside] == 0) and np.all(kj[inside] == 0)


def test_neighbourhood_values_and_bandwidth_match_their_equations():
    g, _, nbr, _, pi, pj, _ = _problem(3)
    F = neighbourhood_values(g, nbr, pi, pj, np.array([5]))
    np.testing.assert_array_equal(F[0], g[nbr[5], pi[5]] - g[nbr[5], pj[5]])
    # h_x scales with f (eq 32 is scale-equivariant)
    F_all = neighbourhood_values(g, nbr, pi, pj)
    np.testing.assert_allclose(silverman_bandwidth(3.0 * F_all), 3.0 * silverman_bandwidth(F_all), rtol=1e-12)


@pytest.mark.parametrize("J", [2, 3])
def test_torch_kernel_agrees_with_numpy(J):
    torch = pytest.importorskip("torch")
    g, f_all, nbr, labels, pi, pj, _ = _problem(J, N=500, M=16, seed=J)
    rows = slice(0, 500)
    ref = chunk_kernel(rows, g, f_all, nbr, labels, pi, pj)
    got = chunk_kernel(rows, *(None if a is None else torch.as_tensor(a)
                               for a in (g, f_all, nbr.astype(np.int64), labels.astype(np.int64), pi, pj)))
    for a, b in zip(got, ref, strict=True):
        assert a.dtype == torch.float64
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("name", ["gmm", "gmm3"])
def test_torch_backend_leaves_the_estimator_untouched_and_picklable(name):
    torch = pytest.importorskip("torch")
    ds = datasets.load(name, n_train=300, n_test=0, random_state=0)
    d = svm_status(ds.X_train, ds.y_train, 2.0)
    device = "cpu" if name == "gmm" else torch.device("cpu")  # a name or a torch.device
    bu = BoundaryUncertainty(M=15, array_backend="torch", device=device, chunk_size=64).fit(ds.X_train, ds.y_train)
    before = set(vars(bu))
    got = bu.evaluate(d)
    assert set(vars(bu)) == before  # nothing cached on the estimator
    ref = BoundaryUncertainty(M=15).fit(ds.X_train, ds.y_train).evaluate(d)
    assert got.value == pytest.approx(ref.value, abs=1e-10)
    np.testing.assert_allclose(got.k, ref.k, rtol=1e-10, atol=1e-300)
    again = pickle.loads(pickle.dumps(bu)).evaluate(d)
    assert again.value == pytest.approx(got.value, abs=1e-12)


def test_a_constant_row_has_zero_bandwidth_whatever_its_value():
    """h_x = 0 exactly on a constant neighbourhood (§4.4.2), also where its mean is not representable
    (numpy's σ̂ of forty copies of −0.9669447289429418 is about 1e-16, not 0)."""
    value = -0.9669447289429418
    assert np.full(40, value).std(ddof=1) > 0  # the rounding this test is about
    F = np.vstack([np.full(40, value), np.full(40, 0.1), np.linspace(0, 1, 40)])
    h = silverman_bandwidth(F)
    assert h[0] == 0 and h[1] == 0 and h[2] > 0
