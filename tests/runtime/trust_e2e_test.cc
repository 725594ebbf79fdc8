// End-to-end tests of issue 20 (a runtime you can trust), on loopback with
// `weft cluster up`: each reproduces one of the issue's findings.
#include <sys/stat.h>

#include "nlohmann/json.hpp"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Bug 1: a name the command substitutes is refused unless it is shell-safe
// (at submit and in `weft validate`), so nothing it carries ever runs.
TEST_F(RuntimeTest, AHostileNameIsRefusedBeforeAnythingRuns) {
  const std::string address = Up(1);
  const fs::path work = WorkDir();
  for (const std::string& name : {fmt::format("a;touch {}/pwned", work.string()),
                                  fmt::format("`touch {}/pwned`", work.string()),
                                  fmt::format("$(touch {}/pwned)", work.string())}) {
    SCOPED_TRACE(name);
    const nlohmann::json job = {{"name", name},
                                {"stages", {{{"name", "s"}, {"tasks", 1}, {"duration", 0.1},
                                             {"demand", {{"cpu", 1}, {"mem", 0.1}}},
                                             {"command", "echo \"{job}\" '{job}' {job}"}}}}};
    const std::string file = Write("hostile.json", Workload(job.dump()));
    const Result validate = Run({"validate", file});
    EXPECT_EQ(validate.exit_code, 2);
    EXPECT_THAT(validate.err, HasSubstr("{job}"));
    EXPECT_EQ(CountLines(validate.err), 1) << validate.err;
    const Result submit = Run({"submit", "--scheduler", address, file});
    EXPECT_EQ(submit.exit_code, 2) << submit.out;
    EXPECT_EQ(submit.out, "");
  }
  // Also when the client's own check is skipped (a jobs-only file goes to the scheduler as is).
  const Result raw = Run({"submit", "--scheduler", address,
                          Write("jobs-only.json", fmt::format(R"({{"weft": 1, "jobs": [{{"name": "b;touch {}/pwned",
      "stages": [{{"name": "s", "tasks": 1, "duration": 0.1, "demand": {{"cpu": 1, "mem": 0.1}},
                  "command": "echo {{job}}"}}]}}]}})", work.string()))});
  EXPECT_EQ(raw.exit_code, 2) << raw.out;
  EXPECT_THAT(raw.err, HasSubstr("{job}"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(fs::exists(work / "pwned"));
  EXPECT_THAT(Run({"status", "--scheduler", address}).out, Not(HasSubstr("pwned")));
}

// Bug 1 and 9: a jobs-only file is accepted; FORMATS' own example command
// (with {job} inside single quotes) works; the names are in the environment.
TEST_F(RuntimeTest, AJobsOnlyFileRunsWithItsNamesInTheCommandAndTheEnvironment) {
  const std::string address = Up(1);
  const fs::path work = WorkDir();
  const std::string file = Write("jobs.json", fmt::format(R"({{"weft": 1, "jobs": [{{"name": "q3-0", "stages": [
      {{"name": "agg", "tasks": 2, "duration": 0.1, "demand": {{"cpu": 1, "mem": 0.1}}, "locality": [["node-0"]],
        "command": "sh -c 'echo {{job}} {{stage}} {{task}} >> {0}/out'; echo \"$WEFT_JOB $WEFT_STAGE $WEFT_TASK\" >> {0}/env"}}]}}]}})",
                                                          work.string()));
  const Result submit = Run({"submit", "--scheduler", address, file});
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  EXPECT_EQ(submit.out, "0\n");
  EXPECT_EQ(Wait(address, "0").exit_code, 0);
  std::vector<std::string> out, env;
  std::istringstream o(Slurp(work / "out")), e(Slurp(work / "env"));
  for (std::string line; std::getline(o, line);) out.push_back(line);
  for (std::string line; std::getline(e, line);) env.push_back(line);
  std::sort(out.begin(), out.end());
  std::sort(env.begin(), env.end());
  EXPECT_EQ(out, (std::vector<std::string>{"q3-0 agg 0", "q3-0 agg 1"}));
  EXPECT_EQ(env, (std::vector<std::string>{"q3-0 agg 0", "q3-0 agg 1"}));
  // A jobs-only file naming a node that does not exist is refused.
  const Result unknown = Run({"submit", "--scheduler", address, Write("bad.json", R"({"weft": 1, "jobs": [
      {"name": "x", "stages": [{"name": "s", "tasks": 1, "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1},
                                "locality": [["nowhere"]]}]}]})")});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("nowhere"));
}

// Bug 1: `weft status` escapes what it prints of a name.
TEST_F(RuntimeTest, StatusEscapesNames) {
  const std::string address = Up(1);
  SubmitIds(address, Workload(R"({"name": "we\"ird\\name", "stages": [{"name": "s", "tasks": 1, "duration": 0.01,
      "demand": {"cpu": 1, "mem": 0.1}}]})"));
  const Result status = Run({"status", "--scheduler", address});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr(R"(we\"ird\\name)"));
}

}  // namespace
}  // namespace weft
