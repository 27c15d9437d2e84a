// The numerical contract of miniapp, in one header shared by the Kokkos kernels and the plain
// serial references in tests, so both evaluate literally the same expressions.
//
//   global cell (x, y, z), linear index g = x + NX*(y + NY*z)
//   random init       u0 = (splitmix64(seed ^ g) >> 11) * 2^-53
//   one 7-point step  v = c + ax*(w + e - 2*c) + ay*(s + n - 2*c) + az*(b + t - 2*c)
//                     (left to right; w/e = x-1/x+1, s/n = y-1/y+1, b/t = z-1/z+1)
//   a_d = kappa_d * dt / dx_d^2, stable when 2*(ax + ay + az) <= 1
//   one 27-point step (box stencil, see diffusion27 below)
//                     v = c + ax*Lx + ay*Ly + az*Lz,  Lx = sum_{dy,dz} s(dy)s(dz) Dx(dy,dz)/144
//                     Dx(dy,dz) = u(-1,dy,dz) + u(1,dy,dz) - 2*u(0,dy,dz),  s(0)=10, s(+-1)=1
//                     isotropic weights (a/48): centre -200, face 20, edge 6, corner 1
//                     evaluated as one-dimensional passes (smoothing S_d, second difference
//                     D_d): Lx = D_x S_y S_z u, Ly = S_x D_y S_z u, Lz = S_x S_y D_z u, /144,
//                     the pass along x shared by the three terms (see diffusion27)
//   its stability:    max over x in [0,1]^3 of sum_d 2*a_d*x_d*(1-x_e/3)*(1-x_f/3) <= 1
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
KOKKOS_INLINE_FUNCTION double diffusion7(double c, double w, double e, double s, double n, double b,
                                         double t, double ax, double ay, double az) {
  return c + ax * (w + e - 2.0 * c) + ay * (s + n - 2.0 * c) + az * (b + t - 2.0 * c);
}

/// The two one-dimensional operators the 27-point update is made of, on a cell's neighbours
/// m (at -1), c (at 0) and p (at +1) along one dimension, left to right: the second difference
/// m + p - 2c and the smoothing m + p + 10c (the weights s = [1 10 1], normalised once at the
/// end by 1/144). Both begin with m + p, so a pass that makes both adds three times, not four.
KOKKOS_INLINE_FUNCTION double second_difference(double m, double c, double p) {
  return m + p - 2.0 * c;
}
KOKKOS_INLINE_FUNCTION double smoothing(double m, double c, double p) { return m + p + 10.0 * c; }

/// The 27-point (box) update v = c + ax*Lx + ay*Ly + az*Lz, L_d the second difference along d
/// smoothed by s = [1 10 1]/12 in both other dimensions. Separable, so it is evaluated as
/// passes along one dimension each, in this order:
///   Z  = S_z u,  Dz = D_z u                  (per cell of the rows j-1..j+1)
///   YZ = S_y Z,  Ty = D_y Z,  Tz = S_y Dz    (per cell of row j)
///   P  = ax*YZ,  W = ay*Ty + az*Tz
///   v  = c + (D_x P + S_x W) / 144
/// and the last pass along x shares the neighbours of its two operators: D_x P + S_x W =
/// (P + W)(x-1) + (P + W)(x+1) + (10 W - 2 P)(x), so it reads two values per cell, A = P + W
/// and B = 10 W - 2 P, and adds three times. Each intermediate is shared by the cells around
/// it, so a sweep computes each once per cell (stencil_line_simd.hpp): 14 additions per cell,
/// where the nine second differences per dimension summed with their weights in one
/// expression need 33 even when shared. With ax = ay = az = a this is the compact isotropic
/// Laplacian (a/48)*(-200 c + 20 sum(faces) + 6 sum(edges) + sum(corners)). `u(dx, dy, dz)`
/// returns the cell at offset (dx, dy, dz) from the updated one.
template <class U>
KOKKOS_INLINE_FUNCTION double diffusion27(const U& u, double ax, double ay, double az) {
  double a[3], b = 0;
  for (int dx = -1; dx <= 1; ++dx) {
    double z[3], dz[3];
    for (int dy = -1; dy <= 1; ++dy) {
      z[dy + 1] = smoothing(u(dx, dy, -1), u(dx, dy, 0), u(dx, dy, 1));
      dz[dy + 1] = second_difference(u(dx, dy, -1), u(dx, dy, 0), u(dx, dy, 1));
    }
    const double p = ax * smoothing(z[0], z[1], z[2]);
    const double w = ay * second_difference(z[0], z[1], z[2]) + az * smoothing(dz[0], dz[1], dz[2]);
    a[dx + 1] = p + w;
    if (dx == 0) b = 10.0 * w - 2.0 * p;
  }
  return u(0, 0, 0) + (a[0] + a[2] + b) * (1.0 / 144.0);
}

/// Stability number of the 27-point scheme: max over Fourier modes of (1 - g)/2, g the
/// amplification factor 1 - 4*sum_d a_d x_d (1 - x_e/3)(1 - x_f/3), x_d = sin^2(theta_d/2).
/// The expression is multilinear in x, so the max sits on a vertex of [0,1]^3. Stable <= 1.
inline double stability_number27(const Coefficients& a) {
  const double c[3] = {a.ax, a.ay, a.az};
  double worst = 0;
  for (int v = 0; v < 8; ++v) {
    const double x[3] = {double(v & 1), double((v >> 1) & 1), double((v >> 2) & 1)};
    double f = 0;
    for (int d = 0; d < 3; ++d)
      f += 2.0 * c[d] * x[d] * (1.0 - x[(d + 1) % 3] / 3.0) * (1.0 - x[(d + 2) % 3] / 3.0);
    worst = f > worst ? f : worst;
  }
  return worst;
}

}  // namespace miniapp
