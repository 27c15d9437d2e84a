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
