// StoreChoice: which stores a rank's sweeps from memory take, chosen by timing the sweeps.
//
// A sweep whose fields do not fit in the cache writes its output either with ordinary stores
// (the target line is read into the cache first: 24 B of memory traffic per cell) or with
// streaming ones (written straight to memory: 16 B). Fewer bytes is not always faster, and on
// a shared machine not even the same answer from one minute to the next: on a 2-core Zen 3 VM
// the 7-point sweep at 256^3 took 9.0-10.5 ms with streaming stores against 10.0-11.8 ms with
// ordinary ones, then, in the same process, 8.5-9.0 ms against 7.5 ms. So the answer is
// measured on the sweeps themselves, and measured again while the run goes on:
//
//   rounds 1 .. 4S take the favourite twice, then the other kind twice, in turn (S = kSamples;
//   the favourite starts as streaming);
//   then the rounds take the favourite, with a probe of the other kind (two rounds) every P;
//   a choice given a first kind (the faster in a calibration just before the run, --halo-width
//   auto) starts there: it takes that kind from round 1, the first probe P rounds on;
//   a round counts only when the round before it took the same kind (it is "warm"), and each
//   warm round of the other kind is paired with the favourite's warm rounds before and after:
//       ratio = t(other) / mean(t(favourite) before, t(favourite) after)   (seconds per cell)
//   when the median of the last S ratios is below 1 - kMargin the two change places;
//   P starts at kProbeEvery, doubles (up to kProbeEveryMax) after each probe while that median
//   and the latest ratio are above 1 + kClear (the other kind clearly slower), and falls back
//   to kProbeEvery otherwise.
//
// Pairing neighbours compares both kinds under the same state of the machine: a burst of
// noise slows a probe and its neighbours alike, where comparing recent medians of each kind
// switched on bursts. Counting warm rounds only keeps each kind's debts with it: a sweep with
// ordinary stores leaves up to a cache's worth of its output dirty, and the next sweep writes
// it back. With one probe round between favourites, an ordinary probe after streaming rounds
// inherited nothing and the streaming round after it paid its write-backs (measured on an AMD
// Zen 5 VM, 256^3, two threads: the first ordinary sweep after streaming ones 8.0-8.6 ms, the
// fourth to sixth 9.3-11.7), so the choice took ordinary stores where they were 3-30 % slower
// (bench stencil, 6 of 8 runs: 4.9-5.4 ms against 3.4-5.0 with streaming stores fixed).
// A probe of the slower kind costs about twice their difference / P: where one kind is clearly
// faster the probes thin out, where the two are close they stay frequent. The first rounds cost
// half their difference on the rounds they take; a first kind saves that where it is right, and
// costs the difference until S probes outvote it (about S * P rounds) where it is wrong.
// The values a sweep computes do not depend on its stores, so no choice can change a result.
// Each rank chooses for itself, from its own timings: no communication.
#pragma once

#include <array>
#include <cstdint>

#include "names.hpp"
#include "stencil.hpp"

namespace miniapp {

/// How the stores of a rank's sweeps from memory are chosen: Adaptive by timing (see the
/// header comment); Streaming and Ordinary fix them.
enum class StorePolicy { Adaptive, Streaming, Ordinary };
inline constexpr NameTable<StorePolicy, 3> kStorePolicyNames{{{StorePolicy::Adaptive, "adaptive"},
                                                              {StorePolicy::Streaming, "streaming"},
                                                              {StorePolicy::Ordinary, "ordinary"}}};
inline const char* to_string(StorePolicy p) { return name_of(kStorePolicyNames, p); }
inline constexpr NameTable<SweepStores, 3> kSweepStoresNames{{{SweepStores::Auto, "auto"},
                                                              {SweepStores::Streaming, "streaming"},
                                                              {SweepStores::Ordinary, "ordinary"}}};
inline const char* to_string(SweepStores s) { return name_of(kSweepStoresNames, s); }

class StoreChoice {
 public:
  static constexpr int kSamples = 3;          ///< ratios a decision looks at
  static constexpr int kProbeEvery = 16;      ///< rounds per probe of the other kind, at first
  static constexpr int kProbeEveryMax = 128;  ///< ... and at most
  static constexpr double kMargin = 0.02;     ///< how much faster the other kind must be
  static constexpr double kClear = 0.10;      ///< how much slower it is when clearly slower
  static constexpr int kFirstRounds = 4 * kSamples;  ///< rounds that alternate the two kinds

  /// `from_memory`: whether the sweeps run from memory (sweep_streams_from_memory); where they
  /// do not, every round takes SweepStores::Auto (its kernels then write through the cache)
  /// and nothing is recorded. `first` (Streaming or Ordinary; adaptive from memory only): the
  /// favourite from round 1, without the first rounds that take both kinds in turn.
  explicit StoreChoice(StorePolicy policy = StorePolicy::Adaptive, bool from_memory = true,
                       SweepStores first = SweepStores::Auto);

  /// The stores the next round's sweeps take.
  SweepStores next() const;
  /// What the round that took `stores` cost, in seconds per cell updated.
  void record(SweepStores stores, double seconds_per_cell);

  StorePolicy policy() const { return policy_; }
  bool from_memory() const { return from_memory_; }
  /// The kind the rounds take between probes.
  SweepStores favourite() const { return favourite_; }
  /// Rounds recorded that took `stores` (Streaming or Ordinary).
  std::int64_t rounds(SweepStores stores) const { return count_[slot(stores)]; }
  /// Times the favourite changed.
  int switches() const { return switches_; }
  /// The favourite the choice was given to start from, Auto where its first rounds took both
  /// kinds in turn.
  SweepStores first() const { return first_; }

 private:
  static std::size_t slot(SweepStores s) { return s == SweepStores::Ordinary ? 1 : 0; }
  SweepStores other() const;
  /// Rounds that alternate the two kinds: none for a choice given its first kind.
  int first_rounds() const { return first_ == SweepStores::Auto ? kFirstRounds : 0; }
  /// Median of the last kSamples ratios.
  double median_ratio() const;

  StorePolicy policy_;
  bool from_memory_;
  SweepStores favourite_ = SweepStores::Streaming;
  SweepStores first_ = SweepStores::Auto;
  std::array<std::int64_t, 2> count_{};
  SweepStores last_ = SweepStores::Auto;  ///< the kind of the latest round recorded
  double favourite_last_ = 0;  ///< seconds per cell of the favourite's latest warm round (0: none)
  double probe_ = 0, probe_before_ = 0;  ///< the other kind's latest warm round, the one before it
  bool probe_pending_ = false;           ///< waiting for the favourite's warm round after the probe
  std::array<double, kSamples> ratios_{};  ///< ring buffer
  int ratio_count_ = 0;
  int probe_every_ = kProbeEvery;
  std::int64_t next_probe_ = kFirstRounds + kProbeEvery - 1;  ///< round index of the next probe
  int switches_ = 0;
};

/// One sweep of `region` (apply_stencil) with the stores `choice` names, fenced, and its time
/// per cell fed back to choice: a sweep on its own choosing as the stepper's rounds do. Its
/// seconds. Not collective.
double sweep_choosing(StoreChoice& choice, int points, const Field& u, Field& v, const Box& region,
                      const Coefficients& a, bool flat_z);

}  // namespace miniapp
