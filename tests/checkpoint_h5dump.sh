#!/usr/bin/env bash
# `h5dump -H` shows the documented layout: dataset "field" of dims (NZ, NY, NX) float64 and
# every root attribute, strings as variable-length UTF-8. Usage: checkpoint_h5dump.sh H5DUMP
source "$(dirname "$0")/checkpoint_lib.sh"
H5DUMP=${1:?h5dump}
digest 2 --grid 13 10 9 --steps 2 --checkpoint-every 2 --checkpoint-dir "$WORK" > /dev/null
file=$WORK/checkpoint_0000000002.h5
[ -f "${file%.h5}.xmf" ] || fail "no XDMF sidecar"
grep -q 'Dimensions="9 10 13"' "${file%.h5}.xmf" || fail "XDMF sidecar does not give z y x dims"
out=$("$H5DUMP" -H "$file")
printf '%s\n' "$out"
grep -Eq 'DATASET "field"' <<< "$out" || fail "no dataset field"
grep -A2 'DATASET "field"' <<< "$out" | grep -q 'H5T_IEEE_F64LE' || fail "field is not float64"
grep -q 'SIMPLE { ( 9, 10, 13 ) / ( 9, 10, 13 ) }' <<< "$out" || fail "field dims are not (NZ, NY, NX)"
for a in step time grid_xyz spacing_xyz kappa_xyz dt coefficients_xyz bc_xyz bc_value stencil \
         init seed sine_mode_xyz halo_width writer_ranks_xyz miniapp_version git_commit \
         command_line created_utc checkpoint_format digest run_definition run_digest axis_order \
         time_units dt_units spacing_xyz_units kappa_xyz_units coefficients_xyz_units; do
  grep -q "ATTRIBUTE \"$a\"" <<< "$out" || fail "attribute $a missing"
done
grep -A3 'ATTRIBUTE "init"' <<< "$out" | grep -q 'STRSIZE H5T_VARIABLE' || fail "init is not variable-length"
grep -A5 'ATTRIBUTE "init"' <<< "$out" | grep -q 'CSET H5T_CSET_UTF8' || fail "init is not UTF-8"
echo "ok: h5dump -H shows dataset field (9, 10, 13) and all attributes"

# With --spectral-every, each checkpoint also holds the latest energy spectrum (all periodic).
digest 2 --grid 13 10 9 --steps 4 --spectral-every 2 --spectrum-file "$WORK/spectrum.csv" \
  --checkpoint-every 4 --checkpoint-dir "$WORK/spectral" > /dev/null
out=$("$H5DUMP" -d spectrum "$WORK/spectral/checkpoint_0000000004.h5") || fail "no dataset spectrum"
for a in step time time_units k_units definition; do
  grep -q "ATTRIBUTE \"$a\"" <<< "$out" || fail "spectrum has no $a attribute"
done
# CSV columns: step,time_s,shell,k_rad_per_m,E
head -1 "$WORK/spectrum.csv" | grep -qx 'step,time_s,shell,k_rad_per_m,E' || fail "CSV header"
first=$(awk -F, '$1 == 4 && $3 == 0 {print $5}' "$WORK/spectrum.csv")
[ -n "$first" ] || fail "no spectrum of step 4 in the CSV"
grep -q "(0): $(printf '%.6g' "$first")" <<< "$out" || fail "spectrum E(0) differs from the CSV's $first"
echo "ok: checkpoint of step 4 holds the spectrum of step 4 (E(0) = $first, as in the CSV)"
# ... with the shells' wavenumbers in rad/m, the CSV's k of shell 1 (2 pi / 13 on 13 x 10 x 9 cells
# of 1 m) and the time of step 4 (dt = 0.1 s).
out=$("$H5DUMP" -d spectrum_k "$WORK/spectral/checkpoint_0000000004.h5") || fail "no dataset spectrum_k"
grep -A10 'ATTRIBUTE "units"' <<< "$out" | grep -q '"rad/m"' || fail "spectrum_k units are not rad/m"
k1=$(awk -F, '$1 == 4 && $3 == 1 {print $4}' "$WORK/spectrum.csv")
grep -q "(0): 0, $(printf '%.6g' "$k1")" <<< "$out" || fail "spectrum_k differs from the CSV's k = 0, $k1"
awk -v k="$k1" 'BEGIN { exit !(k > 0.4833 && k < 0.4834) }' || fail "k of shell 1 is $k1, not 2 pi / 13"
t=$("$H5DUMP" -a spectrum/time "$WORK/spectral/checkpoint_0000000004.h5")
grep -q "(0): 0.4" <<< "$t" || fail "spectrum time is not 0.4 s: $t"
echo "ok: spectrum_k in rad/m (k_1 = $k1 = 2 pi / 13), spectrum time 0.4 s"
