"""Achanta's Telugu glyphs and the authors' Telugu classifier outputs, fetched by :mod:`buviz._fetch`.

The glyphs come from ``TeluguOCR/banti_training`` (two versions, :data:`TELUGU_VERSIONS`); the
20-class score matrices of the Table 1 runs and the authors' error-rate tables from ``snarles/fmri``.
Neither states a licence: downloaded, checked and cached, never shipped.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, section 5.2 and Table 1; arXiv:1606.05228.

R. Achanta and T. Hastie, "Telugu OCR Framework using Deep Learning", arXiv:1509.05962, 2015.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from buviz._fetch import (
    DataFetchError,
    ImageSet,
    ImageSplit,
    RemoteFile,
    _ensure,
    _file_sha,
    _manifest_text,
)
from buviz._validation import InvalidParameterError

__all__ = ["TELUGU_VERSIONS", "TeluguScores", "fetch_telugu", "fetch_telugu_glyphs", "fetch_telugu_scores"]


# -- Telugu glyphs ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _TeluguVersion:
    repo: str
    commit: str
    prefix: str          # e.g. "data/alpha_rel48"
    images: str          # folder of the per-class tiles
    sha: dict            # "labels"/"meta"/"lines" -> sha256
    manifest: str        # shipped per-tile sha256 list
    converted: str
    converted_sha: str | None
    date: str


#: The two versions of Achanta's 48 × 48 glyph set in ``TeluguOCR/banti_training``.
TELUGU_VERSIONS = {
    "banti2017": _TeluguVersion(
        "TeluguOCR/banti_training", "a1cbeb0d46f274998bb160b239d2537215eb8351", "data/alpha_rel48",
        "data/alpha_rel48.images",
        {"labels": "d2ff2fd71b31fb818835e9473162f557ce75ee935245d54debdcf5589843f2d9",
         "meta": "7ff8a5aa35b6070ffb52da2f79901368e101b3d54a897a705f8109f6d69a503b",
         "lines": "f926553a6f1358e38a396f88869718951237d85bf6bd2c58891a84a51ce4dae4"},
        "bmp_manifest_banti2017_a1cbeb0.sha256", "telugu_glyphs48_banti2017.npz",
        "23665dfcded69d12a1cbfe0614a7709edac185a3569c0874e8834514b3aab6b3", "2017-01-31"),
    "banti2021": _TeluguVersion(
        "TeluguOCR/banti_training", "6e489d9b43e55aa29772d56d100c61f4ee7c6621", "data/data48/alpha_relative48",
        "data/data48/alpha_relative48.images_bmps",
        {"labels": "2c8da42f9b3d5c73b1ba1824381e29c4a3285a046349d506acc4e1647f4d3dc5",
         "meta": "04e5282387d587a04ee5251de79b94148b70f85e21dff10ff4f37e4cd1e71a75",
         "lines": "3546131cf0adbb9a9c9f061d8aa5ebc5bc66d65925d6b5ac4d90afb037a6f694"},
        "bmp_manifest_banti2021_6e489d9.sha256", "telugu_glyphs48_banti2021.npz",
        "b5fd023306fb8bb16dbbdbdacf7aca4f47bae12d6b7e3a39f95ca49161dd8625", "2021-07-28"),
}

_GLYPH = 48
_CELL = _GLYPH + 1  # tiles have a 1-pixel margin between cells


def _tile_manifest(v: _TeluguVersion) -> dict[str, str]:
    """Tile file name -> sha256, from the shipped manifest."""
    out = {}
    for line in _manifest_text(v.manifest).splitlines():
        if line.strip():
            sha, name = line.split("  ", 1)
            out[name] = sha
    return out


def _telugu_remotes(v: _TeluguVersion) -> list[RemoteFile]:
    files = [RemoteFile(v.repo, v.commit, f"{v.prefix}.{part}.bz2", v.sha[part], compression="bzip2")
             for part in ("labels", "meta", "lines")]
    files += [RemoteFile(v.repo, v.commit, f"{v.images}/{name}", sha) for name, sha in _tile_manifest(v).items()]
    return files


def _tile_layout(n: int) -> tuple[int, int]:
    """Rows and columns of a class's tile: ``w = n // int(sqrt(n))`` columns, ``ceil(n / w)`` rows."""
    w = n // math.isqrt(n)
    return math.ceil(n / w), w


def cut_tile(tile: np.ndarray, n: int) -> np.ndarray | None:
    """Cut a class's tiled image into its ``n`` 48 × 48 glyphs (ink = 1), or None if it does not fit.

    A tile fits if its size is that of ``n`` cells laid out by the repository's script and every cell
    holds only the values 0 and 255 (stale tiles left over from older label maps have grey margin
    pixels inside their cells).
    """
    h, w = _tile_layout(n)
    if tile.shape != (h * _CELL - 1, w * _CELL - 1):
        return None
    rows, cols = np.divmod(np.arange(n), w)
    cells = np.stack([tile[r * _CELL:r * _CELL + _GLYPH, c * _CELL:c * _CELL + _GLYPH]
                      for r, c in zip(rows, cols, strict=True)])
    if not np.isin(cells, (0, 255)).all():
        return None
    return (cells == 255).astype(np.uint8)


def _convert_telugu(v: _TeluguVersion):
    def convert(originals: dict[str, Path], out: Path) -> None:
        from PIL import Image

        def read(part):
            return json.loads(originals[f"{v.prefix}.{part}.bz2"].read_text(encoding="utf-8"))  # decompressed

        label = np.asarray(read("labels"), dtype=np.int64)
        meta = read("meta")
        lines = np.asarray(read("lines"), dtype=np.float32)
        if not (len(label) == len(meta) == len(lines)):
            raise DataFetchError("labels, meta and lines of the Telugu data differ in length")
        glyph = np.array([m[2] for m in meta])
        n_labels = int(label.max()) + 1
        aliases = [sorted(set(glyph[label == c].tolist())) for c in range(n_labels)]
        tiles = {p.rsplit("/", 1)[1][:-4]: path for p, path in originals.items() if p.startswith(v.images + "/")}
        names, images, keep = [], {}, np.zeros(len(label), bool)
        for c in range(n_labels):
            rows = np.flatnonzero(label == c)
            chosen = aliases[c][0] if aliases[c] else ""
            # aliases in reverse code-point order; the first clean tile of the right size wins
            for a in sorted(aliases[c], reverse=True):
                if a not in tiles:
                    continue
                cells = cut_tile(np.asarray(Image.open(tiles[a]).convert("L")), len(rows))
                if cells is not None:
                    chosen, images[c] = a, cells
                    keep[rows] = True
                    break
            names.append(chosen)
        X = np.zeros((len(label), _GLYPH * _GLYPH), np.uint8)
        for c, cells in images.items():
            X[label == c] = cells.reshape(len(cells), -1)
        idx = np.flatnonzero(keep)
        np.savez_compressed(out / v.converted, X_packed=np.packbits(X[idx], axis=1), label=label[idx].astype(np.int16),
                            font=np.array([meta[i][0] for i in idx]), style=np.array([meta[i][1] for i in idx]),
                            glyph=glyph[idx], lines=lines[idx], source_index=idx.astype(np.int32),
                            class_name=np.array(names), class_aliases=np.array(["|".join(a) for a in aliases]))
    return convert


def _check_version(version: str) -> _TeluguVersion:
    if version not in TELUGU_VERSIONS:
        raise InvalidParameterError(f"version must be one of {tuple(TELUGU_VERSIONS)}, got {version!r}")
    return TELUGU_VERSIONS[version]


def fetch_telugu_glyphs(version: str = "banti2017", *, data_dir=None, base_url: str | None = None,
                        download: bool = True) -> ImageSet:
    """Return all of Achanta's 48 × 48 binary Telugu glyphs (the paper's OCR data source).

    Parameters
    ----------
    version : {"banti2017", "banti2021"}, default="banti2017"
        ``TeluguOCR/banti_training`` at commit a1cbeb0 (January 2017, the closer in time to the paper's
        runs of May 2016; 456 of its 457 classes have images) or 6e489d9 (July 2021, re-rendered, 457).
    data_dir : path-like, optional
        Data folder (default ``$BUVIZ_DATA_DIR``, else ``~/.cache/buviz/data``).
    base_url : str, optional
        Server of the raw files (default ``$BUVIZ_DATA_URL``, else raw.githubusercontent.com).
    download : bool, default=True
        Whether to download when the cache lacks the converted file.

    Returns
    -------
    ImageSet
        About 73 500 bit-packed glyphs; ``meta`` has ``font``, ``style``, ``glyph``, ``lines``,
        ``source_index`` and ``class_aliases``.

    Raises
    ------
    DataFetchError
        If the file is not cached and cannot be downloaded (the message says where to put it).
    ChecksumError
        If a downloaded original does not match its pinned sha256.
    """
    v = _check_version(version)
    home = _ensure({v.converted: v.converted_sha}, _telugu_remotes(v), _convert_telugu(v),
                   data_dir=data_dir, base_url=base_url, download=download)
    path = home / v.converted
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = {k: arrays[k] for k in ("font", "style", "glyph", "lines", "source_index", "class_aliases")}
    desc = (f"Telugu glyphs 48x48 ({version}: github.com/{v.repo} at {v.commit[:7]}, {v.date}; licence "
            "not stated; Achanta & Hastie 2015, arXiv:1509.05962)")
    return ImageSet(name=f"telugu_{version}", X=arrays["X_packed"], label=arrays["label"].astype(np.int64),
                    class_name=arrays["class_name"], image_shape=(_GLYPH, _GLYPH), packed=True, meta=meta,
                    description=desc, sha256=_file_sha(path))


def fetch_telugu(version: str = "banti2017", n_classes: int = 400, n_train: int = 50, n_test: int = 50, *,
                 min_per_class: int = 100, random_state=0, data_dir=None, base_url: str | None = None,
                 download: bool = True) -> ImageSplit:
    """Return a paper-shaped split of the Telugu glyphs: 400 classes × (50 train + 50 test).

    Zheng, Achanta & Benjamini (Table 1) used 400 glyph classes with 50 training and 50 test samples
    each; which 400 and which samples is not recorded, so this draws a seeded split of that shape from
    the classes with at least ``min_per_class`` samples (450 of 456 in banti2017, 451 of 457 in banti2021).

    Parameters
    ----------
    version : {"banti2017", "banti2021"}, default="banti2017"
        See :func:`fetch_telugu_glyphs`.
    n_classes, n_train, n_test : int, default=400, 50, 50
        Classes, and samples of each class in the training and the test part.
    min_per_class : int, default=100
        Samples a class needs to be eligible.
    random_state : int, default=0
        Seed of the draws.
    data_dir, base_url, download
        See :func:`fetch_telugu_glyphs`.

    Returns
    -------
    ImageSplit
        ``X_*`` of shape (n, 2304), values 0/1 (ink = 1).

    Examples
    --------
    >>> from buviz.datasets import fetch_telugu
    >>> ds = fetch_telugu(n_classes=20, random_state=1)  # doctest: +SKIP
    >>> ds.X_train.shape, ds.X_test.shape  # doctest: +SKIP
    ((1000, 2304), (1000, 2304))
    """
    glyphs = fetch_telugu_glyphs(version, data_dir=data_dir, base_url=base_url, download=download)
    return glyphs.split(n_classes, n_train, n_test, min_per_class=min_per_class, random_state=random_state)


# -- the authors' score matrices ----------------------------------------------------------------------
_FMRI = ("snarles/fmri", "43c81b184745ca7ea462400ef2d576967cc5b86b")
_SCORES = "telugu_scores_20class.npz"
_SCORES_SHA = "94eb4c6cc97960aab42008247911c116e9bb37a6273225b568d769caec2ef4ab"  # the shared folder's copy
_TABLES_DIR = "telugu_scores_original_tables"
#: The authors' error-rate tables: cached name -> (path in snarles/fmri, sha256); stored verbatim.
_TABLES = {
    "err_rates.delim": ("rakesh/error_rates/err_rates.delim",
                        "2b9c0ab40eea5b621d61f65660037f1fc453a04df608a79d2d94dbdc1382a55a"),
    "knn400.txt": ("rakesh/error_rates/knn400.txt", "0e491e15ef5db08973b6411f865f92c33e3f00b7e6027eef26f20f85cd4f004d"),
    "knn20a.txt": ("rakesh/error_rates/knn20a.txt", "5b55af57cc7bee66df561746d5c43c6ef95e648ca52cfb50b939e7b16b5b0bbe"),
    "knn20b.txt": ("rakesh/error_rates/knn20b.txt", "f4dd53d95ea32e2d5c1cdf554225d33be8cab4a39f9c729d5365f9e126146a90"),
    "knn20c.txt": ("rakesh/error_rates/knn20c.txt", "ad9f2406737d2dbdbc5a1c02dd3e0d27a793a848309f7c2f330d2d958d2d9b76"),
    "knn20d.txt": ("rakesh/error_rates/knn20d.txt", "ebb4d4941827077363e0de4e9a22d482e5d546bf873d8df3d78a1521c3469953"),
    "knn20e.txt": ("rakesh/error_rates/knn20e.txt", "71e1faf7e5da2a6effadae3cd1382a43bad553fb6b5709adae78581784d6e482"),
    "train_tel_error_rates.txt": ("rakesh/train_tel/error_rates",
                                  "b28a1a85598ae65261490ddd9d98d16af5483760741ad7c055f509c72ae38bdf"),
}


def scores_manifest() -> list[dict]:
    """Return the shipped manifest of the authors' 20-class score matrices (one dict per matrix).

    Returns
    -------
    list of dict
        ``key`` (the cached npz's key: the path with ``/`` -> ``__``), ``path`` (in snarles/fmri),
        ``sha256``, ``classifier``, ``seed``, ``k_neighbours`` (kNN only, else None), ``n_classes``.
    """
    rows = list(csv.DictReader(io.StringIO(_manifest_text("telugu_scores_manifest.csv"))))
    for r in rows:
        r["seed"] = int(r["seed"])
        r["n_classes"] = int(r["n_classes"])
        r["k_neighbours"] = int(r["k_neighbours"]) if r["k_neighbours"] else None
    return rows


def _read_matrix(raw: bytes, path: str) -> np.ndarray:
    M = np.loadtxt(io.StringIO(raw.decode("ascii")), ndmin=2)
    if M.shape[1] != 50 * M.shape[0]:
        raise DataFetchError(f"{path}: expected K rows x 50K columns, got {M.shape}")
    return M


def _convert_scores(rows):
    def convert(originals: dict[str, Path], out: Path) -> None:
        np.savez_compressed(out / _SCORES, **{r["key"]: _read_matrix(originals[r["path"]].read_bytes(), r["path"])
                                              for r in rows})
        (out / _TABLES_DIR).mkdir()
        for name, (path, _sha) in _TABLES.items():
            shutil.copyfile(originals[path], out / _TABLES_DIR / name)
    return convert


def _read_table(path: Path):
    import pandas as pd

    text = path.read_text(encoding="utf-8").replace("#N", "N")
    df = pd.read_csv(io.StringIO(text), sep=r"\s+", dtype=str)
    for col in df.columns:
        values = df[col].str.rstrip("%")
        num = pd.to_numeric(values, errors="coerce")
        if num.notna().all():
            df[col] = num / 100 if df[col].str.endswith("%").all() else num
    return df


@dataclass
class TeluguScores:
    """The authors' classifier outputs for Table 1 of Zheng, Achanta & Benjamini, and their error tables.

    Attributes
    ----------
    matrices : dict of str -> ndarray
        Each matrix as published: K rows (candidate classes) × 50K columns (test samples, 50 per class in
        class order); log-probabilities (softmax output) for the networks, neighbour counts for kNN.
    index : pandas.DataFrame
        One row per matrix: ``key``, ``path``, ``sha256``, ``classifier``, ``seed``, ``k_neighbours``,
        ``n_classes`` and the recomputed ``test_accuracy`` (ties split evenly).
    error_rates : pandas.DataFrame
        ``err_rates.delim``: train and test error (%) of the networks at 20 and 400 classes.
    train_tel_error_rates : pandas.DataFrame
        ``train_tel/error_rates``: deepslim (the CNN), logistic, svm at 20, 100, 400 classes (%).
    knn400 : pandas.DataFrame
        kNN accuracies with all 400 classes, by the number of neighbours N (fractions).
    knn20 : dict of str -> pandas.DataFrame
        The same for five 20-class subsets ``"a"`` .. ``"e"``.
    description : str
        Source and licence.
    """

    matrices: dict
    index: object
    error_rates: object
    train_tel_error_rates: object
    knn400: object
    knn20: dict
    description: str = ""

    def margins(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(margins, labels)`` of one matrix in buviz's layout (test samples × classes).

        Parameters
        ----------
        key : str
            A key of :attr:`matrices` (or a unique suffix of one, e.g. ``"logistic_111938.logprobs"``).

        Returns
        -------
        margins : ndarray of shape (50K, K)
            Score of every class at every test sample (the matrix transposed).
        labels : ndarray of int, shape (50K,)
            True class: column ``j`` is of class ``j // 50``.
        """
        matches = [k for k in self.matrices if k == key] or [k for k in self.matrices if k.endswith(key)]
        if len(matches) != 1:
            raise InvalidParameterError(f"key must name one matrix (a key or a unique suffix), got {key!r} "
                                        f"({len(matches)} matches)")
        M = self.matrices[matches[0]]
        return M.T.copy(), np.arange(M.shape[1]) // 50


def _tie_accuracy(M: np.ndarray) -> float:
    """Test accuracy with ties split evenly among the tied top classes."""
    y = np.arange(M.shape[1]) // 50
    top = M.max(axis=0)
    at_top = M == top
    return float(np.mean(at_top[y, np.arange(M.shape[1])] / at_top.sum(axis=0)))


def fetch_telugu_scores(*, data_dir=None, base_url: str | None = None, download: bool = True) -> TeluguScores:
    """Return the authors' 20-class score matrices of the Table 1 runs and their error-rate tables.

    From ``github.com/snarles/fmri`` (Charles Zheng) at commit 43c81b1, folder ``rakesh/``: the
    outputs of Rakesh Achanta's classifiers on 20-class subsets of the Telugu glyphs (logistic, SVM,
    their noise-regularised versions, kNN for six k, the CNN "deepslim"), 57 matrices, and the
    train/test error tables of the same classifiers on 400 classes. No licence is stated; the files are
    downloaded, checked and cached, never shipped.

    Parameters
    ----------
    data_dir, base_url, download
        See :func:`fetch_telugu_glyphs`.

    Returns
    -------
    TeluguScores

    Raises
    ------
    DataFetchError, ChecksumError
        As :func:`fetch_telugu_glyphs`.
    """
    import pandas as pd

    rows = scores_manifest()
    remotes = [RemoteFile(*_FMRI, r["path"], r["sha256"]) for r in rows]
    remotes += [RemoteFile(*_FMRI, path, sha) for path, sha in _TABLES.values()]
    targets = {_SCORES: _SCORES_SHA} | {f"{_TABLES_DIR}/{name}": sha for name, (_p, sha) in _TABLES.items()}
    home = _ensure(targets, remotes, _convert_scores(rows), data_dir=data_dir, base_url=base_url, download=download)
    with np.load(home / _SCORES, allow_pickle=False) as z:
        missing = [r["key"] for r in rows if r["key"] not in z.files]
        if missing:
            raise DataFetchError(f"{home / _SCORES} lacks the matrices {missing[:3]}...; delete it to re-fetch")
        matrices = {r["key"]: z[r["key"]] for r in rows}
    index = pd.DataFrame(rows)
    index["k_neighbours"] = index["k_neighbours"].astype("Int64")
    index["test_accuracy"] = [_tie_accuracy(matrices[k]) for k in index["key"]]
    tables = home / _TABLES_DIR
    err = _read_table(tables / "err_rates.delim")
    return TeluguScores(
        matrices=matrices, index=index, error_rates=err,
        train_tel_error_rates=_read_table(tables / "train_tel_error_rates.txt"),
        knn400=_read_table(tables / "knn400.txt"),
        knn20={c: _read_table(tables / f"knn20{c}.txt") for c in "abcde"},
        description=(f"the authors' Telugu classifier outputs (github.com/{_FMRI[0]} at {_FMRI[1][:7]}, "
                     "folder rakesh/; licence not stated)"))
