"""Small shared plotting helpers for the miniapp scripts (slices, spectra, scaling plots).

    import miniapp_plot as mp
    fig, ax = mp.figure("title")
    ...
    mp.save(fig, "out.png")

Uses matplotlib's non-interactive Agg backend, so it works on headless nodes.
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def figure(title=None, width=6.4, height=4.8, **subplot_kw):
    """A figure with one axes, the house style applied; returns (fig, ax)."""
    fig, ax = plt.subplots(figsize=(width, height), subplot_kw=subplot_kw)
    if title:
        ax.set_title(title, fontsize=10)
    return fig, ax


def save(fig, path, dpi=120):
    """Write fig to path (PNG, PDF or SVG by extension), close it and print the path."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    print(path)
