#pragma once
/// @file
/// `gridlock report`: one self-contained HTML page with the charts and tables of gridlock results.
///
/// write_report() reads the inputs, builds one section per result (report/sections_json.hpp) and
/// writes the page atomically.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gridlock::report {

/// Where Chart.js is read from unless `--assets` says otherwise (Debian's libjs-chart.js).
[[nodiscard]] std::filesystem::path default_chartjs_path();

/// What `gridlock report` is asked to do.
struct ReportOptions {
  /// Result files, in the order their sections appear.
  std::vector<std::filesystem::path> inputs;
  /// The HTML file to write (atomically).
  std::filesystem::path output;
  /// Directory holding chart.min.js; empty for default_chartjs_path().
  std::filesystem::path assets_dir;
  /// See SectionOptions::csv_dir.
  std::filesystem::path csv_dir;
  /// Two inputs side by side with their ratios (exactly two inputs).
  bool compare = false;
};

/// What write_report() did.
struct ReportOutcome {
  /// Sections written (failed inputs included).
  std::size_t sections = 0;
  /// One message per input that could not be reported, naming the file.
  std::vector<std::string> failures;
  /// Size of the page written.
  std::uintmax_t bytes = 0;
};

/// Reads the inputs, builds the sections and writes the page atomically. A bad input is a failure
/// in the outcome and a note in the page, not an exception; throws IoError when Chart.js cannot be
/// read or the page cannot be written, InputError when the output is an input or `compare` is
/// given other than two inputs or two inputs of different kinds, and InputError naming every
/// failure when no input can be read at all (the output is then neither written nor changed).
ReportOutcome write_report(const ReportOptions& options);

}  // namespace gridlock::report
