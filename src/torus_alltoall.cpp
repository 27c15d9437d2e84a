#include "torus_alltoall.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "cart_subcomms.hpp"

namespace miniapp {

namespace {

std::string shape_of(const std::vector<int>& dims) {
  std::string s;
  for (int p : dims) s += (s.empty() ? "" : "x") + std::to_string(p);
  return s;
}

/// Committed `resized(t, lb, extent)`.
TypeHandle resized(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent) {
  MPI_Datatype r = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_create_resized(t, lb, extent, &r), "MPI_Type_create_resized");
  TypeHandle h(r);
  mpi_check(MPI_Type_commit(&r), "MPI_Type_commit");
  return h;
}

}  // namespace

/// The datatypes of one piece length m: slab type of phase k in the caller's (full) layout,
/// where consecutive blocks are count·extent apart, and in the compact layout of the
/// temporary, where they are m·extent apart.
struct TorusAlltoall::Slabs {
  std::vector<TypeHandle> full, temp;
};

TorusAlltoall::TorusAlltoall(MPI_Comm cart, int count, MPI_Datatype type, int pieces,
                             bool pipelined, long split_bytes)
    : count_(count), pieces_(pieces), pipelined_(pipelined), type_(type) {
  if (cart == MPI_COMM_NULL)
    throw std::invalid_argument("torus_alltoall: the communicator is MPI_COMM_NULL");
  int topo = MPI_UNDEFINED;
  mpi_check(MPI_Topo_test(cart, &topo), "MPI_Topo_test");
  if (topo != MPI_CART)
    throw std::invalid_argument(
        "torus_alltoall: the communicator has no Cartesian topology (create it with "
        "MPI_Cart_create or miniapp::make_torus)");
  if (count < 0)
    throw std::invalid_argument("torus_alltoall: count=" + std::to_string(count) + " is negative");
  if (pieces < 1)
    throw std::invalid_argument("torus_alltoall: pieces=" + std::to_string(pieces) +
                                " must be at least 1");
  mpi_check(MPI_Type_get_extent(type, &lb_, &extent_), "MPI_Type_get_extent");
  MPI_Aint true_extent = 0;
  mpi_check(MPI_Type_get_true_extent(type, &true_lb_, &true_extent), "MPI_Type_get_true_extent");
  if (extent_ <= 0)
    throw std::invalid_argument("torus_alltoall: the datatype's extent " + std::to_string(extent_) +
                                " must be positive");

  int ndims = 0, size = 0;
  mpi_check(MPI_Cartdim_get(cart, &ndims), "MPI_Cartdim_get");
  mpi_check(MPI_Comm_size(cart, &size), "MPI_Comm_size");
  dims_.resize(std::size_t(ndims));
  std::vector<int> periods(dims_.size()), coords(dims_.size());
  mpi_check(MPI_Cart_get(cart, ndims, dims_.data(), periods.data(), coords.data()), "MPI_Cart_get");
  long long product = 1;
  for (int p : dims_) product *= p;
  if (ndims == 0 || product != size)
    throw std::invalid_argument("torus_alltoall: Cartesian dims " + shape_of(dims_) +
                                " do not factor the communicator's " + std::to_string(size) +
                                " ranks");
  comms_ = dimension_comms(cart);
  for (int k = 0; k < ndims; ++k) {
    int sub = 0;
    mpi_check(MPI_Comm_size(comms_[std::size_t(k)], &sub), "MPI_Comm_size");
    if (sub != dims_[std::size_t(k)])
      throw std::logic_error("torus_alltoall: sub-communicator " + std::to_string(k) + " has " +
                             std::to_string(sub) + " ranks, expected " +
                             std::to_string(dims_[std::size_t(k)]));
  }

  // Overflow: a buffer spans p·count·extent bytes; it must be addressable as MPI_Aint.
  MPI_Aint span = 0;
  if (__builtin_mul_overflow(MPI_Aint(size), MPI_Aint(count), &span) ||
      __builtin_mul_overflow(span, extent_, &span))
    throw std::overflow_error("torus_alltoall: " + std::to_string(size) + " ranks x count " +
                              std::to_string(count) + " x extent " + std::to_string(extent_) +
                              " bytes overflows MPI_Aint");

  if (ndims > 1 && count > 0) {
    const MPI_Aint m_max = (MPI_Aint(count) + pieces - 1) / pieces;
    const int slots = pipelined ? std::min(pieces, ndims) : 1;
    temp_slot_bytes_ = std::size_t((MPI_Aint(size) * m_max - 1) * extent_ + true_extent);
    temp_slot_bytes_ = (temp_slot_bytes_ + 63) / 64 * 64;
    // Allocated and touched once here: page faults on every call would cost more than the copy.
    temp_.assign(temp_slot_bytes_ * std::size_t(slots), std::byte{0});
  }
  int type_size = 0;
  mpi_check(MPI_Type_size(type, &type_size), "MPI_Type_size");
  outer_.assign(dims_.size(), 1);
  inner_.assign(dims_.size(), 1);
  split_.assign(dims_.size(), 0);
  for (int k = 0; k < ndims; ++k) {
    for (int i = 0; i < k; ++i) outer_[std::size_t(k)] *= dims_[std::size_t(i)];
    for (int i = k + 1; i < ndims; ++i) inner_[std::size_t(k)] *= dims_[std::size_t(i)];
    const long run = long(inner_[std::size_t(k)]) * count * long(type_size);
    split_[std::size_t(k)] =
        pieces == 1 && outer_[std::size_t(k)] > 1 && split_bytes > 0 && run >= split_bytes &&
        long(count) * inner_[std::size_t(k)] <= std::numeric_limits<int>::max();
  }
  int pmax = *std::max_element(dims_.begin(), dims_.end());
  ones_.assign(std::size_t(pmax), 1);
  displs_.resize(std::size_t(pmax));
  for (int t = 0; t < pmax; ++t) displs_[std::size_t(t)] = t;
}

TorusAlltoall::~TorusAlltoall() = default;

int TorusAlltoall::rounds() const {
  int r = 0;
  for (int p : dims_) r += p - 1;
  return r;
}

const TorusAlltoall::Slabs& TorusAlltoall::slabs(int m) {
  auto& entry = slabs_[m];
  if (entry) return *entry;
  entry = std::make_unique<Slabs>();
  const int d = int(dims_.size());
  for (int layout = 0; layout < 2; ++layout) {
    // The C = 1 temporary has the caller's layout: reuse the full types.
    if (layout == 1 && pieces_ == 1) break;
    const MPI_Aint block_extent = (layout == 0 ? MPI_Aint(count_) : MPI_Aint(m)) * extent_;
    MPI_Datatype piece = MPI_DATATYPE_NULL;
    mpi_check(MPI_Type_contiguous(m, type_, &piece), "MPI_Type_contiguous");
    TypeHandle piece_h(piece);
    TypeHandle block = resized(piece, lb_, block_extent);
    for (int k = 0; k < d; ++k) {
      const int outer = outer_[std::size_t(k)], inner = inner_[std::size_t(k)];
      MPI_Datatype vec = MPI_DATATYPE_NULL;
      mpi_check(MPI_Type_vector(outer, inner, dims_[std::size_t(k)] * inner, block.get(), &vec),
                "MPI_Type_vector");
      TypeHandle vec_h(vec);
      (layout == 0 ? entry->full : entry->temp)
          .push_back(resized(vec, lb_, MPI_Aint(inner) * block_extent));
    }
  }
  return *entry;
}

MPI_Datatype TorusAlltoall::slab(int k, int m, Layout layout) {
  const Slabs& s = slabs(m);
  return (layout == Layout::Temp && pieces_ > 1 ? s.temp : s.full)[std::size_t(k)].get();
}

void TorusAlltoall::operator()(const void* sendbuf, void* recvbuf) {
  if (sendbuf == MPI_IN_PLACE)
    throw std::invalid_argument("torus_alltoall: MPI_IN_PLACE is not supported");
  if (count_ == 0) return;
  const int d = int(dims_.size()), C = pieces_;
  const int slots = pipelined_ ? std::min(C, d) : 1;
  std::vector<MPI_Request> requests;

  // One phase k of piece c: blocking, or started as a nonblocking collective into `requests`.
  auto phase = [&](int c, int k, bool nonblocking) {
    const std::int64_t begin = std::int64_t(count_) * c / C;
    const int m = int(std::int64_t(count_) * (c + 1) / C - begin);
    if (m == 0) return;  // count < C: this piece is empty on every rank
    const MPI_Aint offset = MPI_Aint(begin) * extent_;
    // The temporary's element 0 lies at `temp`: its data starts true_lb bytes further on.
    char* temp = temp_.empty() ? nullptr
                               : reinterpret_cast<char*>(temp_.data()) +
                                     std::size_t(c % slots) * temp_slot_bytes_ - true_lb_;
    // Phase k writes recvbuf when d-1-k is even, the temporary otherwise.
    auto writes_recv = [&](int j) { return (d - 1 - j) % 2 == 0; };
    const void* in = k == 0               ? static_cast<const char*>(sendbuf) + offset
                     : writes_recv(k - 1) ? static_cast<char*>(recvbuf) + offset
                                          : temp;
    void* out = writes_recv(k) ? static_cast<char*>(recvbuf) + offset : temp;
    const Layout in_layout = k == 0 || writes_recv(k - 1) ? Layout::Full : Layout::Temp;
    const Layout out_layout = writes_recv(k) ? Layout::Full : Layout::Temp;
    const MPI_Comm comm = comms_[std::size_t(k)];
    if (split_[std::size_t(k)]) {  // C = 1: in and out both have the caller's layout
      const int pk = dims_[std::size_t(k)], outer = outer_[std::size_t(k)];
      const int run = count_ * inner_[std::size_t(k)];  // elements per destination
      const std::size_t first = requests.size();
      for (int o = 0; o < outer; ++o) {
        const MPI_Aint at = MPI_Aint(o) * pk * run * extent_;
        requests.push_back(MPI_REQUEST_NULL);
        mpi_check(MPI_Ialltoall(static_cast<const char*>(in) + at, run, type_,
                                static_cast<char*>(out) + at, run, type_, comm, &requests.back()),
                  "MPI_Ialltoall");
      }
      if (!nonblocking) {
        mpi_check(
            MPI_Waitall(int(requests.size() - first), requests.data() + first, MPI_STATUSES_IGNORE),
            "MPI_Waitall");
        requests.resize(first);
      }
      return;
    }
    const MPI_Datatype st = slab(k, m, in_layout), rt = slab(k, m, out_layout);
    if (!nonblocking) {
      if (st == rt)
        mpi_check(MPI_Alltoall(in, 1, st, out, 1, rt, comm), "MPI_Alltoall");
      else
        mpi_check(MPI_Alltoallv(in, ones_.data(), displs_.data(), st, out, ones_.data(),
                                displs_.data(), rt, comm),
                  "MPI_Alltoallv");
      return;
    }
    requests.push_back(MPI_REQUEST_NULL);
    if (st == rt)
      mpi_check(MPI_Ialltoall(in, 1, st, out, 1, rt, comm, &requests.back()), "MPI_Ialltoall");
    else
      mpi_check(MPI_Ialltoallv(in, ones_.data(), displs_.data(), st, out, ones_.data(),
                               displs_.data(), rt, comm, &requests.back()),
                "MPI_Ialltoallv");
  };

  if (!pipelined_) {
    for (int c = 0; c < C; ++c)
      for (int k = 0; k < d; ++k) phase(c, k, false);
    return;
  }
  // Wavefront: step s runs phase s-c of every piece c that has one; a piece's phases stay in
  // order, and pieces in flight together use different sub-communicators and temporaries.
  for (int s = 0; s < C + d - 1; ++s) {
    requests.clear();
    for (int c = std::max(0, s - d + 1); c <= std::min(C - 1, s); ++c) phase(c, s - c, true);
    mpi_check(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
  }
}

// ---- the plan cache: an attribute on the Cartesian communicator --------------------------------

namespace {

long g_plans_created = 0;
int g_comm_keyval = MPI_KEYVAL_INVALID;
int g_type_keyval = MPI_KEYVAL_INVALID;
std::intptr_t g_next_type_serial = 1;

// (type identity, count, pieces, pipelined) -> plan
using PlanKey = std::tuple<std::int64_t, int, int, bool>;
using PlanCache = std::map<PlanKey, std::unique_ptr<TorusAlltoall>>;

int delete_plans(MPI_Comm, int, void* value, void*) {
  delete static_cast<PlanCache*>(value);
  return MPI_SUCCESS;
}

/// A process-unique identity of a datatype: predefined types by handle, derived ones by a
/// serial number cached on them (so a freed handle reused for a new type is a new identity).
std::int64_t type_identity(MPI_Datatype type) {
  int ni = 0, na = 0, nt = 0, combiner = 0;
  mpi_check(MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner), "MPI_Type_get_envelope");
  if (combiner == MPI_COMBINER_NAMED) return MPI_Type_c2f(type);
  if (g_type_keyval == MPI_KEYVAL_INVALID)
    mpi_check(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &g_type_keyval,
                                     nullptr),
              "MPI_Type_create_keyval");
  void* value = nullptr;
  int found = 0;
  mpi_check(MPI_Type_get_attr(type, g_type_keyval, &value, &found), "MPI_Type_get_attr");
  if (!found) {
    // An MPI attribute value is a void*: the serial is stored as the pointer, never followed.
    value = reinterpret_cast<void*>(g_next_type_serial++);  // NOLINT(performance-no-int-to-ptr)
    mpi_check(MPI_Type_set_attr(type, g_type_keyval, value), "MPI_Type_set_attr");
  }
  return -std::int64_t(reinterpret_cast<std::intptr_t>(value));
}

}  // namespace

TorusAlltoall& cached_torus_alltoall(MPI_Comm cart, int count, MPI_Datatype type, int pieces,
                                     bool pipelined) {
  if (cart == MPI_COMM_NULL)
    throw std::invalid_argument("torus_alltoall: the communicator is MPI_COMM_NULL");
  if (g_comm_keyval == MPI_KEYVAL_INVALID)
    mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_plans, &g_comm_keyval, nullptr),
              "MPI_Comm_create_keyval");
  void* value = nullptr;
  int found = 0;
  mpi_check(MPI_Comm_get_attr(cart, g_comm_keyval, &value, &found), "MPI_Comm_get_attr");
  auto* cache = static_cast<PlanCache*>(value);
  if (!found) {
    cache = new PlanCache;  // freed by delete_plans when `cart` is freed
    mpi_check(MPI_Comm_set_attr(cart, g_comm_keyval, cache), "MPI_Comm_set_attr");
  }
  auto& plan = (*cache)[PlanKey{type_identity(type), count, pieces, pipelined}];
  if (!plan) {
    plan = std::make_unique<TorusAlltoall>(cart, count, type, pieces, pipelined);
    ++g_plans_created;
  }
  return *plan;
}

long torus_alltoall_plans_created() { return g_plans_created; }

void torus_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm cart, int pieces) {
  if (sendcount != recvcount || sendtype != recvtype)
    throw std::invalid_argument(
        "torus_alltoall: send and receive must use the same count and "
        "type (got counts " +
        std::to_string(sendcount) + " and " + std::to_string(recvcount) +
        (sendtype != recvtype ? ", different types)" : ")"));
  cached_torus_alltoall(cart, sendcount, sendtype, pieces)(sendbuf, recvbuf);
}

}  // namespace miniapp
