// File: cli/cli_hints.h
//
// What the command line says beyond CLI11's defaults: help text without the
// validators' range noise ("UINT:UINT in [0 - 1099511627776]" becomes "UINT";
// a meaningful range such as "[1 - 1024]" stays, once; no "..." after a flag
// that takes one value each time it is repeated), and, for an unknown
// flag, the nearest flag the command has ("--output" -> "--out").
#pragma once

#include <memory>
#include <string>

#include "CLI/CLI.hpp"

namespace weft::cli {

// HelpFormatter: set on the app before its subcommands are added (they copy it).
std::shared_ptr<CLI::Formatter> HelpFormatter();

// TidyTypeName: one option's type as HelpFormatter prints it.
std::string TidyTypeName(const std::string& type_name);

// NearestFlag: for a parse error on `app` (the command line as parsed so
// far) that names an unexpected "--flag", " (did you mean --out?)" when the
// deepest subcommand parsed has a flag within a few edits of it or that it
// starts with; else "".
std::string NearestFlag(const CLI::App& app, const std::string& error);

}  // namespace weft::cli
