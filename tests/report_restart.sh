#!/usr/bin/env bash
# The JSON report of a run and of its restart: config holds every option's resolved value
# (each long option of --help), config.steps is --steps (the whole run), config.restart and
# segment say which steps a restarted launch ran, and the spectral check is structured. Both
# reports match the schema; only the uninterrupted one passes validate_report.py --whole-run.
# The text report prints the spectral check inside the report, after its header.
source "$(dirname "$0")/checkpoint_lib.sh"
python=${MINIAPP_PYTHON:?}
scripts=$(dirname "$0")/../scripts
P=(--grid 16 12 10 --init sine --sine-mode 1 2 1 --steps 12 --warmup 2 --verify --spectral-check)
miniapp 2 "${P[@]}" --checkpoint-every 6 --checkpoint-dir "$WORK/c" --report "$WORK/fresh.json" \
  > "$WORK/fresh.txt" 2>&1 || { cat "$WORK/fresh.txt"; fail "the fresh run failed"; }
miniapp 2 --restart "$WORK/c/checkpoint_0000000006.h5" --steps 12 --warmup 2 --verify \
  --spectral-check --report "$WORK/restart.json" > "$WORK/restart.txt" 2>&1 ||
  { cat "$WORK/restart.txt"; fail "the restart failed"; }
"$MINIAPP" --help > "$WORK/help.txt"

"$python" - "$WORK" <<'PY'
import json
import re
import sys

work = sys.argv[1]
fresh = json.load(open(f"{work}/fresh.json"))
restart = json.load(open(f"{work}/restart.json"))
assert fresh["schema_version"].startswith("2."), fresh["schema_version"]

# Every long option has its resolved value in config (dashes written as underscores).
options = set(re.findall(r"^\s+(--[a-z][a-z0-9-]+)", open(f"{work}/help.txt").read(), re.M))
special = {"--help": None, "--version": None, "--config": None, "--halo": "halo_mode"}
keys = {o: special.get(o, o[2:].replace("-", "_")) for o in options}
missing = sorted(o for o, key in keys.items() if key and key not in fresh["config"])
assert not missing, f"options missing in the report's config: {missing}"
assert len(options) > 30, options

for r, first in ((fresh, 0), (restart, 6)):
    c, seg = r["config"], r["segment"]
    assert c["steps"] == 12, c["steps"]  # what --steps means: the whole run
    assert seg == {"from_step": first, "to_step": 12, "steps": 12 - first,
                   "whole_run": first == 0}, seg
    assert r["figure_of_merit"]["timed_steps"] == 12 - first - 2, r["figure_of_merit"]
    sc = r["spectral_check"]
    assert sc["passed"] and 0 <= sc["max_error"] <= sc["tolerance"], sc
    assert set(sc) == {"passed", "max_error", "l2_error", "max_imag", "tolerance", "fft"}, sc
    assert c["spectral_check"] and c["transpose"] == "zerocopy" and c["sine_mode"] == [1, 2, 1]
    assert r["validation"]["verdict"] == "VALID", r["validation"]
assert fresh["config"]["restart"] is None and fresh["config"]["checkpoint_every"] == 6
assert restart["config"]["restart"]["from_step"] == 6
assert restart["config"]["restart"]["path"].endswith("checkpoint_0000000006.h5")
assert "restart" not in restart, "the 1.x top-level restart object is gone in 2.0"
print("ok: config holds every option; steps, restart and segment of both launches; "
      "structured spectral check")

for name in ("fresh", "restart"):
    text = open(f"{work}/{name}.txt").read()
    header = text.index("miniapp 0.")
    assert header < text.index("  spectral      max |u - exact| = ") < text.index(
        "SPECTRAL CHECK PASSED") < text.index("RESULT VALID"), text
    assert "  check spectral  passed: " in text, text
print("ok: the spectral check prints inside the report, its check name in a wide column")
PY

"$python" "$scripts/validate_report.py" --expect-verdict VALID --whole-run "$WORK/fresh.json" ||
  fail "the fresh run's report does not validate as a whole run"
"$python" "$scripts/validate_report.py" --expect-verdict VALID "$WORK/restart.json" ||
  fail "the restart's report does not validate"
if out=$("$python" "$scripts/validate_report.py" --whole-run "$WORK/restart.json"); then
  fail "a restarted segment passed --whole-run"
fi
grep -q "not a whole run (segment 6..12 of 12 steps)" <<< "$out" || { echo "$out"; fail "no reason given"; }
echo "ok: validate_report.py --whole-run refuses the restarted segment: $out"
