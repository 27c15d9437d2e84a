#include "cart_subcomms.hpp"

#include <stdexcept>
#include <string>

#include "mpi_utils.hpp"

namespace miniapp {

namespace {

long g_created = 0;
int g_keyval = MPI_KEYVAL_INVALID;

struct Cached {
  std::vector<MPI_Comm> comms;
};

int delete_cached(MPI_Comm, int, void* value, void*) {
  auto* cached = static_cast<Cached*>(value);
  for (MPI_Comm& c : cached->comms) MPI_Comm_free(&c);
  delete cached;
  return MPI_SUCCESS;
}

}  // namespace

const std::vector<MPI_Comm>& dimension_comms(MPI_Comm cart) {
  int topo = MPI_UNDEFINED;
  mpi_check(MPI_Topo_test(cart, &topo), "MPI_Topo_test");
  if (topo != MPI_CART)
    throw std::invalid_argument("dimension_comms: the communicator has no Cartesian topology");
  if (g_keyval == MPI_KEYVAL_INVALID)
    mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cached, &g_keyval, nullptr),
              "MPI_Comm_create_keyval");
  void* value = nullptr;
  int found = 0;
  mpi_check(MPI_Comm_get_attr(cart, g_keyval, &value, &found), "MPI_Comm_get_attr");
  if (found) return static_cast<Cached*>(value)->comms;

  int ndims = 0;
  mpi_check(MPI_Cartdim_get(cart, &ndims), "MPI_Cartdim_get");
  auto* cached = new Cached;
  cached->comms.resize(std::size_t(ndims), MPI_COMM_NULL);
  std::vector<int> keep(static_cast<std::size_t>(ndims));
  for (int k = 0; k < ndims; ++k) {
    for (int e = 0; e < ndims; ++e) keep[std::size_t(e)] = e == k;
    mpi_check(MPI_Cart_sub(cart, keep.data(), &cached->comms[std::size_t(k)]), "MPI_Cart_sub");
    ++g_created;
  }
  mpi_check(MPI_Comm_set_attr(cart, g_keyval, cached), "MPI_Comm_set_attr");
  return cached->comms;
}

long dimension_comms_created() { return g_created; }

CommHandle make_torus(MPI_Comm comm, const std::vector<int>& dims) {
  int size = 0;
  mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::string shape;
  long long product = 1;
  bool positive = !dims.empty();
  for (int p : dims) {
    shape += (shape.empty() ? "" : "x") + std::to_string(p);
    positive = positive && p > 0;
    product *= p > 0 ? p : 1;
  }
  if (!positive)
    throw std::invalid_argument("torus dims '" + shape + "': need at least one dimension, all > 0");
  if (product != size)
    throw std::invalid_argument("torus dims " + shape + " multiply to " + std::to_string(product) +
                                " but the communicator has " + std::to_string(size) + " ranks");
  const std::vector<int> periodic(dims.size(), 1);
  MPI_Comm cart = MPI_COMM_NULL;
  mpi_check(MPI_Cart_create(comm, int(dims.size()), dims.data(), periodic.data(), 0, &cart),
            "MPI_Cart_create");
  return CommHandle(cart);
}

}  // namespace miniapp
