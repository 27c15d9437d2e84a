#!/usr/bin/env python3
"""Check miniapp JSON reports against scripts/report.schema.json.

    scripts/validate_report.py REPORT.json... [--schema FILE] [--expect-verdict VALID]
                               [--whole-run]

Exits 0 when every report matches the schema (and, with --expect-verdict, has that verdict;
with --whole-run, covers the whole run in one launch: not the last segment of a restarted
run), 1 otherwise, printing each problem with its JSON path. Needs python3-jsonschema.
"""
import argparse
import json
import os
import pathlib
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miniapp_python import ensure  # noqa: E402

ensure("jsonschema")
import jsonschema  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", type=pathlib.Path)
    ap.add_argument("--schema", type=pathlib.Path, default=HERE / "report.schema.json")
    ap.add_argument("--expect-verdict", choices=["VALID", "INVALID", "NOT VALIDATED", "INTERRUPTED"])
    ap.add_argument("--whole-run", action="store_true",
                    help="require segment.whole_run: one launch ran every step (the run rules' "
                         "condition for claiming the FOM)")
    args = ap.parse_args()

    schema = json.loads(args.schema.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)  # the schema itself must be a valid JSON Schema
    validator = cls(schema)
    bad = 0
    for path in args.reports:
        report = json.loads(path.read_text())
        errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
        for e in errors:
            print(f"{path}: /{'/'.join(map(str, e.path))}: {e.message}")
        verdict = report.get("validation", {}).get("verdict")
        if args.expect_verdict and verdict != args.expect_verdict:
            print(f"{path}: verdict {verdict!r}, expected {args.expect_verdict!r}")
            errors.append(None)
        # The FOM's flag must agree with the verdict (a rule JSON Schema cannot state simply).
        if report.get("figure_of_merit", {}).get("validated") != (verdict == "VALID"):
            print(f"{path}: figure_of_merit.validated disagrees with verdict {verdict!r}")
            errors.append(None)
        # The segment must agree with the configuration (rules JSON Schema cannot state simply).
        seg, cfg = report.get("segment"), report.get("config", {})
        if isinstance(seg, dict) and not errors:
            restart = cfg.get("restart")
            problems = []
            if seg["steps"] != seg["to_step"] - seg["from_step"]:
                problems.append("segment.steps is not to_step - from_step")
            if seg["whole_run"] != (seg["from_step"] == 0 and seg["to_step"] == cfg["steps"]):
                problems.append("segment.whole_run disagrees with from_step, to_step and config.steps")
            if restart and restart["from_step"] != seg["from_step"]:
                problems.append("segment.from_step is not config.restart.from_step")
            if not restart and seg["from_step"] != 0:
                problems.append("segment.from_step is not 0 on a fresh start")
            # The bound measured after the run must agree with the one before and the FOM.
            rl = report.get("roofline") or {}
            after, fom = rl.get("after"), report.get("figure_of_merit", {}).get("value", 0)
            if after and rl.get("bound_cells_per_s", 0) > 0 and after["bound_cells_per_s"] > 0:
                drift = after["bound_cells_per_s"] / rl["bound_cells_per_s"] - 1
                if abs(rl.get("drift", drift + 1) - drift) > 1e-9:
                    problems.append("roofline.drift is not after over the bound before, less 1")
                if abs(after["fraction"] * after["bound_cells_per_s"] - fom) > 1e-9 * max(fom, 1):
                    problems.append("roofline.after.fraction is not the FOM over its bound")
            # A blocked run's cache ceiling: the rate in cache on every rank over the redundant
            # work, against the bound and the FOM.
            ceiling = rl.get("cache_ceiling")
            if ceiling and rl.get("bound_cells_per_s", 0) > 0:
                def off(a, b):
                    return abs(a - b) > 1e-9 * max(abs(b), 1e-300)
                grid = cfg["grid"]
                owned = grid[0] * grid[1] * grid[2] / report["nranks"]
                redundant = report["halo_per_step_per_rank"]["redundant_updates"]["avg"] / owned
                cells = ceiling["in_cache_per_rank"] * report["nranks"] / (1 + redundant)
                if off(ceiling["redundant_fraction"], redundant):
                    problems.append("roofline.cache_ceiling.redundant_fraction is not the "
                                    "redundant updates over the owned cells per rank")
                if off(ceiling["cells_per_s"], cells):
                    problems.append("roofline.cache_ceiling.cells_per_s is not in_cache_per_rank "
                                    "x nranks / (1 + redundant_fraction)")
                if off(ceiling["fraction_of_bound"], ceiling["cells_per_s"] / rl["bound_cells_per_s"]):
                    problems.append("roofline.cache_ceiling.fraction_of_bound is not cells_per_s "
                                    "over the bound")
                if off(ceiling["fraction"], fom / ceiling["cells_per_s"]):
                    problems.append("roofline.cache_ceiling.fraction is not the FOM over cells_per_s")
                # Where the run stands between its ceilings (2.10 on): none of its memory
                # traffic hidden, and the part of it that was not.
                h, c = cfg["halo_width"], ceiling["fraction_of_bound"]
                if "no_overlap_fraction_of_bound" in ceiling and off(
                        ceiling["no_overlap_fraction_of_bound"], 1 / (1 / c + 1 / h)):
                    problems.append("roofline.cache_ceiling.no_overlap_fraction_of_bound is not "
                                    "1 / (1 / fraction_of_bound + 1 / halo_width)")
                if "unhidden_traffic" in ceiling and rl.get("fraction", 0) > 0 and off(
                        ceiling["unhidden_traffic"], h * (1 / rl["fraction"] - 1 / c)):
                    problems.append("roofline.cache_ceiling.unhidden_traffic is not halo_width x "
                                    "(1 / fraction - 1 / fraction_of_bound)")
            for p in problems:
                print(f"{path}: {p}")
            errors += [None] * len(problems)
        if args.whole_run and not (isinstance(seg, dict) and seg.get("whole_run")):
            print(f"{path}: not a whole run (segment {seg.get('from_step')}..{seg.get('to_step')} "
                  f"of {cfg.get('steps')} steps): its FOM times one segment only"
                  if isinstance(seg, dict) else f"{path}: no segment: not a 2.x report")
            errors.append(None)
        bad += bool(errors)
        if not errors:
            print(f"{path}: valid against schema {report['schema_version']} "
                  f"(verdict {verdict})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
