"""Tabular plots: sorted box plots, q_f(t) curves, diverging importance matrices."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.utils import Bunch  # noqa: E402

from seqimp.errors import SeqimpError  # noqa: E402
from seqimp.tabular import firm, permutation_importance  # noqa: E402
from seqimp.plot import plot_firm_curve, plot_importance_boxplot, plot_importance_matrix  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_boxplot_sorted_with_most_important_on_top():
    res = Bunch(importances=np.array([[1.0, 1.2], [3.0, 3.1], [-0.1, 0.1]]),
                feature_names=np.array(["b", "a", "c"], dtype=object), compare="ratio", loss="mse")
    ax = plot_importance_boxplot(res)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["c", "b", "a"]  # bottom to top
    assert ax.lines[-1].get_xdata()[0] == 1.0  # reference line of a ratio
    assert "mse ratio" in ax.get_xlabel()
    ax2 = plot_importance_boxplot(res, top=1, title="t")
    assert [t.get_text() for t in ax2.get_yticklabels()] == ["a"] and ax2.get_title() == "t"


def test_boxplot_of_a_real_result_on_given_axes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X @ [2.0, 0.0, 1.0]
    res = permutation_importance(lambda A: A @ [2.0, 0.0, 1.0], X, y, n_repeats=4, random_state=0)
    fig, ax = plt.subplots()
    assert plot_importance_boxplot(res, ax=ax) is ax
    assert [t.get_text() for t in ax.get_yticklabels()][-1] == "x1"


def test_firm_curve_draws_scores_and_q():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 2))
    res = firm(lambda A: A[:, 0] + A[:, 1] ** 2, X, method="binned")
    ax = plot_firm_curve(res, "x2", max_points=500)
    assert len(ax.collections[0].get_offsets()) == 500
    np.testing.assert_allclose(ax.lines[0].get_ydata(), res.curves[1].q)
    assert ax.get_xlabel() == "x2" and "binned" in ax.get_title()
    with pytest.raises(SeqimpError, match="feature: unknown feature 'x9'"):
        plot_firm_curve(res, "x9")
    with pytest.raises(SeqimpError, match="feature: index 4 out of range for 2 features"):
        plot_firm_curve(res, 4)


def test_importance_matrix_is_centred_on_zero():
    vals = np.array([[0.5, -2.0], [np.nan, 1.0]])
    ax = plot_importance_matrix(vals, row_labels=["r1", "r2"], col_labels=["c1", "c2"], title="m")
    im = ax.images[0]
    assert im.norm.vmin == -2.0 and im.norm.vmax == 2.0
    assert im.get_cmap().name == "RdBu_r"
    assert [t.get_text() for t in ax.texts] == ["0.50", "-2.00", "1.00"]
    with pytest.raises(SeqimpError, match="values: shape \\(2, 2\\) does not match 3 rows"):
        plot_importance_matrix(vals, row_labels=["a", "b", "c"], col_labels=["c1", "c2"])
