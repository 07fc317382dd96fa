"""Discriminants on a 2-D grid, and the top-2 pair of every row of class scores.

One place for two computations every layer needs: the top-2 predicted classes {i(x;Λ), j(x;Λ)}
with the near-boundary-ness f(x;Λ) = g_i(x) − g_j(x) (Ha et al. 2021, §3, eq 12), and a
discriminant evaluated on a regular grid over the first two features (predicted regions and the
boundary fields whose zero contour is B(Λ), or B* for the Bayes posteriors).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from buviz._validation import InvalidParameterError, check_int
from buviz._values import freeze_fields, seal

__all__ = ["GridField", "GridEvaluation", "grid_points", "boundary_fields", "evaluate_grid", "top2",
           "top2_difference", "near_boundaryness"]


def _check_scores(g, name: str = "g") -> np.ndarray:
    g = np.asarray(g)
    if g.ndim != 2 or g.shape[1] < 2:
        raise InvalidParameterError(f"{name} must be a 2-D array (n_samples, n_classes >= 2) of class scores, "
                                    f"got shape {g.shape}")
    return g


def top2(g: np.ndarray, *, stable: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return the top-2 predicted classes of every row, ordered by class index.

    The pair {i(x;Λ), j(x;Λ)} of the two largest discriminants, returned as ``(i, j)`` with
    ``i < j`` (Ha et al. 2021, §3). For two classes it is (0, 1) on every row.

    Parameters
    ----------
    g : ndarray of shape (n_samples, n_classes)
        Class scores (discriminants), larger is more likely.
    stable : bool, default=False
        Kept for compatibility: ties between classes always go to the lower class index (the
        first maximum, then the first maximum of the rest), so the pair never depends on how a
        partial sort orders ties (which differs between numpy's SIMD code paths).

    Returns
    -------
    i, j : ndarray of shape (n_samples,)
        The smaller and the larger class index of the top-2 pair.

    Raises
    ------
    InvalidParameterError
        If ``g`` is not a 2-D array with at least two columns.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1

    Examples
    --------
    >>> top2(np.array([[0.1, 0.5, 0.3], [2.0, 0.0, 1.0]]))
    (array([1, 0]), array([2, 2]))
    """
    g = _check_scores(g)
    if g.shape[1] == 2:
        n = len(g)
        return np.zeros(n, dtype=np.intp), np.ones(n, dtype=np.intp)
    rows = np.arange(len(g))
    first = np.argmax(g, axis=1)  # the first maximum: ties to the lower index
    rest = g.astype(float, copy=True)
    rest[rows, first] = -np.inf
    second = np.argmax(rest, axis=1)
    lone = rest[rows, second] == -np.inf  # every other class at −inf: the lowest other index
    second[lone] = (first[lone] == 0).astype(second.dtype)
    return np.minimum(first, second), np.maximum(first, second)


def near_boundaryness(g: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Return f_ij(x;Λ) = g_i(x) − g_j(x) for a given class pair per row (Ha et al. 2021, eq 12).

    Parameters
    ----------
    g : ndarray of shape (n_samples, n_classes)
        Class scores.
    i, j : ndarray of shape (n_samples,)
        The class pair of each row.

    Returns
    -------
    ndarray of shape (n_samples,)
        ``g[n, i[n]] - g[n, j[n]]``.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    rows = np.arange(len(g))
    return g[rows, i] - g[rows, j]


def top2_difference(g: np.ndarray) -> np.ndarray:
    """Return f(x;Λ) = g_i(x) − g_j(x) with {i, j} the top-2 pair of each row, i < j (eq 12).

    Its sign tells which of the two classes wins and its zero level set is the classifier's
    boundary B(Λ) (Ha et al. 2021, §3, eq 12).

    Parameters
    ----------
    g : ndarray of shape (n_samples, n_classes)
        Class scores.

    Returns
    -------
    ndarray of shape (n_samples,)
        The near-boundary-ness of every row.

    Raises
    ------
    InvalidParameterError
        If ``g`` is not a 2-D array with at least two columns.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1

    Examples
    --------
    >>> top2_difference(np.array([[0.0, 0.5, 0.25], [2.0, 0.0, 1.0]]))
    array([0.25, 1.  ])
    """
    g = _check_scores(g)
    return near_boundaryness(g, *top2(g))


@dataclass(frozen=True)
class GridField:
    """A scalar field on a regular 2-D grid, ready for contouring or shading.

    Parameters
    ----------
    xs : ndarray of shape (n_x,)
        Grid coordinates along the first feature (the columns of ``values``).
    ys : ndarray of shape (n_y,)
        Grid coordinates along the second feature (the rows of ``values``).
    values : ndarray of shape (n_y, n_x)
        The field. For a boundary field its zero level set is the boundary; multi-class boundary
        fields are NaN where the pair is not the top-2 pair.
    """

    xs: np.ndarray
    ys: np.ndarray
    values: np.ndarray

    def __post_init__(self):
        freeze_fields(self)  # read-only arrays (a writeable one handed in is copied)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """The grid's corners ``(x0, y0, x1, y1)``."""
        return float(self.xs[0]), float(self.ys[0]), float(self.xs[-1]), float(self.ys[-1])


def grid_points(bounds: tuple[float, float, float, float],
                resolution: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return a regular grid over a rectangle of the plane.

    Parameters
    ----------
    bounds : tuple of 4 floats
        ``(x0, y0, x1, y1)``, the lower-left and upper-right corners.
    resolution : int, default=200
        Grid points per axis (at least 2).

    Returns
    -------
    xs, ys : ndarray of shape (resolution,)
        The coordinates along each axis.
    points : ndarray of shape (resolution * resolution, 2)
        Every grid point, row by row (``ys`` outer, ``xs`` inner).

    Raises
    ------
    InvalidParameterError
        If ``resolution`` is not an integer >= 2.
    """
    resolution = check_int(resolution, "resolution", low=2)
    x0, y0, x1, y1 = bounds
    xs = np.linspace(x0, x1, resolution)
    ys = np.linspace(y0, y1, resolution)
    xx, yy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([xx.ravel(), yy.ravel()])


def boundary_fields(scores: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> dict[tuple[int, int], GridField]:
    """Return the fields whose zero contours are the boundary between each pair of classes.

    For each pair (k, l), k < l, the field is ``scores_k - scores_l`` where {k, l} is the top-2
    pair and NaN elsewhere, so its zero contour is exactly the piece of the decision boundary
    between C_k and C_l (Ha et al. 2021, eq 12, with the pair taken at each grid point).

    Parameters
    ----------
    scores : ndarray of shape (len(xs) * len(ys), n_classes)
        Class scores at the points of :func:`grid_points`.
    xs, ys : ndarray
        The grid coordinates.

    Returns
    -------
    dict of (int, int) to GridField
        One field per pair of classes that is the top-2 pair somewhere on the grid.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    scores = np.asarray(scores, dtype=float)
    J = scores.shape[1]
    shape = (len(ys), len(xs))
    if J == 2:
        diff = scores[:, 0] - scores[:, 1]
        seal(diff)  # fresh, sealed before the reshape (a view of it): the field holds it without a copy
        return {(0, 1): GridField(xs, ys, diff.reshape(shape))}
    first, second = top2(scores)
    fields = {}
    for k in range(J):
        for l in range(k + 1, J):
            mask = (first == k) & (second == l)
            if not mask.any():
                continue
            vals = np.where(mask, scores[:, k] - scores[:, l], np.nan)
            seal(vals)
            fields[(k, l)] = GridField(xs, ys, vals.reshape(shape))
    return fields


@dataclass(frozen=True)
class GridEvaluation:
    """A discriminant evaluated on a regular grid (the result of :func:`evaluate_grid`).

    Parameters
    ----------
    xs, ys : ndarray
        The grid coordinates.
    scores : ndarray of shape (len(ys) * len(xs), n_classes)
        The class scores at every grid point.
    predicted : ndarray of shape (len(ys), len(xs))
        The predicted class index (argmax of the scores) at every grid point.
    fields : dict of (int, int) to GridField
        The boundary fields of :func:`boundary_fields`.
    """

    xs: np.ndarray
    ys: np.ndarray
    scores: np.ndarray
    predicted: np.ndarray
    fields: dict

    def __post_init__(self):
        freeze_fields(self)  # read-only arrays, a read-only mapping of fields


def evaluate_grid(discriminant: Callable[[np.ndarray], np.ndarray], bounds: tuple[float, float, float, float],
                  resolution: int = 200) -> GridEvaluation:
    """Evaluate a discriminant on a regular grid: predicted regions and boundary fields.

    Parameters
    ----------
    discriminant : callable
        ``X (n, 2) -> g (n, J)``, for example a :class:`buviz.classifiers.Discriminant` or the
        exact ``GaussianMixture.log_joint``.
    bounds : tuple of 4 floats
        ``(x0, y0, x1, y1)``.
    resolution : int, default=200
        Grid points per axis.

    Returns
    -------
    GridEvaluation
        Grid coordinates, scores, predicted class per point and boundary fields.

    Raises
    ------
    InvalidParameterError
        If ``resolution`` is not an integer >= 2.

    Examples
    --------
    >>> ev = evaluate_grid(lambda X: np.column_stack([X[:, 0], -X[:, 0]]), (-1, -1, 1, 1), 5)
    >>> ev.predicted[0].tolist()
    [1, 1, 0, 0, 0]
    """
    xs, ys, points = grid_points(bounds, resolution)
    xs, ys = xs.copy(), ys.copy()  # linspace hands out views: owned copies, sealed, shared by every field
    scores = np.asarray(discriminant(points))  # the discriminant's own array: copied if writeable
    predicted = np.argmax(scores, axis=1)
    seal(xs, ys, predicted)  # fresh arrays, handed over (sealed before the reshape: no copy later)
    return GridEvaluation(xs, ys, scores, predicted.reshape(len(ys), len(xs)), boundary_fields(scores, xs, ys))
