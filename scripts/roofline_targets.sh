#!/usr/bin/env bash
# The time step's roofline figures, every one in one run: each figure is a fraction of the bound
# that the same command measured (the better of an ordinary and a streaming STREAM copy, 16 B
# per cell update), so a machine whose memory speed moves between commands is still compared
# fairly. One round runs, at 1 rank x C threads and at C ranks x 1 thread (C = MINIAPP_CORES),
# with n^3 cells per rank:
#   bench stencil  the 7- and 27-point sweeps, and the Kokkos path against plain OpenMP; its
#                  bound set beside one core's copy alone (the sweeps' detail column: the bound
#                  as a multiple of the cores' copies alone, near C where each core's own limit
#                  sets it, well below where the memory they share does);
#   bench step     the whole plain step (dim-ordered, H = 1) and its packing;
#   bench temporal blocked rounds at H = 2, 4 and 6 (automatic and wide tile), the best (its
#                  detail: the best arithmetic ceiling in cache, as a multiple of the bound,
#                  what the best round would reach hiding none of its memory traffic, and how
#                  much of it it left unhidden, in units of its time at the bound);
#   the main run   --halo-width auto --roofline, its figure of merit over the bound (its
#                  detail: H, the fraction of the bound measured after the run, and where it
#                  blocked, its rounds' ceiling in cache as a multiple of the bound and the
#                  same two figures of its memory traffic);
# then, once, the halo exchange against PETSc's DMDA where the PETSc peer is built
# (bench_halo_vs_petsc.sh, 64^3 per rank on C ranks). The table gives each figure, its target,
# whether it was met, and the copy the same command measured; the summary gives each target's
# range over the rounds. Figures from a shared machine scatter: run several rounds.
#
#   scripts/roofline_targets.sh                       # one round, 256^3 per rank, all cores
#   MINIAPP_ROUNDS=4 scripts/roofline_targets.sh      # four rounds (about a minute each on 2 cores)
#
# Environment (defaults in brackets):
#   MINIAPP_EXE        the binary [build/miniapp/miniapp]
#   MINIAPP_CORES      cores C [all online CPUs]
#   MINIAPP_N          cells per dimension per rank [256]
#   MINIAPP_ROUNDS     rounds of the whole set [1]
#   MINIAPP_STEPS      timed steps of the main run, after 8 warm-up steps [32]
#   MINIAPP_LAUNCHER_ARGS  mpiexec arguments of the C x 1 runs [--bind-to core]
#   MINIAPP_RESULTS    where the logs and JSON reports go [results/roofline-YYYYmmdd-HHMMSS]
# Exit status 0 whether or not a target is met (these are measurements); 1 if a run failed,
# 2 on bad input.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/env.sh"
exe=${MINIAPP_EXE:-$root/build/miniapp/miniapp}
cores=${MINIAPP_CORES:-$(getconf _NPROCESSORS_ONLN)}
n=${MINIAPP_N:-256}
rounds=${MINIAPP_ROUNDS:-1}
steps=${MINIAPP_STEPS:-32}
read -r -a launcher_args <<< "${MINIAPP_LAUNCHER_ARGS:---bind-to core}"
results=${MINIAPP_RESULTS:-results/roofline-$(date +%Y%m%d-%H%M%S)}
[ -x "$exe" ] || { echo "roofline_targets: no binary $exe (build first)" >&2; exit 2; }
for v in "$cores" "$n" "$rounds" "$steps"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] ||
    { echo "roofline_targets: MINIAPP_CORES, MINIAPP_N, MINIAPP_ROUNDS and MINIAPP_STEPS take positive integers (got '$v')" >&2; exit 2; }
done
mkdir -p "$results"

# Threads on their own cores: 1 x C spreads one rank's threads, C x 1 binds each rank to a core.
export OMP_PROC_BIND=spread OMP_PLACES=threads
# The runs of one layout: "1xC" runs one process with C threads, "Cx1" C ranks of one thread.
launch() {
  local layout=$1
  shift
  if [ "$layout" = 1xC ]; then
    # Started directly (MPI as a singleton): mpiexec -n 1 would bind the rank, and with it
    # every thread, to one core.
    OMP_NUM_THREADS=$cores "$exe" "$@"
  else
    OMP_NUM_THREADS=1 mpiexec -n "$cores" "${launcher_args[@]}" "$exe" "$@"
  fi
}
read -r px py pz <<< "$(miniapp_rank_grid launch Cx1)"
[ -n "${pz:-}" ] || { echo "roofline_targets: could not read the rank grid for $cores ranks" >&2; exit 1; }

run() {  # run TAG LAYOUT ARGS...: the log in $results/TAG.log
  local tag=$1 layout=$2
  shift 2
  echo "roofline_targets: round $r, $tag" >&2
  launch "$layout" "$@" > "$results/$tag.log" 2>&1 ||
    { echo "roofline_targets: $tag failed, see $results/$tag.log" >&2; exit 1; }
}
for ((r = 1; r <= rounds; r++)); do
  for layout in 1xC Cx1; do
    grid=("$n" "$n" "$n") ranks=(1 1 1)
    [ "$layout" = Cx1 ] && grid=($((n * px)) $((n * py)) $((n * pz))) ranks=("$px" "$py" "$pz")
    run "r$r-$layout-stencil" "$layout" bench stencil --n "$n" --reps 10 --stencil 7 27
    run "r$r-$layout-step" "$layout" bench step --n "$n" --modes dim-ordered --widths 1 --reps 5 \
      --steps 16
    run "r$r-$layout-temporal" "$layout" bench temporal --n "$n" --widths 2 4 6 --tiles auto wide \
      --reps 5
    run "r$r-$layout-main" "$layout" --grid "${grid[@]}" --ranks "${ranks[@]}" \
      --steps $((steps + 8)) --warmup 8 --progress 0 --roofline --halo-width auto --report "$results/r$r-$layout-main.json"
  done
done
petsc=$(dirname "$exe")/miniapp_petsc_halo
if [ -x "$petsc" ] && [ "$cores" -ge 2 ]; then
  echo "roofline_targets: halo exchange against PETSc" >&2
  bash "$root/scripts/bench_halo_vs_petsc.sh" "$(dirname "$(dirname "$exe")")" "$cores" 64 \
    > "$results/petsc.log" 2>&1 || { echo "roofline_targets: PETSc comparison failed, see $results/petsc.log" >&2; exit 1; }
fi

python3 - "$results" "$cores" "$n" "$rounds" <<'EOF'
import glob, json, os, re, statistics, sys
results, cores, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = []  # (round, target, layout, figure, threshold, at_least, copy GB/s, detail)

def text(tag):
    with open(os.path.join(results, tag + ".log")) as f:
        return f.read()

def number(pattern, s, what):
    m = re.search(pattern, s, re.M)
    if not m:
        sys.exit(f"roofline_targets: no {what} in the log (pattern {pattern!r})")
    return m

for r in range(1, rounds + 1):
    for layout in ("1xC", "Cx1"):
        name = f"1 x {cores}" if layout == "1xC" else f"{cores} x 1"
        add = lambda *row: rows.append((r, row[0], name) + row[1:])
        s = text(f"r{r}-{layout}-stencil")
        copy = float(number(r"bound: ([\d.]+) GB/s", s, "bench stencil bound").group(1))
        # Whether the bound was each core's own limit or the memory the cores share.
        m = number(r"one core alone: ([\d.]+) GB/s.*the bound is ([\d.]+) x (\d+) cores? alone",
                   s, "one core's copy")
        alone = f"bound = {float(m.group(2)):.2f} x {m.group(3)} cores alone ({m.group(1)} GB/s each)"
        for pts, least in (("7", 0.70), ("27", 0.40)):
            m = number(rf"ratio {pts}pt\s*: stencil/bound ([\d.]+).*kokkos/openmp ([\d.]+)", s,
                       f"{pts}-point ratio")
            add(f"{pts}-point sweep / bound", float(m.group(1)), least, True, copy, alone)
            add(f"Kokkos / OpenMP, {pts}-point", float(m.group(2)), 0.95, True, copy, "")
        s = text(f"r{r}-{layout}-step")
        m = number(r"copy ([\d.]+) GB/s ordinary, ([\d.]+) GB/s streaming", s, "bench step copy")
        copy = max(float(m.group(1)), float(m.group(2)))
        m = number(r"^\s+dim-ordered H=1\s+.*\s([\d.]+)\s+baseline$", s, "plain step")
        add("plain step / bound", float(m.group(1)), 0.65, True, copy, "dim-ordered H=1")
        m = number(r"moved at ([\d.]+) of the ordinary copy", s, "packing")
        add("packing / ordinary copy", float(m.group(1)), 0.5, True, copy, "")
        s, best = text(f"r{r}-{layout}-temporal"), None
        for block in re.split(r"\n\s*\n", s):
            m = re.search(r"H=(\d+)\s+copy ([\d.]+) GB/s ordinary, ([\d.]+) GB/s streaming", block)
            if not m:
                continue
            h, copy = int(m.group(1)), max(float(m.group(2)), float(m.group(3)))
            for line in block.splitlines():
                cols = line.split()
                # tile, scratch KiB, redundant, ms, rate, /bound, /plain, /cache, stores
                if "KiB" in cols and len(cols) >= 10:
                    fig = float(cols[-4])
                    if best is None or fig > best[0]:
                        best = (fig, copy, f"H={h} tile {cols[-10]}")
        if best is None:
            sys.exit("roofline_targets: no blocked round in bench temporal's log")
        # The other limit: the best the cores compute in cache over the redundant work.
        m = re.search(r"allows at most ([\d.]+) x the bound", s)
        ceiling = f", cache ceiling {float(m.group(1)):.2f} x" if m else ""
        # ... and what the best round would reach hiding none of its memory traffic, and how
        # much of it it left unhidden (in units of its time at the bound).
        m = re.search(r"hiding none of its memory traffic it would reach ([\d.]+) x.*"
                      r"spent (-?[\d.]+) x that traffic", s)
        if m:
            ceiling += f", none hidden {float(m.group(1)):.2f} x, unhidden {float(m.group(2)):.2f}"
        add("bench temporal, best H / bound", best[0], 1.1, True, best[1], best[2] + ceiling)
        with open(os.path.join(results, f"r{r}-{layout}-main.json")) as f:
            rep = json.load(f)
        roof = rep["roofline"]
        copy = max(roof["ordinary_bytes_per_s"], roof["streaming_bytes_per_s"]) / 1e9
        width = rep["config"]["halo_width"]
        after = roof.get("after", {}).get("fraction")
        cc = roof.get("cache_ceiling", {})
        ceiling = cc.get("fraction_of_bound")
        none = (f", none hidden {cc['no_overlap_fraction_of_bound']:.2f} x, unhidden "
                f"{cc['unhidden_traffic']:.2f}" if "unhidden_traffic" in cc else "")
        add("main run, --halo-width auto / bound", roof["fraction"], 1.1, True, copy,
            f"H={width}" + (f", {after:.3f} of the bound after the run" if after else "") +
            (f", cache ceiling {ceiling:.2f} x" if ceiling else "") + none)

petsc = os.path.join(results, "petsc.log")
if os.path.exists(petsc):
    with open(petsc) as f:
        for line in f:
            m = re.search(r"PETSc DMDA BOX DMGlobalToLocal, H=(\d+):", line)
            if m:
                ratios = [float(x) for x in re.findall(r" ([\d.]+)x", line)]
                rows.append((1, "halo exchange / PETSc DMDA", f"{cores} x 1", max(ratios), 0.5,
                             False, 0.0,
                             f"64^3 per rank, H={m.group(1)}: slowest mode of {len(ratios)}, "
                             f"fastest {min(ratios):.2f}"))

def met(row):
    fig, least, at_least = row[3], row[4], row[5]
    return fig >= least if at_least else fig <= least

def goal(row):
    return (">= " if row[5] else "<= ") + f"{row[4]:g}"

print(f"roofline targets: {n}^3 cells per rank, {rounds} round(s); each figure against the "
      "bound its own command measured (copy: that command's better STREAM copy)")
print(f"{'round':>5}  {'target':<37} {'layout':<7} {'figure':>7} {'goal':>8} {'met':>4} "
      f"{'copy GB/s':>9}  detail")
for row in rows:
    copy = f"{row[6]:9.1f}" if row[6] else f"{'-':>9}"
    print(f"{row[0]:>5}  {row[1]:<37} {row[2]:<7} {row[3]:7.3f} {goal(row):>8} "
          f"{'yes' if met(row) else 'no':>4} {copy}  {row[7]}")
print()
print(f"{'summary':<44} {'layout':<7} {'met':>7} {'figures':>13} {'copy GB/s':>13}")
keys = []
for row in rows:
    if (row[1], row[2]) not in keys:
        keys.append((row[1], row[2]))
for key in keys:
    sel = [row for row in rows if (row[1], row[2]) == key]
    figs = [row[3] for row in sel]
    copies = [row[6] for row in sel if row[6]]
    span = lambda v, f: f"{min(v):{f}}-{max(v):{f}}" if len(v) > 1 else f"{v[0]:{f}}"
    print(f"{key[0] + ' ' + goal(sel[0]):<44} {key[1]:<7} "
          f"{sum(map(met, sel)):>3} of {len(sel):<2} {span(figs, '.3f'):>13} "
          f"{span(copies, '.1f') if copies else '-':>13}")
# The same figures in the order of the copy each command measured: a target that follows the
# memory's speed shows as figures falling from left to right.
print()
print(f"{'by the copy each measured: figure (GB/s)':<44} {'layout':<7}")
for key in keys:
    sel = sorted((row for row in rows if (row[1], row[2]) == key and row[6]), key=lambda r: r[6])
    if sel:
        print(f"{key[0]:<44} {key[1]:<7} " +
              "  ".join(f"{row[3]:.3f} ({row[6]:.0f})" for row in sel))
if not os.path.exists(petsc):
    print("halo exchange / PETSc DMDA <= 0.5: not measured (no miniapp_petsc_halo: install PETSc,"
          " MINIAPP_WITH_PEERS=1 scripts/install-deps.sh, and configure again)")
print(f"logs and reports: {results}")
EOF
