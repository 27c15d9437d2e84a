// Pencil transposes and the distributed FFT.
//
// Transposes: every cell carries its global index (real part) and its negative (imaginary), so
// each layout of the chain is checked exactly (bitwise) against its box, forward and backward,
// for both the zero-copy and the pack variant, on even and uneven grids and many rank grids.
// FFT: a single Fourier mode gives one spike of amplitude N; forward + inverse returns the
// input within 1e-12; a small grid agrees with the direct O(N^2) DFT. Spectral check: passes
// for random fields on several rank grids, and fails when the stencil's coefficients are
// misstated (so it can fail). Spectrum: Parseval, sum_s E(s) = mean(u^2) / 2.
#include <cmath>
#include <complex>
#include <cstring>
#include <string>

#include "cart_subcomms.hpp"
#include "fft.hpp"
#include "spectral.hpp"
#include "test_support.hpp"
#include "time_stepper.hpp"
#include "transpose.hpp"

namespace miniapp::test {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

/// Rank grids tried by the tests (those that fit the world are used).
const std::vector<Index3> kRankGrids = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1},
                                        {1, 2, 2}, {2, 1, 2}, {3, 1, 1}, {1, 1, 3}, {2, 2, 2},
                                        {3, 1, 2}, {1, 3, 2}, {2, 3, 1}, {3, 2, 2}, {2, 2, 3}};
// 4x2x3 leaves some ranks with empty pencils on 2x2x2 and 3x2x2 (a 1-cell y block split in two).
const std::vector<Index3> kGrids = {{30, 21, 17}, {8, 8, 8}, {7, 5, 3}, {5, 6, 7}, {4, 2, 3}};

Complex index_value(const Index3& n, int x, int y, int z) {
  const double g = double(x) + double(n[0]) * (double(y) + double(n[1]) * z);
  return Complex(g, -g - 0.5);
}

/// Fill buf (box b, x fastest) with index values.
void fill_indices(Complex* buf, const Box& b, const Index3& n) {
  for (int z = b.lo[2]; z < b.hi[2]; ++z)
    for (int y = b.lo[1]; y < b.hi[1]; ++y)
      for (int x = b.lo[0]; x < b.hi[0]; ++x) buf[offset_in(b, x, y, z)] = index_value(n, x, y, z);
}

/// Number of cells of box b in buf whose bits differ from their index value.
std::int64_t index_mismatches(const Complex* buf, const Box& b, const Index3& n) {
  std::int64_t bad = 0;
  for (int z = b.lo[2]; z < b.hi[2]; ++z)
    for (int y = b.lo[1]; y < b.hi[1]; ++y)
      for (int x = b.lo[0]; x < b.hi[0]; ++x) {
        const Complex want = index_value(n, x, y, z);
        bad += std::memcmp(&buf[offset_in(b, x, y, z)], &want, sizeof(Complex)) != 0;
      }
  return bad;
}

/// Run f(decomposition) for every rank grid of kRankGrids that fits the world and the grid.
template <class F>
void for_each_decomposition(const Index3& global, const F& f) {
  for (const Index3& p : kRankGrids) {
    const int np = p[0] * p[1] * p[2];
    if (np > world_size()) continue;
    if (global[0] < p[0] || global[1] < p[1] || global[2] < p[2]) continue;
    CommHandle comm = first_ranks(np);
    if (comm.get() == MPI_COMM_NULL) continue;
    Decomposition decomp(comm.get(), global, p, {true, true, true});
    SCOPED_TRACE("grid " + std::to_string(global[0]) + "x" + std::to_string(global[1]) + "x" +
                 std::to_string(global[2]) + " on " + std::to_string(p[0]) + "x" +
                 std::to_string(p[1]) + "x" + std::to_string(p[2]));
    f(decomp);
  }
}

TEST(Transpose, LayoutsPartitionTheGridAndSpanTheirFftDims) {
  for (const Index3& n : kGrids)
    for (const Index3& p : kRankGrids) {
      const std::size_t nl = TransposePlan::chain(n, p, {0, 0, 0}).size();
      std::vector<int> transformed(3, 0);
      for (const auto& l : TransposePlan::chain(n, p, {0, 0, 0}))
        for (int d : l.fft_dims) ++transformed[std::size_t(d)];
      EXPECT_EQ(transformed, std::vector<int>({1, 1, 1})) << "each dimension transformed once";
      for (std::size_t i = 0; i < nl; ++i) {
        std::vector<int> hits(std::size_t(n[0]) * n[1] * n[2], 0);
        for (int cx = 0; cx < p[0]; ++cx)
          for (int cy = 0; cy < p[1]; ++cy)
            for (int cz = 0; cz < p[2]; ++cz) {
              const auto ls = TransposePlan::chain(n, p, {cx, cy, cz});
              ASSERT_EQ(ls.size(), nl);
              const PencilLayout& l = ls[i];
              if (i == 0) {
                EXPECT_EQ(l.box.lo[0], block_range(n[0], p[0], cx)[0]);
                EXPECT_EQ(l.box.hi[2], block_range(n[2], p[2], cz)[1]);
              }
              for (int d : l.fft_dims)
                if (!l.box.empty()) EXPECT_EQ(l.box.extent(d), n[d]) << l.name;
              for (int z = l.box.lo[2]; z < l.box.hi[2]; ++z)
                for (int y = l.box.lo[1]; y < l.box.hi[1]; ++y)
                  for (int x = l.box.lo[0]; x < l.box.hi[0]; ++x)
                    ++hits[std::size_t(x) + std::size_t(n[0]) * (y + std::size_t(n[1]) * z)];
            }
        for (int h : hits) ASSERT_EQ(h, 1) << "layout " << i << " must cover each cell once";
      }
    }
}

TEST(Transpose, ChainNamesAndStepCounts) {
  // One rank: everything is local, no step.
  EXPECT_EQ(TransposePlan::chain({8, 8, 8}, {1, 1, 1}, {0, 0, 0}).size(), 1u);
  // Slabs along z: blocks are x- and y-pencils, one step along z.
  const auto slab = TransposePlan::chain({8, 8, 8}, {1, 1, 2}, {0, 0, 0});
  ASSERT_EQ(slab.size(), 2u);
  EXPECT_EQ(slab[0].name, "blocks = x-pencils = y-pencils");
  EXPECT_EQ(slab[0].next_dim, 2);
  EXPECT_EQ(slab[1].name, "z-pencils");
  // All three dimensions split: blocks -> x -> blocks -> y -> z, steps along x, x, y, z.
  const auto full = TransposePlan::chain({8, 8, 8}, {2, 2, 2}, {1, 0, 1});
  ASSERT_EQ(full.size(), 5u);
  EXPECT_EQ(full[1].name, "x-pencils");
  EXPECT_EQ(full[3].name, "y-pencils");
  EXPECT_EQ(full[4].name, "z-pencils");
  const int dims[] = {0, 0, 1, 2};
  for (int s = 0; s < 4; ++s) EXPECT_EQ(full[std::size_t(s)].next_dim, dims[s]);
}

TEST(Transpose, EveryStepAndRoundTripExact) {
  for (TransposeKind kind : {TransposeKind::ZeroCopy, TransposeKind::Pack})
    for (const Index3& n : kGrids)
      for_each_decomposition(n, [&](const Decomposition& decomp) {
        SCOPED_TRACE(to_string(kind));
        TransposePlan plan(decomp, kind);
        const auto& ls = plan.layouts();
        ASSERT_EQ(ls.front().box, decomp.owned());
        const std::size_t cap = std::size_t(std::max<std::int64_t>(plan.max_count(), 1));
        std::vector<std::vector<Complex>> bufs(ls.size(), std::vector<Complex>(cap, Complex(-1.0)));
        fill_indices(bufs[0].data(), ls[0].box, n);
        const std::vector<Complex> original = bufs[0];
        for (int s = 0; s < plan.steps(); ++s) {
          plan.forward(s, bufs[std::size_t(s)].data(), bufs[std::size_t(s) + 1].data());
          EXPECT_EQ(
              index_mismatches(bufs[std::size_t(s) + 1].data(), ls[std::size_t(s) + 1].box, n), 0)
              << "forward step " << s << " to " << ls[std::size_t(s) + 1].name;
        }
        for (int s = plan.steps() - 1; s >= 0; --s) {
          std::fill(bufs[std::size_t(s)].begin(), bufs[std::size_t(s)].end(), Complex(-2.0));
          plan.backward(s, bufs[std::size_t(s) + 1].data(), bufs[std::size_t(s)].data());
          EXPECT_EQ(index_mismatches(bufs[std::size_t(s)].data(), ls[std::size_t(s)].box, n), 0)
              << "backward step " << s << " to " << ls[std::size_t(s)].name;
        }
        const std::size_t cells = std::size_t(ls[0].box.count());
        EXPECT_EQ(std::memcmp(original.data(), bufs[0].data(), cells * sizeof(Complex)), 0);
      });
}

TEST(Transpose, PlanReusesTheCachedSubCommunicators) {
  for_each_decomposition({6, 6, 6}, [&](const Decomposition& decomp) {
    TransposePlan first(decomp, TransposeKind::ZeroCopy);
    const long created = dimension_comms_created();
    TransposePlan second(decomp, TransposeKind::Pack);
    EXPECT_EQ(dimension_comms_created(), created);
  });
}

/// Deterministic complex test input at global cell (x, y, z).
Complex test_input(const Index3& n, int x, int y, int z) {
  const std::uint64_t g = std::uint64_t(x) + std::uint64_t(n[0]) * (y + std::uint64_t(n[1]) * z);
  return Complex(unit_double(splitmix64(g)) - 0.5, unit_double(splitmix64(g ^ 0xabcdef)) - 0.5);
}

TEST(Fft, SingleModeGivesOneSpikeOfAmplitudeN) {
  const Index3 n{12, 10, 9}, m{3, 7, 2};
  for (TransposeKind kind : {TransposeKind::ZeroCopy, TransposeKind::Pack})
    for_each_decomposition(n, [&](const Decomposition& decomp) {
      DistributedFft fft(decomp, kind, FftPlanning::Estimate);
      const Box in = fft.input_box();
      for (int z = in.lo[2]; z < in.hi[2]; ++z)
        for (int y = in.lo[1]; y < in.hi[1]; ++y)
          for (int x = in.lo[0]; x < in.hi[0]; ++x) {
            const double ph = kTwoPi * (double(m[0]) * x / n[0] + double(m[1]) * y / n[1] +
                                        double(m[2]) * z / n[2]);
            fft.input()[offset_in(in, x, y, z)] = Complex(std::cos(ph), std::sin(ph));
          }
      fft.forward();
      const Box sb = fft.spectral_box();
      const double total = double(n[0]) * n[1] * n[2];
      double off_peak = 0, peak_error = 0;
      int peaks = 0;
      for (int z = sb.lo[2]; z < sb.hi[2]; ++z)
        for (int y = sb.lo[1]; y < sb.hi[1]; ++y)
          for (int x = sb.lo[0]; x < sb.hi[0]; ++x) {
            const Complex c = fft.spectral()[offset_in(sb, x, y, z)];
            if (x == m[0] && y == m[1] && z == m[2]) {
              ++peaks;
              peak_error = Kokkos::abs(c - Complex(total, 0.0));
            } else {
              off_peak = std::max(off_peak, Kokkos::abs(c));
            }
          }
      int all_peaks = 0;
      MPI_Allreduce(&peaks, &all_peaks, 1, MPI_INT, MPI_SUM, decomp.comm());
      EXPECT_EQ(all_peaks, 1);
      EXPECT_LT(peak_error, 1e-10 * total);
      EXPECT_LT(off_peak, 1e-10 * total);
    });
}

TEST(Fft, ForwardInverseRoundTrip) {
  for (TransposeKind kind : {TransposeKind::ZeroCopy, TransposeKind::Pack})
    for (const Index3& n : kGrids)
      for_each_decomposition(n, [&](const Decomposition& decomp) {
        DistributedFft fft(decomp, kind, FftPlanning::Estimate);
        const Box in = fft.input_box();
        for (int z = in.lo[2]; z < in.hi[2]; ++z)
          for (int y = in.lo[1]; y < in.hi[1]; ++y)
            for (int x = in.lo[0]; x < in.hi[0]; ++x)
              fft.input()[offset_in(in, x, y, z)] = test_input(n, x, y, z);
        fft.forward();
        fft.inverse();
        double err = 0;
        for (int z = in.lo[2]; z < in.hi[2]; ++z)
          for (int y = in.lo[1]; y < in.hi[1]; ++y)
            for (int x = in.lo[0]; x < in.hi[0]; ++x)
              err = std::max(
                  err, Kokkos::abs(fft.input()[offset_in(in, x, y, z)] - test_input(n, x, y, z)));
        EXPECT_LE(err, 1e-12);
      });
}

TEST(Fft, MatchesDirectDft) {
  const Index3 n{6, 5, 4};
  for_each_decomposition(n, [&](const Decomposition& decomp) {
    DistributedFft fft(decomp, TransposeKind::ZeroCopy, FftPlanning::Measure);
    const Box in = fft.input_box();
    for (int z = in.lo[2]; z < in.hi[2]; ++z)
      for (int y = in.lo[1]; y < in.hi[1]; ++y)
        for (int x = in.lo[0]; x < in.hi[0]; ++x)
          fft.input()[offset_in(in, x, y, z)] = test_input(n, x, y, z);
    fft.forward();
    // Each rank sums the whole (formula-given) input directly for its own modes.
    const Box sb = fft.spectral_box();
    double err = 0;
    for (int kz = sb.lo[2]; kz < sb.hi[2]; ++kz)
      for (int ky = sb.lo[1]; ky < sb.hi[1]; ++ky)
        for (int kx = sb.lo[0]; kx < sb.hi[0]; ++kx) {
          std::complex<double> sum = 0;
          for (int z = 0; z < n[2]; ++z)
            for (int y = 0; y < n[1]; ++y)
              for (int x = 0; x < n[0]; ++x) {
                const double ph = -kTwoPi * (double(kx) * x / n[0] + double(ky) * y / n[1] +
                                             double(kz) * z / n[2]);
                const Complex v = test_input(n, x, y, z);
                sum += std::complex<double>(v.real(), v.imag()) * std::polar(1.0, ph);
              }
          const Complex got = fft.spectral()[offset_in(sb, kx, ky, kz)];
          err = std::max(err, std::abs(sum - std::complex<double>(got.real(), got.imag())));
        }
    EXPECT_LE(err, 1e-12 * n[0] * n[1] * n[2]);
  });
}

TEST(Spectral, AmplificationOfTheSevenPointScheme) {
  const Coefficients a{0.1, 0.05, 0.2};
  const StencilWeights w = StencilWeights::seven_point(a);
  const Index3 n{12, 10, 9}, k{3, 7, 2};
  const double expect = 1.0 - 4.0 * (0.1 * std::pow(std::sin(M_PI * 3 / 12), 2) +
                                     0.05 * std::pow(std::sin(M_PI * 7 / 10), 2) +
                                     0.2 * std::pow(std::sin(M_PI * 2 / 9), 2));
  EXPECT_NEAR(amplification(w, k, n), expect, 1e-15);
  EXPECT_EQ(amplification(w, {0, 0, 0}, n), 1.0);
}

TEST(Spectral, TwentySevenPointWeightsAreTheIsotropicCompactLaplacian) {
  // Equal coefficients: faces 20a/48, edges 6a/48, corners a/48 (numerics.hpp), and the
  // amplification at the Nyquist corner is 1 - 2 * stability_number27 (its worst mode).
  const double a = 0.12;
  const StencilWeights w = StencilWeights::twenty_seven_point({a, a, a});
  EXPECT_NEAR(w.w[1][1][2], 20 * a / 48, 1e-16);
  EXPECT_NEAR(w.w[1][2][2], 6 * a / 48, 1e-16);
  EXPECT_NEAR(w.w[2][2][2], a / 48, 1e-16);
  EXPECT_NEAR(w.w[0][0][0], a / 48, 1e-16);
  EXPECT_NEAR(amplification(w, {4, 4, 4}, {8, 8, 8}), 1.0 - 2.0 * stability_number27({a, a, a}),
              1e-14);
}

TEST(Spectral, TwentySevenPointCheckPassesAndSevenPointWeightsFailIt) {
  Config c;
  c.grid = {12, 10, 9};
  c.init = InitKind::Random;
  c.stencil = 27;
  c.halo_width = 2;
  c.steps = 12;
  CommHandle comm = first_ranks(std::min(4, world_size()));
  if (comm.get() == MPI_COMM_NULL) return;
  TimeStepper sim = make_stepper(c, comm.get());
  sim.run(c.steps);
  SpectralDiagnostics spectral(sim.decomposition(), c.problem(), c.transpose, "");
  const SpectralCheckResult r = spectral.check(sim.field(), c.steps);
  EXPECT_TRUE(r.passed) << "max error " << r.max_error << " > " << r.tolerance;
  DistributedFft fft(sim.decomposition(), TransposeKind::ZeroCopy, FftPlanning::Estimate);
  const SpectralCheckResult bad =
      spectral_check(sim.field(), c.problem().initial_condition(),
                     StencilWeights::seven_point(c.problem().coefficients()), c.steps, fft,
                     sim.decomposition().comm());
  EXPECT_FALSE(bad.passed) << "the 7-point factor must not explain a 27-point run";
}

TEST(Spectral, CheckPassesForRandomFieldsAndFailsForAWrongScheme) {
  Config c;
  c.grid = {12, 10, 9};
  c.init = InitKind::Random;
  c.dt = 0.1;
  c.kappa = {1.0, 0.5, 1.5};
  c.steps = 15;
  on_rank_grids(kRankGrids, [&](const Index3& p, MPI_Comm comm) {
    c.ranks = p;
    for (TransposeKind kind : {TransposeKind::ZeroCopy, TransposeKind::Pack}) {
      c.transpose = kind;
      TimeStepper sim = make_stepper(c, comm);
      sim.run(c.steps);
      SpectralDiagnostics spectral(sim.decomposition(), c.problem(), c.transpose, "");
      const SpectralCheckResult r = spectral.check(sim.field(), c.steps);
      EXPECT_TRUE(r.passed) << "max error " << r.max_error << " > " << r.tolerance;
      EXPECT_GT(r.max_error, 0.0);  // round-off exists: the comparison is real

      Coefficients wrong = c.problem().coefficients();
      wrong.ay *= 1.0 + 1e-6;
      DistributedFft fft(sim.decomposition(), kind, FftPlanning::Estimate);
      const SpectralCheckResult bad = spectral_check(sim.field(), c.problem().initial_condition(),
                                                     StencilWeights::seven_point(wrong), c.steps,
                                                     fft, sim.decomposition().comm());
      EXPECT_FALSE(bad.passed) << "a misstated coefficient must fail (error " << bad.max_error
                               << ")";
    }
  });
}

TEST(Spectral, EnergySpectrumSatisfiesParseval) {
  Config c;
  c.grid = {12, 10, 9};
  c.init = InitKind::Random;
  on_rank_grids(kRankGrids, [&](const Index3& p, MPI_Comm comm) {
    c.ranks = p;
    TimeStepper sim = make_stepper(c, comm);
    DistributedFft fft(sim.decomposition(), TransposeKind::ZeroCopy, FftPlanning::Estimate);
    const std::vector<double> e = energy_spectrum(sim.field(), fft, sim.decomposition().comm());
    double total = 0;
    for (double v : e) total += v;
    const FieldSummary s = sim.summary();
    const double half_mean_square = 0.5 * s.l2 * s.l2 / double(s.cells);
    EXPECT_NEAR(total, half_mean_square, 1e-13 * half_mean_square);
    // The mean sits in shell 0: E(0) = mean^2 / 2.
    const double mean = s.sum / double(s.cells);
    EXPECT_NEAR(e[0], 0.5 * mean * mean, 1e-13);
    // The largest |k| = sqrt(6^2 + 5^2 + 4^2) = 8.77 rounds to shell 9.
    EXPECT_EQ(e.size(), 10u);
  });
}

}  // namespace
}  // namespace miniapp::test
