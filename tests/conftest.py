import numpy as np
import pytest

from buviz import datasets


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    """Every test gets its own sweep cache: no test reads rows another left behind in ~/.cache."""
    monkeypatch.setenv("BUVIZ_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="session")
def gmm_small():
    return datasets.load("gmm", n_train=600, n_test=3000, random_state=0)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
