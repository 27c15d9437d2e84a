#!/usr/bin/env bash
# A checkpoint is the whole truth of its run. The run below (sine mode 2 1 3, anisotropic kappa,
# halo width 2) is checkpointed at step 10 and restarted with no problem options at all: the
# restart takes every setting from the file, passes --verify and --spectral-check (RESULT
# VALID) and reaches the uninterrupted digest. The same --sine-mode given again is accepted, a
# different one refused. Then h5py reads the file as documented (str attributes, units,
# coefficients, provenance) and recomputes run_digest independently, and the time series
# checkpoints.xmf lists the kept checkpoints at their times.
source "$(dirname "$0")/checkpoint_lib.sh"
P=(--grid 16 12 10 --init sine --sine-mode 2 1 3 --kappa 1 0.5 0.25 --dt 0.1 --spacing 1 1 1)
C=(--verify --spectral-check)
out=$(miniapp 2 "${P[@]}" "${C[@]}" --steps 20 --halo-width 2 --checkpoint-every 10 \
  --checkpoint-dir "$WORK/c" 2>&1) || { printf '%s\n' "$out"; fail "the uninterrupted run failed"; }
grep -q '^RESULT VALID' <<< "$out" || { printf '%s\n' "$out"; fail "uninterrupted run not VALID"; }
ref=$(sed -n 's/^digest //p' <<< "$out")
file=$WORK/c/checkpoint_0000000010.h5

restart() {
  miniapp 2 --restart "$file" --steps 20 "${C[@]}" --checkpoint-dir "$WORK/r" "$@" 2>&1
}
for extra in "" "--sine-mode 2 1 3"; do
  # shellcheck disable=SC2086
  out=$(restart $extra) || { printf '%s\n' "$out"; fail "restart ${extra:-without options} failed"; }
  grep -q '^RESULT VALID' <<< "$out" || { printf '%s\n' "$out"; fail "restart $extra not VALID"; }
  got=$(sed -n 's/^digest //p' <<< "$out")
  [ "$got" = "$ref" ] || fail "restart $extra: digest $got, uninterrupted $ref"
  echo "ok: restart from step 10 ${extra:-without options}: RESULT VALID, digest $got"
done
if out=$(restart --sine-mode 1 1 1); then fail "a wrong --sine-mode was accepted"; fi
grep -q -- "--sine-mode 1 1 1 differs from the checkpoint's 2 1 3" <<< "$out" ||
  { printf '%s\n' "$out"; fail "no message naming --sine-mode"; }
echo "ok: a wrong --sine-mode on restart is refused"

"${MINIAPP_PYTHON:?}" - "$file" "$WORK/c" <<'PY'
import re
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

path, cdir = sys.argv[1], sys.argv[2]
with h5py.File(path) as f:
    a = dict(f.attrs)
    axis_order = f["field"].attrs["axis_order"]
strings = ["init", "miniapp_version", "git_commit", "command_line", "created_utc", "digest",
           "run_definition", "run_digest"] + [k for k in a if k.endswith("_units")]
for k in strings + ["axis_order"]:
    v = axis_order if k == "axis_order" else a[k]
    assert isinstance(v, str), f"{k} is {type(v).__name__}, not str"
assert all(isinstance(b, str) for b in a["bc_xyz"]), "bc_xyz entries are not str"
units = {k[:-6]: a[k] for k in a if k.endswith("_units")}
assert units == {"time": "s", "dt": "s", "spacing_xyz": "m", "kappa_xyz": "m^2/s",
                 "coefficients_xyz": "1"}, units
kappa, dt, dx = a["kappa_xyz"], a["dt"], a["spacing_xyz"]
expected = [(kappa[d] * dt) / (dx[d] * dx[d]) for d in range(3)]  # the documented order
assert list(a["coefficients_xyz"]) == expected, (a["coefficients_xyz"], expected)
assert a["stencil"] == 7 and a["halo_width"] == 2 and a["step"] == 10 and a["time"] == 1.0
assert list(a["sine_mode_xyz"]) == [2, 1, 3] and a["init"] == "sine"
assert np.prod(a["writer_ranks_xyz"]) == 2
assert "--sine-mode 2 1 3" in a["command_line"], a["command_line"]
assert re.fullmatch(r"[0-9a-f]{40}|unknown", a["git_commit"]), a["git_commit"]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", a["created_utc"]), a["created_utc"]
assert a["checkpoint_format"] == 2
# run_definition: one line per defining attribute, as the attributes say.
lines = dict(line.split(" = ", 1) for line in a["run_definition"].splitlines())
text = lambda v: " ".join(str(x) for x in np.atleast_1d(v))  # noqa: E731
assert lines["sine_mode_xyz"] == "2 1 3" and lines["kappa_xyz"] == "1 0.5 0.25", lines
assert lines["bc_xyz"] == "periodic periodic periodic" and lines["stencil"] == "7", lines
assert lines["coefficients_xyz"] == text(a["coefficients_xyz"]), lines
# run_digest: FNV-1a 64 over run_definition + "digest = <digest>\n", as documented.
h = 0xCBF29CE484222325
for byte in (a["run_definition"] + "digest = " + a["digest"] + "\n").encode():
    h = ((h ^ byte) * 0x100000001B3) % 2**64
assert f"{h:016x}" == a["run_digest"], (f"{h:016x}", a["run_digest"])
print("ok: h5py reads str attributes, units, coefficients, provenance; run_digest recomputed")

# The time series: every kept checkpoint (10 and 20) at its time, in a temporal collection.
root = ET.parse(f"{cdir}/checkpoints.xmf").getroot()
coll = root.find("Domain/Grid")
assert coll.get("GridType") == "Collection" and coll.get("CollectionType") == "Temporal"
times = [float(g.find("Time").get("Value")) for g in coll.findall("Grid")]
files = [g.find("Attribute/DataItem").text for g in coll.findall("Grid")]
assert times == [1.0, 2.0], times
assert files == ["checkpoint_0000000010.h5:/field", "checkpoint_0000000020.h5:/field"], files
print(f"ok: checkpoints.xmf lists {files} at times {times}")
PY
