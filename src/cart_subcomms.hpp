// Per-dimension sub-communicators of a Cartesian communicator, created once with MPI_Cart_sub
// and cached on the communicator as an attribute (MPI_Comm_create_keyval / MPI_Comm_set_attr).
// The attribute's delete callback frees them when the Cartesian communicator is freed, so
// callers never own them. Used by the torus all-to-all and the pencil transposes.
#pragma once

#include <mpi.h>

#include <vector>

#include "mpi_utils.hpp"

namespace miniapp {

/// A d-dimensional Cartesian torus (periodic in every dimension, ranks not reordered) over
/// `comm` with rank grid `dims`. Throws std::invalid_argument naming the values when a
/// dimension is not positive or the product of `dims` differs from the size of `comm`.
/// Collective over comm.
CommHandle make_torus(MPI_Comm comm, const std::vector<int>& dims);

/// Sub-communicator k keeps dimension k of `cart` (ranks ordered by that coordinate), for
/// k = 0 .. ndims-1. The first call on a communicator is collective (it splits); later calls
/// return the cached ones and are local. Throws std::invalid_argument when `cart` has no
/// Cartesian topology.
const std::vector<MPI_Comm>& dimension_comms(MPI_Comm cart);

/// Number of sub-communicators created by dimension_comms() so far in this process (tests
/// use it to assert that repeated calls reuse the cache).
long dimension_comms_created();

}  // namespace miniapp
