#include "affinity.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "mpi_utils.hpp"

namespace miniapp {

std::vector<int> current_cpus() {
  std::vector<int> cpus;
  // Masks for machines with more than CPU_SETSIZE (1024) CPUs need a larger, dynamic set.
  for (int ncpu = CPU_SETSIZE; ncpu <= (1 << 16); ncpu *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpu);
    const std::size_t size = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      for (int c = 0; c < ncpu; ++c)
        if (CPU_ISSET_S(c, size, set)) cpus.push_back(c);
      CPU_FREE(set);
      return cpus;
    }
    CPU_FREE(set);
  }
  return cpus;  // unknown: empty
}

std::string cpu_list_string(const std::vector<int>& cpus) {
  std::ostringstream os;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (i > 0) os << ',';
    os << cpus[i];
    if (j > i) os << '-' << cpus[j];
    i = j + 1;
  }
  return os.str();
}

std::vector<RankBinding> gather_bindings(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char host[256] = {};
  gethostname(host, sizeof host - 1);

  // Each rank sends [ncpus, cpu...] as ints and its host name as chars.
  std::vector<int> mine = current_cpus();
  mine.insert(mine.begin(), int(mine.size()));
  const int nint = int(mine.size());
  const int nchar = int(std::string(host).size());
  std::vector<int> nints(rank == 0 ? size : 0), nchars(rank == 0 ? size : 0);
  mpi_check(MPI_Gather(&nint, 1, MPI_INT, nints.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  mpi_check(MPI_Gather(&nchar, 1, MPI_INT, nchars.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  std::vector<int> int_offsets(size + 1, 0), char_offsets(size + 1, 0);
  if (rank == 0)
    for (int r = 0; r < size; ++r) {
      int_offsets[r + 1] = int_offsets[r] + nints[r];
      char_offsets[r + 1] = char_offsets[r] + nchars[r];
    }
  std::vector<int> ints(rank == 0 ? int_offsets[size] : 0);
  std::vector<char> chars(rank == 0 ? std::max(char_offsets[size], 1) : 0);
  mpi_check(MPI_Gatherv(mine.data(), nint, MPI_INT, ints.data(), nints.data(), int_offsets.data(),
                        MPI_INT, 0, comm),
            "MPI_Gatherv");
  mpi_check(MPI_Gatherv(host, nchar, MPI_CHAR, chars.data(), nchars.data(), char_offsets.data(),
                        MPI_CHAR, 0, comm),
            "MPI_Gatherv");

  std::vector<RankBinding> all;
  if (rank != 0) return all;
  all.resize(size);
  for (int r = 0; r < size; ++r) {
    all[r].rank = r;
    all[r].host.assign(chars.data() + char_offsets[r], std::size_t(nchars[r]));
    const int* p = ints.data() + int_offsets[r];
    all[r].cpus.assign(p + 1, p + 1 + p[0]);
  }
  return all;
}

int count_nodes(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  int leader = node_rank == 0 ? 1 : 0, nodes = 0;
  mpi_check(MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  return nodes;
}

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// "0, 1, 2" for the first few ranks of a list, then "and N more".
std::string rank_list(const std::vector<int>& ranks) {
  std::ostringstream os;
  for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) os << (i ? ", " : "") << ranks[i];
  if (ranks.size() > 8) os << " and " << ranks.size() - 8 << " more";
  return os.str();
}

}  // namespace

std::vector<std::string> binding_warnings(const std::vector<RankBinding>& bindings, int threads,
                                          const std::string& omp_proc_bind) {
  std::vector<std::string> warnings;
  // Overlapping CPU sets on one host: the ranks compete for the same cores.
  std::map<std::string, std::vector<const RankBinding*>> by_host;
  for (const RankBinding& b : bindings) by_host[b.host].push_back(&b);
  for (const auto& [host, ranks] : by_host) {
    std::map<int, int> owner;  // cpu -> first rank that has it
    std::vector<int> sharing;
    for (const RankBinding* b : ranks) {
      bool shares = false;
      for (int c : b->cpus) {
        const auto [it, fresh] = owner.emplace(c, b->rank);
        if (!fresh) shares = true;
      }
      if (shares) sharing.push_back(b->rank);
    }
    if (!sharing.empty())
      warnings.push_back("ranks on host " + host + " share CPUs (rank(s) " + rank_list(sharing) +
                         " overlap an earlier rank's set): bind ranks to disjoint cores, e.g. "
                         "srun --cpu-bind=cores or mpiexec --bind-to core");
  }
  // Threads free to migrate: OpenMP does not pin them unless OMP_PROC_BIND says so.
  const std::string bind = lower(omp_proc_bind);
  std::vector<int> unbound, oversubscribed;
  for (const RankBinding& b : bindings) {
    if ((bind.empty() || bind == "false") && b.cpus.size() > 1) unbound.push_back(b.rank);
    if (!b.cpus.empty() && std::size_t(threads) > b.cpus.size()) oversubscribed.push_back(b.rank);
  }
  if (!unbound.empty())
    warnings.push_back(std::string("threads are unbound (OMP_PROC_BIND is ") +
                       (bind.empty() ? "unset" : "false") + ") on rank(s) " + rank_list(unbound) +
                       " whose mask has several CPUs: set OMP_PROC_BIND=spread OMP_PLACES=threads");
  if (!oversubscribed.empty())
    warnings.push_back(std::to_string(threads) + " threads per rank but fewer CPUs in the mask of "
                       "rank(s) " + rank_list(oversubscribed) + ": threads share cores");
  return warnings;
}

void print_bindings(std::ostream& os, const std::vector<RankBinding>& bindings,
                    const std::vector<std::string>& warnings, std::size_t max_lines) {
  os << "binding (OS affinity mask per rank)\n";
  for (std::size_t i = 0; i < bindings.size() && i < max_lines; ++i)
    os << "  rank " << bindings[i].rank << "  host " << bindings[i].host << "  cpus "
       << cpu_list_string(bindings[i].cpus) << "\n";
  if (bindings.size() > max_lines)
    os << "  ... " << bindings.size() - max_lines << " more ranks (all in the JSON report)\n";
  for (const std::string& w : warnings) os << "warning: " << w << "\n";
}

}  // namespace miniapp
