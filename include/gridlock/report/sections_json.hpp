#pragma once
/// @file
/// The sections of a `gridlock report` page, built from parsed results.
///
/// A result is recognised by its context block's `schema`; each becomes a Section (title, context,
/// tables as HTML, and chart specifications as JSON that the page's script draws with Chart.js).
/// Section builders are pure functions of the parsed document, so they are unit-tested without
/// files or a browser.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gridlock::report {

/// JSON type of the report's documents and chart data (keys keep their insertion order).
using Json = nlohmann::ordered_json;

/// A result file read for the report: the parsed document, or why it could not be used.
struct LoadedInput {
  /// The path as given on the command line (shown in the page and in messages).
  std::string source;
  /// The document: a JSON result, or a gridlock noise trace converted to
  /// `{"context": ..., "detours": [[start_ns, length_ns], ...]}` with schema `gridlock.noise.trace`.
  std::optional<Json> document;
  /// Empty when loaded; otherwise a message naming the file, what is wrong and how to fix it.
  std::string error;
};

/// Reads one input: a gridlock JSON result or a gridlock noise trace (`# gridlock-noise-trace v1`).
/// Never throws for bad content: an empty, truncated or non-JSON file, a document without a
/// context block or schema, or a newer schema version gives a LoadedInput with `error` set.
[[nodiscard]] LoadedInput load_input(const std::filesystem::path& path);

/// Parses `text` read from `source` as load_input() does (for tests and pipes).
[[nodiscard]] LoadedInput parse_input(const std::string& source, const std::string& text);

/// What a section builder may read besides the document.
struct SectionOptions {
  /// Directory of `gridlock-bench --csv-dir` histograms (`<phase>_<key>.csv`); empty for none.
  std::filesystem::path csv_dir;
};

/// One section of the page.
struct Section {
  /// HTML id of the section (`s1`, `s2`, ...), set by the page builder.
  std::string id;
  /// Heading, e.g. `gridlock-bench load: isolated vs loaded`.
  std::string title;
  /// Result kind: the schema, `schema/mode` for gridlock.bench, `compare`, `unknown` or `error`.
  std::string kind;
  /// The input file(s) the section shows.
  std::string source;
  /// The result's context block (null when the file could not be read).
  Json context;
  /// Data embedded in the page as JSON: `{"charts": [CHART, ...], ...}` (docs/report.md).
  Json data = Json::object();
  /// Tables and text as HTML, already escaped.
  std::string body_html;
  /// Notes shown above the section's charts (plain text).
  std::vector<std::string> notes;
  /// True when the input could not be reported (its note says why).
  bool failed = false;
};

/// The section of one parsed document, chosen by its schema (an unknown schema gives a section
/// listing its context and top-level fields with a note). Throws nothing for odd content: a
/// missing field is a gap in a chart or a `-` in a table; a field of the wrong type makes the
/// section a listing with a note saying so, marked `failed`.
[[nodiscard]] Section build_section(const std::string& source, const Json& document,
                                    const SectionOptions& options = {});

/// The section of an input that could not be read: its message as a note.
[[nodiscard]] Section error_section(const std::string& source, const std::string& message);

/// A side-by-side section of two results of the same kind with the ratio B/A per metric. Throws
/// InputError naming both files when their kinds differ.
[[nodiscard]] Section compare_section(const std::string& source_a, const Json& a, const std::string& source_b,
                                      const Json& b);

/// The result kind of a document as compare_section() matches it (schema, plus the mode of a
/// gridlock.bench result).
[[nodiscard]] std::string result_kind(const Json& document);

/// The page's pieces that are not sections.
struct PageOptions {
  /// The page title.
  std::string title = "gridlock report";
  /// Chart.js itself (chart.min.js), inlined into the page.
  std::string chartjs_source;
  /// The report's own context block (tool, version, date, inputs), shown at the end.
  Json context;
};

/// The whole HTML page: table of contents, sections (ids assigned in order), every script and
/// style inlined, a Content-Security-Policy that forbids any request.
[[nodiscard]] std::string render_page(std::vector<Section> sections, const PageOptions& options);

/// Escapes `<`, `>` and `&` in serialised JSON as \u003c, \u003e and \u0026, so that no string in it
/// can close the `<script>` element it is embedded in.
[[nodiscard]] std::string json_for_script(const Json& value);

}  // namespace gridlock::report
