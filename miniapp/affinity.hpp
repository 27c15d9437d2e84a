// CPU binding: which cores each rank's threads may run on (the OS affinity masks from
// sched_getaffinity, read by every OpenMP thread), gathered at start-up so wrong binding -- the
// commonest complaint on a new cluster -- is seen before the run, not guessed afterwards.
//
//   rank 0  host nid001  cpus 0-7   threads 0|1|...|7     rank 1 ... cpus 8-15     fine
//   rank 0  host nid001  cpus 0-15  threads 0-15|0-15     rank 1 ... cpus 0-15     warned
//
// A rank's CPUs are the union of its threads' masks: once OMP_PROC_BIND pins the threads, the
// main thread's own mask is only its place, not what the launcher gave the rank.
#pragma once

#include <mpi.h>

#include <ostream>
#include <string>
#include <vector>

namespace miniapp {

/// One rank's placement.
struct RankBinding {
  int rank = 0;
  std::string host;
  std::vector<int> cpus;                      ///< union of the threads' masks, ascending
  std::vector<std::vector<int>> thread_cpus;  ///< each OpenMP thread's mask (thread 0 first)
};

/// The CPUs the calling thread may run on (sched_getaffinity), ascending. Not collective.
std::vector<int> current_cpus();

/// The CPUs of each of `threads` OpenMP threads (the calling thread's alone when built without
/// OpenMP). Not collective; opens an OpenMP parallel region of `threads` threads, which reuses
/// the pool (and so the binding) of a Kokkos OpenMP space of that size.
std::vector<std::vector<int>> thread_cpus(int threads);

/// Compact CPU list in the kernel's notation: {0,1,2,3,8} -> "0-3,8". Not collective.
std::string cpu_list_string(const std::vector<int>& cpus);

/// Inverse of cpu_list_string: "0-3,8" -> {0,1,2,3,8}. Not collective.
std::vector<int> parse_cpu_list(const std::string& list);

/// Every rank's host and CPU lists (of `threads` threads per rank), gathered on rank 0 (empty
/// elsewhere). Collective.
std::vector<RankBinding> gather_bindings(MPI_Comm comm, int threads);

/// Number of nodes (shared-memory domains, MPI_COMM_TYPE_SHARED) spanned by comm, on every
/// rank. Collective.
int count_nodes(MPI_Comm comm);

/// Warnings about the placement: ranks on one host whose CPU sets overlap, threads left
/// unbound (OMP_PROC_BIND unset or false while a thread may use several CPUs), more threads
/// than CPUs. `omp_proc_bind` is the value of OMP_PROC_BIND ("" when unset). Not collective.
std::vector<std::string> binding_warnings(const std::vector<RankBinding>& bindings, int threads,
                                          const std::string& omp_proc_bind);

/// Print one line per rank (at most `max_lines`, then a count) and the warnings. Not collective.
void print_bindings(std::ostream& os, const std::vector<RankBinding>& bindings,
                    const std::vector<std::string>& warnings, std::size_t max_lines = 256);

}  // namespace miniapp
