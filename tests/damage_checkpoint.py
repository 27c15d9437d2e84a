#!/usr/bin/env python3
"""Make damaged copies of a good miniapp checkpoint for the restart tests.

usage: damage_checkpoint.py GOOD.h5 OUTDIR
writes OUTDIR/{not_hdf5,truncated,wrong_shape,wrong_type,missing_attribute,bad_digest}.h5,
the edited files OUTDIR/edited_{kappa,sine_mode,definition,digest,field_and_digest}.h5 (each
changed the way a user with h5py would: the restart must refuse them all), and
OUTDIR/format1.h5, the file as miniapp wrote it before checkpoints carried a run digest.
"""
import os
import shutil
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_digest import digest  # noqa: E402  the field digest, independently

good, out = sys.argv[1], sys.argv[2]


def copy(name):
    path = f"{out}/{name}.h5"
    shutil.copyfile(good, path)
    return path


with open(f"{out}/not_hdf5.h5", "w") as f:
    f.write("this is a text file, not an HDF5 checkpoint\n")

data = open(good, "rb").read()
with open(f"{out}/truncated.h5", "wb") as f:  # a write cut short: the last half is missing
    f.write(data[: len(data) // 2])

with h5py.File(copy("wrong_shape"), "r+") as f:
    u = f["field"][...]
    del f["field"]
    f.create_dataset("field", data=u[:, :, :-1])  # one x plane short of grid_xyz

with h5py.File(copy("wrong_type"), "r+") as f:
    u = f["field"][...]
    del f["field"]
    f.create_dataset("field", data=u.astype(np.float32))

with h5py.File(copy("missing_attribute"), "r+") as f:
    del f.attrs["kappa_xyz"]

with h5py.File(copy("bad_digest"), "r+") as f:  # one flipped bit in one cell
    v = f["field"][1, 2, 3]
    f["field"][1, 2, 3] = np.frombuffer((np.float64(v).view(np.uint64) ^ np.uint64(1)).tobytes(), np.float64)[0]

# Tamper evidence: edits of what defines the run, and of the field with its digest made to agree.
with h5py.File(copy("edited_kappa"), "r+") as f:
    f.attrs["kappa_xyz"] = np.array([0.5, 1.0, 1.0])

with h5py.File(copy("edited_sine_mode"), "r+") as f:
    f.attrs["sine_mode_xyz"] = np.array([2, 1, 1], dtype=np.int64)

with h5py.File(copy("edited_definition"), "r+") as f:  # the signed text, not the attribute
    f.attrs["run_definition"] = f.attrs["run_definition"].replace("seed = 42", "seed = 7")

with h5py.File(copy("edited_digest"), "r+") as f:
    f.attrs["digest"] = "0123456789abcdef"

with h5py.File(copy("edited_field_and_digest"), "r+") as f:
    u = f["field"][...]
    u[1, 2, 3] = -u[1, 2, 3]
    f["field"][...] = u
    nz, ny, nx = u.shape
    g = np.arange(nx * ny * nz, dtype=np.uint64).reshape(nz, ny, nx)
    with np.errstate(over="ignore"):
        f.attrs["digest"] = f"{digest(u, g):016x}"  # consistent with the edited field

# Format 1: fixed-length ASCII strings, stencil "7-point", none of the attributes added since.
with h5py.File(copy("format1"), "r+") as f:
    for name in list(f.attrs):
        if name.endswith("_units") or name in (
                "checkpoint_format", "coefficients_xyz", "coefficients_xyz_definition",
                "sine_mode_xyz", "halo_width", "git_commit", "command_line", "created_utc",
                "run_definition", "run_digest"):
            del f.attrs[name]
    for name in ("init", "miniapp_version", "digest"):
        f.attrs[name] = np.bytes_(f.attrs[name])
    f.attrs["bc_xyz"] = np.array([b.encode() for b in f.attrs["bc_xyz"]], dtype="S9")
    f.attrs["stencil"] = np.bytes_("7-point")
    f["field"].attrs["axis_order"] = np.bytes_(f["field"].attrs["axis_order"])
