"""The ``buviz`` command: ``buviz sweep``, ``buviz figure``, ``buviz serve``.

Every error is one line on stderr and a non-zero exit code (2 for bad arguments or parameters,
1 for failures while running).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

__all__ = ["main"]


class UsageError(Exception):
    """Bad arguments: exit code 2."""


def _parse_range(text: str) -> np.ndarray:
    """``"-10:10"`` or ``"-10:10:2"`` (inclusive, log2 values) or ``"-3,0,4"``."""
    try:
        if ":" in text:
            parts = [float(p) for p in text.split(":")]
            if len(parts) not in (2, 3):
                raise ValueError
            lo, hi = parts[:2]
            step = parts[2] if len(parts) == 3 else 1.0
            if step <= 0 or hi < lo:
                raise ValueError
            return np.arange(lo, hi + step / 2, step)
        return np.array([float(p) for p in text.split(",") if p.strip()])
    except ValueError:
        raise UsageError(f"cannot read {text!r}: use LO:HI[:STEP] or a comma-separated list") from None


def _parse_sets(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--set expects key=value, got {item!r}")
        key, value = item.split("=", 1)
        out[key.strip()] = _literal(value.strip())
    return out


def _literal(text: str):
    """int, float, bool, None, a comma list of those, or the string itself (never evaluated as code)."""
    if "," in text:
        return [_literal(t) for t in text.split(",") if t]
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


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
    ds = datasets.load(args.dataset, n_train=args.n_train, n_test=args.n_test, random_state=args.seed)

    def progress(done, total):
        if total and not args.quiet:
            print(f"\r{done}/{total} tasks", end="", file=sys.stderr, flush=True)

    K = args.K if args.K == "aic" else int(args.K)
    common = dict(cv=args.cv, M=args.M, K=K, perturbation=args.perturbation, random_state=args.seed,
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


def cmd_figure(args) -> int:
    from buviz import figures

    if args.list:
        for name, fig in figures.REGISTRY.items():
            print(f"{name:<28} {fig.description}")
        return 0
    if not args.name:
        raise UsageError("name a figure (see 'buviz figure --list') or pass --list")
    if args.name not in figures.REGISTRY:
        raise UsageError(f"unknown figure {args.name!r}; 'buviz figure --list' shows the names")
    if not args.out:
        raise UsageError("--out FILE is required (.svg, .pdf, .png or, for tables, .csv)")
    out = _writable(args.out)
    params = _parse_sets(args.set)
    try:
        figures.export(args.name, out, width=args.width, height=args.height, dpi=args.dpi, **params)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {out}")
    return 0


def cmd_serve(args) -> int:
    from buviz.app import serve

    serve(port=args.port, address=args.address, show=args.show,
          allow_websocket_origin=tuple(args.allow_websocket_origin or ()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="buviz", description="See how classifiers are evaluated.")
    sub = parser.add_subparsers(dest="command", required=True)

    sw = sub.add_parser("sweep", help="error and boundary uncertainty over classifier statuses, to CSV/Parquet")
    sw.add_argument("--dataset", default="gmm")
    sw.add_argument("--n-train", type=int, default=2000)
    sw.add_argument("--n-test", type=int, default=18000)
    sw.add_argument("--seed", type=int, default=0)
    sw.add_argument("--classifier", choices=["svm", "mlp"], default="svm")
    sw.add_argument("--log2-gamma", default="-10:10",
                    help="LO:HI[:STEP] or a list (SVM); write --log2-gamma=-10:10 for negative values")
    sw.add_argument("--epochs", default="1:30", help="LO:HI[:STEP] or a list (MLP)")
    sw.add_argument("--C", type=float, default=1.0)
    sw.add_argument("--cv", type=int, default=10)
    sw.add_argument("--M", type=int, default=40)
    sw.add_argument("--K", default="aic")
    sw.add_argument("--perturbation", type=float, default=0.5)
    sw.add_argument("--proposal1", action="store_true", help="add the Proposal 1 column U1_tr")
    sw.add_argument("--n-jobs", type=int, default=2)
    sw.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://127.0.0.1:8786")
    sw.add_argument("--no-cache", action="store_true")
    sw.add_argument("--quiet", action="store_true")
    sw.add_argument("--out", required=True)
    sw.set_defaults(func=cmd_sweep)

    fg = sub.add_parser("figure", help="render a paper figure or table")
    fg.add_argument("name", nargs="?")
    fg.add_argument("--list", action="store_true")
    fg.add_argument("--out")
    fg.add_argument("--set", action="append", metavar="KEY=VALUE", help="figure parameter (repeatable)")
    fg.add_argument("--width", type=float, default=6.0, help="inches")
    fg.add_argument("--height", type=float, default=4.0, help="inches")
    fg.add_argument("--dpi", type=int, default=150)
    fg.set_defaults(func=cmd_figure)

    sv = sub.add_parser("serve", help="serve the explorer app")
    sv.add_argument("--port", type=int, default=5006)
    sv.add_argument("--address", default="127.0.0.1", help="bind address (default: localhost only)")
    sv.add_argument("--allow-websocket-origin", action="append", metavar="HOST[:PORT]",
                    help="a host the browsers will use, e.g. myserver:5006 (repeatable; with --address 0.0.0.0)")
    sv.add_argument("--show", action="store_true", help="open a browser")
    sv.set_defaults(func=cmd_serve)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
