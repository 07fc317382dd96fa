"""What the user brings: an uploaded CSV (any number of numeric feature columns, any labels) and a
custom Gaussian mixture typed as JSON, checked and normalised before the explorer switches to them.

A CSV is sniffed before it is read: its delimiter (``,`` ``;`` tab ``|`` or spaces) and whether its
first row is a header (a first row whose feature cells are all numbers is data: the columns are then
named ``x1 … xd`` and ``label``). The file is rewritten as a plain comma-separated table with a
header and handed to :func:`buviz.datasets.read_csv`; :class:`Upload` says what was done
(``notes``), and a refusal says what would work.

Uploads are bounded before they cost anything: the page's file input refuses a file over
:data:`buviz.datasets.MAX_CSV_BYTES` before sending it, and a table of more than
:data:`MAX_UPLOAD_ROWS` rows is subsampled, stratified by class, to the explorer's N range
(:func:`stratified_rows`), with a note giving the file's size and what was kept. Reading stops at
:data:`UPLOAD_TIME_BUDGET_S` seconds.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from buviz import datasets
from buviz.app.timebudget import time_budget as within_time

__all__ = ["Upload", "prepare_csv", "read_normalised", "parse_mixture", "check_mixture_text", "CSV_HELP",
           "DELIMITERS", "MAX_CLASSES", "MAX_COMPONENTS", "MAX_UPLOAD_TRAIN", "MAX_UPLOAD_ROWS",
           "UPLOAD_TEST_SIZE", "UPLOAD_TIME_BUDGET_S", "stratified_rows", "file_size_text"]

#: Largest custom mixture accepted by the editor.
MAX_COMPONENTS = 20
MAX_CLASSES = 8

#: The largest training set the explorer draws (the N slider's upper bound,
#: ``Controls.param.n_train.bounds[1]``): an uploaded table is cut down to it. Without the cap a
#: 200 000-row file (3.3 MB, under the byte cap) became N(train) = 140 000, a fit of minutes.
MAX_UPLOAD_TRAIN = 5000
#: Fraction of an upload held out as its test set (:func:`buviz.datasets.read_csv`'s ``test_size``).
UPLOAD_TEST_SIZE = 0.3
#: Most rows kept from an uploaded table: the most whose training part (scikit-learn's split keeps
#: ``n - ceil(UPLOAD_TEST_SIZE · n)`` rows) is at most :data:`MAX_UPLOAD_TRAIN`.
MAX_UPLOAD_ROWS = int(MAX_UPLOAD_TRAIN / (1 - UPLOAD_TEST_SIZE))
#: Seconds an upload may take to be read and checked (decoding, parsing, subsampling, the split);
#: checked between steps and every :data:`_CHECK_EVERY` rows. Past it the file is refused (the
#: server is busy or the file pathological) and the page keeps its data.
UPLOAD_TIME_BUDGET_S = 30.0
_CHECK_EVERY = 20_000
#: Fewest rows a class keeps when a table is subsampled (the stratified split needs two per class).
MIN_ROWS_PER_CLASS = 2

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
    #: The file's size as uploaded (bytes), the rows it holds and the rows kept.
    file_bytes: int = 0
    rows_read: int = 0
    rows_kept: int = 0


def file_size_text(n: int) -> str:
    """A file size for people: ``"3.3 MB"``, ``"740 kB"``, ``"512 bytes"`` (decimal units, as the
    browser's file picker shows them)."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    if n >= 1_000:
        return f"{n / 1_000:.0f} kB"
    return f"{n} bytes"


def stratified_rows(labels, n_keep: int, *, random_state: int = 0) -> np.ndarray:
    """Indices of ``n_keep`` rows drawn per class in proportion to the class sizes (stratified), in
    file order.

    Each class keeps ``floor(n_keep · n_j / n)`` rows, at least ``min(n_j, MIN_ROWS_PER_CLASS)``;
    the rows left over go to the largest remainders (ties: the class whose label sorts first). Within
    a class the rows are drawn without replacement by ``numpy.random.default_rng(random_state)``,
    class after class in sorted label order, so the subsample is the same on every machine.

    Parameters
    ----------
    labels : sequence of str
        The label of every row.
    n_keep : int
        Rows to keep (all of them when there are no more than that).
    random_state : int, default=0
        Seed of the draw.

    Returns
    -------
    ndarray of int
        Sorted row indices.
    """
    labels = np.asarray(labels, dtype=str)
    n = len(labels)
    if n <= n_keep:
        return np.arange(n)
    classes, codes = np.unique(labels, return_inverse=True)  # sorted labels
    counts = np.bincount(codes, minlength=len(classes))
    exact = n_keep * counts / n
    quota = np.maximum(np.floor(exact).astype(int), np.minimum(counts, MIN_ROWS_PER_CLASS))
    left = n_keep - int(quota.sum())
    if left > 0:
        order = sorted(range(len(classes)), key=lambda j: (-(exact[j] - np.floor(exact[j])), j))
        for j in order:
            if left == 0:
                break
            if quota[j] < counts[j]:
                quota[j] += 1
                left -= 1
    rng = np.random.default_rng(random_state)
    keep = [rng.choice(np.flatnonzero(codes == j), size=int(quota[j]), replace=False)
            for j in range(len(classes))]
    return np.sort(np.concatenate(keep))


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


def prepare_csv(raw: bytes, *, random_state: int = 0, max_rows: int = MAX_UPLOAD_ROWS,
                check: Callable[[], None] | None = None, time_budget: float = UPLOAD_TIME_BUDGET_S) -> Upload:
    """Sniff, normalise and read an uploaded CSV; a table of more than ``max_rows`` rows is
    subsampled, stratified by class (:func:`stratified_rows`).

    Parameters
    ----------
    raw : bytes
        The file as uploaded (plain or gzip-compressed).
    random_state : int, default=0
        Seed of the train/test split and of the subsample.
    max_rows : int, default=MAX_UPLOAD_ROWS
        Most rows kept.
    check : callable, optional
        Called between steps (a background job's ``check``: it raises once the job is cancelled).
    time_budget : float, default=UPLOAD_TIME_BUDGET_S
        Seconds the reading may take; past them the file is refused.

    Returns
    -------
    Upload
        The comma-separated bytes with a header, their digest, notes on what was inferred, the dataset.

    Raises
    ------
    ValueError
        With a message fit for a user: what is wrong and what would work.
    """
    step = within_time(time_budget, "reading the file",
                       "the server is busy, or the file is too large to read in time; the data shown are kept", check)

    if not raw:
        raise ValueError("the uploaded file is empty. " + _WOULD_WORK)
    if len(raw) > datasets.MAX_CSV_BYTES:
        raise ValueError(f"the file is too large: {len(raw)} bytes (limit {datasets.MAX_CSV_BYTES})")
    text = _decode(raw)
    step()
    if not text.strip():
        raise ValueError("the uploaded file is empty. " + _WOULD_WORK)
    delim = _sniff(text)
    notes = []
    reader = ((line.split() for line in text.splitlines()) if delim == " "
              else csv.reader(io.StringIO(text), delimiter=delim))
    rows = []
    for i, r in enumerate(reader):
        if any(c.strip() for c in r):
            rows.append(r)
        if i % _CHECK_EVERY == _CHECK_EVERY - 1:
            step()
    del text
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
    n_read = len(body)
    if n_read > max_rows:
        keep = stratified_rows([r[-1].strip() for r in body], max_rows, random_state=random_state)
        body = [body[i] for i in keep]
        notes.append(f"the file ({file_size_text(len(raw))}, {n_read} rows) is larger than the explorer's N "
                     f"range: {len(body)} rows kept, drawn per class in proportion to the file's classes "
                     f"(stratified, seed {random_state})")
    step()
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows([c.strip() for c in r] for r in body)
    data = out.getvalue().encode("utf-8")
    try:
        ds = read_normalised(data, random_state=random_state)
    except ValueError as exc:
        raise ValueError(f"{exc}. {_WOULD_WORK}") from None
    step()
    notes.append(f"{ds.n_features} features, {ds.n_classes} classes, N(train) = {len(ds.X_train)}, "
                 f"N(test) = {len(ds.X_test)}")
    return Upload(data, hashlib.sha1(data).hexdigest()[:16], notes, ds, file_bytes=len(raw), rows_read=n_read,
                  rows_kept=len(body))


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
                             max_bytes=max(len(data), datasets.MAX_CSV_BYTES), test_size=UPLOAD_TEST_SIZE,
                             random_state=random_state)


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
