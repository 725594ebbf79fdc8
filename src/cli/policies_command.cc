// weft policies [NAME]: lists the policies, or one policy's parameters, what
// it knows in advance and what it over-commits.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/policy_traits.h"
#include "fmt/format.h"
#include "policy/registry.h"

namespace weft::cli {
namespace {

void PrintParams(const std::vector<policy::ParamSpec>& specs) {
  for (const policy::ParamSpec& p : specs) {
    std::cout << fmt::format("  {:<22} {:<10} default {:<8} {}\n", p.name, p.TypeName(), p.default_value, p.help);
  }
}

std::string ClairvoyanceLine(policy::Knowledge k) {
  switch (k) {
    case policy::Knowledge::kClairvoyant:
      return "clairvoyant: yes (it sees every task's duration in advance; noisy with estimate_noise)";
    case policy::Knowledge::kSemiClairvoyant:
      return "clairvoyant: semi (it sees a stage's tasks once the stage is released, not before)";
    case policy::Knowledge::kNonClairvoyant:
      return "clairvoyant: no (it never sees task durations; it learns from tasks that ended)";
  }
  return "clairvoyant: ?";
}

// OverCommitLine says what the policy may reserve beyond a machine's
// capacity with its defaults, and, for each numeric parameter that changes
// that at its largest value, which parameter and what it then over-commits.
std::string OverCommitLine(const policy::PolicyInfo& p, const policy::Policy& built) {
  std::string line = "over-commits: " + OverCommits(built.overbooked());
  std::string changes;
  for (const policy::ParamSpec& spec : p.params) {
    if (spec.type != policy::ParamType::kDouble && spec.type != policy::ParamType::kInt) continue;
    if (spec.max >= 1e300 || fmt::format("{}", spec.max) == spec.default_value) continue;
    auto probe = policy::BuildPolicy(p.name, {fmt::format("{}={}", spec.name, spec.max)});
    if (!probe.ok() || probe->policy->overbooked() == built.overbooked()) continue;
    changes += fmt::format("{}{} with {} above {}", changes.empty() ? "" : "; ",
                           OverCommits(probe->policy->overbooked()), spec.name, spec.default_value);
  }
  if (!changes.empty()) line += " with the defaults; " + changes;
  return line;
}

int RunPolicies(const std::string& name) {
  if (name.empty()) {
    for (const policy::PolicyInfo* p : policy::AllPolicies()) {
      std::cout << fmt::format("{:<16} {}\n", p->name, p->description);
    }
    return kExitOk;
  }
  const policy::PolicyInfo* p = policy::FindPolicy(name);
  if (p == nullptr) {
    std::cerr << fmt::format("error: unknown policy \"{}\" (see 'weft policies')\n", name);
    return kExitBadInput;
  }
  std::cout << fmt::format("{}: {}\nsource: {}\n", p->name, p->description, p->source);
  auto built = policy::BuildPolicy(p->name, {});
  if (built.ok()) {
    std::cout << ClairvoyanceLine(built->policy->knowledge()) << "\n" << OverCommitLine(*p, *built->policy) << "\n";
  }
  std::cout << "parameters:\n";
  if (p->params.empty()) std::cout << "  (none of its own)\n";
  PrintParams(p->params);
  std::cout << "common parameters (every policy):\n";
  PrintParams(policy::CommonParams());
  return kExitOk;
}

}  // namespace

void AddPoliciesCommand(CLI::App& app, CommandRun& run) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("policies", "List the policies, or show one policy's parameters");
  cmd->add_option("name", *name, "A policy name");
  cmd->callback([&run, name] { run = [name] { return RunPolicies(*name); }; });
}

}  // namespace weft::cli
