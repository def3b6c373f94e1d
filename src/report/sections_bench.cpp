// The gridlock.bench section (gridlock-bench load|network and gridlock predict gpcnet): GPCNeT's
// tables and charts (SC'19, Figs. 1-7 and the Congestion Impact bars).
#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "detail/build.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::report::detail {
namespace {

// A phase's canaries: gridlock-bench writes {"congestors": [...], "canaries": [...]}; older or
// trimmed files hold the array itself.
const Json& phase_canaries(const Json& phase) {
  if (phase.is_array()) {
    return phase;
  }
  return field(phase, "canaries");
}

// The CSV histogram of one phase and canary (docs/formats/bench-json.md): `<phase>_<key>.csv`,
// `#` context lines, then `lower,upper,count`. Returns {x: geometric bucket middle, y: % of
// samples} points, or an empty array when the file is missing or unreadable (a note says so).
Json read_histogram(const std::filesystem::path& dir, const std::string& phase, const std::string& key,
                    std::string& problem) {
  std::string file_phase = phase;
  for (char& c : file_phase) {
    if (c == ':') {
      c = '_';
    }
  }
  const std::filesystem::path path = dir / fmt::format("{}_{}.csv", file_phase, key);
  // The project's checked reader: a regular file (or pipe) of bounded size, never a FIFO that
  // blocks or a device that does not end.
  std::string content;
  try {
    content =
        read_input_file(path, "histogram CSV", "gridlock-bench --csv-dir writes one per phase and canary");
  } catch (const Error& e) {
    problem = e.what();
    return Json::array();
  }
  std::istringstream in(content);
  std::vector<std::pair<double, double>> buckets;
  double total = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("lower", 0) == 0) {
      continue;
    }
    // The cells (the histogram files quote nothing); as the std::getline() loop this replaced
    // read them, one trailing empty cell is dropped: "1,2,3," has 3 cells.
    std::vector<std::string_view> cells = split(line, ',');
    if (cells.back().empty()) {
      cells.pop_back();
    }
    if (cells.size() != 3) {
      problem = fmt::format("{}: a row without 3 columns: '{}'", path.string(), line);
      return Json::array();
    }
    try {
      const double lower = std::stod(std::string(cells[0]));
      const double upper = std::stod(std::string(cells[1]));
      const double count = std::stod(std::string(cells[2]));
      total += count;
      // The -inf/inf rows (samples out of the histogram's range) have no place on a log axis.
      if (std::isfinite(lower) && std::isfinite(upper) && lower > 0) {
        buckets.emplace_back(std::sqrt(lower * upper), count);
      }
    } catch (const std::exception&) {
      problem = fmt::format("{}: not a number in row '{}'", path.string(), line);
      return Json::array();
    }
  }
  Json points = Json::array();
  for (const auto& [x, count] : buckets) {
    points.push_back(Json{{"x", x}, {"y", total > 0 ? 100.0 * count / total : 0.0}});
  }
  return points;
}

}  // namespace

namespace {

// A canary as the first phase lists it; later phases match it by key.
struct BenchCanary {
  std::string key, name, units, better;
};

// Canary `key` of phase `phase` (a null value when the phase lacks it).
const Json& canary_of(const Json& phases, const std::string& phase, const std::string& key) {
  for (const Json& c : phase_canaries(phases[phase])) {
    if (text(c, "key") == key) {
      return c;
    }
  }
  return field(Json(), "");
}

// Congestion Impact bars (GPCNeT Eq. 1-2: loaded over isolated, 1 = no impact) and their table
// (appended to `html`).
Json impact_chart(const Json& impacts, std::string& html) {
  Table ci("Congestion Impact (loaded / isolated; 1.0 = no impact, below 1 is noise)",
           {"phase", "test", "mean", "99% tail"});
  std::vector<std::string> impact_phases;
  std::vector<std::string> labels;
  for (const Json& row : impacts) {
    ci.row({text(row, "phase"), text(row, "name", text(row, "key")), format_number(field(row, "mean")) + "x",
            format_number(field(row, "tail99")) + "x"});
    const std::string phase = text(row, "phase");
    if (std::find(impact_phases.begin(), impact_phases.end(), phase) == impact_phases.end()) {
      impact_phases.push_back(phase);
    }
    const std::string name = text(row, "name", text(row, "key"));
    if (std::find(labels.begin(), labels.end(), name) == labels.end()) {
      labels.push_back(name);
    }
  }
  html += ci.html();
  Json chart = make_chart("bar", "Congestion Impact per canary test", "canary test",
                          "Congestion Impact (loaded / isolated, x)");
  chart["labels"] = labels;
  chart["reference"] = 1.0;
  for (const std::string& phase : impact_phases) {
    for (const char* stat : {"mean", "tail99"}) {
      Json values = Json::array();
      for (const std::string& label : labels) {
        Json v = nullptr;
        for (const Json& row : impacts) {
          if (text(row, "phase") == phase && text(row, "name", text(row, "key")) == label) {
            v = field(row, stat);
          }
        }
        values.push_back(v);
      }
      add_series(chart, fmt::format("{} ({})", std::string_view(stat) == "mean" ? "mean" : "99% tail", phase),
                 std::move(values));
    }
  }
  return chart;
}

// A canary's histograms from --csv-dir, one series per phase, with each phase's mean and 99% tail
// as vertical lines (GPCNeT's Figs. 4-5); what could not be read goes to `notes`.
Json histogram_chart(const BenchCanary& c, const Json& phases, const std::vector<std::string>& phase_names,
                     const SectionOptions& options, std::vector<std::string>& notes) {
  Json chart = make_chart("histogram", fmt::format("{}: distribution of samples", c.name),
                          fmt::format("{} (log scale)", c.units), "share of samples (%)");
  chart["x"]["log"] = true;
  double tallest = 0;
  for (const std::string& p : phase_names) {
    std::string problem;
    Json points = read_histogram(options.csv_dir, p, c.key, problem);
    if (!problem.empty()) {
      notes.push_back(fmt::format("histogram of {} ({}): {}", c.key, p, problem));
    }
    for (const Json& point : points) {
      tallest = std::max(tallest, point["y"].get<double>());
    }
    add_series(chart, p, std::move(points));
  }
  // The mean and the 99% tail of each phase as vertical lines, as in GPCNeT's Figs. 4-5.
  for (const std::string& p : phase_names) {
    const Json& r = canary_of(phases, p, c.key);
    for (const auto& [stat, label] :
         {std::pair<const char*, const char*>{"mean", "mean"}, {"tail99", "99%"}}) {
      const auto x = number(r, stat);
      if (x && *x > 0 && tallest > 0) {
        add_series(chart, fmt::format("{} ({})", label, p),
                   Json::array({Json{{"x", *x}, {"y", 0.0}}, Json{{"x", *x}, {"y", tallest}}}));
        chart["series"].back()["line"] = true;
      }
    }
  }
  return chart;
}

// A canary's percentiles as the JSON holds them, one series per phase.
Json percentile_chart(const BenchCanary& c, const Json& phases, const std::vector<std::string>& phase_names) {
  Json chart =
      make_chart("line", fmt::format("{}: percentiles of the samples", c.name), "percentile", c.units);
  chart["labels"] = Json::array({"min", "0.1%", "1%", "median", "mean", "99%", "99.9%", "max"});
  chart["y"]["log"] = true;
  for (const std::string& p : phase_names) {
    const Json& r = canary_of(phases, p, c.key);
    Json values = Json::array();
    for (const char* k : {"min", "p0_1", "p1", "median", "mean", "p99", "p99_9", "max"}) {
      values.push_back(field(r, k));
    }
    add_series(chart, p, std::move(values));
  }
  return chart;
}

// Congestor throughput while each canary test ran (loaded phases): its table (appended to
// `html`) and chart, or nothing when no phase recorded any.
std::optional<Json> throughput_chart(const Json& phases, const std::vector<std::string>& phase_names,
                                     std::string& html) {
  Table throughput("Congestor throughput while each test ran",
                   {"phase", "test", "congestor", "ranks", "MiB/s total", "MiB/s per rank", "timed out"});
  Json tp_chart = make_chart("bar", "Congestor throughput during the loaded canary tests",
                             "canary test (phase)", "throughput, all ranks (MiB/s)");
  std::vector<std::string> types;
  Json tp_labels = Json::array();
  std::vector<const Json*> tp_rows;
  for (const std::string& p : phase_names) {
    for (const Json& c : phase_canaries(phases[p])) {
      const Json& list = field(c, "congestor_throughput");
      if (!list.is_array() || list.empty()) {
        continue;
      }
      tp_labels.push_back(fmt::format("{} ({})", text(c, "name", text(c, "key")), p));
      tp_rows.push_back(&c);
      for (const Json& g : list) {
        const std::string type = text(g, "type");
        if (std::find(types.begin(), types.end(), type) == types.end()) {
          types.push_back(type);
        }
        throughput.row(
            {p, text(c, "name", text(c, "key")), type, format_cell(field(g, "ranks")),
             format_number(field(g, "mib_per_s_total")), format_number(field(g, "mib_per_s_per_rank")),
             field(g, "timed_out").is_boolean() && field(g, "timed_out").get<bool>() ? "yes" : "no"});
      }
    }
  }
  if (throughput.rows() > 0) {
    html += throughput.html();
    tp_chart["labels"] = tp_labels;
    tp_chart["y"]["log"] = true;
    for (const std::string& type : types) {
      Json values = Json::array();
      for (const Json* c : tp_rows) {
        Json v = nullptr;
        for (const Json& g : field(*c, "congestor_throughput")) {
          if (text(g, "type") == type) {
            v = field(g, "mib_per_s_total");
          }
        }
        values.push_back(v);
      }
      add_series(tp_chart, type, std::move(values));
    }
    return tp_chart;
  }
  return std::nullopt;
}

}  // namespace

Section bench_section(const Json& document, const SectionOptions& options) {
  Section s;
  const Json& context = field(document, "context");
  const std::string mode = text(context, "mode", "load");
  const std::string tool = text(context, "tool", "gridlock-bench");
  s.title = fmt::format("{} {}: canary tests{}", tool, mode, mode == "load" ? " isolated vs loaded" : "");
  if (text(document, "status") == "cut_short") {
    s.notes.emplace_back("The run was cut short (see the timeouts below): some tests are partial.");
  }
  for (const Json& note : field(document, "notes")) {
    if (note.is_string()) {
      s.notes.push_back(note.get<std::string>());
    }
  }
  const Json& phases = field(document, "phases");
  if (!phases.is_object() || phases.empty()) {
    s.notes.emplace_back("This result has no phases: nothing to chart.");
    return s;
  }
  std::vector<std::string> phase_names;
  for (const auto& [name, value] : phases.items()) {
    phase_names.push_back(name);
  }
  // The canaries in the order of the first phase; later phases match by key.
  std::vector<BenchCanary> canaries;
  for (const Json& c : phase_canaries(phases[phase_names.front()])) {
    canaries.push_back(BenchCanary{text(c, "key"), text(c, "name", text(c, "key")), text(c, "units"),
                                   text(c, "better", "lower")});
  }

  // GPCNeT's table: Avg and 99% per canary and phase.
  std::vector<std::string> headers{"test", "units"};
  for (const std::string& p : phase_names) {
    headers.push_back(p + " avg");
    headers.push_back(p + " 99%");
  }
  Table table("Canary tests: average and 99% tail (the tail that hurts: p99 for latency, p1 for bandwidth)",
              headers);
  Json table_data = Json::array();
  for (const BenchCanary& c : canaries) {
    std::vector<std::string> row{c.name, c.units};
    Json row_data = Json{{"key", c.key}};
    for (const std::string& p : phase_names) {
      const Json& r = canary_of(phases, p, c.key);
      row.push_back(format_number(field(r, "avg")));
      row.push_back(format_number(field(r, "tail99")));
      row_data[p] = Json{{"avg", field(r, "avg")}, {"tail99", field(r, "tail99")}};
    }
    table.row(row);
    table_data.push_back(std::move(row_data));
  }
  s.body_html += table.html();
  s.data["table"] = std::move(table_data);

  Json charts = Json::array();
  const Json& impacts = field(document, "congestion_impact");
  if (impacts.is_array() && !impacts.empty()) {
    charts.push_back(impact_chart(impacts, s.body_html));
  }

  // Per canary: histograms from --csv-dir, else the percentiles the JSON holds.
  for (const BenchCanary& c : canaries) {
    charts.push_back(options.csv_dir.empty() ? percentile_chart(c, phases, phase_names)
                                             : histogram_chart(c, phases, phase_names, options, s.notes));
  }
  if (options.csv_dir.empty()) {
    s.notes.emplace_back(
        "The JSON holds percentiles, not histograms: give --csv-dir DIR (gridlock-bench --csv-dir) to chart "
        "the isolated and loaded histograms.");
  }

  if (auto chart = throughput_chart(phases, phase_names, s.body_html)) {
    charts.push_back(std::move(*chart));
  }

  const Json& timeouts = field(document, "timeouts");
  if (timeouts.is_array() && !timeouts.empty()) {
    Table t("Timeouts", {"phase", "test", "reason", "blocks completed", "blocks planned"});
    for (const Json& row : timeouts) {
      t.row({text(row, "phase"), text(row, "key"), text(row, "reason"),
             format_cell(field(row, "blocks_completed")), format_cell(field(row, "blocks_planned"))});
    }
    s.body_html += t.html();
  }
  s.data["charts"] = std::move(charts);
  return s;
}

// gridlock-bench congest: each congestor type's throughput in every interval (a line per type) and
// its totals.
Section bench_congest_section(const Json& document) {
  Section s;
  s.title = fmt::format("gridlock-bench congest: congestor throughput over time (stopped by {})",
                        text(document, "stop", "?"));
  const Json& congestors = field(document, "congestors");
  if (!congestors.is_array() || congestors.empty()) {
    s.notes.emplace_back("This result lists no congestors: nothing to chart.");
    s.data["charts"] = Json::array();
    return s;
  }
  Table table("Congestors over the whole run",
              {"congestor", "nodes", "ranks", "bytes", "MiB/s total", "MiB/s per rank", "intervals"});
  Json chart =
      make_chart("line", "Throughput per interval", "interval start (s)", "throughput, all ranks (MiB/s)");
  std::size_t longest = 0;
  for (const Json& c : congestors) {
    const Json& intervals = field(c, "intervals");
    const std::size_t n = intervals.is_array() ? intervals.size() : 0;
    table.row({text(c, "title", text(c, "key")), format_cell(field(c, "nodes")),
               format_cell(field(c, "ranks")), format_cell(field(c, "bytes")),
               format_number(field(c, "mib_per_s_total")), format_number(field(c, "mib_per_s_per_rank")),
               std::to_string(n)});
    if (n > longest) {
      longest = n;
      chart["labels"] = Json::array();
      for (const Json& i : intervals) {
        chart["labels"].push_back(format_number(field(i, "start_s")));
      }
    }
  }
  for (const Json& c : congestors) {
    Json values = Json::array();
    for (const Json& i : field(c, "intervals")) {
      values.push_back(finite_or_null(number(i, "mib_per_s_total").value_or(NAN)));
    }
    add_series(chart, text(c, "title", text(c, "key")), std::move(values));
  }
  s.body_html += table.html();
  s.notes.push_back(fmt::format(
      "{} s in intervals of {} s; the last interval ends with the run and is shorter, so its rate is the "
      "noisiest.",
      format_number(field(document, "seconds")), format_number(field(document, "interval_s"))));
  for (const Json& note : field(document, "notes")) {
    if (note.is_string()) {
      s.notes.push_back(note.get<std::string>());
    }
  }
  s.data["charts"] = Json::array({std::move(chart)});
  return s;
}

}  // namespace gridlock::report::detail
