"""The authors' saved LFW predictions (Zheng, Achanta & Benjamini, Fig 12), read from the cache of
:mod:`buviz._fetch` (no licence stated: never shipped, never downloaded).

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, Fig 12; arXiv:1606.05228.
"""

from __future__ import annotations

from buviz._fetch import DATA_ENV, DataFetchError, _valid, data_home

__all__ = ["fetch_lfw_predictions"]


# -- the authors' saved LFW predictions ---------------------------------------------------------------
#: The converted file of ``snarles/fmri``'s ``lfw_sub_preds.rds`` (commit 444588e, 300 replicates) and
#: ``facerec/lfw_sub_preds.rds`` (commit 345d29f, 50 replicates): one row per replicate.
_LFW_PREDICTIONS = ("lfw_subsample_predictions_authors.csv",
                    "cf50116e06fe0509036614ebab16a8d17c56ac1f85f7df51159f94a0dff88c1d")
_LFW_SOURCE = "github.com/snarles/fmri: lfw_sub_preds.rds (commit 444588e) and facerec/lfw_sub_preds.rds (345d29f)"


def fetch_lfw_predictions(*, data_dir=None):
    """Return the authors' own saved LFW predictions of the 1672-class accuracy (Zheng et al., Fig 12).

    Each row is one replicate: a random subsample of ``K_subsample`` of the 1672 people, from which the
    authors' moment method (10 000-knot linear spline) predicted the 1672-class one-shot 1-NN accuracy
    (``predicted_acc_1672``); ``source`` names the saved R file it comes from. The files state no licence,
    so buviz neither ships nor converts them: the converted CSV must be in the cache folder, where it is
    checked against its pinned sha256.

    Parameters
    ----------
    data_dir : path-like, optional
        The data folder (its ``zheng/`` sub-folder holds the file); default ``$BUVIZ_DATA_DIR``, else
        ``~/.cache/buviz/data``.

    Returns
    -------
    pandas.DataFrame
        Columns ``source``, ``K_subsample``, ``replicate``, ``predicted_acc_1672`` (1450 rows).

    Raises
    ------
    DataFetchError
        If the file is absent or its sha256 differs; the message names the file and the folder.
    """
    import pandas as pd

    name, sha = _LFW_PREDICTIONS
    home = data_home(data_dir)
    if not _valid(home / name, sha):
        why = "its sha256 differs" if (home / name).exists() else "no cached copy"
        raise DataFetchError(f"{why}. buviz needs {name} in {home} (the authors' saved predictions, converted "
                             f"from the R files of {_LFW_SOURCE}; no licence stated, so not shipped): copy it "
                             f"there, or set ${DATA_ENV} to a folder whose zheng/ sub-folder holds it")
    return pd.read_csv(home / name)
