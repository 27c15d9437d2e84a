"""Shared plotting helpers for miniapp's scripts (scaling plots; field slices and spectra can
use the same): a headless matplotlib, one figure style, and PNG saving with provenance.

    from miniapp_plot import plt, new_figure, save_png
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miniapp_python import ensure  # noqa: E402

ensure("numpy", "matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # no display needed: batch nodes and CI have none
import matplotlib.pyplot as plt  # noqa: E402  (after use())

STYLE = {
    "figure.dpi": 100,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "font.size": 10,
}


def new_figure(ncols=1, width=6.4, height=4.2):
    """A figure with `ncols` axes side by side, in the house style."""
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    for ax in axes[0]:
        ax.grid(True, alpha=STYLE["grid.alpha"])
        ax.spines["top"].set_visible(False)
        ax.spines["right"].set_visible(False)
    return fig, list(axes[0])


def save_png(fig, path, source=""):
    """Save as PNG (tight layout), recording what it was made from in the PNG metadata."""
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": "miniapp", "Source": str(source)})
    plt.close(fig)
    return path
