// Graceful stop on SIGTERM or SIGUSR1 (what Slurm sends before a time limit).
//
//   handler (any rank, any moment):  flag = signal number        (async-signal-safe, nothing else)
//   every round of the time loop:    wait for the vote started one round earlier:
//                                      max over ranks of the flags as they were then
//                                    nonzero -> every rank stops here (same vote, same answer)
//                                    zero    -> start the next vote (MPI_Iallreduce MAX of flag)
//
// A round is one step (H steps with --halo-width H, whose rounds are never split). The vote
// is nonblocking and started one round ahead, so its latency hides behind a round of stencil
// work; a signal seen by one rank stops every rank within two rounds. Then the driver writes a
// checkpoint, says how to continue, and exits 0 with the run marked INTERRUPTED.
//
// The handlers are installed first thing in main, before MPI and Kokkos start (which takes
// seconds on a slow node), so a signal during start-up is recorded too; the driver completes
// the first vote before the first round, and when it already says stop, the run ends there
// without a checkpoint (no step ran: there is nothing new to save).
#pragma once

#include <mpi.h>

#include <string>

namespace miniapp {

/// Install the SIGTERM and SIGUSR1 handlers (they only record the signal number): first thing
/// in main, and again after MPI and Kokkos are initialised in case either replaced them (a
/// signal recorded in between is kept). Not collective.
void install_stop_handlers();

/// The stop signal this rank has received so far, 0 when none. Not collective.
int stop_signal_received();

/// "SIGTERM", "SIGUSR1", or "signal N".
std::string signal_name(int signal);

/// The ranks' agreement on stopping, one nonblocking vote per round (see the header comment).
class StopVote {
 public:
  /// Duplicate comm and start the first vote. Collective.
  explicit StopVote(MPI_Comm comm);
  StopVote(const StopVote&) = delete;
  StopVote& operator=(const StopVote&) = delete;
  /// Frees the communicator; a vote still in flight is left alone (the job is ending).
  ~StopVote();

  /// Complete the vote in flight; when it says stop, return true (on every rank alike), else
  /// start the next one and return false. Collective: every rank calls it at the same rounds.
  bool poll();
  /// Complete the vote in flight, if any, without acting on it (end of a finished run).
  /// Collective.
  void finish();
  /// The agreed signal (the largest signal number any rank had), 0 while none was agreed.
  int signal() const { return agreed_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Request request_ = MPI_REQUEST_NULL;
  int mine_ = 0, result_ = 0, agreed_ = 0;
  void start();
};

}  // namespace miniapp
