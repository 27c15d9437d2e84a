#include "transpose.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "cart_subcomms.hpp"

namespace miniapp {

namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;

/// A sub-box `region` (global coordinates) of the array of box `outer`, as an MPI subarray type
/// of `element`s (x fastest = MPI_ORDER_FORTRAN). Only for non-empty regions.
TypeHandle subarray_type(const Box& outer, const Box& region, MPI_Datatype element) {
  int sizes[3], subsizes[3], starts[3];
  for (int d = 0; d < 3; ++d) {
    sizes[d] = outer.extent(d);
    subsizes[d] = region.extent(d);
    starts[d] = region.lo[d] - outer.lo[d];
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, element, &t),
            "MPI_Type_create_subarray");
  mpi_check(MPI_Type_commit(&t), "MPI_Type_commit");
  return TypeHandle(t);
}

/// Tag of the run messages; runs between two ranks match in posting order (MPI does not let
/// messages with the same source, tag and communicator overtake each other).
constexpr int kRunTag = 7;

int checked_int(std::int64_t n, const char* what) {
  if (n > INT_MAX)
    throw std::runtime_error(std::string("transpose: ") + what + " of " + std::to_string(n) +
                             " elements exceeds the MPI int count limit");
  return int(n);
}

/// Copy `region` from the array of box `src_box` to the array of box `dst_box` (x fastest), one
/// x-line per iteration; T is double or Complex. With dst_box = region it packs into a
/// contiguous buffer, with src_box = region it unpacks, and between two layouts it moves the
/// part a rank keeps. Does not fence.
template <class T>
void copy_between(const Box& src_box, const T* src, const Box& dst_box, T* dst, const Box& region) {
  if (region.empty()) return;
  const int nx = region.extent(0), ny = region.extent(1);
  const std::int64_t lines = std::int64_t(ny) * region.extent(2);
  const Box sb = src_box, db = dst_box, r = region;
  Kokkos::parallel_for("miniapp::transpose::copy", Kokkos::RangePolicy<HostExec>(0, lines),
                       [=](const std::int64_t line) {
                         const int y = r.lo[1] + int(line % ny), z = r.lo[2] + int(line / ny);
                         const T* a = src + offset_in(sb, r.lo[0], y, z);
                         T* b = dst + offset_in(db, r.lo[0], y, z);
                         for (int i = 0; i < nx; ++i) b[i] = a[i];
                       });
}

/// copy_between for the element type of a step: doubles when `real`, else Complex.
void copy_elements(bool real, const Box& src_box, const void* src, const Box& dst_box, void* dst,
                   const Box& region) {
  if (real)
    copy_between(src_box, static_cast<const double*>(src), dst_box, static_cast<double*>(dst),
                 region);
  else
    copy_between(src_box, static_cast<const Complex*>(src), dst_box, static_cast<Complex*>(dst),
                 region);
}

/// The sub-boxes of `region` that are each one contiguous run of elements in the array of box
/// `a` and in the array of box `b` (x fastest), in x-line order. A run spans the region's full
/// range along the dimensions up to the first one where the region is narrower than a or b,
/// and one index along the others; sender (a = its source box) and receiver (b = its
/// destination box) compute the same list.
std::vector<Box> common_runs(const Box& region, const Box& a, const Box& b) {
  const auto first_partial = [&](const Box& box) {
    int j = 0;
    while (j < 2 && region.extent(j) == box.extent(j)) ++j;
    return j;
  };
  const int j = std::min(first_partial(a), first_partial(b));
  std::vector<Box> runs;
  if (region.empty()) return runs;
  Box run = region;
  const int zlo = region.lo[2], zhi = j >= 2 ? zlo + 1 : region.hi[2];
  const int ylo = region.lo[1], yhi = j >= 1 ? ylo + 1 : region.hi[1];
  for (int z = zlo; z < zhi; ++z)
    for (int y = ylo; y < yhi; ++y) {
      if (j < 2) run.lo[2] = z, run.hi[2] = z + 1;
      if (j < 1) run.lo[1] = y, run.hi[1] = y + 1;
      runs.push_back(run);
    }
  return runs;
}

}  // namespace

/// One step between layouts s and s+1 along one torus dimension: for each peer t of the
/// sub-communicator, the region I send (part of my layout-s `out` box) and the region I receive
/// (part of my layout-(s+1) `box`), as subarray types and as boxes for the pack variant.
struct TransposePlan::Step {
  int dim = 0;
  bool real = false;              ///< doubles, else complex elements
  MPI_Comm comm = MPI_COMM_NULL;  ///< cached by dimension_comms(); not owned
  int self = 0;                   ///< my rank in comm: my part is copied locally, not sent
  Box self_region;                ///< what I keep (in both layouts)
  Box src, dst;                   ///< my boxes in layouts s (out) and s+1 (box)
  std::vector<Box> send_regions, recv_regions;  ///< per peer, global coordinates
  std::vector<TypeHandle> send_owned, recv_owned;
  std::vector<MPI_Datatype> send_types, recv_types;  ///< the element type when empty
  std::vector<int> send_counts, recv_counts;         ///< 1 or 0 (zero-copy)
  std::vector<int> send_elems, recv_elems, send_displs, recv_displs;  ///< pack variant
  std::vector<int> zero_displs;
  /// Zero-copy peers whose region is made of runs of at least split_bytes that are contiguous
  /// on both sides: one message per run (offset and count in elements of my buffer), and count
  /// 0 in the Alltoallw. Empty for the other peers.
  struct Run {
    std::int64_t offset = 0;
    int count = 0;
  };
  std::vector<std::vector<Run>> send_runs, recv_runs;
  mutable std::vector<MPI_Request> requests;  ///< reused by every exchange
};

std::vector<PencilLayout> TransposePlan::chain(const Index3& global, const Index3& dims,
                                               const Index3& coords, FftKind fft) {
  // Order: a = the dimension with the fewest ranks (first on ties), then b, c as x, y, z. A
  // real-to-complex chain must transform x first: a = x.
  int a = 0;
  if (fft == FftKind::C2C)
    for (int d = 1; d < 3; ++d)
      if (dims[d] < dims[a]) a = d;
  const int b = a == 0 ? 1 : 0;
  const int c = 3 - a - b;

  // The boxes of every layout on grid n: the field's grid for real cells, the half grid for
  // the complex cells of an R2C chain (only x ranges differ).
  struct Boxes {
    Box blocks, pa, pb, pc;
  };
  const auto boxes_on = [&](const Index3& n) {
    Boxes r;
    for (int d = 0; d < 3; ++d) {
      const auto range = block_range(n[d], dims[d], coords[d]);
      r.blocks.lo[d] = range[0];
      r.blocks.hi[d] = range[1];
    }
    r.pa = full_along(split_along(r.blocks, b, dims[a], coords[a]), a, n[a]);
    r.pb = full_along(split_along(r.blocks, a, dims[b], coords[b]), b, n[b]);
    r.pc = full_along(split_along(r.pb, b, dims[c], coords[c]), c, n[c]);
    return r;
  };
  const Boxes field = boxes_on(global);
  const Boxes half =
      fft == FftKind::R2C ? boxes_on({half_extent(global[0]), global[1], global[2]}) : field;
  const bool r2c = fft == FftKind::R2C;
  auto pencil = [](int d) { return std::string(1, axis_name(d)) + "-pencils"; };

  // The logical chain and the torus dimension of each step; steps along a dimension with one
  // rank change nothing (for every rank alike) and merge their two layouts. In an R2C chain
  // the a-pencils (a = x) receive real cells and leave the half spectrum.
  const std::vector<PencilLayout> logical = {
      {"blocks", field.blocks, {}, a, r2c, false, field.blocks},
      {pencil(a), field.pa, {a}, a, r2c, r2c, half.pa},
      {"blocks", half.blocks, {}, b, false, false, half.blocks},
      {pencil(b), half.pb, {b}, c, false, false, half.pb},
      {pencil(c), half.pc, {c}, -1, false, false, half.pc}};
  std::vector<PencilLayout> out{logical[0]};
  for (std::size_t i = 1; i < logical.size(); ++i) {
    PencilLayout& last = out.back();
    if (dims[last.next_dim] == 1) {
      if (last.name.find(logical[i].name) == std::string::npos)
        last.name += " = " + logical[i].name;
      last.fft_dims.insert(last.fft_dims.end(), logical[i].fft_dims.begin(),
                           logical[i].fft_dims.end());
      last.next_dim = logical[i].next_dim;
      last.real_to_complex = last.real_to_complex || logical[i].real_to_complex;
      last.out = logical[i].out;
    } else {
      out.push_back(logical[i]);
    }
  }
  return out;
}

TransposePlan::TransposePlan(const Decomposition& decomp, TransposeKind kind, FftKind fft,
                             std::int64_t split_bytes)
    : kind_(kind), fft_(fft) {
  const Index3 global = decomp.global(), dims = decomp.dims(), me = decomp.coords();
  layouts_ = chain(global, dims, me, fft);
  for (const PencilLayout& l : layouts_) {
    const std::int64_t in_size = l.real ? 8 : 16, out_size = l.real && !l.real_to_complex ? 8 : 16;
    max_count_ = std::max({max_count_, l.box.count(), l.out.count()});
    max_bytes_ = std::max({max_bytes_, in_size * l.box.count(), out_size * l.out.count()});
  }
  const std::vector<MPI_Comm>& comms = dimension_comms(decomp.comm());

  for (int s = 0; s < steps(); ++s) {
    auto st = std::make_unique<Step>();
    st->dim = layouts_[std::size_t(s)].next_dim;
    st->real = layouts_[std::size_t(s) + 1].real;
    st->comm = comms[std::size_t(st->dim)];
    st->src = layouts_[std::size_t(s)].out;
    st->dst = layouts_[std::size_t(s) + 1].box;
    const MPI_Datatype element = st->real ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX;
    const int p = dims[st->dim];
    int sub_rank = -1;
    mpi_check(MPI_Comm_rank(st->comm, &sub_rank), "MPI_Comm_rank");
    if (sub_rank != me[st->dim])
      throw std::logic_error("transpose: sub-communicator rank " + std::to_string(sub_rank) +
                             " differs from the coordinate " + std::to_string(me[st->dim]));
    int send_off = 0, recv_off = 0;
    for (int t = 0; t < p; ++t) {
      Index3 peer = me;
      peer[st->dim] = t;
      const std::vector<PencilLayout> pl = chain(global, dims, peer, fft);
      const Box send = st->src.intersect(pl[std::size_t(s) + 1].box);
      const Box recv = pl[std::size_t(s)].out.intersect(st->dst);
      st->send_regions.push_back(send);
      st->recv_regions.push_back(recv);
      st->send_owned.push_back(send.empty() ? TypeHandle() : subarray_type(st->src, send, element));
      st->recv_owned.push_back(recv.empty() ? TypeHandle() : subarray_type(st->dst, recv, element));
      st->send_types.push_back(send.empty() ? element : st->send_owned.back().get());
      st->recv_types.push_back(recv.empty() ? element : st->recv_owned.back().get());
      st->send_counts.push_back(send.empty() ? 0 : 1);
      st->recv_counts.push_back(recv.empty() ? 0 : 1);
      st->send_elems.push_back(checked_int(send.count(), "a send block"));
      st->recv_elems.push_back(checked_int(recv.count(), "a receive block"));
      st->send_displs.push_back(send_off);
      st->recv_displs.push_back(recv_off);
      send_off = checked_int(std::int64_t(send_off) + send.count(), "a send buffer");
      recv_off = checked_int(std::int64_t(recv_off) + recv.count(), "a receive buffer");
    }
    if (send_off != st->src.count() || recv_off != st->dst.count())
      throw std::logic_error("transpose: step " + std::to_string(s) + " sends " +
                             std::to_string(send_off) + " of " + std::to_string(st->src.count()) +
                             " cells and receives " + std::to_string(recv_off) + " of " +
                             std::to_string(st->dst.count()));
    // What stays on this rank is copied directly, not through MPI.
    st->self = me[st->dim];
    const std::size_t self = std::size_t(st->self);
    st->self_region = st->send_regions[self];
    if (st->self_region != st->recv_regions[self])
      throw std::logic_error("transpose: the kept region differs between the two layouts");
    st->send_counts[self] = st->recv_counts[self] = 0;
    st->send_elems[self] = st->recv_elems[self] = 0;
    st->zero_displs.assign(std::size_t(p), 0);

    // Long runs contiguous on both sides go as plain messages (MPI's single-copy path) instead
    // of one subarray message. Both ends decide from the same boxes, so they agree.
    st->send_runs.resize(std::size_t(p));
    st->recv_runs.resize(std::size_t(p));
    const std::int64_t element_bytes = st->real ? 8 : 16;
    std::size_t messages = 0;
    for (int t = 0; t < p && split_bytes > 0 && kind_ == TransposeKind::ZeroCopy; ++t) {
      if (t == st->self) continue;
      Index3 peer = me;
      peer[st->dim] = t;
      const std::vector<PencilLayout> pl = chain(global, dims, peer, fft);
      const std::size_t ti = std::size_t(t);
      const std::vector<Box> out_runs =
          common_runs(st->send_regions[ti], st->src, pl[std::size_t(s) + 1].box);
      const std::vector<Box> in_runs =
          common_runs(st->recv_regions[ti], pl[std::size_t(s)].out, st->dst);
      for (const auto& [runs, box, list, counts] :
           {std::tuple(&out_runs, &st->src, &st->send_runs[ti], &st->send_counts[ti]),
            std::tuple(&in_runs, &st->dst, &st->recv_runs[ti], &st->recv_counts[ti])}) {
        if (runs->empty() || runs->front().count() * element_bytes < split_bytes) continue;
        for (const Box& r : *runs)
          list->push_back({offset_in(*box, r.lo[0], r.lo[1], r.lo[2]),
                           checked_int(r.count(), "a contiguous run")});
        *counts = 0;
        messages += runs->size();
      }
    }
    st->requests.resize(messages);
    steps_.push_back(std::move(st));
  }

  if (kind_ == TransposeKind::Pack && steps() > 0) {
    // Allocated once; first touched with the pack kernels' thread mapping.
    const std::size_t n = std::size_t((max_bytes_ + 15) / 16);
    send_ = ComplexBuffer(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::transpose::send"), n);
    recv_ = ComplexBuffer(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::transpose::recv"), n);
    Kokkos::deep_copy(HostExec(), send_, Complex(0.0));
    Kokkos::deep_copy(HostExec(), recv_, Complex(0.0));
    HostExec().fence();
  }
}

TransposePlan::~TransposePlan() = default;

int TransposePlan::step_dim(int s) const { return steps_.at(std::size_t(s))->dim; }

void TransposePlan::forward(int s, const void* from, void* to) {
  exchange(*steps_.at(std::size_t(s)), true, from, to);
}

void TransposePlan::backward(int s, const void* from, void* to) {
  exchange(*steps_.at(std::size_t(s)), false, from, to);
}

void TransposePlan::exchange(const Step& st, bool fwd, const void* from, void* to) {
  // Backward is forward with the roles of the two sides swapped.
  const Box& src = fwd ? st.src : st.dst;
  const Box& dst = fwd ? st.dst : st.src;
  const auto& sregions = fwd ? st.send_regions : st.recv_regions;
  const auto& rregions = fwd ? st.recv_regions : st.send_regions;
  copy_elements(st.real, src, from, dst, to, st.self_region);
  HostExec().fence();
  if (kind_ == TransposeKind::ZeroCopy) {
    // Long contiguous runs first (nonblocking, progressed by the collective), then every other
    // peer's region as one subarray message.
    const MPI_Datatype element = st.real ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX;
    const std::size_t size = st.real ? sizeof(double) : sizeof(Complex);
    const auto& in_runs = fwd ? st.recv_runs : st.send_runs;
    const auto& out_runs = fwd ? st.send_runs : st.recv_runs;
    MPI_Request* req = st.requests.data();
    for (std::size_t t = 0; t < in_runs.size(); ++t)
      for (const Step::Run& r : in_runs[t])
        mpi_check(MPI_Irecv(static_cast<char*>(to) + size * std::size_t(r.offset), r.count, element,
                            int(t), kRunTag, st.comm, req++),
                  "MPI_Irecv (transpose run)");
    for (std::size_t t = 0; t < out_runs.size(); ++t)
      for (const Step::Run& r : out_runs[t])
        mpi_check(MPI_Isend(static_cast<const char*>(from) + size * std::size_t(r.offset), r.count,
                            element, int(t), kRunTag, st.comm, req++),
                  "MPI_Isend (transpose run)");
    mpi_check(
        MPI_Alltoallw(from, fwd ? st.send_counts.data() : st.recv_counts.data(),
                      st.zero_displs.data(), fwd ? st.send_types.data() : st.recv_types.data(), to,
                      fwd ? st.recv_counts.data() : st.send_counts.data(), st.zero_displs.data(),
                      fwd ? st.recv_types.data() : st.send_types.data(), st.comm),
        "MPI_Alltoallw (transpose)");
    mpi_check(MPI_Waitall(int(st.requests.size()), st.requests.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall (transpose runs)");
    return;
  }
  const auto& scounts = fwd ? st.send_elems : st.recv_elems;
  const auto& sdispls = fwd ? st.send_displs : st.recv_displs;
  const auto& rcounts = fwd ? st.recv_elems : st.send_elems;
  const auto& rdispls = fwd ? st.recv_displs : st.send_displs;
  // Displacements count elements; a real step packs doubles into the same byte buffers.
  const std::size_t size = st.real ? sizeof(double) : sizeof(Complex);
  char* sbuf = reinterpret_cast<char*>(send_.data());
  char* rbuf = reinterpret_cast<char*>(recv_.data());
  const std::size_t self = std::size_t(st.self);
  for (std::size_t t = 0; t < sregions.size(); ++t)
    if (t != self)
      copy_elements(st.real, src, from, sregions[t], sbuf + size * std::size_t(sdispls[t]),
                    sregions[t]);
  HostExec().fence();
  const MPI_Datatype element = st.real ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX;
  mpi_check(MPI_Alltoallv(sbuf, scounts.data(), sdispls.data(), element, rbuf, rcounts.data(),
                          rdispls.data(), element, st.comm),
            "MPI_Alltoallv (transpose)");
  for (std::size_t t = 0; t < rregions.size(); ++t)
    if (t != self)
      copy_elements(st.real, rregions[t], rbuf + size * std::size_t(rdispls[t]), dst, to,
                    rregions[t]);
  HostExec().fence();
}

}  // namespace miniapp
