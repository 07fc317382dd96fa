"""Gaussian mixtures with exact class densities, and the paper-like mixtures of :mod:`buviz.datasets`.

Ha et al. (2021, §6.2) do not publish their Gaussian-mixture parameters; the paper datasets are
mixtures chosen to look like their figures (:func:`paper_mixture`), each with an exact density so that
posteriors, the Bayes boundary B* and the Bayes error are available. :mod:`buviz.datasets` re-exports
the public names and samples the data (``datasets.load("gmm")``).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from buviz._validation import InvalidParameterError, check_int, check_X
from buviz.grid import GridField, boundary_fields, grid_points

__all__ = ["GaussianMixture", "MIXTURE_NAMES", "paper_mixture"]


def _as_covariance(cov, d: int, where: str) -> np.ndarray:
    cov = np.asarray(cov, dtype=float)
    if cov.ndim == 0:
        cov = cov * np.eye(d)
    elif cov.ndim == 1:
        cov = np.diag(cov)
    if cov.shape != (d, d):
        raise InvalidParameterError(f"covariance of {where} must be ({d}, {d}), got shape {cov.shape}")
    if not np.all(np.isfinite(cov)):
        raise InvalidParameterError(f"covariance of {where} contains NaN or infinite values")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12):
        raise InvalidParameterError(f"covariance of {where} must be symmetric")
    eig = np.linalg.eigvalsh(cov)
    if eig.min() <= 1e-12 * max(1.0, eig.max()):
        raise InvalidParameterError(f"covariance of {where} must be positive definite "
                                    f"(smallest eigenvalue {eig.min():.3g})")
    return cov


class GaussianMixture:
    """A J-class model where each class density is a Gaussian mixture; every quantity is exact.

    Parameters
    ----------
    classes : list of list of tuple
        One entry per class, a list of components ``(weight, mean, covariance)``. Component
        weights within a class are normalised; covariances may be a scalar (isotropic), a vector
        (diagonal) or a full matrix, and must be symmetric positive definite.
    priors : array-like of shape (n_classes,), optional
        Class prior probabilities P(C_j); default equal.

    Raises
    ------
    InvalidParameterError
        If a class has no component, or a weight, mean, covariance or prior is invalid.
    """

    def __init__(self, classes, priors=None):
        if not isinstance(classes, list | tuple) or len(classes) < 2:
            raise InvalidParameterError("classes must be a list of at least two classes of components")
        d = None
        self.weights: list[np.ndarray] = []
        self.means: list[np.ndarray] = []
        self.covariances: list[np.ndarray] = []
        for j, comps in enumerate(classes):
            if not isinstance(comps, list | tuple) or len(comps) == 0:
                raise InvalidParameterError(f"class {j} must have at least one component (weight, mean, covariance)")
            w, mu, cov = [], [], []
            for c, comp in enumerate(comps):
                if len(comp) != 3:
                    raise InvalidParameterError(f"component {c} of class {j} must be (weight, mean, covariance)")
                wt, m, s = comp
                m = np.atleast_1d(np.asarray(m, dtype=float))
                if d is None:
                    d = m.shape[0]
                if m.shape != (d,) or not np.all(np.isfinite(m)):
                    raise InvalidParameterError(f"mean of class {j} component {c} must be {d} finite numbers")
                if not np.isfinite(wt) or wt <= 0:
                    raise InvalidParameterError(f"weight of class {j} component {c} must be positive, got {wt}")
                w.append(float(wt))
                mu.append(m)
                cov.append(_as_covariance(s, d, f"class {j} component {c}"))
            w = np.array(w)
            self.weights.append(w / w.sum())
            self.means.append(np.array(mu))
            self.covariances.append(np.array(cov))
        self.n_features = int(d)
        self.n_classes = len(classes)
        if priors is None:
            priors = np.full(self.n_classes, 1.0 / self.n_classes)
        priors = np.asarray(priors, dtype=float)
        if priors.shape != (self.n_classes,) or np.any(~np.isfinite(priors)) or np.any(priors <= 0):
            raise InvalidParameterError(f"priors must be {self.n_classes} positive numbers, got {priors}")
        self.priors = priors / priors.sum()
        self._chol = [np.linalg.cholesky(c) for c in self.covariances]

    # -- densities ----------------------------------------------------------------------------
    def log_class_densities(self, X) -> np.ndarray:
        """Return log p(x | C_j) for every row of X and every class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The log class-conditional densities.
        """
        X = check_X(X, n_features=self.n_features)
        out = np.empty((len(X), self.n_classes))
        d = self.n_features
        for j in range(self.n_classes):
            comp = np.empty((len(X), len(self.weights[j])))
            for c, (m, L) in enumerate(zip(self.means[j], self._chol[j], strict=True)):
                z = np.linalg.solve(L, (X - m).T)  # whitened residuals
                logdet = 2 * np.log(np.diag(L)).sum()
                comp[:, c] = -0.5 * (z * z).sum(0) - 0.5 * (d * np.log(2 * np.pi) + logdet)
            out[:, j] = logsumexp(comp + np.log(self.weights[j]), axis=1)
        return out

    def class_densities(self, X) -> np.ndarray:
        """Return the class-conditional densities p(x | C_j).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The densities.
        """
        return np.exp(self.log_class_densities(X))

    def log_joint(self, X) -> np.ndarray:
        """Return log P(C_j) p(x | C_j), the Bayes discriminants.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The log joint densities.
        """
        return self.log_class_densities(X) + np.log(self.priors)

    def density(self, X) -> np.ndarray:
        """Return the marginal density p(x).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        ndarray of shape (n_samples,)
            The density.
        """
        return np.exp(logsumexp(self.log_joint(X), axis=1))

    def posterior(self, X) -> np.ndarray:
        """Return the exact class posteriors P(C_j | x).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to 1.
        """
        lj = self.log_joint(X)
        return np.exp(lj - logsumexp(lj, axis=1, keepdims=True))

    def bayes_decision(self, X) -> np.ndarray:
        """Return the class with the highest posterior (the Bayes decision rule).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        ndarray of shape (n_samples,)
            Class indexes.
        """
        return np.argmax(self.log_joint(X), axis=1)

    def bayes_boundary(self, bounds, resolution: int = 200) -> dict[tuple[int, int], GridField]:
        """Return B*: per class pair, a grid field whose zero contour is where the top-2 posteriors are equal.

        Parameters
        ----------
        bounds : tuple of 4 floats
            ``(x0, y0, x1, y1)``.
        resolution : int, default=200
            Grid points per axis.

        Returns
        -------
        dict of (int, int) to GridField
            The fields of :func:`buviz.grid.boundary_fields` for the Bayes discriminants.

        Raises
        ------
        ValueError
            If the model does not have two features.
        """
        self._require_2d("bayes_boundary")
        xs, ys, pts = grid_points(bounds, resolution)
        return boundary_fields(self.log_joint(pts), xs, ys)

    # -- sampling ------------------------------------------------------------------------------
    def sample(self, n: int, random_state=None) -> tuple[np.ndarray, np.ndarray]:
        """Draw labelled samples: labels from the priors, then a component, then a Gaussian.

        Parameters
        ----------
        n : int
            Number of samples (>= 1).
        random_state : int, Generator or None, default=None
            Seed.

        Returns
        -------
        X : ndarray of shape (n, n_features)
            The samples.
        y : ndarray of shape (n,)
            Their classes 0..J-1.
        """
        n = check_int(n, "n", low=1)
        rng = np.random.default_rng(random_state)
        y = rng.choice(self.n_classes, size=n, p=self.priors)
        X = np.empty((n, self.n_features))
        for j in range(self.n_classes):
            idx = np.flatnonzero(y == j)
            comp = rng.choice(len(self.weights[j]), size=len(idx), p=self.weights[j])
            z = rng.standard_normal((len(idx), self.n_features))
            X[idx] = self.means[j][comp] + np.einsum("nij,nj->ni", self._chol[j][comp], z)
        return X, y

    # -- Bayes error ---------------------------------------------------------------------------
    def bayes_error(self, resolution: int = 1201, return_accuracy: bool = False):
        """Return the Bayes error 1 − ∫ max_j P(C_j) p(x|C_j) dx by 2-D (or 1-D) numerical integration.

        The integral is taken with the trapezoid rule over a box reaching 9 standard deviations
        beyond every component (mass outside < 1e-15). The stated accuracy is the difference
        between the estimate at ``resolution`` and at about half of it (the rule converges at
        least linearly near the kink along B*, so this bounds the error). With the default it is
        below 1e-5 for the paper datasets.

        Parameters
        ----------
        resolution : int, default=1201
            Grid points per axis.
        return_accuracy : bool, default=False
            Also return the stated accuracy.

        Returns
        -------
        float or tuple of float
            The error, or ``(error, accuracy)`` when ``return_accuracy``.

        Raises
        ------
        ValueError
            If the model has more than two features.
        """
        if self.n_features > 2:
            raise ValueError("bayes_error integrates numerically in 1-D or 2-D only")
        resolution = check_int(resolution, "resolution", low=51)
        fine = self._bayes_error_grid(resolution)
        coarse = self._bayes_error_grid(resolution // 2 + 1)
        return (fine, abs(fine - coarse)) if return_accuracy else fine

    def _box(self, n_sd: float = 9.0):
        lo = np.full(self.n_features, np.inf)
        hi = np.full(self.n_features, -np.inf)
        for mu, cov in zip(self.means, self.covariances, strict=True):
            sd = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
            lo = np.minimum(lo, (mu - n_sd * sd).min(0))
            hi = np.maximum(hi, (mu + n_sd * sd).max(0))
        return lo, hi

    def _bayes_error_grid(self, res: int) -> float:
        lo, hi = self._box()
        axes = [np.linspace(a, b, res) for a, b in zip(lo, hi, strict=True)]
        if self.n_features == 1:
            vals = np.exp(self.log_joint(axes[0][:, None]).max(1))
            return float(1.0 - np.trapezoid(vals, axes[0]))
        xs, ys = axes
        rows = np.empty((res, res))
        step = max(1, 200_000 // res)
        for r0 in range(0, res, step):  # chunks bound the memory
            yy = ys[r0:r0 + step]
            pts = np.column_stack([np.tile(xs, len(yy)), np.repeat(yy, res)])
            rows[r0:r0 + step] = np.exp(self.log_joint(pts).max(1)).reshape(len(yy), res)
        return float(1.0 - np.trapezoid(np.trapezoid(rows, xs, axis=1), ys))

    # -- transforms ----------------------------------------------------------------------------
    def affine(self, shift, scale) -> GaussianMixture:
        """Return the exact model of ``(x - shift) / scale`` (used for standardised coordinates).

        Parameters
        ----------
        shift : array-like of shape (n_features,)
            Subtracted from x.
        scale : array-like of shape (n_features,)
            Divides the shifted x.

        Returns
        -------
        GaussianMixture
            The transformed model.
        """
        shift = np.asarray(shift, dtype=float)
        scale = np.asarray(scale, dtype=float)
        D = np.diag(1.0 / scale)
        classes = [
            [(w, (m - shift) / scale, D @ c @ D) for w, m, c in zip(ws, ms, cs, strict=True)]
            for ws, ms, cs in zip(self.weights, self.means, self.covariances, strict=True)
        ]
        return GaussianMixture(classes, priors=self.priors)

    def _require_2d(self, what: str):
        if self.n_features != 2:
            raise ValueError(f"{what} needs a 2-D model, this one has {self.n_features} features")

    def __repr__(self) -> str:
        n_comp = [len(w) for w in self.weights]
        return f"GaussianMixture(n_classes={self.n_classes}, n_features={self.n_features}, components={n_comp})"


# -- the paper's datasets -------------------------------------------------------------------------
def _paper_classes() -> dict[str, tuple[list, str]]:
    return {
        "gmm": (
            [
                [(0.5, (-1.0, 0.0), 0.6), (0.5, (1.0, 1.5), 0.6)],
                [(0.5, (1.0, -0.5), 0.6), (0.5, (-1.0, 1.8), 0.6)],
            ],
            "Overlapping classes with a curved Bayes boundary (paper Figs 6, 10).",
        ),
        "gmm_separable": (
            [[(1.0, (-2.0, 0.0), (0.15, 1.0))], [(1.0, (2.0, 0.0), (0.15, 1.0))]],
            "Two classes separated by an empty band; B* in its middle (paper Figs 5, 14).",
        ),
        "gmm_inclusion": (
            [
                [(0.7, (-2.0, 0.0), 0.5), (0.3, (2.0, 0.0), (0.08, 0.03))],
                [(1.0, (2.0, 0.0), 0.8)],
            ],
            "A dense class-1 crowd inside the class-2 crowd: B* has a curve and an ellipse (Fig 15).",
        ),
        "gmm3": (
            [
                [(0.5, (-1.5, 0.0), 0.5), (0.5, (0.0, 2.0), 0.5)],
                [(1.0, (1.5, 0.0), 0.6)],
                [(0.6, (0.0, -1.5), 0.5), (0.4, (2.0, 2.0), 0.4)],
            ],
            "Three overlapping classes: several class pairs in I* (multi-class Proposal 2).",
        ),
    }


MIXTURE_NAMES = tuple(_paper_classes())


def paper_mixture(name: str) -> GaussianMixture:
    """Return the exact model of one of the paper-like mixtures (raw, unstandardised coordinates).

    Parameters
    ----------
    name : str
        One of :data:`MIXTURE_NAMES`.

    Returns
    -------
    GaussianMixture
        The model.

    Raises
    ------
    InvalidParameterError
        If ``name`` is unknown.
    """
    table = _paper_classes()
    if name not in table:
        raise InvalidParameterError(f"name must be one of {MIXTURE_NAMES}, got {name!r}")
    return GaussianMixture(table[name][0])
