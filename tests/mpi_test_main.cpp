// GoogleTest main for MPI tests: MPI + Kokkos initialised once; only rank 0 prints; a test
// fails when it fails on any rank (each test's verdict is reduced over MPI_COMM_WORLD).
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "mpi_utils.hpp"
#include "stream_copy.hpp"

namespace {

/// Reduce each test's result over all ranks, so a failure on rank 3 fails the test everywhere
/// and rank 0 reports it.
class MpiResultListener : public testing::EmptyTestEventListener {
  void OnTestEnd(const testing::TestInfo& info) override {
    int local_failed = info.result()->Failed() ? 1 : 0, any_failed = 0;
    MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (any_failed && !local_failed) ADD_FAILURE() << "failed on another rank (see its output)";
    (void)rank;
  }
};

}  // namespace

int main(int argc, char** argv) {
  miniapp::prefer_romio();  // as miniapp itself does (checkpoint round trips)
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  Kokkos::initialize(argc, argv);
  // As miniapp does, before any sweep (stream_copy.hpp).
  miniapp::set_threads_on_node(miniapp::place_on_node(MPI_COMM_WORLD).size *
                               Kokkos::DefaultExecutionSpace().concurrency());
  testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    // Other ranks print only their failures.
    delete listeners.Release(listeners.default_result_printer());
  }
  listeners.Append(new MpiResultListener);
  int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  Kokkos::finalize();
  MPI_Finalize();
  return any;
}
