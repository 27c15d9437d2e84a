#include "diagnostics.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "mpi_utils.hpp"

namespace miniapp {

namespace {
struct Partial {
  std::uint64_t digest;
  double sum, sq, min, max;
};
}  // namespace

FieldSummary summarize(const Field& u, const Index3& global, MPI_Comm comm) {
  const Box in = u.interior();
  const int nx = in.extent(0), ny = in.extent(1), h = u.halo();
  const Index3 lo = u.owned().lo;
  const double* p = u.data();
  const Field f = u;
  std::uint64_t dig = 0;
  double sum = 0, sq = 0, mn = INFINITY, mx = -INFINITY;
  const std::int64_t lines = std::int64_t(ny) * in.extent(2);
  Kokkos::parallel_reduce(
      "miniapp::diagnostics::summary", Kokkos::RangePolicy<Exec>(0, lines),
      KOKKOS_LAMBDA(const std::int64_t line, std::uint64_t& d, double& s, double& q, double& a,
                    double& b) {
        const int j = h + int(line % ny), k = h + int(line / ny);
        const std::uint64_t gy = std::uint64_t(lo[1] + j - h), gz = std::uint64_t(lo[2] + k - h);
        for (int i = h; i < h + nx; ++i) {
          const double v = p[f.index(i, j, k)];
          const std::uint64_t g =
              std::uint64_t(lo[0] + i - h) + std::uint64_t(global[0]) * (gy + global[1] * gz);
          d += digest_term(g, v);
          s += v;
          q += v * v;
          a = v < a ? v : a;
          b = v > b ? v : b;
        }
      },
      dig, sum, sq, Kokkos::Min<double>(mn), Kokkos::Max<double>(mx));
  Kokkos::fence();

  FieldSummary r;
  // Unsigned addition wraps modulo 2^64, so the digest does not depend on the reduction order.
  mpi_check(MPI_Allreduce(&dig, &r.digest, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
  double in_sums[2] = {sum, sq}, out_sums[2];
  mpi_check(MPI_Allreduce(in_sums, out_sums, 2, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&mn, &r.min, 1, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&mx, &r.max, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  r.sum = out_sums[0];
  r.l2 = std::sqrt(out_sums[1]);
  r.cells = std::int64_t(global[0]) * global[1] * global[2];
  return r;
}

double max_error(const Field& u, const InitialCondition& ic, double amplitude, MPI_Comm comm) {
  const Box in = u.interior();
  const int nx = in.extent(0), ny = in.extent(1), h = u.halo();
  const Index3 lo = u.owned().lo;
  const double* p = u.data();
  const Field f = u;
  double err = 0;
  Kokkos::parallel_reduce(
      "miniapp::diagnostics::error", Kokkos::RangePolicy<Exec>(0, std::int64_t(ny) * in.extent(2)),
      KOKKOS_LAMBDA(const std::int64_t line, double& e) {
        const int j = h + int(line % ny), k = h + int(line / ny);
        for (int i = h; i < h + nx; ++i) {
          const double exact = amplitude * ic(lo[0] + i - h, lo[1] + j - h, lo[2] + k - h);
          const double d = std::fabs(p[f.index(i, j, k)] - exact);
          e = d > e ? d : e;
        }
      },
      Kokkos::Max<double>(err));
  double global_err = 0;
  mpi_check(MPI_Allreduce(&err, &global_err, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return global_err;
}

std::string digest_hex(std::uint64_t digest) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(digest));
  return buf;
}

}  // namespace miniapp
