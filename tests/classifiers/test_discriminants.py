import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC

from buviz import classifiers
from buviz.classifiers import PrototypeClassifier, as_discriminant, svm_status, top2


def test_svc_discriminant_two_classes_orders_columns_like_predict(gmm_small):
    ds = gmm_small
    d = svm_status(ds.X_train, ds.y_train, gamma=1.0)
    g = d(ds.X_test)
    assert g.shape == (len(ds.X_test), 2)
    np.testing.assert_array_equal(np.argmax(g, 1), d.estimator.predict(ds.X_test))
    np.testing.assert_allclose(g[:, 1], -g[:, 0])


def test_multiclass_svc_and_proba_adapters():
    from buviz import datasets

    ds = datasets.load("gmm3", 300, 300, random_state=0)
    svc = SVC(gamma=1.0, decision_function_shape="ovr").fit(ds.X_train, ds.y_train)
    g = as_discriminant(svc)(ds.X_test)
    assert g.shape == (300, 3)
    np.testing.assert_array_equal(np.argmax(g, 1), svc.predict(ds.X_test))
    nb = GaussianNB().fit(ds.X_train, ds.y_train)
    g = as_discriminant(nb)(ds.X_test)  # predict_proba only: g = P (top-2 posterior difference)
    np.testing.assert_allclose(g, nb.predict_proba(ds.X_test))
    g = as_discriminant(nb, response="log_proba")(ds.X_test)
    np.testing.assert_allclose(g, np.log(np.clip(nb.predict_proba(ds.X_test), 1e-300, None)))


def test_prototype_classifier_is_minus_distance_to_nearest_prototype():
    pbc = PrototypeClassifier.from_prototypes([np.array([[0.0, 0.0], [4.0, 0.0]]), np.array([[2.0, 0.0]])])
    g = pbc.decision_function(np.array([[0.5, 0.0], [3.9, 0.0], [2.2, 0.0]]))
    np.testing.assert_allclose(g, [[-0.5, -1.5], [-0.1, -1.9], [-1.8, -0.2]])
    np.testing.assert_array_equal(as_discriminant(pbc).predict([[3.9, 0.0], [2.2, 0.0]]), [0, 1])


def test_top2_orders_pair():
    g = np.array([[0.0, 5.0, 3.0], [9.0, 1.0, 2.0]])
    i, j = top2(g)
    np.testing.assert_array_equal(i, [1, 0])
    np.testing.assert_array_equal(j, [2, 2])


def test_mlp_statuses_are_snapshots(gmm_small):
    ds = gmm_small
    statuses = list(classifiers.mlp_statuses(ds.X_train, ds.y_train, [1, 5], hidden_layer_sizes=(16,)))
    assert [e for e, _ in statuses] == [1, 5]
    g1, g5 = (d(ds.X_test) for _, d in statuses)
    assert not np.allclose(g1, g5)


def test_bad_inputs():
    with pytest.raises(ValueError, match="gamma"):
        svm_status(np.zeros((4, 2)) + np.arange(4)[:, None], [0, 1, 0, 1], gamma=-1)
    with pytest.raises(ValueError, match="n_classes"):
        as_discriminant(lambda X: X)
    d = as_discriminant(lambda X: np.zeros((len(X), 3)), n_classes=2)
    with pytest.raises(ValueError, match="shape"):
        d(np.zeros((5, 2)))
