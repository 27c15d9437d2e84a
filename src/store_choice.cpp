#include "store_choice.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>

namespace miniapp {

StoreChoice::StoreChoice(StorePolicy policy, bool from_memory, SweepStores first)
    : policy_(policy), from_memory_(from_memory) {
  if (policy == StorePolicy::Ordinary) favourite_ = SweepStores::Ordinary;
  if (policy == StorePolicy::Adaptive && from_memory && first != SweepStores::Auto) {
    favourite_ = first_ = first;
    next_probe_ = kProbeEvery - 1;
  }
}

SweepStores StoreChoice::other() const {
  return favourite_ == SweepStores::Streaming ? SweepStores::Ordinary : SweepStores::Streaming;
}

SweepStores StoreChoice::next() const {
  if (!from_memory_) return SweepStores::Auto;
  if (policy_ != StorePolicy::Adaptive) return favourite_;
  const std::int64_t n = count_[0] + count_[1];
  if (n < first_rounds()) return n % 4 < 2 ? favourite_ : other();
  return n == next_probe_ || n == next_probe_ + 1 ? other() : favourite_;
}

void StoreChoice::record(SweepStores stores, double seconds_per_cell) {
  if (!from_memory_ || stores == SweepStores::Auto) return;
  ++count_[slot(stores)];
  const bool warm = stores == last_;
  last_ = stores;
  if (policy_ != StorePolicy::Adaptive || !warm) return;
  if (stores != favourite_) {
    probe_ = seconds_per_cell;
    probe_before_ = favourite_last_;
    probe_pending_ = true;
    return;
  }
  const double t = seconds_per_cell;
  // This round is n - 1; the probe's two rounds were n - 4 and n - 3.
  const std::int64_t n = count_[0] + count_[1];
  if (probe_pending_) {
    probe_pending_ = false;
    const double around = probe_before_ > 0 ? 0.5 * (probe_before_ + t) : t;
    const double ratio = probe_ / around;
    ratios_[std::size_t(ratio_count_ % kSamples)] = ratio;
    ++ratio_count_;
    if (n > first_rounds() + 2) {  // a probe after the first rounds: when is the next
      const bool clear =
          ratio > 1 + kClear && ratio_count_ >= kSamples && median_ratio() > 1 + kClear;
      probe_every_ = clear ? std::min(2 * probe_every_, kProbeEveryMax) : kProbeEvery;
      next_probe_ = n - 4 + probe_every_;
    }
    if (ratio_count_ >= kSamples && median_ratio() < 1 - kMargin) {
      // The two change places: the ratios turn over, and this round, of the kind that is now
      // the other, waits to be paired with the new favourite's rounds either side of it.
      favourite_ = other();
      ++switches_;
      for (double& r : ratios_) r = 1 / r;
      probe_every_ = kProbeEvery;
      next_probe_ = n - 1 + kProbeEvery;
      probe_before_ = probe_;
      probe_ = t;
      probe_pending_ = true;
      favourite_last_ = probe_before_;
      return;
    }
  }
  favourite_last_ = t;
}

double StoreChoice::median_ratio() const {
  std::array<double, kSamples> r = ratios_;
  std::sort(r.begin(), r.end());
  return r[kSamples / 2];
}

double sweep_choosing(StoreChoice& choice, int points, const Field& u, Field& v, const Box& region,
                      const Coefficients& a, bool flat_z) {
  const SweepStores stores = choice.next();
  Kokkos::Timer timer;
  apply_stencil(points, u, v, region, a, flat_z, stores);
  Kokkos::fence();
  const double seconds = timer.seconds();
  choice.record(stores, seconds / double(std::max<std::int64_t>(region.count(), 1)));
  return seconds;
}

}  // namespace miniapp
