// The problem a run solves: the global grid, the physics (diffusivity, time step, cell size,
// boundaries), the scheme (7- or 27-point stencil) and the initial field. Everything that
// defines the answer, and nothing about how it is computed (rank grid, halo mode or width,
// threads): two runs of the same Problem give bit-identical fields.
#pragma once

#include <array>
#include <cstdint>

#include "boundary.hpp"
#include "box.hpp"
#include "initial_condition.hpp"
#include "numerics.hpp"

namespace miniapp {

struct Problem {
  Index3 grid{64, 64, 64};  ///< global cells NX NY NZ; NZ = 1 is a 2D problem
  std::array<Boundary, 3> bc{Boundary::Periodic, Boundary::Periodic, Boundary::Periodic};
  double bc_value = 0.0;                         ///< dirichlet ghost value
  std::array<double, 3> kappa{1.0, 1.0, 1.0};    ///< diffusivity per dimension [m^2/s]
  double dt = 0.1;                               ///< time step [s]
  std::array<double, 3> spacing{1.0, 1.0, 1.0};  ///< cell size per dimension [m]
  int stencil = 7;                               ///< 7 (star) or 27 (box) points
  InitKind init = InitKind::Random;
  std::uint64_t seed = 42;    ///< seed of the random initial field
  Index3 sine_mode{1, 1, 1};  ///< wavenumbers of the sine initial field

  /// NZ = 1 runs as a 2D problem: no z exchange, no z term.
  bool two_d() const { return grid[2] == 1; }
  /// a_d = (kappa_d * dt) / (dx_d * dx_d), evaluated in this order (the digests depend on it).
  Coefficients coefficients() const {
    return {kappa[0] * dt / (spacing[0] * spacing[0]), kappa[1] * dt / (spacing[1] * spacing[1]),
            kappa[2] * dt / (spacing[2] * spacing[2])};
  }
  /// Which dimensions wrap around (the torus of the decomposition).
  std::array<bool, 3> periodic() const {
    return {bc[0] == Boundary::Periodic, bc[1] == Boundary::Periodic, bc[2] == Boundary::Periodic};
  }
  /// The initial field as a function of the global cell.
  InitialCondition initial_condition() const { return {init, seed, grid, sine_mode}; }
};

}  // namespace miniapp
