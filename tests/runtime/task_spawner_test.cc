// File: tests/runtime/task_spawner_test.cc
//
// runtime/node/task_spawner.h: a command task's environment is the daemon's
// with the task's own variables on top, each name once.
#include "runtime/node/task_spawner.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace weft::runtime {
namespace {

std::vector<std::string> Entries(const TaskEnvironment& env) {
  std::vector<std::string> out;
  for (char* const* e = env.envp(); *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

TEST(TaskSpawnerTest, TheTasksOwnVariablesReplaceTheDaemonsOfTheSameName) {
  const std::vector<std::string> base = {"PATH=/bin", "WEFT_TASK=old", "WEFT_TASKS=kept", "HOME=/root"};
  const TaskEnvironment env(base, {{"WEFT_TASK", "3"}, {"WEFT_JOB", "1"}});
  EXPECT_EQ(Entries(env),
            (std::vector<std::string>{"PATH=/bin", "WEFT_TASKS=kept", "HOME=/root", "WEFT_TASK=3", "WEFT_JOB=1"}));
}

TEST(TaskSpawnerTest, WithoutVariablesTheEnvironmentIsTheDaemons) {
  const TaskSpawner spawner;
  const TaskEnvironment env(spawner.base_env(), {});
  EXPECT_EQ(Entries(env), spawner.base_env());
}

}  // namespace
}  // namespace weft::runtime
