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
// With the real-to-complex FFT (the default) only kx = 0 .. NX/2 is stored; g is even in every
// k_d (g(k) = g(-k) mode by mode), so multiplying the stored half by g^s is the whole evolution
// and the complex-to-real inverse returns a real field by construction.
//
// Energy spectrum: with U(k) = FFT(u)(k) / N (so that mean(u^2) = sum_k |U(k)|^2, Parseval)
// and signed integer wavenumbers n_d (n_d = k_d for k_d <= N_d / 2, k_d - N_d above), the
// physical wavenumber of a mode on cells of size dx_d is
//   kphys_d = 2 pi n_d / (N_d dx_d) = 2 pi n_d / L_d   [rad/m],
// and shells are dk = 2 pi / L_max wide (L_max the longest box side with N_d > 1: the
// smallest nonzero |kphys_d|):
//   E(s) = 1/2 sum over k with round(|kphys| / dk) = s of w(k_x) |U(k)|^2,   k_s = s dk,
// where w is the Hermitian weight of the half spectrum (DistributedFft::hermitian_weight: 2
// for the modes whose conjugate is not stored, else 1). Hence sum_s E(s) = 1/2 mean(u^2), the
// mean energy per cell; E(s) is the energy in the shell, not a density (E / dk is). The index
// spectrum (Wavenumbers::Index, for teaching) uses |k|^2 = sum_d n_d^2 and dk = 1 instead: on a
// cubic box with equal spacing the two differ only by the factor 2 pi / L on k.
#pragma once

#include <mpi.h>

#include <array>
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
  double max_imag = 0;   ///< max |Im u_exact| (round-off: u_0 is real; 0 for r2c, real by design)
  double tolerance = 0;
  bool passed = false;
};

/// Which wavenumbers a spectrum is binned on: physical |k| in rad/m (shells of the smallest
/// nonzero |k_d|), or the integer index wavenumbers (shells of width 1; for teaching).
enum class Wavenumbers { Physical, Index };
inline constexpr NameTable<Wavenumbers, 2> kWavenumberNames{
    {{Wavenumbers::Physical, "physical"}, {Wavenumbers::Index, "index"}}};
inline const char* to_string(Wavenumbers w) { return name_of(kWavenumberNames, w); }

/// How energy spectra are computed.
struct SpectrumOptions {
  Wavenumbers wavenumbers = Wavenumbers::Physical;
};

/// An energy spectrum: shell s = 0, 1, ... holds the modes with round(|k| / dk) = s.
struct EnergySpectrum {
  Wavenumbers wavenumbers = Wavenumbers::Physical;
  double dk = 1;               ///< shell width (rad/m, or 1 for index wavenumbers)
  std::vector<double> k;       ///< the shells' wavenumbers s * dk
  std::vector<double> energy;  ///< E(s); sum_s E(s) = mean(u^2) / 2
  /// Units of k and dk: "rad/m" or "1" (index wavenumbers).
  const char* k_units() const { return wavenumbers == Wavenumbers::Physical ? "rad/m" : "1"; }
};

/// Copy the owned cells of u into the FFT's input (real, or complex with imaginary parts zero).
/// u's owned box must be the FFT's input box. Not collective; fences.
void load_field(const Field& u, DistributedFft& fft);

/// Compare u, the result of `steps` steps of stencil w from the initial field ic, with the exact
/// spectral evolution. Collective over comm (the FFT's decomposition communicator).
SpectralCheckResult spectral_check(const Field& u, const InitialCondition& ic,
                                   const StencilWeights& w, std::int64_t steps, DistributedFft& fft,
                                   MPI_Comm comm);

/// The energy spectrum of the field u on cells of size `spacing` (see the header). The result
/// is complete on every rank. Collective over comm.
EnergySpectrum energy_spectrum(const Field& u, DistributedFft& fft,
                               const std::array<double, 3>& spacing, const SpectrumOptions& options,
                               MPI_Comm comm);

/// The spectral tools of one run: one FFT plan and the spectrum CSV (rank 0 writes rows
/// `step,time_s,shell,k_rad_per_m,E`, or `k_index` for index wavenumbers).
class SpectralDiagnostics {
 public:
  /// Plan the FFT of `problem`'s field on decomp with `fft` options; open `csv_path` for the
  /// spectra ("" = no CSV). Collective over decomp.comm(). Throws std::runtime_error on every
  /// rank when rank 0 cannot open the CSV.
  SpectralDiagnostics(const Decomposition& decomp, const Problem& problem, const FftOptions& fft,
                      const SpectrumOptions& spectrum, const std::string& csv_path);
  /// Append the spectrum of u at `step` to the CSV and return it (on every rank). Collective.
  EnergySpectrum record(const Field& u, std::int64_t step);
  /// The spectral check of u after `steps` steps from the configured initial field. Collective.
  SpectralCheckResult check(const Field& u, std::int64_t steps);
  const DistributedFft& fft() const { return fft_; }

 private:
  const Decomposition& decomp_;
  Problem problem_;
  SpectrumOptions spectrum_;
  std::string csv_path_;
  DistributedFft fft_;
  std::ofstream csv_;
};

}  // namespace miniapp
