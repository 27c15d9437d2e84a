# Command-line tests: the miniapp binary as a user meets it.
#
# miniapp_add_cli_test(NAME n RANKS r EXIT code REGEX re [ONCE] [ABSENT re2] ARGS args...)
# runs `mpiexec -n r miniapp args...` and passes when it exits with `code` and its output
# matches `re` (ONCE: the error line is printed exactly once, by rank 0; ABSENT: `re2`
# matches nowhere in the output).
# A REGEX may hold semicolons: the arguments are parsed as given (PARSE_ARGV), where ${ARGN}
# would split them there and drop the regex's rest; anything left unparsed is an error.
function(miniapp_add_cli_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "ONCE" "NAME;RANKS;EXIT;REGEX;ABSENT;TIMEOUT" "ARGS;LABELS")
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "miniapp_add_cli_test(${T_NAME}): unparsed arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT T_RANKS)
    set(T_RANKS 2)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  set(once "")
  if(T_ONCE)
    set(once --once)
  endif()
  if(T_ABSENT)
    list(APPEND once --absent "${T_ABSENT}")
  endif()
  set(labels cli ${T_LABELS})
  add_test(NAME cli.${T_NAME}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh ${T_EXIT} "${T_REGEX}" ${once} --
                   ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS} ${MINIAPP_MPIEXEC_FLAGS}
                   ${MINIAPP_EXE} ${T_ARGS}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set(procs ${T_RANKS})
  if(procs GREATER MINIAPP_NCORES)
    set(procs ${MINIAPP_NCORES})
  endif()
  set_tests_properties(cli.${T_NAME} PROPERTIES PROCESSORS ${procs} TIMEOUT ${T_TIMEOUT}
                       LABELS "${labels}" ENVIRONMENT "${MINIAPP_TEST_ENV}")
endfunction()

# Bad input: one clear message from rank 0, exit status 2.
miniapp_add_cli_test(NAME bad_zero_size EXIT 2 ONCE REGEX "--grid: NY=0 must be a positive"
                     ARGS --grid 8 0 8)
miniapp_add_cli_test(NAME bad_negative_size EXIT 2 ONCE REGEX "--grid: NX=-4 must be a positive"
                     ARGS --grid -4 8 8)
miniapp_add_cli_test(NAME bad_missing_size EXIT 2 ONCE REGEX "--grid.*(3 required|Expected)"
                     ARGS --grid 8 8)
miniapp_add_cli_test(NAME bad_ranks_product EXIT 2 ONCE REGEX "product 3 differs from the 2 MPI ranks"
                     ARGS --ranks 3 1 1)
miniapp_add_cli_test(NAME bad_too_few_cells EXIT 2 ONCE REGEX "NX=1 has fewer cells than 2 ranks"
                     ARGS --grid 1 8 8 --ranks 2 1 1)
miniapp_add_cli_test(NAME bad_too_few_cells_chosen EXIT 2 ONCE REGEX "no rank grid for 2 ranks fits"
                     ARGS --grid 1 1 1)
miniapp_add_cli_test(NAME bad_boundary_name EXIT 2 ONCE REGEX "--bc.*periodc"
                     ARGS --bc periodc periodic periodic)
miniapp_add_cli_test(NAME bad_unstable EXIT 2 ONCE REGEX "unstable: 2\\*\\(ax\\+ay\\+az\\)"
                     ARGS --dt 1.0)
miniapp_add_cli_test(NAME bad_nonfinite EXIT 2 ONCE REGEX "--kappa: KX=(nan|inf).*finite"
                     ARGS --kappa nan 1 1)
miniapp_add_cli_test(NAME bad_unknown_option EXIT 2 ONCE REGEX "--frobnicate"
                     ARGS --frobnicate 3)
miniapp_add_cli_test(NAME bad_missing_toml EXIT 2 ONCE REGEX "--config.*no-such-file.toml"
                     ARGS --config no-such-file.toml)
miniapp_add_cli_test(NAME bad_malformed_toml EXIT 2 ONCE REGEX "--config"
                     ARGS --config ${CMAKE_CURRENT_SOURCE_DIR}/data/malformed.toml)
miniapp_add_cli_test(NAME bad_report_path EXIT 2 ONCE REGEX "directory /nonexistent-dir/ .*does not exist"
                     ARGS --grid 8 8 8 --steps 1 --report /nonexistent-dir/r.json)
# A directory whose permission bits let root write, but which takes no new file: the check
# really creates one, before the run rather than after it.
miniapp_add_cli_test(NAME report_path_in_proc EXIT 2 ONCE
                     REGEX "directory /proc/ of /proc/miniapp-report.json is not writable"
                     ARGS --grid 8 8 8 --steps 1 --report /proc/miniapp-report.json)
miniapp_add_cli_test(NAME report_path_proc_file EXIT 2 ONCE
                     REGEX "/proc/version is a file of the kernel's"
                     ARGS --grid 8 8 8 --steps 1 --report /proc/version)
miniapp_add_cli_test(NAME bad_too_large EXIT 2 ONCE REGEX "needs about .* GB per rank"
                     ARGS --grid 100000 100000 100000)
# Memory: the estimate is printed (before the fields are allocated), the report gives the peak
# RSS, and a grid that fits 64-bit indices but no node's memory is refused with the estimate in
# the message before anything is allocated (no estimate or binding line: the preflight stops
# before both).
miniapp_add_cli_test(NAME memory_estimate EXIT 0
                     REGEX "^memory estimate: 0.1[0-9]* MB per rank for fields and halo buffers \\(x 2 rank\\(s\\) per node; [0-9.]+ GB available per node\\)$"
                     ARGS --grid 32 16 16 --steps 1)
miniapp_add_cli_test(NAME report_peak_rss EXIT 0
                     REGEX "^  memory        peak RSS [1-9][0-9.]*/[1-9][0-9.]* MB per rank \\(min/max\\); estimate 0.1[0-9]* MB per rank"
                     ARGS --grid 32 16 16 --steps 1)
miniapp_add_cli_test(NAME bad_too_large_estimate ABSENT "binding|memory estimate" EXIT 2 ONCE
                     REGEX "^miniapp: error: --grid 100000 100000 100000 needs about 8e\\+06 GB per rank \\(1.6e\\+07 GB for the 2 rank\\(s\\) on a node\\), more than 90% of the [0-9.e+]+ GB available"
                     ARGS --grid 100000 100000 100000)
miniapp_add_cli_test(NAME help EXIT 0 REGEX "--grid.*global cells" ARGS --help RANKS 1)
miniapp_add_cli_test(NAME help_signals EXIT 0 RANKS 1 ARGS --help
                     REGEX "^Signals: SIGTERM or SIGUSR1 .* exits 0 \\(RESULT INTERRUPTED\\); continue with --restart latest")
miniapp_add_cli_test(NAME help_fault EXIT 0 RANKS 1 ARGS --help
                     REGEX "^Fault injection \\(tests\\): MINIAPP_FAULT=rank:R,step:S,kind:alloc\\|io\\|throw")
miniapp_add_cli_test(NAME version EXIT 0 REGEX "miniapp ${PROJECT_VERSION}" ARGS --version RANKS 1)

# ---- Procurement: verdict, FOM, JSON report against its schema, binding, progress.
set(SCHEMA_CHECK ${PROJECT_SOURCE_DIR}/scripts/validate_report.py)
set(TINY --grid 16 12 10 --steps 12 --warmup 2)
miniapp_add_cli_test(NAME result_valid_verify EXIT 0
                     REGEX "check verify  passed.*FOM [0-9.e+]+ cell updates/s.*10 timed steps after 2 warm-up\\)\nRESULT VALID"
                     ARGS ${TINY} --init sine --verify --label tiny
                          --report ${CMAKE_CURRENT_BINARY_DIR}/report_valid.json)
# No progress lines by default in a log: Open MPI gives ranks a pseudo-terminal for stdout even
# here.
miniapp_add_cli_test(NAME result_not_validated ABSENT "progress:" EXIT 0
                     REGEX "-- not validated\nRESULT NOT VALIDATED \\(no check requested"
                     ARGS ${TINY})
miniapp_add_cli_test(NAME result_invalid_digest EXIT 1
                     REGEX "check digest  FAILED: digest [0-9a-f]+ differs from expected 0123456789abcdef.*INVALID, does not count\nRESULT INVALID \\(failed: digest"
                     ARGS ${TINY} --expect-digest 0123456789ABCDEF
                          --report ${CMAKE_CURRENT_BINARY_DIR}/report_invalid.json)
# The digest does not depend on the decomposition or the warm-up: one reference for any run.
miniapp_add_cli_test(NAME result_valid_digest RANKS 3 EXIT 0
                     REGEX "check digest  passed: digest 5b466e1afb158183 matches.*\nRESULT VALID"
                     ARGS --grid 16 16 16 --steps 20 --warmup 7 --init sine
                          --expect-digest 5B466E1AFB158183)
miniapp_add_cli_test(NAME bad_warmup EXIT 2 ONCE REGEX "--warmup=5 must be between 0 and --steps=4"
                     ARGS --grid 8 8 8 --steps 4 --warmup 5)
miniapp_add_cli_test(NAME bad_expect_digest EXIT 2 ONCE REGEX "--expect-digest=12xz must be 16 hex"
                     ARGS --grid 8 8 8 --expect-digest 12xz)
miniapp_add_cli_test(NAME bad_progress EXIT 2 ONCE REGEX "--progress=-3 must be >= 0"
                     ARGS --grid 8 8 8 --progress -3)
# Every rank's host and CPU list before the run (the warnings are tested in test_procurement).
miniapp_add_cli_test(NAME binding_report EXIT 0
                     REGEX "binding \\(OS affinity mask per rank\\)\n  rank 0  host [^ ]+  cpus [0-9][-,0-9]*  threads [^\n]*\n  rank 1  host [^ ]+  cpus [0-9]"
                     ARGS --grid 8 8 8 --steps 1)
miniapp_add_cli_test(NAME progress_lines EXIT 0
                     REGEX "progress: step 3/12 \\(25.0%\\), [0-9.]+ [mun]*s/step, ETA"
                     ARGS ${TINY} --progress 0.000001)
# --roofline measures the copy bound before the loop and reports the run's fraction of it.
miniapp_add_cli_test(NAME roofline ABSENT "ceiling of the blocked" EXIT 0
                     REGEX "^  roofline      bound [0-9.]+e\\+[0-9]+ cell upd/s \\(copy ordinary [0-9.]+ GB/s, streaming [0-9.]+ GB/s per node, 1 node\\(s\\); the better / 16 B per cell update\\), this run [0-9.]+e[+-][0-9]+ = [0-9]+\\.[0-9]{3} of the bound$"
                     ARGS ${TINY} --init sine --verify --roofline
                          --report ${CMAKE_CURRENT_BINARY_DIR}/report_roofline.json)
set_tests_properties(cli.roofline PROPERTIES FIXTURES_SETUP report_roofline)
# A blocked run's report says what its stores count, and with --roofline the blocked rounds'
# other ceiling, their line kernels in cache over the redundant work: the report_blocked
# fixture. A plain run has no such ceiling (cli.roofline).
miniapp_add_cli_test(NAME report_blocked EXIT 0
                     REGEX "^  sweep stores  through the cache.*^  roofline      ceiling of the blocked rounds: their line kernels in cache at [0-9.]+e\\+[0-9]+ cell upd/s per rank, over the redundant work \\([0-9]+\\.[0-9] %\\), allow [0-9.]+e\\+[0-9]+ = [0-9]+\\.[0-9]{3} of the bound; this run = [0-9]+\\.[0-9]{3} of it$"
                     ARGS ${TINY} --init sine --verify --halo-width 3 --temporal-blocking --roofline
                          --report ${CMAKE_CURRENT_BINARY_DIR}/report_blocked.json)
set_tests_properties(cli.report_blocked PROPERTIES FIXTURES_SETUP report_blocked)
# On more than one rank, the ranks' stencil time per owned cell: slowest over fastest, and a
# note where they differ by more than 10 % (the note's rule: test_procurement).
miniapp_add_cli_test(NAME balance EXIT 0
                     REGEX "^    loop  [^\n]*\n  balance       stencil time per owned cell, slowest rank over fastest: [0-9]+\\.[0-9]{2}(. more than 10 % on equal work: .*the figure of merit follows the slowest rank)?$"
                     ARGS ${TINY})
# And measures it again after the loop, the fields freed, saying how far it moved.
miniapp_add_cli_test(NAME roofline_after EXIT 0
                     REGEX "^  roofline      after the run: bound [0-9.]+e\\+[0-9]+ cell upd/s \\(copy ordinary [0-9.]+ GB/s, streaming [0-9.]+ GB/s per node\\), [+-][0-9]+\\.[0-9] % on the bound before; this run = [0-9]+\\.[0-9]{3} of it"
                     ARGS ${TINY} --roofline)
set_tests_properties(cli.result_valid_verify PROPERTIES FIXTURES_SETUP report_valid)
set_tests_properties(cli.result_invalid_digest PROPERTIES FIXTURES_SETUP report_invalid)
if(MINIAPP_PYTHON_HAS_JSONSCHEMA)
  add_test(NAME python.report_schema_valid
           COMMAND ${MINIAPP_PYTHON} ${SCHEMA_CHECK} --expect-verdict VALID
                   ${CMAKE_CURRENT_BINARY_DIR}/report_valid.json)
  add_test(NAME python.report_schema_invalid
           COMMAND ${MINIAPP_PYTHON} ${SCHEMA_CHECK} --expect-verdict INVALID
                   ${CMAKE_CURRENT_BINARY_DIR}/report_invalid.json)
  set_tests_properties(python.report_schema_valid PROPERTIES FIXTURES_REQUIRED report_valid
                       LABELS "python")
  set_tests_properties(python.report_schema_invalid PROPERTIES FIXTURES_REQUIRED report_invalid
                       LABELS "python")
  # --roofline: the JSON report carries the bound and the run's fraction of it (schema 2.2: and the line kernels built in; 2.3: how the sweeps chose their stores; 2.4: the x faces the sweep stored; 2.5: the bound measured again after the run; 2.6: whether the rounds counted are blocked ones; 2.7: the kind an adaptive choice started from; 2.8: the bytes sent in place; 2.9: a blocked run's cache ceiling, absent here; 2.10: where such a run stands between its ceilings).
  add_test(NAME python.report_schema_roofline
           COMMAND ${MINIAPP_PYTHON} -c "import json, subprocess, sys; r = json.load(open(sys.argv[2])); rl = r['roofline']; b = r['balance']; t = b['stencil_per_cell']; assert t['min'] > 0 and abs(b['slowest_over_fastest'] - t['max'] / t['min']) < 1e-9 * t['max'] / t['min'], b; assert r['schema_version'] == '2.10' and 'cache_ceiling' not in rl and r['sweep_stores']['blocked_rounds'] is False and r['sweep_stores']['first'] == 'alternating' and 'x_faces_from_sweep_bytes' in r['halo_per_step_per_rank'] and 'in_place_bytes' in r['halo_per_step_per_rank'] and r['config']['sweep_stores'] == 'adaptive' and r['sweep_stores']['policy'] == 'adaptive' and r['config']['roofline'] is True and r['build']['line_kernels'] in ('AVX-512', 'AVX2', 'portable'), r['schema_version']; assert rl['bound_cells_per_s'] > 0 and rl['fraction'] > 0 and rl['streaming_bytes_per_s'] > 0, rl; assert abs(rl['fraction'] - r['figure_of_merit']['value'] / rl['bound_cells_per_s']) < 1e-9 * rl['fraction'], rl; a = rl['after']; assert a['bound_cells_per_s'] > 0 and abs(a['fraction'] - r['figure_of_merit']['value'] / a['bound_cells_per_s']) < 1e-9 * a['fraction'] and abs(rl['drift'] - (a['bound_cells_per_s'] / rl['bound_cells_per_s'] - 1)) < 1e-9, rl; sys.exit(subprocess.call([sys.executable, sys.argv[1], '--expect-verdict', 'VALID', sys.argv[2]]))"
                   ${SCHEMA_CHECK} ${CMAKE_CURRENT_BINARY_DIR}/report_roofline.json)
  set_tests_properties(python.report_schema_roofline PROPERTIES FIXTURES_REQUIRED report_roofline
                       LABELS "python" PASS_REGULAR_EXPRESSION "valid against schema 2.10")
  # With temporal blocking the stores counted are the blocked rounds' (schema 2.6), and the
  # report has a cache ceiling (2.9) and the fraction its rounds reach hiding none of their
  # memory traffic, below it (2.10), which validate_report.py checks against their inputs.
  add_test(NAME python.report_blocked_rounds
           COMMAND ${MINIAPP_PYTHON} -c "import json, subprocess, sys; r = json.load(open(sys.argv[2])); s = r['sweep_stores']; assert r['config']['temporal_blocking'] is True and s['blocked_rounds'] is True, s; c = r['roofline']['cache_ceiling']; assert c['redundant_fraction'] > 0 and c['cells_per_s'] > 0 and 0 < c['no_overlap_fraction_of_bound'] < c['fraction_of_bound'] and 'unhidden_traffic' in c, c; sys.exit(subprocess.call([sys.executable, sys.argv[1], '--expect-verdict', 'VALID', sys.argv[2]]))"
                   ${SCHEMA_CHECK} ${CMAKE_CURRENT_BINARY_DIR}/report_blocked.json)
  set_tests_properties(python.report_blocked_rounds PROPERTIES FIXTURES_REQUIRED report_blocked
                       LABELS "python" PASS_REGULAR_EXPRESSION "valid against schema 2.10")
  # validate_report.py refuses a report whose bound after the run disagrees with its drift.
  add_test(NAME python.report_roofline_drift_checked
           COMMAND ${MINIAPP_PYTHON} -c "import json, subprocess, sys, tempfile; r = json.load(open(sys.argv[2])); r['roofline']['drift'] += 0.5; f = tempfile.NamedTemporaryFile('w', suffix='.json', delete=False); json.dump(r, f); f.close(); p = subprocess.run([sys.executable, sys.argv[1], f.name], capture_output=True, text=True); print(p.stdout); sys.exit(0 if p.returncode == 1 and 'roofline.drift is not' in p.stdout else 1)"
                   ${SCHEMA_CHECK} ${CMAKE_CURRENT_BINARY_DIR}/report_roofline.json)
  set_tests_properties(python.report_roofline_drift_checked PROPERTIES
                       FIXTURES_REQUIRED report_roofline LABELS "python")
  # ... and one whose cache ceiling disagrees with the rate in cache, the redundant work and
  # the FOM.
  add_test(NAME python.report_cache_ceiling_checked
           COMMAND ${MINIAPP_PYTHON} -c "import json, subprocess, sys, tempfile; r = json.load(open(sys.argv[2])); r['roofline']['cache_ceiling']['in_cache_per_rank'] *= 1.5; f = tempfile.NamedTemporaryFile('w', suffix='.json', delete=False); json.dump(r, f); f.close(); p = subprocess.run([sys.executable, sys.argv[1], f.name], capture_output=True, text=True); print(p.stdout); sys.exit(0 if p.returncode == 1 and 'cache_ceiling.cells_per_s is not' in p.stdout else 1)"
                   ${SCHEMA_CHECK} ${CMAKE_CURRENT_BINARY_DIR}/report_blocked.json)
  set_tests_properties(python.report_cache_ceiling_checked PROPERTIES
                       FIXTURES_REQUIRED report_blocked LABELS "python")
  # ... and one whose unhidden traffic disagrees with the run's fraction and its ceiling.
  add_test(NAME python.report_unhidden_traffic_checked
           COMMAND ${MINIAPP_PYTHON} -c "import json, subprocess, sys, tempfile; r = json.load(open(sys.argv[2])); r['roofline']['cache_ceiling']['unhidden_traffic'] += 0.5; f = tempfile.NamedTemporaryFile('w', suffix='.json', delete=False); json.dump(r, f); f.close(); p = subprocess.run([sys.executable, sys.argv[1], f.name], capture_output=True, text=True); print(p.stdout); sys.exit(0 if p.returncode == 1 and 'cache_ceiling.unhidden_traffic is not' in p.stdout else 1)"
                   ${SCHEMA_CHECK} ${CMAKE_CURRENT_BINARY_DIR}/report_blocked.json)
  set_tests_properties(python.report_unhidden_traffic_checked PROPERTIES
                       FIXTURES_REQUIRED report_blocked LABELS "python")
else()
  message(STATUS "python3-jsonschema not found: the report schema tests are skipped")
endif()
# The official inputs parse and run (shrunk), and SMALL reproduces its reference digest (inputs/README.md)
# on a decomposition other than the one it was recorded on.
foreach(size small medium large)
  miniapp_add_cli_test(NAME input_${size} EXIT 0 REGEX "RESULT VALID"
                       ARGS --config ${INPUTS}/${size}.toml --grid 16 16 16 --steps 3 --warmup 1)
endforeach()
miniapp_add_cli_test(NAME input_small_digest RANKS 4 TIMEOUT 300 EXIT 0
                     REGEX "check verify  passed.*check digest  passed: digest bdfd3e0d7c53d2dc matches.*\nRESULT VALID"
                     ARGS --config ${INPUTS}/small.toml --expect-digest bdfd3e0d7c53d2dc)
# bench alltoall: a torus that does not factor the ranks.
miniapp_add_cli_test(NAME bench_alltoall_bad_dims EXIT 2 ONCE
                     REGEX "torus dims 3x3 multiply to 9 but the communicator has 2 ranks"
                     ARGS bench alltoall --dims 3 3)
# Pencil transposes, 3D FFT and spectral diagnostics: the spectral check passes for a
# random initial field at 1, 2, 4, 8 ranks (and with the pack variant and an all-split rank
# grid); bad spectral input exits 2; the spectrum CSV feeds the plotting script.
foreach(np 1 2 4 8)
  miniapp_add_cli_test(NAME spectral_check_np${np} RANKS ${np} EXIT 0 REGEX "SPECTRAL CHECK PASSED"
                       ARGS --grid 12 10 9 --steps 20 --init random --spectral-check)
endforeach()
foreach(np 1 2 4 8)
  miniapp_add_cli_test(NAME spectral_check_27pt_np${np} RANKS ${np} EXIT 0
                       REGEX "SPECTRAL CHECK PASSED" ARGS --grid 12 10 9 --steps 20 --init random
                       --stencil 27 --halo neighbors26 --halo-width 2 --spectral-check)
endforeach()
miniapp_add_cli_test(NAME spectral_check_pack RANKS 4 EXIT 0 REGEX "SPECTRAL CHECK PASSED"
                     ARGS --grid 12 10 9 --steps 20 --init gaussian --spectral-check --transpose pack)
miniapp_add_cli_test(NAME spectral_check_2x2x2 RANKS 8 EXIT 0 REGEX "SPECTRAL CHECK PASSED"
                     ARGS --grid 11 10 9 --ranks 2 2 2 --steps 20 --spectral-check --seed 7)
miniapp_add_cli_test(NAME spectral_input RANKS 2 EXIT 0 REGEX "SPECTRAL CHECK PASSED"
                     ARGS --config ${INPUTS}/spectral.toml --grid 16 12 10 --steps 20
                          --spectrum-file spectral_input.csv)
# The check's name fits its column ("check spectralpassed:" before).
miniapp_add_cli_test(NAME spectral_check_column EXIT 0 REGEX "^  check spectral  passed: error"
                     ARGS --grid 12 10 9 --steps 4 --spectral-check)
# The real-to-complex FFT is the default of the spectral features; c2c stays for comparison (and
# reports the round-off imaginary part that r2c cannot have). The preflight estimate counts the
# FFT buffers: about two fields for r2c.
miniapp_add_cli_test(NAME spectral_check_c2c RANKS 4 EXIT 0
                     REGEX "spectral      max \\|u - exact\\| = .*, max \\|imag\\| [0-9.e+-]+ \\(c2c FFT, tolerance"
                     ARGS --grid 12 10 9 --steps 20 --init random --spectral-check --fft c2c)
miniapp_add_cli_test(NAME spectral_memory_estimate EXIT 0
                     REGEX "memory estimate: [0-9.]+ MB per rank for fields, halo and FFT buffers, of which r2c FFT \\(spectral diagnostics\\) [0-9.]+ MB = 2\\.0[0-9]* x the field"
                     ARGS --grid 64 64 64 --steps 1 --spectral-check)
miniapp_add_cli_test(NAME bad_fft_name EXIT 2 ONCE REGEX "--fft.*r2d"
                     ARGS --grid 8 8 8 --spectral-check --fft r2d)
miniapp_add_cli_test(NAME bad_fft_without_spectral EXIT 2 ONCE
                     REGEX "--fft c2c chooses the FFT of --spectral-check and --spectral-every, which are both off"
                     ARGS --grid 8 8 8 --fft c2c)
miniapp_add_cli_test(NAME bad_spectrum_k_without_every EXIT 2 ONCE
                     REGEX "--spectrum-k index sets the wavenumbers of the spectra of --spectral-every, which is off"
                     ARGS --grid 8 8 8 --spectral-check --spectrum-k index)
miniapp_add_cli_test(NAME bad_spectral_bc EXIT 2 ONCE
                     REGEX "--spectral-check needs periodic boundaries in every dimension; y is dirichlet"
                     ARGS --spectral-check --bc periodic dirichlet periodic)
miniapp_add_cli_test(NAME bad_transpose_name EXIT 2 ONCE REGEX "--transpose.*packed"
                     ARGS --transpose packed)
miniapp_add_cli_test(NAME bad_spectrum_file EXIT 2 ONCE REGEX "--spectrum-file: cannot write"
                     ARGS --grid 8 8 8 --steps 1 --spectral-every 1
                          --spectrum-file /nonexistent-dir/s.csv)
if(MINIAPP_PYTHON AND MINIAPP_PYTHON_HAS_MATPLOTLIB)
  list(JOIN MINIAPP_MPIEXEC_FLAGS " " mpiexec_flags)
  add_test(NAME scripts.plot_spectrum
           COMMAND bash -c "${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${mpiexec_flags} \
$<TARGET_FILE:miniapp> --grid 12 10 9 --steps 20 --spectral-every 5 --spectrum-file plot_spectrum.csv \
&& ${MINIAPP_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/plot_spectrum.py plot_spectrum.csv -o plot_spectrum.png \
&& test -s plot_spectrum.png"
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(scripts.plot_spectrum PROPERTIES LABELS "scripts;python" PROCESSORS 2
                       TIMEOUT 120 ENVIRONMENT "${MINIAPP_TEST_ENV}" PASS_REGULAR_EXPRESSION "wrote plot_spectrum.png \\(5 spectra\\)")
endif()
miniapp_add_cli_test(NAME bench_fft_smoke RANKS 4 EXIT 0 LABELS bench
                     REGEX "ratio zerocopy/pack"
                     ARGS bench fft --grid 12 10 9 --reps 1 --warmup 0 --planner estimate)
miniapp_add_cli_test(NAME bad_bench_fft_planner RANKS 1 EXIT 2 REGEX "--planner"
                     ARGS bench fft --planner patient)
# Halo exchange family: bad input, and the 2D design note's byte counts from real runs.
miniapp_add_cli_test(NAME bad_halo_mode EXIT 2 ONCE REGEX "--halo.*diagonal"
                     ARGS --grid 8 8 8 --halo diagonal)
miniapp_add_cli_test(NAME bad_stencil EXIT 2 ONCE REGEX "--stencil=9 must be 7 \\(star\\) or 27"
                     ARGS --grid 8 8 8 --stencil 9)
miniapp_add_cli_test(NAME bad_faces_27 EXIT 2 ONCE REGEX "--halo faces sends no edges or corners"
                     ARGS --grid 8 8 8 --halo faces --stencil 27)
miniapp_add_cli_test(NAME bad_faces_deep EXIT 2 ONCE REGEX "--halo faces works at --halo-width 1 only \\(got 2\\)"
                     ARGS --grid 8 8 8 --halo faces --halo-width 2)
miniapp_add_cli_test(NAME bad_halo_below_radius EXIT 2 ONCE REGEX "--halo-width=0 is below the stencil radius 1"
                     ARGS --grid 8 8 8 --halo-width 0)
miniapp_add_cli_test(NAME bad_halo_above_extent EXIT 2 ONCE
                     REGEX "NX=8 has fewer cells than 2 ranks x halo width 5"
                     ARGS --grid 8 8 8 --ranks 2 1 1 --halo-width 5)
miniapp_add_cli_test(NAME bad_pack_collective EXIT 2 ONCE REGEX "--pack datatype does not apply to --halo neighbor-coll"
                     ARGS --grid 8 8 8 --halo neighbor-coll --pack datatype)
# A name that is none of an option's choices is refused with the names to choose from (the
# enum's numbers are not names).
miniapp_add_cli_test(NAME bad_sweep_stores EXIT 2 ONCE REGEX "--sweep-stores: 'bogus' is not one of adaptive, streaming, ordinary$"
                     ARGS --grid 8 8 8 --sweep-stores bogus)
miniapp_add_cli_test(NAME bad_halo_mode_number EXIT 2 ONCE REGEX "--halo: '1' is not one of dim-ordered, neighbors26, neighbor-coll, faces$"
                     ARGS --grid 8 8 8 --halo 1)
# Fields this small fit in the cache: the sweeps write through it and choose no stores.
miniapp_add_cli_test(NAME sweep_stores_in_cache EXIT 0
                     REGEX "^  sweep stores  through the cache \\(the fields fit in the ranks' share"
                     ARGS --grid 16 16 16 --steps 2 --sweep-stores ordinary)
miniapp_add_cli_test(NAME bad_unstable_27 EXIT 2 ONCE REGEX "unstable: the 27-point stability number"
                     ARGS --grid 8 8 8 --stencil 27 --dt 0.5)
miniapp_add_cli_test(NAME bad_2d_dirichlet_z EXIT 2 ONCE REGEX "NZ=1 runs as a 2D problem.*not dirichlet"
                     ARGS --grid 16 16 1 --bc periodic periodic dirichlet)
miniapp_add_cli_test(NAME design_note_2d_4x4 RANKS 16 EXIT 0 TIMEOUT 120 REGEX "8224/8224/8224 B per step"
                     ARGS --grid 1024 1024 1 --ranks 4 4 1 --steps 1)
miniapp_add_cli_test(NAME design_note_2d_16x1 RANKS 16 EXIT 0 TIMEOUT 120 REGEX "17440/17440/17440 B per step"
                     ARGS --grid 1024 1024 1 --ranks 16 1 1 --steps 1)
miniapp_add_cli_test(NAME design_note_2d_4x4_deep RANKS 16 EXIT 0 TIMEOUT 120 REGEX "8448/8448/8448 B per step"
                     ARGS --grid 1024 1024 1 --ranks 4 4 1 --steps 8 --halo-width 8)
miniapp_add_cli_test(NAME bench_halo_smoke RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "neighbor-coll +subarray +2 +on"
                     ARGS bench halo --n 8 --widths 1 2 --steps 2 --warmup 0 --reps 1)
# bench step: every halo mode x H x blocking x overlap on the production stepper reaches the
# baseline's digest (2 ranks: 32 candidates), and each row gives a rate and its fraction of the
# copy bound measured in the same run.
miniapp_add_cli_test(NAME bench_step_digests ABSENT "DIFFERS|MISMATCH" RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  digests agree: all 32 candidates reach the baseline's [0-9a-f]{16} after 8 steps$"
                     ARGS bench step --n 16 --steps 4 --warmup 4 --reps 1)
miniapp_add_cli_test(NAME bench_step_row ABSENT "DIFFERS|MISMATCH" RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  faces H=1 overlap( +[0-9]+\\.[0-9]{3}){9} +[0-9.]+e[+-][0-9]+ +[0-9]+\\.[0-9]{3} same$"
                     ARGS bench step --n 16 --steps 2 --warmup 2 --reps 2 --modes faces --widths 1)
# The yardstick gives the bound of the medians and the range of the rounds' own bounds.
miniapp_add_cli_test(NAME bench_step_yardstick RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  yardstick: copy [0-9.]+ GB/s ordinary, [0-9.]+ GB/s streaming \\(all ranks\\) -> bound [0-9.]+e\\+[0-9]+ cell upd/s; round by round [0-9.]+e\\+[0-9]+ to [0-9.]+e\\+[0-9]+$"
                     ARGS bench step --n 16 --steps 2 --warmup 2 --reps 2 --modes faces --widths 1)
# The plain step's packing split by phase (x faces first) and its rate against the copy. Two
# ranks are 1 x 1 x 2: the x and y faces are the rank's own, not packed, copied by the unpack
# (measurable time: a kernel launch at least); the z faces go to the other rank as whole padded
# planes, which MPI sends from the field in place: neither packed nor unpacked, and left out of
# the bytes packed (0.00 MB: the y faces' 4608 B; with the z faces' 5184 B it would read 0.01).
set(_ms "[0-9]+\\.[0-9]{3}")
# The plain step alone, one round of two steps: the lines of its packing and yardsticks.
set(_plain_step bench step --n 16 --steps 2 --warmup 2 --reps 1 --modes dim-ordered --widths 1)
set(_nonzero_ms "([1-9][0-9]*\\.[0-9]{3}|0\\.(00[1-9]|0[1-9][0-9]|[1-9][0-9]{2}))")
miniapp_add_cli_test(NAME bench_step_packing ABSENT "DIFFERS|MISMATCH" RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  packing \\(dim-ordered H=1, ms per step\\): pack x/y/z faces ${_ms}/${_ms}/0\\.000, unpack ${_ms}/${_nonzero_ms}/0\\.000. 0\\.00 MB each way, moved at [0-9]+\\.[0-9]{2} of the ordinary copy"
                     ARGS ${_plain_step})
# Split along z over two ranks, the dim-ordered z faces are whole padded planes (34 x 34 cells
# each at 32 x 32 per rank, H = 1): MPI sends them from the field in place, and the report
# counts their bytes, 2 x 34 x 34 x 8 = 18496 per step.
miniapp_add_cli_test(NAME report_in_place_planes RANKS 2 EXIT 0 TIMEOUT 120
                     REGEX "of which 18496/18496/18496 B whole padded planes, sent by MPI from the field and received into it \\(no buffer, never packed\\)"
                     ARGS --grid 32 32 64 --ranks 1 1 2 --steps 4)
# Where the 7-point sweep stores the x faces (x periodic over one rank: 1 x 1 x 2), the
# exchange moves none of them.
miniapp_add_cli_test(NAME bench_step_x_faces_from_sweep RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  x faces: 512 values per step stored by the sweep as it writes each line \\(x periodic over the rank alone\\), neither packed nor copied \\(median over rounds\\)$"
                     ARGS ${_plain_step})
# Where packing stands: the x faces' rate in whole lines, the y and z faces against the copy,
# each round's bytes over the same round's seconds. 27 points: that sweep leaves the x faces to
# the exchange in every step of both rounds.
miniapp_add_cli_test(NAME bench_step_packing_limit RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  where packing stands: the x faces, 512 values a line each, at [0-9]+\\.[0-9] GB/s of whole lines \\(2 x 64 B per value: packed and unpacked. 2 of 2 rounds moved them\\). the y and z faces at [0-9]+\\.[0-9]{2} of the ordinary copy$"
                     ARGS bench step --n 16 --steps 2 --warmup 2 --reps 2 --modes dim-ordered --widths 1 --stencil 27)
# The x faces' own yardstick: their copy (the rank's own, 1 x 1 x 2) against a bare gather of
# the same lines.
miniapp_add_cli_test(NAME bench_step_line_gather RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  x-face copy \\(the rank's own faces, field to ghosts, no pack\\): [0-9]+\\.[0-9] GB/s of whole lines \\(a line per value read\\), [0-9]+\\.[0-9]{2} of a bare gather of the same lines from memory in the same round \\([0-9]+\\.[0-9] GB/s per rank\\)$"
                     ARGS ${_plain_step} --stencil 27)
# The plain step's sweep alone, timed right after it in every round: the step's time beyond it,
# median and range over the rounds.
miniapp_add_cli_test(NAME bench_step_sweep_alone RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  sweep alone \\(the plain step's kernel, no exchange between sweeps, timed right after the plain step\\): ${_nonzero_ms} ms per step, [0-9]+\\.[0-9]{3} of bound; the plain step takes -?${_ms} ms more \\(round by round -?${_ms} to -?${_ms}\\), its halo measured ${_nonzero_ms} ms$"
                     ARGS ${_plain_step})
# Closed dimensions: every candidate also fills the physical-boundary ghosts (the boundary
# column is measured) and still reaches the baseline's digest (else exit 1 and DIFFERS).
miniapp_add_cli_test(NAME bench_step_closed ABSENT "DIFFERS|MISMATCH" RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "^  dim-ordered H=1( +${_ms}){6} +${_nonzero_ms} .* baseline$"
                     ARGS bench step --n 16 --steps 4 --warmup 4 --reps 1 --bc neumann dirichlet periodic)
miniapp_add_cli_test(NAME bad_bench_step_bc RANKS 1 EXIT 2 ONCE
                     REGEX "--bc: sideways not in \\{periodic,dirichlet,neumann\\}"
                     ARGS bench step --n 16 --bc periodic sideways periodic)
miniapp_add_cli_test(NAME bad_bench_step_steps RANKS 1 EXIT 2 ONCE
                     REGEX "--steps 6 and --warmup 4 must be multiples of every --widths value \\(got 4\\)"
                     ARGS bench step --n 16 --steps 6)
# --halo-width auto: a start-up calibration chooses H, blocking and tile; any choice reaches the
# H = 1 digest bit for bit (an --expect-digest mismatch would exit 1). --halo faces allows H = 1
# only, so there the choice is known.
miniapp_add_cli_test(NAME halo_width_auto_digest RANKS 2 EXIT 0
                     REGEX "^halo width auto: chose H=[0-9]+, temporal blocking (on, tile [0-9]+x[0-9]+x[0-9]+|off) \\(predicted [0-9.]+e\\+[0-9]+ vs plain [0-9.]+e\\+[0-9]+ cell upd/s"
                     ARGS --grid 16 16 16 --steps 20 --warmup 7 --init sine --halo-width auto
                          --expect-digest 5B466E1AFB158183)
# A block whose automatic tile (rings in the L2) is shorter than the wide one (in the L3): the
# calibration times both at each width and names the faster; either reaches the H = 1 digest.
miniapp_add_cli_test(NAME halo_width_auto_wide_tile RANKS 1 EXIT 0
                     REGEX "H=[2-8] blocked timed [0-9.]+e\\+[0-9]+ \\(tile 256x[0-9]+x32; 256x[0-9]+x32 [0-9.]+e\\+[0-9]+\\)"
                     ARGS --grid 256 256 32 --steps 8 --warmup 4 --init sine --halo-width auto
                          --expect-digest 25330bd6748c35a9)
miniapp_add_cli_test(NAME halo_width_auto_toml RANKS 2 EXIT 0
                     REGEX "^  halo          dim-ordered \\(pack kernel\\), width [0-9]+ \\(auto\\)"
                     ARGS --config ${CMAKE_CURRENT_SOURCE_DIR}/data/halo_width_auto.toml
                          --expect-digest 0c5d9ac7bbad12c7)
miniapp_add_cli_test(NAME halo_width_auto_faces RANKS 2 EXIT 0
                     REGEX "^halo width auto: chose H=1, temporal blocking off"
                     ARGS --grid 16 16 16 --steps 20 --init sine --halo faces --halo-width auto
                          --expect-digest 5B466E1AFB158183)
miniapp_add_cli_test(NAME bad_halo_width_word EXIT 2 ONCE
                     REGEX "--halo-width: autox is not 'auto' or a decimal integer"
                     ARGS --grid 8 8 8 --halo-width autox)
miniapp_add_cli_test(NAME bad_halo_width_auto_blocking EXIT 2 ONCE
                     REGEX "--halo-width auto chooses --temporal-blocking and --tile itself"
                     ARGS --grid 8 8 8 --halo-width auto --temporal-blocking)
miniapp_add_cli_test(NAME verify_27_point RANKS 2 EXIT 0 REGEX "VERIFICATION PASSED"
                     ARGS --grid 16 12 8 --init sine --sine-mode 1 2 1 --stencil 27 --dt 0.3
                          --steps 20 --verify --halo neighbor-coll --halo-width 2)

# ---- Hostile input: bounds, non-finite values, empty and long strings, odd files.
# Each is rejected by rank 0 with exit 2 before anything is allocated or written.
# Integers beyond their type: CLI11 refuses the conversion.
miniapp_add_cli_test(NAME bad_grid_beyond_int EXIT 2 ONCE REGEX "--grid.*4000000000"
                     ARGS --grid 4000000000 4000000000 4000000000)
# Each dimension fits an int but the cell count (8e27) overflows 64 bits: the memory estimate,
# computed in double, refuses it.
miniapp_add_cli_test(NAME bad_grid_product_overflow EXIT 2 ONCE REGEX "needs about .* GB per rank"
                     ARGS --grid 2000000000 2000000000 2000000000)
miniapp_add_cli_test(NAME bad_grid_int_max EXIT 2 ONCE
                     REGEX "--grid: NX=2147483647 plus 2 x --halo-width 1 exceeds 2147483647"
                     ARGS --grid 2147483647 1 1)
miniapp_add_cli_test(NAME bad_steps_1e30 EXIT 2 ONCE REGEX "--steps.*1e30" ARGS --steps 1e30)
miniapp_add_cli_test(NAME bad_steps_negative EXIT 2 ONCE REGEX "--steps=-1 must be >= 0"
                     ARGS --steps -1)
# CLI11 2.1 saturated this to 2^63-1 (a run that never ends) before fits_64_bits refused it.
miniapp_add_cli_test(NAME bad_steps_2p63 EXIT 2 ONCE TIMEOUT 120
                     REGEX "--steps: 9223372036854775808 does not fit a 64-bit integer"
                     ARGS --steps 9223372036854775808)
# Integers are decimal: CLI11 2.1 read "--grid 010" as 8 (octal) and "0x10" as 16.
miniapp_add_cli_test(NAME grid_leading_zero EXIT 0 REGEX "^  grid          10 x 8 x 8 cells"
                     ARGS --grid 010 08 8 --steps 1)
miniapp_add_cli_test(NAME bad_steps_hex EXIT 2 ONCE REGEX "--steps: 0x10 is not a decimal integer"
                     ARGS --grid 8 8 8 --steps 0x10)
# A step count that fits 64 bits but no lifetime (an overflowed script variable) is refused
# before anything runs; --max-steps raises the bound.
miniapp_add_cli_test(NAME bad_steps_absurd EXIT 2 ONCE
                     REGEX "--steps=4611686018427387904 is above --max-steps=1000000000, a sanity bound .* it would run for 146[0-9.]+ years\\); give --max-steps 4611686018427387904"
                     ARGS --grid 8 8 8 --steps 4611686018427387904)
miniapp_add_cli_test(NAME bad_steps_above_max EXIT 2 ONCE REGEX "--steps=3 is above --max-steps=2"
                     ARGS --grid 8 8 8 --steps 3 --max-steps 2)
miniapp_add_cli_test(NAME max_steps_raised EXIT 0 REGEX "RESULT NOT VALIDATED"
                     ARGS --grid 8 8 8 --steps 3 --max-steps 3)
miniapp_add_cli_test(NAME bad_checkpoint_every_huge EXIT 2 ONCE TIMEOUT 120
                     REGEX "--checkpoint-every: -99999999999999999999 does not fit a 64-bit integer"
                     ARGS --checkpoint-every -99999999999999999999)
# ... and wrapped a negative unsigned seed to 2^64-1.
miniapp_add_cli_test(NAME bad_seed_negative EXIT 2 ONCE REGEX "--seed: -1 must not be negative"
                     ARGS --seed -1)
miniapp_add_cli_test(NAME bad_halo_width_huge EXIT 2 ONCE
                     REGEX "NX=8 plus 2 x --halo-width 2000000000 exceeds"
                     ARGS --grid 8 8 8 --halo-width 2000000000)
# Fixed rank factors whose product overflows 64 bits.
miniapp_add_cli_test(NAME bad_ranks_product_overflow EXIT 2 ONCE
                     REGEX "product 8[.0-9]*e\\+27 differs from the 2 MPI ranks"
                     ARGS --ranks 2000000000 2000000000 2000000000)
# 4 x 10^9 overflowed int: the check passed and a later one gave a vaguer message.
miniapp_add_cli_test(NAME bad_ranks_times_halo RANKS 4 EXIT 2 ONCE
                     REGEX "NX=8 has fewer cells than 4 ranks x halo width 1000000000"
                     ARGS --grid 8 8 8 --ranks 4 1 1 --halo-width 1000000000)
# NaN and infinity in every floating-point option, on the command line and in TOML.
miniapp_add_cli_test(NAME bad_dt_nan EXIT 2 ONCE REGEX "--dt=(-?nan|.*nan.*) must be finite"
                     ARGS --dt nan)
miniapp_add_cli_test(NAME bad_dt_1e309 EXIT 2 ONCE REGEX "--dt.*(inf|1e309)" ARGS --dt 1e309)
miniapp_add_cli_test(NAME bad_kappa_inf EXIT 2 ONCE REGEX "--kappa: KX=inf must be finite"
                     ARGS --kappa inf 1 1)
miniapp_add_cli_test(NAME bad_bc_value_nan EXIT 2 ONCE REGEX "--bc-value=-?nan must be finite"
                     ARGS --bc-value nan)
# --tile takes three extents or the word wide alone; a negative extent is refused, not read as
# the wide tile's stand-in.
miniapp_add_cli_test(NAME bad_tile_wide_and_extents EXIT 2 ONCE
                     REGEX "--tile: give three extents TX TY TZ \\(0 = automatic\\) or the word wide alone"
                     ARGS --temporal-blocking --halo-width 2 --tile wide 8)
miniapp_add_cli_test(NAME bad_tile_negative EXIT 2 ONCE
                     REGEX "--tile: -1 must be >= 0 \\(0 = automatic\\)"
                     ARGS --temporal-blocking --halo-width 2 --tile -1 -1 -1)
miniapp_add_cli_test(NAME bad_spacing_zero EXIT 2 ONCE REGEX "--spacing: DX=0 must be finite and > 0"
                     ARGS --spacing 0 1 1)
miniapp_add_cli_test(NAME bad_spacing_inf EXIT 2 ONCE REGEX "--spacing: DZ=inf must be finite"
                     ARGS --spacing 1 1 inf)
miniapp_add_cli_test(NAME bad_progress_nan EXIT 2 ONCE REGEX "--progress=-?nan must be"
                     ARGS --progress nan)
miniapp_add_cli_test(NAME bad_toml_kappa_inf EXIT 2 ONCE REGEX "--kappa: KY=inf must be finite"
                     ARGS --config ${CMAKE_CURRENT_SOURCE_DIR}/data/nonfinite.toml)
miniapp_add_cli_test(NAME bad_toml_nan EXIT 2 ONCE REGEX "--dt=-?nan must be finite"
                     ARGS --config ${CMAKE_CURRENT_SOURCE_DIR}/data/nonfinite.toml --kappa 1 1 1)
# Empty strings (@EMPTY@: expect_exit.sh passes an empty argument, which CMake lists cannot).
miniapp_add_cli_test(NAME bad_checkpoint_dir_empty EXIT 2 ONCE REGEX "--checkpoint-dir must not be empty"
                     ARGS --grid 8 8 8 --checkpoint-dir @EMPTY@)
miniapp_add_cli_test(NAME bad_report_empty EXIT 2 ONCE REGEX "--report must not be empty"
                     ARGS --grid 8 8 8 --report @EMPTY@)
miniapp_add_cli_test(NAME bad_config_empty EXIT 2 ONCE REGEX "--config: the file name is empty"
                     ARGS --config @EMPTY@)
miniapp_add_cli_test(NAME bad_restart_empty EXIT 2 ONCE REGEX "--restart must not be empty"
                     ARGS --grid 8 8 8 --restart @EMPTY@)
miniapp_add_cli_test(NAME bad_spectrum_file_empty EXIT 2 ONCE REGEX "--spectrum-file must not be empty"
                     ARGS --grid 8 8 8 --spectrum-file @EMPTY@)
# '--opt=' gives CLI11 no value at all.
miniapp_add_cli_test(NAME bad_report_no_value EXIT 2 ONCE REGEX "--report: 1 required TEXT missing"
                     ARGS --grid 8 8 8 --report=)
# Very long paths (5000 characters).
string(REPEAT x 5000 long_name)
miniapp_add_cli_test(NAME bad_config_long_path EXIT 2 ONCE REGEX "--config /tmp/xxx.*: File name too long"
                     ARGS --config /tmp/${long_name}.toml)
miniapp_add_cli_test(NAME bad_report_long_path EXIT 2 ONCE REGEX "directory /tmp/xxx.* does not exist"
                     ARGS --grid 8 8 8 --steps 1 --report /tmp/${long_name}/r.json)
miniapp_add_cli_test(NAME bad_checkpoint_dir_long_path EXIT 2 ONCE REGEX "--checkpoint-dir /tmp/xxx.*"
                     ARGS --grid 8 8 8 --steps 1 --checkpoint-every 1
                          --checkpoint-dir /tmp/${long_name})
# A --config that is not a readable regular file: a directory (would read as empty), a FIFO
# (opening it would block until a writer comes: the ctest timeout catches a hang), a file that
# even root cannot read.
miniapp_add_cli_test(NAME bad_config_directory EXIT 2 ONCE REGEX "--config .*/data: is a directory"
                     ARGS --config ${CMAKE_CURRENT_SOURCE_DIR}/data)
add_test(NAME cli.config_fifo_setup
         COMMAND bash -c "rm -f config.fifo && mkfifo config.fifo"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.config_fifo_setup PROPERTIES FIXTURES_SETUP config_fifo LABELS cli)
miniapp_add_cli_test(NAME bad_config_fifo EXIT 2 ONCE TIMEOUT 120
                     REGEX "--config .*config.fifo: is not a regular file"
                     ARGS --config ${CMAKE_CURRENT_BINARY_DIR}/config.fifo)
set_tests_properties(cli.bad_config_fifo PROPERTIES FIXTURES_REQUIRED config_fifo)
if(EXISTS /proc/sys/vm/compact_memory)  # mode 0200: write-only, for root too
  miniapp_add_cli_test(NAME bad_config_unreadable EXIT 2 ONCE
                       REGEX "--config /proc/sys/vm/compact_memory: cannot read: Permission denied"
                       ARGS --config /proc/sys/vm/compact_memory)
endif()

# The sanitizer stage (scripts/test-sanitizers.sh, label sanitize; with unit.np1/np2 and
# fuzz_config) runs these, all at <= 2 ranks: the run paths (verify and the JSON report, a TOML
# input with warm-up, progress lines, the spectral check with the 7- and 27-point stencils and
# deep halos) and the refusals that used to hang, wrap or overflow. A test at 2 ranks costs a few
# seconds under ASan (MPI start-up allocates a lot), so this is a selection, not every CLI test.
set_property(TEST cli.result_valid_verify cli.input_small cli.progress_lines
                  cli.spectral_check_np2 cli.spectral_check_27pt_np2 cli.verify_27_point
                  cli.bad_too_large cli.bad_missing_toml cli.bad_malformed_toml
                  cli.bad_grid_product_overflow cli.bad_grid_int_max cli.bad_steps_2p63
                  cli.bad_seed_negative cli.bad_halo_width_huge cli.bad_ranks_product_overflow
                  cli.bad_toml_nan cli.bad_report_empty cli.bad_config_directory
                  cli.bad_config_fifo cli.bad_config_long_path
             APPEND PROPERTY LABELS sanitize)

# ---- The explain view and the tuner: the plans the run executes, printed before it (or
# instead of it), for any rank count; and the fastest settings written as a TOML input.
# The original 2D design note's 4x4 case seen from rank 5, explained by one process.
miniapp_add_cli_test(NAME explain_design_note ABSENT "RESULT|binding|memory estimate" RANKS 1 EXIT 0
                     REGEX "rank 5 at \\(1,1,0\\) owns .256,512\\) x .256,512\\) x .0,1\\).*2 phase\\(s\\), 4 messages, 8224 B per exchange.*phase 1 \\(y\\):\n      y- to rank 4: 258 x 1 x 1 cells"
                     ARGS --grid 1024 1024 1 --ranks 4 4 1 --explain-only --explain-ranks 16
                          --explain-rank 5)
# --explain then runs: the bytes per step it explains are those the run reports.
miniapp_add_cli_test(NAME explain_then_run EXIT 0
                     REGEX "26 messages, 13824 B \\(13.5 KiB\\) per exchange; per step 13 messages, 6912 B.*redundant work.*6912/6912/6912 B per step.*RESULT NOT VALIDATED"
                     ARGS --grid 16 12 10 --halo-width 2 --steps 4 --explain --stencil 27
                          --halo neighbors26)
# The automatic tile explained is the one the run blocks with, for its threads (two here:
# the chains are shared out between them, so the tile differs from one thread's).
miniapp_add_cli_test(NAME explain_tile_for_threads RANKS 1 EXIT 0
                     REGEX "tile 128 x 52 x 64 \\(automatic\\), 2 tile.*tile 128 x 52 x 64 owned cells"
                     ARGS --grid 128 96 64 --halo-width 4 --temporal-blocking --steps 4 --explain
                          --kokkos-threads=2)
# --tile wide names the tile --halo-width auto times beside the automatic one (rings in the L3):
# the explain view and the run resolve the same tile, and the run reaches the H = 1 digest.
miniapp_add_cli_test(NAME explain_tile_wide RANKS 1 EXIT 0
                     REGEX "tile 256 x 100 x 32 \\(wide: rings in the L3\\), 3 tile.*tile 256 x 100 x 32 owned cells.*RESULT VALID"
                     ARGS --grid 256 256 32 --steps 8 --warmup 4 --init sine --halo-width 6
                          --temporal-blocking --tile wide --explain --kokkos-threads=2
                          --expect-digest 25330bd6748c35a9)
# With temporal blocking, x periodic over one rank and tiles that span x, each round's last
# sub-step stores the x faces: the explain view says so and the run counts them; tiles narrower
# than x leave them to the exchange's copy, and neither says otherwise.
miniapp_add_cli_test(NAME explain_x_faces_blocked RANKS 2 EXIT 0 TIMEOUT 120
                     REGEX "x- to itself: 2 x 24 x 16 cells \\(6144 B\\), tag [0-9]+. stored by each round's last sub-step as it writes each line \\(its tiles span x\\).*of which the x faces, [1-9][0-9]*/"
                     ARGS --grid 32 24 32 --ranks 1 1 2 --halo-width 2 --temporal-blocking
                          --steps 8 --explain)
miniapp_add_cli_test(NAME explain_x_faces_narrow_tiles RANKS 2 EXIT 0 TIMEOUT 120
                     ABSENT "stored by"
                     REGEX "x- to itself: 2 x 24 x 16 cells \\(6144 B\\), tag [0-9]+. copied from the field to its ghosts \\(no buffer, no MPI\\).*RESULT"
                     ARGS --grid 32 24 32 --ranks 1 1 2 --halo-width 2 --temporal-blocking
                          --tile 16 8 8 --steps 8 --explain)
# The r2c chain (the default): real cells up to the x transform, the NX/2+1 = 7 half grid after.
miniapp_add_cli_test(NAME explain_spectral RANKS 1 EXIT 0
                     REGEX "x-pencils: 12 x 3 x 9 real, 1D FFTs along x \\(r2c: 7 x 3 x 9 complex out\\)\n        -> all-to-all along x among 2 ranks.*blocks sent: \\(kept\\) 4 x 3 x 9, 3 x 3 x 9"
                     ARGS --grid 12 10 9 --spectral-check --explain-only --explain-ranks 4)
miniapp_add_cli_test(NAME explain_spectral_c2c RANKS 1 EXIT 0
                     REGEX "blocks = z-pencils: 6 x 5 x 9 complex, 1D FFTs along z\n        -> all-to-all along x among 2 ranks.*blocks sent: \\(kept\\) 6 x 5 x 5, 6 x 5 x 4"
                     ARGS --grid 12 10 9 --spectral-check --fft c2c --explain-only --explain-ranks 4)
miniapp_add_cli_test(NAME bad_explain_ranks EXIT 2 ONCE
                     REGEX "--explain-ranks explains a run on another number of ranks: it needs --explain-only"
                     ARGS --explain-ranks 4)
miniapp_add_cli_test(NAME bad_explain_rank EXIT 2 ONCE
                     REGEX "--explain-rank=4 is not a rank of a run on 4 ranks"
                     ARGS --explain-only --explain-ranks 4 --explain-rank 4)
