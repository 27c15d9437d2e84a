#include "halo_exchange.hpp"

#include "boundary.hpp"
#include "box_kernels.hpp"

namespace miniapp {

namespace {
/// Tag of a message travelling along dimension d towards the sender's `side`.
int tag_of(int d, int side) { return 2 * d + side; }
}  // namespace

HaloExchange::HaloExchange(const Decomposition& decomp, const Field& shape,
                           const std::array<Boundary, 3>& bc, double bc_value)
    : comm_(decomp.comm()), rank_(decomp.rank()), bc_(bc), bc_value_(bc_value) {
  const int h = shape.halo();
  const Index3 n = shape.n();
  for (int d = 0; d < 3; ++d) {
    Phase& ph = phases_[d];
    // Dimensions before d span the full padded width, dimensions after d the interior only.
    ph.span = shape.interior();
    for (int e = 0; e < d; ++e) {
      ph.span.lo[e] = 0;
      ph.span.hi[e] = n[e] + 2 * h;
    }
    for (int side = 0; side < 2; ++side) {
      Face& f = ph.face[side];
      Index3 off{0, 0, 0};
      off[d] = side == 0 ? -1 : 1;
      f.peer = decomp.neighbor(off);
      f.send = ph.span;
      f.send.lo[d] = side == 0 ? h : n[d];
      f.send.hi[d] = f.send.lo[d] + h;
      f.recv = ghost_slab(shape, d, side, ph.span);
      if (f.peer == MPI_PROC_NULL) continue;
      f.send_buf = Kokkos::View<double*, Memory>("miniapp::halo::send", f.send.count());
      f.recv_buf = Kokkos::View<double*, Memory>("miniapp::halo::recv", f.recv.count());
      messages_per_exchange_ += 1;
      bytes_per_exchange_ += f.send.count() * std::int64_t(sizeof(double));
    }
  }
}

void HaloExchange::exchange(Field& u) {
  Kokkos::Profiling::pushRegion("miniapp::halo::exchange");
  for (int d = 0; d < 3; ++d) {
    Phase& ph = phases_[d];
    MPI_Request reqs[4];
    int nreq = 0;
    // Post receives first, so the sends find them waiting (eager or rendezvous alike).
    for (int side = 0; side < 2; ++side) {
      Face& f = ph.face[side];
      if (f.peer == MPI_PROC_NULL || f.peer == rank_) continue;
      mpi_check(MPI_Irecv(f.recv_buf.data(), int(f.recv_buf.extent(0)), MPI_DOUBLE, f.peer,
                          tag_of(d, 1 - side), comm_, &reqs[nreq++]),
                "MPI_Irecv (halo)");
    }
    double t = MPI_Wtime();
    for (int side = 0; side < 2; ++side) {
      Face& f = ph.face[side];
      if (f.peer != MPI_PROC_NULL) pack_box(u, f.send, f.send_buf.data(), "miniapp::halo::pack");
    }
    Kokkos::fence();  // the buffers must be complete before MPI reads them
    counters_.pack += MPI_Wtime() - t;

    for (int side = 0; side < 2; ++side) {
      Face& f = ph.face[side];
      if (f.peer == MPI_PROC_NULL || f.peer == rank_) continue;
      mpi_check(MPI_Isend(f.send_buf.data(), int(f.send_buf.extent(0)), MPI_DOUBLE, f.peer,
                          tag_of(d, side), comm_, &reqs[nreq++]),
                "MPI_Isend (halo)");
    }
    t = MPI_Wtime();
    mpi_check(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall (halo)");
    counters_.wait += MPI_Wtime() - t;

    t = MPI_Wtime();
    for (int side = 0; side < 2; ++side) {
      Face& f = ph.face[side];
      if (f.peer == MPI_PROC_NULL) continue;
      // Self-neighbour: what I send towards the other side is what my ghosts here receive.
      const double* src = f.peer == rank_ ? ph.face[1 - side].send_buf.data() : f.recv_buf.data();
      unpack_box(u, f.recv, src, "miniapp::halo::unpack");
    }
    Kokkos::fence();
    counters_.unpack += MPI_Wtime() - t;

    t = MPI_Wtime();
    bool filled = false;
    for (int side = 0; side < 2; ++side) {
      if (ph.face[side].peer != MPI_PROC_NULL) continue;
      apply_boundary(u, d, side, bc_[d], bc_value_, ph.span);
      filled = true;
    }
    if (filled) {
      Kokkos::fence();
      counters_.boundary += MPI_Wtime() - t;
    }
  }
  counters_.exchanges += 1;
  counters_.messages += messages_per_exchange_;
  counters_.bytes += bytes_per_exchange_;
  Kokkos::Profiling::popRegion();
}

}  // namespace miniapp
