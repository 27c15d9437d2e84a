#!/usr/bin/env python3
"""Plot the energy spectrum E(|k|) over time from miniapp's --spectrum-file CSV.

    miniapp --grid 64 64 64 --steps 200 --spectral-every 20 --spectrum-file spectrum.csv
    scripts/plot_spectrum.py spectrum.csv -o spectrum.png

The CSV has rows `step,time_s,shell,k_rad_per_m,E`: the shell's physical wavenumber |k| in
rad/m (--spectrum-k physical, the default) or, with --spectrum-k index, `k_index` (integer
wavenumber shells). E is the energy in the shell (the shells sum to mean(u^2)/2). One line per
recorded step, coloured from early (dark) to late (light), on log-log axes; shells with E = 0
and k = 0 are left out. Diffusion damps mode k by g(k)^steps, so the high-k end falls first and
fastest.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miniapp_plot import new_figure, plt, save_png  # noqa: E402

K_COLUMNS = {
    "k_rad_per_m": "|k| [rad/m]",
    "k_index": "|k| (integer wavenumber shell)",
}


def read_spectra(path):
    """({(step, time): ([k...], [E...])} in file order, the x-axis label)."""
    spectra = defaultdict(lambda: ([], []))
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        fields = set(reader.fieldnames or [])
        k_column = next((c for c in K_COLUMNS if c in fields), None)
        missing = {"step", "time_s", "E"} - fields
        if missing or k_column is None:
            need = sorted(missing | ({"k_rad_per_m or k_index"} if k_column is None else set()))
            sys.exit(f"plot_spectrum.py: {path}: missing columns {need}")
        for row in reader:
            key = (int(row["step"]), float(row["time_s"]))
            spectra[key][0].append(float(row[k_column]))
            spectra[key][1].append(float(row["E"]))
    if not spectra:
        sys.exit(f"plot_spectrum.py: {path}: no spectra")
    return spectra, K_COLUMNS[k_column]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="spectrum CSV written by miniapp --spectral-every")
    parser.add_argument("-o", "--output", default="spectrum.png", help="PNG file to write")
    args = parser.parse_args()

    spectra, k_label = read_spectra(args.csv)
    fig, (ax,) = new_figure(width=7, height=5)
    cmap = plt.get_cmap("viridis")
    keys = sorted(spectra)
    for i, key in enumerate(keys):
        ks, es = spectra[key]
        pts = [(k, e) for k, e in zip(ks, es) if k > 0 and e > 0]
        if not pts:
            continue
        colour = cmap(i / max(1, len(keys) - 1))
        ax.loglog(*zip(*pts), color=colour, label=f"step {key[0]} (t = {key[1]:g} s)")
    ax.set_xlabel(k_label)
    ax.set_ylabel("E(|k|), energy in the shell")
    ax.set_title("Energy spectrum over time")
    ax.grid(True, which="both", alpha=0.3)
    if len(keys) <= 12:
        ax.legend(fontsize="small")
    save_png(fig, args.output, args.csv)
    print(f"wrote {args.output} ({len(keys)} spectra)")


if __name__ == "__main__":
    main()
