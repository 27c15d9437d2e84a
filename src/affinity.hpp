// CPU binding: which cores each rank may run on (the OS affinity mask from sched_getaffinity),
// gathered at start-up so wrong binding -- the commonest complaint on a new cluster -- is seen
// before the run, not guessed afterwards.
//
//   rank 0  host nid001  cpus 0-7      rank 1  host nid001  cpus 8-15     fine
//   rank 0  host nid001  cpus 0-15     rank 1  host nid001  cpus 0-15     shared: warned
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
  std::vector<int> cpus;  ///< CPUs in the affinity mask, ascending
};

/// The CPUs this process may run on (sched_getaffinity), ascending. Not collective.
std::vector<int> current_cpus();

/// Compact CPU list in the kernel's notation: {0,1,2,3,8} -> "0-3,8". Not collective.
std::string cpu_list_string(const std::vector<int>& cpus);

/// Every rank's host and CPU list, gathered on rank 0 (empty elsewhere). Collective.
std::vector<RankBinding> gather_bindings(MPI_Comm comm);

/// Number of nodes (shared-memory domains, MPI_COMM_TYPE_SHARED) spanned by comm, on every
/// rank. Collective.
int count_nodes(MPI_Comm comm);

/// Warnings about the placement: ranks on one host whose CPU sets overlap, threads left
/// unbound (OMP_PROC_BIND unset or false while a rank may use several CPUs), more threads
/// than CPUs. `omp_proc_bind` is the value of OMP_PROC_BIND ("" when unset). Not collective.
std::vector<std::string> binding_warnings(const std::vector<RankBinding>& bindings, int threads,
                                          const std::string& omp_proc_bind);

/// Print one line per rank (at most `max_lines`, then a count) and the warnings. Not collective.
void print_bindings(std::ostream& os, const std::vector<RankBinding>& bindings,
                    const std::vector<std::string>& warnings, std::size_t max_lines = 256);

}  // namespace miniapp
