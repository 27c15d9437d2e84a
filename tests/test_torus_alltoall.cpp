// The torus all-to-all against MPI_Alltoall, exactly. Every int64 value encodes (sender,
// destination, element, component), so any misplaced, lost or duplicated value is caught and
// named; receive buffers are compared byte for byte, holes of non-contiguous types included.
// One launch loops over every torus that fits in the world (first_ranks(p) sub-communicators).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cart_subcomms.hpp"
#include "test_support.hpp"
#include "torus_alltoall.hpp"

namespace miniapp::test {
namespace {

// The tori of the exhaustive sweep, by the launch that checks them (tests/CMakeLists.txt runs
// the small ones at np 8, the 9..16-rank ones at np 16 and the 18/24-rank ones at np 24).
const std::vector<std::vector<int>> kToriUpTo8 = {{1}, {5}, {2, 2}, {2, 3}, {2, 1, 3}, {2, 2, 2}};
const std::vector<std::vector<int>> kToriUpTo16 = {{3, 2, 2}, {3, 2, 1, 2}, {4, 4}, {2, 2, 2, 2},
                                                   {16},      {16, 1},      {2, 8}, {1, 4, 1, 4}};
const std::vector<std::vector<int>> kToriUpTo24 = {{3, 3, 2}, {2, 3, 4}, {4, 6}};

std::string shape(const std::vector<int>& dims) {
  std::string s;
  for (int p : dims) s += (s.empty() ? "" : "x") + std::to_string(p);
  return s;
}

int product(const std::vector<int>& dims) {
  int p = 1;
  for (int d : dims) p *= d;
  return p;
}

/// The element layouts under test: plain int64, and a strided vector of 2 int64 with stride 3
/// (extent 4 int64: slots 1 and 2 of every element are holes MPI must leave alone).
struct ElementType {
  std::string name;
  TypeHandle type;
  int slots;              // int64 slots per element extent
  std::vector<int> used;  // slots that carry data
};

std::vector<ElementType> element_types() {
  std::vector<ElementType> types;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(1, MPI_INT64_T, &t);
  MPI_Type_commit(&t);
  types.push_back({"int64", TypeHandle(t), 1, {0}});
  MPI_Type_vector(2, 1, 3, MPI_INT64_T, &t);
  MPI_Type_commit(&t);
  types.push_back({"vector(2,1,3)", TypeHandle(t), 4, {0, 3}});
  return types;
}

std::int64_t encode(int sender, int dest, int element, int slot) {
  return ((std::int64_t(sender) * 64 + dest) * 4096 + element) * 8 + slot + 1;
}

/// One check: torus_alltoall (or the pipelined plan) vs MPI_Alltoall vs the closed form.
/// Returns "" or a description of the first difference.
/// How the torus all-to-all is called: the free function (cached plan, default options), the
/// pipelined plan, or a plan that splits every phase it can into contiguous sub-all-to-alls.
enum class Mode { Free, Pipelined, Split };

std::string check(MPI_Comm cart, const ElementType& et, int count, int pieces,
                  Mode mode = Mode::Free) {
  int rank = 0, p = 1;
  MPI_Comm_rank(cart, &rank);
  MPI_Comm_size(cart, &p);
  const std::size_t per_block = std::size_t(count) * std::size_t(et.slots);
  const std::int64_t hole_send = -1, hole_recv = -2;
  std::vector<std::int64_t> send(per_block * std::size_t(p), hole_send);
  std::vector<std::int64_t> expected(send.size(), hole_recv), ref(expected), got(expected);
  for (int j = 0; j < p; ++j)
    for (int e = 0; e < count; ++e)
      for (int s : et.used) {
        const std::size_t i = std::size_t(j) * per_block + std::size_t(e) * et.slots + s;
        send[i] = encode(rank, j, e, s);
        expected[i] = encode(j, rank, e, s);  // block j of recvbuf comes from rank j
      }
  MPI_Alltoall(send.data(), count, et.type.get(), ref.data(), count, et.type.get(), cart);
  if (mode == Mode::Pipelined)
    cached_torus_alltoall(cart, count, et.type.get(), pieces, true)(send.data(), got.data());
  else if (mode == Mode::Split)
    TorusAlltoall(cart, count, et.type.get(), pieces, false, 1)(send.data(), got.data());
  else
    torus_alltoall(send.data(), count, et.type.get(), got.data(), count, et.type.get(), cart,
                   pieces);
  if (std::memcmp(ref.data(), expected.data(), ref.size() * 8) != 0)
    return "MPI_Alltoall itself differs from the closed form";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != ref[i]) {
      std::ostringstream os;
      const std::int64_t v = got[i];
      os << "rank " << rank << " recv[" << i << "] (block " << i / per_block << ") = " << v;
      if (v > 0)
        os << " = (sender " << (v - 1) / 8 / 4096 / 64 << ", dest " << (v - 1) / 8 / 4096 % 64
           << ", element " << (v - 1) / 8 % 4096 << ", slot " << (v - 1) % 8 << ")";
      os << ", MPI_Alltoall gives " << ref[i];
      return os.str();
    }
  return "";
}

/// Run `body(cart, dims)` on every torus of `tori` that fits in the world.
template <class F>
void for_each_torus(const std::vector<std::vector<int>>& tori, F body) {
  for (const auto& dims : tori) {
    CommHandle comm = first_ranks(product(dims));
    if (comm.get() == MPI_COMM_NULL) continue;
    CommHandle cart = make_torus(comm.get(), dims);
    body(cart.get(), dims);
  }
}

/// Every torus of `tori` (that fits) x both element types x counts 1, 3, 8, 1000 x C = 1, 2, 3,
/// blocking; pipelined for C = 3; split into contiguous sub-all-to-alls for C = 1.
void sweep(const std::vector<std::vector<int>>& tori) {
  const auto types = element_types();
  int checked = 0;
  for_each_torus(tori, [&](MPI_Comm cart, const std::vector<int>& dims) {
    for (const auto& et : types)
      for (int count : {1, 3, 8, 1000})
        for (int pieces : {1, 2, 3})
          for (Mode mode : {Mode::Free, Mode::Pipelined, Mode::Split}) {
            if ((mode == Mode::Pipelined && pieces != 3) || (mode == Mode::Split && pieces != 1))
              continue;
            const std::string err = check(cart, et, count, pieces, mode);
            ASSERT_EQ(err, "") << "torus " << shape(dims) << ", " << et.name << " x " << count
                               << ", C=" << pieces
                               << (mode == Mode::Pipelined ? ", pipelined"
                                   : mode == Mode::Split   ? ", split"
                                                           : "");
            ++checked;
          }
  });
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("[          ] %d torus/type/count/C combinations checked\n", checked);
}

TEST(TorusAlltoall, MatchesMpiAlltoallUpTo8Ranks) { sweep(kToriUpTo8); }
TEST(TorusAlltoall, MatchesMpiAlltoallUpTo16Ranks) {
  if (world_size() < 12) GTEST_SKIP() << "needs 12 ranks or more";
  sweep(kToriUpTo16);
}
TEST(TorusAlltoall, MatchesMpiAlltoallUpTo24Ranks) {
  if (world_size() < 18) GTEST_SKIP() << "needs 18 ranks or more";
  sweep(kToriUpTo24);
}

// Open MPI 4.1.4 picks its (buggy for differing send/receive types) modified Bruck algorithm
// by default for small blocks on >= 16 ranks. This test runs under the default selection (no
// MCA variables) with tiny blocks and C > 1 on the 16-rank tori, including ones whose
// sub-communicators have 16 ranks and so reach Bruck. (Verified: issuing the mixed-layout
// phases as MPI_Alltoall instead of MPI_Alltoallv makes the 16x1 case fail with wrong data and
// segfaults here.)
TEST(TorusAlltoall, DefaultAlgorithmSelectionSixteenRanksTinyBlocks) {
  if (world_size() < 16) GTEST_SKIP() << "needs 16 ranks";
  const auto types = element_types();
  for_each_torus({{4, 4}, {2, 2, 2, 2}, {16}, {16, 1}, {1, 16}, {2, 8}, {8, 2}},
                 [&](MPI_Comm cart, const std::vector<int>& dims) {
                   for (const auto& et : types)
                     for (int count : {1, 3})
                       for (int pieces : {2, 3}) {
                         const std::string err = check(cart, et, count, pieces);
                         ASSERT_EQ(err, "") << "torus " << shape(dims) << ", " << et.name << " x "
                                            << count << ", C=" << pieces;
                       }
                 });
}

TEST(TorusAlltoall, RepeatedCallsReuseCachedCommunicatorsAndPlans) {
  const auto types = element_types();
  for_each_torus({{2, 2}, {2, 2, 2}, {4, 4}}, [&](MPI_Comm cart, const std::vector<int>& dims) {
    ASSERT_EQ(check(cart, types[1], 3, 2), "") << shape(dims);
    const long comms = dimension_comms_created(), plans = torus_alltoall_plans_created();
    for (int r = 0; r < 5; ++r) ASSERT_EQ(check(cart, types[1], 3, 2), "");
    EXPECT_EQ(dimension_comms_created(), comms) << "new communicators on " << shape(dims);
    EXPECT_EQ(torus_alltoall_plans_created(), plans) << "new plans on " << shape(dims);
    // A new (count, type, C) builds one plan but splits nothing.
    ASSERT_EQ(check(cart, types[0], 8, 3), "");
    EXPECT_EQ(dimension_comms_created(), comms);
    EXPECT_EQ(torus_alltoall_plans_created(), plans + 1);
  });
}

TEST(TorusAlltoall, DerivedTypeFreedAndRecreatedGetsANewPlan) {
  CommHandle comm = first_ranks(world_size());
  CommHandle cart = make_torus(comm.get(), {world_size()});
  for (int stride : {2, 3}) {
    // Each iteration frees its type; the next may reuse the handle for a different layout.
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Type_vector(2, 1, stride, MPI_INT64_T, &t);
    MPI_Type_commit(&t);
    ElementType et{"vector", TypeHandle(t), stride + 1, {0, stride}};
    ASSERT_EQ(check(cart.get(), et, 3, 1), "") << "stride " << stride;
  }
}

template <class E, class F>
void expect_throw_with(F f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected one saying '" << text << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(TorusAlltoall, BadInputGivesClearExceptions) {
  const int p = world_size();
  std::vector<std::int64_t> a(std::size_t(p) * 4), b(a.size());
  CommHandle plain = first_ranks(p);
  expect_throw_with<std::invalid_argument>(
      [&] { torus_alltoall(a.data(), 1, MPI_INT64_T, b.data(), 1, MPI_INT64_T, plain.get()); },
      "no Cartesian topology");
  expect_throw_with<std::invalid_argument>(
      [&] {
        make_torus(plain.get(), {p + 1, 2});
      },
      "multiply to " + std::to_string(2 * (p + 1)) + " but the communicator has " +
          std::to_string(p) + " ranks");
  expect_throw_with<std::invalid_argument>([&] { make_torus(plain.get(), {p, 0}); }, "all > 0");
  CommHandle cart = make_torus(plain.get(), {p});
  expect_throw_with<std::invalid_argument>(
      [&] { torus_alltoall(a.data(), -1, MPI_INT64_T, b.data(), -1, MPI_INT64_T, cart.get()); },
      "count=-1 is negative");
  expect_throw_with<std::invalid_argument>(
      [&] { torus_alltoall(a.data(), 2, MPI_INT64_T, b.data(), 1, MPI_INT64_T, cart.get()); },
      "got counts 2 and 1");
  expect_throw_with<std::invalid_argument>(
      [&] { torus_alltoall(a.data(), 1, MPI_INT64_T, b.data(), 1, MPI_INT64_T, cart.get(), 0); },
      "pieces=0");
  // count x extent beyond MPI_Aint: an 8 GiB-extent element, INT_MAX of them per rank.
  MPI_Datatype huge = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(MPI_BYTE, 0, MPI_Aint(1) << 33, &huge);
  MPI_Type_commit(&huge);
  TypeHandle huge_h(huge);
  const int big = std::numeric_limits<int>::max();
  expect_throw_with<std::overflow_error>(
      [&] { TorusAlltoall plan(cart.get(), big, huge, 1); },
      "count " + std::to_string(big) + " x extent 8589934592 bytes overflows MPI_Aint");
}

}  // namespace
}  // namespace miniapp::test
