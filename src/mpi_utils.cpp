#include "mpi_utils.hpp"

#include <unistd.h>

namespace miniapp {

NodePlace place_on_node(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  NodePlace p;
  MPI_Comm_rank(node, &p.rank);
  MPI_Comm_size(node, &p.size);
  MPI_Comm_free(&node);
  return p;
}

Stat reduce_stat(double value, MPI_Comm comm) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  Stat s;
  mpi_check(MPI_Allreduce(&value, &s.min, 1, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&value, &s.max, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&value, &s.avg, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  s.avg /= n;
  return s;
}

Agreement agree_on_error(const std::string& local, MPI_Comm comm, double grace_seconds) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int mine = local.empty() ? size : rank;
  int first = size;
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &request), "MPI_Iallreduce");
  if (local.empty()) {
    mpi_check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
  } else {
    const double deadline = MPI_Wtime() + grace_seconds;
    for (int done = 0; !done;) {
      mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done && MPI_Wtime() > deadline) return {false, ""};
      if (!done) ::usleep(1000);
    }
  }
  if (first == size) return {};
  int len = rank == first ? int(local.size()) : 0;
  mpi_check(MPI_Bcast(&len, 1, MPI_INT, first, comm), "MPI_Bcast");
  std::string text = rank == first ? local : std::string(std::size_t(len), ' ');
  mpi_check(MPI_Bcast(text.data(), len, MPI_CHAR, first, comm), "MPI_Bcast");
  return {true, "rank " + std::to_string(first) + ": " + text};
}

}  // namespace miniapp
