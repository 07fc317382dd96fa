"""Download, check, convert and cache the real data of the accuracy-extrapolation papers.

The Telugu glyphs (Achanta & Hastie 2015) and the authors' classifier outputs for Table 1 of Zheng,
Achanta & Benjamini state no licence, so buviz does not ship them: like scikit-learn's ``fetch_*``
loaders, the functions here download the original files from their public GitHub repositories at
pinned commits (raw files), check each file's sha256 against the manifest shipped in
``buviz/data/zheng/``, convert them to numpy arrays and keep the converted files in a cache:

- the data folder is ``data_dir``, else ``$BUVIZ_DATA_DIR``, else ``~/.cache/buviz/data``; the files
  live in its ``zheng/`` sub-folder, under the same names as in the project's shared data folder, so a
  folder holding the converted files (``BUVIZ_DATA_DIR=/path/to/datasets`` with ``datasets/zheng/``)
  is used as it is, without any network;
- the server is ``base_url``, else ``$BUVIZ_DATA_URL``, else ``https://raw.githubusercontent.com``; a
  file is read from ``{base_url}/{owner}/{repo}/{commit}/{path}``;
- a download goes to a temporary file that replaces its target only when complete and checked, so an
  interrupted download or a bad checksum leaves no file behind; offline with no cache, the error names
  the files and the folder to put them in.

Omniglot (Lake, Salakhutdinov & Tenenbaum 2015; MIT licence) is fetched the same way: its 32 × 32 grey
version alone is 3.4 MB, larger than all of buviz's shipped data together, so it is not shipped either.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, section 5.2 and Table 1; arXiv:1606.05228.

R. Achanta and T. Hastie, "Telugu OCR Framework using Deep Learning", arXiv:1509.05962, 2015.

B. M. Lake, R. Salakhutdinov and J. B. Tenenbaum, "Human-level concept learning through
probabilistic program induction", *Science* 350(6266), 1332-1338, 2015.
"""

from __future__ import annotations

import bz2
import csv
import functools
import hashlib
import http.client
import io
import json
import math
import os
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from buviz._validation import InvalidParameterError, check_int

__all__ = [
    "DataFetchError", "ChecksumError", "RemoteFile", "ImageSet", "ImageSplit", "TeluguScores",
    "TELUGU_VERSIONS", "data_home", "fetch_telugu", "fetch_telugu_glyphs", "fetch_telugu_scores",
    "fetch_omniglot", "fetch_lfw_predictions",
]

DATA_ENV = "BUVIZ_DATA_DIR"
URL_ENV = "BUVIZ_DATA_URL"
DEFAULT_BASE_URL = "https://raw.githubusercontent.com"
SUBDIR = "zheng"
_CHUNK = 1 << 16


class DataFetchError(OSError):
    """A data file could not be obtained: no cache, and the download failed or was refused."""


class ChecksumError(DataFetchError):
    """A downloaded file's sha256 differs from the pinned one (the file is discarded)."""


@dataclass(frozen=True)
class RemoteFile:
    """One original file of a public GitHub repository at a pinned commit.

    Parameters
    ----------
    repo : str
        ``owner/name``.
    commit : str
        The commit (40 hex digits) the file is read at.
    path : str
        The file's path in the repository.
    sha256 : str
        Its sha256 (hex), checked after the download.
    """

    repo: str
    commit: str
    path: str
    sha256: str

    def url(self, base_url: str) -> str:
        """The raw-file address ``{base_url}/{repo}/{commit}/{path}`` (the path percent-encoded)."""
        return f"{base_url.rstrip('/')}/{self.repo}/{self.commit}/{urllib.parse.quote(self.path)}"


# -- where things are ----------------------------------------------------------------------------------
def data_home(data_dir: str | os.PathLike | None = None) -> Path:
    """Return the folder holding the converted files: ``<data folder>/zheng``.

    Parameters
    ----------
    data_dir : path-like, optional
        The data folder; default ``$BUVIZ_DATA_DIR``, else ``~/.cache/buviz/data``.

    Returns
    -------
    Path
        ``<data folder>/zheng`` (not created).
    """
    root = data_dir if data_dir is not None else os.environ.get(DATA_ENV) or Path.home() / ".cache" / "buviz" / "data"
    return Path(root).expanduser() / SUBDIR


def _base_url(base_url: str | None) -> str:
    url = base_url if base_url is not None else os.environ.get(URL_ENV) or DEFAULT_BASE_URL
    if not isinstance(url, str) or not url.startswith(("http://", "https://", "file://")):
        raise InvalidParameterError(f"base_url must be an http(s):// or file:// address, got {url!r}")
    return url


def _manifest_text(name: str) -> str:
    return (resources.files("buviz") / "data" / "zheng" / name).read_text(encoding="utf-8")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


@functools.lru_cache(maxsize=64)
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    return _sha256(Path(path))


def _file_sha(path: Path) -> str:
    st = path.stat()
    return _sha256_cached(str(path), st.st_size, st.st_mtime_ns)


def _valid(path: Path, reference: str | None) -> bool:
    """A cached converted file is valid if its sha256 is the reference conversion's or the one recorded
    beside it (``<name>.sha256``) when buviz converted it here."""
    if not path.is_file():
        return False
    sha = _file_sha(path)
    if reference is not None and sha == reference:
        return True
    side = path.with_name(path.name + ".sha256")
    return side.is_file() and side.read_text(encoding="ascii").split()[:1] == [sha]


# -- downloading ---------------------------------------------------------------------------------------
def _missing_message(where: Path, names: list[str], remotes: list[RemoteFile], base_url: str, why: str) -> str:
    names = ", ".join(names)
    first = remotes[0].url(base_url) if remotes else base_url
    more = f" and {len(remotes) - 1} more" if len(remotes) > 1 else ""
    return (f"{why}. buviz needs {names} in {where}: copy the converted file(s) there (or set ${DATA_ENV} to a "
            f"folder whose zheng/ sub-folder holds them), or let buviz download the originals ({first}{more}; "
            f"set ${URL_ENV} or pass base_url= for a mirror)")


def _download(remote: RemoteFile, dest: Path, base_url: str, timeout: float = 60.0) -> Path:
    """Download one file to ``dest``, checking its length and sha256; nothing is left on failure."""
    url = remote.url(base_url)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".part-", dir=dest.parent)
    try:
        h = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
            expected = response.headers.get("Content-Length")
            n = 0
            for chunk in iter(lambda: response.read(_CHUNK), b""):
                out.write(chunk)
                h.update(chunk)
                n += len(chunk)
        if expected is not None and n != int(expected):
            raise DataFetchError(f"download of {url} was interrupted: {n} of {expected} bytes")
        if h.hexdigest() != remote.sha256:
            raise ChecksumError(f"{url} has sha256 {h.hexdigest()}, expected {remote.sha256} (file discarded)")
        os.replace(tmp, dest)
        return dest
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _ensure(targets: dict[str, str | None], remotes: list[RemoteFile], convert, *, data_dir, base_url,
            download: bool) -> Path:
    """Return the folder holding ``targets`` (name -> reference sha256), fetching and converting if needed.

    ``convert(originals: dict[path, Path], out: Path)`` writes every target into ``out``.
    """
    home = data_home(data_dir)
    if all(_valid(home / name, ref) for name, ref in targets.items()):
        return home
    base = _base_url(base_url)
    present = [home / name for name, ref in targets.items() if (home / name).exists() and not _valid(home / name, ref)]
    if not download:
        why = ("the cached file(s) " + ", ".join(p.name for p in present) + " do not match their sha256"
               if present else "no cached copy, and download=False")
        raise DataFetchError(_missing_message(home, list(targets), remotes, base, why))
    home.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".fetch-", dir=home))
    try:
        originals = {}
        for i, r in enumerate(remotes):
            try:
                originals[r.path] = _download(r, work / "orig" / f"{i:05d}", base)
            except urllib.error.URLError as exc:
                reason = getattr(exc, "reason", exc)
                raise DataFetchError(_missing_message(home, list(targets), remotes, base,
                                                      f"could not download {r.url(base)} ({reason})")) from exc
            except (OSError, EOFError, ValueError, http.client.HTTPException) as exc:
                if isinstance(exc, DataFetchError):
                    raise
                raise DataFetchError(f"download of {r.url(base)} failed ({type(exc).__name__}: {exc}); "
                                     "nothing was cached, try again") from exc
        out = work / "out"
        out.mkdir()
        convert(originals, out)
        for name in targets:
            made, target = out / name, home / name
            side = made.with_name(made.name + ".sha256")
            side.write_text(f"{_sha256(made)}  {made.name}\n", encoding="ascii")
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(side, target.with_name(target.name + ".sha256"))
            os.replace(made, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return home


# -- containers ----------------------------------------------------------------------------------------
@dataclass
class ImageSet:
    """A labelled image collection (all samples), images stored bit-packed or as bytes.

    Parameters
    ----------
    name : str
        ``"telugu_banti2017"``, ``"telugu_banti2021"``, ``"omniglot32"`` or ``"omniglot105"``.
    X : ndarray of uint8, shape (n_samples, n_bytes)
        Bit-packed binary images (``packed=True``, ink = 1) or grey images flattened (ink intensity).
    label : ndarray of int, shape (n_samples,)
        Class of each sample (an index into ``class_name``).
    class_name : ndarray of str, shape (n_labels,)
        Name of each class.
    image_shape : tuple of int
        ``(height, width)``.
    packed : bool
        Whether ``X`` is bit-packed.
    meta : dict of ndarray
        Per-sample fields (``font``, ``style``, ``glyph``, ``lines``, ``drawer`` ...) and per-class
        fields (``class_aliases``, ``class_alphabet`` ...).
    description : str
        Source, commit and licence.
    sha256 : str
        sha256 of the converted file the set was read from.
    """

    name: str
    X: np.ndarray
    label: np.ndarray
    class_name: np.ndarray
    image_shape: tuple[int, int]
    packed: bool
    meta: dict = field(default_factory=dict)
    description: str = ""
    sha256: str = ""

    @property
    def n_features(self) -> int:
        """Pixels per image."""
        return self.image_shape[0] * self.image_shape[1]

    def images(self, index=None) -> np.ndarray:
        """Return images (uint8; 0/1 for binary sets) flattened to ``(n, height * width)``.

        Parameters
        ----------
        index : array-like of int or bool, optional
            Rows to return (default all).
        """
        X = self.X if index is None else self.X[index]
        if self.packed:
            return np.unpackbits(X, axis=1)[:, :self.n_features]
        return np.asarray(X).reshape(len(X), -1)

    def split(self, n_classes: int | None = None, n_train: int = 50, n_test: int = 50, *,
              min_per_class: int | None = None, random_state=0) -> ImageSplit:
        """Return a seeded class-balanced train/test split of ``n_classes`` random classes.

        Classes with at least ``min_per_class`` samples (default ``n_train + n_test``) are eligible;
        ``n_classes`` of them are drawn without replacement, then ``n_train`` and ``n_test`` distinct
        samples of each. Class codes ``0 .. n_classes - 1`` follow the order of the original labels.

        Parameters
        ----------
        n_classes : int, optional
            Number of classes (default: all eligible).
        n_train, n_test : int, default=50
            Samples per class in each part.
        min_per_class : int, optional
            Samples a class needs to be eligible; at least ``n_train + n_test``.
        random_state : int, default=0
            Seed of the draws (numpy ``default_rng``).

        Returns
        -------
        ImageSplit

        Raises
        ------
        InvalidParameterError
            If a size is invalid or fewer than ``n_classes`` classes are eligible.
        """
        n_train = check_int(n_train, "n_train", low=1)
        n_test = check_int(n_test, "n_test", low=1)
        need = n_train + n_test
        min_per_class = need if min_per_class is None else check_int(min_per_class, "min_per_class", low=need)
        counts = np.bincount(self.label, minlength=len(self.class_name))
        eligible = np.flatnonzero(counts >= min_per_class)
        if n_classes is None:
            n_classes = len(eligible)
        n_classes = check_int(n_classes, "n_classes", low=2)
        if n_classes > len(eligible):
            raise InvalidParameterError(f"n_classes must be at most {len(eligible)} (classes with at least "
                                        f"{min_per_class} samples), got {n_classes}")
        rng = np.random.default_rng(random_state)
        classes = np.sort(rng.choice(eligible, n_classes, replace=False))
        tr, te = [], []
        for c in classes:
            rows = rng.permutation(np.flatnonzero(self.label == c))[:need]
            tr.append(np.sort(rows[:n_train]))
            te.append(np.sort(rows[n_train:]))
        tr, te = np.concatenate(tr), np.concatenate(te)
        code = np.full(len(self.class_name), -1)
        code[classes] = np.arange(n_classes)
        key = f"{self.name}|{self.sha256[:16]}|{n_classes}|{n_train}|{n_test}|{min_per_class}|{random_state}"
        desc = (f"{self.description}; {n_classes} random classes with >= {min_per_class} samples, "
                f"{n_train} train / {n_test} test each, random_state={random_state}")
        return ImageSplit(name=self.name, X_train=self.images(tr), y_train=code[self.label[tr]],
                          X_test=self.images(te), y_test=code[self.label[te]], classes=classes,
                          class_names=self.class_name[classes], image_shape=self.image_shape,
                          train_index=tr, test_index=te, description=desc, key=key)

    def __repr__(self) -> str:
        return (f"ImageSet({self.name!r}, n_samples={len(self.label)}, n_classes={len(np.unique(self.label))}, "
                f"image_shape={self.image_shape})")


@dataclass
class ImageSplit:
    """A train/test split of an :class:`ImageSet` (images flattened, uint8).

    Attributes
    ----------
    name : str
        The image set's name.
    X_train, X_test : ndarray of uint8, shape (n, height * width)
        Images (0/1 for binary sets, ink intensity 0..255 for grey ones).
    y_train, y_test : ndarray of int
        Class codes ``0 .. n_classes - 1``.
    classes : ndarray of int
        Original label of each code.
    class_names : ndarray of str
        Name of each code's class.
    image_shape : tuple of int
        ``(height, width)``.
    train_index, test_index : ndarray of int
        Rows of the image set.
    description, key : str
        What was drawn; a string identifying the split for caches.
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray
    class_names: np.ndarray
    image_shape: tuple[int, int]
    train_index: np.ndarray
    test_index: np.ndarray
    description: str = ""
    key: str = ""

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return len(self.classes)

    @property
    def n_features(self) -> int:
        """Pixels per image."""
        return self.X_train.shape[1]

    def __repr__(self) -> str:
        return (f"ImageSplit({self.name!r}, n_train={len(self.y_train)}, n_test={len(self.y_test)}, "
                f"n_classes={self.n_classes}, image_shape={self.image_shape})")


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
    files = [RemoteFile(v.repo, v.commit, f"{v.prefix}.{part}.bz2", v.sha[part])
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
            return json.loads(bz2.decompress(originals[f"{v.prefix}.{part}.bz2"].read_bytes()).decode("utf-8"))

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


# -- Omniglot -----------------------------------------------------------------------------------------
_OMNI = ("bitsandscraps/omniglot", "b0481240b7eb42393285a93ce7d2f266ff10c62b")
_OMNI_FILES = (("images_background.npz", "8bf84167413cd00beacdce3fe582f780ab538d8dbef043a6d688f2527bbce199"),
               ("images_evaluation.npz", "0b84c7ffd94c4841c0040e529c86a82eaaccb986d8eadad5673f7991b7475276"))
_OMNI_CONVERTED = {32: ("omniglot_32x32_grey.npz", "cc2ddbee682699a6a3592dcadf6bf6ca2bd83e4ac635b5df92e022d8ccec988d"),
                   105: ("omniglot_105x105_packed.npz",
                         "8c39e18f6191ecfbe7933146e3d9c8b293a5048bb2df36cb53449e2426130201")}
#: Omniglot's 50 alphabets in the order of the global character ids: (name, characters); the first 30
#: are the "background" set (964 characters), the other 20 the "evaluation" set (659).
OMNIGLOT_ALPHABETS = (
    ("Arcadian", 26), ("Armenian", 41), ("Asomtavruli (Georgian)", 40), ("Balinese", 24), ("Bengali", 46),
    ("Blackfoot (Canadian Aboriginal Syllabics)", 14), ("Braille", 26), ("Cyrillic", 33), ("Early Aramaic", 22),
    ("Syriac (Estrangelo)", 23), ("Anglo-Saxon Futhorc", 29), ("Futurama", 26), ("Grantha", 43), ("Greek", 24),
    ("Gujarati", 48), ("Hebrew", 22), ("Japanese (Hiragana)", 52), ("Inuktitut (Canadian Aboriginal Syllabics)", 16),
    ("Malay (Jawi-Arabic)", 40), ("Japanese (Katakana)", 47), ("Korean", 40), ("Latin", 26),
    ("Alphabet of the Magi", 20), ("Mkhedruli (Georgian)", 41), ("Burmese (Myanmar)", 34), ("N Ko", 33),
    ("Ojibwe (Canadian Aboriginal Syllabics)", 14), ("Sanskrit", 42), ("Tagalog", 17), ("Tifinagh", 55),
    ("Angelic", 20), ("Atemayar Qelisayer", 26), ("Atlantean", 26), ("Aurek-Besh", 26), ("Avesta", 26),
    ("Ge ez", 26), ("Glagolitic", 45), ("Gurmukhi", 45), ("Kannada", 41), ("Keble", 26), ("Malayalam", 47),
    ("Manipuri", 40), ("Mongolian", 30), ("Old Church Slavonic (Cyrillic)", 45), ("Oriya", 46), ("Syriac (Serto)", 23),
    ("Sylheti", 28), ("Tengwar", 25), ("Tibetan", 42), ("ULOG", 26),
)


def _omniglot_class_fields(n_background: int, n: int) -> dict:
    """Per-class alphabet, character number and set (background: the first file's classes)."""
    alphabet = np.concatenate([[a] * c for a, c in OMNIGLOT_ALPHABETS])
    char = np.concatenate([np.arange(1, c + 1) for _a, c in OMNIGLOT_ALPHABETS]).astype(np.int16)
    if len(alphabet) != n:
        raise DataFetchError(f"Omniglot: expected {len(alphabet)} characters, got {n}")
    split = np.where(np.arange(n) < n_background, "background", "evaluation")
    return {"class_alphabet": alphabet, "class_char_in_alphabet": char, "class_set": split}


def box32(ink: np.ndarray) -> np.ndarray:
    """Box-average 105 × 105 ink masks (n, 105, 105) to 32 × 32 uint8 ink intensity (PIL's BOX filter)."""
    from PIL import Image

    return np.stack([np.asarray(Image.fromarray(m.astype(np.uint8) * 255).resize((32, 32), Image.BOX)) for m in ink])


def _omniglot_ink(originals: dict[str, Path]) -> tuple[np.ndarray, np.ndarray, int]:
    """Ink masks (n_classes, 20, 105, 105), global labels (n_classes, 20) and the background's class count."""
    images, labels = [], []
    for name, _sha in _OMNI_FILES:
        with np.load(originals[name], allow_pickle=False) as z:
            im, lab = np.asarray(z["images"], bool), np.asarray(z["labels"])
        # the official PNGs are white paper (True) with black strokes: ink is the minority value
        images.append(~im if im.mean() > 0.5 else im)
        labels.append(lab.reshape(lab.shape[0], lab.shape[1]))
    return np.concatenate(images), np.concatenate(labels), len(labels[0])


def _convert_omniglot(resolution: int):
    def convert(originals: dict[str, Path], out: Path) -> None:
        ink, lab, n_background = _omniglot_ink(originals)
        n_cls, n_draw = lab.shape
        label = lab.reshape(-1).astype(np.int16)
        drawer = np.tile(np.arange(1, n_draw + 1, dtype=np.int8), n_cls)
        ink = ink.reshape(-1, 105, 105)
        fields = _omniglot_class_fields(n_background, n_cls)
        name = _OMNI_CONVERTED[resolution][0]
        if resolution == 105:
            np.savez_compressed(out / name, X_packed=np.packbits(ink.reshape(len(ink), -1), axis=1), label=label,
                                drawer=drawer, **fields)
        else:
            np.savez_compressed(out / name, X=box32(ink), label=label, drawer=drawer, **fields)
    return convert


def fetch_omniglot(resolution: int = 32, *, data_dir=None, base_url: str | None = None,
                   download: bool = True) -> ImageSet:
    """Return Omniglot: 1623 handwritten characters of 50 alphabets, 20 drawers each.

    From ``github.com/bitsandscraps/omniglot`` at commit b048124 (numpy copies of the official
    ``images_background`` and ``images_evaluation`` zips of ``brendenlake/omniglot``; MIT licence,
    Brenden Lake 2015). Label = global character id − 1 (0..1622).

    Parameters
    ----------
    resolution : {32, 105}, default=32
        32: the ink mask box-averaged to 32 × 32, uint8 ink intensity 0..255; 105: the original binary
        105 × 105 images, bit-packed.
    data_dir, base_url, download
        See :func:`fetch_telugu_glyphs`.

    Returns
    -------
    ImageSet
        32 460 images; ``meta`` has ``drawer`` (1..20) and per-class ``class_alphabet``,
        ``class_char_in_alphabet``, ``class_set``.
    """
    if resolution not in _OMNI_CONVERTED:
        raise InvalidParameterError(f"resolution must be 32 or 105, got {resolution!r}")
    name, sha = _OMNI_CONVERTED[resolution]
    remotes = [RemoteFile(*_OMNI, path, s) for path, s in _OMNI_FILES]
    convert = _convert_omniglot(resolution)

    def by_name(originals, out):
        convert({p.rsplit("/", 1)[-1]: f for p, f in originals.items()}, out)

    home = _ensure({name: sha}, remotes, by_name, data_dir=data_dir, base_url=base_url, download=download)
    with np.load(home / name, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    X = arrays.pop("X_packed") if resolution == 105 else arrays.pop("X").reshape(len(arrays["label"]), -1)
    label = arrays.pop("label").astype(np.int64)
    n_cls = len(arrays["class_alphabet"])
    class_name = np.array([f"{a} {c}" for a, c in zip(arrays["class_alphabet"], arrays["class_char_in_alphabet"],
                                                               strict=True)])
    return ImageSet(name=f"omniglot{resolution}", X=X, label=label, class_name=class_name[:n_cls],
                    image_shape=(resolution, resolution), packed=resolution == 105, meta=arrays,
                    description=(f"Omniglot {resolution}x{resolution} (github.com/{_OMNI[0]} at {_OMNI[1][:7]}; "
                                 "MIT licence; Lake, Salakhutdinov & Tenenbaum 2015)"),
                    sha256=_file_sha(home / name))


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
