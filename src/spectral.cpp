#include "spectral.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "mpi_utils.hpp"

namespace miniapp {

namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;
constexpr double kPi = 3.14159265358979323846264338327950288;

/// Signed integer wavenumber of index k on n points: k for k <= n/2, k - n above.
int signed_wavenumber(int k, int n) { return 2 * k <= n ? k : k - n; }

}  // namespace

StencilWeights StencilWeights::seven_point(const Coefficients& a) {
  StencilWeights s;
  const double ad[3] = {a.ax, a.ay, a.az};
  for (int d = 0; d < 3; ++d)
    for (int sign : {-1, 1}) {
      int o[3] = {1, 1, 1};
      o[d] += sign;
      s.w[o[2]][o[1]][o[0]] = ad[d];
    }
  return s;
}

StencilWeights StencilWeights::twenty_seven_point(const Coefficients& a) {
  StencilWeights s;
  const double ad[3] = {a.ax, a.ay, a.az};
  const auto smooth = [](int o) { return o == 0 ? 10.0 : 1.0; };
  for (int oz = -1; oz <= 1; ++oz)
    for (int oy = -1; oy <= 1; ++oy)
      for (int ox = -1; ox <= 1; ++ox) {
        if (ox == 0 && oy == 0 && oz == 0) continue;
        const int o[3] = {ox, oy, oz};
        double w = 0;
        for (int d = 0; d < 3; ++d) {
          const int e = (d + 1) % 3, f = (d + 2) % 3;
          w += ad[d] * (o[d] != 0 ? 1.0 : -2.0) * smooth(o[e]) * smooth(o[f]) / 144.0;
        }
        s.w[oz + 1][oy + 1][ox + 1] = w;
      }
  return s;
}

double amplification(const StencilWeights& w, const Index3& k, const Index3& n) {
  double damping = 0;
  for (int oz = -1; oz <= 1; ++oz)
    for (int oy = -1; oy <= 1; ++oy)
      for (int ox = -1; ox <= 1; ++ox) {
        const double wo = w.w[oz + 1][oy + 1][ox + 1];
        if ((ox == 0 && oy == 0 && oz == 0) || wo == 0.0) continue;
        const double half_phase =
            kPi * (double(ox) * k[0] / n[0] + double(oy) * k[1] / n[1] + double(oz) * k[2] / n[2]);
        const double s = std::sin(half_phase);
        damping += wo * s * s;
      }
  return 1.0 - 2.0 * damping;
}

void load_field(const Field& u, DistributedFft& fft) {
  if (u.owned() != fft.input_box())
    throw std::logic_error("load_field: the field's owned box differs from the FFT input box");
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
  const Box in = u.interior();
  const int nx = in.extent(0), ny = in.extent(1);
  const std::int64_t lines = std::int64_t(ny) * in.extent(2);
  const Field f = u;
  if (fft.kind() == FftKind::R2C) {
    double* dst = fft.real_input();
    Kokkos::parallel_for("miniapp::spectral::load", Kokkos::RangePolicy<HostExec>(0, lines),
                         [=](std::int64_t line) {
                           const int j = in.lo[1] + int(line % ny), k = in.lo[2] + int(line / ny);
                           const std::int64_t row = f.index(in.lo[0], j, k);
                           for (int i = 0; i < nx; ++i) dst[line * nx + i] = host(row + i);
                         });
  } else {
    Complex* dst = fft.input();
    Kokkos::parallel_for("miniapp::spectral::load", Kokkos::RangePolicy<HostExec>(0, lines),
                         [=](std::int64_t line) {
                           const int j = in.lo[1] + int(line % ny), k = in.lo[2] + int(line / ny);
                           const std::int64_t row = f.index(in.lo[0], j, k);
                           for (int i = 0; i < nx; ++i)
                             dst[line * nx + i] = Complex(host(row + i), 0.0);
                         });
  }
  HostExec().fence();
}

SpectralCheckResult spectral_check(const Field& u, const InitialCondition& ic,
                                   const StencilWeights& w, std::int64_t steps, DistributedFft& fft,
                                   MPI_Comm comm) {
  // u_0 into the FFT's input layout (the owned box, x fastest).
  const Box in = fft.input_box();
  const bool real = fft.kind() == FftKind::R2C;
  double* xr = real ? fft.real_input() : nullptr;
  Complex* xc = real ? nullptr : fft.input();
  double u0_max = 0;
  for (int z = in.lo[2]; z < in.hi[2]; ++z)
    for (int y = in.lo[1]; y < in.hi[1]; ++y)
      for (int i = in.lo[0]; i < in.hi[0]; ++i) {
        const double v = ic(i, y, z);
        const std::int64_t o = offset_in(in, i, y, z);
        if (real)
          xr[o] = v;
        else
          xc[o] = Complex(v, 0.0);
        u0_max = std::max(u0_max, std::abs(v));
      }
  fft.forward();

  // Every stored mode times g(k)^steps (for r2c the half kx <= NX/2: g(-k) = g(k)).
  const Box sb = fft.spectral_box();
  const Index3 n = ic.grid;
  Complex* U = fft.spectral();
  for (int kz = sb.lo[2]; kz < sb.hi[2]; ++kz)
    for (int ky = sb.lo[1]; ky < sb.hi[1]; ++ky)
      for (int kx = sb.lo[0]; kx < sb.hi[0]; ++kx) {
        const double g = amplification(w, {kx, ky, kz}, n);
        U[offset_in(sb, kx, ky, kz)] *= std::pow(g, double(steps));
      }
  fft.inverse();

  // Compare with the stencil's field.
  if (u.owned() != in) throw std::logic_error("spectral_check: field and FFT boxes differ");
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
  const Box pin = u.interior();
  double local[3] = {0, 0, 0};  // max error, sum of squared errors, max |imag|
  for (int k = pin.lo[2]; k < pin.hi[2]; ++k)
    for (int j = pin.lo[1]; j < pin.hi[1]; ++j)
      for (int i = pin.lo[0]; i < pin.hi[0]; ++i) {
        const std::int64_t o = offset_in(pin, i, j, k);
        const double exact = real ? xr[o] : xc[o].real();
        const double diff = std::abs(host(u.index(i, j, k)) - exact);
        local[0] = std::max(local[0], diff);
        local[1] += diff * diff;
        if (!real) local[2] = std::max(local[2], std::abs(xc[o].imag()));
      }
  double maxes[3] = {local[0], local[2], u0_max}, sum = local[1];
  double gmax[3];
  mpi_check(MPI_Allreduce(maxes, gmax, 3, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  double gsum = 0;
  mpi_check(MPI_Allreduce(&sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");

  SpectralCheckResult r;
  r.max_error = gmax[0];
  r.max_imag = gmax[1];
  r.l2_error = std::sqrt(gsum / (double(n[0]) * n[1] * n[2]));
  // Round-off bound: a few ulps of the field's scale per stencil step (each step rounds every
  // cell a handful of times; |g| <= 1 keeps errors from growing) plus the FFT pair's
  // O(eps log N) error. Measured errors sit one to two orders of magnitude below.
  const double eps = std::numeric_limits<double>::epsilon();
  const double log_n = std::log2(double(n[0]) * n[1] * n[2]);
  r.tolerance = 4.0 * eps * (double(steps) + log_n) * std::max(u0_max, 1e-300);
  r.passed = r.max_error <= r.tolerance && r.max_imag <= r.tolerance;
  return r;
}

EnergySpectrum energy_spectrum(const Field& u, DistributedFft& fft,
                               const std::array<double, 3>& spacing, const SpectrumOptions& options,
                               MPI_Comm comm) {
  load_field(u, fft);
  fft.forward();
  const Index3 n = fft.global();
  // |k| / dk = sqrt(sum_d (n_d q_d)^2) with q_d = dk_d / dk = L_max / L_d (1 for index
  // wavenumbers); every mode and the largest one go through the same arithmetic, so the
  // shell count below bounds every mode's shell.
  EnergySpectrum e;
  e.wavenumbers = options.wavenumbers;
  double q[3] = {1, 1, 1};
  if (options.wavenumbers == Wavenumbers::Physical) {
    double length[3], longest = 0;
    for (int d = 0; d < 3; ++d) {
      length[d] = double(n[d]) * spacing[std::size_t(d)];
      if (n[d] > 1) longest = std::max(longest, length[d]);
    }
    if (longest == 0) longest = length[0];  // a single cell: only k = 0 exists
    for (int d = 0; d < 3; ++d) q[d] = longest / length[d];
    e.dk = 2.0 * kPi / longest;
  }
  const auto shell = [&q](int n0, int n1, int n2) {
    const double t0 = n0 * q[0], t1 = n1 * q[1], t2 = n2 * q[2];
    return std::size_t(std::lround(std::sqrt(t0 * t0 + t1 * t1 + t2 * t2)));
  };
  const std::size_t shells = shell(n[0] / 2, n[1] / 2, n[2] / 2) + 1;
  std::vector<double> local(shells, 0.0);
  e.energy.assign(shells, 0.0);
  const double inv_n = 1.0 / (double(n[0]) * n[1] * n[2]);
  const Box sb = fft.spectral_box();
  const Complex* U = fft.spectral();
  for (int kz = sb.lo[2]; kz < sb.hi[2]; ++kz)
    for (int ky = sb.lo[1]; ky < sb.hi[1]; ++ky)
      for (int kx = sb.lo[0]; kx < sb.hi[0]; ++kx) {
        const std::size_t s = shell(signed_wavenumber(kx, n[0]), signed_wavenumber(ky, n[1]),
                                    signed_wavenumber(kz, n[2]));
        const Complex c = U[offset_in(sb, kx, ky, kz)] * inv_n;
        local[s] += 0.5 * fft.hermitian_weight(kx) * (c.real() * c.real() + c.imag() * c.imag());
      }
  mpi_check(MPI_Allreduce(local.data(), e.energy.data(), int(shells), MPI_DOUBLE, MPI_SUM, comm),
            "MPI_Allreduce");
  for (std::size_t s = 0; s < shells; ++s) e.k.push_back(double(s) * e.dk);
  return e;
}

SpectralDiagnostics::SpectralDiagnostics(const Decomposition& decomp, const Problem& problem,
                                         const FftOptions& fft, const SpectrumOptions& spectrum,
                                         const std::string& csv_path)
    : decomp_(decomp),
      problem_(problem),
      spectrum_(spectrum),
      csv_path_(csv_path),
      fft_(decomp, fft) {
  if (csv_path.empty()) return;
  int ok = 1;
  if (decomp.rank() == 0) {
    csv_.open(csv_path);
    csv_ << "step,time_s,shell,"
         << (spectrum.wavenumbers == Wavenumbers::Physical ? "k_rad_per_m" : "k_index") << ",E\n";
    ok = csv_.good() ? 1 : 0;
  }
  mpi_check(MPI_Bcast(&ok, 1, MPI_INT, 0, decomp.comm()), "MPI_Bcast");
  if (!ok) throw std::runtime_error("cannot write the spectrum file " + csv_path);
}

EnergySpectrum SpectralDiagnostics::record(const Field& u, std::int64_t step) {
  EnergySpectrum e = energy_spectrum(u, fft_, problem_.spacing, spectrum_, decomp_.comm());
  if (decomp_.rank() != 0 || csv_path_.empty()) return e;
  csv_.precision(17);
  for (std::size_t s = 0; s < e.energy.size(); ++s)
    csv_ << step << "," << double(step) * problem_.dt << "," << s << "," << e.k[s] << ","
         << e.energy[s] << "\n";
  csv_.flush();
  if (!csv_) throw std::runtime_error("could not write the spectrum " + csv_path_);
  return e;
}

SpectralCheckResult SpectralDiagnostics::check(const Field& u, std::int64_t steps) {
  return spectral_check(u, problem_.initial_condition(),
                        StencilWeights::of(problem_.stencil, problem_.coefficients()), steps, fft_,
                        decomp_.comm());
}

}  // namespace miniapp
