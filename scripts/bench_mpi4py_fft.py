#!/usr/bin/env python3
"""mpi4py-fft peer of `miniapp bench fft`: c2c forward + inverse 3D FFT pairs, pencil and slab.

    mpiexec -n 2 /usr/bin/python3 scripts/bench_mpi4py_fft.py --grid 128 128 128 --reps 10

Debian: python3-mpi4py-fft. Same conventions as `miniapp bench fft`: complex128 c2c, planned
once (FFTW_MEASURE), arrays allocated once, median over repetitions of the slowest rank's time
per pair. mpi4py-fft moves its pencils with MPI_Alltoallw and subarray types (zero-copy), like
miniapp's default. Its forward() normalises by 1/N, its backward() does not (miniapp: the
other way round); one pass over the data either way.
"""
import argparse

import numpy as np
from mpi4py import MPI
from mpi4py_fft import PFFT, newDistArray


def time_pairs(fft, reps, warmup, comm):
    u = newDistArray(fft, False)
    u_hat = newDistArray(fft, True)
    rng = np.random.default_rng(comm.rank)
    u[...] = rng.random(u.shape)
    times = []
    for r in range(warmup + reps):
        comm.Barrier()
        t = MPI.Wtime()
        fft.forward(u, u_hat)
        fft.backward(u_hat, u)
        t = comm.allreduce(MPI.Wtime() - t, op=MPI.MAX)
        if r >= warmup:
            times.append(t)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, nargs=3, default=[128, 128, 128],
                        help="NX NY NZ (x fastest, as miniapp)")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    # mpi4py-fft is C ordered: the last axis is the contiguous one, so (NZ, NY, NX).
    shape = (args.grid[2], args.grid[1], args.grid[0])
    flags = ("FFTW_MEASURE",)
    results = {}
    for name, slab in (("pencil", False), ("slab", True)):
        fft = PFFT(comm, shape, dtype=np.complex128, slab=slab, backend="fftw",
                   planner_effort=flags[0])
        results[name] = time_pairs(fft, args.reps, args.warmup, comm)
        fft.destroy()
    if comm.rank == 0:
        print(f"bench mpi4py-fft: {comm.size} rank(s), {args.grid[0]}x{args.grid[1]}x{args.grid[2]}"
              f" c2c, FFTW_MEASURE, {args.reps} reps (median of the slowest rank)")
        for name, t in results.items():
            print(f"  mpi4py-fft {name:8s} {t * 1e3:9.3f} ms per pair")


if __name__ == "__main__":
    main()
