#include "affinity.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "mpi_utils.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

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

std::vector<std::vector<int>> thread_cpus(int threads) {
#ifdef _OPENMP
  std::vector<std::vector<int>> all(static_cast<std::size_t>(std::max(threads, 1)));
#pragma omp parallel num_threads(int(all.size()))
  {
    const std::size_t t = std::size_t(omp_get_thread_num());
    if (t < all.size()) all[t] = current_cpus();
  }
  return all;
#else
  (void)threads;
  return {current_cpus()};
#endif
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

std::vector<int> parse_cpu_list(const std::string& list) {
  std::vector<int> cpus;
  std::istringstream in(list);
  std::string range;
  while (std::getline(in, range, ',')) {
    if (range.empty()) continue;
    const auto dash = range.find('-');
    const int lo = std::stoi(range.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(range.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

namespace {

/// Every rank's string, on rank 0 (empty elsewhere). Collective.
std::vector<std::string> gather_strings(const std::string& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = int(mine.size());
  std::vector<int> counts(rank == 0 ? size : 0), offsets(size + 1, 0);
  mpi_check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  if (rank == 0)
    for (int r = 0; r < size; ++r) offsets[r + 1] = offsets[r] + counts[r];
  std::vector<char> all(rank == 0 ? std::max(offsets[size], 1) : 0);
  mpi_check(MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), offsets.data(),
                        MPI_CHAR, 0, comm),
            "MPI_Gatherv");
  std::vector<std::string> out;
  for (int r = 0; rank == 0 && r < size; ++r)
    out.emplace_back(all.data() + offsets[r], std::size_t(counts[r]));
  return out;
}

}  // namespace

std::vector<RankBinding> gather_bindings(MPI_Comm comm, int threads) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  // One line per rank: "host/cpus/thread0-cpus|thread1-cpus|..." (lists may be empty).
  std::vector<int> all_cpus;
  std::string per_thread_lists;
  for (const std::vector<int>& t : thread_cpus(threads)) {
    all_cpus.insert(all_cpus.end(), t.begin(), t.end());
    per_thread_lists += (per_thread_lists.empty() ? "" : "|") + cpu_list_string(t);
  }
  std::sort(all_cpus.begin(), all_cpus.end());
  all_cpus.erase(std::unique(all_cpus.begin(), all_cpus.end()), all_cpus.end());
  const std::vector<std::string> lines = gather_strings(
      std::string(host) + "/" + cpu_list_string(all_cpus) + "/" + per_thread_lists, comm);

  std::vector<RankBinding> bindings(lines.size());
  for (std::size_t r = 0; r < lines.size(); ++r) {
    std::istringstream in(lines[r]);
    std::string cpus, per_thread, t;
    std::getline(in, bindings[r].host, '/');
    std::getline(in, cpus, '/');
    std::getline(in, per_thread);
    bindings[r].rank = int(r);
    bindings[r].cpus = parse_cpu_list(cpus);
    std::istringstream threads_in(per_thread);
    while (std::getline(threads_in, t, '|')) bindings[r].thread_cpus.push_back(parse_cpu_list(t));
  }
  return bindings;
}

int count_nodes(MPI_Comm comm) {
  int leader = place_on_node(comm).rank == 0 ? 1 : 0, nodes = 0;
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
    bool may_migrate = b.thread_cpus.empty() && b.cpus.size() > 1;
    for (const std::vector<int>& t : b.thread_cpus) may_migrate |= t.size() > 1;
    if ((bind.empty() || bind == "false") && may_migrate) unbound.push_back(b.rank);
    if (!b.cpus.empty() && std::size_t(threads) > b.cpus.size()) oversubscribed.push_back(b.rank);
  }
  if (!unbound.empty())
    warnings.push_back(std::string("threads are unbound (OMP_PROC_BIND is ") +
                       (bind.empty() ? "unset" : "false") + ") on rank(s) " + rank_list(unbound) +
                       " whose threads may each run on several CPUs: set OMP_PROC_BIND=spread "
                       "OMP_PLACES=threads");
  if (!oversubscribed.empty())
    warnings.push_back(std::to_string(threads) + " threads per rank but fewer CPUs in the " +
                       "mask of rank(s) " + rank_list(oversubscribed) + ": threads share cores");
  return warnings;
}

void print_bindings(std::ostream& os, const std::vector<RankBinding>& bindings,
                    const std::vector<std::string>& warnings, std::size_t max_lines) {
  os << "binding (OS affinity mask per rank)\n";
  for (std::size_t i = 0; i < bindings.size() && i < max_lines; ++i) {
    os << "  rank " << bindings[i].rank << "  host " << bindings[i].host << "  cpus "
       << cpu_list_string(bindings[i].cpus) << "  threads";
    for (std::size_t t = 0; t < bindings[i].thread_cpus.size(); ++t)
      os << (t ? "|" : " ") << cpu_list_string(bindings[i].thread_cpus[t]);
    os << "\n";
  }
  if (bindings.size() > max_lines)
    os << "  ... " << bindings.size() - max_lines << " more ranks (all in the JSON report)\n";
  for (const std::string& w : warnings) os << "warning: " << w << "\n";
}

}  // namespace miniapp
