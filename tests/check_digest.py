#!/usr/bin/env python3
"""Independent NumPy re-implementation of miniapp's numerical contract.

Runs the case of a TOML input file in NumPy (random init from splitmix64, ghosts from the
boundary conditions, the 7-point update as one left-to-right expression), computes the
decomposition-independent digest, then runs miniapp on the same file and compares the digest
from its JSON report. Usage:

    check_digest.py INPUT.toml -- mpiexec -n 2 path/to/miniapp

Exit 0 when the digests agree, 1 otherwise.
"""
import json
import subprocess
import sys
import tempfile
import tomllib

import numpy as np

MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def splitmix64(x):
    """Vigna's splitmix64 output function on a uint64 array (wrapping arithmetic)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def simulate(cfg):
    nx, ny, nz = cfg["grid"]
    g = np.arange(nx * ny * nz, dtype=np.uint64).reshape(nz, ny, nx)  # g = x + NX*(y + NY*z)
    seed = np.uint64(cfg.get("seed", 42))
    u = (splitmix64(seed ^ g) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    kappa = cfg.get("kappa", [1.0, 1.0, 1.0])
    spacing = cfg.get("spacing", [1.0, 1.0, 1.0])
    dt = cfg.get("dt", 0.1)
    ax, ay, az = (kappa[d] * dt / (spacing[d] * spacing[d]) for d in range(3))
    bc = cfg.get("bc", ["periodic"] * 3)
    value = cfg.get("bc-value", 0.0)
    for _ in range(cfg.get("steps", 100)):
        p = u
        for d, axis in ((0, 2), (1, 1), (2, 0)):  # x, then y, then z (array axes z, y, x)
            width = [(0, 0)] * 3
            width[axis] = (1, 1)
            if bc[d] == "periodic":
                p = np.pad(p, width, mode="wrap")
            elif bc[d] == "neumann":
                p = np.pad(p, width, mode="symmetric")  # ghost u[-1] = u[0]
            else:
                p = np.pad(p, width, mode="constant", constant_values=value)
        c = p[1:-1, 1:-1, 1:-1]
        w, e = p[1:-1, 1:-1, :-2], p[1:-1, 1:-1, 2:]
        s, n = p[1:-1, :-2, 1:-1], p[1:-1, 2:, 1:-1]
        b, t = p[:-2, 1:-1, 1:-1], p[2:, 1:-1, 1:-1]
        u = c + ax * (w + e - 2.0 * c) + ay * (s + n - 2.0 * c) + az * (b + t - 2.0 * c)
    return u, g


def digest(u, g):
    terms = splitmix64(splitmix64(g) ^ u.view(np.uint64))
    return int(np.sum(terms, dtype=np.uint64))  # uint64 sums wrap modulo 2^64


def main():
    argv = sys.argv[1:]
    if len(argv) < 3 or "--" not in argv:
        sys.exit(__doc__)
    toml_path, cmd = argv[0], argv[argv.index("--") + 1:]
    with open(toml_path, "rb") as f:
        cfg = tomllib.load(f)
    if cfg.get("init", "random") != "random":
        sys.exit("check_digest.py reproduces --init random only")
    with np.errstate(over="ignore"):
        u, g = simulate(cfg)
        expected = digest(u, g)
    with tempfile.TemporaryDirectory() as tmp:
        report = f"{tmp}/report.json"
        subprocess.run(cmd + ["--config", toml_path, "--report", report], check=True,
                       stdout=subprocess.DEVNULL)
        with open(report) as f:
            got = json.load(f)["field"]["digest"]
    print(f"numpy digest   {expected:016x}\nminiapp digest {got}")
    if f"{expected:016x}" != got:
        print("DIGEST MISMATCH")
        return 1
    print("DIGEST MATCH")
    return 0


if __name__ == "__main__":
    sys.exit(main())
