import subprocess
import sys

import pandas as pd
import pytest

from buviz.cli import main


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "buviz.cli", *args], capture_output=True, text=True, timeout=300)


def test_sweep_writes_csv(tmp_path, monkeypatch):
    monkeypatch.setenv("BUVIZ_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "t.csv"
    code = main(["sweep", "--dataset", "gmm", "--n-train", "200", "--n-test", "500", "--log2-gamma=-2:2:2",
                 "--cv", "3", "--M", "15", "--quiet", "--out", str(out)])
    assert code == 0
    tab = pd.read_csv(out)
    assert tab.log2_gamma.tolist() == [-2.0, 0.0, 2.0]
    assert tab.U_tr.between(0, 1).all() and tab.L_val.between(0, 1).all()


@pytest.mark.parametrize("args, message", [
    (["sweep", "--dataset", "nope", "--out", "x.csv"], "name must be one of"),
    (["sweep", "--log2-gamma", "5:1", "--out", "x.csv"], "LO:HI"),
    (["sweep", "--out", "x.txt"], ".csv or .parquet"),
    (["sweep", "--out", "/no/such/dir/x.csv"], "does not exist"),
    (["sweep", "--M", "1", "--n-train", "100", "--n-test", "0", "--out", "x.csv"], "M must be"),
])
def test_sweep_bad_arguments_exit_2_with_message(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli(*args)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_command_exits_2():
    r = run_cli("frobnicate")
    assert r.returncode == 2
