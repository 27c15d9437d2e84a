// --explain: the teaching view of a run, printed by rank 0 before it starts (or instead of it,
// with --explain-only):
//
//   the rank grid and why          every candidate factorisation and its halo surface
//   one rank's block               owned cells, ghost layers, neighbours in all 26 directions
//   the halo exchange              per phase: messages, boxes, bytes, and the pack kernel's
//                                  boxes or the MPI subarray datatypes; the boundary fills
//   the deep-halo schedule         the region each sub-step updates and the redundant work
//   overlap and temporal blocking  what runs while the messages fly; the tile
//   the spectral features          each transpose's torus dimension, sub-communicator, and
//                                  the all-to-all blocks this rank sends
//
// Everything is computed by the same pure plan functions the run executes (halo_plan.hpp,
// Decomposition::candidates, TransposePlan::chain), for any rank count and without a
// communicator or a field: a login node can explain a 4096-rank run (--explain-ranks).
#pragma once

#include <string>

#include "options.hpp"

namespace miniapp {

/// The explanation of a run of `config` on `nranks` ranks, as rank `rank` sees it. Throws
/// ConfigError when no rank grid fits. Not collective.
std::string explain(const Config& config, int nranks, int rank);

}  // namespace miniapp
