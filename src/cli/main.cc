// The weft command: parses the command line with CLI11 and runs one
// subcommand. Bad usage exits 2 with a one-line hint; an unexpected exception
// exits 1 with one line, never a stack trace or an abort.
#include <exception>
#include <iostream>
#include <new>

#include "CLI/CLI.hpp"
#include "cli/cli_hints.h"
#include "cli/commands.h"

#ifndef WEFT_VERSION
#define WEFT_VERSION "unknown"
#endif

namespace {

int Main(int argc, char** argv) {
  using namespace weft::cli;
  CLI::App app{"weft: schedule data-analytics DAG jobs, simulated or for real"};
  app.set_version_flag("--version", "weft " WEFT_VERSION);
  app.require_subcommand(1);
  app.formatter(HelpFormatter());  // before the subcommands, which copy it
  CommandRun run;
  AddValidateCommand(app, run);
  AddPoliciesCommand(app, run);
  AddSimCommand(app, run);
  AddCompareCommand(app, run);
  AddSweepCommand(app, run);
  AddBoundsCommand(app, run);
  AddConvertCommand(app, run);
  AddGenCommand(app, run);
  AddTraceCommand(app, run);
  AddJobCommands(app, run);
  AddClusterCommand(app, run);
  AddReportCommand(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const bool unknown_flag = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
    std::cerr << "error: " << e.what() << (unknown_flag ? NearestFlag(app, e.what()) : "") << " (see 'weft --help')\n";
    return kExitBadInput;
  }
  return run ? run() : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "internal error: unknown exception\n";
  }
  return weft::cli::kExitFailure;
}
