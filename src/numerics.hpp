// The numerical contract of miniapp, in one header shared by the Kokkos kernels and the plain
// serial references in tests, so both evaluate literally the same expressions.
//
//   global cell (x, y, z), linear index g = x + NX*(y + NY*z)
//   random init       u0 = (splitmix64(seed ^ g) >> 11) * 2^-53
//   one 7-point step  v = c + ax*(w + e - 2*c) + ay*(s + n - 2*c) + az*(b + t - 2*c)
//                     (left to right; w/e = x-1/x+1, s/n = y-1/y+1, b/t = z-1/z+1)
//   a_d = kappa_d * dt / dx_d^2, stable when 2*(ax + ay + az) <= 1
//   digest            sum over cells of splitmix64(splitmix64(g) ^ bits(u)) mod 2^64
//
// The library is compiled with -ffp-contract=off: no fused multiply-adds, so a result
// computed anywhere with IEEE doubles and the same expression order is bit-identical.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>

namespace miniapp {

/// splitmix64 (Vigna's reference): one step of the generator's output function.
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Uniform double in [0, 1) from the top 53 bits of a 64-bit word.
KOKKOS_INLINE_FUNCTION constexpr double unit_double(std::uint64_t bits) {
  return double(bits >> 11) * 0x1.0p-53;
}

/// The bit pattern of a double.
KOKKOS_INLINE_FUNCTION std::uint64_t double_bits(double u) {
  std::uint64_t b;
  std::memcpy(&b, &u, sizeof b);
  return b;
}

/// One cell's contribution to the decomposition-independent field digest.
KOKKOS_INLINE_FUNCTION std::uint64_t digest_term(std::uint64_t g, double u) {
  return splitmix64(splitmix64(g) ^ double_bits(u));
}

/// Dimensionless diffusion numbers a_d = kappa_d * dt / dx_d^2.
struct Coefficients {
  double ax = 0, ay = 0, az = 0;
};

/// The 7-point update, one left-to-right expression (see the header comment).
KOKKOS_INLINE_FUNCTION double diffusion7(double c, double w, double e, double s, double n,
                                         double b, double t, double ax, double ay, double az) {
  return c + ax * (w + e - 2.0 * c) + ay * (s + n - 2.0 * c) + az * (b + t - 2.0 * c);
}

}  // namespace miniapp
