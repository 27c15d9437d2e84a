# Script tests: the local scaling sweep and its plots, and the Slurm templates.
add_test(NAME scripts.slurm_render COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm_render.sh)
set_tests_properties(scripts.slurm_render PROPERTIES LABELS "scripts" TIMEOUT 60)
if(MINIAPP_PYTHON_HAS_MATPLOTLIB)
  add_test(NAME scripts.sweep_and_plot
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_and_plot.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/sweep_results ${MINIAPP_PYTHON} ${MINIAPP_EXE}
                   ${MPIEXEC_EXECUTABLE} ${MINIAPP_MPIEXEC_FLAGS})
  set_tests_properties(scripts.sweep_and_plot PROPERTIES LABELS "scripts;python" TIMEOUT 120
                       PROCESSORS 2 ENVIRONMENT "${MINIAPP_TEST_ENV}")
else()
  message(STATUS "No Python with matplotlib: the sweep-and-plot test is skipped")
endif()
# The demo as a user runs it (scripts/run-demo.sh with the built binary): RESULT VALID, 2 PNGs.
if(MINIAPP_PYTHON_HAS_MATPLOTLIB AND MINIAPP_PYTHON_HAS_H5PY)
  add_test(NAME scripts.demo
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/demo.sh ${CMAKE_CURRENT_BINARY_DIR}/demo_out
                   ${MINIAPP_PYTHON} ${MINIAPP_EXE} ${MPIEXEC_EXECUTABLE})
  set_tests_properties(scripts.demo PROPERTIES LABELS "scripts;python" TIMEOUT 120 PROCESSORS 2
                       ENVIRONMENT "${MINIAPP_TEST_ENV}")
endif()
# The templates under a real Slurm on this machine (scripts/slurm-local.sh: munged, slurmctld,
# slurmd): run.sbatch, a two-point weak sweep, sweep.sh submitted itself, and a time-limited job
# that checkpoints, requeues and ends with the reference digest. Skipped (exit 77) only where
# Slurm is not installed or the test is not root; it takes the whole machine.
add_test(NAME scripts.slurm_real
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm_real.sh ${CMAKE_CURRENT_BINARY_DIR}/slurm_real
                 ${MINIAPP_EXE})
set_tests_properties(scripts.slurm_real PROPERTIES LABELS "scripts;slurm" TIMEOUT 360
                     PROCESSORS ${MINIAPP_NCORES} SKIP_RETURN_CODE 77
                     ENVIRONMENT "${MINIAPP_TEST_ENV}")
# install-deps.sh's deb-src entries follow the apt sources it is given (--show-deb-src).
add_test(NAME scripts.install_deb_src COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install_deb_src.sh)
set_tests_properties(scripts.install_deb_src PROPERTIES LABELS scripts TIMEOUT 60)
