#pragma once
// Helpers the section builders share: HTML escaping and tables, chart specifications, and reading
// fields of documents whose shape is not guaranteed (a field that is missing or of the wrong type
// is a null or a default, never an exception).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/report/report.hpp"
#include "gridlock/report/sections_json.hpp"

namespace gridlock::report::detail {

/// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
[[nodiscard]] std::string escape_html(std::string_view text);

/// A number for a table: up to 4 significant digits, `-` for null or non-numbers.
[[nodiscard]] std::string format_number(const Json& value);

/// A JSON value shown in a table cell: strings as they are, numbers by format_number(), other
/// values as compact JSON (escaped).
[[nodiscard]] std::string format_cell(const Json& value);

/// An HTML table with a caption and a header row; cells are escaped unless added as HTML.
class Table {
 public:
  /// A table titled `caption` with the given column headers.
  Table(std::string caption, std::vector<std::string> headers);
  /// Adds a row of plain-text cells.
  void row(const std::vector<std::string>& cells);
  /// Rows added so far.
  [[nodiscard]] std::size_t rows() const noexcept { return rows_.size(); }
  /// The table as HTML.
  [[nodiscard]] std::string html() const;

 private:
  std::string caption_;
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

/// The context block as a two-column HTML table (nested values as compact JSON).
[[nodiscard]] std::string context_table(const Json& context);

/// A chart specification (docs/report.md, "Embedded data"): `type` is bar, line, scatter or box.
[[nodiscard]] Json make_chart(std::string_view type, std::string_view title, std::string_view x_label,
                              std::string_view y_label);

/// Adds a series to `chart`: `data` numbers (one per label), {x, y} points, or [low, high] pairs.
void add_series(Json& chart, std::string_view label, Json data);

/// `document[key]` when `document` is an object holding it, else null.
[[nodiscard]] const Json& field(const Json& document, std::string_view key);

/// The number at `document[key]`, if it is one.
[[nodiscard]] std::optional<double> number(const Json& document, std::string_view key);

/// The string at `document[key]`, or `fallback`.
[[nodiscard]] std::string text(const Json& document, std::string_view key, std::string_view fallback = "");

/// A number as JSON, null when not finite (JSON has no NaN).
[[nodiscard]] Json finite_or_null(double value);

/// Section builders by result kind (the dispatcher in sections.cpp picks one).
Section bench_section(const Json& document, const SectionOptions& options);
Section bench_noise_section(const Json& document);
Section bench_congest_section(const Json& document);
Section noise_measure_section(const Json& document);
Section noise_trace_section(const Json& document);
Section sim_replicas_section(const Json& document);
Section sim_result_section(const Json& document);
Section map_section(const Json& document);
Section predict_mapping_section(const Json& document);
Section predict_traffic_section(const Json& document);
Section model_fit_section(const Json& document);
Section model_check_section(const Json& document);
Section history_trend_section(const Json& document);
Section csv_section(const Json& document);
Section sweep_section(const Json& document);
Section spmv_section(const Json& document);
Section generic_section(const Json& document, std::string_view note);

}  // namespace gridlock::report::detail
