// File: report/report_assets.h
//
// The report page's assets, compiled into weft (report_assets.cc is generated
// at build time by embed_assets.cmake): the HTML template with its
// placeholders, the page's own script (report.js) and Chart.js from Debian's
// libjs-chart.js. Immutable; safe from any thread.
#pragma once

#include <string_view>

namespace weft::report {

extern const std::string_view kReportHtml;
extern const std::string_view kReportJs;
extern const std::string_view kChartJs;

}  // namespace weft::report
