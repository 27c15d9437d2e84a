// Procurement pieces: the verdict rule, digest and tolerance checks, the figure of
// merit, CPU lists and binding warnings, progress lines; and the collective binding gather.
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "affinity.hpp"
#include "field.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "test_support.hpp"
#include "text.hpp"
#include "verdict.hpp"

namespace miniapp::test {
namespace {

TEST(Verdict, NoCheckIsNotValidatedAndExitsZero) {
  const Validation v = judge({});
  EXPECT_EQ(v.verdict, Verdict::NotValidated);
  EXPECT_STREQ(to_string(v.verdict), "NOT VALIDATED");
  EXPECT_EQ(exit_status(v.verdict), 0);
  // The hint names every check a run can ask for.
  for (const char* check : {"--verify", "--expect-digest", "--spectral-check"})
    EXPECT_NE(v.reason.find(check), std::string::npos) << check << " missing in: " << v.reason;
}

TEST(Text, DoublesPrintAsTypedAndReadBackExactly) {
  EXPECT_EQ(str(0.7), "0.7");
  EXPECT_EQ(str(0.1), "0.1");
  EXPECT_EQ(str(1e30), "1e+30");
  EXPECT_EQ(str(0.1 + 0.2), "0.30000000000000004");  // a different double: all its digits
  EXPECT_EQ(str(-0.0), "-0");
  EXPECT_EQ(joined(std::array<double, 3>{0.5, 1, 0.25}), "0.5 1 0.25");
  EXPECT_EQ(str(std::int64_t(4611686018427387904)), "4611686018427387904");
  for (const double v : {0.7, 1.0 / 3.0, 6.02214076e23, 4.9e-324})
    EXPECT_EQ(std::strtod(str(v).c_str(), nullptr), v) << str(v);
}

TEST(Verdict, AllPassedIsValidAnyFailedIsInvalid) {
  const Check ok{"verify", true, "fine"}, bad{"digest", false, "differs"};
  EXPECT_EQ(judge({ok}).verdict, Verdict::Valid);
  EXPECT_EQ(judge({ok, ok}).verdict, Verdict::Valid);
  const Validation v = judge({ok, bad});
  EXPECT_EQ(v.verdict, Verdict::Invalid);
  EXPECT_EQ(v.reason, "failed: digest (differs)");
  EXPECT_EQ(exit_status(v.verdict), 1);
  EXPECT_EQ(judge({bad, ok}).checks.size(), 2u);
}

TEST(Verdict, DigestCheckIgnoresCaseAndComparesAllDigits) {
  EXPECT_TRUE(digest_check("00000000DEADBEEF", 0xdeadbeefULL).passed);
  EXPECT_TRUE(digest_check("00000000deadbeef", 0xdeadbeefULL).passed);
  EXPECT_FALSE(digest_check("00000000deadbeee", 0xdeadbeefULL).passed);
  EXPECT_FALSE(digest_check("10000000deadbeef", 0xdeadbeefULL).passed);
  EXPECT_EQ(digest_check("00000000deadbeee", 0xdeadbeefULL).detail,
            "digest 00000000deadbeef differs from expected 00000000deadbeee");
}

TEST(Verdict, ToleranceCheckFailsOnNaN) {
  EXPECT_TRUE(tolerance_check("verify", 1e-15, 1e-14).passed);
  EXPECT_TRUE(tolerance_check("verify", 1e-14, 1e-14).passed);
  EXPECT_FALSE(tolerance_check("verify", 2e-14, 1e-14).passed);
  EXPECT_FALSE(tolerance_check("verify", std::nan(""), 1e-14).passed);
}

TEST(FigureOfMerit, CountsTimedStepsOverSlowestRank) {
  // 64^3 cells, 10 timed steps in 0.5 s on 2 nodes.
  const FigureOfMerit f = figure_of_merit(262144.0, 3, 10, 0.5, 2);
  EXPECT_EQ(f.cell_updates_per_second, 5242880.0);
  EXPECT_EQ(f.cell_updates_per_second_per_node, 2621440.0);
  EXPECT_EQ(f.warmup_steps, 3);
  EXPECT_EQ(f.timed_steps, 10);
  EXPECT_EQ(figure_of_merit(262144.0, 3, 0, 0.0, 1).cell_updates_per_second, 0.0);
}

TEST(Affinity, CpuListString) {
  EXPECT_EQ(cpu_list_string({}), "");
  EXPECT_EQ(cpu_list_string({5}), "5");
  EXPECT_EQ(cpu_list_string({0, 1, 2, 3, 8}), "0-3,8");
  EXPECT_EQ(cpu_list_string({0, 2, 4, 5}), "0,2,4-5");
  EXPECT_EQ(cpu_list_string({1, 2, 3, 10, 11, 12, 13}), "1-3,10-13");
}

TEST(Affinity, ParseCpuListInvertsCpuListString) {
  EXPECT_EQ(parse_cpu_list(""), std::vector<int>{});
  EXPECT_EQ(parse_cpu_list("0-3,8"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(parse_cpu_list("7"), (std::vector<int>{7}));
  for (const std::vector<int>& cpus :
       {std::vector<int>{}, {0}, {0, 1, 2, 3, 8}, {0, 2, 4, 5}, {1, 2, 3, 10, 11, 12, 13}})
    EXPECT_EQ(parse_cpu_list(cpu_list_string(cpus)), cpus);
}

TEST(Affinity, OneMaskPerThread) {
  const std::vector<std::vector<int>> threads = thread_cpus(Exec().concurrency());
  ASSERT_GE(threads.size(), 1u);
  EXPECT_EQ(int(threads.size()), Exec().concurrency());
  for (const auto& t : threads) EXPECT_FALSE(t.empty());
}

TEST(Affinity, CurrentCpusMatchesTheKernelsList) {
  std::ifstream in("/proc/self/status");
  std::string line, kernel;
  while (std::getline(in, line))
    if (line.rfind("Cpus_allowed_list:", 0) == 0)
      kernel = line.substr(line.find_last_of(" \t") + 1);
  if (kernel.empty()) GTEST_SKIP() << "no /proc/self/status";
  EXPECT_EQ(cpu_list_string(current_cpus()), kernel);
}

TEST(Affinity, WarnsAboutSharedCoresOnOneHostOnly) {
  const std::vector<RankBinding> disjoint{{0, "a", {0, 1}}, {1, "a", {2, 3}}, {2, "b", {0, 1}}};
  EXPECT_TRUE(binding_warnings(disjoint, 2, "spread").empty());
  const std::vector<RankBinding> shared{{0, "a", {0, 1}}, {1, "a", {1, 2}}, {2, "b", {0, 1}}};
  const auto w = binding_warnings(shared, 2, "close");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("ranks on host a share CPUs (rank(s) 1 "), std::string::npos) << w[0];
}

TEST(Affinity, WarnsAboutUnboundAndOversubscribedThreads) {
  const std::vector<RankBinding> one{{0, "a", {0}}}, four{{0, "a", {0, 1, 2, 3}}};
  EXPECT_TRUE(binding_warnings(one, 1, "").empty());  // one CPU: nowhere to migrate
  ASSERT_EQ(binding_warnings(four, 4, "").size(), 1u);
  EXPECT_NE(binding_warnings(four, 4, "").at(0).find("OMP_PROC_BIND is unset"), std::string::npos);
  EXPECT_NE(binding_warnings(four, 4, "FALSE").at(0).find("OMP_PROC_BIND is false"),
            std::string::npos);
  EXPECT_TRUE(binding_warnings(four, 4, "spread").empty());
  // Pinned threads (one CPU each) cannot migrate, whatever OMP_PROC_BIND says.
  const std::vector<RankBinding> pinned{{0, "a", {0, 1}, {{0}, {1}}}};
  EXPECT_TRUE(binding_warnings(pinned, 2, "").empty());
  const std::vector<RankBinding> loose{{0, "a", {0, 1}, {{0, 1}, {0, 1}}}};
  EXPECT_EQ(binding_warnings(loose, 2, "false").size(), 1u);
  const auto w = binding_warnings(four, 8, "spread");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("8 threads per rank but fewer CPUs"), std::string::npos) << w[0];
}

TEST(Affinity, GatherBindingsOnRankZero) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int size = world_size();
  const std::vector<RankBinding> all = gather_bindings(MPI_COMM_WORLD, Exec().concurrency());
  if (rank != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  ASSERT_EQ(int(all.size()), size);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  for (int r = 0; r < size; ++r) {
    EXPECT_EQ(all[r].rank, r);
    EXPECT_EQ(all[r].host, host);  // the tests run on one machine
    EXPECT_FALSE(all[r].cpus.empty());
    EXPECT_EQ(int(all[r].thread_cpus.size()), Exec().concurrency());
  }
  EXPECT_EQ(all[0].thread_cpus, thread_cpus(Exec().concurrency()));
}

TEST(Affinity, CountNodesOnOneMachine) { EXPECT_EQ(count_nodes(MPI_COMM_WORLD), 1); }

TEST(Progress, IntervalAndLine) {
  EXPECT_EQ(progress_interval(-1, true), 10.0);
  EXPECT_EQ(progress_interval(-1, false), 0.0);
  EXPECT_EQ(progress_interval(0, true), 0.0);
  EXPECT_EQ(progress_interval(2.5, false), 2.5);
  EXPECT_EQ(progress_line(1200, 5000, 0.00321),
            "progress: step 1200/5000 (24.0%), 3.21 ms/step, ETA 12.2 s");
  EXPECT_EQ(progress_line(10, 100, 60.0), "progress: step 10/100 (10.0%), 60 s/step, ETA 90 min");
  EXPECT_EQ(progress_line(10, 100, 100.0), "progress: step 10/100 (10.0%), 100 s/step, ETA 2.5 h");
  EXPECT_EQ(progress_line(50, 100, 3.0), "progress: step 50/100 (50.0%), 3 s/step, ETA 2.5 min");
}

TEST(Procurement, ReportSaysWhenARankComputedSlower) {
  RunReport r;
  r.nranks = 2;
  r.stencil_per_cell = {1.0e-9, 1.02e-9, 1.05e-9};
  const auto text = [&] {
    std::ostringstream os;
    print_report(os, r);
    return os.str();
  };
  EXPECT_DOUBLE_EQ(r.imbalance(), 1.05);
  EXPECT_NE(text().find("\n  balance       stencil time per owned cell, slowest rank over "
                        "fastest: 1.05\n"),
            std::string::npos)
      << text();
  EXPECT_NE(report_json(r).find("\"slowest_over_fastest\": 1.05"), std::string::npos);
  // A rank 40 % slower on equal work: the line says so.
  r.stencil_per_cell.max = 1.4e-9;
  EXPECT_NE(text().find("fastest: 1.40; more than 10 % on equal work: some rank's core computed "
                        "slower than the others'"),
            std::string::npos)
      << text();
  // No time measured: 1, not a division by zero; one rank: no line.
  r.stencil_per_cell = {};
  EXPECT_DOUBLE_EQ(r.imbalance(), 1.0);
  r.nranks = 1;
  EXPECT_EQ(text().find("balance"), std::string::npos);
}

}  // namespace
}  // namespace miniapp::test
