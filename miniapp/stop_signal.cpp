#include "stop_signal.hpp"

#include <signal.h>

#include <csignal>
#include <cstring>
#include <stdexcept>

#include "mpi_utils.hpp"

namespace miniapp {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void record_stop_signal(int signal) { g_stop_signal = signal; }

}  // namespace

void install_stop_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = record_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // system calls inside MPI or HDF5 carry on
  for (int s : {SIGTERM, SIGUSR1})
    if (sigaction(s, &sa, nullptr) != 0)
      throw std::runtime_error("sigaction(" + signal_name(s) + ") failed");
}

int stop_signal_received() { return g_stop_signal; }

std::string signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "signal " + std::to_string(signal);
  }
}

StopVote::StopVote(MPI_Comm comm) {
  mpi_check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  start();
}

StopVote::~StopVote() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // A nonblocking collective cannot be freed or cancelled: with one in flight the job is
  // ending through an error, so leave the request and its communicator to MPI_Abort.
  if (!finalized && request_ == MPI_REQUEST_NULL) MPI_Comm_free(&comm_);
}

void StopVote::start() {
  mine_ = g_stop_signal;
  mpi_check(MPI_Iallreduce(&mine_, &result_, 1, MPI_INT, MPI_MAX, comm_, &request_),
            "MPI_Iallreduce(stop vote)");
}

bool StopVote::poll() {
  if (agreed_ != 0) return true;
  mpi_check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait(stop vote)");
  if (result_ != 0) {
    agreed_ = result_;
    return true;
  }
  start();
  return false;
}

void StopVote::finish() {
  if (request_ != MPI_REQUEST_NULL)
    mpi_check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait(stop vote)");
}

}  // namespace miniapp
