"""Extrapolation against the truth: fit on K observed classes of a population, compare with all of it.

The experiment of Zheng, Achanta & Benjamini (Fig 11, Table 1): draw K of the population's classes,
train the classifier on them and read AverageTA_k (eq 3) there, fit each extrapolator, and compare
its curve over k with the truth, AverageTA_k of the classifier trained on the whole population.
The explorer's Extrapolation tab, the paper-figure registry and the notebooks all call these.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from buviz._validation import InvalidParameterError, check_int
from buviz._values import freeze_fields

from ._core import average_accuracy_from_ranks, ranks_from_margins
from ._estimators import METHODS, Extrapolation, default_ks, fit_extrapolator
from ._population import LabelPopulation, _ties_for, population_margins, subsample_classes

__all__ = ["ExtrapolationCurves", "observed_classes", "truth_curve", "extrapolation_curves"]

#: The estimators compared by default (Fig 11).
DEFAULT_METHODS = ("moment", "classexreg", "kde")


def observed_classes(n_classes: int, K: int, random_state=0) -> np.ndarray:
    """Return K distinct classes of 0..n_classes−1 drawn uniformly, sorted (the observed classes).

    Parameters
    ----------
    n_classes : int
        Classes of the population (>= 3).
    K : int
        Classes observed, 2 <= K < n_classes.
    random_state : int, Generator or None, default=0
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    ndarray of int, shape (K,)
        The observed classes.

    Raises
    ------
    InvalidParameterError
        If ``K`` is outside [2, n_classes − 1].
    """
    n_classes = check_int(n_classes, "n_classes", low=3)
    K = check_int(K, "K", low=2, high=n_classes - 1)
    return np.sort(np.random.default_rng(random_state).choice(n_classes, K, replace=False))


def truth_curve(margins, labels, ks=None, *, ties: str = "max", random_state=0) -> tuple[np.ndarray, np.ndarray]:
    """Return AverageTA_k (eq 3) over all the classes of a population's margins: the truth curve.

    Parameters
    ----------
    margins : ndarray of shape (n_test, k1)
        Margins of a classifier trained on all k1 classes (:func:`population_margins`).
    labels : ndarray of shape (n_test,)
        The test points' classes.
    ks : sequence of int or None, default=None
        Class counts in 2..k1; None: every k when k1 <= 61, else 60 values from 2 to k1
        (:func:`default_ks`).
    ties : {"max", "random"}, default="max"
        How tied margins rank (:func:`ranks_from_margins`; "random" for the k-NN classifier).
    random_state : int or None, default=0
        Seed of random tie-breaking.

    Returns
    -------
    ks, accuracy : ndarray
        The class counts and AverageTA_k at each.
    """
    k1 = np.shape(margins)[1]
    if ks is None:
        ks = default_ks(k1, n=60) if k1 > 61 else np.arange(2, k1 + 1)
    ks = np.asarray(ks)
    ranks = ranks_from_margins(margins, labels, ties=ties, random_state=random_state)
    return ks, average_accuracy_from_ranks(ranks, ks, k1=k1, groups=labels)


@dataclass(frozen=True, eq=False)
class ExtrapolationCurves:
    """Extrapolations from K observed classes and the truth on the whole population (Fig 11).

    Parameters
    ----------
    classes : ndarray of int
        The K observed classes of the population.
    ks, observed : ndarray
        The class counts fitted and AverageTA_k (eq 3) on the observed classes.
    k_grid : ndarray of int
        The class counts the extrapolations are evaluated at.
    estimates : dict of str to ndarray
        Method -> the predicted AGA_k over ``k_grid``.
    fits : dict of str to Extrapolation
        Method -> its fitted :class:`Extrapolation`.
    truth_ks, truth : ndarray
        The class counts of the truth and AverageTA_k of the classifier trained on every class.
    n_classes : int
        Classes of the population.
    """

    classes: np.ndarray
    ks: np.ndarray
    observed: np.ndarray
    k_grid: np.ndarray
    estimates: dict
    fits: dict
    truth_ks: np.ndarray
    truth: np.ndarray
    n_classes: int

    def __post_init__(self):
        freeze_fields(self)

    @property
    def K(self) -> int:
        """The number of observed classes."""
        return len(self.classes)


def extrapolation_curves(pop: LabelPopulation, classifier: str, K: int, methods=DEFAULT_METHODS, *,
                         basis: str = "linear_spline", k_grid=None, truth_ks=None, n_boot: int = 10,
                         random_state=0, margins=None, observed_margins=None) -> ExtrapolationCurves:
    """Fit every extrapolator on K random classes of a population and compute the truth (Fig 11).

    The K classes are :func:`observed_classes` of ``random_state``; the classifier is trained on
    them alone (:func:`subsample_classes`), the extrapolators are fitted on its margins
    (:func:`fit_extrapolator`), and the truth is :func:`truth_curve` of the classifier trained
    on the whole population.

    Parameters
    ----------
    pop : LabelPopulation
        The population (at least 3 classes).
    classifier : str
        One of :data:`CLASSIFIERS`; ties are broken at random for ``"knn"``.
    K : int
        Observed classes, 2 <= K < pop.n_classes.
    methods : sequence of str, default=("moment", "classexreg", "kde")
        Estimators of :func:`fit_extrapolator`.
    basis : str, default="linear_spline"
        The moment method's basis.
    k_grid : sequence of int or None, default=None
        Where the extrapolations are evaluated; None: 60 geometric steps from 2 to n_classes.
    truth_ks : sequence of int or None, default=None
        Where the truth is computed (see :func:`truth_curve`).
    n_boot : int, default=10
        Bootstrap subsamples of the estimators that choose by cross-validation.
    random_state : int, default=0
        Seed of the class draw, the classifiers and the estimators.
    margins, observed_margins : tuple of ndarray or None, default=None
        ``(margins, labels)`` already computed (a cache): of the classifier trained on the whole
        population, and on the observed classes.

    Returns
    -------
    ExtrapolationCurves
        The observed curve, each method's extrapolation and fit, the truth.

    Raises
    ------
    InvalidParameterError
        If ``K`` is out of range or a method is unknown.
    """
    n = pop.n_classes
    classes = observed_classes(n, K, random_state)
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not len(methods):
        raise InvalidParameterError(f"methods must be a non-empty subset of {METHODS}, got {list(methods)}")
    ties = _ties_for(classifier)
    if margins is None:
        margins = population_margins(pop, classifier, random_state=random_state)
    truth_ks, truth = truth_curve(*margins, truth_ks, ties=ties, random_state=random_state)
    if observed_margins is None:
        observed_margins = population_margins(subsample_classes(pop, classes), classifier, random_state=random_state)
    k_grid = (np.unique(np.round(np.geomspace(2, n, 60)).astype(int)) if k_grid is None
              else np.asarray(k_grid))
    fits: dict[str, Extrapolation] = {}
    for method in methods:
        fits[method] = fit_extrapolator(*observed_margins, method, random_state=random_state, basis=basis,
                                        ties=ties, n_boot=n_boot)
    first = fits[methods[0]]
    return ExtrapolationCurves(classes=classes, ks=first.ks, observed=first.observed, k_grid=k_grid,
                               estimates={m: f.accuracy(k_grid) for m, f in fits.items()}, fits=fits,
                               truth_ks=truth_ks, truth=truth, n_classes=n)
