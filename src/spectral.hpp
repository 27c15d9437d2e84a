// Spectral verification and diagnostics on an all-periodic grid, through the distributed FFT.
//
// Mode amplification. Write one explicit step of a symmetric stencil as
//   v(x) = u(x) + sum_{o != 0} w(o) (u(x + o) - u(x)),   o in {-1, 0, 1}^3,  w(o) = w(-o).
// For the Fourier mode u = exp(2 pi i sum_d k_d x_d / N_d), with phi(o) = 2 pi sum_d o_d k_d/N_d,
//   g(k) = 1 + sum_{o != 0} w(o) (cos phi(o) - 1) = 1 - 2 sum_{o != 0} w(o) sin^2(phi(o) / 2)
// (the sine parts cancel in the pairs o, -o). The 7-point scheme has w(+-e_d) = a_d, so
//   g7(k) = 1 - 4 sum_d a_d sin^2(pi k_d / N_d).
// A 27-point scheme with face, edge and corner weights per pair of signed offsets gives, with
// c_d = cos(2 pi k_d / N_d) (the sums over the sign patterns of each edge/corner collapse to
// products: sum_{+-} cos(t1 +- t2) = 2 cos t1 cos t2, and likewise for three angles),
//   g27(k) = 1 + sum_d 2 f_d (c_d - 1) + sum_{d<e} 4 e_de (c_d c_e - 1) + 8 w_c (c_x c_y c_z - 1)
// where f_d is the weight of each face neighbour along d, e_de of each edge neighbour in the
// d-e plane and w_c of each corner. StencilWeights carries any such table.
//
// After s steps each mode is multiplied by g(k)^s exactly, so the spectral check computes
//   u_exact = IFFT( g^s . FFT(u_0) )
// and compares it with the stencil's field: this verifies any initial field, not only a sine.
//
// Energy spectrum: with U(k) = FFT(u)(k) / N (so that mean(u^2) = sum_k |U(k)|^2, Parseval),
//   E(s) = 1/2 sum over k with round(|k|) = s of |U(k)|^2,   |k|^2 = sum_d kbar_d^2,
// where kbar_d = k_d for k_d <= N_d / 2 and k_d - N_d above (signed integer wavenumbers).
// Hence sum_s E(s) = 1/2 mean(u^2), the mean energy per cell.
#pragma once

#include <mpi.h>

#include <fstream>
#include <memory>
#include <vector>

#include "decomposition.hpp"
#include "fft.hpp"
#include "field.hpp"
#include "initial_condition.hpp"
#include "problem.hpp"

namespace miniapp {

/// Off-centre weights w(o) of a symmetric explicit stencil, w[oz+1][oy+1][ox+1] (w[1][1][1]
/// is unused: the centre weight is 1 - sum of the others).
struct StencilWeights {
  double w[3][3][3] = {};
  /// The 7-point scheme: w(+-e_d) = a_d.
  static StencilWeights seven_point(const Coefficients& a);
  /// The 27-point scheme of numerics.hpp (diffusion27): w(o) = sum_d a_d c_d(o) s(o_e) s(o_f)
  /// / 144, with c_d(o) = 1 when o_d = +-1 and -2 when o_d = 0, s(0) = 10, s(+-1) = 1 (e, f
  /// the other two dimensions). Isotropic: faces 20a/48, edges 6a/48, corners a/48.
  static StencilWeights twenty_seven_point(const Coefficients& a);
  /// The weights of --stencil 7 or 27.
  static StencilWeights of(int stencil, const Coefficients& a) {
    return stencil == 27 ? twenty_seven_point(a) : seven_point(a);
  }
};

/// Per-step amplification g(k) of the mode with wavenumbers 0 <= k_d < n_d. Not collective.
double amplification(const StencilWeights& w, const Index3& k, const Index3& n);

struct SpectralCheckResult {
  double max_error = 0;  ///< max over cells of |u - u_exact|
  double l2_error = 0;   ///< sqrt(sum over cells of (u - u_exact)^2 / N) (root mean square)
  double max_imag = 0;   ///< max |Im u_exact| (round-off: u_0 is real)
  double tolerance = 0;
  bool passed = false;
};

/// Copy the owned cells of u into fft.input() (imaginary parts zero). u's owned box must be the
/// FFT's input box. Not collective; fences.
void load_field(const Field& u, DistributedFft& fft);

/// Compare u, the result of `steps` steps of stencil w from the initial field ic, with the exact
/// spectral evolution. Collective over comm (the FFT's decomposition communicator).
SpectralCheckResult spectral_check(const Field& u, const InitialCondition& ic,
                                   const StencilWeights& w, std::int64_t steps, DistributedFft& fft,
                                   MPI_Comm comm);

/// E(s) for the integer shells s = 0 .. smax of the field u (see the header). The result is
/// complete on every rank. Collective over comm.
std::vector<double> energy_spectrum(const Field& u, DistributedFft& fft, MPI_Comm comm);

/// The spectral tools of one run: one FFT plan (FFTW_ESTIMATE: used a few times per run) and
/// the spectrum CSV (rank 0 writes `step,time,k,E` rows).
class SpectralDiagnostics {
 public:
  /// Plan the FFT of `problem`'s field on decomp with transposes of `kind`; open `csv_path`
  /// for the spectra ("" = no CSV). Collective over decomp.comm(). Throws std::runtime_error
  /// on every rank when rank 0 cannot open the CSV.
  SpectralDiagnostics(const Decomposition& decomp, const Problem& problem, TransposeKind kind,
                      const std::string& csv_path);
  /// Append E(k) of u at `step` to the CSV and return it (on every rank). Collective.
  std::vector<double> record(const Field& u, std::int64_t step);
  /// The spectral check of u after `steps` steps from the configured initial field. Collective.
  SpectralCheckResult check(const Field& u, std::int64_t steps);

 private:
  const Decomposition& decomp_;
  Problem problem_;
  std::string csv_path_;
  DistributedFft fft_;
  std::ofstream csv_;
};

}  // namespace miniapp
