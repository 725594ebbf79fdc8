// File: runtime/scheduler/operator_page.h
//
// The operator's part of the live page (docs/runtime.md, "Dashboard and
// metrics"): tables of running and queued jobs, nodes, per-user shares now
// and over time (an SVG the script draws),
// and recent task failures, which a small script (plain JS, no library)
// fills from /api/jobs and /api/nodes every 2 s without reloading the page.
// The page's own query string (the token) is passed on to those requests.
// A constant: no state, thread-safe.
#pragma once

#include <string_view>

namespace weft::runtime {

// kOperatorSection: HTML (a <section> with its <style> and <script>) to put
// at the top of the page's <body>.
extern const std::string_view kOperatorSection;

}  // namespace weft::runtime
