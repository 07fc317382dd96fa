"""What the user brings: an uploaded CSV (any number of numeric feature columns, any labels) and a
custom Gaussian mixture typed as JSON, checked and normalised before the explorer switches to them.

A CSV is sniffed before it is read: its delimiter (``,`` ``;`` tab ``|`` or spaces) and whether its
first row is a header (a first row whose feature cells are all numbers is data: the columns are then
named ``x1 … xd`` and ``label``). The file is rewritten as a plain comma-separated table with a
header and handed to :func:`buviz.datasets.read_csv`; :class:`Upload` says what was done
(``notes``), and a refusal says what would work.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
from dataclasses import dataclass, field

import numpy as np

from buviz import datasets

__all__ = ["Upload", "prepare_csv", "read_normalised", "parse_mixture", "check_mixture_text", "CSV_HELP",
           "DELIMITERS", "MAX_CLASSES", "MAX_COMPONENTS"]

#: Largest custom mixture accepted by the editor.
MAX_COMPONENTS = 20
MAX_CLASSES = 8

#: Delimiters the sniffer chooses from (a space stands for runs of blanks).
DELIMITERS = ",;\t| "
#: What the upload card says.
CSV_HELP = ("Numeric feature columns (two or more) and a label column (the last), one sample a row; "
            "comma, semicolon, tab or space separated, with or without a header row; .csv or .csv.gz, "
            f"at most {datasets.MAX_CSV_BYTES // 1_000_000} MB.")
_WOULD_WORK = ("What works: one sample per row, numeric feature columns and the label in the last column, "
               "e.g. `x1,x2,x3,label` then `0.5,1.2,-3,a`.")


@dataclass
class Upload:
    """A checked upload: the normalised CSV bytes, their digest, what the sniffer did, the dataset."""

    data: bytes
    digest: str
    notes: list[str] = field(default_factory=list)
    dataset: datasets.Dataset | None = None


def _decode(raw: bytes) -> str:
    if raw[:2] == b"\x1f\x8b":  # .csv.gz
        try:
            raw = gzip.GzipFile(fileobj=io.BytesIO(raw)).read(datasets.MAX_CSV_BYTES + 1)
        except OSError as exc:
            raise ValueError(f"the file looks gzip-compressed but cannot be read ({exc})") from None
        if len(raw) > datasets.MAX_CSV_BYTES:
            raise ValueError(f"the uncompressed CSV is larger than {datasets.MAX_CSV_BYTES} bytes")
    if b"\x00" in raw[:65536]:
        raise ValueError("the file looks binary (it contains NUL bytes); upload a plain-text CSV")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("the file is not UTF-8 text (save it as UTF-8 CSV)") from None


def _sniff(text: str) -> str:
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
    except csv.Error:
        return ","


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def prepare_csv(raw: bytes, *, random_state: int = 0) -> Upload:
    """Sniff, normalise and read an uploaded CSV.

    Parameters
    ----------
    raw : bytes
        The file as uploaded (plain or gzip-compressed).
    random_state : int, default=0
        Seed of the train/test split.

    Returns
    -------
    Upload
        The comma-separated bytes with a header, their digest, notes on what was inferred, the dataset.

    Raises
    ------
    ValueError
        With a message fit for a user: what is wrong and what would work.
    """
    if not raw:
        raise ValueError("the uploaded file is empty. " + _WOULD_WORK)
    if len(raw) > datasets.MAX_CSV_BYTES:
        raise ValueError(f"the file is too large: {len(raw)} bytes (limit {datasets.MAX_CSV_BYTES})")
    text = _decode(raw)
    if not text.strip():
        raise ValueError("the uploaded file is empty. " + _WOULD_WORK)
    delim = _sniff(text)
    notes = []
    if delim == " ":
        rows = [line.split() for line in text.splitlines() if line.strip()]
    else:
        rows = [r for r in csv.reader(io.StringIO(text), delimiter=delim) if any(c.strip() for c in r)]
    if delim != ",":
        notes.append(f"read as {({';': 'semicolon', chr(9): 'tab', '|': 'bar', ' ': 'space'})[delim]}-separated")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        raise ValueError(f"the rows have different numbers of columns ({sorted(widths)[:5]}). " + _WOULD_WORK)
    width = widths.pop()
    if width < 2:
        raise ValueError("only one column was found: a CSV needs at least two feature columns and a label "
                         "column. " + _WOULD_WORK)
    if width == 2:
        raise ValueError("only one feature column was found (and the label): the explorer needs at least two "
                         "features (its maps draw the samples in a plane). " + _WOULD_WORK)
    first = [c.strip() for c in rows[0]]
    if all(_is_number(c) for c in first[:-1]):
        header = [*(f"x{i + 1}" for i in range(width - 1)), "label"]
        notes.append(f"no header row found (the first row is numbers): columns named "
                     f"{', '.join(header[:3])}{' …' if width > 3 else ''}, label last")
        body = rows
    else:
        header, body = first, rows[1:]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows([c.strip() for c in r] for r in body)
    data = out.getvalue().encode("utf-8")
    try:
        ds = read_normalised(data, random_state=random_state)
    except ValueError as exc:
        raise ValueError(f"{exc}. {_WOULD_WORK}") from None
    notes.append(f"{ds.n_features} features, {ds.n_classes} classes, N(train) = {len(ds.X_train)}, "
                 f"N(test) = {len(ds.X_test)}")
    return Upload(data, hashlib.sha1(data).hexdigest()[:16], notes, ds)


def parse_mixture(text: str) -> datasets.GaussianMixture:
    """A 2-D :class:`GaussianMixture` from the editor's JSON, or ``ValueError`` with a user-fit message.

    Format: ``{"classes": [[{"weight": w, "mean": [m1, m2], "cov": c}, ...], ...], "priors": [...]}``
    where ``cov`` is a number (isotropic), two numbers (diagonal) or a 2 × 2 matrix.
    """
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"mixture is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(spec, dict) or "classes" not in spec:
        raise ValueError('mixture must be a JSON object with a "classes" list')
    classes = spec["classes"]
    if not isinstance(classes, list) or not 2 <= len(classes) <= MAX_CLASSES:
        raise ValueError(f'"classes" must list between 2 and {MAX_CLASSES} classes')
    comps = []
    for j, cl in enumerate(classes):
        if not isinstance(cl, list) or not 1 <= len(cl) <= MAX_COMPONENTS:
            raise ValueError(f"class {j + 1} must list between 1 and {MAX_COMPONENTS} components")
        row = []
        for c, comp in enumerate(cl):
            if not isinstance(comp, dict) or not {"mean", "cov"} <= set(comp):
                raise ValueError(f'class {j + 1} component {c + 1} needs "mean" and "cov" (and optional "weight")')
            try:
                w = float(comp.get("weight", 1.0))
                mean = np.asarray(comp["mean"], dtype=float)
                cov = np.asarray(comp["cov"], dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"class {j + 1} component {c + 1} has non-numeric values") from None
            if not (np.isfinite(w) and w > 0):
                raise ValueError(f"class {j + 1} component {c + 1}: the weight must be a positive number, got {w:g}")
            if mean.shape != (2,):
                raise ValueError(f"class {j + 1} component {c + 1}: the mean must have 2 numbers (2-D data)")
            row.append((w, mean, cov))
        comps.append(row)
    priors = spec.get("priors")
    try:
        return datasets.GaussianMixture(comps, priors=priors)
    except ValueError as exc:  # datasets counts classes and components from 0, the editor from 1
        raise ValueError(_count_from_one(str(exc))) from None


def _count_from_one(text: str) -> str:
    import re

    text = re.sub(r"(class|component) (\d+)", lambda m: f"{m.group(1)} {int(m.group(2)) + 1}", text)
    return text


def read_normalised(data: bytes, *, random_state: int = 0) -> datasets.Dataset:
    """The dataset of a normalised upload (:func:`prepare_csv`'s bytes: comma-separated, a header, the
    label last): every feature column of the file, none constant (:func:`buviz.datasets.read_csv`'s
    upload rules)."""
    header = next(csv.reader(io.StringIO(data[:65536].decode("utf-8", "replace"))))
    return datasets.read_csv(data, n_features=max(1, len(header) - 1), upload=True,
                             max_bytes=max(len(data), datasets.MAX_CSV_BYTES), random_state=random_state)


def check_mixture_text(text: str, n_train: int, seed: int):
    """Parse the mixture editor's JSON (:func:`buviz.app.compute.parse_mixture`) and draw a small
    sample from it; returns ``(mixture, notes)``; ``ValueError`` (classes counted from 1) if unusable.

    Priors that do not sum to 1 are refused, with the normalised priors that would work.
    """
    mix = parse_mixture(text)
    spec = json.loads(text)
    notes = []
    priors = spec.get("priors") if isinstance(spec, dict) else None
    if priors is not None:
        p = np.asarray(priors, dtype=float)
        if not np.isclose(p.sum(), 1.0, atol=1e-6):
            fixed = ", ".join(f"{v:.3g}" for v in p / p.sum())
            raise ValueError(f"the priors sum to {p.sum():.6g}, not 1; e.g. \"priors\": [{fixed}] would work")
    else:
        notes.append("no priors given: the classes are equally likely")
    datasets.from_mixture(mix, min(int(n_train), 200), 0, seed)  # every class drawn?
    return mix, notes
