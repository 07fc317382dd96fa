"""Hardening (issue 8): a table-driven catalogue of bad and extreme input through the public API and
through :class:`~buviz.app.state.ExplorerState`, figure determinism and source-level security checks.

Every catalogue case either raises a ``ValueError`` whose message names the problem, or (for legitimate
but extreme input: γ = 2^±30, C = 2^±30, duplicate points, M = N) returns a finite, valid result.
``test_catalogue_size`` records how many cases were tried and passed.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import buviz.extrapolation as xp
from buviz import datasets, discrete, sweep
from buviz.classifiers import svm_status
from buviz.datasets import GaussianMixture
from buviz.uncertainty import BoundaryUncertainty

ROOT = Path(__file__).resolve().parents[1]


# -- small inputs ---------------------------------------------------------------------------------
def _blobs(n=60, seed=0, J=2):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % J
    X = rng.normal(size=(n, 2)) + 2.0 * y[:, None]
    return X, y


def _csv(rows, header="x1,x2,label"):
    return (header + "\n" + "\n".join(rows) + "\n").encode()


GOOD_ROWS = [f"{i % 7 - 3},{(i * 3) % 5 - 2},{'ab'[i % 2]}" for i in range(40)]


def _bu_value(X, y, gamma=1.0, C=1.0, **kw):
    est = BoundaryUncertainty(M=kw.pop("M", 10), random_state=0, **kw).fit(X, y)
    r = est.evaluate(svm_status(X, y, gamma, C))
    return r


def _finite_bu(r) -> bool:
    return np.isfinite(r.value) and 0.0 <= r.value <= 1.0 and np.all(np.isfinite(r.k))


def _mix(*, cov=1.0, weight=1.0, prior=None, mean=(0.0, 0.0), n_classes=2):
    classes = [[(weight, list(mean), cov)]] + [[(1.0, [2.0 * j, 0.0], 1.0)] for j in range(1, n_classes)]
    return GaussianMixture(classes, priors=prior)


def _margins(n=60, k1=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k1
    M = rng.normal(size=(n, k1))
    M[np.arange(n), y] += 1.5
    return M, y


# -- the API catalogue ----------------------------------------------------------------------------
# (id, thunk, expected): expected is a regex the ValueError must match, or a callable(result) -> bool
# for legitimate-but-extreme input that must give a finite, valid result.
X60, y60 = _blobs()
Xdup = np.repeat(X60[:30], 2, axis=0)  # every point twice: the nearest-neighbour distance h_x is 0
ydup = np.repeat(y60[:30], 2)
Mg, yg = _margins()

API_CASES = [
    # Proposal 2 estimator
    ("M > N", lambda: BoundaryUncertainty(M=61).fit(X60, y60), r"M must be <= 60"),
    ("M < 2", lambda: BoundaryUncertainty(M=1).fit(X60, y60), r"M must be >= 2"),
    ("M not an integer", lambda: BoundaryUncertainty(M=2.5).fit(X60, y60), r"M must be an integer"),
    ("M = N (edge, valid)", lambda: _bu_value(X60, y60, M=60), _finite_bu),
    ("K larger than a class", lambda: BoundaryUncertainty(M=10, K=31).fit(X60, y60), r"K must be <= 30"),
    ("K = 0", lambda: BoundaryUncertainty(M=10, K=0).fit(X60, y60), r"K must be >= 1"),
    ("K unknown text", lambda: BoundaryUncertainty(M=10, K="bic").fit(X60, y60), r"K"),
    ("one class", lambda: BoundaryUncertainty(M=10).fit(X60, np.zeros(60)), r"at least 2 classes"),
    ("X and y lengths differ", lambda: BoundaryUncertainty(M=10).fit(X60, y60[:-1]), r"different lengths"),
    ("NaN in X", lambda: BoundaryUncertainty(M=10).fit(np.where(np.eye(60, 2) > 0, np.nan, X60), y60),
     r"NaN or infinite"),
    ("X is 1-D", lambda: BoundaryUncertainty(M=10).fit(X60[:, 0], y60), r"must be 2-D"),
    ("text in X", lambda: BoundaryUncertainty(M=10).fit([["a", "b"]] * 60, y60), r"X must be numeric"),
    ("negative perturbation", lambda: BoundaryUncertainty(M=10, perturbation=-1).fit(X60, y60), r"perturbation"),
    ("unknown perturbation mode", lambda: BoundaryUncertainty(M=10, perturbation_mode="x").fit(X60, y60),
     r"perturbation_mode"),
    ("duplicate points (h_x = 0)", lambda: _bu_value(Xdup, ydup, M=8), _finite_bu),
    ("evaluate before fit", lambda: BoundaryUncertainty().evaluate(svm_status(X60, y60, 1.0)), r"call fit"),
    # classifier status: extreme but legitimate γ and C
    ("γ = 2^30", lambda: _bu_value(X60, y60, gamma=2.0 ** 30), _finite_bu),
    ("γ = 2^-30", lambda: _bu_value(X60, y60, gamma=2.0 ** -30), _finite_bu),
    ("C = 2^30", lambda: _bu_value(X60, y60, C=2.0 ** 30), _finite_bu),
    ("C = 2^-30", lambda: _bu_value(X60, y60, C=2.0 ** -30), _finite_bu),
    ("γ = 0", lambda: svm_status(X60, y60, 0.0), r"gamma must be > 0"),
    ("γ = inf", lambda: svm_status(X60, y60, np.inf), r"gamma must be a finite number"),
    ("C < 0", lambda: svm_status(X60, y60, 1.0, -1.0), r"C must be > 0"),
    # datasets
    ("constant feature", lambda: datasets.from_arrays(np.column_stack([X60[:, 0], np.ones(60)]), y60),
     r"constant"),
    ("class with one sample", lambda: datasets.from_arrays(X60, np.r_[np.zeros(59), 1]), r"at least 2 samples"),
    ("unknown dataset name", lambda: datasets.load("nope"), r"name must be one of"),
    # CSV upload parsing
    ("CSV NaN", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "nan,1,a"])), r"missing values"),
    ("CSV empty cell", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "1,,a"])), r"missing values"),
    ("CSV inf", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "inf,1,a"])), r"infinite"),
    ("CSV text", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "1,hello,a"])), r"non-numeric text"),
    ("CSV one feature column", lambda: datasets.read_csv(_csv(["1,a", "2,b", "3,a"], "x1,label")),
     r"exactly 2 feature columns"),
    ("CSV three feature columns", lambda: datasets.read_csv(_csv(["1,2,3,a", "2,3,4,b"], "x1,x2,x3,label")),
     r"exactly 2 feature columns"),
    ("CSV empty file", lambda: datasets.read_csv(b""), r"empty"),
    ("CSV whitespace only", lambda: datasets.read_csv(b"  \n\n"), r"empty"),
    ("CSV header only", lambda: datasets.read_csv(b"x1,x2,label\n"), r"header|no data rows"),
    ("CSV 50 MB", lambda: datasets.read_csv(b"1.0,2.0,a\n" * 5_300_000), r"too large"),
    ("CSV 50 MB file object", lambda: datasets.read_csv(io.BytesIO(b"1.0,2.0,a\n" * 5_300_000)), r"too large"),
    ("CSV not UTF-8", lambda: datasets.read_csv("x1,x2,label\n1,2,é\n3,4,ü\n".encode("latin-1")), r"not UTF-8"),
    ("CSV binary (NUL bytes)", lambda: datasets.read_csv(b"\x00\x01\x02PK\x03\x04" * 100), r"looks binary"),
    ("CSV single class", lambda: datasets.read_csv(_csv(["1,2,a", "3,4,a", "5,6,a"])), r"single class"),
    ("CSV ragged rows", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "1,2,a,extra,more"])), r"could not be parsed"),
    ("CSV spreadsheet formula", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "=cmd|' /C calc'!A0,1,a"])),
     r"non-numeric text"),
    ("CSV Python literal payload", lambda: datasets.read_csv(
        _csv([*GOOD_ROWS, "__import__('os').system('touch /tmp/pwn'),1,a"])), r"non-numeric text"),
    ("CSV pickle-looking bytes", lambda: datasets.read_csv(b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00."),
     r"not UTF-8|binary"),
    ("CSV missing label", lambda: datasets.read_csv(_csv([*GOOD_ROWS, "1,2,"])), r"label column .* missing"),
    ("CSV label column out of range", lambda: datasets.read_csv(_csv(GOOD_ROWS), label_column=7), r"out of range"),
    # Gaussian mixtures
    ("singular covariance", lambda: _mix(cov=[[1.0, 1.0], [1.0, 1.0]]), r"positive definite"),
    ("non-symmetric covariance", lambda: _mix(cov=[[1.0, 0.5], [0.0, 1.0]]), r"symmetric"),
    ("negative variance", lambda: _mix(cov=-1.0), r"positive definite"),
    ("NaN covariance", lambda: _mix(cov=[np.nan, 1.0]), r"NaN or infinite"),
    ("covariance wrong shape", lambda: _mix(cov=np.eye(3)), r"must be \(2, 2\)"),
    ("zero mixture weight", lambda: _mix(weight=0.0), r"weight .* must be positive"),
    ("NaN mixture weight", lambda: _mix(weight=np.nan), r"weight .* must be positive"),
    ("zero prior", lambda: _mix(prior=[0.0, 1.0]), r"priors must be 2 positive numbers"),
    ("NaN mean", lambda: _mix(mean=(np.nan, 0.0)), r"finite numbers"),
    ("mixture with one class", lambda: GaussianMixture([[(1.0, [0, 0], 1.0)]]), r"at least two classes"),
    ("class with no component", lambda: GaussianMixture([[(1.0, [0, 0], 1.0)], []]), r"at least one component"),
    # extrapolation
    ("k > k1 in AverageTA_k", lambda: xp.average_accuracy(Mg, yg, [2, 5]), r"ks must be <= 4"),
    ("k < 2", lambda: xp.average_accuracy(Mg, yg, [1]), r"ks must be >= 2"),
    ("fit ks > k1", lambda: xp.fit_extrapolator(Mg, yg, "moment", ks=[2, 3, 9]), r"ks must be <= 4"),
    ("k_target = 1", lambda: xp.extrapolate(Mg, yg, 1, "moment"), r"k_target must be >= 2"),
    ("k_target > k1 (extrapolation, valid)", lambda: xp.extrapolate(Mg, yg, 40, "moment"),
     lambda a: np.isfinite(a) and 0 <= a <= 1),
    ("margins with NaN", lambda: xp.extrapolate(np.where(Mg > 2, np.nan, Mg), yg, 10), r"NaN or infinite"),
    ("one observed class", lambda: xp.extrapolate(Mg[:, :1], np.zeros(60, int), 10), r"at least 2"),
    ("labels out of range", lambda: xp.average_accuracy(Mg, yg + 1, [2]), r"labels must lie in"),
    ("unknown extrapolation method", lambda: xp.extrapolate(Mg, yg, 10, "magic"), r"method must be one of"),
    # discrete case
    ("p > 1", lambda: discrete.rms_deviation("resubstitution", 10, 4, 1.5), r"p must be <= 1"),
    ("p < 0", lambda: discrete.rms_deviation("loo", 10, 4, -0.1), r"p must be >= 0"),
    ("p NaN", lambda: discrete.rms_deviation("loo", 10, 4, np.nan), r"p must be a finite number"),
    ("p array outside [0, 1]", lambda: discrete.rms_deviation("loo", 10, 4, [0.2, 1.2]), r"p must lie in \[0, 1\]"),
    ("p = 0 and 1 (edges, valid)", lambda: discrete.rms_deviation("loo", 10, 4, [0.0, 1.0]),
     lambda a: np.all(np.isfinite(a))),
    ("unknown discrete method", lambda: discrete.rms_deviation("magic", 10, 4, 0.3), r"method must be one of"),
    ("bootstrap with N = 1", lambda: discrete.cell_values("bootstrap632", 1, 1), r"N must be >= 2"),
    # sweep
    ("cv larger than a class", lambda: sweep.svm_gamma_sweep(datasets.from_arrays(X60, y60), [1.0], cv=40,
                                                             M=10, cache=False, n_jobs=1), r"cv=40 folds"),
    ("empty γ list", lambda: sweep.svm_gamma_sweep(datasets.from_arrays(X60, y60), [], cv=2, M=10, cache=False,
                                                   n_jobs=1), r"gammas must hold"),
]


@pytest.mark.parametrize("case, thunk, expected", API_CASES, ids=[c[0] for c in API_CASES])
def test_api_catalogue(case, thunk, expected):
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected) as info:
            thunk()
        assert len(str(info.value)) < 400, "an error message fit for a user is short"
    else:
        with np.errstate(all="raise"):
            pass
        result = thunk()
        assert expected(result), f"{case}: not a finite valid result: {result!r}"


# -- the same problems through the explorer state (what a user can reach in the UI) ------------------
BAD_MIXTURE = '{"classes": [[{"mean": [0, 0], "cov": %s, "weight": %s}], [{"mean": [1, 1], "cov": 1}]]}'


def _state_cases():
    many = "x1,x2,label\n" + "1.0,2.0,a\n3.0,4.0,b\n" * 300_000  # ~6 MB: over the 5 MB cap
    return [
        ("M > N", lambda s: setattr(s, "M", 500), r"M must be <= 200", "M"),
        ("N < M", lambda s: setattr(s, "n_train", 20), r"M must be <= 20", "n_train"),
        ("K larger than a class", lambda s: s.param.update(n_train=40, K="40"), r"K must be <= ", "K"),
        ("CSV with NaN", lambda s: s.upload_csv(_csv([*GOOD_ROWS, "nan,1,a"])), r"missing values", None),
        ("CSV with inf", lambda s: s.upload_csv(_csv([*GOOD_ROWS, "inf,1,a"])), r"infinite", None),
        ("CSV with text", lambda s: s.upload_csv(_csv([*GOOD_ROWS, "1,x,a"])), r"non-numeric", None),
        ("CSV one feature", lambda s: s.upload_csv(_csv(["1,a", "2,b"], "x,label")), r"exactly 2", None),
        ("CSV three features", lambda s: s.upload_csv(_csv(["1,2,3,a"] * 3, "x,y,z,label")), r"exactly 2", None),
        ("CSV empty", lambda s: s.upload_csv(b""), r"empty", None),
        ("CSV over 5 MB", lambda s: s.upload_csv(many.encode()), r"too large", None),
        ("CSV not UTF-8", lambda s: s.upload_csv("a,b,c\n1,2,é\n".encode("latin-1")), r"not UTF-8", None),
        ("CSV formula", lambda s: s.upload_csv(_csv([*GOOD_ROWS, "=cmd|' /C calc'!A0,1,a"])), r"non-numeric", None),
        ("CSV constant feature", lambda s: s.upload_csv(_csv([f"1,{i},{'ab'[i % 2]}" for i in range(40)])),
         r"constant", None),
        ("CSV duplicate points (valid)", lambda s: s.upload_csv(_csv([f"{i % 3},{i % 2},{'ab'[i % 2]}"
                                                                     for i in range(60)])), None, None),
        ("mixture singular cov", lambda s: s.set_mixture(BAD_MIXTURE % ("[[1, 1], [1, 1]]", 1)),
         r"positive definite", None),
        ("mixture non-symmetric cov", lambda s: s.set_mixture(BAD_MIXTURE % ("[[1, 0.5], [0, 1]]", 1)),
         r"symmetric", None),
        ("mixture zero weight", lambda s: s.set_mixture(BAD_MIXTURE % ("1", 0)), r"weight .* positive", None),
        ("mixture NaN mean", lambda s: s.set_mixture(BAD_MIXTURE.replace("[0, 0]", "[NaN, 0]") % ("1", 1)),
         r"finite", None),
        ("mixture one class", lambda s: s.set_mixture('{"classes": [[{"mean": [0, 0], "cov": 1}]]}'),
         r"between 2 and", None),
        ("mixture not JSON", lambda s: s.set_mixture("{oops"), r"not valid JSON", None),
        ("mixture huge", lambda s: s.set_mixture('{"classes": [' + ",".join(['[{"mean": [0, 0], "cov": 1}]'] * 50)
                                                 + "]}"), r"between 2 and", None),
        ("γ = 2^15 (valid)", lambda s: setattr(s, "log2_gamma", 15), None, None),
        ("γ = 2^-15 (valid)", lambda s: setattr(s, "log2_gamma", -15), None, None),
        ("C = 2^10 (valid)", lambda s: setattr(s, "log2_C", 10), None, None),
    ]


STATE_CASES = _state_cases()


@pytest.fixture(scope="module")
def explorer():
    from buviz.app.state import ExplorerState

    return ExplorerState(n_train=200, auto_sweep=False)


@pytest.mark.parametrize("case, action, expected, control", STATE_CASES, ids=[c[0] for c in STATE_CASES])
def test_state_catalogue(explorer, case, action, expected, control):
    s = explorer
    s.param.update(dataset="gmm", n_train=200, M=40, K="aic", log2_gamma=0, log2_C=0)
    s.message = ""  # the previous case's message (the update above may change nothing)
    assert s.message == "" and s.snapshot is not None
    snap, before = s.snapshot, s.settings()
    action(s)
    if expected is None:  # legitimate input: a new valid snapshot with finite numbers
        assert s.message == "", s.message
        assert s.snapshot is not snap and np.isfinite(s.snapshot.result.value)
        assert np.isfinite(s.snapshot.status.L_te) or not len(s.snapshot.ds.X_test)
    else:
        assert re.search(expected, s.message), s.message
        assert s.message.startswith(("Could not apply", "CSV", "Custom mixture"))
        assert s.snapshot is snap, "the previous valid state must stay"
        assert s.settings() == before, "controls revert to the last valid settings"


# -- URL query values (user-controlled) are validated by param -----------------------------------------
@pytest.mark.parametrize("name, value", [("M", 1), ("log2_gamma", 99), ("dataset", "../../etc/passwd"),
                                         ("n_train", 10 ** 9), ("K", "__import__('os')"), ("cv", -3)])
def test_out_of_range_controls_are_rejected_by_param(name, value):
    from buviz.app.state import ExplorerState

    s = ExplorerState(n_train=200, auto_sweep=False)
    snap = s.snapshot
    with pytest.raises(ValueError):
        setattr(s, name, value)
    assert s.snapshot is snap and s.message == ""


# -- session cleanup ----------------------------------------------------------------------------------
def test_closed_state_is_released_and_stops_its_sweep():
    import gc
    import weakref

    from buviz.app.state import ExplorerState

    s = ExplorerState(n_train=200, auto_sweep=False)
    s.close()
    assert s.snapshot is None and s.sweeps.job is None and s.closed
    s.log2_gamma = 3  # a closed state ignores late events (a poll after the session died)
    assert s.snapshot is None
    ref = weakref.ref(s)
    del s
    gc.collect()
    assert ref() is None


# -- determinism of exported figures -------------------------------------------------------------------
FIG_SCRIPT = r"""
import sys
from buviz import figures
figures.export("bu_fig3", sys.argv[1], n_train=120, width=4, height=3, dpi=60)
figures.export("bu_fig3", sys.argv[2], n_train=120, width=4, height=3, dpi=60)
"""


@pytest.mark.slow
def test_figure_export_is_bit_identical_across_processes(tmp_path):
    """PNG and SVG: identical bytes across processes with no environment settings (the export fixes the
    SVG element-id salt and leaves the creation date out)."""
    (tmp_path / "mpl").mkdir()
    outs = []
    for run in range(2):
        a, b = tmp_path / f"{run}.svg", tmp_path / f"{run}.png"
        subprocess.run([sys.executable, "-c", FIG_SCRIPT, str(a), str(b)], check=True, timeout=300,
                       capture_output=True,
                       env={"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": str(run + 5), "MPLBACKEND": "Agg",
                            "HOME": str(tmp_path), "MPLCONFIGDIR": str(tmp_path / "mpl")})
        outs.append((a.read_bytes(), b.read_bytes()))
    assert outs[0][1] == outs[1][1], "PNG bytes differ between runs"
    assert outs[0][0] == outs[1][0], "SVG bytes differ between runs"
    assert len(outs[0][0]) > 1000 and outs[0][1][:8] == b"\x89PNG\r\n\x1a\n"


# -- security ------------------------------------------------------------------------------------------
#: Calls that could run code or reach a shell; (file relative to buviz/, call) pairs allowed.
DANGEROUS = {"eval", "exec", "compile", "__import__", "os.system", "os.popen", "subprocess", "pickle.load",
             "pickle.loads", "marshal.loads", "shelve.open", "yaml.load"}
ALLOWED: set[tuple[str, str]] = set()


def _dangerous_calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
            for n in names:
                if n and n.split(".")[0] in ("subprocess", "pickle", "marshal", "shelve"):
                    yield node.lineno, n.split(".")[0]
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else (
                f"{f.value.id}.{f.attr}" if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else "")
            if name in DANGEROUS or name.split(".")[0] == "subprocess":
                yield node.lineno, name
            if isinstance(f, ast.Attribute) and f.attr == "read_csv" and name.startswith("pd"):
                for kw in node.keywords:
                    if kw.arg == "engine" and getattr(kw.value, "value", None) == "python":
                        yield node.lineno, "read_csv(engine='python')"


def test_sources_have_no_eval_exec_pickle_or_shell():
    found = []
    for path in sorted((ROOT / "buviz").rglob("*.py")):
        rel = str(path.relative_to(ROOT / "buviz"))
        for line, name in _dangerous_calls(path):
            if (rel, name) not in ALLOWED:
                found.append(f"buviz/{rel}:{line}: {name}")
    assert found == [], "dangerous calls in buviz/:\n" + "\n".join(found)
    # and the scanner does find them
    probe = ROOT / "buviz" / "__init__.py"
    assert list(_dangerous_calls(probe)) == []
    text = "import subprocess\nx = eval('1')\nimport pickle\npickle.loads(b'')\nos.system('x')\n"
    tmp = Path(sys.modules[__name__].__file__).with_name("_probe_scan.txt")
    try:
        tmp.write_text(text)
        assert {n for _, n in _dangerous_calls(tmp)} >= {"subprocess", "eval", "pickle", "pickle.loads", "os.system"}
    finally:
        tmp.unlink()


def test_user_input_never_becomes_a_file_path():
    """The CSV payload in the app is keyed by a digest, never by the uploaded name; a dataset name that
    looks like a path is refused by the selector."""
    from buviz.app import state as st

    text = (ROOT / "buviz" / "app" / "state.py").read_text()
    assert "open(" not in text and "Path(" not in text
    # the one file the app writes is the administrator's timing log, named only by the environment
    timing = (ROOT / "buviz" / "app" / "timing.py").read_text()
    assert timing.count("open(") == 1 and 'path = os.environ.get("BUVIZ_TIMING_LOG")' in timing
    s = st.ExplorerState(n_train=200, auto_sweep=False)
    ok = _csv([f"{i % 7 - 3},{(i * 3) % 5 - 2},{'ab'[i % 2]}" for i in range(60)])
    assert s.upload_csv(ok, "../../../etc/passwd")
    assert re.fullmatch(r"[0-9a-f]{16}", s.csv_key)
    with pytest.raises(ValueError):
        st.dataset_for("/etc/passwd", 100, 0, "")


def test_server_binds_localhost_by_default():
    from buviz.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.address == "127.0.0.1"
    doc = (ROOT / "apps" / "explorer.py").read_text()
    assert "--address 127.0.0.1" in doc


def test_upload_size_cap_is_enforced_before_parsing(monkeypatch):
    import pandas as pd

    calls = []
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: calls.append(1))
    with pytest.raises(ValueError, match="too large"):
        datasets.read_csv(b"1,2,a\n" * (datasets.MAX_CSV_BYTES // 6 + 10))
    assert calls == []


# -- a Bokeh server race under load -------------------------------------------------------------------
def test_close_after_a_failed_keep_alive_ping_is_not_an_error():
    """Bokeh's keep-alive detaches the session of a socket that just closed; the close that follows
    must finish the clean-up quietly (it raised AssertionError into the server log under load)."""
    from types import SimpleNamespace

    from bokeh.server.connection import ServerConnection
    from bokeh.server.views.ws import WSHandler

    from buviz.app._bokeh_fixes import guard_close_after_failed_ping

    class Session:
        def __init__(self):
            self.subscribed = set()

        def subscribe(self, c):
            self.subscribed.add(c)

        def unsubscribe(self, c):
            self.subscribed.discard(c)

        def notify_connection_lost(self):
            self.notified = True

    def handler_after_failed_ping():
        session = Session()
        conn = ServerConnection(None, None, None, session)
        lost = []
        app = SimpleNamespace(client_lost=lambda c: (lost.append(c), c.detach_session()))
        app.client_lost(conn)  # what Bokeh's _keep_alive does when the ping fails
        h = WSHandler.__new__(WSHandler)
        h.connection, h.application, h.close_code, h.close_reason = conn, app, None, None
        return h, lost, session

    h, _, _ = handler_after_failed_ping()
    original = WSHandler.on_close
    if not getattr(original, "_buviz_guard", False):  # Bokeh's own code raises
        with pytest.raises(AssertionError):
            h.on_close()
    guard_close_after_failed_ping()
    guard_close_after_failed_ping()  # idempotent
    h, lost, session = handler_after_failed_ping()
    h.on_close()
    assert len(lost) == 2 and session.subscribed == set()
    # an ordinary close still goes through Bokeh's own code (the document hears of the lost connection)
    session = Session()
    conn = ServerConnection(None, None, None, session)
    h.connection = conn
    h.application = SimpleNamespace(client_lost=lambda c: c.detach_session())
    h.on_close()
    assert session.notified and session.subscribed == set()
