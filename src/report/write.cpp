// write_report(): inputs read, sections built, Chart.js inlined, the page written atomically.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"

#ifndef GRIDLOCK_CHARTJS_PATH
#define GRIDLOCK_CHARTJS_PATH "/usr/share/javascript/chart.js/chart.min.js"
#endif

namespace gridlock::report {
namespace {

constexpr std::string_view kChartJsFile = "chart.min.js";
// Chart.js is 200 KB; a file far larger is not it.
constexpr std::uintmax_t kChartJsLimitBytes = std::uintmax_t{8} << 20U;

std::string read_chartjs(const std::filesystem::path& assets_dir) {
  const std::filesystem::path path = assets_dir.empty() ? default_chartjs_path() : assets_dir / kChartJsFile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw IoError(fmt::format(
        "Chart.js not found at {}: install Debian's libjs-chart.js (scripts/setup.sh does), or give "
        "--assets DIR with a chart.min.js (Chart.js 3)",
        path.string()));
  }
  std::string source =
      read_input_file(path, "Chart.js", "install libjs-chart.js or give --assets DIR", kChartJsLimitBytes);
  std::string lower = source;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // Inlined into a <script> element, this text would end it early.
  if (lower.find("</script") != std::string::npos) {
    throw InputError(fmt::format("{}: holds '</script', so it cannot be inlined; give the minified Chart.js",
                                 path.string()));
  }
  return source;
}

}  // namespace

std::filesystem::path default_chartjs_path() { return GRIDLOCK_CHARTJS_PATH; }

ReportOutcome write_report(const ReportOptions& options) {
  if (options.inputs.empty()) {
    throw InputError("gridlock report: give at least one result file");
  }
  if (options.compare && options.inputs.size() != 2) {
    throw InputError(
        fmt::format("--compare takes exactly two results (A and B), not {}", options.inputs.size()));
  }
  check_output_not_input(options.output, "-o/--output", options.inputs);
  // Everything that can be refused is checked before the inputs are read.
  const std::string chartjs = read_chartjs(options.assets_dir);
  check_writable(options.output);

  ReportOutcome outcome;
  std::vector<LoadedInput> loaded;
  loaded.reserve(options.inputs.size());
  for (const std::filesystem::path& path : options.inputs) {
    loaded.push_back(load_input(path));
    if (!loaded.back().error.empty()) {
      outcome.failures.push_back(loaded.back().error);
    }
  }
  // A page of error notes only must not replace a good page of an earlier run.
  if (std::none_of(loaded.begin(), loaded.end(),
                   [](const LoadedInput& in) { return in.document.has_value(); })) {
    std::string reasons;
    for (const std::string& failure : outcome.failures) {
      reasons += fmt::format("{}{}", reasons.empty() ? " " : "; ", failure);
    }
    throw InputError(
        fmt::format("no input could be read, so '{}' was not written (an existing file is left "
                    "as it was); fix the inputs:{}",
                    options.output.string(), reasons));
  }
  std::vector<Section> sections;
  const SectionOptions section_options{options.csv_dir};
  if (options.compare && loaded[0].document && loaded[1].document) {
    sections.push_back(
        compare_section(loaded[0].source, *loaded[0].document, loaded[1].source, *loaded[1].document));
  } else if (options.compare) {
    outcome.failures.emplace_back(
        "--compare: the comparison needs both results readable; each is shown alone");
  }
  for (const LoadedInput& in : loaded) {
    sections.push_back(in.document ? build_section(in.source, *in.document, section_options)
                                   : error_section(in.source, in.error));
    // A readable result of an unexpected shape is listed, not charted: a bad input too.
    if (in.document && sections.back().failed && !sections.back().notes.empty()) {
      outcome.failures.push_back(sections.back().notes.front());
    }
  }
  Json context = base_context("gridlock report", schemas::kReport);
  Json inputs = Json::array();
  for (const std::filesystem::path& p : options.inputs) {
    inputs.push_back(p.string());
  }
  context["inputs"] = std::move(inputs);
  context["compare"] = options.compare;
  context["csv_dir"] = options.csv_dir.empty() ? Json(nullptr) : Json(options.csv_dir.string());
  context["chart_library"] = "Chart.js (Debian libjs-chart.js), inlined";
  PageOptions page;
  page.title = options.compare ? "gridlock report: comparison" : "gridlock report";
  page.chartjs_source = chartjs;
  page.context = std::move(context);
  outcome.sections = sections.size();
  const std::string html = render_page(std::move(sections), page);
  write_file_atomic(options.output, html);
  outcome.bytes = html.size();
  return outcome;
}

}  // namespace gridlock::report
