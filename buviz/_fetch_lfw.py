"""The authors' saved LFW predictions (Zheng, Achanta & Benjamini, Fig 12), read from the cache of
:mod:`buviz._fetch` (no licence stated: never shipped, never downloaded).

Two forms are read: the authors' own R file ``lfw_sub_preds.rds`` (read with the maintained R-data
reader `rdata <https://rdata.readthedocs.io>`_, ``pip install rdata``: no hand conversion), and the CSV
converted from it for the project's shared data folder. The R file is what ``saveRDS(accs_final, file =
"lfw_sub_preds.rds")`` writes in the authors' ``facerec`` script: a named list, one numeric vector of
replicate predictions per subsample size K (names ``"50"``, ``"100"``, ...).

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, Fig 12; arXiv:1606.05228.
"""

from __future__ import annotations

from buviz._fetch import DATA_ENV, DataFetchError, _file_sha, _valid, data_home

__all__ = ["fetch_lfw_predictions", "read_lfw_rds"]


# -- the authors' saved LFW predictions ---------------------------------------------------------------
#: The converted file of ``snarles/fmri``'s ``lfw_sub_preds.rds`` (commit 444588e, 300 replicates) and
#: ``facerec/lfw_sub_preds.rds`` (commit 345d29f, 50 replicates): one row per replicate.
_LFW_PREDICTIONS = ("lfw_subsample_predictions_authors.csv",
                    "cf50116e06fe0509036614ebab16a8d17c56ac1f85f7df51159f94a0dff88c1d")
#: The authors' R file (``snarles/fmri``, top level, commit 444588e, July 2017, 300 replicates per K) and
#: the first 8 hex digits of its sha256 (the full digest and commit id were not recorded offline).
_LFW_RDS = ("lfw_sub_preds.rds", "c4b9b044")
_LFW_RDS_SOURCE = "lfw_sub_preds.rds (top level, 300 reps, commit 444588e Jul 2017)"
_LFW_SOURCE = "github.com/snarles/fmri: lfw_sub_preds.rds (commit 444588e) and facerec/lfw_sub_preds.rds (345d29f)"


def fetch_lfw_predictions(*, data_dir=None):
    """Return the authors' own saved LFW predictions of the 1672-class accuracy (Zheng et al., Fig 12).

    Each row is one replicate: a random subsample of ``K_subsample`` of the 1672 people, from which the
    authors' moment method (10 000-knot linear spline) predicted the 1672-class one-shot 1-NN accuracy
    (``predicted_acc_1672``); ``source`` names the saved R file it comes from. The files state no licence,
    so buviz neither ships nor downloads them. In the cache folder, the authors' own R file
    ``lfw_sub_preds.rds`` is read first (with :func:`read_lfw_rds`: the R-data reader ``rdata``, its
    sha256 prefix checked); else the CSV converted from their files, checked against its pinned sha256.

    Parameters
    ----------
    data_dir : path-like, optional
        The data folder (its ``zheng/`` sub-folder holds the file); default ``$BUVIZ_DATA_DIR``, else
        ``~/.cache/buviz/data``.

    Returns
    -------
    pandas.DataFrame
        Columns ``source``, ``K_subsample``, ``replicate``, ``predicted_acc_1672`` (1450 rows from the
        CSV; from the R file, its 300 replicates per K).

    Raises
    ------
    DataFetchError
        If neither file is there, a sha256 differs, or the R file is there and ``rdata`` is not
        installed; the message names the files and the folder.
    """
    import pandas as pd

    name, sha = _LFW_PREDICTIONS
    home = data_home(data_dir)
    rds = home / _LFW_RDS[0]
    if rds.is_file():
        return read_lfw_rds(rds)
    if not _valid(home / name, sha):
        why = "its sha256 differs" if (home / name).exists() else "no cached copy"
        raise DataFetchError(f"{why}. buviz needs {name} or {_LFW_RDS[0]} in {home} (the authors' saved predictions, "
                             f"the R files of {_LFW_SOURCE}; no licence stated, so not shipped): copy one "
                             f"there, or set ${DATA_ENV} to a folder whose zheng/ sub-folder holds it")
    return pd.read_csv(home / name)


def read_lfw_rds(path, *, source: str = _LFW_RDS_SOURCE, check_sha: bool = True):
    """Read the authors' ``lfw_sub_preds.rds`` with the R-data reader ``rdata`` into one row per replicate.

    Parameters
    ----------
    path : path-like
        The R file: a named list of numeric vectors, one per subsample size K (``saveRDS(accs_final)``).
    source : str
        The ``source`` column of the result (which saved file the rows come from).
    check_sha : bool, default=True
        Check that the file's sha256 starts with the recorded prefix of the authors' 300-replicate file.

    Returns
    -------
    pandas.DataFrame
        Columns ``source``, ``K_subsample``, ``replicate`` (1, 2, ...) and ``predicted_acc_1672``, the same
        as :func:`fetch_lfw_predictions`, ordered by K.

    Raises
    ------
    DataFetchError
        If ``rdata`` is not installed, the sha256 prefix differs, or the object is not a named list of
        numeric vectors.
    """
    from pathlib import Path

    import numpy as np
    import pandas as pd

    path = Path(path)
    if check_sha and not _file_sha(path).startswith(_LFW_RDS[1]):
        raise DataFetchError(f"{path}: its sha256 does not start with {_LFW_RDS[1]} (the authors' "
                             f"{_LFW_RDS[0]} of {_LFW_SOURCE})")
    try:
        import rdata
    except ImportError as exc:
        raise DataFetchError(f"reading {path.name} needs the R-data reader: pip install rdata") from exc
    obj = rdata.read_rds(path)
    if not isinstance(obj, dict) or not obj:
        raise DataFetchError(f"{path}: expected a named list of numeric vectors (one per K), got {type(obj).__name__}")
    rows = []
    for k, v in sorted(((int(str(k)), np.atleast_1d(np.asarray(v, float))) for k, v in obj.items())):
        rows.append(pd.DataFrame({"source": source, "K_subsample": k, "replicate": np.arange(1, len(v) + 1),
                                  "predicted_acc_1672": v}))
    return pd.concat(rows, ignore_index=True)
