"""The Zheng et al. data (Telugu glyphs, the authors' score files, Omniglot, their LFW results) for the tests
that recompute from it. The data have no licence to redistribute: nothing here ships it and no test looks for
it beside the checkout. A user who has it (fetched with :mod:`buviz.datasets`' ``fetch_*`` or copied) names its
folder, the one that holds ``zheng/``, in ``BUVIZ_TEST_DATA``; without it those tests skip with that reason."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "BUVIZ_TEST_DATA"


def zheng_data(required: str) -> Path | None:
    """The folder named by ``$BUVIZ_TEST_DATA`` when its ``zheng/`` holds ``required``, else None."""
    root = os.environ.get(ENV)
    if root and (Path(root) / "zheng" / required).exists():
        return Path(root)
    return None


def reason(required: str) -> str:
    return f"set {ENV} to a folder whose zheng/ holds {required} (the data are fetched, never shipped)"
