"""Every plot test draws with the Agg backend (no display) and closes its figures afterwards."""

import matplotlib
import pytest

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.fixture
def ax():
    """A fresh Axes to draw on."""
    import matplotlib.pyplot as plt

    return plt.subplots()[1]
