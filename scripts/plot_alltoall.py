#!/usr/bin/env python3
"""Plot `miniapp bench alltoall --csv` results: time ratio to native MPI_Alltoall vs block size.

    plot_alltoall.py SWEEP.csv [OUT.png]

One line per (torus, native algorithm, variant): the zero-copy torus solid, the pack-based
variant dashed; the volume bound of each torus as a dotted horizontal line, 1.0 (= native) grey.
Below 1 the torus is faster than native.
"""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miniapp_plot import new_figure, save_png  # noqa: E402


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    src = argv[1]
    out = argv[2] if len(argv) > 2 else src.rsplit(".", 1)[0] + ".png"
    series = defaultdict(list)
    bounds = {}
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            if row["variant"] == "native":
                continue
            key = (row["dims"], row["native_alg"], row["variant"], row["pieces"], row["pipelined"])
            series[key].append((int(row["bytes"]), float(row["ratio_to_native"])))
            bounds[row["dims"]] = float(row["volume_bound"])
    if not series:
        print(f"plot_alltoall.py: no torus rows in {src}", file=sys.stderr)
        return 1
    fig, (ax,) = new_figure(width=9, height=5.5)
    for (dims, alg, variant, pieces, pipelined), pts in sorted(series.items()):
        pts.sort()
        label = f"{dims} {variant} vs native[{alg}]" + (f" C={pieces}" if pieces != "1" else "")
        label += " pipelined" if pipelined == "1" else ""
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-" if variant == "torus" else "--",
                marker="o", markersize=3, label=label)
    xmin = min(p[0] for pts in series.values() for p in pts)
    for dims, b in sorted(bounds.items()):
        ax.axhline(b, linestyle=":", color="black", linewidth=1)
        ax.text(xmin, b, f" volume bound {dims}: {b:.2f}", va="bottom", fontsize=8)
    ax.axhline(1.0, color="grey", linewidth=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("bytes per destination block")
    ax.set_ylabel("median time / native median time")
    ax.set_title("Dimension-wise torus all-to-all vs native MPI_Alltoall")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, which="both", alpha=0.3)
    save_png(fig, out, src)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
