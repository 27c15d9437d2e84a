#!/usr/bin/env python3
"""Plot scaling efficiency and the per-phase time breakdown from miniapp JSON reports.

    scripts/plot_scaling.py RESULTS_DIR [--out DIR]

Reads every *.json report in RESULTS_DIR (as written by scripts/sweep.sh or the Slurm
scripts), groups them by their label (weak, strong, ...) and writes, per group:

    LABEL_efficiency.png   efficiency against cores (ranks x threads), ideal = 1
    LABEL_phases.png       seconds per timed step, stacked by phase (average over ranks)

Efficiency, for weak and strong scaling alike, is the FOM per core relative to the smallest
run: E = (FOM / cores) / (FOM_0 / cores_0). Weak: FOM grows with the grid, ideal E = 1 means
constant time per step; strong: the grid is fixed, ideal E = 1 means time halves when cores
double. INVALID runs are left out (a FOM counts only when validated); NOT VALIDATED runs are
drawn with hollow markers. Prints a table of what it plotted.
"""
import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from miniapp_plot import new_figure, save_png  # noqa: E402

# Keys of timings_seconds that are sums of other keys, not phases of their own.
AGGREGATES = {"loop", "halo"}


def load(results):
    runs, skipped = [], []
    for path in sorted(results.glob("*.json")):
        try:
            r = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            skipped.append(f"{path.name}: not JSON ({e})")
            continue
        if not str(r.get("schema_version", "")).startswith(("1.", "2.")):
            skipped.append(f"{path.name}: not a miniapp report (schema_version 1.x or 2.x)")
            continue
        verdict = r["validation"]["verdict"]
        if verdict == "INVALID":
            skipped.append(f"{path.name}: RESULT INVALID ({r['validation']['reason']})")
            continue
        p = r["placement"]
        runs.append({
            "file": path.name,
            "label": r.get("label") or "run",
            "nodes": p["nodes"],
            "ranks": p["ranks"],
            "threads": p["threads_per_rank"],
            "cores": p["ranks"] * p["threads_per_rank"],
            "grid": tuple(r["config"]["grid"]),
            "fom": r["figure_of_merit"]["value"],
            "steps": max(r["figure_of_merit"]["timed_steps"], 1),
            "validated": verdict == "VALID",
            "timings": r["timings_seconds"],
        })
    return runs, skipped


def kind(label, group):
    if label in ("weak", "strong"):
        return label
    return "strong" if len({g["grid"] for g in group}) == 1 else "weak"


def plot_efficiency(label, group, out, source):
    base = group[0]
    fig, (ax,) = new_figure()
    x = [g["cores"] for g in group]
    eff = [(g["fom"] / g["cores"]) / (base["fom"] / base["cores"]) for g in group]
    ax.plot(x, [1.0] * len(x), "--", color="grey", label="ideal")
    ax.plot(x, eff, "-", color="C0")
    for xi, ei, g in zip(x, eff, group):
        ax.plot(xi, ei, "o", color="C0", mfc="C0" if g["validated"] else "white")
    ax.plot([], [], "o", color="C0", label="VALID")
    if not all(g["validated"] for g in group):
        ax.plot([], [], "o", color="C0", mfc="white", label="not validated")
    ax.set_xscale("log", base=2)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{g['ranks']}x{g['threads']}\n({g['nodes']} node)" for g in group])
    ax.set_xlabel("cores = ranks x threads")
    ax.set_ylabel("efficiency (FOM per core / smallest run's)")
    ax.set_ylim(0, max(1.1, max(eff) * 1.1))
    k = kind(label, group)
    ax.set_title(f"{k} scaling" if k == label else f"{k} scaling ({label})")
    ax.legend()
    return save_png(fig, out / f"{label}_efficiency.png", source)


def plot_phases(label, group, out, source):
    phases = []
    for g in group:
        phases += [k for k in g["timings"] if k not in AGGREGATES and k not in phases]
    fig, (ax,) = new_figure()
    x = range(len(group))
    bottom = [0.0] * len(group)
    per_step = lambda g, k: g["timings"][k]["avg"] / g["steps"] * 1e3  # noqa: E731
    for i, k in enumerate(phases + ["other"]):
        if k == "other":  # loop time not inside a named phase
            named = [sum(per_step(g, p) for p in phases if p in g["timings"]) for g in group]
            h = [max(per_step(g, "loop") - n, 0.0) for g, n in zip(group, named)]
        else:
            h = [per_step(g, k) if k in g["timings"] else 0.0 for g in group]
        ax.bar(x, h, bottom=bottom, label=k, color=f"C{i % 10}")
        bottom = [b + hi for b, hi in zip(bottom, h)]
    ax.set_xticks(list(x))
    ax.set_xticklabels([f"{g['ranks']}x{g['threads']}" for g in group])
    ax.set_xlabel("ranks x threads")
    ax.set_ylabel("ms per timed step (average over ranks)")
    ax.set_title(f"time per step by phase ({label})")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save_png(fig, out / f"{label}_phases.png", source)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=pathlib.Path, help="directory of miniapp JSON reports")
    ap.add_argument("--out", type=pathlib.Path, help="where to write the PNGs [RESULTS]")
    args = ap.parse_args()
    out = args.out or args.results
    out.mkdir(parents=True, exist_ok=True)
    runs, skipped = load(args.results)
    for s in skipped:
        print(f"skipped {s}", file=sys.stderr)
    if not runs:
        print(f"no usable miniapp reports in {args.results}", file=sys.stderr)
        return 1
    for label in sorted({r["label"] for r in runs}):
        group = sorted((r for r in runs if r["label"] == label),
                       key=lambda g: (g["cores"], g["nodes"]))
        base = group[0]
        print(f"{label} ({kind(label, group)} scaling)")
        print(f"  {'nodes':>5} {'ranks':>5} {'thr':>4} {'grid':>16} {'FOM [cell upd/s]':>17}"
              f" {'eff':>6}  verdict")
        for g in group:
            e = (g["fom"] / g["cores"]) / (base["fom"] / base["cores"])
            grid = "x".join(map(str, g["grid"]))
            print(f"  {g['nodes']:>5} {g['ranks']:>5} {g['threads']:>4} {grid:>16}"
                  f" {g['fom']:>17.4e} {e:>6.3f}  {'VALID' if g['validated'] else 'not validated'}")
        for png in (plot_efficiency(label, group, out, args.results),
                    plot_phases(label, group, out, args.results)):
            print(f"  wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
