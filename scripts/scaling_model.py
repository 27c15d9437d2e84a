#!/usr/bin/env python3
"""Strong-scaling model: predict miniapp's time per step on machines larger than the one it
runs on, from what one node measures and what the network is known to do.

    scripts/scaling_model.py [--grid 2048 2048 2048] [--rate 1.5e9] [--alpha 1.5e-6] ...
    scripts/scaling_model.py --check REPORT.json      # the model's counts against a real run

Inputs (all options; defaults in --help):
  rate      measured cell updates/s of ONE rank (e.g. `miniapp bench stencil`, or a report's
            cell_updates_per_second / ranks); --blocked-rate H:RATE the effective rate with
            --temporal-blocking at width H (`miniapp bench temporal`)
  alpha     network latency per exchange phase [s]; o: CPU/NIC overhead per message [s]
  beta      injection bandwidth per rank [B/s] (a node's NIC bandwidth / ranks per node)

For P ranks on a cubic rank grid each rank owns n^3 cells, n = N / P^(1/3). Per step:

  compute   n^3 (1 + r_H) / rate          r_H: deep-halo redundant updates, averaged over the
                                          H sub-steps: ((n + 2(H-1-s))^3 - n^3) / n^3
  halo      t_exchange / H                one exchange per H steps, with the same message and
                                          byte counts as src/halo_plan.cpp (checked by --check):
    dim-ordered    3 phases: 3 (alpha + 2 o) + bytes / beta
                   bytes = 2 H 8 (ny nz + (nx+2H) nz + (nx+2H)(ny+2H))
    neighbors26    alpha + 26 o + bytes / beta   (faces, edges, corners all at once)
    neighbor-coll  the same counts in one MPI_Neighbor_alltoallw
                   bytes = 8 (2H (ny nz + nx nz + nx ny) + 4 H^2 (nx + ny + nz) + 8 H^3)
  alltoall  one pencil transpose of the N^3 field over sqrt(P) ranks (spectral diagnostics):
    native         (p - 1)(alpha + o) + m (1 - 1/p) / beta,  m = 8 n^3 bytes per rank
    torus (2D)     sum over 2 phases of p_i = sqrt(p): alpha + (p_i - 1) o + m (1 - 1/p_i) / beta

Prints a table (ms per step for each halo mode and H, parallel efficiency against the
compute-only time) and writes a CSV and a PNG (time per step against ranks, log-log).
"""
import argparse
import csv
import json
import math
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent

MODES = ("dim-ordered", "neighbors26", "neighbor-coll")


def halo_counts(mode, n, h):
    """Messages and bytes one rank sends per exchange of width h, block n = (nx, ny, nz), every
    side with a neighbour (the interior of a large machine). Mirrors src/halo_plan.cpp."""
    nx, ny, nz = n
    if mode == "dim-ordered":
        cells = ny * nz + (nx + 2 * h) * nz + (nx + 2 * h) * (ny + 2 * h)
        return 6, 8 * 2 * h * cells
    if mode in ("neighbors26", "neighbor-coll"):
        faces = 2 * h * (ny * nz + nx * nz + nx * ny)
        edges = 4 * h * h * (nx + ny + nz)
        corners = 8 * h ** 3
        return 26, 8 * (faces + edges + corners)
    if mode == "faces":
        return 6, 8 * 2 * (ny * nz + nx * nz + nx * ny)
    raise ValueError(mode)


def exchange_seconds(mode, n, h, alpha, o, beta):
    msgs, nbytes = halo_counts(mode, n, h)
    if mode == "dim-ordered":
        return 3 * (alpha + 2 * o) + nbytes / beta
    return alpha + msgs * o + nbytes / beta


def redundancy(n, h):
    """Average extra updates per sub-step of a deep-halo round, relative to n^3."""
    cube = n[0] * n[1] * n[2]
    extra = 0.0
    for s in range(h):
        g = 2 * (h - 1 - s)
        extra += (n[0] + g) * (n[1] + g) * (n[2] + g) - cube
    return extra / (h * cube)


def alltoall_seconds(p, m, alpha, o, beta, torus):
    """One all-to-all of m bytes per rank over p ranks: native, or dimension-wise on a 2D torus
    of sqrt(p) x sqrt(p) (src/torus_alltoall.cpp: each phase moves the whole block)."""
    if p <= 1:
        return 0.0
    if not torus:
        return (p - 1) * (alpha + o) + m * (1 - 1 / p) / beta
    q = math.sqrt(p)
    return 2 * (alpha + (q - 1) * o + m * (1 - 1 / q) / beta)


def predict(args, p):
    side = [g / p ** (1 / 3) for g in args.grid]
    n = [max(1.0, s) for s in side]
    cells = n[0] * n[1] * n[2]
    rows = []
    for h in args.widths:
        if min(n) < h:
            continue
        compute = cells * (1 + redundancy(n, h)) / args.rate
        for mode in args.modes:
            halo = exchange_seconds(mode, n, h, args.alpha, args.o, args.beta) / h
            rows.append((mode, h, "plain", compute, halo))
            if h in args.blocked:
                rows.append((mode, h, "temporal-blocking", cells / args.blocked[h], halo))
    m = 8 * cells
    a2a = (alltoall_seconds(math.sqrt(p), m, args.alpha, args.o, args.beta, False),
           alltoall_seconds(math.sqrt(p), m, args.alpha, args.o, args.beta, True))
    return n, rows, a2a


def check(report_path):
    """Compare the model's per-exchange counts with a real run's report (every rank must have
    neighbours on all sides: periodic, >= 2 ranks per dimension)."""
    rep = json.load(open(report_path))
    c = rep["config"]
    n = [g // r for g, r in zip(c["grid"], c["ranks"])]
    h = c["halo_width"]
    msgs, nbytes = halo_counts(c["halo_mode"], n, h)
    got_m = rep["halo_per_step_per_rank"]["messages"]["avg"] * h
    got_b = rep["halo_per_step_per_rank"]["bytes"]["avg"] * h
    ok = abs(got_m - msgs) < 1e-9 and abs(got_b - nbytes) < 1e-6
    print(f"{c['halo_mode']} H={h} block {n}: model {msgs} messages {nbytes} B per exchange; "
          f"run {got_m:g} messages {got_b:g} B -> {'AGREE' if ok else 'DIFFER'}")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grid", type=int, nargs=3, default=[2048, 2048, 2048],
                    help="global cells (strong scaling: fixed)")
    ap.add_argument("--ranks", type=float, nargs="+",
                    default=[1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5], help="rank counts to predict")
    ap.add_argument("--rate", type=float, default=1.6e9,
                    help="measured cell updates/s of one rank (plain sweep)")
    ap.add_argument("--blocked-rate", nargs="+", default=[], metavar="H:RATE",
                    help="measured effective cell updates/s of one rank with "
                         "--temporal-blocking at halo width H, e.g. 4:2.1e9 8:2.3e9")
    ap.add_argument("--alpha", type=float, default=1.5e-6, help="latency per phase [s]")
    ap.add_argument("--o", type=float, default=0.3e-6, help="overhead per message [s]")
    ap.add_argument("--beta", type=float, default=12.5e9,
                    help="injection bandwidth per rank [B/s]")
    ap.add_argument("--widths", type=int, nargs="+", default=[1, 2, 4, 8], help="halo widths H")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES + ("faces",))
    ap.add_argument("--out", default="scaling_model", help="output prefix (.csv, .png)")
    ap.add_argument("--no-plot", action="store_true", help="table and CSV only")
    ap.add_argument("--check", metavar="REPORT", help="compare counts with a run's JSON report")
    args = ap.parse_args()
    if args.check:
        return check(args.check)
    try:
        args.blocked = {int(hr.split(":")[0]): float(hr.split(":")[1]) for hr in args.blocked_rate}
    except (IndexError, ValueError):
        ap.error(f"--blocked-rate takes H:RATE pairs, got {args.blocked_rate}")
    for name in ("rate", "alpha", "beta"):
        if not getattr(args, name) > 0:
            ap.error(f"--{name} must be > 0")

    table = []
    print(f"model: grid {args.grid}, rank rate {args.rate:.3g} upd/s, alpha {args.alpha:.2g} s, "
          f"o {args.o:.2g} s, beta {args.beta:.3g} B/s")
    for p in args.ranks:
        n, rows, a2a = predict(args, p)
        ideal = n[0] * n[1] * n[2] / args.rate
        print(f"\nP = {p:.0f}: block {n[0]:.1f}^3 cells, compute-only {ideal * 1e3:.4f} ms/step; "
              f"one pencil transpose: native {a2a[0] * 1e3:.4f} ms, torus 2D {a2a[1] * 1e3:.4f} ms")
        print(f"  {'mode':<14} {'H':>2} {'sweep':<18} {'compute ms':>11} {'halo ms':>9} "
              f"{'step ms':>9} {'efficiency':>10}")
        for mode, h, sweep, comp, halo in rows:
            step = comp + halo
            print(f"  {mode:<14} {h:>2} {sweep:<18} {comp * 1e3:>11.4f} {halo * 1e3:>9.4f} "
                  f"{step * 1e3:>9.4f} {ideal / step:>10.3f}")
            table.append({"ranks": p, "block": n[0], "mode": mode, "H": h, "sweep": sweep,
                          "compute_s": comp, "halo_s": halo, "step_s": step,
                          "efficiency": ideal / step, "alltoall_native_s": a2a[0],
                          "alltoall_torus_s": a2a[1]})
    with open(args.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    print(f"\nwrote {args.out}.csv")
    if args.no_plot:
        return 0
    sys.path.insert(0, str(HERE))
    from miniapp_plot import new_figure, save_png
    fig, (ax,) = new_figure()
    for mode in args.modes:
        for h in args.widths:
            for sweep in ("plain", "temporal-blocking"):
                pts = [(r["ranks"], r["step_s"]) for r in table
                       if r["mode"] == mode and r["H"] == h and r["sweep"] == sweep]
                if pts:
                    ax.loglog(*zip(*pts), marker="o", ms=3,
                              ls="-" if sweep == "plain" else ":",
                              label=f"{mode} H={h}" + (" TB" if sweep != "plain" else ""))
    ideal = [(p, predict(args, p)[0][0] ** 3 / args.rate) for p in args.ranks]
    ax.loglog(*zip(*ideal), "k--", lw=1, label="compute only")
    ax.set_xlabel("ranks")
    ax.set_ylabel("seconds per step")
    ax.set_title(f"strong scaling model, {args.grid[0]}x{args.grid[1]}x{args.grid[2]} cells")
    ax.legend(fontsize=6, ncol=2)
    print(f"wrote {save_png(fig, args.out + '.png', source=' '.join(sys.argv))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
