"""The 2-D projection of d > 2 data fitted on T (buviz.projection)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from buviz._validation import InvalidParameterError
from buviz.projection import fit_projection


def _anisotropic(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 5)) * np.array([5.0, 2.0, 0.3, 0.2, 0.1]) + 3.0


def test_pca_finds_the_two_widest_axes_and_their_variance_share():
    X = _anisotropic()
    p = fit_projection(X)
    assert p.method == "pca" and p.axis_names == ("PC1", "PC2")
    # the leading directions are the first two coordinate axes (up to sign, fixed positive)
    np.testing.assert_allclose(np.abs(p.components[:, :2]), np.eye(2), atol=0.05)
    np.testing.assert_allclose(p.components @ p.components.T, np.eye(2), atol=1e-12)
    share = X.var(axis=0, ddof=1)[:2] / X.var(axis=0, ddof=1).sum()
    np.testing.assert_allclose(p.explained_variance_ratio, share, rtol=0.05)
    Z = p.transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-9)  # centred on T's mean
    np.testing.assert_allclose(Z.var(axis=0, ddof=1), np.linalg.svd(X - X.mean(0), compute_uv=False)[:2] ** 2
                               / (len(X) - 1), rtol=1e-9)


def test_lda_finds_a_class_difference_in_a_narrow_direction_that_pca_misses():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 5)) * np.array([5.0, 4.0, 3.0, 0.2, 2.0])
    y = np.repeat([0, 1], 300)
    X[y == 1, 3] += 1.0  # the classes differ only along the narrowest axis
    lda, pca = fit_projection(X, y, method="lda"), fit_projection(X, y)

    def separation(p):
        z = p.transform(X)[:, 0]
        return abs(z[y == 1].mean() - z[y == 0].mean()) / z.std()

    assert lda.axis_names == ("LD1", "PC1⊥")
    assert abs(lda.components[0, 3]) > 0.9  # LD1 is the narrow axis
    assert separation(lda) > 1.5 and separation(pca) < 0.2
    np.testing.assert_allclose(lda.components @ lda.components.T, np.eye(2), atol=1e-9)


def test_lda_with_three_classes_has_two_discriminant_axes():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = np.repeat([0, 1, 2], 100)
    X[y == 1, 2] += 3
    X[y == 2, 3] += 3
    p = fit_projection(X, y, method="lda")
    assert p.axis_names == ("LD1", "LD2")
    # the plane holds the two shifted axes
    np.testing.assert_allclose(np.linalg.norm(p.components[:, 2:], axis=1), 1.0, atol=0.1)


def test_two_features_are_shown_unchanged():
    X = _anisotropic()[:, :2]
    p = fit_projection(X, method="lda", y=np.arange(len(X)) % 2)
    assert p.method == "identity"
    np.testing.assert_array_equal(p.transform(X), X)


@pytest.mark.parametrize("kwargs, word", [
    ({"method": "tsne"}, "method"),
    ({"method": "lda"}, "y is required"),
    ({"method": "lda", "y": np.zeros(400)}, "two classes"),
])
def test_bad_input_names_the_parameter(kwargs, word):
    with pytest.raises(InvalidParameterError, match=word):
        fit_projection(_anisotropic(), **kwargs)


def test_transform_checks_the_width():
    p = fit_projection(_anisotropic())
    with pytest.raises(InvalidParameterError, match="X must have shape"):
        p.transform(np.zeros((3, 4)))


def test_projection_imports_no_gui_library():
    code = ("import sys, buviz.projection; "
            "print(' '.join(m for m in sys.modules if m.split('.')[0] in ('panel', 'holoviews', 'bokeh')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
