"""The MLP of Fig 9 (Ha et al. 2021, §6.1) trained with RMSProp in PyTorch: buviz.classifiers.rmsprop_mlp_statuses."""

import numpy as np
import pytest

from buviz._validation import InvalidParameterError
from buviz.classifiers import rmsprop_mlp_statuses

torch = pytest.importorskip("torch")


def _blobs(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.normal(size=(n, 2)) * 0.6 + np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])[y]
    return X, y


def test_statuses_are_snapshots_that_learn_the_classes():
    X, y = _blobs()
    statuses = list(rmsprop_mlp_statuses(X, y, [1, 30], hidden_layer_sizes=(16, 8), batch_size=16, random_state=0))
    assert [e for e, _ in statuses] == [1, 30]
    (_, first), (_, last) = statuses
    g1, g30 = first(X), last(X)
    # g = log P(C_j | x): each row's probabilities sum to 1
    np.testing.assert_allclose(np.exp(g30).sum(axis=1), 1.0, rtol=1e-5)
    # training on after epoch 1 does not change the epoch-1 snapshot, and 30 epochs separate the blobs
    again = list(rmsprop_mlp_statuses(X, y, [1], hidden_layer_sizes=(16, 8), batch_size=16, random_state=0))
    np.testing.assert_array_equal(again[0][1](X), g1)
    acc1, acc30 = np.mean(g1.argmax(axis=1) == y), np.mean(g30.argmax(axis=1) == y)
    assert acc30 > 0.95 and acc30 >= acc1 and not np.array_equal(g1, g30)


def test_a_fold_keeps_the_output_layer_of_the_whole_set():
    X, y = _blobs()
    keep = y < 2  # a subset in which class 2 is missing
    (_, d), = rmsprop_mlp_statuses(X[keep], y[keep], 2, n_classes=3, hidden_layer_sizes=(8,), random_state=1)
    assert d.n_classes == 3 and d(X).shape == (len(X), 3)


def test_bad_input_is_refused():
    X, y = _blobs()
    with pytest.raises(InvalidParameterError, match="epochs"):
        next(rmsprop_mlp_statuses(X, y, [0]))
    with pytest.raises(InvalidParameterError, match="0..1"):
        next(rmsprop_mlp_statuses(X, y, [1], n_classes=2))
