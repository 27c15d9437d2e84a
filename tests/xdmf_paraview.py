#!/usr/bin/env python3
"""Open DIR/checkpoints.xmf with ParaView's Xdmf3ReaderT and check it against h5py.

usage: xdmf_paraview.py DIR TIME...   (the times the series must hold, oldest first)

At each time the cell value u at (x, y, z) = (1, 2, 3) must equal h5py's f["field"][3, 2, 1] of
the checkpoint of that time (VTK numbers cells x fastest, as the file stores them), and the cell
spacing must be the file's. Exit 77 when ParaView's Python module is not installed.
"""
import glob
import sys

import h5py

try:
    from paraview import servermanager
    from paraview.simple import Xdmf3ReaderT
except ImportError as e:
    print(f"SKIPPED: ParaView's Python module is not installed ({e}); on Debian/Ubuntu: "
          "apt-get install python3-paraview")
    sys.exit(77)

cdir, want = sys.argv[1], [float(t) for t in sys.argv[2:]]
by_time = {}
for path in sorted(glob.glob(f"{cdir}/checkpoint_*.h5")):
    with h5py.File(path) as f:
        by_time[float(f.attrs["time"])] = (f["field"][3, 2, 1], list(f.attrs["spacing_xyz"]))

reader = Xdmf3ReaderT(FileName=[f"{cdir}/checkpoints.xmf"])
times = list(reader.TimestepValues)
if times != want or sorted(by_time) != want:
    sys.exit(f"FAIL: ParaView sees times {times}, the kept checkpoints hold {sorted(by_time)}, "
             f"expected {want}")
for t in times:
    reader.UpdatePipeline(t)
    grid = servermanager.Fetch(reader)
    nx, ny, nz = (n - 1 for n in grid.GetDimensions())  # points: cells + 1
    u = grid.GetCellData().GetArray("u").GetValue(1 + nx * (2 + ny * 3))
    expected, spacing = by_time[t]
    if u != expected or list(grid.GetSpacing()) != spacing:
        sys.exit(f"FAIL: time {t}: ParaView u(1, 2, 3) = {u!r}, spacing {grid.GetSpacing()}; "
                 f"h5py {expected!r}, spacing {spacing}")
    print(f"ok: time {t}: u(1, 2, 3) = {u!r} as in h5py; spacing {spacing}")
print(f"ok: Xdmf3ReaderT reads checkpoints.xmf as a time series {times}")
