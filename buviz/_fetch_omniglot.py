"""Omniglot (Lake, Salakhutdinov & Tenenbaum 2015; MIT licence), fetched by :mod:`buviz._fetch`.

References
----------
B. M. Lake, R. Salakhutdinov and J. B. Tenenbaum, "Human-level concept learning through
probabilistic program induction", *Science* 350(6266), 1332-1338, 2015.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from buviz._fetch import DataFetchError, ImageSet, RemoteFile, _ensure, _file_sha
from buviz._validation import InvalidParameterError

__all__ = ["OMNIGLOT_ALPHABETS", "fetch_omniglot"]


# -- Omniglot -----------------------------------------------------------------------------------------
_OMNI = ("bitsandscraps/omniglot", "b0481240b7eb42393285a93ce7d2f266ff10c62b")
_OMNI_FILES = (("images_background.npz", "8bf84167413cd00beacdce3fe582f780ab538d8dbef043a6d688f2527bbce199"),
               ("images_evaluation.npz", "0b84c7ffd94c4841c0040e529c86a82eaaccb986d8eadad5673f7991b7475276"))
_OMNI_CONVERTED = {32: ("omniglot_32x32_grey.npz", "cc2ddbee682699a6a3592dcadf6bf6ca2bd83e4ac635b5df92e022d8ccec988d"),
                   105: ("omniglot_105x105_packed.npz",
                         "8c39e18f6191ecfbe7933146e3d9c8b293a5048bb2df36cb53449e2426130201")}
#: Omniglot's 50 alphabets in the order of the global character ids: (name, characters); the first 30
#: are the "background" set (964 characters), the other 20 the "evaluation" set (659).
OMNIGLOT_ALPHABETS = (
    ("Arcadian", 26), ("Armenian", 41), ("Asomtavruli (Georgian)", 40), ("Balinese", 24), ("Bengali", 46),
    ("Blackfoot (Canadian Aboriginal Syllabics)", 14), ("Braille", 26), ("Cyrillic", 33), ("Early Aramaic", 22),
    ("Syriac (Estrangelo)", 23), ("Anglo-Saxon Futhorc", 29), ("Futurama", 26), ("Grantha", 43), ("Greek", 24),
    ("Gujarati", 48), ("Hebrew", 22), ("Japanese (Hiragana)", 52), ("Inuktitut (Canadian Aboriginal Syllabics)", 16),
    ("Malay (Jawi-Arabic)", 40), ("Japanese (Katakana)", 47), ("Korean", 40), ("Latin", 26),
    ("Alphabet of the Magi", 20), ("Mkhedruli (Georgian)", 41), ("Burmese (Myanmar)", 34), ("N Ko", 33),
    ("Ojibwe (Canadian Aboriginal Syllabics)", 14), ("Sanskrit", 42), ("Tagalog", 17), ("Tifinagh", 55),
    ("Angelic", 20), ("Atemayar Qelisayer", 26), ("Atlantean", 26), ("Aurek-Besh", 26), ("Avesta", 26),
    ("Ge ez", 26), ("Glagolitic", 45), ("Gurmukhi", 45), ("Kannada", 41), ("Keble", 26), ("Malayalam", 47),
    ("Manipuri", 40), ("Mongolian", 30), ("Old Church Slavonic (Cyrillic)", 45), ("Oriya", 46), ("Syriac (Serto)", 23),
    ("Sylheti", 28), ("Tengwar", 25), ("Tibetan", 42), ("ULOG", 26),
)


def _omniglot_class_fields(n_background: int, n: int) -> dict:
    """Per-class alphabet, character number and set (background: the first file's classes)."""
    alphabet = np.concatenate([[a] * c for a, c in OMNIGLOT_ALPHABETS])
    char = np.concatenate([np.arange(1, c + 1) for _a, c in OMNIGLOT_ALPHABETS]).astype(np.int16)
    if len(alphabet) != n:
        raise DataFetchError(f"Omniglot: expected {len(alphabet)} characters, got {n}")
    split = np.where(np.arange(n) < n_background, "background", "evaluation")
    return {"class_alphabet": alphabet, "class_char_in_alphabet": char, "class_set": split}


def box32(ink: np.ndarray) -> np.ndarray:
    """Box-average 105 × 105 ink masks (n, 105, 105) to 32 × 32 uint8 ink intensity (PIL's BOX filter)."""
    from PIL import Image

    return np.stack([np.asarray(Image.fromarray(m.astype(np.uint8) * 255).resize((32, 32), Image.BOX)) for m in ink])


def _omniglot_ink(originals: dict[str, Path]) -> tuple[np.ndarray, np.ndarray, int]:
    """Ink masks (n_classes, 20, 105, 105), global labels (n_classes, 20) and the background's class count."""
    images, labels = [], []
    for name, _sha in _OMNI_FILES:
        with np.load(originals[name], allow_pickle=False) as z:
            im, lab = np.asarray(z["images"], bool), np.asarray(z["labels"])
        # the official PNGs are white paper (True) with black strokes: ink is the minority value
        images.append(~im if im.mean() > 0.5 else im)
        labels.append(lab.reshape(lab.shape[0], lab.shape[1]))
    return np.concatenate(images), np.concatenate(labels), len(labels[0])


def _convert_omniglot(resolution: int):
    def convert(originals: dict[str, Path], out: Path) -> None:
        ink, lab, n_background = _omniglot_ink(originals)
        n_cls, n_draw = lab.shape
        label = lab.reshape(-1).astype(np.int16)
        drawer = np.tile(np.arange(1, n_draw + 1, dtype=np.int8), n_cls)
        ink = ink.reshape(-1, 105, 105)
        fields = _omniglot_class_fields(n_background, n_cls)
        name = _OMNI_CONVERTED[resolution][0]
        if resolution == 105:
            np.savez_compressed(out / name, X_packed=np.packbits(ink.reshape(len(ink), -1), axis=1), label=label,
                                drawer=drawer, **fields)
        else:
            np.savez_compressed(out / name, X=box32(ink), label=label, drawer=drawer, **fields)
    return convert


def fetch_omniglot(resolution: int = 32, *, data_dir=None, base_url: str | None = None,
                   download: bool = True) -> ImageSet:
    """Return Omniglot: 1623 handwritten characters of 50 alphabets, 20 drawers each.

    From ``github.com/bitsandscraps/omniglot`` at commit b048124 (numpy copies of the official
    ``images_background`` and ``images_evaluation`` zips of ``brendenlake/omniglot``; MIT licence,
    Brenden Lake 2015). Label = global character id − 1 (0..1622).

    Parameters
    ----------
    resolution : {32, 105}, default=32
        32: the ink mask box-averaged to 32 × 32, uint8 ink intensity 0..255; 105: the original binary
        105 × 105 images, bit-packed.
    data_dir, base_url, download
        See :func:`fetch_telugu_glyphs`.

    Returns
    -------
    ImageSet
        32 460 images; ``meta`` has ``drawer`` (1..20) and per-class ``class_alphabet``,
        ``class_char_in_alphabet``, ``class_set``.
    """
    if resolution not in _OMNI_CONVERTED:
        raise InvalidParameterError(f"resolution must be 32 or 105, got {resolution!r}")
    name, sha = _OMNI_CONVERTED[resolution]
    remotes = [RemoteFile(*_OMNI, path, s) for path, s in _OMNI_FILES]
    convert = _convert_omniglot(resolution)

    def by_name(originals, out):
        convert({p.rsplit("/", 1)[-1]: f for p, f in originals.items()}, out)

    home = _ensure({name: sha}, remotes, by_name, data_dir=data_dir, base_url=base_url, download=download)
    with np.load(home / name, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    X = arrays.pop("X_packed") if resolution == 105 else arrays.pop("X").reshape(len(arrays["label"]), -1)
    label = arrays.pop("label").astype(np.int64)
    n_cls = len(arrays["class_alphabet"])
    class_name = np.array([f"{a} {c}" for a, c in zip(arrays["class_alphabet"], arrays["class_char_in_alphabet"],
                                                               strict=True)])
    return ImageSet(name=f"omniglot{resolution}", X=X, label=label, class_name=class_name[:n_cls],
                    image_shape=(resolution, resolution), packed=resolution == 105, meta=arrays,
                    description=(f"Omniglot {resolution}x{resolution} (github.com/{_OMNI[0]} at {_OMNI[1][:7]}; "
                                 "MIT licence; Lake, Salakhutdinov & Tenenbaum 2015)"),
                    sha256=_file_sha(home / name))
