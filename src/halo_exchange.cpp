#include "halo_exchange.hpp"

#include <algorithm>
#include <stdexcept>

#include "boundary.hpp"
#include "box_kernels.hpp"
#include "timer.hpp"

namespace miniapp {

namespace {

/// Committed subarray datatype of box b inside a field's storage of extents ext (x fastest,
/// Field::storage_ext).
MPI_Datatype subarray(const Index3& ext, const Box& b) {
  int sizes[3] = {ext[0], ext[1], ext[2]};
  int sub[3] = {b.extent(0), b.extent(1), b.extent(2)};
  int starts[3] = {b.lo[0], b.lo[1], b.lo[2]};
  MPI_Datatype t = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t),
            "MPI_Type_create_subarray (halo)");
  mpi_check(MPI_Type_commit(&t), "MPI_Type_commit (halo)");
  return t;
}

bool mpi_finalized() {
  int f = 0;
  MPI_Finalized(&f);
  return f != 0;
}

void free_types(std::vector<MPI_Datatype>& types) {
  if (mpi_finalized()) return;
  for (MPI_Datatype& t : types)
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  types.clear();
}

bool two_d_of(const Decomposition& decomp) { return decomp.global()[2] == 1; }

/// For each message of the plan that `self` receives from itself (a periodic dimension over
/// one rank), the message whose sent box it receives: the one of the same phase whose send
/// tag is its receive tag, as MPI would match them; -1 for every other message.
std::vector<int> self_senders(const HaloPlan& plan, int self) {
  const std::size_t n = plan.messages.size();
  std::vector<int> sender_of(n, -1);
  std::vector<char> matched(n, 0);
  for (std::size_t r = 0; r < n; ++r) {
    const HaloMessage& q = plan.messages[r];
    if (q.peer != self) continue;
    for (std::size_t s = 0; s < n; ++s) {
      const HaloMessage& m = plan.messages[s];
      if (m.peer == self && m.phase == q.phase && m.send_tag == q.recv_tag &&
          m.send.extents() == q.recv.extents() && !matched[s]) {
        sender_of[r] = int(s);
        matched[s] = 1;
        break;
      }
    }
  }
  for (std::size_t m = 0; m < n; ++m)
    if ((plan.messages[m].peer == self) != (sender_of[m] >= 0 && matched[m]))
      throw std::logic_error("PointToPointHalo: a message to this rank itself without its pair");
  return sender_of;
}

}  // namespace

StorageRun storage_run(const Box& b, const Field& shape) {
  const Index3& ext = shape.ext();
  const bool whole_rows = b.lo[0] == 0 && b.hi[0] == ext[0];
  const bool whole_planes = b.lo[1] == 0 && b.hi[1] == ext[1];
  if (b.empty() || !whole_rows || (b.extent(2) > 1 && !whole_planes)) return {};
  const std::int64_t pitch = shape.stride_y();
  return {shape.index(0, b.lo[1], b.lo[2]),
          pitch * (b.extent(1) + std::int64_t(ext[1]) * (b.extent(2) - 1))};
}

bool sent_in_place(const HaloMessage& m, const Field& shape, int self) {
  const std::int64_t count = storage_run(m.send, shape).count;
  return m.peer != self && count > 0 && count == storage_run(m.recv, shape).count;
}

Neighborhood neighborhood_of(const Decomposition& decomp) {
  Neighborhood nb;
  nb.self = decomp.rank();
  for (int dir = 0; dir < 27; ++dir) nb.rank[dir] = decomp.neighbor(offset_of(dir));
  return nb;
}

// ---- common part --------------------------------------------------------------------------

HaloExchange::HaloExchange(const Decomposition& decomp, const Field& shape, HaloPlan plan,
                           const std::array<Boundary, 3>& bc, double bc_value)
    : comm_(decomp.comm()),
      plan_(std::move(plan)),
      bc_(bc),
      bc_value_(bc_value),
      ext_(shape.ext()),
      storage_(shape.storage_ext()) {}

void HaloExchange::fill_boundaries(Field& u, int phase) {
  const auto in_phase = [phase](const BoundaryFill& f) { return f.phase == phase; };
  if (std::none_of(plan_.fills.begin(), plan_.fills.end(), in_phase)) return;
  ScopedTimer timer(counters_.boundary, "miniapp::halo::boundary", Fence::AtEnd);
  apply_fills(u, plan_.fills, phase, bc_, bc_value_);
}

void HaloExchange::count_exchange() {
  counters_.exchanges += 1;
  counters_.messages += plan_.messages_per_exchange();
  counters_.bytes += plan_.bytes_per_exchange();
}

// ---- point to point -----------------------------------------------------------------------

PointToPointHalo::PointToPointHalo(const Decomposition& decomp, const Field& shape, HaloMode mode,
                                   PackKind pack, const std::array<Boundary, 3>& bc,
                                   double bc_value)
    : HaloExchange(
          decomp, shape,
          plan_halo(mode, neighborhood_of(decomp), shape.n(), shape.halo(), two_d_of(decomp)), bc,
          bc_value),
      pack_(pack) {
  if (mode == HaloMode::NeighborColl)
    throw std::logic_error("PointToPointHalo: neighbor-coll is executed by NeighborCollHalo");
  phase_messages_.resize(std::size_t(plan_.phases));
  for (std::size_t m = 0; m < plan_.messages.size(); ++m)
    phase_messages_[std::size_t(plan_.messages[m].phase)].push_back(int(m));
  send_off_.resize(plan_.messages.size());
  recv_off_.resize(plan_.messages.size());
  sender_of_.assign(plan_.messages.size(), -1);
  in_place_.assign(plan_.messages.size(), 0);
  if (pack_ == PackKind::Kernel) {
    sender_of_ = self_senders(plan_, decomp.rank());
    // A message to another rank whose boxes are each one run of the storage (the dim-ordered
    // z faces: whole padded planes) goes to MPI straight from the field and arrives in it;
    // packing it would copy it once more on each side. The rows' padding up to the pitch
    // travels too (at most 7 doubles a row). Measured on AMD Zen 5, 2 ranks x 1 thread, 256^3
    // per rank split along z, four alternating runs each: one exchange at H = 4 took 2.3-3.0
    // ms against 3.9-4.2 ms packed (at H = 1 1.1-1.6 against 1.3-1.6), and a main run's
    // blocked rounds at H = 4 (168 steps) 41.9-45.0 against 45.9-48.2 ms each.
    for (std::size_t m = 0; m < plan_.messages.size(); ++m) {
      in_place_[m] = sent_in_place(plan_.messages[m], shape, decomp.rank());
      if (in_place_[m])
        in_place_bytes_ += plan_.messages[m].send.count() * std::int64_t(sizeof(double));
    }
    // The sweep can store the x faces where both are this rank's own and cover exactly the x
    // ghosts of the interior lines (every line a sweep of the interior writes).
    const Box in = shape.interior();
    int x_faces = 0;
    bool own = true;
    for (std::size_t m = 0; m < plan_.messages.size(); ++m) {
      if (!is_x_face(plan_.messages[m].dir)) continue;
      const Box& r = plan_.messages[m].recv;
      x_faces += 1;
      x_face_bytes_ += r.count() * std::int64_t(sizeof(double));
      own = own && self_x_face(int(m)) && r.extent(0) == shape.halo();
      for (int d = 1; d < 3; ++d) own = own && r.lo[d] == in.lo[d] && r.hi[d] == in.hi[d];
    }
    x_from_sweep_ = x_faces == 2 && own;
    // Then the phases unpack everything else, and the x faces, when the sweep did not store
    // them, are copied as the exchange starts: either way x is complete from the start, so an
    // overlapped step's slabs run whole lines and the sweep can store them next time.
    const Part received = x_from_sweep_ ? Part::WithoutXFaces : Part::All;
    std::vector<int> all;
    for (const std::vector<int>& msgs : phase_messages_) {
      send_table_.push_back(make_table(msgs, true));
      recv_table_.push_back(make_table(msgs, false, received));
      all.insert(all.end(), msgs.begin(), msgs.end());
    }
    if (x_from_sweep_) x_face_table_ = make_table(all, false, Part::XFaces);
  } else {
    for (const HaloMessage& m : plan_.messages) {
      send_type_.push_back(subarray(storage_, m.send));
      recv_type_.push_back(subarray(storage_, m.recv));
    }
  }
}

bool PointToPointHalo::self_x_face(int mi) const {
  return sender_of_[std::size_t(mi)] >= 0 && is_x_face(plan_.messages[std::size_t(mi)].dir);
}

PointToPointHalo::PackTable PointToPointHalo::make_table(const std::vector<int>& messages,
                                                         bool send, Part part) {
  // Values per work item to aim for: a few thousand, so an item's start-up (finding its box)
  // is small against its copying, while a face still splits into many items for the threads.
  constexpr std::int64_t kItemValues = 2048;
  std::vector<PackEntry> host;
  std::int64_t offset = 0;
  for (int mi : messages) {
    const HaloMessage& m = plan_.messages[std::size_t(mi)];
    const int sender = sender_of_[std::size_t(mi)];
    if (send && sender >= 0) continue;  // to this rank itself: copied by its receiver
    if (in_place(mi)) continue;         // MPI reads and writes the field itself
    if (part != Part::All && self_x_face(mi) != (part == Part::XFaces)) continue;
    const Box& b = send ? m.send : m.recv;
    PackEntry e{};
    for (int d = 0; d < 3; ++d) e.lo[d] = b.lo[d], e.n[d] = b.extent(d);
    if (sender >= 0) {  // from this rank itself: straight from the field's sent box
      e.from_field = true;
      for (int d = 0; d < 3; ++d) e.src[d] = plan_.messages[std::size_t(sender)].send.lo[d];
    } else {
      (send ? send_off_ : recv_off_)[std::size_t(mi)] = offset;
      e.offset = offset;
      offset += b.count();
    }
    if (b.empty()) continue;
    // Two thin boxes over the same rows (the low and high x-faces) are walked together: the
    // high face's value in row j and the low face's in row j+1 are a few doubles apart, mostly
    // in one cache line, so the pair reads (or writes) about half the lines of two passes.
    const auto partner = std::find_if(host.begin(), host.end(), [&](const PackEntry& p) {
      return p.pair_lo0 < 0 && p.n[0] < 8 && p.n[0] == e.n[0] && p.n[1] == e.n[1] &&
             p.n[2] == e.n[2] && p.lo[1] == e.lo[1] && p.lo[2] == e.lo[2] &&
             p.from_field == e.from_field &&
             (!e.from_field || (p.src[1] == e.src[1] && p.src[2] == e.src[2]));
    });
    if (partner != host.end()) {
      partner->pair_lo0 = e.lo[0];
      partner->pair_offset = e.offset;
      partner->pair_src0 = e.src[0];
      continue;
    }
    host.push_back(e);
  }
  std::int64_t items = 0;
  for (PackEntry& e : host) {
    const int nx = std::max(1, e.n[0]);
    e.rows = int(std::min<std::int64_t>(e.n[1], std::max<std::int64_t>(1, kItemValues / nx)));
    e.items_per_plane = (e.n[1] + e.rows - 1) / e.rows;
    e.first_item = items;
    items += std::int64_t(e.items_per_plane) * e.n[2];
  }
  PackTable t;
  t.items = items;
  t.buffer = Kokkos::View<double*, Memory>(send ? "miniapp::halo::send" : "miniapp::halo::recv",
                                           std::size_t(std::max<std::int64_t>(offset, 1)));
  t.entries = Kokkos::View<PackEntry*, Memory>("miniapp::halo::table", host.size());
  auto mirror = Kokkos::create_mirror_view(t.entries);
  for (std::size_t i = 0; i < host.size(); ++i) mirror(i) = host[i];
  Kokkos::deep_copy(t.entries, mirror);
  return t;
}

void PointToPointHalo::run_table(Field& u, const PackTable& t, bool pack) {
  if (t.items == 0) return;
  const auto entries = t.entries;
  const int count = int(entries.extent(0));
  double* buf = t.buffer.data();
  double* field = u.data();
  const std::int64_t sy = u.stride_y();
  const Field f = u;
  // One kernel over the work items of all the phase's boxes; an item finds its box by a scan
  // of the (at most 26) entries. Values are stored x fastest per box, boxes one after another,
  // so the buffer side of every item is one contiguous run (two for a pair of x-faces).
  Kokkos::parallel_for(
      pack ? "miniapp::halo::pack" : "miniapp::halo::unpack",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, t.items),
      KOKKOS_LAMBDA(const std::int64_t item) {
        int b = 0;
        while (b + 1 < count && entries(b + 1).first_item <= item) ++b;
        const PackEntry& e = entries(b);
        const std::int64_t l = item - e.first_item;
        const int k = int(l / e.items_per_plane);
        const int j0 = int(l % e.items_per_plane) * e.rows;
        const int j1 = j0 + e.rows < e.n[1] ? j0 + e.rows : e.n[1];
        const int nx = e.n[0];
        double* q = field + f.index(e.lo[0], e.lo[1] + j0, e.lo[2] + k);
        const int rows = j1 - j0;
        const bool thin = nx < 8;
        if (e.from_field) {  // a message to this rank itself: the field's rows to its ghosts
          const double* s = field + f.index(e.src[0], e.src[1] + j0, e.src[2] + k);
          const std::int64_t to_pair = e.pair_lo0 - e.lo[0], from_pair = e.pair_src0 - e.src[0];
          for (int j = 0; j < rows; ++j, s += sy, q += sy) {
            if (thin) prefetch_column(s, sy);
            for (int i = 0; i < nx; ++i) q[i] = s[i];
            if (e.pair_lo0 < 0) continue;
            if (thin) prefetch_column(s + from_pair, sy);
            for (int i = 0; i < nx; ++i) q[to_pair + i] = s[from_pair + i];
          }
          return;
        }
        const std::int64_t in_box = std::int64_t(nx) * (j0 + std::int64_t(e.n[1]) * k);
        double* p = buf + e.offset + in_box;
        // A thin box (an x-face: a few values per row) reads one cache line per row.
        if (e.pair_lo0 >= 0) {  // two thin boxes over the same rows, row by row
          double* p2 = buf + e.pair_offset + in_box;
          double* q2 = q + (e.pair_lo0 - e.lo[0]);
          for (int j = 0; j < rows; ++j, p += nx, p2 += nx, q += sy, q2 += sy) {
            prefetch_column(q, sy);
            prefetch_column(q2, sy);
            for (int i = 0; i < nx; ++i) {
              if (pack) {
                p[i] = q[i];
                p2[i] = q2[i];
              } else {
                q[i] = p[i];
                q2[i] = p2[i];
              }
            }
          }
          return;
        }
        if (nx == 1) {  // width 1: one value per row, the buffer side contiguous
          if (pack)
            for (int j = 0; j < rows; ++j) {
              prefetch_column(q + j * sy, sy);
              p[j] = q[j * sy];
            }
          else
            for (int j = 0; j < rows; ++j) {
              prefetch_column(q + j * sy, sy);
              q[j * sy] = p[j];
            }
        } else if (pack) {
          for (int j = 0; j < rows; ++j, p += nx, q += sy) {
            if (thin) prefetch_column(q, sy);
            for (int i = 0; i < nx; ++i) p[i] = q[i];
          }
        } else {
          for (int j = 0; j < rows; ++j, p += nx, q += sy) {
            if (thin) prefetch_column(q, sy);
            for (int i = 0; i < nx; ++i) q[i] = p[i];
          }
        }
      });
}

PointToPointHalo::~PointToPointHalo() {
  if (mpi_finalized()) return;
  for (auto& [key, reqs] : requests_)
    for (auto* side : {&reqs.recv, &reqs.send})
      for (auto& phase : *side)
        for (MPI_Request& r : phase)
          if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  free_types(send_type_);
  free_types(recv_type_);
}

PointToPointHalo::Requests& PointToPointHalo::requests_for(Field& u) {
  // Kernel packing: one request set on the buffers. Datatype packing, and kernel packing with
  // messages sent in place: the requests name the field's memory, so one set per field buffer
  // (the time loop swaps two).
  const double* key = pack_ == PackKind::Kernel && messages_in_place() == 0 ? nullptr : u.data();
  auto it = requests_.find(key);
  if (it != requests_.end()) return it->second;
  Requests& r = requests_[key];
  r.recv.resize(phase_messages_.size());
  r.send.resize(phase_messages_.size());
  for (std::size_t p = 0; p < phase_messages_.size(); ++p) {
    for (int mi : phase_messages_[p]) {
      const HaloMessage& m = plan_.messages[std::size_t(mi)];
      if (sender_of_[std::size_t(mi)] >= 0) continue;  // to this rank itself: no MPI
      MPI_Request rr = MPI_REQUEST_NULL, sr = MPI_REQUEST_NULL;
      if (in_place(mi)) {
        const StorageRun in = storage_run(m.recv, u), out = storage_run(m.send, u);
        mpi_check(MPI_Recv_init(u.data() + in.offset, int(in.count), MPI_DOUBLE, m.peer, m.recv_tag,
                                comm_, &rr),
                  "MPI_Recv_init (halo)");
        mpi_check(MPI_Send_init(u.data() + out.offset, int(out.count), MPI_DOUBLE, m.peer,
                                m.send_tag, comm_, &sr),
                  "MPI_Send_init (halo)");
      } else if (pack_ == PackKind::Kernel) {
        mpi_check(MPI_Recv_init(recv_table_[p].buffer.data() + recv_off_[std::size_t(mi)],
                                int(m.recv.count()), MPI_DOUBLE, m.peer, m.recv_tag, comm_, &rr),
                  "MPI_Recv_init (halo)");
        mpi_check(MPI_Send_init(send_table_[p].buffer.data() + send_off_[std::size_t(mi)],
                                int(m.send.count()), MPI_DOUBLE, m.peer, m.send_tag, comm_, &sr),
                  "MPI_Send_init (halo)");
      } else {
        mpi_check(
            MPI_Recv_init(u.data(), 1, recv_type_[std::size_t(mi)], m.peer, m.recv_tag, comm_, &rr),
            "MPI_Recv_init (halo)");
        mpi_check(
            MPI_Send_init(u.data(), 1, send_type_[std::size_t(mi)], m.peer, m.send_tag, comm_, &sr),
            "MPI_Send_init (halo)");
      }
      r.recv[p].push_back(rr);
      r.send[p].push_back(sr);
    }
  }
  return r;
}

void PointToPointHalo::begin(Field& u, bool skip_x_faces) {
  if (phase_ >= 0) throw std::logic_error("PointToPointHalo::start: exchange already started");
  if (u.ext() != ext_) throw std::logic_error("PointToPointHalo::start: field of another shape");
  skip_x_ = skip_x_faces;
  if (x_from_sweep_ && !skip_x_faces) counters_.x_face_copy += unpack(u, x_face_table_, 0);
  phase_ = 0;
  start_phase(u, 0);
}

void PointToPointHalo::start_phase(Field& u, int phase) {
  Requests& reqs = requests_for(u);
  auto& recv = reqs.recv[std::size_t(phase)];
  auto& send = reqs.send[std::size_t(phase)];
  // Receives first, so the sends find them waiting (eager or rendezvous alike).
  if (!recv.empty()) {
    ScopedTimer timer(counters_.start, "miniapp::halo::start");
    mpi_check(MPI_Startall(int(recv.size()), recv.data()), "MPI_Startall (halo)");
  }
  if (pack_ == PackKind::Kernel && send_table_[std::size_t(phase)].items > 0) {
    const double before = counters_.pack;
    {
      // The buffers must be complete before MPI reads them.
      ScopedTimer timer(counters_.pack, "miniapp::halo::pack", Fence::AtEnd);
      run_table(u, send_table_[std::size_t(phase)], true);
    }
    counters_.pack_by_phase[std::size_t(phase)] += counters_.pack - before;
  } else {
    // Nothing to pack (every message of the phase goes from the field in place, or none goes):
    // no pack to time (an empty timed region would count a fence, or a preemption on a loaded
    // machine, as packing), but the field must be complete before MPI reads it.
    Kokkos::fence();  // the field itself is the send buffer
  }
  if (!send.empty()) {
    ScopedTimer timer(counters_.start, "miniapp::halo::start");
    mpi_check(MPI_Startall(int(send.size()), send.data()), "MPI_Startall (halo)");
  }
  active_.assign(recv.begin(), recv.end());
  active_.insert(active_.end(), send.begin(), send.end());
}

void PointToPointHalo::complete_phase(Field& u, int phase) {
  if (pack_ == PackKind::Kernel) unpack(u, recv_table_[std::size_t(phase)], phase);
  fill_boundaries(u, phase);
}

double PointToPointHalo::unpack(Field& u, const PackTable& t, int phase) {
  if (t.items == 0) return 0;  // nothing to unpack (in-place messages), nothing to time
  const double before = counters_.unpack;
  {
    ScopedTimer timer(counters_.unpack, "miniapp::halo::unpack", Fence::AtEnd);
    run_table(u, t, false);
  }
  const double seconds = counters_.unpack - before;
  counters_.unpack_by_phase[std::size_t(phase)] += seconds;
  return seconds;
}

bool PointToPointHalo::test(Field& u) {
  while (phase_ >= 0) {
    int flag = 0;
    {
      ScopedTimer timer(counters_.wait, "miniapp::halo::wait");
      mpi_check(MPI_Testall(int(active_.size()), active_.data(), &flag, MPI_STATUSES_IGNORE),
                "MPI_Testall (halo)");
    }
    if (!flag) return false;
    advance_phase(u);
  }
  return true;
}

void PointToPointHalo::advance_phase(Field& u) {
  complete_phase(u, phase_);
  if (++phase_ == plan_.phases) {
    phase_ = -1;
    count_exchange();
    counters_.bytes_in_place += in_place_bytes_;
    if (skip_x_) {
      counters_.x_faces_from_sweep += 1;
      counters_.bytes_from_sweep += x_face_bytes_;
    }
    skip_x_ = false;
  } else {
    start_phase(u, phase_);
  }
}

void PointToPointHalo::finish(Field& u) {
  while (phase_ >= 0) {
    {
      ScopedTimer timer(counters_.wait, "miniapp::halo::wait");
      mpi_check(MPI_Waitall(int(active_.size()), active_.data(), MPI_STATUSES_IGNORE),
                "MPI_Waitall (halo)");
    }
    advance_phase(u);
  }
}

// ---- neighbourhood collective -------------------------------------------------------------

NeighborCollHalo::NeighborCollHalo(const Decomposition& decomp, const Field& shape,
                                   const std::array<Boundary, 3>& bc, double bc_value)
    : HaloExchange(decomp, shape,
                   plan_halo(HaloMode::NeighborColl, neighborhood_of(decomp), shape.n(),
                             shape.halo(), two_d_of(decomp)),
                   bc, bc_value) {
  // Edge order. Destinations: my messages by increasing direction o. Sources: by increasing
  // dir(-o) = 26 - dir(o). Then my k-th edge to rank R carries the k-th message R expects from
  // me, also when R appears several times (1 or 2 ranks along a periodic dimension): the
  // collective pairs repeated edges in order.
  std::vector<const HaloMessage*> out, in;
  for (const HaloMessage& m : plan_.messages) out.push_back(&m), in.push_back(&m);
  std::sort(in.begin(), in.end(),
            [](const HaloMessage* a, const HaloMessage* b) { return a->dir > b->dir; });
  std::vector<int> dests, sources;
  for (const HaloMessage* m : out) {
    dests.push_back(m->peer);
    send_type_.push_back(subarray(storage_, m->send));
  }
  for (const HaloMessage* m : in) {
    sources.push_back(m->peer);
    recv_type_.push_back(subarray(storage_, m->recv));
  }
  counts_.assign(out.size(), 1);
  send_displ_.assign(out.size(), 0);
  recv_displ_.assign(in.size(), 0);
  MPI_Comm g = MPI_COMM_NULL;
  mpi_check(MPI_Dist_graph_create_adjacent(comm_, int(sources.size()), sources.data(),
                                           MPI_UNWEIGHTED, int(dests.size()), dests.data(),
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
            "MPI_Dist_graph_create_adjacent (halo)");
  graph_ = CommHandle(g);
}

NeighborCollHalo::~NeighborCollHalo() {
  free_types(send_type_);
  free_types(recv_type_);
}

void NeighborCollHalo::begin(Field& u, bool /*skip_x_faces: never, x_from_sweep_ is false*/) {
  if (!done_) throw std::logic_error("NeighborCollHalo::start: exchange already started");
  if (u.ext() != ext_) throw std::logic_error("NeighborCollHalo::start: field of another shape");
  Kokkos::fence();  // the field itself is the send buffer
  {
    ScopedTimer timer(counters_.start, "miniapp::halo::start");
    // Send and receive regions are disjoint parts of the same field: both buffers are u.
    mpi_check(MPI_Ineighbor_alltoallw(
                  u.data(), counts_.data(), send_displ_.data(), send_type_.data(), u.data(),
                  counts_.data(), recv_displ_.data(), recv_type_.data(), graph_.get(), &request_),
              "MPI_Ineighbor_alltoallw (halo)");
  }
  done_ = false;
}

void NeighborCollHalo::complete(Field& u) {
  fill_boundaries(u, 0);
  count_exchange();
  done_ = true;
}

bool NeighborCollHalo::test(Field& u) {
  if (done_) return true;
  int flag = 0;
  {
    ScopedTimer timer(counters_.wait, "miniapp::halo::wait");
    mpi_check(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE), "MPI_Test (halo)");
  }
  if (flag) complete(u);
  return flag != 0;
}

void NeighborCollHalo::finish(Field& u) {
  if (done_) return;
  {
    ScopedTimer timer(counters_.wait, "miniapp::halo::wait");
    mpi_check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait (halo)");
  }
  complete(u);
}

std::unique_ptr<HaloExchange> make_halo_exchange(const HaloOptions& options,
                                                 const Decomposition& decomp, const Field& shape,
                                                 const std::array<Boundary, 3>& bc,
                                                 double bc_value) {
  if (options.mode == HaloMode::NeighborColl)
    return std::make_unique<NeighborCollHalo>(decomp, shape, bc, bc_value);
  return std::make_unique<PointToPointHalo>(decomp, shape, options.mode, options.pack, bc,
                                            bc_value);
}

}  // namespace miniapp
