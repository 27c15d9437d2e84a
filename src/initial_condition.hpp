// Initial fields, each a pure function of the global cell (x, y, z) so every decomposition
// starts from the same values:
//
//   random    u0 = (splitmix64(seed ^ g) >> 11) * 2^-53,  g = x + NX*(y + NY*z)
//   sine      u0 = prod_d cos(2 pi k_d x_d / N_d)  (one Fourier mode, wavenumbers --sine-mode)
//   gaussian  u0 = exp(-1/2 sum_d ((x_d + 1/2 - N_d/2) / s_d)^2),  s_d = N_d / 8 cells
//
// The sine mode is an eigenvector of the periodic scheme: each step multiplies it by
//   g = 1 - 4 * sum_d a_d sin^2(pi k_d / N_d).
#pragma once

#include <cmath>
#include <cstdint>

#include "field.hpp"
#include "names.hpp"
#include "numerics.hpp"

namespace miniapp {

enum class InitKind { Random, Sine, Gaussian };
inline constexpr NameTable<InitKind, 3> kInitNames{
    {{InitKind::Random, "random"}, {InitKind::Sine, "sine"}, {InitKind::Gaussian, "gaussian"}}};
inline const char* to_string(InitKind k) { return name_of(kInitNames, k); }

/// Value of the initial field at global cell (x, y, z). Host and device.
struct InitialCondition {
  InitKind kind = InitKind::Random;
  std::uint64_t seed = 0;
  Index3 grid{1, 1, 1};
  Index3 mode{1, 1, 1};

  KOKKOS_INLINE_FUNCTION double operator()(int x, int y, int z) const {
    const std::uint64_t g =
        std::uint64_t(x) + std::uint64_t(grid[0]) * (std::uint64_t(y) + std::uint64_t(grid[1]) * z);
    switch (kind) {
      case InitKind::Random:
        return unit_double(splitmix64(seed ^ g));
      case InitKind::Sine: {
        constexpr double two_pi = 6.283185307179586476925286766559;
        return std::cos(two_pi * mode[0] * x / grid[0]) * std::cos(two_pi * mode[1] * y / grid[1]) *
               std::cos(two_pi * mode[2] * z / grid[2]);
      }
      case InitKind::Gaussian: {
        const double r0 = (x + 0.5 - 0.5 * grid[0]) / (grid[0] / 8.0);
        const double r1 = (y + 0.5 - 0.5 * grid[1]) / (grid[1] / 8.0);
        const double r2 = (z + 0.5 - 0.5 * grid[2]) / (grid[2] / 8.0);
        return std::exp(-0.5 * (r0 * r0 + r1 * r1 + r2 * r2));
      }
    }
    return 0.0;
  }

  /// Per-step amplification factor of the sine mode under the 7-point scheme.
  double sine_growth(const Coefficients& a) const;
  /// Per-step amplification factor of the sine mode under the `stencil`-point scheme (7 or
  /// 27): 1 - 4 sum_d a_d x_d (27-point: times (1 - x_e/3)(1 - x_f/3)), x_d = sin^2(pi k_d/N_d).
  double sine_growth(const Coefficients& a, int stencil) const;
};

/// Zero every cell of u (ghosts included; this is also the first touch), then set the owned
/// cells from the initial condition. Fences.
void fill_initial(Field& u, const InitialCondition& ic);

/// Zero every cell of u, ghosts included (first touch with the kernels' thread mapping). Fences.
void fill_zero(Field& u);

}  // namespace miniapp
