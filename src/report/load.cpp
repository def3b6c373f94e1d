// Reading inputs: JSON results and gridlock noise traces, with every failure turned into a
// message that names the file (a report of the other inputs is still written).
#include <map>
#include <string>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/schema.hpp"
#include "gridlock/noise/trace.hpp"
#include "gridlock/report/report.hpp"
#include "gridlock/report/sections_json.hpp"

namespace gridlock::report {
namespace {

constexpr std::string_view kNoiseTraceMagic = "# gridlock-noise-trace v1";

// A trace can hold a million detours; the page shows at most this many points per chart, so the
// document keeps them all and the noise-trace section thins them (report size, issue 27: < 2 MB).
LoadedInput load_noise_trace(const std::string& source, const std::string& text) {
  LoadedInput in{source, std::nullopt, ""};
  try {
    const noise::NoiseTrace trace = noise::parse_trace(text, noise::TraceFormat::kGridlock, source);
    Json context = Json::object();
    for (const auto& [key, value] : trace.context.items()) {
      context[key] = value;
    }
    // The trace's context names the measurement's schema; the section is about the trace.
    context["measurement_schema"] = schema_name_of(context);
    context["schema"] = schemas::kNoiseTrace.name;
    context["schema_version"] = schemas::kNoiseTrace.version;
    Json detours = Json::array();
    for (const noise::Detour& d : trace.detours) {
      detours.push_back(Json::array({d.start_ns, d.length_ns}));
    }
    Json doc = Json::object();
    doc["context"] = std::move(context);
    doc["duration_ns"] = trace.duration_ns;
    doc["detours_not_listed"] = trace.detours_not_listed;
    doc["detours"] = std::move(detours);
    in.document = std::move(doc);
  } catch (const Error& e) {
    in.error = fmt::format("{}: not a readable gridlock noise trace: {}", source, e.what());
  }
  return in;
}

// A gridlock CSV output (`gridlock history trend --csv`, `gridlock sim --csv`, ...): the context
// block as `# key: value` lines, a header, then rows. Cells that are JSON numbers become numbers.
LoadedInput load_csv(const std::string& source, const std::string& text) {
  LoadedInput in{source, std::nullopt, ""};
  Json context = Json::object();
  Json columns = Json::array();
  Json rows = Json::array();
  std::size_t pos = 0;
  const auto parse_value = [](const std::string& value) {
    Json parsed = Json::parse(value, nullptr, false);
    return parsed.is_discarded() ? Json(value) : parsed;
  };
  while (pos < text.size()) {
    if (text[pos] == '#') {
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) {
        end = text.size();
      }
      std::string line = text.substr(pos, end - pos);
      pos = end + 1;
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      const std::size_t colon = line.find(": ");
      if (colon != std::string::npos && colon > 2) {
        context[line.substr(2, colon - 2)] = parse_value(line.substr(colon + 2));
      }
      continue;
    }
    // One record of RFC 4180 cells, as CsvWriter writes them: a cell holding a comma, a quote or a
    // line break is quoted, with its quotes doubled. A quoted cell stays text.
    Json cells = Json::array();
    std::string cell;
    bool quoted = false;
    bool was_quoted = false;
    const auto end_cell = [&] {
      cells.push_back(columns.empty() || was_quoted ? Json(cell) : parse_value(cell));
      cell.clear();
      was_quoted = false;
    };
    bool record_end = false;
    while (pos < text.size() && !record_end) {
      const char c = text[pos++];
      if (quoted) {
        if (c != '"') {
          cell += c;
        } else if (pos < text.size() && text[pos] == '"') {
          cell += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else if (c == '"' && cell.empty()) {
        quoted = true;
        was_quoted = true;
      } else if (c == ',') {
        end_cell();
      } else if (c == '\n') {
        record_end = true;
      } else if (c != '\r' || (pos < text.size() && text[pos] != '\n')) {
        cell += c;
      }
    }
    if (quoted) {
      in.error = fmt::format(
          "{}: a quoted cell is not closed (the file ends inside it): truncated or not a gridlock CSV; give "
          "a complete file written by a gridlock --csv option",
          source);
      return in;
    }
    if (cells.empty() && cell.empty() && !was_quoted) {
      continue;  // an empty line
    }
    end_cell();
    if (columns.empty()) {
      columns = std::move(cells);
    } else {
      rows.push_back(std::move(cells));
    }
  }
  if (!context.contains("schema") || !context["schema"].is_string()) {
    in.error = fmt::format(
        "{}: not a gridlock result: its '#' lines hold no schema; give a file written by a gridlock "
        "--json or --csv option",
        source);
    return in;
  }
  Json doc = Json::object();
  doc["context"] = std::move(context);
  doc["columns"] = std::move(columns);
  doc["rows"] = std::move(rows);
  in.document = std::move(doc);
  return in;
}

}  // namespace

LoadedInput parse_input(const std::string& source, const std::string& text) {
  LoadedInput in{source, std::nullopt, ""};
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    in.error = fmt::format("{}: the file is empty; give a gridlock result (a --json output)", source);
    return in;
  }
  if (text.rfind(kNoiseTraceMagic, 0) == 0) {
    return load_noise_trace(source, text);
  }
  Json doc;
  if (text.find_first_not_of(" \t\r\n") != std::string::npos &&
      text[text.find_first_not_of(" \t\r\n")] == '#') {
    LoadedInput csv = load_csv(source, text);
    if (!csv.error.empty() || !csv.document) {
      return csv;
    }
    doc = std::move(*csv.document);
  } else {
    try {
      doc = Json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      in.error = fmt::format(
          "{}: not JSON or truncated ({}); give a complete gridlock result (a --json output, or a "
          "gridlock noise trace)",
          source, e.what());
      return in;
    }
  }
  const auto context = doc.is_object() ? doc.find("context") : doc.end();
  if (!doc.is_object() || context == doc.end() || !context->is_object() || !context->contains("schema") ||
      !(*context)["schema"].is_string()) {
    in.error = fmt::format(
        "{}: not a gridlock result: it has no context block with a schema; give a file written by a "
        "gridlock --json option",
        source);
    return in;
  }
  const std::string schema = (*context)["schema"].get<std::string>();
  const int known = gridlock::known_schema_version(schema);
  const auto version_it = context->find("schema_version");
  const int version =
      version_it != context->end() && version_it->is_number_integer() ? version_it->get<int>() : 0;
  if (known > 0 && version > known) {
    in.error = fmt::format(
        "{}: {} version {} is newer than this gridlock understands (up to version {}); report it with a "
        "newer gridlock",
        source, schema, version, known);
    return in;
  }
  in.document = std::move(doc);
  return in;
}

LoadedInput load_input(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_input_file(path, "result", "check the path; gridlock report reads --json outputs");
  } catch (const Error& e) {
    return LoadedInput{path.string(), std::nullopt, e.what()};
  }
  return parse_input(path.string(), text);
}

}  // namespace gridlock::report
