// weft policies [NAME]: lists the policies, or one policy's parameters.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "fmt/format.h"
#include "policy/registry.h"

namespace weft::cli {
namespace {

void PrintParams(const std::vector<policy::ParamSpec>& specs) {
  for (const policy::ParamSpec& p : specs) {
    std::cout << fmt::format("  {:<22} {:<10} default {:<8} {}\n", p.name, p.TypeName(), p.default_value, p.help);
  }
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
