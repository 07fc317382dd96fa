"""Download, check, convert and cache the real data of the accuracy-extrapolation papers.

The Telugu glyphs (Achanta & Hastie 2015) and the authors' classifier outputs for Table 1 of Zheng,
Achanta & Benjamini state no licence, so buviz does not ship them: like scikit-learn's ``fetch_*``
loaders, the functions here download the original files from their public GitHub repositories at
pinned commits (raw files), convert them to numpy arrays and keep the converted files in a cache:

- the data folder is ``data_dir``, else ``$BUVIZ_DATA_DIR``, else ``~/.cache/buviz/data``; the files
  live in its ``zheng/`` sub-folder, under the same names as in the project's shared data folder, so a
  folder holding the converted files (``BUVIZ_DATA_DIR=/path/to/datasets`` with ``datasets/zheng/``)
  is used as it is, without any network;
- the server is ``base_url``, else ``$BUVIZ_DATA_URL``, else ``https://raw.githubusercontent.com``; a
  file is read from ``{base_url}/{owner}/{repo}/{commit}/{path}``;
- the download is Pooch's (Uieda et al. 2020, the library behind SciPy's and scikit-image's data
  loaders): each loader's original files form a Pooch registry (``repo/commit/path`` -> sha256, pinned
  in the loaders and in the manifests shipped in ``buviz/data/zheng/``); Pooch streams every file to a
  temporary name, checks its sha256, retries :data:`RETRIES` times after a failed connection, a server
  error, an interrupted transfer or a bad checksum, and shows a progress bar (tqdm); the ``.bz2``
  originals are decompressed by ``pooch.Decompress``;
- buviz caches the converted files, not the originals: the originals (for the Telugu glyphs, 459 BMP
  tiles of a few hundred kB each) are read once, by the converter, so Pooch fetches them into a
  temporary folder inside the cache that is removed afterwards, and a converted file replaces its
  target only when all are written; an interrupted download or a bad checksum leaves no file behind;
  offline with no cache, the error names the files and the folder to put them in.

Omniglot (Lake, Salakhutdinov & Tenenbaum 2015; MIT licence) is fetched the same way: its 32 × 32 grey
version alone is 3.4 MB, larger than all of buviz's shipped data together, so it is not shipped either.

This module holds what every loader shares (the cache, the download and its checks, the image
containers); the loaders are in :mod:`buviz._fetch_telugu` (Achanta's glyphs and the authors' Telugu
score matrices), :mod:`buviz._fetch_omniglot` and :mod:`buviz._fetch_lfw` (the authors' saved LFW
predictions). :mod:`buviz.datasets` re-exports the public names.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, section 5.2 and Table 1; arXiv:1606.05228.

R. Achanta and T. Hastie, "Telugu OCR Framework using Deep Learning", arXiv:1509.05962, 2015.

B. M. Lake, R. Salakhutdinov and J. B. Tenenbaum, "Human-level concept learning through
probabilistic program induction", *Science* 350(6266), 1332-1338, 2015.

L. Uieda, S. R. Soler, R. Rampin, H. van Kemenade, M. Turk, D. Shapero, A. Banihirwe and J. Leeman,
"Pooch: A friend to fetch your data files", *Journal of Open Source Software* 5(45), 1943, 2020;
doi:10.21105/joss.01943.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from buviz._validation import InvalidParameterError, check_int

__all__ = ["DataFetchError", "ChecksumError", "RemoteFile", "ImageSet", "ImageSplit", "data_home"]


DATA_ENV = "BUVIZ_DATA_DIR"
URL_ENV = "BUVIZ_DATA_URL"
DEFAULT_BASE_URL = "https://raw.githubusercontent.com"
SUBDIR = "zheng"
#: Download attempts after a failed one (Pooch's ``retry_if_failed``, waiting 1, 2, 3 s): a failed
#: connection, a server error, an interrupted transfer or a bad checksum is tried again. With none, one
#: transient failure among the Telugu glyphs' 462 files aborts the whole fetch; an offline fetch fails
#: after about 6 s.
RETRIES = 3
#: Seconds a download may wait for the server before it fails (and is retried).
TIMEOUT = 60
#: A set of more original files than this shows one progress bar counting the files (the Telugu glyphs:
#: 462, the score matrices: 65), with Pooch's per-file messages muted; a smaller one (Omniglot: two
#: files) shows Pooch's message and byte progress bar for each file.
FILE_BAR_ABOVE = 5


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
    compression : {"bzip2", "gzip", "lzma"} or None, default=None
        Decompress the file after the check (``pooch.Decompress``); the converter reads the result.
    """

    repo: str
    commit: str
    path: str
    sha256: str
    compression: str | None = None

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


@functools.lru_cache(maxsize=64)
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    import pooch

    return pooch.file_hash(path, alg="sha256")


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


def _copy_local(url: str, output_file: str, pooch) -> None:
    """A Pooch downloader for ``file://`` addresses, which Pooch's own downloaders do not read."""
    shutil.copyfile(urllib.request.url2pathname(urllib.parse.urlsplit(url).path), output_file)


def _fetch_originals(remotes: list[RemoteFile], work: Path, base_url: str, failed) -> dict[str, Path]:
    """Fetch ``remotes`` into ``work`` with Pooch (one registry, keyed ``repo/commit/path``); return path -> file.

    ``failed(url, exc)`` returns the :class:`DataFetchError` to raise when a download fails. While one bar
    counts the files, a logging filter mutes Pooch's per-file messages (a filter, not ``setLevel``: Pooch's
    logger lives outside logging's tree, so a level change would leave its cached answers stale).
    """
    import pooch
    import requests  # Pooch's HTTP client: its exceptions tell a refused download from a broken one
    from tqdm import tqdm

    few = len(remotes) <= FILE_BAR_ABOVE
    downloader = _copy_local if base_url.startswith("file://") else pooch.HTTPDownloader(progressbar=few,
                                                                                         timeout=TIMEOUT)
    key = {r.path: f"{r.repo}/{r.commit}/{r.path}" for r in remotes}
    pup = pooch.create(path=work, base_url=base_url, registry={key[r.path]: f"sha256:{r.sha256}" for r in remotes},
                       urls={key[r.path]: r.url(base_url) for r in remotes}, retry_if_failed=RETRIES)
    logger, mute = pooch.get_logger(), logging.Filter("muted by buviz")  # passes no record of "pooch"
    originals = {}
    with tqdm(total=len(remotes), unit="file", disable=few) as bar:
        if not few:
            logger.addFilter(mute)
        try:
            for r in remotes:
                url = r.url(base_url)
                try:
                    path = pup.fetch(key[r.path], downloader=downloader)
                except ValueError as exc:  # the registry and the downloader are buviz's: a sha256 mismatch
                    raise ChecksumError(f"{url} does not have its pinned sha256 {r.sha256} ({RETRIES + 1} "
                                        f"attempts; file discarded): {exc}") from exc
                except (requests.exceptions.ConnectionError, requests.exceptions.HTTPError,
                        requests.exceptions.Timeout, FileNotFoundError) as exc:
                    raise failed(url, exc) from exc
                except (OSError, EOFError) as exc:  # requests' errors are OSErrors: an interrupted transfer
                    raise DataFetchError(f"download of {url} failed ({type(exc).__name__}: {exc}); nothing "
                                         "was cached, try again") from exc
                # decompressed after the fetch, so that only the download's errors are read as above
                originals[r.path] = Path(pooch.Decompress(method=r.compression)(path, "download", pup)
                                         if r.compression else path)
                bar.update()
        finally:
            logger.removeFilter(mute)
    return originals


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

    def failed(url, exc):
        return DataFetchError(_missing_message(home, list(targets), remotes, base, f"could not download {url} ({exc})"))

    home.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".fetch-", dir=home))
    try:
        originals = _fetch_originals(remotes, work / "orig", base, failed)
        out = work / "out"
        out.mkdir()
        convert(originals, out)
        for name in targets:
            made, target = out / name, home / name
            side = made.with_name(made.name + ".sha256")
            side.write_text(f"{_file_sha(made)}  {made.name}\n", encoding="ascii")
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
