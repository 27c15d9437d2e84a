// Halo exchange: a plan (halo_plan.hpp) built once, executed every time the ghosts must be
// refreshed, split-phase so that work can overlap it:
//
//   halo.start(u);  while (!halo.test(u)) { update some interior cells }  halo.finish(u);
//
// or simply halo.exchange(u). Two executors share this interface and are chosen by
// make_halo_exchange() from the HaloOptions:
//
//   PointToPointHalo   dim-ordered, neighbors26, faces: persistent requests
//                      (MPI_Send_init / MPI_Recv_init, MPI_Startall every exchange, per phase:
//                      receives first, then pack, then sends). --pack kernel packs all boxes of
//                      a phase with one Kokkos kernel into one buffer allocated once (and
//                      unpacks likewise), except boxes that are one run of the field's
//                      storage (whole padded planes), which MPI sends from the field and
//                      receives into it; --pack datatype sends subarray
//                      datatypes of the field in place (one request set per field buffer,
//                      since the time loop swaps two fields).
//   NeighborCollHalo   neighbor-coll: one MPI_Ineighbor_alltoallw on a distributed graph
//                      (MPI_Dist_graph_create_adjacent) with subarray datatypes, no packing.
//
// After each phase's messages the plan's physical-boundary fills run (boundary.hpp). Messages
// to this rank itself (periodic dimension with one rank) count as messages and bytes like the
// others: the traffic a rank would have with a real neighbour. Under kernel packing they never
// reach MPI: the unpack copies the sent box of the field into the ghosts. Where x is periodic
// over this rank alone, the sweep can store the x ghosts as it writes each line (stencil.hpp,
// XGhosts::Wrap); start(u, true) then leaves the x faces as they are (x_faces_from_sweep).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "boundary.hpp"
#include "decomposition.hpp"
#include "field.hpp"
#include "halo_plan.hpp"
#include "names.hpp"

namespace miniapp {

/// How the point-to-point halo modes marshal a strided region: Kokkos kernels into contiguous
/// buffers, or an MPI subarray datatype sent in place.
enum class PackKind { Kernel, Datatype };
inline constexpr NameTable<PackKind, 2> kPackNames{
    {{PackKind::Kernel, "kernel"}, {PackKind::Datatype, "datatype"}}};
inline const char* to_string(PackKind p) { return name_of(kPackNames, p); }

/// How ghost cells are refreshed: the exchange's mode and packing, the ghost width H (one
/// exchange per H steps) and whether interior updates overlap the messages.
struct HaloOptions {
  HaloMode mode = HaloMode::DimOrdered;
  PackKind pack = PackKind::Kernel;
  int width = 1;
  bool overlap = false;
};

/// A box of a field that is one run of its storage: its first value's offset from data() and
/// the run's length in doubles, the rows' padding up to the pitch included. count 0: the box is
/// not one run.
struct StorageRun {
  std::int64_t offset = 0, count = 0;
};
/// The run of box b (padded local cells) in the storage of fields shaped like `shape`: whole
/// padded rows of whole planes (a z face of the dim-ordered plan, x and y ghosts included), or
/// whole padded rows of one plane. Pure.
StorageRun storage_run(const Box& b, const Field& shape);
/// Whether kernel packing hands message m of rank `self` to MPI in place, from the field and
/// into it: m goes to another rank and its sent and received boxes are each one run of the
/// storage (the same length). The executor and --explain both ask this. Pure.
bool sent_in_place(const HaloMessage& m, const Field& shape, int self);

/// Accumulated cost of halo exchanges on this rank.
struct HaloCounters {
  std::int64_t exchanges = 0;  ///< completed exchanges
  std::int64_t messages = 0;   ///< messages sent (self-messages included)
  std::int64_t bytes = 0;      ///< bytes sent (self-messages included)
  double pack = 0;             ///< seconds packing (kernel + fence)
  double wait = 0;             ///< seconds in MPI_Waitall / MPI_Testall / MPI_Wait
  double unpack = 0;           ///< seconds unpacking (kernel + fence)
  double boundary = 0;         ///< seconds filling physical boundaries (kernel + fence)
  double start = 0;            ///< seconds posting (MPI_Startall, MPI_Ineighbor_alltoallw)
  /// Exchanges that left the x faces as the sweep stored them, and those faces' bytes (counted
  /// in `bytes` too, as the traffic with a real neighbour, but never moved by the exchange).
  std::int64_t x_faces_from_sweep = 0, bytes_from_sweep = 0;
  /// Bytes of messages MPI sent from the field and received into it, with no buffer (counted
  /// in `bytes` too; never packed or unpacked).
  std::int64_t bytes_in_place = 0;
  /// Seconds copying the x faces as an exchange starts, where the sweep could have stored them
  /// but did not (in unpack and unpack_by_phase[0] too).
  double x_face_copy = 0;
  /// pack and unpack split by phase (kernel packing). Dim-ordered: phase d moves the faces
  /// normal to dimension d, so [0] is the x faces, one strided value per row.
  std::array<double, 3> pack_by_phase{}, unpack_by_phase{};
};

/// The neighbourhood of this rank in the decomposition (MPI_Cart_rank). Not collective.
Neighborhood neighborhood_of(const Decomposition& decomp);

class HaloExchange {
 public:
  virtual ~HaloExchange() = default;
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  /// Start refreshing the ghosts of u (posts receives, packs, starts sends). Collective over
  /// the decomposition's communicator (with finish); u must not change until finish().
  /// `x_faces_current`: the sweep that wrote u stored the x ghosts of all its interior lines
  /// (XGhosts::Wrap); where x_faces_from_sweep(), the exchange then leaves them as they are.
  void start(Field& u, bool x_faces_current = false) { begin(u, x_faces_current && x_from_sweep_); }
  /// Progress the exchange started on u; true when all of it has completed (then finish() only
  /// books it). Fences when it unpacks.
  virtual bool test(Field& u) = 0;
  /// Complete the exchange started on u: every ghost cell holds neighbour data or its physical
  /// boundary value. Fences before returning.
  virtual void finish(Field& u) = 0;
  /// While an exchange is in flight: how many leading dimensions (x, then x and y, ...) already
  /// have every ghost cell (neighbour data and physical-boundary values), so that cells which
  /// read ghosts of those dimensions only can be updated before the rest arrives. Dim-ordered
  /// completes one dimension per phase; the one-phase modes none until all; x from the start
  /// where x_faces_from_sweep(). All three once no exchange is in flight. Not collective.
  virtual int dims_complete() const = 0;
  /// start + finish. Collective; fences.
  void exchange(Field& u, bool x_faces_current = false) {
    start(u, x_faces_current);
    finish(u);
  }
  /// Whether the sweep may store the x faces in place of this exchange: x is periodic over this
  /// rank alone, so every x ghost of an interior line is a cell of the same line, and kernel
  /// packing copies them without MPI (the other executors send them through MPI: false).
  bool x_faces_from_sweep() const { return x_from_sweep_; }

  const HaloPlan& plan() const { return plan_; }
  const HaloCounters& counters() const { return counters_; }
  void reset_counters() { counters_ = {}; }
  /// Messages and bytes this rank sends per exchange (self-messages included).
  std::int64_t messages_per_exchange() const { return plan_.messages_per_exchange(); }
  std::int64_t bytes_per_exchange() const { return plan_.bytes_per_exchange(); }

 protected:
  HaloExchange(const Decomposition& decomp, const Field& shape, HaloPlan plan,
               const std::array<Boundary, 3>& bc, double bc_value);
  /// Run the plan's physical-boundary fills of `phase` (kernels + fence, timed).
  void fill_boundaries(Field& u, int phase);
  /// Book one completed exchange in the counters.
  void count_exchange();
  /// start(): `skip_x_faces` only where x_faces_from_sweep().
  virtual void begin(Field& u, bool skip_x_faces) = 0;

  MPI_Comm comm_;
  HaloPlan plan_;
  std::array<Boundary, 3> bc_;
  double bc_value_;
  Index3 ext_;      ///< padded extents of the fields this plan serves
  Index3 storage_;  ///< their storage extents (Field::storage_ext)
  HaloCounters counters_;
  bool x_from_sweep_ = false;  ///< set by an executor that can leave the x faces to the sweep
};

/// Point-to-point executor of the dim-ordered, neighbors26 and faces plans.
class PointToPointHalo final : public HaloExchange {
 public:
  /// Plan the exchange and create its persistent requests (kernel packing). Not collective.
  PointToPointHalo(const Decomposition& decomp, const Field& shape, HaloMode mode, PackKind pack,
                   const std::array<Boundary, 3>& bc, double bc_value);
  ~PointToPointHalo() override;
  bool test(Field& u) override;
  void finish(Field& u) override;
  /// Messages of an exchange that MPI sends from the field and receives into it with no
  /// buffer (in_place()).
  int messages_in_place() const { return int(std::count(in_place_.begin(), in_place_.end(), 1)); }
  /// Where x_faces_from_sweep(), x is complete from the start (see begin()).
  int dims_complete() const override {
    return phase_ < 0 ? 3 : std::max(plan_.phases > 1 ? phase_ : 0, x_from_sweep_ ? 1 : 0);
  }

 private:
  /// Persistent requests of one phase: receives first, then sends, message order.
  struct Requests {
    std::vector<std::vector<MPI_Request>> recv, send;  ///< [phase][message in phase]
  };
  void begin(Field& u, bool skip_x_faces) override;
  Requests& requests_for(Field& u);
  void start_phase(Field& u, int phase);
  void complete_phase(Field& u, int phase);
  /// The current phase's messages have arrived: unpack it, then start the next phase or, after
  /// the last, count the exchange as done.
  void advance_phase(Field& u);

  /// One box of a fused pack/unpack kernel: its cells sit at `offset` in the phase buffer.
  /// A work item is `rows` x-lines of one z-plane of the box: enough values that the item's
  /// start-up is paid back, and for the thin x-faces (n[0] = H) a whole yz-plane column whose
  /// values are gathered one per row and written to the buffer with unit stride.
  struct PackEntry {
    int lo[3], n[3];
    int rows;                 ///< x-lines per work item (a range of j in one plane k)
    int items_per_plane;      ///< ceil(n[1] / rows)
    std::int64_t offset;      ///< first value in the phase buffer
    std::int64_t first_item;  ///< first work item of this box among the phase's boxes
    /// A second thin box over the same rows, walked with this one (-1: none): its x origin
    /// and its first value in the phase buffer.
    int pair_lo0 = -1;
    std::int64_t pair_offset = 0;
    /// A message to this rank itself: its values come straight from the field's sent box,
    /// whose origin is src (and the partner's x origin pair_src0), not from a buffer.
    bool from_field = false;
    int src[3] = {0, 0, 0};
    int pair_src0 = 0;
  };
  /// Everything one phase packs (or unpacks) in a single kernel.
  struct PackTable {
    Kokkos::View<PackEntry*, Memory> entries;
    Kokkos::View<double*, Memory> buffer;
    std::int64_t items = 0;
  };
  /// Which of a phase's messages a table moves: all, all but the x faces this rank sends
  /// itself, or only those.
  enum class Part { All, WithoutXFaces, XFaces };
  /// The table of `messages` (send: their packing, else their unpacking).
  PackTable make_table(const std::vector<int>& messages, bool send, Part part = Part::All);
  /// Whether message mi is an x face this rank sends itself (a periodic x over this rank alone).
  bool self_x_face(int mi) const;
  /// Whether message mi goes to another rank from the field's storage and arrives there, as
  /// plain doubles (sent_in_place(), under kernel packing).
  bool in_place(int mi) const { return in_place_[std::size_t(mi)]; }
  void run_table(Field& u, const PackTable& t, bool pack);
  /// Unpack table t into u, timed into counters_.unpack and unpack_by_phase[phase]; its seconds.
  double unpack(Field& u, const PackTable& t, int phase);
  /// Messages to this rank itself (a periodic dimension over one rank) under kernel packing:
  /// sender_of_[r] is the message whose sent box message r receives (MPI's matching: r's
  /// receive tag is its send tag), -1 for every other message. Such a pair is never packed
  /// and MPI never sees it: the unpack copies the sent box of the field into the received
  /// ghosts, one read and one write per value instead of two of each through a buffer.
  std::vector<int> sender_of_;
  /// Per message, whether it is sent in place (in_place(); never under datatype packing).
  /// Packing a box that is already one run into a buffer, and unpacking it, would only copy it
  /// twice more: the z faces of the dim-ordered plan are whole planes.
  std::vector<char> in_place_;
  std::int64_t in_place_bytes_ = 0;  ///< their bytes per exchange

  PackKind pack_;
  std::vector<std::vector<int>> phase_messages_;  ///< message indices per phase
  /// Per phase (kernel packing); the receive tables without the x faces if x_from_sweep_.
  std::vector<PackTable> send_table_, recv_table_;
  PackTable x_face_table_;  ///< x_from_sweep_: the x faces, copied at the start if not current
  std::int64_t x_face_bytes_ = 0;                    ///< their bytes per exchange
  std::vector<std::int64_t> send_off_, recv_off_;    ///< per message: offset in its phase buffer
  std::vector<MPI_Datatype> send_type_, recv_type_;  ///< datatype packing
  std::map<const double*, Requests> requests_;       ///< keyed by the field's data
  std::vector<MPI_Request> active_;                  ///< the current phase's requests
  int phase_ = -1;                                   ///< current phase, -1 when idle
  bool skip_x_ = false;  ///< the exchange in flight leaves the x faces as the sweep stored them
};

/// Neighbourhood-collective executor (neighbors26 pattern, one MPI_Ineighbor_alltoallw).
class NeighborCollHalo final : public HaloExchange {
 public:
  /// Plan the exchange and create the distributed graph communicator. Collective.
  NeighborCollHalo(const Decomposition& decomp, const Field& shape,
                   const std::array<Boundary, 3>& bc, double bc_value);
  ~NeighborCollHalo() override;
  bool test(Field& u) override;
  void finish(Field& u) override;
  int dims_complete() const override { return done_ ? 3 : 0; }

 private:
  void begin(Field& u, bool skip_x_faces) override;
  void complete(Field& u);
  CommHandle graph_;
  std::vector<int> counts_;
  std::vector<MPI_Aint> send_displ_, recv_displ_;
  std::vector<MPI_Datatype> send_type_, recv_type_;  ///< graph edge order
  MPI_Request request_ = MPI_REQUEST_NULL;
  bool done_ = true;
};

/// The halo exchange of `options.mode` and `options.pack` for fields shaped like `shape`, with
/// the given physical boundaries. Collective over the decomposition's communicator
/// (neighbor-coll creates a graph).
std::unique_ptr<HaloExchange> make_halo_exchange(const HaloOptions& options,
                                                 const Decomposition& decomp, const Field& shape,
                                                 const std::array<Boundary, 3>& bc,
                                                 double bc_value);

}  // namespace miniapp
