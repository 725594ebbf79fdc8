// File: tests/metrics/timeline_rows.h
//
// ReadTimelineRows: timeline.csv's header and its rows as numbers, for the
// tests of the timeline (unit and end to end).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace weft {

inline std::vector<std::vector<double>> ReadTimelineRows(const std::string& text, std::string* header) {
  std::istringstream in(text);
  std::getline(in, *header);
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<double> row;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) row.push_back(std::stod(field));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace weft
