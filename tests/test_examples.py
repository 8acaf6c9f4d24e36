"""Gallery examples run (under Agg) and reach their conclusions: bias–variance of trees, the choice of k."""

import runpy
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


def test_bias_variance_example():
    namespace = runpy.run_path(str(EXAMPLES / "plot_bias_variance.py"), run_name="__main__")
    results = namespace["results"]
    assert len(results) == len(namespace["depths"])
    assert results[0].bias > 3 * min(r.bias for r in results)  # the stump underfits
    assert results[-1].variance > 1.5 * results[0].variance  # the deepest tree varies most
    assert 2 <= namespace["best"] <= 6
    for loss, bias, variance in results:
        assert loss > bias + variance  # the noise adds to both
    assert namespace["fig"].axes[0].get_xlabel() == "max_depth of the tree"


def test_choose_n_clusters_example():
    namespace = runpy.run_path(str(EXAMPLES / "plot_choose_n_clusters.py"), run_name="__main__")
    assert namespace["gap"].best_k == namespace["silhouette"].best_k == 4
    assert namespace["gap"].method == "gap"
    assert len(namespace["fig"].axes) == 4
