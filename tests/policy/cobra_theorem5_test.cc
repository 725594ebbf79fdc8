// Theorem 5 of the COBRA paper as a property test: on random workloads that
// satisfy the theorem's assumptions, each job's measured waste stays within
// ((1 + ρ - δ) / δ + 2τ / θ) · T1(J); and the same check fails when Af is
// deliberately broken (ρ applied on inefficient periods, CobraConfig::
// broken_af), so the test can tell a right Af from a wrong one.
//
// Assumptions (section III): demands normalised to a container (1 core,
// 2 GB here), every task demanding at least θ = 0.25 of some resource and
// r_k + δ <= 1 (cpu in [0.25, 0.3], memory in [0.05, 0.3] of a container),
// initial desire 1. Measured from the run's records per period q of length
// L: the job's allocation a_q (container-seconds held in q) and what its
// tasks used (per resource, container-normalised); waste_q = a_q - max_k
// used_k,q, i.e. (1 - u_q) · a_q. T1(J) = max_k Σ r_k · p.
#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "fair_share_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "policy/cobra/cobra.h"
#include "sim/engine.h"

namespace weft::policy {
namespace {

constexpr double kTheta = 0.25;
constexpr double kPeriodS = 5;

std::string RandomWorkload(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uni = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto pick = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  std::string jobs;
  const int n = pick(2, 4);
  for (int j = 0; j < n; ++j) {
    std::string stages;
    const int s_count = pick(1, 4);
    for (int s = 0; s < s_count; ++s) {
      stages += fmt::format(R"({}{{"name": "s{}", "tasks": {}, "duration": {:.2f}, "demand": {{"cpu": {:.3f}, "mem": {:.3f}}}{}}})",
                            s ? "," : "", s, pick(1, 12), uni(4, 30), uni(kTheta, 0.3), 2 * uni(0.05, 0.3),
                            s ? fmt::format(R"(, "after": ["s{}"])", s - 1) : "");
    }
    jobs += fmt::format(R"({}{{"name": "j{}", "arrival": {:.2f}, "stages": [{}]}})", j ? "," : "", j, uni(0, 20),
                        stages);
  }
  return R"({"weft": 1, "cluster": {"machines": [{"name": "m", "count": 4, "capacity": {"cpu": 8, "mem": 16}}]},
    "jobs": [)" + jobs + "]}";
}

class Containers final : public RunObserver {
 public:
  void OnContainerEnd(const ContainerRecord& r) override { records.push_back(r); }
  std::vector<ContainerRecord> records;
};

double Overlap(TimeUs a0, TimeUs a1, TimeUs b0, TimeUs b1) {
  return static_cast<double>(std::max<TimeUs>(0, std::min(a1, b1) - std::max(a0, b0))) / 1e6;
}

// WorstRatio: max over jobs of waste / (bound · T1) for one run.
double WorstRatio(uint64_t seed, bool broken, double rho, double delta, double tau) {
  cobra::CobraConfig config;
  config.container = *Resources::FromUnits({1, 2, 0, 0});
  config.af = {.rho = rho, .delta = delta};
  config.tau = tau;
  config.broken_af = broken;
  auto policy = cobra::MakeCobraPolicy(config, Knowledge::kSemiClairvoyant);
  auto workload = ParseWorkload(RandomWorkload(seed));
  EXPECT_TRUE(workload.ok());
  sim::Engine engine(*workload, *policy, {});
  std::vector<AttemptRecord> attempts;
  testing::Recorder recorder(attempts);
  Containers containers;
  engine.AddObserver(&recorder);
  engine.AddObserver(&containers);
  const absl::Status s = engine.Run();
  EXPECT_TRUE(s.ok()) << StatusMessage(s);
  const double bound = (1 + rho - delta) / delta + 2 * tau / kTheta;
  const Resources unit = config.container;
  double worst = 0;
  for (uint32_t j = 0; j < workload->jobs.size(); ++j) {
    TimeUs end = 0;
    for (const ContainerRecord& c : containers.records) {
      if (c.job == JobId(j)) end = std::max(end, c.released_us);
    }
    std::array<double, 2> work{};  // T1's per-resource sums
    double waste = 0;
    const auto period = static_cast<TimeUs>(kPeriodS * 1e6);
    for (TimeUs q0 = 0; q0 < end; q0 += period) {
      const TimeUs q1 = q0 + period;
      double alloc = 0;
      for (const ContainerRecord& c : containers.records) {
        if (c.job == JobId(j)) alloc += Overlap(c.granted_us, c.released_us, q0, q1);
      }
      std::array<double, 2> used{};
      for (const AttemptRecord& a : attempts) {
        if (a.task.job != JobId(j)) continue;
        const double t = Overlap(a.start_us, a.end_us, q0, q1);
        for (int k = 0; k < 2; ++k) {
          const auto r = static_cast<Resource>(k);
          used[k] += t * static_cast<double>(a.usage.micro(r)) / static_cast<double>(unit.micro(r));
        }
      }
      waste += alloc - std::max(used[0], used[1]);
    }
    for (const AttemptRecord& a : attempts) {
      if (a.task.job != JobId(j) || a.outcome != Outcome::kOk) continue;
      const double p = static_cast<double>(a.end_us - a.start_us) / 1e6;
      for (int k = 0; k < 2; ++k) {
        const auto r = static_cast<Resource>(k);
        work[k] += p * static_cast<double>(a.demand.micro(r)) / static_cast<double>(unit.micro(r));
      }
    }
    const double t1 = std::max(work[0], work[1]);
    worst = std::max(worst, waste / (bound * t1));
  }
  return worst;
}

constexpr uint64_t kSeeds = 12;

TEST(CobraTheorem5Test, WasteWithinTheBoundOnRandomWorkloads) {
  for (const auto& [rho, delta, tau] : {std::array<double, 3>{1.5, 0.7, 0.1}, {3, 0.7, 0.1}, {1.5, 0.5, 0.5}}) {
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
      EXPECT_LE(WorstRatio(seed, false, rho, delta, tau), 1.0)
          << "seed " << seed << " rho " << rho << " delta " << delta << " tau " << tau;
    }
  }
}

TEST(CobraTheorem5Test, ABrokenAfBreaksTheBound) {
  // ρ applied on inefficient periods too: a job whose narrow stages use a
  // fraction of one container keeps asking for more and wastes them.
  double worst = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) worst = std::max(worst, WorstRatio(seed, true, 1.5, 0.7, 0.1));
  EXPECT_GT(worst, 1.0);
}

}  // namespace
}  // namespace weft::policy
