#!/usr/bin/env python3
"""Make damaged copies of a good miniapp checkpoint for the restart tests.

usage: damage_checkpoint.py GOOD.h5 OUTDIR
writes OUTDIR/{not_hdf5,truncated,wrong_shape,wrong_type,missing_attribute,bad_digest}.h5
"""
import shutil
import sys

import h5py
import numpy as np

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
