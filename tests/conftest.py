import os

import matplotlib
import pytest

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

SHARED_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "data")


@pytest.fixture
def shared_data():
    """Path of ../shared/data beside the repository; skip the test when it is absent."""
    from pathlib import Path

    path = Path(SHARED_DATA).resolve()
    if not path.is_dir():
        pytest.skip("../shared/data is not present")
    return path
