#!/usr/bin/env python3
"""Render one plane of a miniapp checkpoint to PNG.

usage: plot_slice.py CHECKPOINT.h5 [--axis x|y|z] [--index N] [-o OUT.png]

The dataset "field" is stored as [NZ][NY][NX] (x fastest), so h5py gives u[z, y, x].
--axis z --index k plots u[k, :, :] with x to the right and y up (default: the middle z plane).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miniapp_python import ensure  # noqa: E402

ensure("numpy", "h5py", "matplotlib")
import h5py  # noqa: E402

import miniapp_plot as mp  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint")
    p.add_argument("--axis", choices="xyz", default="z", help="normal of the plane (default z)")
    p.add_argument("--index", type=int, help="plane index along --axis (default: the middle)")
    p.add_argument("-o", "--output", help="PNG file (default: CHECKPOINT with _<axis><index>.png)")
    a = p.parse_args()

    with h5py.File(a.checkpoint, "r") as f:
        u = f["field"]  # u[z, y, x]
        nz, ny, nx = u.shape
        n = {"x": nx, "y": ny, "z": nz}[a.axis]
        k = n // 2 if a.index is None else a.index
        if not 0 <= k < n:
            sys.exit(f"plot_slice.py: --index {k} is outside 0..{n - 1} along {a.axis}")
        # Plane and its (horizontal, vertical) axes.
        if a.axis == "z":
            plane, h, v = u[k, :, :], "x", "y"
        elif a.axis == "y":
            plane, h, v = u[:, k, :], "x", "z"
        else:
            plane, h, v = u[:, :, k], "y", "z"
        step = int(f.attrs["step"])
        time = float(f.attrs["time"])
        digest = f.attrs["digest"].decode() if isinstance(f.attrs["digest"], bytes) else f.attrs["digest"]

    fig, (ax,) = mp.new_figure(height=4.8)
    ax.set_title(f"{os.path.basename(a.checkpoint)}: {a.axis} = {k}, step {step}, t = {time:g}\n"
                 f"digest {digest}", fontsize=10)
    ax.grid(False)
    im = ax.imshow(plane, origin="lower", cmap="viridis", interpolation="nearest")
    ax.set_xlabel(h)
    ax.set_ylabel(v)
    fig.colorbar(im, ax=ax, label="u")
    out = a.output or f"{os.path.splitext(a.checkpoint)[0]}_{a.axis}{k}.png"
    print(mp.save_png(fig, out, a.checkpoint))


if __name__ == "__main__":
    main()
