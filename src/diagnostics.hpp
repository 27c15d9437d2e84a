// Field diagnostics: the decomposition-independent digest, sum, L2 norm and extrema, and
// the error against the exact solution of the sine mode.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "field.hpp"
#include "initial_condition.hpp"

namespace miniapp {

struct FieldSummary {
  std::uint64_t digest = 0;  ///< sum of digest_term(g, u) mod 2^64 over all cells
  double sum = 0;            ///< sum of u (rounding depends on the decomposition)
  double l2 = 0;             ///< sqrt(sum of u^2)
  double min = 0, max = 0;
  std::int64_t cells = 0;
};

/// Digest, sum, L2 norm and extrema of the owned cells of u over all ranks of comm.
/// Collective; fences.
FieldSummary summarize(const Field& u, const Index3& global, MPI_Comm comm);

/// Max over all cells of |u - amplitude * ic(x, y, z)|. Collective; fences.
double max_error(const Field& u, const InitialCondition& ic, double amplitude, MPI_Comm comm);

/// The digest as 16 lower-case hex digits.
std::string digest_hex(std::uint64_t digest);

}  // namespace miniapp
