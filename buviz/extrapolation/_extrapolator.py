"""A scikit-learn-shaped estimator around :func:`fit_extrapolator`."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from buviz._validation import RANDOM_STATE, Interval, InvalidParameterError, Options, SequenceOf, fit_context

from ._core import check_ks
from ._estimators import CLASSEXREG_BANDWIDTHS, KDE_BANDWIDTHS, METHOD_OPTIONS, fit_extrapolator
from ._moment import BASES

_NOT_FITTED = "This %(name)s is not fitted yet: call fit(margins, labels) first."

__all__ = ["AccuracyExtrapolator"]


class AccuracyExtrapolator(BaseEstimator):
    """Predict the average accuracy of a marginal classifier on k classes from k1 < k observed classes.

    The classifier scores each class from that class's training data alone (1-NN, nearest centroid,
    QDA, ...); its *margins* on the test points of the k1 observed classes are all that is needed.
    ``fit`` computes the exact subsampled accuracies AverageTA_k (eq 3) and fits the chosen
    estimator; ``predict(k)`` returns the predicted average generalisation accuracy AGA_k
    (Theorem 4.1: ``AGA_k = E[U^(k-1)] = 1 - (k-1) ∫ D̄(u) u^(k-2) du``, U the conditional accuracy of a
    random test point against one random wrong label, D̄ its distribution function).

    Parameters
    ----------
    method : {"best", "classexreg", "kde", "moment", "probit_ml"}, default="best"
        ``"moment"``: linear model for D̄ fitted to AverageTA_k (eq 9-14). ``"classexreg"``: regression
        on Gaussian-kernel accuracy curves with bootstrap-selected width (Zheng, Achanta & Benjamini
        2018). ``"kde"``: Kay's kernel-density estimator with per-test-point UCV/BCV bandwidths (Kay et al.
        2008). ``"best"``: a mixture of ClassExReg and the UCV KDE whose weight is chosen by the same
        subsample-and-predict bootstrap (no ground truth is used). ``"probit_ml"``: experimental
        two-parameter probit-normal model fitted by maximum likelihood.
    ks : sequence of int, optional
        Class counts k (2..k1) at which AverageTA_k is computed and fitted; default 25 values from 2 to k1.
    bw : {"ucv", "bcv", "silverman", "scott"} or float, default="ucv"
        Bandwidth rule of ``method="kde"``.
    bandwidths : float or sequence of float, default=(0.1, 0.2, ..., 1.0)
        ClassExReg kernel widths h (> 0).
    n_boot : int, optional
        Bootstrap rounds (default 20 for ClassExReg, 40 for "best").
    basis : str, default="linear_spline"
        Basis of the moment method (see :func:`buviz.extrapolation.fit_dbar`).
    m : int or "paper", optional
        Number of basis functions of the moment method (the spline's default is the paper's m = 10 000).
    knots : {"uniform", "tail"}, default="uniform"
        Knot grid of the moment method.
    ties : {"max", "random"}, default="max"
        Rank convention for eq 3.
    random_state : int or None, default=0
        Seeds the bootstrap and random tie-breaking.

    Attributes
    ----------
    extrapolation_ : Extrapolation
        The fitted result (estimator-specific ``details``).
    n_classes_observed_ : int
        k1, the number of observed classes.
    ks_ : ndarray of int
        The class counts at which AverageTA_k was computed.
    observed_accuracy_ : ndarray
        AverageTA_k (eq 3) at ``ks_``.
    n_features_in_ : int
        k1, the number of margin columns seen by ``fit`` (scikit-learn's name for it).
    dbar_ : callable
        ``dbar_(u)``: the fitted D̄(u) = P(U <= u) on [0, 1]. For ClassExReg the kernel weights are
        non-negative but not forced to sum to one, so D̄(1) may differ slightly from 1; the predictions
        are always ``∫ u^(k-1) dD̄(u)``.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's); the
    same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228

    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
    Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
    https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)

    K. N. Kay, T. Naselaris, R. J. Prenger and J. L. Gallant, "Identifying natural images from human
    brain activity", *Nature* 452, 352-355, 2008. https://doi.org/10.1038/nature06713

    Examples
    --------
    >>> from buviz import extrapolation as ex
    >>> M, y = ex.peers_benchmark_margins(200, 0.2, random_state=0)
    >>> est = ex.AccuracyExtrapolator(method="classexreg").fit(M, y)
    >>> 0.0 <= est.predict(2000) <= 1.0
    True
    """

    _parameter_constraints: dict = {
        "method": [METHOD_OPTIONS],
        "ks": [None, Interval("int", 2, None), SequenceOf(Interval("int", 2, None))],
        "bw": [Options(*KDE_BANDWIDTHS, "nrd0", "nrd"), Interval("real", 0, None, closed="neither")],
        "bandwidths": [SequenceOf(Interval("real", 0, None, closed="neither")),
                       Interval("real", 0, None, closed="neither")],
        "n_boot": [None, Interval("int", 1, None)],
        "basis": [Options(*BASES)],
        "m": [None, Interval("int", 1, None), Options("paper")],
        "knots": [Options("uniform", "tail")],
        "ties": [Options("max", "random")],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, method: str = "best", ks=None, bw="ucv", bandwidths=CLASSEXREG_BANDWIDTHS,
                 n_boot: int | None = None, basis: str = "linear_spline", m: int | str | None = None,
                 knots: str = "uniform", ties: str = "max", random_state=0):
        self.method = method
        self.ks = ks
        self.bw = bw
        self.bandwidths = bandwidths
        self.n_boot = n_boot
        self.basis = basis
        self.m = m
        self.knots = knots
        self.ties = ties
        self.random_state = random_state

    @fit_context
    def fit(self, margins, labels) -> AccuracyExtrapolator:
        """Fit on the margins of the k1 observed classes.

        Parameters
        ----------
        margins : array-like of shape (n_test, k1)
            Score of every observed class at each test point (higher = more likely).
        labels : array-like of shape (n_test,)
            True class index ``0 .. k1-1`` of each test point; every class needs a test point and
            at least two classes are needed.

        Returns
        -------
        AccuracyExtrapolator
            The fitted estimator (``self``).

        Raises
        ------
        InvalidParameterError
            If a parameter is outside its declared constraints (``_parameter_constraints``), or ``ks``
            exceeds the number of observed classes.
        """
        ext = fit_extrapolator(margins, labels, self.method, ks=self.ks, random_state=self.random_state,
                               basis=self.basis, m=self.m, knots=self.knots, bw=self.bw,
                               bandwidths=self.bandwidths, n_boot=self.n_boot, ties=self.ties)
        self.extrapolation_ = ext
        self.n_classes_observed_ = ext.k1
        self.ks_ = ext.ks
        self.observed_accuracy_ = ext.observed
        self.dbar_ = ext.dbar
        self.n_features_in_ = ext.k1
        return self

    def predict(self, k):
        """Return the predicted average accuracy AGA_k.

        Parameters
        ----------
        k : int or array-like of int
            Class counts, each at least the number of observed classes k1 (use
            ``observed_accuracy_`` / eq 3 below k1: there the accuracy is measured, not predicted).

        Returns
        -------
        float or ndarray
            AGA_k, a float for a scalar ``k``.

        Raises
        ------
        InvalidParameterError
            If a k is below k1.
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        """
        check_is_fitted(self, "extrapolation_", msg=_NOT_FITTED)
        kk = check_ks(k, "k")
        if kk.min() < self.n_classes_observed_:
            raise InvalidParameterError(f"k must be at least the number of observed classes "
                                        f"k1 = {self.n_classes_observed_} "
                             f"(below k1 the accuracy is measured: see observed_accuracy_), got {kk.min()}")
        return self.extrapolation_.accuracy(k)

    def predict_curve(self, k) -> np.ndarray:
        """Return the predicted AGA_k for any k >= 2 (below k1 the fitted curve, not eq 3).

        Parameters
        ----------
        k : int or array-like of int
            Class counts k >= 2.

        Returns
        -------
        ndarray
            AGA_k, 1-D.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        """
        check_is_fitted(self, "extrapolation_", msg=_NOT_FITTED)
        return np.atleast_1d(self.extrapolation_.accuracy(check_ks(k, "k")))
