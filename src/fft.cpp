#include "fft.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "timer.hpp"

namespace miniapp {

namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;

/// Strides (in elements) of the array of box b, x fastest; checked against FFTW's int.
std::array<int, 3> strides_of(const Box& b) {
  const std::int64_t s[3] = {1, b.extent(0), std::int64_t(b.extent(0)) * b.extent(1)};
  for (int d = 0; d < 3; ++d)
    if (s[d] > INT32_MAX) throw std::runtime_error("fft: a local box exceeds 2^31 cells");
  return {int(s[0]), int(s[1]), int(s[2])};
}

/// The transform and batch dimensions of FFTW's guru interface for the dimensions `dims` of
/// the arrays `in` (before) and `out` (after), slowest first as FFTW's row-major convention
/// wants it; x, when transformed, comes last, which is the dimension a real-to-complex
/// transform halves. n is the logical (real) extent: in's for forward plans, out's for the
/// inverse real ones (the caller swaps the boxes).
struct GuruDims {
  fftw_iodim transform[3], batch[3];
  int nt = 0, nb = 0;
};
GuruDims guru_dims(const Box& in, const Box& out, const std::vector<int>& dims, const Box& real) {
  const std::array<int, 3> is = strides_of(in), os = strides_of(out);
  GuruDims g;
  for (int d = 2; d >= 0; --d) {
    const fftw_iodim io{real.extent(d), is[std::size_t(d)], os[std::size_t(d)]};
    if (std::find(dims.begin(), dims.end(), d) != dims.end())
      g.transform[g.nt++] = io;
    else if (real.extent(d) > 1)
      g.batch[g.nb++] = io;
  }
  return g;
}

/// Complex-to-complex plan for the dimensions `dims` of the array of box b, in place on data;
/// the other dimensions are the batch. nullptr when there is nothing to transform.
fftw_plan plan_c2c(const Box& b, const std::vector<int>& dims, Complex* data, int sign,
                   unsigned flags) {
  if (dims.empty() || b.empty()) return nullptr;
  const GuruDims g = guru_dims(b, b, dims, b);
  auto* p = reinterpret_cast<fftw_complex*>(data);
  fftw_plan plan = fftw_plan_guru_dft(g.nt, g.transform, g.nb, g.batch, p, p, sign, flags);
  if (!plan) throw std::runtime_error("fft: FFTW could not plan a transform");
  return plan;
}

/// Real-to-complex (forward) or complex-to-real (inverse) plan for the dimensions `dims` (x
/// among them) between the real array of box `real_box` and the complex array of box
/// `complex_box`, out of place. nullptr when there is nothing to transform.
fftw_plan plan_r2c(const Box& real_box, const Box& complex_box, const std::vector<int>& dims,
                   double* real, Complex* spectral, bool forward, unsigned flags) {
  if (real_box.empty()) return nullptr;
  auto* c = reinterpret_cast<fftw_complex*>(spectral);
  fftw_plan plan = nullptr;
  if (forward) {
    const GuruDims g = guru_dims(real_box, complex_box, dims, real_box);
    plan = fftw_plan_guru_dft_r2c(g.nt, g.transform, g.nb, g.batch, real, c, flags);
  } else {
    const GuruDims g = guru_dims(complex_box, real_box, dims, real_box);
    plan = fftw_plan_guru_dft_c2r(g.nt, g.transform, g.nb, g.batch, c, real, flags);
  }
  if (!plan) throw std::runtime_error("fft: FFTW could not plan a real transform");
  return plan;
}

/// Let FFTW plan with as many threads as the host execution space has (fftw3_omp, when found).
void use_host_threads() {
#ifdef MINIAPP_HAVE_FFTW_OMP
  static const bool initialised = fftw_init_threads() != 0;
  if (!initialised) throw std::runtime_error("fft: fftw_init_threads failed");
  fftw_plan_with_nthreads(HostExec().concurrency());
#endif
}

void fill(const ComplexBuffer& buf, Complex value) {
  Kokkos::parallel_for("miniapp::fft::first_touch", Kokkos::RangePolicy<HostExec>(0, buf.extent(0)),
                       [=](std::size_t i) { buf(i) = value; });
  HostExec().fence();
}

/// Bytes of one FFT buffer for a chain: the largest layout, real cells 8 B, complex 16 B. In
/// double: estimates are made for grids whose cell counts overflow 64 bits, to refuse them.
double buffer_bytes(const std::vector<PencilLayout>& layouts) {
  const auto cells = [](const Box& b) { return double(b.extent(0)) * b.extent(1) * b.extent(2); };
  double bytes = 0;
  for (const PencilLayout& l : layouts) {
    const double in = l.real ? 8 : 16, out = l.real && !l.real_to_complex ? 8 : 16;
    bytes = std::max({bytes, in * cells(l.box), out * cells(l.out)});
  }
  return bytes;
}

}  // namespace

DistributedFft::DistributedFft(const Decomposition& decomp, const FftOptions& options)
    : options_(options),
      plan_(decomp, options.transpose, options.kind, options.split_bytes),
      global_(decomp.global()) {
  const std::size_t n = std::size_t(std::max<std::int64_t>((plan_.max_bytes() + 15) / 16, 1));
  for (int i = 0; i < 2; ++i) {
    buf_[i] = ComplexBuffer(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, i ? "miniapp::fft::b" : "miniapp::fft::a"),
        n);
    fill(buf_[i], Complex(0.0));
  }
  // Where each layout's data live: a transpose always lands in the other buffer, and the
  // real-to-complex layout writes its output into the other buffer too.
  const auto& layouts = plan_.layouts();
  int b = 0;
  for (const PencilLayout& l : layouts) {
    in_buf_.push_back(b);
    if (l.real_to_complex) b = 1 - b;
    out_buf_.push_back(b);
    b = 1 - b;
  }
  const unsigned flags = options.planning == FftPlanning::Measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  use_host_threads();
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const PencilLayout& l = layouts[i];
    Complex* in = buf_[in_buf_[i]].data();
    Complex* out = buf_[out_buf_[i]].data();
    if (l.real_to_complex) {
      double* real = reinterpret_cast<double*>(in);
      forward_plans_.push_back(plan_r2c(l.box, l.out, l.fft_dims, real, out, true, flags));
      inverse_plans_.push_back(plan_r2c(l.box, l.out, l.fft_dims, real, out, false, flags));
    } else {
      forward_plans_.push_back(plan_c2c(l.out, l.fft_dims, out, FFTW_FORWARD, flags));
      inverse_plans_.push_back(plan_c2c(l.out, l.fft_dims, out, FFTW_BACKWARD, flags));
    }
  }
  // FFTW_MEASURE scribbled on the buffers while planning.
  for (int i = 0; i < 2; ++i) fill(buf_[i], Complex(0.0));
  times_.steps.assign(std::size_t(plan_.steps()), 0.0);
}

DistributedFft::~DistributedFft() {
  for (auto* plans : {&forward_plans_, &inverse_plans_})
    for (fftw_plan p : *plans)
      if (p) fftw_destroy_plan(p);
}

Complex* DistributedFft::input() const {
  if (options_.kind != FftKind::C2C)
    throw std::logic_error("fft: input() is the complex input of a c2c FFT; use real_input()");
  return buf_[in_buf_.front()].data();
}

double* DistributedFft::real_input() const {
  if (options_.kind != FftKind::R2C)
    throw std::logic_error("fft: real_input() is the real input of an r2c FFT; use input()");
  return reinterpret_cast<double*>(buf_[in_buf_.front()].data());
}

void DistributedFft::execute(fftw_plan p) {
  if (!p) return;
  ScopedTimer timer(times_.transforms, "miniapp::fft::transform");
  fftw_execute(p);
}

void DistributedFft::forward() {
  const int steps = plan_.steps();
  for (int s = 0; s <= steps; ++s) {
    const std::size_t i = std::size_t(s);
    execute(forward_plans_[i]);
    if (s == steps) break;
    ScopedTimer timer(times_.steps[i], "miniapp::fft::transpose");
    plan_.forward(s, buf_[out_buf_[i]].data(), buf_[in_buf_[i + 1]].data());
  }
}

void DistributedFft::inverse() {
  for (int s = plan_.steps(); s >= 0; --s) {
    const std::size_t i = std::size_t(s);
    execute(inverse_plans_[i]);
    if (s == 0) break;
    ScopedTimer timer(times_.steps[i - 1], "miniapp::fft::transpose");
    plan_.backward(s - 1, buf_[in_buf_[i]].data(), buf_[out_buf_[i - 1]].data());
  }
  ScopedTimer timer(times_.transforms, "miniapp::fft::scale");
  const double scale = 1.0 / (double(global_[0]) * double(global_[1]) * double(global_[2]));
  const std::size_t cells = std::size_t(input_box().count());
  if (options_.kind == FftKind::R2C) {
    double* u = real_input();
    Kokkos::parallel_for("miniapp::fft::scale", Kokkos::RangePolicy<HostExec>(0, cells),
                         [=](std::size_t i) { u[i] *= scale; });
  } else {
    Complex* u = input();
    Kokkos::parallel_for("miniapp::fft::scale", Kokkos::RangePolicy<HostExec>(0, cells),
                         [=](std::size_t i) { u[i] *= scale; });
  }
  HostExec().fence();
}

void DistributedFft::reset_timers() {
  times_.transforms = 0;
  std::fill(times_.steps.begin(), times_.steps.end(), 0.0);
}

std::int64_t DistributedFft::bytes() const {
  const std::int64_t buffers = std::int64_t(buf_[0].extent(0)) * 2 * 16;  // 2 complex buffers
  return options_.transpose == TransposeKind::Pack && plan_.steps() > 0 ? 2 * buffers : buffers;
}

double DistributedFft::estimate_bytes(const Index3& global, const Index3& dims,
                                      const FftOptions& options) {
  const std::vector<PencilLayout> layouts =
      TransposePlan::chain(global, dims, {0, 0, 0}, options.kind);
  const double one = 16.0 * std::max(std::ceil(buffer_bytes(layouts) / 16.0), 1.0);
  const bool staged = options.transpose == TransposeKind::Pack && layouts.size() > 1;
  return (staged ? 4 : 2) * one;
}

}  // namespace miniapp
