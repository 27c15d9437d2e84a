// Shared by the benchmark subcommands: option parsing with miniapp's exit conventions, and
// the median every benchmark reports (robust on a shared, noisy machine).
#include <algorithm>
#include <iostream>
#include <sstream>

#include "bench.hpp"

namespace miniapp::bench {

int parse_options(CLI::App& app, int argc, char** argv, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream os, es;
    const int rc = app.exit(e, os, es);
    if (rank == 0) {
      if (rc == 0)
        std::cout << os.str();
      else
        std::cerr << "miniapp: error: " << e.what() << "\n";
    }
    return rc == 0 ? 0 : 2;
  }
  return -1;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace miniapp::bench
