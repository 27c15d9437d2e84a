#!/usr/bin/env python3
"""mpi4py-fft peer of `miniapp bench fft`: r2c and c2c forward + inverse 3D FFT pairs, pencil and slab.

    mpiexec -n 2 /usr/bin/python3 scripts/bench_mpi4py_fft.py --grid 128 128 128 --reps 10

Debian: python3-mpi4py-fft. Same conventions as `miniapp bench fft`: r2c (real input,
dtype=float64: rfft along the contiguous axis x, NX/2+1 complex values) and c2c (complex128),
planned once (FFTW_MEASURE), arrays allocated once, variants interleaved per repetition, median
over repetitions of the slowest rank's time per pair. mpi4py-fft moves its pencils with
MPI_Alltoallw and subarray types (zero-copy), like miniapp's default. Its forward() normalises
by 1/N, its backward() does not (miniapp: the other way round); one pass over the data either
way. FFTW threads: OMP_NUM_THREADS (as miniapp's Kokkos threads).
"""
import argparse
import os

import numpy as np
from mpi4py import MPI
from mpi4py_fft import PFFT, newDistArray


class Variant:
    """One planned transform with its arrays: a forward + inverse pair per call."""

    def __init__(self, comm, shape, dtype, slab, threads):
        self.fft = PFFT(comm, shape, dtype=dtype, slab=slab, backend="fftw",
                        planner_effort="FFTW_MEASURE", threads=threads)
        self.u = newDistArray(self.fft, False)
        self.u_hat = newDistArray(self.fft, True)
        rng = np.random.default_rng(comm.rank)
        self.u[...] = rng.random(self.u.shape)
        self.times = []

    def pair(self):
        self.fft.forward(self.u, self.u_hat)
        self.fft.backward(self.u_hat, self.u)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, nargs=3, default=[128, 128, 128],
                        help="NX NY NZ (x fastest, as miniapp)")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--fft", choices=("r2c", "c2c", "both"), default="both")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    threads = int(os.environ.get("OMP_NUM_THREADS", "1"))
    # mpi4py-fft is C ordered: the last axis is the contiguous one, so (NZ, NY, NX); with a real
    # dtype it transforms that axis first, real-to-complex, as miniapp's r2c does along x.
    shape = (args.grid[2], args.grid[1], args.grid[0])
    kinds = {"r2c": np.float64, "c2c": np.complex128}
    variants = {}
    for kind, dtype in kinds.items():
        if args.fft in (kind, "both"):
            for layout, slab in (("pencil", False), ("slab", True)):
                variants[f"{kind} {layout}"] = Variant(comm, shape, dtype, slab, threads)
    for r in range(args.warmup + args.reps):
        for v in variants.values():
            comm.Barrier()
            t = MPI.Wtime()
            v.pair()
            t = comm.allreduce(MPI.Wtime() - t, op=MPI.MAX)
            if r >= args.warmup:
                v.times.append(t)
    if comm.rank == 0:
        print(f"bench mpi4py-fft: {comm.size} rank(s) x {threads} thread(s), "
              f"{args.grid[0]}x{args.grid[1]}x{args.grid[2]}, FFTW_MEASURE, {args.reps} reps, "
              "variants interleaved (median of the slowest rank)")
        for name, v in variants.items():
            print(f"  mpi4py-fft {name:12s} {float(np.median(v.times)) * 1e3:9.3f} ms per pair")
    for v in variants.values():
        v.fft.destroy()


if __name__ == "__main__":
    main()
