"""The ClassEx peer fixture: predictions of the reference R implementation on its own simulation.

The fixture (``buviz/data/peers/classex_public.npz``, shipped with the package; its provenance in
the ``README.md`` beside it) holds, for 30 instances of the
1-NN Gaussian simulation of Zheng, Achanta & Benjamini (2018) -- 2000 classes, 500 observed, σ² from
0.05 to 0.5 -- the observed test points and class centres, the exact 2000-class accuracy and the
reference implementation's ClassExReg and KDE predictions. :func:`peer_comparison` recomputes this
package's predictions for one instance and lays them beside the truth and the peer's numbers.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from buviz._validation import InvalidParameterError

from .._validation import check_int
from ._core import average_accuracy
from ._estimators import METHODS, fit_extrapolator

__all__ = ["CLASSEX_FIXTURE", "PEER_FIELDS", "classex_instance", "load_classex_fixture", "peer_comparison"]

#: The ClassEx fixture shipped with the package (30 instances computed by the R package's own code;
#: provenance in ``buviz/data/peers/README.md``).
CLASSEX_FIXTURE = Path(__file__).resolve().parents[1] / "data" / "peers" / "classex_public.npz"

PEER_FIELDS = {"ClassExReg": "ClassExReg", "KDE_UCV": "KDE (UCV)", "KDE_BCV": "KDE (BCV)"}
_REQUIRED = ("ys", "mu_hats", "sigma2", "truth", "k_total", "ks_train") + tuple(PEER_FIELDS)


def load_classex_fixture(path=None) -> dict:
    """Read the ClassEx fixture (the reference simulation's instances) into a dict of arrays.

    Parameters
    ----------
    path : str or path, optional
        An ``.npz`` file; default :data:`CLASSEX_FIXTURE`, the one shipped with the package.

    Returns
    -------
    dict of str to ndarray
        The fixture's fields.

    Raises
    ------
    ValueError
        Naming ``path`` if a field is missing.
    """
    if path is None:
        path = CLASSEX_FIXTURE
    with np.load(path) as z:
        d = {k: z[k] for k in z.files}
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        raise ValueError(f"path: {path} is not a ClassEx fixture (missing {missing})")
    return d


def classex_instance(fixture: dict, index: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the margins and labels of one instance of the fixture.

    Parameters
    ----------
    fixture : dict
        From :func:`load_classex_fixture`.
    index : int
        Instance number.

    Returns
    -------
    margins : ndarray of shape (k, k)
        Minus Euclidean distances, as in the reference simulation.
    labels : ndarray of shape (k,)
        ``arange(k)``.

    Raises
    ------
    InvalidParameterError
        If ``index`` is out of range.
    """
    index = check_int(index, "index", low=0, high=len(fixture["sigma2"]) - 1)
    ys, mh = fixture["ys"][index], fixture["mu_hats"][index]
    d2 = (ys**2).sum(1)[:, None] + (mh**2).sum(1)[None, :] - 2.0 * ys @ mh.T
    return -np.sqrt(np.maximum(d2, 0.0)), np.arange(len(ys))


def peer_comparison(fixture: dict, index: int, methods=("classexreg", "kde", "best", "moment"), *,
                    n_points: int = 40, random_state=0) -> dict:
    """Return every method's predicted accuracy curve for one fixture instance, with truth and peer.

    Parameters
    ----------
    fixture : dict
        From :func:`load_classex_fixture`.
    index : int
        Instance number.
    methods : sequence of str, default=("classexreg", "kde", "best", "moment")
        Among "moment", "classexreg", "kde", "best".
    n_points : int, default=40
        Points of each predicted curve, log-spaced from 2 to the total number of classes.
    random_state : int, default=0
        Seed of the estimators' bootstraps.

    Returns
    -------
    dict
        ``observed`` (ks, AverageTA_k on the observed classes, eq 3), ``estimates`` ({method:
        (k, predicted AGA_k)}), ``truth`` ((k_total,), (exact accuracy,)), ``peer`` ({label:
        prediction at k_total}), ``k_observed``, ``k_total`` and ``sigma2``.

    Raises
    ------
    InvalidParameterError
        If a method is unknown or ``index`` out of range.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large
    Multi-Class Problems", *Journal of Machine Learning Research* 19, 1-30, 2018.
    https://jmlr.org/papers/v19/17-701.html (arXiv:1712.09713)
    """
    for m in methods:
        if m not in METHODS:
            raise InvalidParameterError(f"methods must be among {METHODS}, got {m!r}")
    M, y = classex_instance(fixture, index)
    k_total = int(fixture["k_total"])
    ks = np.asarray(fixture["ks_train"])
    k_out = np.unique(np.round(np.geomspace(2, k_total, check_int(n_points, "n_points", low=2))).astype(int))
    estimates = {}
    for m in methods:
        fit = fit_extrapolator(M, y, m, ks=ks, random_state=random_state)
        estimates[m] = (k_out, fit.accuracy(k_out))
    k_obs = np.arange(2, M.shape[1] + 1)
    return {
        "observed": (k_obs, average_accuracy(M, y, k_obs)),
        "estimates": estimates,
        "truth": (np.array([k_total]), np.array([float(fixture["truth"][index])])),
        "peer": {label: float(fixture[key][index]) for key, label in PEER_FIELDS.items()},
        "k_observed": int(M.shape[1]),
        "k_total": k_total,
        "sigma2": float(fixture["sigma2"][index]),
    }
