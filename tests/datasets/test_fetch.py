"""The fetch loaders of the Zheng et al. data (buviz._fetch on Pooch, buviz._fetch_telugu, _fetch_omniglot,
_fetch_lfw): download, checksum, retries, conversion, cache, offline.

A local HTTP server on 127.0.0.1 (http.server in a thread) stands in for raw.githubusercontent.com,
serving small fixtures made here (always) and the byte-for-byte originals sample of the shared data
folder (when ``$BUVIZ_TEST_DATA`` names it, see ``tests/_data.py``); it records every request, so a test
can tell a cache hit from a download. Nothing leaves the machine: every test here runs with sockets that
refuse any address but 127.0.0.1, and with :data:`buviz._fetch.RETRIES` at 0 (Pooch waits 1 s before a
retry) except where the retries are what is tested.
"""

from __future__ import annotations

import bz2
import contextlib
import functools
import hashlib
import http.server
import json
import logging
import socket
import threading
from pathlib import Path

import numpy as np
import pooch
import pytest
from _data import reason, zheng_data
from PIL import Image

from buviz import _fetch, _fetch_lfw, _fetch_omniglot, _fetch_telugu
from buviz._validation import InvalidParameterError
from buviz.datasets import (
    ChecksumError,
    DataFetchError,
    fetch_omniglot,
    fetch_telugu,
    fetch_telugu_glyphs,
    fetch_telugu_scores,
)

ROOT = Path(__file__).resolve().parents[2]
SHARED = zheng_data("originals_sample")
needs_shared = pytest.mark.skipif(SHARED is None, reason=reason("originals_sample and the converted files"))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(autouse=True)
def _loopback_only_and_no_retries(monkeypatch):
    """Refuse any connection or name look-up that is not 127.0.0.1; no retries unless a test asks."""
    real_connect, real_lookup = socket.socket.connect, socket.getaddrinfo

    def connect(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] != "127.0.0.1":
            raise AssertionError(f"a fetch test tried to reach {address}")
        return real_connect(sock, address)

    def lookup(host, *args, **kwargs):
        if host not in ("127.0.0.1", b"127.0.0.1"):
            raise AssertionError(f"a fetch test tried to look up {host!r}")
        return real_lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    monkeypatch.setattr(_fetch, "RETRIES", 0)


class _Handler(http.server.SimpleHTTPRequestHandler):
    truncate: set = set()  # URL paths answered with half the body and the full Content-Length
    fail_first: dict = {}  # URL path -> how its first request fails ("truncate" or an HTTP status)
    hits: list = []  # every GET's path, in order

    def log_message(self, *args):  # keep the test output clean
        pass

    def do_GET(self):
        first = self.path not in self.hits
        self.hits.append(self.path)
        if first and isinstance(self.fail_first.get(self.path), int):
            self.send_error(self.fail_first[self.path])
            return
        if self.path in self.truncate or (first and self.fail_first.get(self.path) == "truncate"):
            body = Path(self.translate_path(self.path)).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()


@pytest.fixture
def serve():
    """serve(folder, truncate=(), fail_first=None, hits=None) -> base URL of a server on 127.0.0.1 serving
    ``folder``; it appends every request's path to ``hits``."""
    servers = []

    def start(folder: Path, truncate=(), fail_first=None, hits=None):
        handler = type("H", (_Handler,), {"truncate": set(truncate), "fail_first": dict(fail_first or {}),
                                          "hits": [] if hits is None else hits})
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
        return f"http://127.0.0.1:{srv.server_address[1]}"

    yield start
    for srv in servers:
        srv.shutdown()
        srv.server_close()


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens there any more


def _put(repo_root: Path, repo: str, commit: str, path: str, data: bytes) -> str:
    f = repo_root / repo / commit / path
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(data)
    return _sha(data)


def _leftovers(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")) if home.exists() else []


# -- a small score repository --------------------------------------------------------------------------
@pytest.fixture
def scores_repo(tmp_path, monkeypatch):
    """Two K = 3 score matrices and the eight error tables, served as snarles/fmri at the pinned commit."""
    rng = np.random.default_rng(0)
    repo = tmp_path / "server"
    rows, matrices = [], {}
    for i, (clf, k) in enumerate((("logistic", ""), ("kNN", "5"))):
        M = np.round(rng.normal(size=(3, 150)), 4) if clf == "logistic" else rng.integers(0, 6, (3, 150)).astype(float)
        path = f"rakesh/fixture/{clf}_{i}"
        text = "\n".join(" ".join(f"{v:g}" for v in row) for row in M).encode()
        sha = _put(repo, *_fetch_telugu._FMRI, path, text)
        key = path.replace("/", "__")
        rows.append({"key": key, "path": path, "sha256": sha, "classifier": clf, "seed": i,
                     "k_neighbours": int(k) if k else None, "n_classes": 3})
        matrices[key] = M
    tables = {}
    for name, (path, _sha) in _fetch_telugu._TABLES.items():
        text = (b"#N TrinAcc TestAcc\n 2  95.19%  88.80%\n" if name.startswith("knn")
                else b"a b\n1 2.5\n")
        tables[name] = (path, _put(repo, *_fetch_telugu._FMRI, path, text))
    monkeypatch.setattr(_fetch_telugu, "scores_manifest", lambda: [dict(r) for r in rows])
    monkeypatch.setattr(_fetch_telugu, "_TABLES", tables)
    monkeypatch.setattr(_fetch_telugu, "_SCORES_SHA", None)
    return repo, matrices


def test_a_good_download_is_checked_converted_cached_and_then_used_offline(scores_repo, serve, tmp_path):
    repo, matrices = scores_repo
    data = tmp_path / "data"
    s = fetch_telugu_scores(data_dir=data, base_url=serve(repo))
    assert set(s.matrices) == set(matrices)
    for key, M in matrices.items():
        np.testing.assert_array_equal(s.matrices[key], M)
    margins, labels = s.margins("logistic_0")
    np.testing.assert_array_equal(margins, matrices["rakesh__fixture__logistic_0"].T)
    np.testing.assert_array_equal(labels, np.repeat(np.arange(3), 50))
    M = matrices["rakesh__fixture__logistic_0"]
    assert s.index.set_index("key").loc["rakesh__fixture__logistic_0", "test_accuracy"] == pytest.approx(
        np.mean(M.argmax(0) == labels))
    assert s.knn400["TestAcc"].tolist() == [pytest.approx(0.888)]
    home = data / "zheng"
    files = _leftovers(home)
    assert "telugu_scores_20class.npz" in files and "telugu_scores_20class.npz.sha256" in files
    assert not [f for f in files if ".part" in f or ".fetch" in f]
    # the cache alone: no server, no download
    again = fetch_telugu_scores(data_dir=data, base_url=_dead_url(), download=False)
    np.testing.assert_array_equal(again.matrices["rakesh__fixture__kNN_1"], matrices["rakesh__fixture__kNN_1"])


def test_a_cache_hit_sends_no_request(scores_repo, serve, tmp_path):
    repo, matrices = scores_repo
    hits = []
    url = serve(repo, hits=hits)
    fetch_telugu_scores(data_dir=tmp_path / "data", base_url=url)
    assert len(hits) == len(matrices) + len(_fetch_telugu._TABLES)  # each original once
    hits.clear()
    again = fetch_telugu_scores(data_dir=tmp_path / "data", base_url=url)  # download allowed, server up
    assert hits == []
    np.testing.assert_array_equal(again.matrices["rakesh__fixture__logistic_0"],
                                  matrices["rakesh__fixture__logistic_0"])


def test_the_data_dir_and_the_server_come_from_the_environment(scores_repo, serve, tmp_path, monkeypatch):
    repo, matrices = scores_repo
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("BUVIZ_DATA_DIR", str(tmp_path / "env-data"))
    monkeypatch.setenv("BUVIZ_DATA_URL", serve(repo))
    assert set(fetch_telugu_scores().matrices) == set(matrices)
    assert (tmp_path / "env-data" / "zheng" / "telugu_scores_20class.npz").is_file()
    assert not (tmp_path / "home").exists()
    # data_dir= wins over the environment; without either, the default is ~/.cache/buviz/data
    assert set(fetch_telugu_scores(data_dir=tmp_path / "arg-data").matrices) == set(matrices)
    assert (tmp_path / "arg-data" / "zheng" / "telugu_scores_20class.npz").is_file()
    monkeypatch.delenv("BUVIZ_DATA_DIR")
    assert _fetch.data_home() == tmp_path / "home" / ".cache" / "buviz" / "data" / "zheng"
    assert set(fetch_telugu_scores().matrices) == set(matrices)
    assert (tmp_path / "home" / ".cache" / "buviz" / "data" / "zheng" / "telugu_scores_20class.npz").is_file()


def test_a_file_url_is_read_as_a_mirror(scores_repo, tmp_path):
    repo, matrices = scores_repo
    s = fetch_telugu_scores(data_dir=tmp_path / "data", base_url=repo.as_uri())
    np.testing.assert_array_equal(s.matrices["rakesh__fixture__kNN_1"], matrices["rakesh__fixture__kNN_1"])
    with pytest.raises(DataFetchError, match="could not download file://.*BUVIZ_DATA_DIR"):
        fetch_telugu_scores(data_dir=tmp_path / "other", base_url=(tmp_path / "nowhere").as_uri())


def test_a_bad_checksum_is_refused_and_leaves_nothing(scores_repo, serve, tmp_path):
    repo, _ = scores_repo
    victim = repo / _fetch_telugu._FMRI[0] / _fetch_telugu._FMRI[1] / "rakesh/fixture/kNN_1"
    victim.write_bytes(victim.read_bytes().replace(b"1", b"2", 1))
    data = tmp_path / "data"
    with pytest.raises(ChecksumError, match=r"kNN_1 does not have its pinned sha256 [0-9a-f]{64}"):
        fetch_telugu_scores(data_dir=data, base_url=serve(repo))
    assert _leftovers(data / "zheng") == []


@pytest.mark.parametrize("failure", ["truncate", 503], ids=["interrupted-transfer", "server-error-503"])
def test_a_transient_failure_is_retried(scores_repo, serve, tmp_path, monkeypatch, failure):
    """The first request for one file fails; with a retry the fetch succeeds, without one it fails."""
    repo, matrices = scores_repo
    path = f"/{_fetch_telugu._FMRI[0]}/{_fetch_telugu._FMRI[1]}/rakesh/fixture/logistic_0"
    with pytest.raises(DataFetchError, match="logistic_0"):
        fetch_telugu_scores(data_dir=tmp_path / "no-retry", base_url=serve(repo, fail_first={path: failure}))
    monkeypatch.setattr(_fetch, "RETRIES", 1)
    hits = []
    s = fetch_telugu_scores(data_dir=tmp_path / "data", base_url=serve(repo, fail_first={path: failure}, hits=hits))
    assert hits.count(path) == 2
    np.testing.assert_array_equal(s.matrices["rakesh__fixture__logistic_0"], matrices["rakesh__fixture__logistic_0"])


@contextlib.contextmanager
def _pooch_log():
    """Collect Pooch's messages (its logger is outside logging's tree, so caplog does not see it)."""
    messages, logger = [], pooch.get_logger()
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())
    logger.addHandler(handler)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)


def test_a_many_file_fetch_shows_one_bar_counting_files(scores_repo, serve, tmp_path, capfd):
    repo, matrices = scores_repo
    n = len(matrices) + len(_fetch_telugu._TABLES)
    assert n > _fetch.FILE_BAR_ABOVE
    with _pooch_log() as messages:
        fetch_telugu_scores(data_dir=tmp_path / "data", base_url=serve(repo))
    err = capfd.readouterr().err
    assert f"{n}/{n}" in err and "file/s" in err and "B/s" not in err  # no byte bar per file
    assert messages == []  # Pooch's per-file messages are muted under the bar
    with _pooch_log() as messages:
        pooch.get_logger().info("after the fetch")
    assert messages == ["after the fetch"]  # and only there


def test_an_interrupted_download_leaves_no_corrupt_cache_and_a_retry_succeeds(scores_repo, serve, tmp_path):
    repo, matrices = scores_repo
    data = tmp_path / "data"
    path = f"/{_fetch_telugu._FMRI[0]}/{_fetch_telugu._FMRI[1]}/rakesh/fixture/logistic_0"
    with pytest.raises(DataFetchError, match="interrupted|failed"):
        fetch_telugu_scores(data_dir=data, base_url=serve(repo, truncate={path}))
    assert _leftovers(data / "zheng") == []
    assert set(fetch_telugu_scores(data_dir=data, base_url=serve(repo)).matrices) == set(matrices)


def test_offline_without_a_cache_names_the_files_and_the_folder(scores_repo, tmp_path):
    data = tmp_path / "data"
    with pytest.raises(DataFetchError) as info:
        fetch_telugu_scores(data_dir=data, base_url=_dead_url())
    text = str(info.value)
    assert "telugu_scores_20class.npz" in text and "telugu_scores_original_tables/knn400.txt" in text
    assert str(data / "zheng") in text and "BUVIZ_DATA_DIR" in text and "could not download" in text
    assert _leftovers(data / "zheng") == []
    with pytest.raises(DataFetchError, match="download=False"):
        fetch_omniglot(data_dir=data, download=False)


def test_a_damaged_cache_is_not_used(scores_repo, serve, tmp_path):
    repo, _ = scores_repo
    data = tmp_path / "data"
    fetch_telugu_scores(data_dir=data, base_url=serve(repo))
    npz = data / "zheng" / "telugu_scores_20class.npz"
    npz.write_bytes(npz.read_bytes()[:-10])
    with pytest.raises(DataFetchError, match="do not match their sha256"):
        fetch_telugu_scores(data_dir=data, download=False)
    assert fetch_telugu_scores(data_dir=data, base_url=serve(repo)).matrices  # re-fetched


def test_bad_parameters_are_named():
    with pytest.raises(InvalidParameterError, match="version"):
        fetch_telugu_glyphs("banti1999")
    with pytest.raises(InvalidParameterError, match="resolution"):
        fetch_omniglot(64)
    with pytest.raises(InvalidParameterError, match="base_url"):
        fetch_omniglot(base_url="ftp://example")


# -- Telugu glyph tiles --------------------------------------------------------------------------------
def _tile(cells: np.ndarray, grey_inside: bool = False) -> np.ndarray:
    n = len(cells)
    h, w = _fetch_telugu._tile_layout(n)
    tile = np.full((h * 49 - 1, w * 49 - 1), 25, np.uint8)  # grey margins, as the repository's tiles
    for i, c in enumerate(cells):
        r, q = divmod(i, w)
        tile[r * 49:r * 49 + 48, q * 49:q * 49 + 48] = c * 255
    if grey_inside:
        tile[5, 5] = 51
    return tile


def _bmp(array: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format="BMP")
    return buf.getvalue()


@pytest.fixture
def glyph_repo(tmp_path, monkeypatch):
    """A three-class glyph repository: class 1 has two names, one with a stale tile; class 2 has no tile."""
    rng = np.random.default_rng(1)
    v = _fetch_telugu.TELUGU_VERSIONS["banti2017"]
    label = [0, 1, 0, 1, 2, 0, 1, 1, 0, 1, 0]
    names = {0: ["ka"], 1: ["3", "౩"], 2: ["ఽ"]}
    meta = [["FontA", "NR", names[c][i % len(names[c])]] for i, c in enumerate(label)]
    lines = [[[i, i + 1], [-i, 2]] for i in range(len(label))]
    repo = tmp_path / "server"
    sha = {part: _put(repo, v.repo, v.commit, f"{v.prefix}.{part}.bz2", bz2.compress(json.dumps(obj).encode()))
           for part, obj in (("labels", label), ("meta", meta), ("lines", lines))}
    glyphs = {c: rng.integers(0, 2, (label.count(c), 48, 48)).astype(np.uint8) for c in (0, 1)}
    tiles = {"ka": _tile(glyphs[0]), "3": _tile(glyphs[1]), "౩": _tile(glyphs[1][::-1], grey_inside=True),
             "+zz": _tile(glyphs[0][:2])}  # an extra tile of no class
    manifest = {f"{n}.bmp": _put(repo, v.repo, v.commit, f"{v.images}/{n}.bmp", _bmp(t)) for n, t in tiles.items()}
    monkeypatch.setitem(_fetch_telugu.TELUGU_VERSIONS, "banti2017",
                        _fetch_telugu._TeluguVersion(**{**v.__dict__, "sha": sha, "converted_sha": None}))
    monkeypatch.setattr(_fetch_telugu, "_tile_manifest", lambda version: dict(manifest))
    return repo, np.array(label), glyphs


def test_glyph_tiles_are_cut_back_into_the_samples_in_dataset_order(glyph_repo, serve, tmp_path):
    repo, label, glyphs = glyph_repo
    g = fetch_telugu_glyphs(data_dir=tmp_path / "data", base_url=serve(repo))
    assert g.label.tolist() == [c for c in label.tolist() if c != 2]  # class 2 has no tile: dropped
    assert g.meta["source_index"].tolist() == [i for i, c in enumerate(label) if c != 2]
    images = g.images().reshape(-1, 48, 48)
    for c in (0, 1):
        np.testing.assert_array_equal(images[g.label == c], glyphs[c])
    # the stale tile (grey inside a cell) of the alias "౩" is refused, "3" is used
    assert g.class_name.tolist() == ["ka", "3", "ఽ"]
    assert g.meta["class_aliases"].tolist() == ["ka", "3|౩", "ఽ"]
    assert g.meta["lines"][1].tolist() == [[1, 2], [-1, 2]]
    with pytest.raises(InvalidParameterError, match="n_classes must be at most 2"):
        g.split(3, n_train=2, n_test=2)


def test_cut_tile_refuses_a_tile_of_the_wrong_size():
    cells = np.ones((10, 48, 48), np.uint8)
    assert _fetch_telugu.cut_tile(_tile(cells), 10).shape == (10, 48, 48)
    assert _fetch_telugu.cut_tile(_tile(cells), 11) is None
    assert _fetch_telugu.cut_tile(_tile(cells, grey_inside=True), 10) is None


@needs_shared
def test_the_original_tiles_convert_to_the_reference_glyphs(serve, tmp_path, monkeypatch):
    """The byte-for-byte sample (labels, meta, lines and 3 of the 459 tiles) with the pinned sha256s."""
    sample = SHARED / "zheng" / "originals_sample" / "banti_training_a1cbeb0"
    v = _fetch_telugu.TELUGU_VERSIONS["banti2017"]
    repo = tmp_path / "server"
    (repo / v.repo).mkdir(parents=True)
    (repo / v.repo / v.commit).symlink_to(sample)
    full = _fetch_telugu._tile_manifest(v)
    tiles = {p.name: full[p.name] for p in (sample / v.images).glob("*.bmp")}
    assert len(tiles) == 3
    monkeypatch.setattr(_fetch_telugu, "_tile_manifest", lambda version: dict(tiles))
    monkeypatch.setitem(_fetch_telugu.TELUGU_VERSIONS, "banti2017",
                        _fetch_telugu._TeluguVersion(**{**v.__dict__, "converted_sha": None}))
    g = fetch_telugu_glyphs(data_dir=tmp_path / "data", base_url=serve(repo))
    assert sorted(g.class_name[np.unique(g.label)]) == sorted(n[:-4] for n in tiles)
    with np.load(SHARED / "zheng" / v.converted) as ref:
        for c in np.unique(g.label):
            rows = ref["label"] == c
            np.testing.assert_array_equal(g.X[g.label == c], ref["X_packed"][rows])
            np.testing.assert_array_equal(g.meta["source_index"][g.label == c], ref["source_index"][rows])
            np.testing.assert_array_equal(g.meta["lines"][g.label == c], ref["lines"][rows])
        np.testing.assert_array_equal(g.meta["class_aliases"], ref["class_aliases"])


@needs_shared
def test_the_shared_folder_is_a_valid_cache_and_splits_are_paper_shaped(monkeypatch):
    monkeypatch.setenv("BUVIZ_DATA_URL", _dead_url())
    ds = fetch_telugu(data_dir=SHARED, n_classes=20, random_state=3)
    assert ds.X_train.shape == (1000, 2304) and ds.X_test.shape == (1000, 2304)
    assert np.bincount(ds.y_train).tolist() == [50] * 20 == np.bincount(ds.y_test).tolist()
    assert not set(ds.train_index) & set(ds.test_index)
    assert set(np.unique(ds.X_train)) == {0, 1}
    again = fetch_telugu(data_dir=SHARED, n_classes=20, random_state=3)
    np.testing.assert_array_equal(ds.test_index, again.test_index)
    assert ds.key == again.key and ds.key != fetch_telugu(data_dir=SHARED, n_classes=20, random_state=4).key
    s = fetch_telugu_scores(data_dir=SHARED)
    acc = s.index.set_index("key")["test_accuracy"]
    assert acc["rakesh__error_rates__nnet_probs__logistic_111938.logprobs"] == pytest.approx(0.922)
    assert acc["rakesh__train_tel__sub_sub_runs__deepslim_010855_20.logprobs"] == pytest.approx(0.995)
    assert len(s.matrices) == 57


@needs_shared
def test_the_original_score_files_convert_to_the_reference_matrices(serve, tmp_path, monkeypatch):
    """The byte-for-byte sample of snarles/fmri (four Table 1 matrices, two error tables), pinned sha256s."""
    sample = SHARED / "zheng" / "originals_sample" / "fmri_43c81b1"
    repo = tmp_path / "server"
    (repo / _fetch_telugu._FMRI[0]).mkdir(parents=True)
    (repo / _fetch_telugu._FMRI[0] / _fetch_telugu._FMRI[1]).symlink_to(sample)
    rows = [r for r in _fetch_telugu.scores_manifest() if (sample / r["path"]).is_file()]
    assert len(rows) == 4
    tables = {n: v for n, v in _fetch_telugu._TABLES.items() if (sample / v[0]).is_file()}
    assert set(tables) == {"err_rates.delim", "train_tel_error_rates.txt"}
    remotes = [_fetch.RemoteFile(*_fetch_telugu._FMRI, r["path"], r["sha256"]) for r in rows]
    remotes += [_fetch.RemoteFile(*_fetch_telugu._FMRI, path, sha) for path, sha in tables.values()]
    monkeypatch.setattr(_fetch_telugu, "_TABLES", tables)  # what the converter copies
    targets = {_fetch_telugu._SCORES: None} | {f"{_fetch_telugu._TABLES_DIR}/{n}": sha
                                                for n, (_p, sha) in tables.items()}
    home = _fetch._ensure(targets, remotes, _fetch_telugu._convert_scores(rows), data_dir=tmp_path / "data",
                          base_url=serve(repo), download=True)
    with np.load(home / _fetch_telugu._SCORES) as got, np.load(SHARED / "zheng" / _fetch_telugu._SCORES) as ref:
        assert sorted(got.files) == sorted(r["key"] for r in rows)
        for key in got.files:
            np.testing.assert_array_equal(got[key], ref[key])
    copied = home / _fetch_telugu._TABLES_DIR / "err_rates.delim"
    assert copied.read_bytes() == (sample / tables["err_rates.delim"][0]).read_bytes()


# -- Omniglot --------------------------------------------------------------------------------------------
def test_omniglot_originals_convert_to_both_resolutions(serve, tmp_path, monkeypatch, capfd):
    rng = np.random.default_rng(2)
    monkeypatch.setattr(_fetch_omniglot, "OMNIGLOT_ALPHABETS", (("Alpha", 2), ("Beta", 1), ("Gamma", 2)))
    repo, files, ink = tmp_path / "server", [], []
    for name, n_cls, first in (("images_background.npz", 3, 0), ("images_evaluation.npz", 2, 3)):
        strokes = rng.random((n_cls, 20, 105, 105)) < 0.05
        ink.append(strokes)
        labels = np.repeat(np.arange(first, first + n_cls), 20).reshape(n_cls, 20, 1)
        f = tmp_path / name
        np.savez_compressed(f, images=~strokes, labels=labels)  # white paper = True, as the official PNGs
        files.append((name, _put(repo, *_fetch_omniglot._OMNI, name, f.read_bytes())))
    monkeypatch.setattr(_fetch_omniglot, "_OMNI_FILES", tuple(files))
    monkeypatch.setattr(_fetch_omniglot, "_OMNI_CONVERTED", {32: ("o32.npz", None), 105: ("o105.npz", None)})
    ink = np.concatenate(ink).reshape(-1, 105, 105)
    url = serve(repo)
    with _pooch_log() as messages:
        o105 = fetch_omniglot(105, data_dir=tmp_path / "data", base_url=url)
    where = f"{_fetch_omniglot._OMNI[0]}/{_fetch_omniglot._OMNI[1]}"
    assert [m.split(" from ")[0] for m in messages] == [f"Downloading file '{where}/images_background.npz'",
                                                        f"Downloading file '{where}/images_evaluation.npz'"]
    assert "100%" in capfd.readouterr().err  # two files: Pooch's message and byte bar for each
    np.testing.assert_array_equal(o105.images(), ink.reshape(len(ink), -1))
    assert o105.label.tolist() == np.repeat(np.arange(5), 20).tolist()
    assert o105.meta["drawer"].tolist() == list(range(1, 21)) * 5
    assert o105.class_name.tolist() == ["Alpha 1", "Alpha 2", "Beta 1", "Gamma 1", "Gamma 2"]
    assert o105.meta["class_set"].tolist() == ["background"] * 3 + ["evaluation"] * 2
    o32 = fetch_omniglot(32, data_dir=tmp_path / "data", base_url=url)
    grey = o32.images().reshape(-1, 32, 32)
    # box average: a cell's intensity is 255 × its ink fraction, so 0 where no ink and the total is kept
    assert grey.dtype == np.uint8 and (grey[ink.sum((1, 2)) == 0] == 0).all()
    np.testing.assert_allclose(grey.sum((1, 2)) / 255 * (105 / 32) ** 2, ink.sum((1, 2)), rtol=0.05)
    split = o32.split(n_train=1, n_test=19, random_state=0)
    assert split.n_classes == 5 and len(split.y_train) == 5 and len(split.y_test) == 95


@needs_shared
def test_the_32_pixel_omniglot_is_the_box_average_of_the_105_pixel_one():
    with np.load(SHARED / "zheng" / "omniglot_105x105_packed.npz") as big, \
            np.load(SHARED / "zheng" / "omniglot_32x32_grey.npz") as small:
        rows = np.arange(0, 32460, 811)
        ink = np.unpackbits(big["X_packed"][rows], axis=1)[:, :105 * 105].reshape(-1, 105, 105)
        np.testing.assert_array_equal(_fetch_omniglot.box32(ink), small["X"][rows])
        alphabets = [(a, int((small["class_alphabet"] == a).sum())) for a in dict.fromkeys(small["class_alphabet"])]
        assert tuple(alphabets) == _fetch_omniglot.OMNIGLOT_ALPHABETS


def test_no_data_file_ships_with_the_package():
    data = ROOT / "buviz" / "data" / "zheng"
    assert sorted(p.suffix for p in data.iterdir()) == [".csv", ".sha256", ".sha256"]
    assert all(len(line.split("  ")) == 2 for line in (data / "bmp_manifest_banti2017_a1cbeb0.sha256")
               .read_text(encoding="utf-8").splitlines())


def test_the_authors_lfw_predictions_are_read_from_the_cache_only(tmp_path):
    home = tmp_path / "zheng"
    with pytest.raises(DataFetchError, match=r"lfw_subsample_predictions_authors\.csv.*no licence") as err:
        _fetch_lfw.fetch_lfw_predictions(data_dir=tmp_path)
    assert str(home) in str(err.value) and "BUVIZ_DATA_DIR" in str(err.value)
    home.mkdir()
    (home / "lfw_subsample_predictions_authors.csv").write_text("source,K_subsample,replicate,predicted_acc_1672\n")
    with pytest.raises(DataFetchError, match="sha256 differs"):
        _fetch_lfw.fetch_lfw_predictions(data_dir=tmp_path)


@needs_shared
def test_the_authors_lfw_predictions_load_from_the_shared_folder():
    table = _fetch_lfw.fetch_lfw_predictions(data_dir=SHARED)
    assert table.shape == (1450, 4)
    top = table[table.source.str.startswith("lfw_sub_preds.rds (top level")]
    assert top.groupby("K_subsample").size().to_dict() == {100: 300, 200: 300, 400: 300, 800: 300}
    assert top.predicted_acc_1672.between(0, 1).all()
