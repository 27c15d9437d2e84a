# Runtime reliability: stop signals, fault injection, soak. Script tests (helpers from
# tests/CMakeLists.txt); labels scripts;reliability, the soak also soak.
# Stop signals: SIGTERM to one rank, SIGUSR1 via mpiexec, at random moments of the loop (restart
# equivalence) and during start-up (stop before the first step). The timeouts only catch hangs:
# about 15 launches, each of which may start seconds late on a slow node.
miniapp_add_script_test(NAME reliability.stop_signal SCRIPT stop_signal.sh TIMEOUT 420
                        LABELS reliability)
# Faults on one rank (MINIAPP_FAULT alloc, throw, io; SIGKILL) end the job, never hang.
miniapp_add_script_test(NAME reliability.fault_injection SCRIPT fault_injection.sh TIMEOUT 180
                        LABELS reliability)
# Soak: no memory growth, checkpoint pruning, digest (MINIAPP_SOAK_STEPS sets the length).
miniapp_add_script_test(NAME reliability.soak SCRIPT soak.sh TIMEOUT 300 LABELS reliability soak)
# A malformed MINIAPP_FAULT is bad input: one message from rank 0, exit 2.
foreach(bad "rank:1,step:5" "rank:1,step:5,kind:disk" "rank:x,step:5,kind:io"
            "rank:7,step:5,kind:io" "rank:1,step:50,kind:io" "rank:1;step:5;kind:io")
  string(MAKE_C_IDENTIFIER "${bad}" id)
  miniapp_add_cli_test(NAME bad_fault_${id} EXIT 2 ONCE REGEX "MINIAPP_FAULT=.*expected rank:R,step:S,kind:"
                       ARGS --grid 8 8 8 --steps 10)
  set_property(TEST cli.bad_fault_${id} APPEND PROPERTY ENVIRONMENT "MINIAPP_FAULT=${bad}")
endforeach()
# The batch-job recipe: SIGUSR1 to scripts/sweep.sh, then the same sweep again continues.
miniapp_add_script_test(NAME reliability.sweep_resume SCRIPT sweep_resume.sh TIMEOUT 300
                        LABELS reliability)
