#include "fft.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "timer.hpp"

namespace miniapp {

namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;

/// FFTW guru plan for the dimensions `dims` of the array of box b (x fastest), in place on data;
/// the other dimensions are the batch. nullptr when there is nothing to transform.
fftw_plan plan_layout(const Box& b, std::vector<int> dims, Complex* data, int sign,
                      unsigned flags) {
  if (dims.empty() || b.empty()) return nullptr;
  const std::int64_t stride[3] = {1, b.extent(0), std::int64_t(b.extent(0)) * b.extent(1)};
  for (int d = 0; d < 3; ++d)
    if (stride[d] > INT32_MAX) throw std::runtime_error("fft: a local box exceeds 2^31 cells");
  // Slowest dimension first, the order FFTW's row-major documentation uses.
  std::sort(dims.begin(), dims.end(), std::greater<int>());
  fftw_iodim transform[3], batch[3];
  int nt = 0, nb = 0;
  for (int d = 2; d >= 0; --d) {
    const fftw_iodim io{b.extent(d), int(stride[d]), int(stride[d])};
    if (std::find(dims.begin(), dims.end(), d) != dims.end())
      transform[nt++] = io;
    else if (b.extent(d) > 1)
      batch[nb++] = io;
  }
  auto* p = reinterpret_cast<fftw_complex*>(data);
  fftw_plan plan = fftw_plan_guru_dft(nt, transform, nb, batch, p, p, sign, flags);
  if (!plan) throw std::runtime_error("fft: FFTW could not plan a transform");
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

}  // namespace

DistributedFft::DistributedFft(const Decomposition& decomp, TransposeKind kind,
                               FftPlanning planning)
    : plan_(decomp, kind), global_(decomp.global()) {
  const std::size_t n = std::size_t(std::max<std::int64_t>(plan_.max_count(), 1));
  for (int i = 0; i < 2; ++i) {
    buf_[i] = ComplexBuffer(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, i ? "miniapp::fft::b" : "miniapp::fft::a"),
        n);
    fill(buf_[i], Complex(0.0));
  }
  const unsigned flags = planning == FftPlanning::Measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  use_host_threads();
  for (std::size_t i = 0; i < plan_.layouts().size(); ++i) {
    const PencilLayout& l = plan_.layouts()[i];
    Complex* data = buf_[i % 2].data();
    forward_plans_.push_back(plan_layout(l.box, l.fft_dims, data, FFTW_FORWARD, flags));
    inverse_plans_.push_back(plan_layout(l.box, l.fft_dims, data, FFTW_BACKWARD, flags));
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

void DistributedFft::execute(fftw_plan p) {
  if (!p) return;
  ScopedTimer timer(times_.transforms, "miniapp::fft::transform");
  fftw_execute(p);
}

void DistributedFft::forward() {
  const int steps = plan_.steps();
  for (int s = 0; s <= steps; ++s) {
    execute(forward_plans_[std::size_t(s)]);
    if (s == steps) break;
    ScopedTimer timer(times_.steps[std::size_t(s)], "miniapp::fft::transpose");
    plan_.forward(s, buf_[s % 2].data(), buf_[(s + 1) % 2].data());
  }
}

void DistributedFft::inverse() {
  for (int s = plan_.steps(); s >= 0; --s) {
    execute(inverse_plans_[std::size_t(s)]);
    if (s == 0) break;
    ScopedTimer timer(times_.steps[std::size_t(s - 1)], "miniapp::fft::transpose");
    plan_.backward(s - 1, buf_[s % 2].data(), buf_[(s - 1) % 2].data());
  }
  ScopedTimer timer(times_.transforms, "miniapp::fft::scale");
  const double scale = 1.0 / (double(global_[0]) * double(global_[1]) * double(global_[2]));
  const ComplexBuffer b = buf_[0];
  Kokkos::parallel_for("miniapp::fft::scale",
                       Kokkos::RangePolicy<HostExec>(0, std::size_t(input_box().count())),
                       [=](std::size_t i) { b(i) *= scale; });
  HostExec().fence();
}

void DistributedFft::reset_timers() {
  times_.transforms = 0;
  std::fill(times_.steps.begin(), times_.steps.end(), 0.0);
}

}  // namespace miniapp
