"""The ``buviz`` command: ``buviz sweep``, ``buviz figure``, ``buviz reproduce``, ``buviz claims``, ``buviz serve``.

Every error is one line on stderr and a non-zero exit code (2 for bad arguments or parameters,
1 for failures while running). Errors name the option and what it accepts, and a misspelled name
(command, option, figure, dataset) gets a suggestion. Negative values and ranges can be written as
typed: ``--log2-gamma -10:10`` is read like ``--log2-gamma=-10:10``.

Examples::

    buviz figure --list
    buviz figure uncertainty_fig6_quick --params             # former name bu_fig6 works too
    buviz figure uncertainty_fig6 --out fig6.svg             # the figure's own default size
    buviz figure uncertainty_fig6_quick --out fig6.png --width 6 --height 4 --set n_train=600
    buviz sweep --log2-gamma -10:10:2 --out gammas.csv
    buviz sweep --csv mydata.csv --label-column label --out mine.csv
    buviz claims                                             # every claim judged, with its verdict
    buviz claims --check uncertainty_fig8                    # redo its evidence from an empty cache
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

import numpy as np

__all__ = ["main", "build_parser"]

#: Largest CSV ``buviz sweep --csv`` reads (the explorer's upload limit is smaller).
MAX_CSV_BYTES = 200 * 1024 * 1024


class UsageError(Exception):
    """Bad arguments: exit code 2."""


def _did_you_mean(word: str, options, n: int = 3) -> str:
    close = difflib.get_close_matches(str(word), [str(o) for o in options], n=n, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def _range_values(text: str) -> np.ndarray:
    """``"-10:10"`` or ``"-10:10:2"`` (inclusive) or ``"-3,0,4"``; ``ValueError`` with the reason."""
    text = str(text).strip()
    if ":" in text:
        try:
            parts = [float(p) for p in text.split(":")]
        except ValueError:
            raise ValueError(f"{text!r} is not LO:HI[:STEP] with numbers") from None
        if len(parts) not in (2, 3):
            raise ValueError(f"{text!r} has {len(parts)} parts; LO:HI[:STEP] has 2 or 3")
        lo, hi = parts[:2]
        step = parts[2] if len(parts) == 3 else 1.0
        if step <= 0:
            raise ValueError(f"{text!r}: STEP must be positive")
        if hi < lo:
            raise ValueError(f"{text!r}: HI ({hi:g}) is below LO ({lo:g})")
        return np.arange(lo, hi + step / 2, step)
    try:
        values = np.array([float(p) for p in text.split(",") if p.strip()])
    except ValueError:
        raise ValueError(f"{text!r} is neither LO:HI[:STEP] nor a comma-separated list of numbers") from None
    if not len(values):
        raise ValueError("no values given")
    return values


def _parse_range(text: str) -> np.ndarray:
    try:
        return _range_values(text)
    except ValueError as exc:
        raise UsageError(f"cannot read {exc}; use LO:HI[:STEP] (e.g. -10:10:2) or a list (e.g. -3,0,4)") from None


def _range_type(text: str) -> str:
    """argparse type: check a range early (the value stays text; the command parses it)."""
    try:
        _range_values(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}; use LO:HI[:STEP] (e.g. -10:10:2) or a list (e.g. -3,0,4)"
                                         ) from None
    return text


def _int_type(low: int | None = None, high: int | None = None, *, nonzero: bool = False):
    def conv(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or (low is not None and value < low) or (high is not None and value > high) \
                or (nonzero and value == 0):
            if low is not None and high is not None:
                bound = f" from {low} to {high}"
            elif low is not None:
                bound = f" ≥ {low}"
            elif high is not None:
                bound = f" ≤ {high}"
            else:
                bound = ""
            if nonzero:
                bound += " other than 0"
            raise argparse.ArgumentTypeError(f"expected an integer{bound}, got {text!r}")
        return value
    conv.__name__ = "integer"
    return conv


#: TCP ports a server can listen on.
_PORT = _int_type(1, 65535)


def _address_type(text: str) -> str:
    """argparse type: an address this machine can bind (an IP address or a host name that resolves)."""
    import socket

    try:
        socket.getaddrinfo(text, None)
    except (OSError, UnicodeError) as exc:
        raise argparse.ArgumentTypeError(f"cannot resolve {text!r} ({exc}); use an IP address of this machine, "
                                         f"e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)"
                                         ) from None
    return text


def _origin_type(text: str) -> str:
    """argparse type: ``HOST`` or ``HOST:PORT`` (what browsers put in their Origin header)."""
    host, sep, port = text.rpartition(":") if ":" in text else (text, "", "")
    if "/" in text or not host or (sep and _port_or_none(port) is None):
        raise argparse.ArgumentTypeError(f"expected HOST or HOST:PORT with a port from 1 to 65535, e.g. "
                                         f"myserver:5006, got {text!r}")
    return text


def _port_or_none(text: str) -> int | None:
    try:
        return _PORT(text)
    except argparse.ArgumentTypeError:
        return None


def _float_type(low: float | None = None, high: float | None = None, *, open_low: bool = False):
    def conv(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        ok = np.isfinite(value) and (low is None or (value > low if open_low else value >= low)) \
            and (high is None or value <= high)
        if not ok:
            if low is not None and high is not None:
                what = f"a number in {'(' if open_low else '['}{low:g}, {high:g}]"
            elif low is not None:
                what = f"a number {'>' if open_low else '≥'} {low:g}"
            else:
                what = "a number"
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    conv.__name__ = "number"
    return conv


def _k_type(text: str):
    if text.strip().lower() == "aic":
        return "aic"
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 'aic' (choose K per class by AIC) or a positive integer "
                                         f"(prototypes per class), got {text!r}")
    return value


def _choice_type(options: tuple[str, ...]):
    def conv(text: str) -> str:
        if text not in options:
            raise argparse.ArgumentTypeError(f"unknown value {text!r}{_did_you_mean(text, options)} "
                                             f"(valid: {', '.join(options)})")
        return text
    conv.__name__ = "choice"
    return conv


_NEGATIVE_VALUE = re.compile(r"^-(\d|\.\d)[\d.eE+,:-]*$")


def _join_negative_values(argv: list[str]) -> list[str]:
    """``--opt -10:10`` -> ``--opt=-10:10``: argparse would read ``-10:10`` as an unknown option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("--") and "=" not in tok and i + 1 < len(argv) and _NEGATIVE_VALUE.match(argv[i + 1]):
            out.append(f"{tok}={argv[i + 1]}")
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


class _Parser(argparse.ArgumentParser):
    """argparse with suggestions for misspelled commands, choices and options."""

    def error(self, message):
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            options = re.findall(r"'([^']*)'", m.group(2))
            message = f"{message}{_did_you_mean(m.group(1), options)}"
        m = re.match(r"unrecognized arguments: (.*)", message)
        if m:
            known = set(re.findall(r"--[a-z0-9][a-z0-9-]*", self._all_help()))
            hints = [f"{tok!r}{_did_you_mean(tok.split('=')[0], known, n=1)}" for tok in m.group(1).split()
                     if tok.startswith("--")]
            if hints:
                message = f"{message} ({'; '.join(hints)})"
        super().error(message)

    def _all_help(self) -> str:
        return "".join(p.format_help() for p in (self, *getattr(self, "subcommand_parsers", ())))


def _parse_sets(items: list[str], cls=None) -> dict:
    """``KEY=VALUE`` items as figure parameters, each value read by the type its param declaration
    gives (integers, numbers, true/false, choices, comma-separated lists); unknown keys are passed on
    so that the figure names the accepted ones."""
    from buviz.figures._base import parse_literal, parse_text

    out = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--set expects key=value, got {item!r}")
        key, value = item.split("=", 1)
        key, value = key.strip(), value.strip()
        out[key] = parse_text(cls.param[key], value) if cls is not None and key in cls.parameter_names() \
            else parse_literal(value)
    return out


def _writable(path: str) -> Path:
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"--out {path!r} is a directory, expected a file name")
    if not p.parent.exists():
        raise UsageError(f"--out {path!r}: directory {str(p.parent)!r} does not exist")
    return p


def cmd_sweep(args) -> int:
    from buviz import datasets, sweep

    out = _writable(args.out)
    if out.suffix not in (".csv", ".parquet"):
        raise UsageError("--out must end in .csv or .parquet")
    if args.csv:
        ds = _read_csv(args)
    else:
        ds = datasets.load(args.dataset or "gmm", n_train=args.n_train, n_test=args.n_test, random_state=args.seed)

    def progress(done, total):
        if total and not args.quiet:
            print(f"\r{done}/{total} tasks", end="", file=sys.stderr, flush=True)

    common = dict(cv=args.cv, M=args.M, K=args.K, perturbation=args.perturbation, random_state=args.seed,
                  n_jobs=args.n_jobs, cache=not args.no_cache, scheduler=args.scheduler, progress=progress)
    if args.classifier == "svm":
        table = sweep.svm_gamma_sweep(ds, 2.0 ** _parse_range(args.log2_gamma), C=args.C,
                                      proposal1=args.proposal1, **common)
    else:
        epochs = _parse_range(args.epochs).astype(int)
        table = sweep.mlp_epoch_sweep(ds, epochs, **common)
    if not args.quiet:
        print(file=sys.stderr)
    if out.suffix == ".csv":
        table.to_csv(out, index=False)
    else:
        try:
            table.to_parquet(out, index=False)
        except ImportError as exc:
            raise UsageError(f"writing Parquet needs pyarrow ({exc}); use a .csv file name") from None
    print(f"wrote {len(table)} rows to {out}")
    return 0


def _read_csv(args):
    """The user's own labelled CSV (``--csv``): numeric feature columns and one label column."""
    from buviz import datasets

    path = Path(args.csv)
    if not path.is_file():
        raise UsageError(f"--csv {args.csv!r}: no such file")
    label = args.label_column
    label = int(label) if re.fullmatch(r"-?\d+", label) else label
    try:
        return datasets.read_csv(path, label_column=label, n_features=None, max_bytes=MAX_CSV_BYTES,
                                 test_size=args.test_size, random_state=args.seed, name=path.stem)
    except ValueError as exc:
        raise UsageError(f"--csv {args.csv!r}: {exc}") from None


def _show(value) -> str:
    if isinstance(value, tuple | list):
        return ",".join(_show(v) for v in value)
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def _print_params(name: str) -> None:
    from buviz import figures

    cls = figures.get(name)
    rows = [(r.name, _show(r.default), r.bounds) for r in figures.parameter_table(name).itertuples()]
    w_name = max([len("parameter")] + [len(r[0]) for r in rows])
    w_def = max([len("default")] + [len(r[1]) for r in rows])
    print(f"{cls.key}: {cls.description}")
    alias = f"formerly {cls.alias}; " if cls.alias else ""
    print(f"({alias}{cls.kind}; default export size {cls.size[0]:g} x {cls.size[1]:g} in)")
    print(f"from {cls.citation()}\n")
    print(f"{'parameter':<{w_name}}  {'default':<{w_def}}  accepts")
    for pname, default, accepts in rows:
        print(f"{pname:<{w_name}}  {default:<{w_def}}  {accepts}")
    if rows:
        print(f"\nset with --set NAME=VALUE (lists comma-separated), e.g. --set {rows[0][0]}={rows[0][1]}")


def cmd_reproduce(args) -> int:
    """Compute (resuming from the cells on disk) the shipped tables behind the real-data figures."""
    import time

    from buviz import reproduce

    if args.list:
        for key, (table, names) in reproduce.FIGURE_TABLES.items():
            state = ["shipped" if reproduce.has_table(table, n) else "missing" for n in names]
            done = sum(s == "shipped" for s in state)
            print(f"{key:<20} table {table:<10} {done}/{len(names)} shipped  ({', '.join(names)})")
        return 0
    chosen = sum(bool(x) for x in (args.figure, args.table, args.all))
    if chosen != 1:
        raise UsageError("name one of --figure KEY, --table NAME or --all (see 'buviz reproduce --list')")
    if args.figure and args.figure not in reproduce.FIGURE_TABLES:
        raise UsageError(f"unknown figure {args.figure!r}{_did_you_mean(args.figure, list(reproduce.FIGURE_TABLES))} "
                         "('buviz reproduce --list' shows the names)")
    if args.table and args.table not in reproduce.TABLES:
        raise UsageError(f"unknown table {args.table!r}{_did_you_mean(args.table, list(reproduce.TABLES))}")
    t0 = time.perf_counter()

    def log(line: str) -> None:
        print(f"[{time.perf_counter() - t0:7.0f} s] {line}", flush=True)

    if args.datasets:
        held = ([reproduce.FIGURE_TABLES[args.figure][1]] if args.figure else
                [reproduce.TABLES[args.table].datasets] if args.table else
                [spec.datasets for spec in reproduce.TABLES.values()])
        names = sorted({n for ns in held for n in ns})
        for n in args.datasets:
            if n not in names:
                raise UsageError(f"unknown dataset {n!r} here{_did_you_mean(n, names)} "
                                 f"(these tables hold: {', '.join(names)})")
    written = reproduce.reproduce(figure=args.figure or None, table=args.table or None, all_tables=args.all,
                                  datasets=args.datasets or None,
                                  seeds=args.seeds, recompute=args.recompute, directory=args.out_dir,
                                  work_dir=args.work_dir, n_jobs=args.n_jobs, scheduler=args.scheduler, log=log)
    print(f"wrote {len(written)} table(s)")
    return 0


def _reproduce_parser(sub) -> argparse.ArgumentParser:
    rp = sub.add_parser("reproduce", help="compute the shipped tables behind the real-data figures",
                        usage="%(prog)s (--figure KEY | --table NAME | --all) [--datasets NAME ...] [--seeds S ...] "
                              "[--recompute] "
                              "[--out-dir DIR] [--work-dir DIR] [--n-jobs N] [--scheduler ADDRESS] | --list",
                        description="Run the experiments behind the real-data figures of Ha et al. (2021) at the "
                                    "paper's settings (buviz.reproduce), cell by cell (one per dataset, seed and "
                                    "gamma), in parallel, keeping each finished cell in --work-dir so that an "
                                    "interrupted run resumes; then write the tables (CSV).")
    rp.add_argument("--figure", metavar="KEY", help="a real-data figure, e.g. uncertainty_fig8 (see --list)")
    rp.add_argument("--table", metavar="NAME", help="a table: svm_gamma, mlp_epoch, u_by_M, u_by_K or table3")
    rp.add_argument("--all", action="store_true", help="every table (the sweeps of all seeds first)")
    rp.add_argument("--list", action="store_true", help="list the figures and whether their tables are shipped")
    rp.add_argument("--datasets", nargs="+", default=None, metavar="NAME",
                    help="only these datasets' cells and tables, e.g. banknote german (default: all of them)")
    rp.add_argument("--seeds", type=_int_type(0), nargs="+", default=[0, 1, 2], metavar="S",
                    help="seeds of T~, K-means, CV folds and hold-out split (default: 0 1 2)")
    rp.add_argument("--recompute", action="store_true", help="compute even when the tables are present")
    rp.add_argument("--out-dir", default=None, metavar="DIR",
                    help="where to write (default: the package's data/tables, in a source checkout)")
    rp.add_argument("--work-dir", default=None, metavar="DIR",
                    help="where finished cells are kept (default: $BUVIZ_CACHE_DIR/reproduce)")
    rp.add_argument("--n-jobs", type=_int_type(1), default=2, help="cells run in parallel (default 2)")
    rp.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="a Dask scheduler address (tcp://host:port): run the cells on its workers")
    rp.set_defaults(func=cmd_reproduce)
    return rp


def figure_names() -> tuple[frozenset[str], frozenset[str]]:
    """The figure keys and former names (aliases) of :mod:`buviz.figures`, read from the figure
    modules' source, not imported: importing them (HoloViews, every figure's data) took 13 s, and 46 s
    on a busy machine, before ``buviz figure nope`` could say the name is wrong. Each figure class states
    ``key`` (and ``alias``) as string literals in its body (``key, alias, paper, number = "...", ...``);
    ``tests/cli`` checks these names equal ``figures.REGISTRY`` and ``figures.ALIASES``."""
    import ast
    from importlib import resources

    keys, aliases = set(), set()
    for entry in (resources.files("buviz") / "figures").iterdir():  # the folder: importing the package imports all
        if not entry.name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(entry.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for st in node.body:
                if not isinstance(st, ast.Assign) or len(st.targets) != 1:
                    continue
                target, value = st.targets[0], st.value
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                    pairs = [(t.id, v) for t, v in zip(target.elts, value.elts, strict=False)
                             if isinstance(t, ast.Name)]
                elif isinstance(target, ast.Name):
                    pairs = [(target.id, value)]
                else:
                    continue
                for name, v in pairs:
                    literal = isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value
                    if name in ("key", "alias") and literal:
                        (keys if name == "key" else aliases).add(v.value)
    return frozenset(keys), frozenset(aliases)


def cmd_figure(args) -> int:
    if args.name and not args.list:  # a wrong name is refused before the figures are imported
        keys, aliases = figure_names()
        if args.name not in keys and args.name not in aliases:
            raise UsageError(f"NAME: unknown figure {args.name!r}{_did_you_mean(args.name, [*keys, *aliases])} "
                             "('buviz figure --list' shows the names)")
    from buviz import figures

    if args.list:
        w = max(len(k) for k in figures.REGISTRY)
        for paper in figures.PAPERS:
            for key, cls in figures.REGISTRY.items():
                if cls.paper == paper:
                    alias = f"({cls.alias})" if cls.alias else ""
                    print(f"{key:<{w}}  {alias:<16} {cls.description}")
        return 0
    if not args.name:
        raise UsageError("name a figure (see 'buviz figure --list') or pass --list")
    if args.name not in figures.REGISTRY and args.name not in figures.ALIASES:
        known = [*figures.REGISTRY, *figures.ALIASES]
        raise UsageError(f"unknown figure {args.name!r}{_did_you_mean(args.name, known)} "
                         "('buviz figure --list' shows the names)")
    if args.params:
        _print_params(args.name)
        return 0
    if not args.out:
        raise UsageError("--out FILE is required (.svg, .pdf, .png or, for tables, .csv)")
    out = _writable(args.out)
    params = _parse_sets(args.set, figures.get(args.name))
    try:
        figures.export(args.name, out, width=args.width, height=args.height, dpi=args.dpi, **params)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{exc} (see 'buviz figure {args.name} --params')") from None
    print(f"wrote {out}")
    return 0


def cmd_serve(args) -> int:
    import errno

    from buviz.app import serve

    try:
        serve(port=args.port, address=args.address, show=args.show,
              allow_websocket_origin=tuple(args.allow_websocket_origin or ()), uploads=not args.no_upload,
              session_budget=args.session_budget)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"--port {args.port}: the port is in use on {args.address} (another server?); "
                             f"choose another with --port") from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise UsageError(f"--address {args.address!r} is not an address of this machine") from None
        if exc.errno == errno.EACCES:
            raise UsageError(f"--port {args.port}: not allowed to listen there (ports below 1024 need "
                             f"privileges); choose a port from 1024 to 65535") from None
        raise
    return 0


def build_parser() -> argparse.ArgumentParser:
    from buviz.datasets import DATASET_NAMES

    parser = _Parser(prog="buviz", description="See how classifiers are evaluated.",
                     epilog="'buviz COMMAND --help' describes a command's options.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sw = sub.add_parser("sweep", help="error and boundary uncertainty over classifier statuses, to CSV/Parquet",
                        usage="%(prog)s [--dataset NAME | --csv FILE] [options] --out FILE",
                        description="Sweep a classifier's status (SVM γ or MLP epochs) and write errors and "
                                    "boundary uncertainty per status.")
    data = sw.add_mutually_exclusive_group()
    data.add_argument("--dataset", type=_choice_type(DATASET_NAMES), default=None, metavar="NAME",
                      help=f"built-in data set: {', '.join(DATASET_NAMES)} (default: gmm)")
    data.add_argument("--csv", metavar="FILE",
                      help="your own labelled CSV: a header, numeric feature columns and one label column")
    sw.add_argument("--label-column", default="-1", metavar="COL",
                    help="with --csv: the label column's name or index (default: the last column)")
    sw.add_argument("--test-size", type=_float_type(0.0, 0.9), default=0.3,
                    help="with --csv: share held out as test set (default: 0.3)")
    sw.add_argument("--n-train", type=_int_type(20), default=2000, help="training samples (mixtures)")
    sw.add_argument("--n-test", type=_int_type(0), default=18000, help="test samples (mixtures)")
    sw.add_argument("--seed", type=_int_type(0, 2**32 - 1), default=0)
    sw.add_argument("--classifier", type=_choice_type(("svm", "mlp")), default="svm", help="svm or mlp")
    sw.add_argument("--log2-gamma", type=_range_type, default="-10:10",
                    help="SVM: log2 γ as LO:HI[:STEP] or a list, e.g. -10:10:2 or -3,0,4 (default: -10:10)")
    sw.add_argument("--epochs", type=_range_type, default="1:30", help="MLP: LO:HI[:STEP] or a list")
    sw.add_argument("--C", type=_float_type(0.0, open_low=True), default=1.0, help="SVM regularisation (> 0)")
    sw.add_argument("--cv", type=_int_type(2), default=10, help="cross-validation folds (≥ 2)")
    sw.add_argument("--M", type=_int_type(2), default=40, help="cluster size of Proposal 2 (≥ 2)")
    sw.add_argument("--K", type=_k_type, default="aic", help="prototypes per class: 'aic' or a positive integer")
    sw.add_argument("--perturbation", type=_float_type(0.0, 10.0), default=0.5, help="T̃ amplitude in [0, 10]")
    sw.add_argument("--proposal1", action="store_true", help="add the Proposal 1 column U1_tr")
    sw.add_argument("--n-jobs", type=_int_type(nonzero=True), default=2,
                    help="worker processes (default: 2; -1: one per CPU, as in joblib)")
    sw.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://127.0.0.1:8786")
    sw.add_argument("--no-cache", action="store_true")
    sw.add_argument("--quiet", action="store_true")
    sw.add_argument("--out", required=True, help="output file, .csv or .parquet")
    sw.set_defaults(func=cmd_sweep)

    fg = sub.add_parser("figure", help="render a paper figure or table",
                        usage="%(prog)s NAME --out FILE [--set KEY=VALUE ...] [--width IN --height IN] | "
                              "NAME --params | --list",
                        description="Render a reproduced paper figure (.svg/.pdf/.png) or table (.csv).")
    fg.add_argument("name", nargs="?", help="figure name (see --list)")
    fg.add_argument("--list", action="store_true", help="list the figures and tables")
    fg.add_argument("--params", action="store_true", help="list the figure's parameters, defaults and bounds")
    fg.add_argument("--out", help="output file: .svg, .pdf, .png or, for tables, .csv")
    fg.add_argument("--set", action="append", metavar="KEY=VALUE", help="figure parameter (repeatable)")
    fg.add_argument("--width", type=_float_type(0.5, 100.0), default=None,
                    help="inches (default: the figure's own size, see --params)")
    fg.add_argument("--height", type=_float_type(0.5, 100.0), default=None, help="inches (default: as --width)")
    fg.add_argument("--dpi", type=_int_type(10, 2400), default=150, help="PNG resolution (default: 150)")
    fg.set_defaults(func=cmd_figure)
    rp = _reproduce_parser(sub)
    cl = _claims_parser(sub)

    sv = sub.add_parser("serve", help="serve the explorer app")
    sv.add_argument("--port", type=_PORT, default=5006, help="TCP port from 1 to 65535 (default: 5006)")
    sv.add_argument("--address", type=_address_type, default="127.0.0.1",
                    help="bind address (default: 127.0.0.1, this machine only; 0.0.0.0: every interface)")
    sv.add_argument("--allow-websocket-origin", action="append", metavar="HOST[:PORT]", type=_origin_type,
                    help="a host the browsers will use, e.g. myserver:5006 (repeatable; with --address 0.0.0.0)")
    sv.add_argument("--show", action="store_true", help="open a browser")
    sv.add_argument("--no-upload", action="store_true",
                    help="no CSV upload in the explorer (a class server where nobody should bring files)")
    sv.add_argument("--session-budget", type=_float_type(0.0, 3600.0), default=None, metavar="SECONDS",
                    help="compute seconds per minute a page may use before its requests wait behind the other "
                         "pages' (default: BUVIZ_SESSION_BUDGET, else 0: no fair share; e.g. 20)")
    sv.set_defaults(func=cmd_serve)
    parser.subcommand_parsers = (sw, fg, rp, cl, sv)  # for suggestions on misspelled options
    return parser


def cmd_claims(args) -> int:
    from buviz import claims

    if args.check:
        try:
            claims.get(args.check)
        except ValueError as exc:
            known = [c.id for c in claims.claims()]
            raise UsageError(f"--check: unknown claim {args.check!r}{_did_you_mean(args.check, known)} "
                             "('buviz claims' lists them)") from exc
        result = claims.check(args.check, datasets=args.datasets, max_cells=args.max_cells,
                              log=lambda line: print(line, file=sys.stderr))
        print(result)
        return 0 if result.holds is not False else 1
    if args.markdown:
        print(claims.markdown(), end="")
        return 0
    for c in claims.claims():
        print(f"{c.id}  [{c.place}]\n  claim: {c.claim}\n  verdict: {c.verdict()}\n  data: {c.data}\n"
              f"  redo: {c.command}" + (f"; quick check: buviz claims --check {c.id}" if c.quick_check else "")
              + "\n")
    return 0


def _claims_parser(sub):
    cl = sub.add_parser("claims", help="the papers' claims buviz judges, their verdicts, and a check that redoes one",
                        description="List every claim of the three papers that buviz judges (paper and place, the "
                                    "claim, the verdict with seed counts, the data, the command that redoes it), "
                                    "or redo one claim's evidence from an empty cache (--check ID).")
    cl.add_argument("--check", metavar="ID", help="redo this claim's evidence and say whether its verdict holds")
    cl.add_argument("--datasets", nargs="+", metavar="NAME", help="with --check: the datasets to recompute")
    cl.add_argument("--max-cells", type=int, default=2, help="with --check: cells recomputed (default: 2)")
    cl.add_argument("--markdown", action="store_true", help="print the ledger as docs/claims.md")
    cl.set_defaults(func=cmd_claims)
    return cl


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_join_negative_values(list(sys.argv[1:] if argv is None else argv)))
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"buviz {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # the package's own parameter checks
        print(f"buviz {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"buviz {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
