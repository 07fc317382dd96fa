"""Hardening of the explorer: the bad-input catalogue through
:class:`~buviz.app.store.SessionStore`, URL values, session cleanup, figure determinism and
source-level security checks. The catalogue of the compute layer lives beside each subject's tests
(``tests/<subject>/test_bad_input.py``)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import param
import pytest
from _bad_input import GOOD_ROWS, _csv

from buviz import datasets

ROOT = Path(__file__).resolve().parents[2]


# -- the same problems through the explorer state (what a user can reach in the UI) ------------------
BAD_MIXTURE = '{"classes": [[{"mean": [0, 0], "cov": %s, "weight": %s}], [{"mean": [1, 1], "cov": 1}]]}'


def _state_cases():
    many = "x1,x2,label\n" + "1.0,2.0,a\n3.0,4.0,b\n" * 300_000  # ~6 MB: over the 5 MB cap
    return [
        ("M > N", lambda s: setattr(s.controls, "M", 500), r"M must be <= 200", "M"),  # set in code
        ("K larger than a class", lambda s: s.controls.param.update(n_train=40, K="40"), r"K must be <= ", "K"),
        ("CSV with NaN", lambda s: s.upload_csv(_csv([*GOOD_ROWS, "nan,1,a"])), r"missing values", None),
        ("CSV with inf", lambda s: s.upload_csv(_csv([*GOOD_ROWS, "inf,1,a"])), r"infinite", None),
        ("CSV with text", lambda s: s.upload_csv(_csv([*GOOD_ROWS, "1,x,a"])), r"non-numeric", None),
        ("CSV one column", lambda s: s.upload_csv(_csv(["1", "2"], "x")), r"only one column", None),
        ("CSV one feature", lambda s: s.upload_csv(_csv([f"{i},{'ab'[i % 2]}" for i in range(40)], "x,label")),
         r"only one feature column", None),
        ("CSV ragged", lambda s: s.upload_csv(_csv(["1,2,a", "2,b"], "x,y,label")), r"different numbers", None),
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
        ("γ = 2^15 (valid)", lambda s: setattr(s.controls, "log2_gamma", 15), None, None),
        ("γ = 2^-15 (valid)", lambda s: setattr(s.controls, "log2_gamma", -15), None, None),
        ("C = 2^10 (valid)", lambda s: setattr(s.controls, "log2_C", 10), None, None),
    ]


STATE_CASES = _state_cases()


@pytest.fixture(scope="module")
def explorer():
    from buviz.app.store import SessionStore

    return SessionStore(n_train=200, auto_sweep=False)


@pytest.mark.parametrize("case, action, expected, control", STATE_CASES, ids=[c[0] for c in STATE_CASES])
def test_state_catalogue(explorer, case, action, expected, control):
    s = explorer
    s.controls.param.update(dataset="gmm", n_train=200, M=40, K="aic", log2_gamma=0, log2_C=0)
    s.report("")  # the previous case's message (the update above may change nothing)
    assert s.message == "" and s.snapshot is not None
    snap, before = s.snapshot, s.settings()
    action(s)
    s.wait()  # an upload is read in the background
    if expected is None:  # legitimate input: a new valid snapshot with finite numbers
        assert s.message == "", s.message
        assert s.snapshot is not snap and np.isfinite(s.snapshot.result.value)
        assert np.isfinite(s.snapshot.status.L_te) or not len(s.snapshot.ds.X_test)
    else:
        assert re.search(expected, s.message), s.message
        assert s.message.startswith(("Could not apply", "CSV", "Custom mixture"))
        assert s.snapshot is snap and s.applied == before, "the previous valid state must stay"
        if control is not None:  # nothing writes the controls back: they keep what the user set
            assert s.settings() != before and s.settings()[control] != before[control]
        else:  # a refused upload or mixture never reached the controls
            assert s.settings() == before


# -- a state some view cannot draw is refused whole ---------------------------------------------------
def _three_feature_csv(marker: str = "x3", n: int = 60) -> bytes:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 3))
    rows = [f"{a:.5f},{b:.5f},{c:.5f},{'ab'[int(a + b > 0)]}" for a, b, c in X]
    return _csv(rows, f"x1,x2,{marker},label")


def _fail_on(monkeypatch, display: str, marker: str = "boom"):
    """Make a display class raise on data with a feature named ``marker`` (a view failing late)."""
    from buviz.plots import displays

    cls = getattr(displays, display)
    original = cls.from_result.__func__

    def from_result(klass, result, dataset, **kw):
        if marker in dataset.feature_names:
            raise RuntimeError(f"{display} cannot draw {marker}")
        return original(klass, result, dataset, **kw)

    monkeypatch.setattr(cls, "from_result", classmethod(from_result))


def _page_text(app) -> str:
    view = app.views["Sample space"]
    return "\n".join([view.numbers_pane.object, app.size_pane.object, app.notice.object or ""])


def test_a_view_that_cannot_draw_an_upload_leaves_the_whole_page_on_the_last_good_state(monkeypatch, capsys):
    from buviz.app.layout import ExplorerApp
    from buviz.app.store import SessionStore

    app = ExplorerApp(store=SessionStore(n_train=200, auto_sweep=False))
    s = app.store
    s.upload_csv(_three_feature_csv("x3"), "good.csv")  # a good upload first: its state is the one to keep
    s.wait()
    good = dict(settings=s.settings(), snapshot=s.snapshot, notice=s.notice, status_notice=s.status_notice,
                text=_page_text(app), widgets={k: w.value for k, w in app.widgets.items()})
    assert "good.csv" in s.notice and "d = 3" in app.size_pane.object
    _fail_on(monkeypatch, "SampleSpaceDisplay")
    with param.edit_constant(s):  # as the served store shows while the runner computes
        s.computing = "SVM γ = 2^0, C = 2^0"
    assert "computing" in app.computing.object
    s.upload_csv(_three_feature_csv("boom"), "late.csv")
    s.wait()
    assert "Could not show dataset 'csv'" in s.message and "SampleSpaceDisplay cannot draw boom" in s.message
    assert s.applied == good["settings"] and s.snapshot is good["snapshot"]
    assert s.controls.csv_key != good["settings"]["csv_key"]  # the controls keep the user's upload
    assert (s.notice, s.status_notice, s.computing) == (good["notice"], good["status_notice"], "")
    assert app.computing.object == ""  # the pane too, not only the state
    assert _page_text(app) == good["text"] and "late.csv" not in _page_text(app)
    assert {k: w.value for k, w in app.widgets.items()} == good["widgets"]
    assert "Traceback" not in capsys.readouterr().err
    # the page still works: the good file again clears the message without recomputing, and a new state shows
    s.upload_csv(_three_feature_csv("x3"), "good.csv")
    s.wait()
    assert s.message == "" and s.snapshot is good["snapshot"]
    assert s.settings() == good["settings"]
    s.controls.log2_gamma = -1
    assert s.message == "" and s.snapshot.settings["log2_gamma"] == -1 and s.snapshot.ds.feature_names[2] == "x3"


def test_a_tab_opened_later_that_cannot_draw_the_state_puts_the_previous_one_back(monkeypatch, capsys):
    from buviz.app.layout import ExplorerApp
    from buviz.app.store import SessionStore

    app = ExplorerApp(store=SessionStore(n_train=200, auto_sweep=False))
    s = app.store
    gmm = dict(settings=s.settings(), snapshot=s.snapshot, text=_page_text(app))
    _fail_on(monkeypatch, "WeightsDisplay")
    s.upload_csv(_three_feature_csv("boom"), "late.csv")  # the open tab (Sample space) draws it
    s.wait()
    assert s.controls.dataset == "csv" and s.message == ""
    app.tabs.active = app.tab_names.index("Weights k̂/w")  # the Weights tab cannot: back to the GMM
    assert "WeightsDisplay cannot draw boom" in s.message
    assert s.applied == gmm["settings"] and s.snapshot is gmm["snapshot"] and s.computing == ""
    assert s.controls.dataset == "csv"  # the user's choice stays in the controls, the message says why it is not shown
    np.testing.assert_array_equal(app.views["Weights k̂/w"].display.X, gmm["snapshot"].ds.X_train)  # the GMM's T
    app.tabs.active = 0  # a closed tab's text catches up when it opens
    assert _page_text(app) == gmm["text"]
    assert "Traceback" not in capsys.readouterr().err


# -- URL query values (user-controlled) are validated by param -----------------------------------------
@pytest.mark.parametrize("name, value", [("M", 1), ("log2_gamma", 99), ("dataset", "../../etc/passwd"),
                                         ("n_train", 10 ** 9), ("K", "__import__('os')"), ("cv", -3)])
def test_out_of_range_controls_are_rejected_by_param(name, value):
    from buviz.app.store import SessionStore

    s = SessionStore(n_train=200, auto_sweep=False)
    snap = s.snapshot
    with pytest.raises(ValueError):
        setattr(s.controls, name, value)
    assert s.snapshot is snap and s.message == ""


# -- session cleanup ----------------------------------------------------------------------------------
def test_closed_state_is_released_and_stops_its_sweep():
    import gc
    import weakref

    from buviz.app.store import SessionStore

    s = SessionStore(n_train=200, auto_sweep=False)
    s.close()
    assert s.snapshot is None and s.cv_sweep.shared is None and s.closed
    s.controls.log2_gamma = 3  # a closed state ignores late events (a poll after the session died)
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
    from buviz.app import compute as st
    from buviz.app.store import SessionStore

    for module in ("store.py", "controls.py", "compute.py"):
        text = (ROOT / "buviz" / "app" / module).read_text()
        assert "open(" not in text and "Path(" not in text
    # the one file the app writes is the administrator's timing log, named only by the environment
    timing = (ROOT / "buviz" / "app" / "timing.py").read_text()
    assert timing.count("open(") == 1 and 'path = os.environ.get("BUVIZ_TIMING_LOG")' in timing
    s = SessionStore(n_train=200, auto_sweep=False)
    ok = _csv([f"{i % 7 - 3},{(i * 3) % 5 - 2},{'ab'[i % 2]}" for i in range(60)])
    s.upload_csv(ok, "../../../etc/passwd")
    s.wait()
    assert re.fullmatch(r"[0-9a-f]{16}", s.controls.csv_key)
    with pytest.raises(ValueError):
        st.dataset_for(st.DataKey("/etc/passwd", 100, 0, ""))


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
