#!/usr/bin/env bash
# Hybrid study: the same total problem on the same cores as R ranks x T threads for every split
# of MINIAPP_CORES, each without and with --overlap and --temporal-blocking, in one run, and
# one table: seconds per step (median of MINIAPP_REPEATS runs), cell updates per second and the
# ratio to the first row. The digest column must be the same everywhere (same result).
#
#   scripts/hybrid_study.sh                 # 256^3, H = 4, every split of 2 cores
#   MINIAPP_GRID="512 512 256" MINIAPP_CORES=16 scripts/hybrid_study.sh   # a cluster node
#
# Environment (defaults in brackets):
#   MINIAPP_EXE        the binary [build/miniapp/miniapp]
#   MINIAPP_CORES      cores to use: splits are R x T with R*T = cores [all online CPUs]
#   MINIAPP_GRID       global cells "NX NY NZ" [256 256 256]
#   MINIAPP_STEPS      timed steps [32] (plus 4 warm-up steps)
#   MINIAPP_WIDTH      halo width H of the deep-halo variants [4]
#   MINIAPP_REPEATS    runs per point, median reported [3]
#   MINIAPP_LAUNCHER_ARGS  mpiexec placement arguments; PE is replaced by the threads per rank
#                      [--map-by slot:PE=PE --bind-to core: each rank on its own T cores]
#   MINIAPP_RESULTS    where the JSON reports go [results/hybrid-YYYYmmdd-HHMMSS]
# OMP_PROC_BIND/OMP_PLACES default to spread/threads: each rank's threads on their own cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/env.sh"
exe=${MINIAPP_EXE:-$root/build/miniapp/miniapp}
cores=${MINIAPP_CORES:-$(getconf _NPROCESSORS_ONLN)}
read -r -a grid <<< "${MINIAPP_GRID:-256 256 256}"
steps=${MINIAPP_STEPS:-32}
width=${MINIAPP_WIDTH:-4}
repeats=${MINIAPP_REPEATS:-3}
# Each rank gets its own cores: with --bind-to none and OMP_PROC_BIND, every 1-thread rank
# would bind its thread to the first core of the node (the binding report warns about that).
launcher_template=${MINIAPP_LAUNCHER_ARGS:---map-by slot:PE=PE --bind-to core}
results=${MINIAPP_RESULTS:-results/hybrid-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results"
[ -x "$exe" ] || { echo "hybrid_study: no binary $exe (build first)" >&2; exit 2; }

variants=("plain:--halo-width 1"
          "overlap:--halo-width 1 --overlap"
          "deep-halo H=$width:--halo-width $width"
          "temporal-blocking H=$width:--halo-width $width --temporal-blocking"
          "temporal-blocking+overlap H=$width:--halo-width $width --temporal-blocking --overlap")
for ((ranks = 1; ranks <= cores; ranks++)); do
  ((cores % ranks == 0)) || continue
  threads=$((cores / ranks))
  for v in "${variants[@]}"; do
    name=${v%%:*}
    read -r -a args <<< "${v#*:}"
    for ((r = 1; r <= repeats; r++)); do
      tag="n${ranks}-t${threads}-${name// /_}-r$r"
      read -r -a launcher_args <<< "${launcher_template//PE=PE/PE=$threads}"
      OMP_NUM_THREADS=$threads mpiexec -n "$ranks" "${launcher_args[@]}" "$exe" \
        --grid "${grid[@]}" --steps $((steps + 4)) --warmup 4 --init random --progress 0 \
        --label "$name" "${args[@]}" --report "$results/$tag.json" > "$results/$tag.log" 2>&1 ||
        { echo "hybrid_study: run $tag failed, see $results/$tag.log" >&2; exit 1; }
    done
  done
done

python3 - "$results" "${variants[@]%%:*}" <<'EOF'
import glob, json, os, statistics, sys
runs = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    rep = json.load(open(path))
    key = (rep["nranks"], rep["threads_per_rank"], rep["label"])
    runs.setdefault(key, []).append(rep)
print(f"{'ranks x threads':>15}  {'variant':<36} {'ms/step':>9} {'cell upd/s':>11} {'/first':>7}"
      f"  digest")
first = None
order = sys.argv[2:]  # the variants in the order they ran
for key in sorted(runs, key=lambda k: (k[0], order.index(k[2]) if k[2] in order else 99)):
    reps = runs[key]
    g = reps[0]["config"]["grid"]
    rate = statistics.median(r["cell_updates_per_second"] for r in reps)
    first = first or rate
    digests = sorted({r["field"]["digest"] for r in reps})
    print(f"{key[0]:>7} x {key[1]:<5}  {key[2]:<36} {1e3 * g[0] * g[1] * g[2] / rate:>9.3f} "
          f"{rate:>11.4e} {rate / first:>7.3f}  {' '.join(digests)}")
EOF
echo "reports: $results"
