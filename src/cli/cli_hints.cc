#include "cli/cli_hints.h"

#include <algorithm>
#include <regex>
#include <vector>

namespace weft::cli {
namespace {

class TidyFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string text = CLI::Formatter::make_option_opts(opt);
    const std::string type = opt->get_type_name();
    if (!type.empty()) {
      const size_t at = text.find(type);
      if (at != std::string::npos) text.replace(at, type.size(), TidyTypeName(type));
    }
    // A repeatable flag that takes one value each time: CLI11's "..." would say it takes several.
    if (const size_t dots = text.find(" ..."); !opt->get_allow_extra_args() && dots != std::string::npos) {
      text.erase(dots, 4);
    }
    return text;
  }
};

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::shared_ptr<CLI::Formatter> HelpFormatter() { return std::make_shared<TidyFormatter>(); }

std::string TidyTypeName(const std::string& type_name) {
  // CLI11 writes TYPE:VALIDATOR...; a range validator reads "UINT in [A - B]".
  static const std::regex kRange(R"(:(\w+) in \[([^\]]*) - ([^\]]*)\])");
  std::string out;
  auto begin = std::sregex_iterator(type_name.begin(), type_name.end(), kRange);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out += type_name.substr(last, static_cast<size_t>(m.position(0)) - last);
    last = static_cast<size_t>(m.position(0) + m.length(0));
    // A bound of ten digits or more is the type's own limit, not a rule worth reading.
    if (m[2].str().size() >= 10 || m[3].str().size() >= 10) continue;
    out += " in [" + m[2].str() + " - " + m[3].str() + "]";
  }
  out += type_name.substr(last);
  return out;
}

std::string NearestFlag(const CLI::App& app, const std::string& error) {
  static const std::regex kFlag(R"((--[A-Za-z0-9][A-Za-z0-9-]*))");
  std::smatch m;
  if (!std::regex_search(error, m, kFlag)) return "";
  const std::string given = m[1].str();
  const CLI::App* cmd = &app;
  while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().front();
  std::string best;
  size_t best_distance = 3;  // at most two edits away, or a prefix of what was typed
  for (const CLI::Option* opt : cmd->get_options()) {
    for (const std::string& name : opt->get_lnames()) {
      const std::string flag = "--" + name;
      if (flag == given) continue;
      const size_t d = given.starts_with(flag) || flag.starts_with(given) ? 1 : EditDistance(given, flag);
      if (d < best_distance) {
        best_distance = d;
        best = flag;
      }
    }
  }
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

}  // namespace weft::cli
