# Command-line tests: the miniapp binary as a user meets it.
#
# miniapp_add_cli_test(NAME n RANKS r EXIT code REGEX re [ONCE] ARGS args...)
# runs `mpiexec -n r miniapp args...` and passes when it exits with `code` and its output
# matches `re` (ONCE: the error line is printed exactly once, by rank 0).
function(miniapp_add_cli_test)
  cmake_parse_arguments(T "ONCE" "NAME;RANKS;EXIT;REGEX;TIMEOUT" "ARGS;LABELS" ${ARGN})
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
miniapp_add_cli_test(NAME bad_too_large EXIT 2 ONCE REGEX "needs about .* GB per rank"
                     ARGS --grid 100000 100000 100000)
miniapp_add_cli_test(NAME help EXIT 0 REGEX "--grid.*global cells" ARGS --help RANKS 1)
miniapp_add_cli_test(NAME version EXIT 0 REGEX "miniapp ${PROJECT_VERSION}" ARGS --version RANKS 1)

# Halo exchange family (issue 3): bad input, and the seed's 2D byte counts from real runs.
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
miniapp_add_cli_test(NAME bad_unstable_27 EXIT 2 ONCE REGEX "unstable: the 27-point stability number"
                     ARGS --grid 8 8 8 --stencil 27 --dt 0.5)
miniapp_add_cli_test(NAME bad_2d_dirichlet_z EXIT 2 ONCE REGEX "NZ=1 runs as a 2D problem.*not dirichlet"
                     ARGS --grid 16 16 1 --bc periodic periodic dirichlet)
miniapp_add_cli_test(NAME seed_2d_4x4 RANKS 16 EXIT 0 TIMEOUT 120 REGEX "8224/8224/8224 B per step"
                     ARGS --grid 1024 1024 1 --ranks 4 4 1 --steps 1)
miniapp_add_cli_test(NAME seed_2d_16x1 RANKS 16 EXIT 0 TIMEOUT 120 REGEX "17440/17440/17440 B per step"
                     ARGS --grid 1024 1024 1 --ranks 16 1 1 --steps 1)
miniapp_add_cli_test(NAME seed_2d_4x4_deep RANKS 16 EXIT 0 TIMEOUT 120 REGEX "8448/8448/8448 B per step"
                     ARGS --grid 1024 1024 1 --ranks 4 4 1 --steps 8 --halo-width 8)
miniapp_add_cli_test(NAME bench_halo_smoke RANKS 2 EXIT 0 TIMEOUT 120 LABELS bench
                     REGEX "neighbor-coll +subarray +2 +on"
                     ARGS bench halo --n 8 --widths 1 2 --steps 2 --warmup 0 --reps 1)
miniapp_add_cli_test(NAME verify_27_point RANKS 2 EXIT 0 REGEX "VERIFICATION PASSED"
                     ARGS --grid 16 12 8 --init sine --sine-mode 1 2 1 --stencil 27 --dt 0.3
                          --steps 20 --verify --halo neighbor-coll --halo-width 2)
