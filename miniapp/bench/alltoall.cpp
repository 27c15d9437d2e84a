// miniapp bench alltoall: native MPI_Alltoall on the whole communicator against the
// dimension-wise torus all-to-all (src/torus_alltoall.hpp, zero-copy: derived datatypes) and a
// pack-based dimension-wise variant (the textbook pack -> MPI_Alltoall -> unpack of pencil
// codes: explicit local reordering copies in every phase), in the same run, block size by
// block size. Every variant's result is checked byte for byte against native before it is
// timed; a difference prints MISMATCH and the run exits 1.
//
// What physics allows: the torus needs Σ_k (p_k−1) rounds instead of p−1, so it can win when
// latency dominates; it moves Σ_k (p_k−1)/p_k of the buffer instead of (p−1)/p, so for
// bandwidth-bound blocks its floor is that volume ratio (printed as "bound" beside each ratio).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "cart_subcomms.hpp"
#include "mpi_utils.hpp"
#include "torus_alltoall.hpp"

namespace miniapp::bench {

namespace {

std::string shape_of(const std::vector<int>& dims) {
  std::string s;
  for (int p : dims) s += (s.empty() ? "" : "x") + std::to_string(p);
  return s;
}

/// Dimension-wise all-to-all with explicit reordering copies (what the zero-copy version
/// avoids). Phase k views the buffer as [outer][p_k][inner] blocks, packs it to
/// [p_k][outer][inner] so that each neighbour's slab is contiguous, exchanges with a plain
/// MPI_Alltoall of bytes on sub-communicator k, and unpacks [p_k][outer][inner] back to
/// [outer][p_k][inner] in recvbuf: two local copies of the whole buffer per phase.
class PackedTorusAlltoall {
 public:
  PackedTorusAlltoall(MPI_Comm cart, const std::vector<int>& dims, std::size_t block_bytes)
      : comms_(dimension_comms(cart)), dims_(dims), block_(block_bytes) {
    const std::size_t p = std::size_t(
        std::accumulate(dims.begin(), dims.end(), 1, [](int a, int b) { return a * b; }));
    packed_.assign(p * block_, 0);
    exchanged_.assign(p * block_, 0);
  }

  void operator()(const char* send, char* recv) {
    const int d = int(dims_.size());
    const char* in = send;
    for (int k = 0; k < d; ++k) {
      std::size_t outer = 1, inner = 1;
      for (int i = 0; i < k; ++i) outer *= std::size_t(dims_[std::size_t(i)]);
      for (int i = k + 1; i < d; ++i) inner *= std::size_t(dims_[std::size_t(i)]);
      const std::size_t pk = std::size_t(dims_[std::size_t(k)]), run = inner * block_;
      for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t t = 0; t < pk; ++t)
          std::memcpy(&packed_[(t * outer + o) * run], in + (o * pk + t) * run, run);
      mpi_check(MPI_Alltoall(packed_.data(), int(outer * run), MPI_BYTE, exchanged_.data(),
                             int(outer * run), MPI_BYTE, comms_[std::size_t(k)]),
                "MPI_Alltoall");
      for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t s = 0; s < pk; ++s)
          std::memcpy(recv + (o * pk + s) * run, &exchanged_[(s * outer + o) * run], run);
      in = recv;
    }
  }

 private:
  std::vector<MPI_Comm> comms_;
  std::vector<int> dims_;
  std::size_t block_;
  std::vector<char> packed_, exchanged_;
};

/// The native algorithm this run uses, from the Open MPI MCA variables (or "default").
std::string native_algorithm_label() {
  const char* dyn = std::getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
  const char* alg = std::getenv("OMPI_MCA_coll_tuned_alltoall_algorithm");
  if (!dyn || std::string(dyn) != "1" || !alg) return "default";
  static const char* names[] = {"ignore", "linear", "pairwise", "bruck", "linear_sync", "two_proc"};
  char* end = nullptr;
  const long n = std::strtol(alg, &end, 10);  // atoi read "x" as 0, labelled "ignore"
  const bool known = end != alg && *end == '\0' && n >= 0 && n <= 5;
  return std::string(alg) + ":" + (known ? names[n] : "?");
}

struct Timing {
  double median = 0, min = 0;
};

}  // namespace

int alltoall(int argc, char** argv, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> dims;
  std::vector<long> sizes{8, 64, 512, 4096, 32768, 65536, 262144, 1048576};
  int reps = 20, warmup = 3, pieces = 1;
  long split_bytes = TorusAlltoall::kDefaultSplitBytes;
  bool pipelined = false;
  std::string csv, label = native_algorithm_label();
  CLI::App app{
      "Native MPI_Alltoall vs the dimension-wise zero-copy torus all-to-all vs a "
      "pack-based dimension-wise variant, per block size. Times are the slowest "
      "rank's; median and min over --reps.",
      "miniapp bench alltoall"};
  app.option_defaults()->always_capture_default();
  app.add_option("--dims", dims, "torus P0 P1 ... (product = ranks; default MPI_Dims_create, 2-D)");
  app.add_option("--sizes", sizes, "bytes per destination block")->check(CLI::Range(1L, 1L << 28));
  app.add_option("--reps", reps, "timed repetitions")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed repetitions first")->check(CLI::Range(0, 1000));
  app.add_option("--pieces", pieces, "pieces C per block (temporary = 1/C of recvbuf)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_flag("--pipelined", pipelined,
               "overlap the phases of successive pieces (nonblocking; min(C,d) temporaries)");
  app.add_option("--split-bytes", split_bytes,
                 "C=1: phases whose contiguous runs reach this many bytes run as contiguous "
                 "sub-all-to-alls (0: never)");
  app.add_option("--csv", csv, "append one CSV line per size and variant to this file");
  app.add_option("--label", label,
                 "native-algorithm label for the CSV (default from the MCA "
                 "variables)");
  if (const int status = parse_options(app, argc, argv, comm); status >= 0) return status;
  if (dims.empty()) {
    dims.assign(2, 0);
    mpi_check(MPI_Dims_create(size, 2, dims.data()), "MPI_Dims_create");
  }
  CommHandle cart;
  try {
    cart = make_torus(comm, dims);  // same verdict on every rank
    for (long b : sizes)
      if (b * long(size) > (1L << 31) - 1)
        throw std::invalid_argument("--sizes " + std::to_string(b) + " x " + std::to_string(size) +
                                    " ranks exceeds 2 GiB per buffer");
  } catch (const std::invalid_argument& e) {
    if (rank == 0) std::cerr << "miniapp: error: " << e.what() << "\n";
    return 2;
  }
  const int p = size;
  int rounds = 0;
  double torus_volume = 0;
  for (int pk : dims) rounds += pk - 1, torus_volume += double(pk - 1) / pk;
  const double bound = torus_volume / (double(p - 1) / p);

  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  std::string lib(version, std::size_t(len));
  lib = lib.substr(0, lib.find_first_of(",\n"));
  if (rank == 0) {
    std::printf(
        "bench alltoall: %d ranks, torus %s, rounds %d (torus) vs %d (native), volume bound "
        "%.3f\n  pieces C=%d%s, native algorithm: %s, %s, %d reps (+%d warm-up), times: "
        "slowest rank\n",
        p, shape_of(dims).c_str(), rounds, p - 1, bound, pieces, pipelined ? " pipelined" : "",
        label.c_str(), lib.c_str(), reps, warmup);
    std::printf(
        "  select the native algorithm for a fair comparison: Open MPI "
        "OMPI_MCA_coll_tuned_use_dynamic_rules=1\n  OMPI_MCA_coll_tuned_alltoall_algorithm=N (1 "
        "linear, 2 pairwise, 3 modified Bruck, 4 linear_sync, 5 two_proc);\n  MPICH "
        "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks|pairwise|scattered with "
        "MPIR_CVAR_ALLTOALL_DEVICE_COLLECTIVE=0\n");
    std::printf(
        "  ratio = median time / native median time; bound = torus volume / native "
        "volume; BW = p(p-1)B / median\n");
    std::printf(
        "  on one shared-memory node each phase also copies its own slab locally: the "
        "torus copies\n  every byte %zu times (once per dimension), native once\n\n",
        dims.size());
    std::printf("%9s | %-21s | %-21s %7s %6s | %-21s %7s | %7s | %8s %8s\n", "", "native",
                "torus zero-copy", "", "", "torus pack-based", "", "zc/pack", "BW GB/s", "");
    std::printf("%9s | %10s %10s | %10s %10s %7s %6s | %10s %10s %7s | %7s | %8s %8s\n", "B/block",
                "median us", "min us", "median us", "min us", "ratio", "bound", "median us",
                "min us", "ratio", "ratio", "native", "torus");
  }
  std::ofstream csv_out;
  if (rank == 0 && !csv.empty()) {
    std::ifstream probe(csv);
    const bool fresh = !probe.good() || probe.peek() == std::ifstream::traits_type::eof();
    csv_out.open(csv, std::ios::app);
    if (!csv_out) throw std::runtime_error("cannot open --csv " + csv);
    if (fresh)
      csv_out << "native_alg,dims,p,pieces,pipelined,bytes,variant,median_s,min_s,"
                 "ratio_to_native,volume_bound\n";
  }

  int mismatches = 0;
  for (long bytes : sizes) {
    const std::size_t block = std::size_t(bytes), total = block * std::size_t(p);
    std::vector<char> send(total), native(total), torus(total), packed(total);
    for (std::size_t i = 0; i < total; ++i)  // depends on (sender, destination, byte)
      send[i] = char((rank * 131 + int(i / block) * 31 + int(i % block) * 7 + 1) & 0xff);
    MPI_Datatype block_type = MPI_DATATYPE_NULL;
    mpi_check(MPI_Type_contiguous(int(bytes), MPI_BYTE, &block_type), "MPI_Type_contiguous");
    TypeHandle block_h(block_type);
    mpi_check(MPI_Type_commit(&block_type), "MPI_Type_commit");
    TorusAlltoall plan(cart.get(), 1, block_type, pieces, pipelined, split_bytes);
    PackedTorusAlltoall pack(cart.get(), dims, block);

    auto run_native = [&] {
      mpi_check(MPI_Alltoall(send.data(), int(bytes), MPI_BYTE, native.data(), int(bytes), MPI_BYTE,
                             cart.get()),
                "MPI_Alltoall");
    };
    auto run_torus = [&] { plan(send.data(), torus.data()); };
    auto run_pack = [&] { pack(send.data(), packed.data()); };

    // Validate first: every variant against native, agreed by all ranks.
    run_native();
    run_torus();
    run_pack();
    int bad[2] = {std::memcmp(torus.data(), native.data(), total) != 0,
                  std::memcmp(packed.data(), native.data(), total) != 0};
    MPI_Allreduce(MPI_IN_PLACE, bad, 2, MPI_INT, MPI_MAX, cart.get());
    if (bad[0] || bad[1]) {
      if (rank == 0)
        std::printf("MISMATCH torus %s, %ld B per block: %s%s differ from native\n",
                    shape_of(dims).c_str(), bytes, bad[0] ? "zero-copy " : "",
                    bad[1] ? "pack-based" : "");
      ++mismatches;
      continue;
    }

    std::vector<double> t[3];
    auto timed = [&](auto&& f) {
      MPI_Barrier(cart.get());
      double s = MPI_Wtime();
      f();
      s = MPI_Wtime() - s;
      MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, cart.get());
      return s;
    };
    for (int r = 0; r < warmup + reps; ++r) {
      // Interleaved, so all three see the same machine state.
      const double a = timed(run_native), b = timed(run_torus), c = timed(run_pack);
      if (r >= warmup) t[0].push_back(a), t[1].push_back(b), t[2].push_back(c);
    }
    Timing tm[3];
    for (int v = 0; v < 3; ++v) tm[v] = {median(t[v]), *std::min_element(t[v].begin(), t[v].end())};
    const double useful = double(p) * (p - 1) * double(bytes);
    if (rank == 0) {
      std::printf(
          "%9ld | %10.1f %10.1f | %10.1f %10.1f %7.3f %6.3f | %10.1f %10.1f %7.3f | "
          "%7.3f | %8.3f %8.3f\n",
          bytes, tm[0].median * 1e6, tm[0].min * 1e6, tm[1].median * 1e6, tm[1].min * 1e6,
          tm[1].median / tm[0].median, bound, tm[2].median * 1e6, tm[2].min * 1e6,
          tm[2].median / tm[0].median, tm[1].median / tm[2].median, useful / tm[0].median / 1e9,
          useful / tm[1].median / 1e9);
      std::fflush(stdout);
      const char* names[3] = {"native", "torus", "pack"};
      if (csv_out.is_open())
        for (int v = 0; v < 3; ++v)
          csv_out << label << "," << shape_of(dims) << "," << p << "," << pieces << ","
                  << int(pipelined) << "," << bytes << "," << names[v] << "," << tm[v].median << ","
                  << tm[v].min << "," << tm[v].median / tm[0].median << "," << bound << "\n";
    }
  }
  if (rank == 0 && mismatches)
    std::printf("%d block size(s) gave a MISMATCH: results are not valid\n", mismatches);
  return mismatches ? 1 : 0;
}

}  // namespace miniapp::bench
