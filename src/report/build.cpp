// Shared helpers of the section builders: escaping, tables and chart specifications.
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "detail/build.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::report::detail {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_xml_escaped(out, text);  // the five HTML/XML specials, safe in text and either attribute quote
  return out;
}

std::string format_number(const Json& value) {
  if (value.is_number_integer() || value.is_number_unsigned()) {
    return value.dump();
  }
  if (!value.is_number()) {
    return "-";
  }
  const double v = value.get<double>();
  if (!std::isfinite(v)) {
    return "-";
  }
  return fmt::format("{:.4g}", v);
}

std::string format_cell(const Json& value) {
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_number()) {
    return format_number(value);
  }
  if (value.is_null()) {
    return "-";
  }
  return value.dump();
}

Table::Table(std::string caption, std::vector<std::string> headers)
    : caption_(std::move(caption)), headers_(std::move(headers)) {}

void Table::row(const std::vector<std::string>& cells) { rows_.push_back(cells); }

std::string Table::html() const {
  std::string out = "<div class=\"table-wrap\"><table>";
  if (!caption_.empty()) {
    out += "<caption>" + escape_html(caption_) + "</caption>";
  }
  out += "<thead><tr>";
  for (const std::string& h : headers_) {
    out += "<th scope=\"col\">" + escape_html(h) + "</th>";
  }
  out += "</tr></thead><tbody>";
  for (const std::vector<std::string>& r : rows_) {
    out += "<tr>";
    for (const std::string& c : r) {
      out += "<td>" + escape_html(c) + "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table></div>\n";
  return out;
}

std::string context_table(const Json& context) {
  if (!context.is_object()) {
    return "<p class=\"note\">No context block.</p>\n";
  }
  std::string out =
      "<details class=\"context\" open><summary>Context (how this result was made)</summary><dl>";
  for (const auto& [key, value] : context.items()) {
    out += "<dt>" + escape_html(key) + "</dt><dd>" + escape_html(format_cell(value)) + "</dd>";
  }
  out += "</dl></details>\n";
  return out;
}

Json make_chart(std::string_view type, std::string_view title, std::string_view x_label,
                std::string_view y_label) {
  Json chart = Json::object();
  chart["type"] = type;
  chart["title"] = title;
  chart["x"] = Json{{"label", x_label}, {"log", false}};
  chart["y"] = Json{{"label", y_label}, {"log", false}};
  chart["labels"] = Json::array();
  chart["series"] = Json::array();
  return chart;
}

void add_series(Json& chart, std::string_view label, Json data) {
  chart["series"].push_back(Json{{"label", label}, {"data", std::move(data)}});
}

const Json& field(const Json& document, std::string_view key) {
  static const Json kNull = nullptr;
  if (!document.is_object()) {
    return kNull;
  }
  const auto it = document.find(std::string(key));
  return it == document.end() ? kNull : *it;
}

std::optional<double> number(const Json& document, std::string_view key) {
  const Json& v = field(document, key);
  if (!v.is_number()) {
    return std::nullopt;
  }
  return v.get<double>();
}

std::string text(const Json& document, std::string_view key, std::string_view fallback) {
  const Json& v = field(document, key);
  return v.is_string() ? v.get<std::string>() : std::string(fallback);
}

Json finite_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

}  // namespace gridlock::report::detail
