// Pencil transposes and the distributed FFT, complex-to-complex and real-to-complex.
//
// Transposes: every cell carries its global index (real part, or the real value of a real
// step) and its negative (imaginary), so each layout of the chain is checked exactly (bitwise)
// against its box, forward and backward, for both the zero-copy and the pack variant, on even
// and uneven grids and many rank grids; r2c chains on the field's grid up to the x transform
// and on the half grid NX/2+1 after it. FFT: a single Fourier mode gives one spike of amplitude
// N (c2c) or N/2 (r2c, a cosine); forward + inverse returns the input within 1e-12; a small
// grid agrees with the direct O(N^2) DFT; r2c equals the c2c spectrum's half kx <= NX/2.
// Spectral check: passes for random fields on several rank grids with both FFTs and stencils,
// and fails when the stencil's coefficients are misstated or the field is perturbed (so it can
// fail). Spectrum: Parseval, sum_s E(s) = mean(u^2) / 2 with the half spectrum's Hermitian
// weights; a sine mode on a non-cubic box with unequal spacing lands in its physical shell.
#include <cmath>
#include <complex>
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
/// ... and for the r2c chains also x split by 4 and 8 (NX/2+1 < px leaves ranks without a
/// complex block) and the remaining 4- and 8-rank shapes.
const std::vector<Index3> kR2cRankGrids = {{4, 1, 1}, {1, 4, 1}, {4, 2, 1}, {2, 1, 4}, {8, 1, 1}};
// 4x2x3 leaves some ranks with empty pencils on 2x2x2 and 3x2x2 (a 1-cell y block split in two).
const std::vector<Index3> kGrids = {{30, 21, 17}, {8, 8, 8}, {7, 5, 3}, {5, 6, 7}, {4, 2, 3}};
const FftKind kKinds[] = {FftKind::R2C, FftKind::C2C};
const TransposeKind kTransposes[] = {TransposeKind::ZeroCopy, TransposeKind::Pack};

std::string dims_text(const Index3& n) {
  return std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
}

Complex index_value(const Index3& n, int x, int y, int z) {
  const double g = double(x) + double(n[0]) * (double(y) + double(n[1]) * z);
  return Complex(g, -g - 0.5);
}

/// Fill buf (box b, x fastest) with index values: doubles (the real part) when `real`.
void fill_indices(void* buf, bool real, const Box& b, const Index3& n) {
  for (int z = b.lo[2]; z < b.hi[2]; ++z)
    for (int y = b.lo[1]; y < b.hi[1]; ++y)
      for (int x = b.lo[0]; x < b.hi[0]; ++x) {
        const Complex v = index_value(n, x, y, z);
        if (real)
          static_cast<double*>(buf)[offset_in(b, x, y, z)] = v.real();
        else
          static_cast<Complex*>(buf)[offset_in(b, x, y, z)] = v;
      }
}

/// Number of cells of box b in buf whose bits differ from their index value.
std::int64_t index_mismatches(const void* buf, bool real, const Box& b, const Index3& n) {
  std::int64_t bad = 0;
  for (int z = b.lo[2]; z < b.hi[2]; ++z)
    for (int y = b.lo[1]; y < b.hi[1]; ++y)
      for (int x = b.lo[0]; x < b.hi[0]; ++x) {
        const Complex want = index_value(n, x, y, z);
        const std::int64_t o = offset_in(b, x, y, z);
        if (real) {
          bad += double_bits(static_cast<const double*>(buf)[o]) != double_bits(want.real());
        } else {
          const Complex got = static_cast<const Complex*>(buf)[o];
          bad += double_bits(got.real()) != double_bits(want.real()) ||
                 double_bits(got.imag()) != double_bits(want.imag());
        }
      }
  return bad;
}

/// Run f(decomposition) for every rank grid of `grids` that fits the world and the grid.
template <class F>
void for_each_decomposition(const Index3& global, const std::vector<Index3>& grids, const F& f) {
  for (const Index3& p : grids) {
    const int np = p[0] * p[1] * p[2];
    if (np > world_size()) continue;
    if (global[0] < p[0] || global[1] < p[1] || global[2] < p[2]) continue;
    CommHandle comm = first_ranks(np);
    if (comm.get() == MPI_COMM_NULL) continue;
    Decomposition decomp(comm.get(), global, p, {true, true, true});
    SCOPED_TRACE("grid " + dims_text(global) + " on " + dims_text(p));
    f(decomp);
  }
}
template <class F>
void for_each_decomposition(const Index3& global, const F& f) {
  for_each_decomposition(global, kRankGrids, f);
}

/// The rank grids of the r2c tests: kRankGrids and kR2cRankGrids.
std::vector<Index3> r2c_rank_grids() {
  std::vector<Index3> all = kRankGrids;
  all.insert(all.end(), kR2cRankGrids.begin(), kR2cRankGrids.end());
  return all;
}

/// The grid the cells of a layout box live on: the field's, or the half grid NX/2+1 for the
/// complex cells of an r2c chain.
Index3 grid_of(const Index3& n, FftKind kind, bool real) {
  return kind == FftKind::R2C && !real ? Index3{half_extent(n[0]), n[1], n[2]} : n;
}

TEST(Transpose, LayoutsPartitionTheGridAndSpanTheirFftDims) {
  std::vector<Index3> grids = r2c_rank_grids();
  for (FftKind kind : kKinds)
    for (const Index3& n : kGrids)
      for (const Index3& p : grids) {
        SCOPED_TRACE(std::string(to_string(kind)) + " " + dims_text(n) + " on " + dims_text(p));
        const auto first = TransposePlan::chain(n, p, {0, 0, 0}, kind);
        const std::size_t nl = first.size();
        std::vector<int> transformed(3, 0);
        int r2c_layouts = 0;
        for (const auto& l : first) {
          for (int d : l.fft_dims) ++transformed[std::size_t(d)];
          if (l.real_to_complex) {
            ++r2c_layouts;
            // x is the first dimension transformed, in the layout that turns real into complex.
            EXPECT_TRUE(l.real);
            EXPECT_NE(std::find(l.fft_dims.begin(), l.fft_dims.end(), 0), l.fft_dims.end());
            EXPECT_EQ(transformed[0], 1) << "x first";
            EXPECT_EQ(transformed[1] + transformed[2], int(l.fft_dims.size()) - 1)
                << "nothing before x";
          }
        }
        EXPECT_EQ(transformed, std::vector<int>({1, 1, 1})) << "each dimension transformed once";
        EXPECT_EQ(r2c_layouts, kind == FftKind::R2C ? 1 : 0);
        for (std::size_t i = 0; i < nl; ++i)
          for (bool out : {false, true}) {
            const bool real = first[i].real && !(out && first[i].real_to_complex);
            const Index3 g = grid_of(n, kind, real);
            std::vector<int> hits(std::size_t(g[0]) * g[1] * g[2], 0);
            for (int cx = 0; cx < p[0]; ++cx)
              for (int cy = 0; cy < p[1]; ++cy)
                for (int cz = 0; cz < p[2]; ++cz) {
                  const auto ls = TransposePlan::chain(n, p, {cx, cy, cz}, kind);
                  ASSERT_EQ(ls.size(), nl);
                  const PencilLayout& l = ls[i];
                  const Box& b = out ? l.out : l.box;
                  if (i == 0 && !out) {
                    EXPECT_EQ(b.lo[0], block_range(n[0], p[0], cx)[0]);
                    EXPECT_EQ(b.hi[2], block_range(n[2], p[2], cz)[1]);
                  }
                  for (int d : l.fft_dims)
                    if (!b.empty()) EXPECT_EQ(b.extent(d), g[d]) << l.name;
                  for (int z = b.lo[2]; z < b.hi[2]; ++z)
                    for (int y = b.lo[1]; y < b.hi[1]; ++y)
                      for (int x = b.lo[0]; x < b.hi[0]; ++x)
                        ++hits[std::size_t(x) + std::size_t(g[0]) * (y + std::size_t(g[1]) * z)];
                  // Coordinates 0 hold the largest box of every layout (memory estimates).
                  EXPECT_LE(b.count(), (out ? first[i].out : first[i].box).count());
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

  // r2c on slabs: the same single step; the first layout turns 8 real cells into 5 complex.
  const auto rslab = TransposePlan::chain({8, 8, 8}, {1, 1, 2}, {0, 0, 1}, FftKind::R2C);
  ASSERT_EQ(rslab.size(), 2u);
  EXPECT_TRUE(rslab[0].real && rslab[0].real_to_complex);
  EXPECT_EQ(rslab[0].box, (Box{{0, 0, 4}, {8, 8, 8}}));
  EXPECT_EQ(rslab[0].out, (Box{{0, 0, 4}, {5, 8, 8}}));
  EXPECT_EQ(rslab[1].box, (Box{{0, 4, 0}, {5, 8, 8}}));
  EXPECT_FALSE(rslab[1].real);
  // r2c with x split and y, z whole: x must come first, so real blocks -> x-pencils (r2c) ->
  // complex blocks of the half grid, whose x split [0,3) | [3,5) differs from the field's.
  const auto rx = TransposePlan::chain({8, 6, 4}, {2, 1, 1}, {1, 0, 0}, FftKind::R2C);
  ASSERT_EQ(rx.size(), 3u);
  EXPECT_EQ(rx[0].name, "blocks");
  EXPECT_EQ(rx[0].box, (Box{{4, 0, 0}, {8, 6, 4}}));
  EXPECT_TRUE(rx[0].real && !rx[0].real_to_complex);
  EXPECT_EQ(rx[1].name, "x-pencils");
  EXPECT_EQ(rx[1].box, (Box{{0, 3, 0}, {8, 6, 4}}));
  EXPECT_EQ(rx[1].out, (Box{{0, 3, 0}, {5, 6, 4}}));
  EXPECT_TRUE(rx[1].real_to_complex);
  EXPECT_EQ(rx[2].name, "blocks = y-pencils = z-pencils");
  EXPECT_EQ(rx[2].box, (Box{{3, 0, 0}, {5, 6, 4}}));
  EXPECT_EQ(rx[2].fft_dims, std::vector<int>({1, 2}));
  // r2c on 2x2x2 takes the c2c chain's steps: x, x, y, z.
  const auto rfull = TransposePlan::chain({8, 8, 8}, {2, 2, 2}, {1, 0, 1}, FftKind::R2C);
  ASSERT_EQ(rfull.size(), 5u);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(rfull[std::size_t(s)].next_dim, dims[s]);
}

/// Zero-copy transposes with the default split, without any (one subarray message per peer),
/// and with every run sent as its own message (the test grids' runs are all below 32 KiB).
const std::int64_t kSplits[] = {TransposePlan::kDefaultSplitBytes, 0, 1};

TEST(Transpose, EveryStepAndRoundTripExact) {
  for (FftKind fft : kKinds)
    for (TransposeKind kind : kTransposes)
      for (std::int64_t split : kSplits)
        for (const Index3& n : kGrids)
          for_each_decomposition(
              n, fft == FftKind::R2C ? r2c_rank_grids() : kRankGrids,
              [&](const Decomposition& decomp) {
                SCOPED_TRACE(std::string(to_string(fft)) + " " + to_string(kind) + " split " +
                             std::to_string(split));
                if (kind == TransposeKind::Pack && split != kSplits[0]) return;
                TransposePlan plan(decomp, kind, fft, split);
                const auto& ls = plan.layouts();
                ASSERT_EQ(ls.front().box, decomp.owned());
                const std::size_t cap = std::size_t(std::max<std::int64_t>(plan.max_count(), 1));
                ASSERT_GE(std::int64_t(cap * sizeof(Complex)), plan.max_bytes());
                std::vector<std::vector<Complex>> from(ls.size(), std::vector<Complex>(cap)),
                    to(ls.size(), std::vector<Complex>(cap));
                for (int s = 0; s < plan.steps(); ++s) {
                  const std::size_t i = std::size_t(s);
                  const bool real = plan.step_real(s);
                  const Index3 g = grid_of(n, fft, real);
                  // Forward: layout s's output box into layout s+1's input box.
                  std::fill(to[i].begin(), to[i].end(), Complex(-1.0));
                  fill_indices(from[i].data(), real, ls[i].out, g);
                  plan.forward(s, from[i].data(), to[i].data());
                  EXPECT_EQ(index_mismatches(to[i].data(), real, ls[i + 1].box, g), 0)
                      << "forward step " << s << " to " << ls[i + 1].name;
                  // Backward: and back, into a buffer of garbage.
                  std::fill(from[i].begin(), from[i].end(), Complex(-2.0));
                  plan.backward(s, to[i].data(), from[i].data());
                  EXPECT_EQ(index_mismatches(from[i].data(), real, ls[i].out, g), 0)
                      << "backward step " << s << " to " << ls[i].name;
                }
              });
}

TEST(Transpose, PlanReusesTheCachedSubCommunicators) {
  for_each_decomposition({6, 6, 6}, [&](const Decomposition& decomp) {
    TransposePlan first(decomp, TransposeKind::ZeroCopy);
    const long created = dimension_comms_created();
    TransposePlan second(decomp, TransposeKind::Pack, FftKind::R2C);
    EXPECT_EQ(dimension_comms_created(), created);
  });
}

/// Deterministic complex test input at global cell (x, y, z).
Complex test_input(const Index3& n, int x, int y, int z) {
  const std::uint64_t g = std::uint64_t(x) + std::uint64_t(n[0]) * (y + std::uint64_t(n[1]) * z);
  return Complex(unit_double(splitmix64(g)) - 0.5, unit_double(splitmix64(g ^ 0xabcdef)) - 0.5);
}

/// Set the FFT's input to f(x, y, z): the real part for an r2c FFT.
template <class F>
void set_input(DistributedFft& fft, const F& f) {
  const Box in = fft.input_box();
  for (int z = in.lo[2]; z < in.hi[2]; ++z)
    for (int y = in.lo[1]; y < in.hi[1]; ++y)
      for (int x = in.lo[0]; x < in.hi[0]; ++x) {
        const Complex v = f(x, y, z);
        if (fft.kind() == FftKind::R2C)
          fft.real_input()[offset_in(in, x, y, z)] = v.real();
        else
          fft.input()[offset_in(in, x, y, z)] = v;
      }
}

/// The FFT's input at global cell (x, y, z) of its input box (imaginary part 0 for r2c).
Complex get_input(const DistributedFft& fft, int x, int y, int z) {
  const std::int64_t o = offset_in(fft.input_box(), x, y, z);
  return fft.kind() == FftKind::R2C ? Complex(fft.real_input()[o]) : fft.input()[o];
}

TEST(Fft, SingleModeGivesOneSpikeOfAmplitudeN) {
  // c2c: exp(i phi) is one mode of amplitude N. r2c: cos(phi) is the modes +m and -m with N/2
  // each, and only +m (kx = m_x <= NX/2) is stored.
  const Index3 n{12, 10, 9}, m{3, 7, 2};
  for (FftKind fft_kind : kKinds)
    for (TransposeKind kind : kTransposes)
      for_each_decomposition(n, [&](const Decomposition& decomp) {
        SCOPED_TRACE(to_string(fft_kind));
        DistributedFft fft(decomp, {fft_kind, kind, FftPlanning::Estimate});
        set_input(fft, [&](int x, int y, int z) {
          const double ph = kTwoPi * (double(m[0]) * x / n[0] + double(m[1]) * y / n[1] +
                                      double(m[2]) * z / n[2]);
          return Complex(std::cos(ph), std::sin(ph));
        });
        fft.forward();
        const Box sb = fft.spectral_box();
        const double total = double(n[0]) * n[1] * n[2];
        const double peak = fft_kind == FftKind::R2C ? total / 2 : total;
        double off_peak = 0, peak_error = 0;
        int peaks = 0;
        for (int z = sb.lo[2]; z < sb.hi[2]; ++z)
          for (int y = sb.lo[1]; y < sb.hi[1]; ++y)
            for (int x = sb.lo[0]; x < sb.hi[0]; ++x) {
              const Complex c = fft.spectral()[offset_in(sb, x, y, z)];
              if (x == m[0] && y == m[1] && z == m[2]) {
                ++peaks;
                peak_error = Kokkos::abs(c - Complex(peak, 0.0));
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
  for (FftKind fft_kind : kKinds)
    for (TransposeKind kind : kTransposes)
      for (const Index3& n : kGrids)
        for_each_decomposition(
            n, fft_kind == FftKind::R2C ? r2c_rank_grids() : kRankGrids,
            [&](const Decomposition& decomp) {
              SCOPED_TRACE(std::string(to_string(fft_kind)) + " " + to_string(kind));
              DistributedFft fft(decomp, {fft_kind, kind, FftPlanning::Estimate});
              const auto input = [&](int x, int y, int z) {
                const Complex v = test_input(n, x, y, z);
                return fft_kind == FftKind::R2C ? Complex(v.real()) : v;
              };
              set_input(fft, input);
              fft.forward();
              fft.inverse();
              const Box in = fft.input_box();
              double err = 0;
              for (int z = in.lo[2]; z < in.hi[2]; ++z)
                for (int y = in.lo[1]; y < in.hi[1]; ++y)
                  for (int x = in.lo[0]; x < in.hi[0]; ++x)
                    err = std::max(err, Kokkos::abs(get_input(fft, x, y, z) - input(x, y, z)));
              EXPECT_LE(err, 1e-14 * std::log2(double(n[0]) * n[1] * n[2]));
            });
}

TEST(Fft, RealToComplexIsTheHalfOfTheComplexSpectrum) {
  // The same real field through c2c and r2c: r2c's modes are c2c's with kx <= NX/2, to
  // round-off, on every grid and rank grid (uneven splits of NX and of NX/2+1 alike), and the
  // c2r inverse returns the field.
  for (TransposeKind kind : kTransposes)
    for (const Index3& n : kGrids)
      for_each_decomposition(n, r2c_rank_grids(), [&](const Decomposition& decomp) {
        SCOPED_TRACE(to_string(kind));
        const auto input = [&](int x, int y, int z) {
          return Complex(test_input(n, x, y, z).real());
        };
        DistributedFft c2c(decomp, {FftKind::C2C, kind, FftPlanning::Estimate});
        DistributedFft r2c(decomp, {FftKind::R2C, kind, FftPlanning::Estimate});
        set_input(c2c, input);
        set_input(r2c, input);
        c2c.forward();
        r2c.forward();
        // The whole c2c spectrum on every rank.
        const std::size_t cells = std::size_t(n[0]) * n[1] * n[2];
        std::vector<Complex> mine(cells, Complex(0.0)), all(cells);
        const Box cb = c2c.spectral_box();
        for (int z = cb.lo[2]; z < cb.hi[2]; ++z)
          for (int y = cb.lo[1]; y < cb.hi[1]; ++y)
            for (int x = cb.lo[0]; x < cb.hi[0]; ++x)
              mine[std::size_t(x) + std::size_t(n[0]) * (y + std::size_t(n[1]) * z)] =
                  c2c.spectral()[offset_in(cb, x, y, z)];
        MPI_Allreduce(mine.data(), all.data(), int(2 * cells), MPI_DOUBLE, MPI_SUM, decomp.comm());
        const Box rb = r2c.spectral_box();
        std::int64_t modes = 0;
        double err = 0, scale = 0;
        for (int z = rb.lo[2]; z < rb.hi[2]; ++z)
          for (int y = rb.lo[1]; y < rb.hi[1]; ++y)
            for (int x = rb.lo[0]; x < rb.hi[0]; ++x) {
              const Complex want =
                  all[std::size_t(x) + std::size_t(n[0]) * (y + std::size_t(n[1]) * z)];
              err = std::max(err, Kokkos::abs(r2c.spectral()[offset_in(rb, x, y, z)] - want));
              scale = std::max(scale, Kokkos::abs(want));
              ++modes;
            }
        EXPECT_LE(rb.hi[0], half_extent(n[0]));
        std::int64_t all_modes = 0;
        MPI_Allreduce(&modes, &all_modes, 1, MPI_INT64_T, MPI_SUM, decomp.comm());
        EXPECT_EQ(all_modes, std::int64_t(half_extent(n[0])) * n[1] * n[2]);
        EXPECT_LE(err, 1e-14 * std::log2(double(cells)) * std::max(scale, 1.0));
        // And back: the c2r inverse reproduces the field.
        r2c.inverse();
        const Box in = r2c.input_box();
        double back = 0;
        for (int z = in.lo[2]; z < in.hi[2]; ++z)
          for (int y = in.lo[1]; y < in.hi[1]; ++y)
            for (int x = in.lo[0]; x < in.hi[0]; ++x)
              back = std::max(back, Kokkos::abs(get_input(r2c, x, y, z) - input(x, y, z)));
        EXPECT_LE(back, 1e-14 * std::log2(double(cells)));
      });
}

TEST(Fft, MemoryEstimateIsTheLargestRanksAllocation) {
  for (FftKind fft_kind : kKinds)
    for (TransposeKind kind : kTransposes)
      for (const Index3& n : kGrids)
        for_each_decomposition(n, [&](const Decomposition& decomp) {
          const FftOptions o{fft_kind, kind, FftPlanning::Estimate};
          DistributedFft fft(decomp, o);
          double largest = 0, mine = double(fft.bytes());
          MPI_Allreduce(&mine, &largest, 1, MPI_DOUBLE, MPI_MAX, decomp.comm());
          EXPECT_EQ(largest, DistributedFft::estimate_bytes(n, decomp.dims(), o));
        });
}

TEST(Fft, RealToComplexNeedsAboutHalfTheMemory) {
  // Box arithmetic only (no allocation): the two buffers of the largest rank hold NX/2+1
  // complex values per x-line where c2c's hold NX, so about one field's bytes each: at most
  // 2.5 fields in all (the target for the spectral diagnostics) on realistic grids. (Tiny
  // grids are different: splitting NX/2+1 = 5 cells over 2 and then 3 over 2 can leave the
  // largest r2c box as large as c2c's.)
  for (const Index3& n :
       std::vector<Index3>{{128, 128, 128}, {256, 256, 256}, {96, 64, 48}, {130, 66, 34}})
    for (const Index3& p : r2c_rank_grids()) {
      SCOPED_TRACE(dims_text(n) + " on " + dims_text(p));
      // Bytes of one field on the largest rank: the block extents round up.
      const std::int64_t cells = std::int64_t((n[0] + p[0] - 1) / p[0]) *
                                 ((n[1] + p[1] - 1) / p[1]) * ((n[2] + p[2] - 1) / p[2]);
      const double field = 8.0 * double(cells);
      const double r2c = DistributedFft::estimate_bytes(n, p, {FftKind::R2C});
      const double c2c = DistributedFft::estimate_bytes(n, p, {FftKind::C2C});
      EXPECT_NEAR(c2c / field, 4.0, 0.2);
      EXPECT_LE(r2c / field, 2.5);
      EXPECT_LE(r2c / c2c, 0.6);
    }
}

TEST(Fft, MatchesDirectDft) {
  const Index3 n{6, 5, 4};
  for_each_decomposition(n, [&](const Decomposition& decomp) {
    DistributedFft fft(decomp, {FftKind::C2C, TransposeKind::ZeroCopy, FftPlanning::Measure});
    set_input(fft, [&](int x, int y, int z) { return test_input(n, x, y, z); });
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
  for (FftKind kind : kKinds) {
    SCOPED_TRACE(to_string(kind));
    c.fft = kind;
    SpectralDiagnostics spectral(sim.decomposition(), c.problem(), c.fft_options(),
                                 c.spectrum_options(), "");
    const SpectralCheckResult r = spectral.check(sim.field(), c.steps);
    EXPECT_TRUE(r.passed) << "max error " << r.max_error << " > " << r.tolerance;
    DistributedFft fft(sim.decomposition(), {kind, TransposeKind::ZeroCopy, FftPlanning::Estimate});
    const SpectralCheckResult bad =
        spectral_check(sim.field(), c.problem().initial_condition(),
                       StencilWeights::seven_point(c.problem().coefficients()), c.steps, fft,
                       sim.decomposition().comm());
    EXPECT_FALSE(bad.passed) << "the 7-point factor must not explain a 27-point run";
  }
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
    TimeStepper sim = make_stepper(c, comm);
    sim.run(c.steps);
    for (FftKind fft : kKinds)
      for (TransposeKind kind : kTransposes) {
        SCOPED_TRACE(std::string(to_string(fft)) + " " + to_string(kind));
        c.fft = fft;
        c.transpose = kind;
        SpectralDiagnostics spectral(sim.decomposition(), c.problem(), c.fft_options(),
                                     c.spectrum_options(), "");
        const SpectralCheckResult r = spectral.check(sim.field(), c.steps);
        EXPECT_TRUE(r.passed) << "max error " << r.max_error << " > " << r.tolerance;
        EXPECT_GT(r.max_error, 0.0);  // round-off exists: the comparison is real
        if (fft == FftKind::R2C) EXPECT_EQ(r.max_imag, 0.0);  // c2r: real by construction

        Coefficients wrong = c.problem().coefficients();
        wrong.ay *= 1.0 + 1e-6;
        DistributedFft f(sim.decomposition(), {fft, kind, FftPlanning::Estimate});
        const SpectralCheckResult bad = spectral_check(sim.field(), c.problem().initial_condition(),
                                                       StencilWeights::seven_point(wrong), c.steps,
                                                       f, sim.decomposition().comm());
        EXPECT_FALSE(bad.passed) << "a misstated coefficient must fail (error " << bad.max_error
                                 << ")";
      }
  });
}

TEST(Spectral, RealToComplexCheckFailsForAPerturbedField) {
  // Both stencils, r2c (the default): the check passes on the stepper's field and fails once
  // one cell is off by 1e-10, far below anything a plot would show.
  for (int stencil : {7, 27}) {
    Config c;
    c.grid = {12, 10, 9};
    c.init = InitKind::Random;
    c.stencil = stencil;
    c.steps = 10;
    on_rank_grids(
        {{1, 1, 1}, {2, 1, 1}, {1, 2, 2}, {2, 2, 2}}, [&](const Index3& p, MPI_Comm comm) {
          SCOPED_TRACE("stencil " + std::to_string(stencil) + " on " + dims_text(p));
          c.ranks = p;
          TimeStepper sim = make_stepper(c, comm);
          sim.run(c.steps);
          ASSERT_EQ(c.fft, FftKind::R2C) << "r2c is the default";
          SpectralDiagnostics spectral(sim.decomposition(), c.problem(), c.fft_options(),
                                       c.spectrum_options(), "");
          EXPECT_TRUE(spectral.check(sim.field(), c.steps).passed);
          Field& u = sim.field();
          if (u.owned().contains(5, 4, 3)) {
            auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
            host(u.index(5, 4, 3)) += 1e-10;
            Kokkos::deep_copy(u.view(), host);
          }
          const SpectralCheckResult bad = spectral.check(sim.field(), c.steps);
          EXPECT_FALSE(bad.passed) << "error " << bad.max_error << " <= " << bad.tolerance;
          EXPECT_NEAR(bad.max_error, 1e-10, 1e-12);
        });
  }
}

TEST(Spectral, EnergySpectrumSatisfiesParseval) {
  Config c;
  c.grid = {12, 10, 9};
  c.init = InitKind::Random;
  c.spacing = {0.5, 2.0, 1.0};
  on_rank_grids(kRankGrids, [&](const Index3& p, MPI_Comm comm) {
    c.ranks = p;
    TimeStepper sim = make_stepper(c, comm);
    const FieldSummary s = sim.summary();
    const double half_mean_square = 0.5 * s.l2 * s.l2 / double(s.cells);
    const double mean = s.sum / double(s.cells);
    for (Wavenumbers w : {Wavenumbers::Physical, Wavenumbers::Index}) {
      std::vector<double> c2c_energy;
      for (FftKind kind : {FftKind::C2C, FftKind::R2C}) {
        SCOPED_TRACE(std::string(to_string(kind)) + " " + to_string(w));
        DistributedFft fft(sim.decomposition(),
                           {kind, TransposeKind::ZeroCopy, FftPlanning::Estimate});
        const EnergySpectrum e = energy_spectrum(sim.field(), fft, c.spacing, {w}, comm);
        double total = 0;
        for (double v : e.energy) total += v;
        EXPECT_NEAR(total, half_mean_square, 1e-13 * half_mean_square);
        // The mean sits in shell 0: E(0) = mean^2 / 2.
        EXPECT_NEAR(e.energy[0], 0.5 * mean * mean, 1e-13);
        ASSERT_EQ(e.k.size(), e.energy.size());
        if (w == Wavenumbers::Index) {
          // The largest |k| = sqrt(6^2 + 5^2 + 4^2) = 8.77 rounds to shell 9.
          EXPECT_EQ(e.energy.size(), 10u);
          EXPECT_EQ(e.dk, 1.0);
        } else {
          // L = 6, 20, 9: shells of 2 pi / 20; the largest |k| / dk = sqrt((6 * 20/6)^2 +
          // (5 * 1)^2 + (4 * 20/9)^2) = 22.2 rounds to shell 22.
          EXPECT_EQ(e.energy.size(), 23u);
          EXPECT_NEAR(e.dk, kTwoPi / 20, 1e-15);
          EXPECT_NEAR(e.k[22], 22 * kTwoPi / 20, 1e-13);
        }
        // Shell by shell, the half spectrum with its Hermitian weights is the whole spectrum.
        if (kind == FftKind::C2C) {
          c2c_energy = e.energy;
        } else {
          ASSERT_EQ(e.energy.size(), c2c_energy.size());
          for (std::size_t i = 0; i < e.energy.size(); ++i)
            EXPECT_NEAR(e.energy[i], c2c_energy[i], 1e-15 * half_mean_square) << "shell " << i;
        }
      }
    }
  });
}

TEST(Spectral, SineModeLandsInItsPhysicalShell) {
  // A non-cubic box with unequal spacing: L = 16 x 0.5, 12 x 2, 10 x 1 = 8, 24, 10 m, so shells
  // are dk = 2 pi / 24 rad/m wide. u = cos(2 pi 3 x/16) cos(2 pi 2 y/12) cos(2 pi z/10) holds
  // the eight modes (+-3, +-2, +-1), all at |k| = 2 pi sqrt((3/8)^2 + (2/24)^2 + (1/10)^2)
  // = 9.53 dk: shell 10, with all of mean(u^2)/2 = 1/16. The index spectrum puts it at
  // round(sqrt(9 + 4 + 1)) = 4 instead.
  Config c;
  c.grid = {16, 12, 10};
  c.spacing = {0.5, 2.0, 1.0};
  c.init = InitKind::Sine;
  c.sine_mode = {3, 2, 1};
  const double dk = kTwoPi / 24;
  const double k = kTwoPi * std::sqrt(std::pow(3.0 / 8, 2) + std::pow(2.0 / 24, 2) + 0.01);
  const std::size_t shell = std::size_t(std::lround(k / dk));
  ASSERT_EQ(shell, 10u);
  for (const std::vector<Index3>& grids : {kRankGrids, kR2cRankGrids})
    on_rank_grids(grids, [&](const Index3& p, MPI_Comm comm) {
      c.ranks = p;
      TimeStepper sim = make_stepper(c, comm);
      for (FftKind kind : kKinds) {
        SCOPED_TRACE(std::string(to_string(kind)) + " on " + dims_text(p));
        DistributedFft fft(sim.decomposition(),
                           {kind, TransposeKind::ZeroCopy, FftPlanning::Estimate});
        const EnergySpectrum e = energy_spectrum(sim.field(), fft, c.spacing, {}, comm);
        EXPECT_STREQ(e.k_units(), "rad/m");
        EXPECT_NEAR(e.dk, dk, 1e-15);
        ASSERT_GT(e.energy.size(), shell);
        EXPECT_NEAR(e.k[shell], 10 * dk, 1e-14);
        for (std::size_t s = 0; s < e.energy.size(); ++s)
          EXPECT_NEAR(e.energy[s], s == shell ? 1.0 / 16 : 0.0, 1e-15) << "shell " << s;
        const EnergySpectrum ei =
            energy_spectrum(sim.field(), fft, c.spacing, {Wavenumbers::Index}, comm);
        EXPECT_NEAR(ei.energy[4], 1.0 / 16, 1e-15);
      }
    });
}

}  // namespace
}  // namespace miniapp::test
