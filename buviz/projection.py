"""Two-dimensional views of data with more than two features: a linear projection fitted on T.

The sample-space views of boundary uncertainty (Ha et al. 2021, Figs 4, 10, 14, 15) are drawn in the
plane of the first two features. For d > 2 they are drawn in a plane fitted on the training set
T instead: its first two principal components (PCA, the default), or Fisher's linear discriminant
directions (LDA), completed by the leading principal direction orthogonal to them when there are
fewer than two (two classes give one discriminant direction).

The projection is linear, so every point of T, T̃ and X_te is shown by the same map
``z = (x − mean) @ components.T``. It is a picture of the data, never an input of an estimate: Û,
the weights and f(x;Λ) are computed in the full d-dimensional space.

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1

R. A. Fisher, "The use of multiple measurements in taxonomic problems", *Annals of Eugenics* 7(2),
179-188, 1936. https://doi.org/10.1111/j.1469-1809.1936.tb02137.x
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from buviz._validation import InvalidParameterError
from buviz._values import freeze_fields

__all__ = ["Projection", "fit_projection", "PROJECTION_METHODS"]

#: The projections :func:`fit_projection` knows.
PROJECTION_METHODS = ("pca", "lda")


@dataclass(frozen=True)
class Projection:
    """A linear map of R^d onto a plane, fitted on a training set.

    Attributes
    ----------
    method : {"pca", "lda", "identity"}
        How the plane was chosen ("identity" for two-feature data: the first two features).
    mean : ndarray of shape (d,)
        The training mean subtracted before projecting.
    components : ndarray of shape (2, d)
        Orthonormal rows spanning the plane.
    explained_variance_ratio : ndarray of shape (2,)
        Share of the total training variance along each component.
    axis_names : tuple of str
        Axis labels ("PC1", "PC2", "LD1", ...).
    """

    method: str
    mean: np.ndarray
    components: np.ndarray
    explained_variance_ratio: np.ndarray
    axis_names: tuple[str, str]

    def __post_init__(self):
        freeze_fields(self)  # read-only arrays (a writeable one handed in is copied)

    @property
    def axis_labels(self) -> tuple[str, str]:
        """Axis titles saying what each axis is: a principal axis with its share of the training
        variance ("PC1 (37 % of the variance)"), a discriminant axis as such ("LD1 (discriminant
        axis)": LDA picks directions that separate the classes, not ones that carry variance), the
        principal axis completing a single discriminant one ("PC1⊥ (principal axis ⊥ LD1)")."""
        out = []
        for name, share in zip(self.axis_names, self.explained_variance_ratio, strict=True):
            if name.startswith("LD"):
                out.append(f"{name} (discriminant axis)")
            elif name.endswith("⊥"):
                out.append(f"{name} (principal axis ⊥ LD1)")
            else:
                out.append(f"{name} ({100 * share:.0f} % of the variance)")
        return out[0], out[1]

    def transform(self, X) -> np.ndarray:
        """Return the coordinates of ``X`` in the plane.

        Parameters
        ----------
        X : array-like of shape (n_samples, d)
            Samples with the features of the training set.

        Returns
        -------
        ndarray of shape (n_samples, 2)

        Raises
        ------
        InvalidParameterError
            If ``X`` does not have d columns.
        """
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != len(self.mean):
            raise InvalidParameterError(f"X must have shape (n_samples, {len(self.mean)}), got {X.shape}")
        return (X - self.mean) @ self.components.T


def _principal_axes(Xc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal directions (rows, sign fixed: largest loading positive) and variances of centred data."""
    _, s, vt = np.linalg.svd(Xc, full_matrices=False)
    signs = np.sign(vt[np.arange(len(vt)), np.argmax(np.abs(vt), axis=1)])
    signs[signs == 0] = 1.0
    return vt * signs[:, None], s**2 / max(len(Xc) - 1, 1)


def fit_projection(X, y=None, method: str = "pca") -> Projection:
    """Fit a plane for showing ``X`` in two dimensions.

    Parameters
    ----------
    X : array-like of shape (n_samples, d)
        The training samples T (d >= 2).
    y : array-like of shape (n_samples,), optional
        Class labels; required for ``method="lda"``.
    method : {"pca", "lda"}, default="pca"
        ``"pca"``: the two leading principal directions of T. ``"lda"``: Fisher's discriminant
        directions (scikit-learn's ``LinearDiscriminantAnalysis``, orthonormalised), completed by the
        leading principal direction orthogonal to them when J = 2 gives only one. For d = 2 both
        return the first two features unchanged (``method="identity"``), so the d = 2 maps keep
        their axes.

    Returns
    -------
    Projection

    Raises
    ------
    InvalidParameterError
        If ``method`` is unknown, ``X`` has fewer than two features or rows, or ``y`` is missing or
        has one class for LDA.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5)) * [5.0, 2.0, 0.1, 0.1, 0.1]
    >>> p = fit_projection(X)
    >>> p.axis_names, p.transform(X).shape
    (('PC1', 'PC2'), (200, 2))
    """
    if method not in PROJECTION_METHODS:
        raise InvalidParameterError(f"method must be one of {PROJECTION_METHODS}, got {method!r}")
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] < 2 or len(X) < 2:
        raise InvalidParameterError(f"X must have at least two rows and two features, got shape {X.shape}")
    d = X.shape[1]
    mean = X.mean(axis=0)
    Xc = X - mean
    total = float(np.sum(Xc.var(axis=0, ddof=1))) or 1.0
    if d == 2:
        comps = np.eye(2)
        return Projection("identity", np.zeros(2), comps, Xc.var(axis=0, ddof=1) / total, ("x1", "x2"))
    if method == "pca":
        axes, var = _principal_axes(Xc)
        comps = axes[:2]
        names = ("PC1", "PC2")
    else:
        if y is None:
            raise InvalidParameterError("y is required for method='lda'")
        y = np.asarray(y)
        if len(y) != len(X) or len(np.unique(y)) < 2:
            raise InvalidParameterError("y must give one label per row of X and hold at least two classes")
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

        n_lda = min(2, len(np.unique(y)) - 1, d)
        lda = LinearDiscriminantAnalysis(n_components=n_lda, solver="eigen", shrinkage=1e-6).fit(X, y)
        q, _ = np.linalg.qr(np.asarray(lda.scalings_[:, :n_lda], dtype=float))
        comps = q.T
        names = tuple(f"LD{k + 1}" for k in range(n_lda))
        if n_lda < 2:  # complete with the leading principal direction of what LD1 leaves
            resid = Xc - (Xc @ comps.T) @ comps
            pc, _ = _principal_axes(resid)
            comps = np.vstack([comps, pc[:1]])
            names = (*names, "PC1⊥")
    var = np.var(Xc @ comps.T, axis=0, ddof=1)
    return Projection(method, mean, comps, var / total, (names[0], names[1]))
