// `gridlock report`: one self-contained HTML page with the charts and tables of gridlock results
// (docs/report.md). Parses, calls gridlock::report, and maps a bad input to exit code 2 after the
// page of the rest is written.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/report/report.hpp"
#include "output_guard.hpp"

namespace gridlock::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  std::vector<std::string> compare;
  std::string output;
  std::string assets;
  std::string csv_dir;
  bool quiet = false;
};

void run_report(const ReportArgs& a) {
  report::ReportOptions o;
  if (!a.compare.empty() && !a.inputs.empty()) {
    throw InputError("--compare A B takes the two results itself: give no other result files with it");
  }
  if (a.compare.empty() && a.inputs.empty()) {
    throw InputError("give result files (RESULT.json...) or --compare A.json B.json");
  }
  for (const std::string& p : a.compare.empty() ? a.inputs : a.compare) {
    o.inputs.emplace_back(p);
  }
  o.compare = !a.compare.empty();
  o.output = a.output;
  o.assets_dir = a.assets;
  o.csv_dir = a.csv_dir;
  const report::ReportOutcome outcome = report::write_report(o);
  for (const std::string& failure : outcome.failures) {
    fmt::print(stderr, "gridlock report: {}\n", failure);
  }
  if (!outcome.failures.empty()) {
    throw InputError(fmt::format("{} input problem(s) (above); the report of the rest is in {} ({} sections)",
                                 outcome.failures.size(), a.output, outcome.sections));
  }
  if (!a.quiet) {
    fmt::print("{} ({} sections, {} bytes)\n", a.output, outcome.sections, outcome.bytes);
  }
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand(
      "report",
      "One self-contained HTML page with the charts and tables of gridlock results (docs/report.md)");
  cmd->add_option("results", a->inputs,
                  "Result files: --json outputs of gridlock and gridlock-bench, gridlock noise traces, "
                  "gridlock history trend --csv");
  cmd->add_option("--compare", a->compare,
                  "Two results of the same kind side by side, with the ratio B/A per metric")
      ->expected(2);
  cmd->add_option("-o,--output", a->output, "The HTML file to write (atomically)")->required();
  output_file(cmd->get_option("--output"));
  cmd->add_option("--assets", a->assets,
                  "Directory holding chart.min.js (Chart.js 3) instead of Debian's libjs-chart.js");
  cmd->add_option("--csv-dir", a->csv_dir,
                  "gridlock-bench --csv-dir directory: chart the isolated and loaded histograms from it");
  cmd->add_flag("-q,--quiet", a->quiet, "Do not print the path of the page written");
  cmd->callback([a] { run_report(*a); });
}

}  // namespace gridlock::cli
