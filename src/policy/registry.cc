#include "policy/registry.h"

#include "core/status.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "policy/baseline/baselines.h"
#include "policy/cobra/cobra.h"
#include "policy/dagps/dagps.h"
#include "policy/ras/ras.h"
#include "policy/sparrow/sparrow.h"
#include "policy/ursa/ursa.h"

namespace weft::policy {

const std::vector<const PolicyInfo*>& AllPolicies() {
  // One line per policy.
  static const std::vector<const PolicyInfo*> kPolicies = {
      &baseline::kFifoInfo,
      &baseline::kFairInfo,
      &baseline::kDrfInfo,
      &baseline::kDelayInfo,
      &baseline::kRandomInfo,
      &baseline::kTetrisInfo,
      &baseline::kCpInfo,
      &baseline::kBfsInfo,
      &baseline::kStripPartInfo,
      &baseline::kCoffmanGrahamInfo,
      &baseline::kExecutorInfo,
      &baseline::kSparkStaticInfo,
      &cobra::kCobraInfo,
      &cobra::kCobraDefaultInfo,
      &cobra::kSparkDynamicInfo,
      &dagps::kDagpsInfo,
      &sparrow::kSparrowRandomInfo,
      &sparrow::kSparrowPerTaskInfo,
      &sparrow::kSparrowBatchInfo,
      &sparrow::kSparrowInfo,
      &ursa::kUrsaInfo,
      &ursa::kUrsaYarnInfo,
      &baseline::kFairSlotsInfo,
      &ras::kRasInfo,
  };
  return kPolicies;
}

namespace {
std::vector<const PolicyInfo*>& TestPolicies() {
  static std::vector<const PolicyInfo*> policies;
  return policies;
}
}  // namespace

void RegisterTestPolicy(const PolicyInfo* info) { TestPolicies().push_back(info); }

const PolicyInfo* FindPolicy(std::string_view name) {
  for (const PolicyInfo* p : AllPolicies()) {
    if (p->name == name) return p;
  }
  for (const PolicyInfo* p : TestPolicies()) {
    if (p->name == name) return p;
  }
  return nullptr;
}

ResourceMask UnfittedBy(std::string_view fit) {
  if (fit == "cpu+mem") return MaskOf(kDisk) | MaskOf(kNet);
  if (fit == "cpu+mem+disk") return MaskOf(kNet);
  if (fit == "cpu+mem+net") return MaskOf(kDisk);
  return 0;  // "all"
}

const std::vector<ParamSpec>& CommonParams() {
  static const std::vector<ParamSpec> kCommon = {
      {.name = "estimate_noise",
       .type = ParamType::kDouble,
       .default_value = "0",
       .help = "sigma of a lognormal factor applied to the durations clairvoyant policies see",
       .min = 0,
       .max = 10},
      {.name = "default_duration",
       .type = ParamType::kDouble,
       .default_value = "1",
       .help = "seconds assumed for a task whose duration is neither known nor learned yet",
       .min = 1e-6,
       .max = 1e9},
      {.name = "fit",
       .type = ParamType::kChoice,
       .default_value = "all",
       .help = "resources tasks are placed by; the others are left to contend (cpu+mem: YARN's Capacity "
               "Scheduler)",
       .choices = {"all", "cpu+mem", "cpu+mem+disk", "cpu+mem+net"}},
  };
  return kCommon;
}

KnowledgeOptions BuiltPolicy::knowledge() const {
  KnowledgeOptions k;
  k.estimate_noise = params.Double("estimate_noise");
  k.default_duration_us = static_cast<TimeUs>(params.Double("default_duration") * static_cast<double>(kUsPerSecond));
  return k;
}

absl::StatusOr<BuiltPolicy> BuildPolicy(std::string_view name, const std::vector<std::string>& assignments) {
  const PolicyInfo* info = FindPolicy(name);
  if (info == nullptr) {
    std::vector<std::string> names;
    for (const PolicyInfo* p : AllPolicies()) names.push_back(p->name);
    return absl::InvalidArgumentError(
        fmt::format("unknown policy \"{}\" (known: {})", name, fmt::join(names, ", ")));
  }
  std::vector<ParamSpec> specs = info->params;
  specs.insert(specs.end(), CommonParams().begin(), CommonParams().end());
  auto params = Params::Parse(specs, assignments);
  if (!params.ok()) return absl::InvalidArgumentError(fmt::format("policy {}: {}", name, StatusMessage(params.status())));
  auto policy = info->make(*params);
  if (!policy.ok()) return absl::InvalidArgumentError(fmt::format("policy {}: {}", name, StatusMessage(policy.status())));
  (*policy)->set_unfitted(UnfittedBy(params->Choice("fit")));
  return BuiltPolicy{info, std::move(*policy), std::move(*params)};
}

}  // namespace weft::policy
