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
    (["sweep", "--dataset", "nope", "--out", "x.csv"], "argument --dataset: unknown value 'nope'"),
    (["sweep", "--log2-gamma", "5:1", "--out", "x.csv"], "LO:HI"),
    (["sweep", "--out", "x.txt"], ".csv or .parquet"),
    (["sweep", "--out", "/no/such/dir/x.csv"], "does not exist"),
    (["sweep", "--M", "1", "--n-train", "100", "--n-test", "0", "--out", "x.csv"],
     "argument --M: expected an integer ≥ 2"),
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


# ------------------------------------------------------------------------------------------------
# a CLI that explains itself (in-process: argparse errors are SystemExit(2) with the message on stderr)
# ------------------------------------------------------------------------------------------------
def _error(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as exc:
        code = main(list(argv))
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_misspelled_figure_gets_a_suggestion(capsys):
    err = _error(capsys, "figure", "bu_fig_6", "--out", "x.svg")
    assert "unknown figure 'bu_fig_6'; did you mean 'bu_fig6'" in err


def test_misspelled_command_option_and_parameter_get_suggestions(capsys, tmp_path):
    assert "did you mean 'figure'?" in _error(capsys, "figur", "--list")
    assert "did you mean '--log2-gamma'?" in _error(capsys, "sweep", "--lo2-gamma", "1", "--out", "x.csv")
    assert "did you mean 'svm'?" in _error(capsys, "sweep", "--classifier", "svn", "--out", "x.csv")
    err = _error(capsys, "figure", "zheng_fig6", "--set", "rh=0.5", "--out", str(tmp_path / "x.svg"))
    assert "no parameter 'rh' (did you mean rho?)" in err and "--params" in err


@pytest.mark.parametrize("argv, message", [
    (["--K", "three"], "argument --K: expected 'aic' (choose K per class by AIC) or a positive integer"),
    (["--K", "0"], "argument --K: expected 'aic'"),
    (["--cv", "x"], "argument --cv: expected an integer ≥ 2, got 'x'"),
    (["--perturbation", "-1"], "argument --perturbation: expected a number in [0, 10], got '-1'"),
    (["--C", "0"], "argument --C: expected a number > 0"),
    (["--dataset", "gm"], "did you mean 'gmm' or 'gmm3'? (valid: gmm, gmm_separable"),
    (["--log2-gamma", "a:b"], "argument --log2-gamma: 'a:b' is not LO:HI[:STEP] with numbers"),
    (["--epochs", "1:2:0"], "argument --epochs: '1:2:0': STEP must be positive"),
    (["--n-jobs", "0"], "argument --n-jobs: expected an integer other than 0, got '0'"),
    (["--seed", str(2**32)], f"argument --seed: expected an integer from 0 to {2**32 - 1}"),
])
def test_errors_name_the_option_and_its_valid_values(capsys, argv, message):
    assert message in _error(capsys, "sweep", *argv, "--out", "x.csv")


@pytest.mark.parametrize("argv, message", [
    (["--port", "99999"], "argument --port: expected an integer from 1 to 65535, got '99999'"),
    (["--port", "0"], "argument --port: expected an integer from 1 to 65535, got '0'"),
    (["--port", "-1"], "argument --port: expected an integer from 1 to 65535, got '-1'"),
    (["--port", "http"], "argument --port: expected an integer from 1 to 65535, got 'http'"),
    (["--address", "no-such-host.invalid"], "argument --address: cannot resolve 'no-such-host.invalid'"),
    (["--allow-websocket-origin", "myserver:99999"], "argument --allow-websocket-origin: expected HOST or "
                                                     "HOST:PORT with a port from 1 to 65535"),
    (["--allow-websocket-origin", "http://myserver"], "argument --allow-websocket-origin: expected HOST"),
])
def test_serve_refuses_bad_arguments_before_starting(capsys, argv, message):
    """``buviz serve --port 99999`` once ended in a raw AssertionError from Bokeh's server."""
    assert message in _error(capsys, "serve", *argv)


def test_serve_arguments_at_the_bounds_are_accepted():
    from buviz.cli import build_parser

    for port in ("1", "65535"):
        assert build_parser().parse_args(["serve", "--port", port]).port == int(port)
    args = build_parser().parse_args(["serve", "--address", "localhost", "--allow-websocket-origin", "[::1]:5006",
                                      "--allow-websocket-origin", "myserver"])
    assert args.address == "localhost" and args.allow_websocket_origin == ["[::1]:5006", "myserver"]


def test_figure_dpi_is_bounded(capsys):
    assert "argument --dpi: expected an integer from 10 to 2400, got '100000'" in _error(
        capsys, "figure", "discrete_fig2", "--out", "x.png", "--dpi", "100000")


def test_serve_on_a_port_in_use_says_so():
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "buviz.cli", "serve", "--port", str(port)], capture_output=True,
                           text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert f"--port {port}: the port is in use on 127.0.0.1" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("argv, attr, value", [
    (["--log2-gamma", "-10:10"], "log2_gamma", "-10:10"),
    (["--log2-gamma", "-10:-2:2"], "log2_gamma", "-10:-2:2"),
    (["--log2-gamma", "-3,0,4"], "log2_gamma", "-3,0,4"),
    (["--log2-gamma=-4:4"], "log2_gamma", "-4:4"),
    (["--n-jobs", "-1"], "n_jobs", -1),
    (["--K", "3"], "K", 3),
])
def test_negative_values_accepted_as_typed(argv, attr, value):
    from buviz.cli import _join_negative_values, build_parser

    args = build_parser().parse_args(_join_negative_values(["sweep", *argv, "--out", "x.csv"]))
    assert getattr(args, attr) == value


def test_params_lists_every_figure_parameter_with_default_and_bounds(capsys):
    from buviz import figures

    for name, fig in figures.REGISTRY.items():
        assert main(["figure", name, "--params"]) == 0
        out = capsys.readouterr().out
        assert fig.description in out and "default export size" in out
        for pname, accepts in figures.parameter_table(name)[["name", "bounds"]].itertuples(index=False):
            assert accepts, f"{name}.{pname} has no bounds text"
            line = next(ln for ln in out.splitlines() if ln.split() and ln.split()[0] == pname)
            assert accepts in line
    assert main(["figure", "bu_fig6", "--params"]) == 0
    out = capsys.readouterr().out
    assert "n_train       300" in out and "integer ≥ 20" in out and "-6,-4,-2,0,2,4,6" in out


def test_bounds_text_lists_the_package_choices():
    from buviz import datasets, figures
    from buviz import extrapolation as ex

    def bounds(name, param):
        return figures.parameter_table(name).set_index("name").loc[param, "bounds"]

    assert bounds("uncertainty_fig3", "dataset") == ", ".join(datasets.DATASET_NAMES)
    assert bounds("extrapolation_fig11_synthetic", "classifier") == ", ".join(ex.CLASSIFIERS)
    assert bounds("extrapolation_table1_synthetic", "method") == ", ".join(ex.METHODS)


def test_sweep_own_csv(tmp_path, monkeypatch):
    import numpy as np

    monkeypatch.setenv("BUVIZ_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1, 1, (60, 3)), rng.normal(1, 1, (60, 3))])
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame.insert(1, "species", ["left"] * 60 + ["right"] * 60)
    src = tmp_path / "mine.csv"
    frame.to_csv(src, index=False)
    out = tmp_path / "t.csv"
    code = main(["sweep", "--csv", str(src), "--label-column", "species", "--log2-gamma", "-2,0", "--cv", "2",
                 "--M", "5", "--quiet", "--out", str(out)])
    assert code == 0
    tab = pd.read_csv(out)
    assert tab.log2_gamma.tolist() == [-2.0, 0.0]
    assert tab.L_val.between(0, 1).all() and tab.U_tr.between(0, 1).all()


def test_sweep_csv_errors(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y,label\n1,2,a\n3,oops,b\n")
    out = str(tmp_path / "t.csv")
    assert main(["sweep", "--csv", str(tmp_path / "none.csv"), "--out", out]) == 2
    assert "--csv" in capsys.readouterr().err
    assert main(["sweep", "--csv", str(bad), "--out", out]) == 2
    assert "non-numeric" in capsys.readouterr().err
    assert main(["sweep", "--csv", str(bad), "--label-column", "nope", "--out", out]) == 2
    assert "not a column" in capsys.readouterr().err
    assert "not allowed with" in _error(capsys, "sweep", "--csv", str(bad), "--dataset", "gmm", "--out", out)
