"""Datasets with exact class densities, the paper's ten real datasets, scikit-learn's sets, and CSV.

Ha et al. (2021, §6.2) do not publish their Gaussian-mixture parameters; the paper datasets
(:data:`MIXTURE_NAMES`, :func:`paper_mixture`) are mixtures chosen to look like their figures, each
with an exact density (:class:`GaussianMixture`) so that posteriors, the Bayes boundary B* and the
Bayes error are available.

The ten real datasets of their Table 2 (:data:`UCI_NAMES`) ship inside the package (compressed
CSV from the UCI Machine Learning Repository, CC BY 4.0); :func:`describe` gives each one's source,
the choices the paper leaves open, and the licence. ``breast_cancer`` is scikit-learn's diagnostic
WDBC set (569 × 30); ``breast_cancer_wisconsin`` is the paper's *original* Wisconsin set (683 × 9).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1

Examples
--------
>>> from buviz import datasets
>>> ds = datasets.load("gmm", n_train=200, n_test=1000, random_state=0)
>>> ds.X_train.shape, ds.model.n_classes
((200, 2), 2)
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import numbers
import os
import warnings
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from buviz._fetch import ChecksumError, DataFetchError, ImageSet, ImageSplit  # the Zheng et al. data: fetched
from buviz._fetch_lfw import fetch_lfw_predictions
from buviz._fetch_omniglot import fetch_omniglot
from buviz._fetch_telugu import TeluguScores, fetch_telugu, fetch_telugu_glyphs, fetch_telugu_scores
from buviz._mixture import MIXTURE_NAMES, GaussianMixture, _paper_classes, paper_mixture
from buviz._validation import InvalidParameterError, check_int, check_real, check_X, check_Xy
from buviz.grid import GridField

__all__ = [
    "GaussianMixture",
    "Dataset",
    "GridField",
    "load",
    "from_arrays",
    "from_mixture",
    "from_split",
    "read_csv",
    "describe",
    "uci_metadata",
    "ConstantFeatureWarning",
    "UCI_NAMES",
    "REAL_NAMES",
    "paper_mixture",
    "DATASET_NAMES",
    "fetch_telugu",
    "fetch_telugu_glyphs",
    "fetch_telugu_scores",
    "fetch_omniglot",
    "fetch_lfw_predictions",
    "ImageSet",
    "ImageSplit",
    "TeluguScores",
    "DataFetchError",
    "ChecksumError",
    "MIXTURE_NAMES",
    "MAX_CSV_BYTES",
]

#: Largest CSV upload accepted by :func:`read_csv` (bytes).
MAX_CSV_BYTES = 5 * 1024 * 1024


class ConstantFeatureWarning(UserWarning):
    """A feature is constant on the training set: it is left unscaled (scale 1), as scikit-learn's
    ``StandardScaler`` does, instead of dividing by a zero standard deviation."""


#: scikit-learn's shipped real sets (``breast_cancer`` is the diagnostic WDBC set, 569 × 30).
REAL_NAMES = ("breast_cancer", "wine")
DATASET_NAMES = MIXTURE_NAMES + REAL_NAMES
#: The ten real datasets of Ha et al. (2021), Table 2, shipped in the package (UCI, CC BY 4.0).
UCI_NAMES = ("abalone", "banknote", "breast_cancer_wisconsin", "cardiotocography", "german", "letter",
             "satimage", "spambase", "winequality_red", "winequality_white")
_ALL_NAMES = DATASET_NAMES + UCI_NAMES


@dataclass
class Dataset:
    """A train/test split, standardised with the training set's mean and standard deviation.

    A feature constant on the training set keeps scale 1 (see :class:`ConstantFeatureWarning`).

    Parameters
    ----------
    name : str
        The dataset's name.
    X_train, y_train, X_test, y_test : ndarray
        Features and labels (integer codes 0..J-1).
    classes : ndarray
        Original class labels, ``classes[code]``.
    mean, scale : ndarray
        The standardisation (X_std = (X_raw - mean) / scale).
    model : GaussianMixture or None, default=None
        Exact model in the *standardised* coordinates, or None for real data.
    description : str, default=""
        One line about the data.
    key : str, default=""
        A string identifying the data (name, sizes, seed) for caches.
    feature_names : list of str, optional
        Column names, when known.
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    model: GaussianMixture | None = None
    description: str = ""
    key: str = ""
    feature_names: list[str] = field(default_factory=list)

    @property
    def n_classes(self) -> int:
        """Number of classes J."""
        return len(self.classes)

    @property
    def n_features(self) -> int:
        """Number of features d."""
        return self.X_train.shape[1]

    def bounds(self, pad: float = 0.1) -> tuple[float, float, float, float]:
        """Return the padded range of the training data in the first two features.

        Parameters
        ----------
        pad : float, default=0.1
            Padding, as a fraction of the range.

        Returns
        -------
        tuple of 4 floats
            ``(x0, y0, x1, y1)``.
        """
        lo = self.X_train[:, :2].min(0)
        hi = self.X_train[:, :2].max(0)
        span = np.maximum(hi - lo, 1e-9)
        lo, hi = lo - pad * span, hi + pad * span
        return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])

    def __repr__(self) -> str:
        return (f"Dataset({self.name!r}, n_train={len(self.X_train)}, n_test={len(self.X_test)}, "
                f"n_features={self.n_features}, n_classes={self.n_classes})")


def _standardise(name, X_tr, y_tr, X_te, y_te, *, model=None, description="", key="",
                 standardize=True, feature_names=None) -> Dataset:
    X_tr, y_codes, classes = check_Xy(X_tr, y_tr)
    if len(X_te):
        X_te = check_X(X_te, "X_test", n_features=X_tr.shape[1])
        y_te = np.searchsorted(classes, np.asarray(y_te))
    else:
        X_te = np.empty((0, X_tr.shape[1]))
        y_te = np.empty(0, dtype=np.intp)
    if feature_names is None:
        feature_names = [f"x{i + 1}" for i in range(X_tr.shape[1])]
    if standardize:
        mean = X_tr.mean(0)
        scale = X_tr.std(0)
        constant = scale == 0
        if np.any(constant):
            names = [feature_names[i] for i in np.flatnonzero(constant)]
            warnings.warn(f"{name}: feature(s) {names} are constant on the training set; they are left "
                          f"unscaled (scale 1)", ConstantFeatureWarning, stacklevel=3)
            scale[constant] = 1.0
    else:
        mean = np.zeros(X_tr.shape[1])
        scale = np.ones(X_tr.shape[1])
    if model is not None:
        model = model.affine(mean, scale)
    return Dataset(
        name=name,
        X_train=(X_tr - mean) / scale,
        y_train=y_codes,
        X_test=(X_te - mean) / scale,
        y_test=np.asarray(y_te, dtype=np.intp),
        classes=classes,
        mean=mean,
        scale=scale,
        model=model,
        description=description,
        key=key,
        feature_names=list(feature_names),
    )


def from_split(X_train, y_train, X_test, y_test, *, name: str = "split", standardize: bool = True,
               description: str = "", feature_names=None) -> Dataset:
    """Make a :class:`Dataset` of a given train/test split (no exact model).

    The test set is standardised with the training set's mean and standard deviation; a feature
    constant on the training set is left unscaled (scale 1) with a :class:`ConstantFeatureWarning`.

    Parameters
    ----------
    X_train : array-like of shape (n_train, n_features)
        Training features.
    y_train : array-like of shape (n_train,)
        Training labels (any values; at least two classes).
    X_test : array-like of shape (n_test, n_features)
        Test features (``n_test`` may be 0).
    y_test : array-like of shape (n_test,)
        Test labels, each one a label of the training set.
    name : str, default="split"
        The dataset's name.
    standardize : bool, default=True
        Standardise on the training set.
    description : str, default=""
        One line about the data.
    feature_names : list of str, optional
        Column names.

    Returns
    -------
    Dataset
        The split (``model`` is None).

    Raises
    ------
    InvalidParameterError
        If ``y_test`` does not have one label per row of ``X_test``, or holds a label absent from
        ``y_train``, or ``feature_names`` has the wrong length.
    ValueError
        If the data are not finite numbers or the training set has fewer than two classes.

    Examples
    --------
    >>> import numpy as np
    >>> from buviz import datasets
    >>> X, y = np.arange(20.0).reshape(10, 2), np.arange(10) % 2
    >>> ds = datasets.from_split(X[:6], y[:6], X[6:], y[6:])
    >>> ds.mean, ds.X_test.shape
    (array([5., 6.]), (4, 2))
    """
    X_tr, y_codes, classes = check_Xy(X_train, y_train)
    y_te = np.asarray(y_test).ravel()
    X_te = np.asarray(X_test)
    if X_te.size == 0 and not len(y_te):
        X_te = np.empty((0, X_tr.shape[1]))
    else:
        X_te = check_X(X_te, "X_test", n_features=X_tr.shape[1])
    if len(X_te) != len(y_te):
        raise InvalidParameterError(f"y_test must have one label per row of X_test, got {len(y_te)} labels "
                                    f"for {len(X_te)} rows")
    unknown = np.setdiff1d(y_te, classes)
    if unknown.size:
        raise InvalidParameterError(f"y_test holds label(s) absent from y_train: {unknown[:5].tolist()}")
    if feature_names is not None and len(feature_names) != X_tr.shape[1]:
        raise InvalidParameterError(f"feature_names must have {X_tr.shape[1]} names, got {len(feature_names)}")
    key = f"{name}|{_digest(X_tr, y_codes, X_te, np.searchsorted(classes, y_te))}|{standardize}"
    return _standardise(name, X_tr, classes[y_codes], X_te, y_te, description=description, key=key,
                        standardize=standardize, feature_names=feature_names)


def from_mixture(mixture: GaussianMixture, n_train: int = 1000, n_test: int = 20000, random_state=0,
                 *, name: str = "custom", standardize: bool = True, description: str = "") -> Dataset:
    """Sample a train and a test set from an exact mixture (the test set drawn independently).

    Parameters
    ----------
    mixture : GaussianMixture
        The model.
    n_train : int, default=1000
        Training samples (>= 2; every class must draw one).
    n_test : int, default=20000
        Test samples (0 for none).
    random_state : int, Generator or None, default=0
        Seed of the draws.
    name : str, default="custom"
        The dataset's name.
    standardize : bool, default=True
        Standardise on the training set (the model follows).
    description : str, default=""
        One line about the data.

    Returns
    -------
    Dataset
        The split, with ``model`` set.

    Raises
    ------
    InvalidParameterError
        If a size is out of range, or ``n_train`` is too small for every class to draw a sample.
    """
    n_train = check_int(n_train, "n_train", low=2)
    n_test = check_int(n_test, "n_test", low=0)
    rng = np.random.default_rng(random_state)
    X_tr, y_tr = mixture.sample(n_train, rng)
    if n_test:
        X_te, y_te = mixture.sample(n_test, rng)
    else:
        X_te, y_te = np.empty((0, mixture.n_features)), np.empty(0, dtype=int)
    if len(np.unique(y_tr)) < mixture.n_classes:
        raise InvalidParameterError(f"n_train={n_train} is too small: some class drew no training sample")
    key = f"{name}|{_model_key(mixture)}|{n_train}|{n_test}|{random_state}|{standardize}"
    return _standardise(name, X_tr, y_tr, X_te, y_te, model=mixture, description=description,
                        key=key, standardize=standardize)


def _model_key(m: GaussianMixture) -> str:
    parts = [m.priors] + m.weights + m.means + m.covariances
    return _digest(*parts)


def _digest(*arrays) -> str:
    """A stable (cross-process) digest of arrays, for cache keys."""
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _check_test_size(test_size) -> None:
    """A fraction in [0, 1) or a number of test samples >= 1, as scikit-learn's ``train_test_split``."""
    if isinstance(test_size, numbers.Integral) and not isinstance(test_size, bool) and test_size >= 1:
        return
    if check_real(test_size, "test_size", low=0.0) >= 1.0:
        raise InvalidParameterError(f"test_size must be a fraction in [0, 1) or an integer number of test "
                                    f"samples >= 1, got {test_size!r}")


def from_arrays(X, y, *, test_size: float = 0.3, random_state=0, name: str = "arrays",
                standardize: bool = True, description: str = "", feature_names=None) -> Dataset:
    """Make a stratified train/test split of given data (no exact model).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features.
    y : array-like of shape (n_samples,)
        Labels (any values; at least 2 samples per class).
    test_size : float or int, default=0.3
        Fraction in [0, 1) (0: no test set) or number of test samples.
    random_state : int or None, default=0
        Seed of the split.
    name : str, default="arrays"
        The dataset's name.
    standardize : bool, default=True
        Standardise on the training set.
    description : str, default=""
        One line about the data.
    feature_names : list of str, optional
        Column names.

    Returns
    -------
    Dataset
        The split (``model`` is None).

    Raises
    ------
    InvalidParameterError
        If ``test_size`` is invalid.
    ValueError
        If the data are not finite numbers or a class has fewer than 2 samples.

    Warns
    -----
    ConstantFeatureWarning
        If a feature is constant on the training set (it is left unscaled).
    """
    from sklearn.model_selection import train_test_split

    X, y_codes, classes = check_Xy(X, y)
    _check_test_size(test_size)
    counts = np.bincount(y_codes)
    if counts.min() < 2:
        raise ValueError(f"every class needs at least 2 samples, class {classes[counts.argmin()]!r} has "
                         f"{counts.min()}")
    if test_size:
        X_tr, X_te, y_tr, y_te = train_test_split(X, classes[y_codes], test_size=test_size,
                                                  stratify=y_codes, random_state=random_state)
    else:
        X_tr, y_tr, X_te, y_te = X, classes[y_codes], np.empty((0, X.shape[1])), np.empty(0)
    digest = _digest(X, y_codes)
    key = f"{name}|{digest}|{test_size}|{random_state}|{standardize}"
    return _standardise(name, X_tr, y_tr, X_te, y_te, description=description, key=key,
                        standardize=standardize, feature_names=feature_names)


def load(name: str, n_train: int | None = None, n_test: int | None = None, random_state=0, *,
         standardize: bool = True, test_size: float | int | None = None) -> Dataset:
    """Load a named dataset.

    Parameters
    ----------
    name : str
        One of :data:`MIXTURE_NAMES` (``gmm``, ``gmm_separable``, ``gmm_inclusion``, ``gmm3``: exact
        mixtures, sampled with ``n_train``/``n_test``), :data:`REAL_NAMES` (``breast_cancer``, the
        diagnostic WDBC set, and ``wine``: scikit-learn's shipped copies, a stratified 70/30 split,
        sizes ignored) or :data:`UCI_NAMES` (the ten real datasets of Ha et al. 2021, Table 2,
        shipped in the package; see :func:`describe`).
    n_train : int or None, default=None
        Training samples. Mixture: the sample size (None: 1000). UCI set: a stratified subsample
        of the training part, drawn with ``random_state`` before standardising (None: all of it).
    n_test : int or None, default=None
        Test samples. Mixture: the sample size (None: 20000). UCI set: a stratified subsample of
        the test part (None: all of it).
    random_state : int, Generator or None, default=0
        Seed of the sampling, split and subsampling (a Generator for the mixtures only: the real
        sets are split by scikit-learn, which takes an int or None).
    standardize : bool, default=True
        Standardise on the training set (test set with the training mean and std). A feature
        constant on the training set is left unscaled, with a :class:`ConstantFeatureWarning`.
    test_size : float, int or None, default=None
        UCI sets only: None gives the paper's split where it has one (``letter``: the first
        10 000 rows for training, the other 10 000 for testing) and a stratified split with 30 %
        held out otherwise; a number (fraction in (0, 1) or a count) asks for a stratified split.

    Returns
    -------
    Dataset
        The split.

    Raises
    ------
    InvalidParameterError
        If ``name`` is unknown or a size is out of range.

    Examples
    --------
    >>> from buviz import datasets
    >>> ds = datasets.load("letter")
    >>> ds.X_train.shape, ds.X_test.shape, ds.n_classes
    ((10000, 16), (10000, 16), 26)
    """
    if name in MIXTURE_NAMES:
        classes, description = _paper_classes()[name]
        return from_mixture(GaussianMixture(classes), 1000 if n_train is None else n_train,
                            20000 if n_test is None else n_test, random_state, name=name,
                            standardize=standardize, description=description)
    if name in REAL_NAMES:
        from sklearn import datasets as skd

        bunch = skd.load_breast_cancer() if name == "breast_cancer" else skd.load_wine()
        what = ("scikit-learn's breast_cancer data (the diagnostic WDBC set, 569 × 30; not the paper's "
                "breast_cancer_wisconsin)" if name == "breast_cancer" else "scikit-learn's wine data")
        return from_arrays(bunch.data, bunch.target, test_size=0.3, random_state=random_state, name=name,
                           standardize=standardize, description=what,
                           feature_names=list(bunch.feature_names))
    if name in UCI_NAMES:
        return _load_uci(name, n_train, n_test, random_state, standardize, test_size)
    raise InvalidParameterError(f"name must be one of {_ALL_NAMES}, got {name!r}")


# -- the ten real datasets of Ha et al. (2021), Table 2 ----------------------------------------------
def _data_dir():
    return resources.files("buviz") / "data" / "real"


@functools.lru_cache(maxsize=1)
def _metadata_text() -> str:
    return (_data_dir() / "datasets.json").read_text(encoding="utf-8")


def uci_metadata() -> dict:
    """Return the metadata of the shipped real datasets (a fresh copy).

    Returns
    -------
    dict
        ``licence`` and ``paper`` (citations) and ``datasets``: per name of :data:`UCI_NAMES`,
        the file, its sha256, rows, features, classes, class counts, constant features, the
        split, the paper's Table 2 values (N, d, J), source, UCI page, creators and choices.
    """
    return json.loads(_metadata_text())


@functools.lru_cache(maxsize=len(UCI_NAMES))
def _read_uci(name: str) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """The raw features, labels (as text) and column names of a shipped set, read once per process.

    The files are plain (no quoting): a header, numeric features, the label last. numpy parses
    them without importing pandas, which keeps a first load fast.
    """
    lines = gzip.decompress((_data_dir() / f"{name}.csv.gz").read_bytes()).decode("utf-8").splitlines()
    columns = lines[0].split(",")
    features, labels = zip(*(line.rsplit(",", 1) for line in lines[1:]), strict=True)
    X = np.loadtxt(features, delimiter=",", ndmin=2)
    y = np.array(labels)
    if columns[-1] != "label" or X.shape[1] != len(columns) - 1:
        raise RuntimeError(f"shipped file {name}.csv.gz is malformed")  # pragma: no cover
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y, tuple(columns[:-1])


def _subsample(X, y, n, what: str, random_state):
    """A stratified subsample of ``n`` rows (all rows when ``n`` is None)."""
    if n is None:
        return X, y
    n = check_int(n, what, low=1)
    if n > len(y):
        raise InvalidParameterError(f"{what} must be at most {len(y)} (the rows available), got {n}")
    if n == len(y):
        return X, y
    from sklearn.model_selection import train_test_split

    n_classes = len(np.unique(y))
    if n < n_classes:
        raise InvalidParameterError(f"{what} must be at least {n_classes} (one sample per class), got {n}")
    X, _, y, _ = train_test_split(X, y, train_size=n, stratify=y, random_state=random_state)
    return X, y


def _load_uci(name, n_train, n_test, random_state, standardize, test_size) -> Dataset:
    X, y, columns = _read_uci(name)
    meta = uci_metadata()["datasets"][name]
    split = meta["split"]
    if test_size is None and split["kind"] == "fixed":
        cut = split["n_train"]
        X_tr, y_tr, X_te, y_te = X[:cut], y[:cut], X[cut:], y[cut:]
        split_text = f"the paper's split: first {cut} rows / last {len(y) - cut}"
    else:
        from sklearn.model_selection import train_test_split

        test_size = split["test_size"] if test_size is None else test_size
        _check_test_size(test_size)
        if not test_size:
            raise InvalidParameterError("test_size must be positive for a shipped dataset")
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_size, stratify=y,
                                                  random_state=random_state)
        split_text = f"stratified, test_size={test_size}, random_state={random_state}"
    X_tr, y_tr = _subsample(X_tr, y_tr, n_train, "n_train", random_state)
    X_te, y_te = _subsample(X_te, y_te, n_test, "n_test", random_state)
    if n_train is not None or n_test is not None:
        split_text += f", subsampled to n_train={len(y_tr)}, n_test={len(y_te)}"
    key = (f"{name}|{meta['sha256'][:16]}|{test_size}|{random_state}|{n_train}|{n_test}|{standardize}")
    description = f"{meta['title']} (UCI, CC BY 4.0; Ha et al. 2021, Table 2); {split_text}"
    return _standardise(name, X_tr, y_tr, X_te, y_te, description=description, key=key,
                        standardize=standardize, feature_names=columns)


def describe(name: str) -> str:
    """Return a text about a named dataset: what it is, its source, the choices made and the licence.

    Parameters
    ----------
    name : str
        A name accepted by :func:`load`.

    Returns
    -------
    str
        Several lines of plain text.

    Raises
    ------
    InvalidParameterError
        If ``name`` is unknown.

    Examples
    --------
    >>> from buviz import datasets
    >>> print(datasets.describe("letter").splitlines()[0])
    letter: Letter Recognition, 20000 rows × 16 features, 26 classes
    """
    if name in MIXTURE_NAMES:
        return (f"{name}: a Gaussian mixture with exact class densities (2 features). "
                f"{_paper_classes()[name][1]}\nSampled by load(name, n_train, n_test, random_state).")
    if name == "breast_cancer":
        return ("breast_cancer: scikit-learn's load_breast_cancer, the Breast Cancer Wisconsin (Diagnostic) "
                "set, WDBC, 569 rows × 30 features, 2 classes.\nNot the paper's set: that is "
                "breast_cancer_wisconsin (the original Wisconsin set, 683 × 9).\n"
                "Split: stratified, 30 % held out, seeded by random_state.")
    if name == "wine":
        return ("wine: scikit-learn's load_wine, UCI's Wine recognition data, 178 rows × 13 features, 3 classes."
                "\nSplit: stratified, 30 % held out, seeded by random_state.")
    if name not in UCI_NAMES:
        raise InvalidParameterError(f"name must be one of {_ALL_NAMES}, got {name!r}")
    meta = uci_metadata()
    m = meta["datasets"][name]
    counts = ", ".join(f"{k}: {v}" for k, v in m["class_counts"].items())
    p = m["paper_table2"]
    if m["split"]["kind"] == "fixed":
        split = (f"the paper's: first {m['split']['n_train']} rows for training, the other "
                 f"{m['split']['n_test']} for testing (a numeric test_size gives a stratified split)")
    else:
        split = (f"none in the paper; stratified, {m['split']['test_size']:.0%} held out, seeded by "
                 f"random_state (test_size changes it)")
    lines = [
        f"{name}: {m['title']}, {m['rows']} rows × {m['features']} features, {m['classes']} classes",
        f"Class counts: {counts}.",
        f"Paper (Ha et al. 2021, Table 2): N = {p['N']}, d = {p['d']}, J = {p['J']}.",
        f"Split: {split}. load(name, n_train=..., n_test=...) draws a stratified subsample of each part "
        f"(before standardising on the training part).",
        f"Source: {m['source']}. UCI page: {m['uci']}. Creators: {m['creators']}. sha256 of the shipped file: "
        f"{m['sha256']}.",
    ]
    lines += [f"Choice: {c}" for c in m["choices"]]
    lines.append(f"Licence: {meta['licence']}")
    return "\n".join(lines)


def read_csv(source: Any, *, label_column: str | int = -1, n_features: int | None = None,
             upload: bool | None = None, max_bytes: int = MAX_CSV_BYTES, test_size: float = 0.3,
             random_state=0, name: str = "csv") -> Dataset:
    """Read a labelled CSV (numeric feature columns + one label column) into a :class:`Dataset`.

    The file is parsed by pandas as data only (no evaluation of its content). Gzip-compressed
    files (``.csv.gz``; recognised by their content) are decompressed first.

    Parameters
    ----------
    source : str, path, bytes or file object
        The CSV, as a path, bytes or a text/binary file object.
    label_column : str or int, default=-1
        The label column, by name or position.
    n_features : int or None, default=None
        Required number of feature columns; None accepts any (an upload: 2).
    upload : bool or None, default=None
        Apply the explorer's upload rules: exactly 2 feature columns (unless ``n_features`` says
        otherwise), neither of them constant (the explorer draws the 2-D sample space). None: True
        when ``source`` is bytes or a file object (what the explorer passes), False for a path.
        Otherwise a constant column is left unscaled, with a :class:`ConstantFeatureWarning`.
    max_bytes : int, default=MAX_CSV_BYTES
        Largest file accepted, compressed and decompressed.
    test_size : float, default=0.3
        Fraction held out as a test set.
    random_state : int or None, default=0
        Seed of the split.
    name : str, default="csv"
        The dataset's name.

    Returns
    -------
    Dataset
        The split.

    Raises
    ------
    InvalidParameterError
        If ``label_column`` is not a column, or ``n_features`` is not a positive integer or None.
    ValueError
        With a message fit for a user when the file is too large (compressed or not), a broken
        gzip stream, not UTF-8, empty, has non-numeric or missing feature values, the wrong number
        of feature columns, a constant feature column in an upload, or fewer than two classes.
    """
    import pandas as pd

    if upload is None:
        upload = not isinstance(source, str | os.PathLike)
    if n_features is not None:
        n_features = check_int(n_features, "n_features", low=1)
    elif upload:
        n_features = 2
    if isinstance(source, str | os.PathLike):
        size = os.path.getsize(source)
        if size > max_bytes:
            raise ValueError(f"CSV file is too large: {size} bytes (limit {max_bytes})")
        with open(source, "rb") as fh:
            raw = fh.read()
    elif isinstance(source, bytes | bytearray):
        raw = bytes(source)
    else:
        raw = source.read(max_bytes + 1)
        if isinstance(raw, str):
            raw = raw.encode()
    if len(raw) > max_bytes:
        raise ValueError(f"CSV file is too large: more than {max_bytes} bytes")
    if raw[:2] == b"\x1f\x8b":  # gzip magic number
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
                raw = gz.read(max_bytes + 1)
        except (OSError, EOFError) as exc:
            raise ValueError(f"CSV file looks gzip-compressed but could not be decompressed: {exc}") from None
        if len(raw) > max_bytes:
            raise ValueError(f"CSV file is too large once decompressed: more than {max_bytes} bytes")
    if not raw.strip():
        raise ValueError("CSV file is empty")
    if b"\x00" in raw[:65536]:
        raise ValueError("CSV file looks binary (it contains NUL bytes); upload a plain-text CSV")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("CSV file is not UTF-8 text") from None
    try:
        frame = pd.read_csv(io.StringIO(text))
    except Exception as exc:  # pandas raises several parser error types
        raise ValueError(f"CSV file could not be parsed: {exc}") from None
    if frame.shape[1] < 2 or frame.shape[0] == 0:
        raise ValueError("CSV file needs a header, at least one feature column and a label column")
    if isinstance(label_column, int):
        try:
            label_name = frame.columns[label_column]
        except IndexError:
            raise InvalidParameterError(f"label_column {label_column} is out of range") from None
    elif label_column in frame.columns:
        label_name = label_column
    else:
        raise InvalidParameterError(f"label_column {label_column!r} is not a column of the CSV")
    features = frame.drop(columns=[label_name])
    if n_features is not None and features.shape[1] != n_features:
        raise ValueError(f"CSV file must have exactly {n_features} feature columns plus a label column, "
                         f"got {features.shape[1]} feature columns")
    numeric = features.apply(pd.to_numeric, errors="coerce")
    bad_text = numeric.isna() & features.notna()
    if bad_text.any().any():
        col = bad_text.any().idxmax()
        row = int(bad_text[col].to_numpy().argmax())
        raise ValueError(f"CSV column {col!r} has non-numeric text (row {row + 1}: {features[col].iloc[row]!r})")
    if numeric.isna().any().any():
        col = numeric.isna().any().idxmax()
        raise ValueError(f"CSV column {col!r} has missing values")
    X = numeric.to_numpy(dtype=float)
    if not np.all(np.isfinite(X)):
        raise ValueError("CSV feature columns contain infinite values")
    constant = [str(c) for c, v in zip(features.columns, np.ptp(X, axis=0) == 0, strict=True) if v]
    if upload and constant:
        raise ValueError(f"CSV feature column(s) {constant} are constant: the explorer's sample space needs "
                         f"both features to vary")
    labels = frame[label_name]
    if labels.isna().any():
        raise ValueError(f"CSV label column {label_name!r} has missing values")
    if labels.nunique() < 2:
        raise ValueError(f"CSV label column {label_name!r} holds a single class; at least two are needed")
    return from_arrays(X, labels.astype(str).to_numpy(), test_size=test_size, random_state=random_state,
                       name=name, description="uploaded CSV", feature_names=list(features.columns))
