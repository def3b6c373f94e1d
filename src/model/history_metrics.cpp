// Result files to named metrics: the naming scheme of docs/model.md ("Metric names").
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gridlock/core/error.hpp"
#include "gridlock/core/schema.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/model/history.hpp"

namespace gridlock::model {
namespace {

using nlohmann::json;

// Parts the sweep names take from a record's time_us object, in this order.
constexpr std::array<const char*, 7> kSweepStats{"median", "mean", "min", "q1", "q3", "p99", "max"};
// Statistics of a gridlock.bench canary (docs/formats/bench-json.md).
// `avg` (the table's Avg, --average) is absent from results written before it existed.
constexpr std::array<const char*, 11> kCanaryStats{"avg", "mean", "min",   "max",    "median",  "p0_1",
                                                   "p1",  "p99",  "p99_9", "tail99", "tail99_9"};
// Nested objects deeper than this are not flattened into metric names.
constexpr int kMaxFlattenDepth = 3;

// Collects metrics with unique names; a name seen again is an input error of the file. Names are
// checked for uniqueness once, in take(), by sorting: a result has up to tens of thousands of
// metrics, and a tree of strings per add cost more than the database insert (bench/history_bench).
class MetricSet {
 public:
  explicit MetricSet(std::string_view source) : source_(source) {}
  void reserve(std::size_t metrics) { metrics_.reserve(metrics); }
  void add(std::string name, double value, Direction better) {
    if (!std::isfinite(value)) {
      return;
    }
    metrics_.push_back(Metric{std::move(name), value, better});
  }
  // In name order: the history stores a run's metrics and digests its name set in that order
  // (a sweep's come sorted already, and is_sorted() is all they cost).
  std::vector<Metric> take() {
    const auto by_name = [](const Metric& a, const Metric& b) { return a.name < b.name; };
    if (!std::is_sorted(metrics_.begin(), metrics_.end(), by_name)) {
      std::vector<std::size_t> order(metrics_.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return metrics_[a].name < metrics_[b].name; });
      std::vector<Metric> sorted;
      sorted.reserve(metrics_.size());
      for (const std::size_t i : order) {
        sorted.push_back(std::move(metrics_[i]));
      }
      metrics_ = std::move(sorted);
    }
    const auto twice = std::adjacent_find(metrics_.begin(), metrics_.end(),
                                          [](const Metric& a, const Metric& b) { return a.name == b.name; });
    if (twice != metrics_.end()) {
      throw InputError(
          fmt::format("{}: metric '{}' appears twice; each record must be unique (see docs/model.md, "
                      "\"Metric names\")",
                      source_, twice->name));
    }
    return std::move(metrics_);
  }

 private:
  std::string source_;
  std::vector<Metric> metrics_;
};

std::optional<double> number(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) {
    return std::nullopt;
  }
  return it->get<double>();
}

std::optional<std::uint64_t> unsigned_field(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) {
    return std::nullopt;
  }
  if (!it->is_number_unsigned() && it->get<std::int64_t>() < 0) {
    return std::nullopt;
  }
  return it->get<std::uint64_t>();
}

std::string string_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A name part must not contain the separator; other characters are kept as the file has them.
std::string part(std::string text) {
  std::replace(text.begin(), text.end(), '.', '_');
  std::replace(text.begin(), text.end(), ' ', '_');
  return text;
}

// Sweep records (docs/formats/sweep-json.md): sweep.<op>[.<pair_class>][.p<ranks>].<size>.<stat>.
void sweep_metrics(const json& doc, const json& context, std::string_view source, MetricSet& out,
                   std::vector<std::string>* notes) {
  const auto records = doc.find("records");
  if (records == doc.end() || !records->is_array()) {
    throw InputError(fmt::format(
        "{}: a gridlock.sweep result needs a 'records' array (docs/formats/sweep-json.md)", source));
  }
  const std::optional<std::uint64_t> world = unsigned_field(context, "ranks");
  const auto record_name = [&](const json& r, std::size_t i, const char* what) {
    const std::string kind = string_field(r, "kind");
    const std::string op = string_field(r, "op");
    if (op.empty() || kind.empty()) {
      throw InputError(fmt::format("{}: {} {}: 'kind' and 'op' must be non-empty strings", source, what, i));
    }
    const std::optional<std::uint64_t> size = unsigned_field(r, "size_bytes");
    if (!size) {
      throw InputError(
          fmt::format("{}: {} {}: 'size_bytes' must be a whole number of bytes >= 0", source, what, i));
    }
    const std::optional<std::uint64_t> ranks = unsigned_field(r, "ranks");
    if (!ranks || *ranks == 0) {
      throw InputError(fmt::format("{}: {} {}: 'ranks' must be a whole number >= 1", source, what, i));
    }
    std::string name = "sweep." + part(op);
    const auto pair = r.find("pair_class");
    if (pair != r.end() && pair->is_string()) {
      name += "." + part(pair->get<std::string>());
    }
    const bool default_ranks = kind == "collective" ? (world && *ranks == *world) : *ranks == 2;
    if (!default_ranks) {
      name += fmt::format(".p{}", *ranks);
    }
    return name + "." + size_label(*size);
  };

  // Repeats of one (op, pair, ranks, size) pool by the median of their values, as `model fit` does.
  // Collected flat and grouped by sorting (not in a map of strings): see MetricSet.
  struct Value {
    std::string name;
    double value;
    Direction better;
  };
  std::vector<Value> values;
  values.reserve(records->size() * (kSweepStats.size() + 1));
  std::size_t left_out = 0;
  for (std::size_t i = 0; i < records->size(); ++i) {
    const json& r = (*records)[i];
    if (!r.is_object()) {
      throw InputError(fmt::format("{}: record {}: must be an object", source, i));
    }
    // Schema version 2: failed and skipped measurements have no statistics to store.
    if (const std::string status = string_field(r, "status"); status == "failed" || status == "skipped") {
      ++left_out;
      continue;
    }
    const std::string base = record_name(r, i, "record");
    const auto time = r.find("time_us");
    if (time == r.end() || !time->is_object()) {
      throw InputError(fmt::format("{}: record {}: 'time_us' must be an object of statistics", source, i));
    }
    for (const char* stat : kSweepStats) {
      if (const auto v = number(*time, stat)) {
        if (*v < 0 || !std::isfinite(*v)) {
          throw InputError(
              fmt::format("{}: record {}: time_us.{} is {}; times must be >= 0", source, i, stat, *v));
        }
        values.push_back(Value{fmt::format("{}.{}", base, stat), *v, Direction::kLower});
      }
    }
    if (const auto bw = number(r, "bandwidth_mib_s")) {
      values.push_back(Value{base + ".bw_mib_s", *bw, Direction::kHigher});
    }
  }
  if (left_out > 0) {
    if (values.empty()) {
      throw InputError(fmt::format("{}: all {} sweep records failed or were skipped: nothing to store",
                                   source, records->size()));
    }
    if (notes != nullptr) {
      notes->push_back(fmt::format("{} failed or skipped sweep records left out", left_out));
    }
  }
  // Stable, so that the order of metrics out of one file never depends on the sort's whims.
  std::stable_sort(values.begin(), values.end(),
                   [](const Value& a, const Value& b) { return a.name < b.name; });
  // Grown step by step, the list of a large sweep cost more than its parse (bench/history_bench).
  out.reserve(values.size());
  std::vector<double> pool;
  for (auto first = values.begin(); first != values.end();) {
    auto last = std::find_if(first, values.end(), [&](const Value& v) { return v.name != first->name; });
    pool.clear();
    for (auto it = first; it != last; ++it) {
      pool.push_back(it->value);
    }
    out.add(std::move(first->name), pool.size() == 1 ? pool.front() : median_of(pool), first->better);
    first = last;
  }
  const auto variability = doc.find("variability");
  if (variability != doc.end() && variability->is_array()) {
    for (std::size_t i = 0; i < variability->size(); ++i) {
      const json& v = (*variability)[i];
      if (!v.is_object()) {
        throw InputError(fmt::format("{}: variability {}: must be an object", source, i));
      }
      if (const auto cv = number(v, "cv")) {
        out.add(record_name(v, i, "variability") + ".cv", *cv, Direction::kLower);
      }
    }
  }
}

Direction parse_better(const json& canary) {
  const std::string better = string_field(canary, "better");
  if (better == "lower") {
    return Direction::kLower;
  }
  if (better == "higher") {
    return Direction::kHigher;
  }
  return Direction::kUnknown;
}

// gridlock.bench (docs/formats/bench-json.md): <mode>.<phase>.<canary key>.<stat> and
// <mode>.impact.<phase>.<canary key>.mean|tail99.
void bench_metrics(const json& doc, const json& context, std::string_view source, MetricSet& out) {
  std::string mode = part(string_field(context, "mode"));
  if (mode.empty()) {
    mode = "bench";
  }
  const auto phases = doc.find("phases");
  if (phases == doc.end() || !phases->is_object()) {
    throw InputError(fmt::format(
        "{}: a gridlock.bench result needs a 'phases' object (docs/formats/bench-json.md)", source));
  }
  for (const auto& [phase, content] : phases->items()) {
    const auto canaries = content.find("canaries");
    if (!content.is_object() || canaries == content.end() || !canaries->is_array()) {
      throw InputError(fmt::format("{}: phases.{}: needs a 'canaries' array", source, phase));
    }
    for (const json& canary : *canaries) {
      const std::string key = part(string_field(canary, "key"));
      if (key.empty()) {
        throw InputError(fmt::format("{}: phases.{}: a canary has no 'key'", source, phase));
      }
      const Direction better = parse_better(canary);
      for (const char* stat : kCanaryStats) {
        if (const auto v = number(canary, stat)) {
          out.add(fmt::format("{}.{}.{}.{}", mode, part(phase), key, stat), *v, better);
        }
      }
    }
  }
  const auto impact = doc.find("congestion_impact");
  if (impact != doc.end() && impact->is_array()) {
    for (const json& entry : *impact) {
      const std::string phase = part(string_field(entry, "phase"));
      const std::string key = part(string_field(entry, "key"));
      if (phase.empty() || key.empty()) {
        continue;
      }
      // Congestion Impact above 1 means congestion hurt, for latencies and bandwidths alike.
      for (const char* stat : {"mean", "tail99"}) {
        if (const auto v = number(entry, stat)) {
          out.add(fmt::format("{}.impact.{}.{}.{}", mode, phase, key, stat), *v, Direction::kLower);
        }
      }
    }
  }
}

// Numbers of nested objects (arrays left out) as <prefix>.<key>.<key>...
void flatten(const json& object, const std::string& prefix, int depth, MetricSet& out) {
  for (const auto& [key, value] : object.items()) {
    if (key == "context") {
      continue;
    }
    const std::string name = prefix + "." + part(key);
    if (value.is_number()) {
      out.add(name, value.get<double>(), direction_from_name(name));
    } else if (value.is_object() && depth < kMaxFlattenDepth) {
      flatten(value, name, depth + 1, out);
    }
  }
}

// gridlock.sim.replicas: one scale per rank count, sim.replicas.p<ranks>.<field>.
void replicas_metrics(const json& doc, const std::string& prefix, MetricSet& out) {
  const auto scales = doc.find("scales");
  if (scales == doc.end() || !scales->is_array()) {
    return;
  }
  for (const json& scale : *scales) {
    const std::optional<std::uint64_t> ranks =
        scale.is_object() ? unsigned_field(scale, "ranks") : std::nullopt;
    if (!ranks) {
      continue;
    }
    json fields = scale;
    fields.erase("ranks");
    flatten(fields, fmt::format("{}.p{}", prefix, *ranks), 1, out);
  }
}

// gridlock.map (docs/formats/map-json.md): map.<mapping>.<metric>.total|max_message and hop_bytes.
void map_metrics(const json& doc, MetricSet& out) {
  const auto mappings = doc.find("mappings");
  if (mappings == doc.end() || !mappings->is_array()) {
    return;
  }
  for (const json& m : *mappings) {
    const std::string mapping = m.is_object() ? part(string_field(m, "mapping")) : std::string();
    if (mapping.empty()) {
      continue;
    }
    const auto costs = m.find("costs");
    if (costs != m.end() && costs->is_object()) {
      for (const auto& [metric, cost] : costs->items()) {
        for (const char* field : {"total", "max_message"}) {
          if (const auto v = cost.is_object() ? number(cost, field) : std::nullopt) {
            out.add(fmt::format("map.{}.{}.{}", mapping, part(metric), field), *v, Direction::kLower);
          }
        }
      }
    }
    if (const auto v = number(m, "hop_bytes")) {
      out.add(fmt::format("map.{}.hop_bytes", mapping), *v, Direction::kLower);
    }
  }
}

// gridlock-bench congest: each congestor type's throughput over the run (bench.congest.<key>.*).
void congest_metrics(const json& doc, MetricSet& out) {
  const auto congestors = doc.find("congestors");
  if (congestors == doc.end() || !congestors->is_array()) {
    return;
  }
  for (const json& c : *congestors) {
    const std::string key = c.is_object() ? part(string_field(c, "key")) : std::string();
    if (key.empty()) {
      continue;
    }
    for (const char* field : {"mib_per_s_total", "mib_per_s_per_rank"}) {
      if (const auto v = number(c, field)) {
        out.add(fmt::format("bench.congest.{}.{}", key, field), *v, Direction::kHigher);
      }
    }
  }
}

std::vector<Metric> extract(const json& doc, const json& context, std::string_view schema,
                            std::string_view source, std::vector<std::string>* notes) {
  MetricSet out(source);
  if (schema == schemas::kSweep.name) {
    sweep_metrics(doc, context, source, out, notes);
  } else if (schema == schemas::kBench.name) {
    bench_metrics(doc, context, source, out);
  } else if (schema == schemas::kSimReplicas.name) {
    replicas_metrics(doc, "sim.replicas", out);
  } else if (schema == schemas::kMap.name) {
    map_metrics(doc, out);
  } else if (schema == schemas::kBenchCongest.name) {
    congest_metrics(doc, out);
  } else if (schema == schemas::kSimResult.name) {
    // `gridlock sim --json` keeps its numbers in a "result" object.
    const auto result = doc.find("result");
    flatten(result != doc.end() && result->is_object() ? *result : doc, "sim.result", 1, out);
  } else if (schema == schemas::kNoiseMeasure.name || schema == schemas::kBenchNoise.name ||
             schema == schemas::kBenchSpmv.name) {
    flatten(doc, std::string(schema.substr(std::string_view("gridlock.").size())), 1, out);
  } else if (notes != nullptr && known_schema_version(schema) > 0) {
    notes->push_back(fmt::format("{} results have no history metrics: stored without metrics", schema));
  } else if (notes != nullptr) {
    notes->push_back(fmt::format("unknown schema '{}': stored without metrics", schema));
  }
  return out.take();
}

json parse_document(std::string_view text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1E999
    throw InputError(fmt::format("{}: not a gridlock result: not valid JSON ({})", source, e.what()));
  }
  if (!doc.is_object()) {
    throw InputError(fmt::format("{}: not a gridlock result: the JSON is not an object", source));
  }
  const auto context = doc.find("context");
  if (context == doc.end() || !context->is_object()) {
    throw InputError(fmt::format(
        "{}: not a gridlock result: it has no 'context' block (gridlock tools write one first; see "
        "docs/formats/)",
        source));
  }
  return doc;
}

}  // namespace

std::string_view direction_name(Direction direction) noexcept {
  switch (direction) {
    case Direction::kLower:
      return "lower";
    case Direction::kHigher:
      return "higher";
    case Direction::kUnknown:
      break;
  }
  return "unknown";
}

std::uint64_t fnv1a64(std::string_view bytes) noexcept {
  // Hand-written: a stable, portable content hash (std::hash is not stable across standard
  // libraries, and no hashing library is a dependency); equal hashes are confirmed by comparing text.
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string size_label(std::uint64_t bytes) {
  if (bytes != 0) {
    for (const auto& [unit, name] :
         {std::pair{kGiB, "GiB"}, std::pair{kMiB, "MiB"}, std::pair{kKiB, "KiB"}}) {
      if (bytes % unit == 0) {
        return fmt::format("{}{}", bytes / unit, name);
      }
    }
  }
  return fmt::format("{}B", bytes);
}

std::string canonical_metric_name(std::string_view name) {
  if (name.empty()) {
    throw InputError(
        "--metric is empty: give a metric name such as sweep.allreduce.1MiB.median "
        "(`gridlock history metrics` lists the stored ones)");
  }
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) {
      break;
    }
    start = dot + 1;
  }
  for (const std::string_view p : parts) {
    if (p.empty()) {
      throw InputError(fmt::format("metric '{}' has an empty part between dots", name));
    }
  }
  if (parts.front() != "sweep") {
    return std::string(name);
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string piece(parts[i]);
    // The size part starts with a digit; `p64` (ranks) and names do not.
    if (i > 1 && i + 1 < parts.size() && std::isdigit(static_cast<unsigned char>(piece.front())) != 0) {
      piece = size_label(parse_byte_size(piece, fmt::format("the size '{}' of metric '{}'", piece, name)));
    }
    out += (i == 0 ? "" : ".") + piece;
  }
  return out;
}

Direction direction_from_name(std::string_view name) noexcept {
  const std::size_t dot = name.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  if (last == "bw_mib_s" || last == "events_per_second" || last.ends_with("_mib_s") ||
      last.ends_with("_gb_s")) {
    return Direction::kHigher;
  }
  const auto has = [&](std::string_view text) { return name.find(text) != std::string_view::npos; };
  // Times (a part ending in a time unit, e.g. `median_ps` or `detour_length_ns.p99`), sweep
  // statistics, Congestion Impact, slowdowns, variation and noise are better low.
  if (name.starts_with("sweep.") || has(".impact.") || has(".slowdown.") || last == "cv" || has("_ps.") ||
      has("_ns.") || has("_us.") || last.ends_with("_ps") || last.ends_with("_ns") || last.ends_with("_us") ||
      last.ends_with("seconds") || last.starts_with("noise_fraction") || last == "detours_per_s") {
    return Direction::kLower;
  }
  return Direction::kUnknown;
}

double median_of(std::vector<double> values) {
  if (values.empty()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) {
    return upper;
  }
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2;
}

double mad_of(const std::vector<double>& values, double median) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double v : values) {
    deviations.push_back(std::abs(v - median));
  }
  return median_of(std::move(deviations));
}

std::vector<Metric> result_metrics(std::string_view json_text, std::string_view source) {
  const json doc = parse_document(json_text, source);
  const json& context = doc["context"];
  const std::string schema = string_field(context, "schema");
  return extract(doc, context, canonical_schema_name(schema), source, nullptr);
}

ParsedResult parse_result(std::string json_text, std::string source) {
  const json doc = parse_document(json_text, source);
  const json& c = doc["context"];
  ParsedResult r;
  // A file written under a format's old name is stored as the renamed format (core/schema.hpp's
  // aliases; its version says which spelling it had), so that old and new runs are one series.
  r.context.schema = std::string(canonical_schema_name(string_field(c, "schema")));
  if (const auto v = unsigned_field(c, "schema_version"); v && *v <= 1000000) {
    r.context.schema_version = static_cast<int>(*v);
  }
  r.context.tool = string_field(c, "tool");
  r.context.mode = string_field(c, "mode");
  r.context.host = string_field(c, "host");
  r.context.date = string_field(c, "date");
  r.context.mpi_library = string_field(c, "mpi_library");
  r.context.gridlock_version = string_field(c, "gridlock_version");
  r.context.git_commit = string_field(c, "git_commit");
  r.context.seed = unsigned_field(c, "seed");
  r.context.ranks = unsigned_field(c, "ranks");
  if (!r.context.ranks) {
    r.context.ranks = unsigned_field(c, "mpi_ranks");
  }
  if (r.context.schema.empty()) {
    r.notes.emplace_back("the context block names no schema: stored without metrics");
  } else {
    r.metrics = extract(doc, c, r.context.schema, source, &r.notes);
    if (r.metrics.empty() && r.notes.empty()) {
      r.notes.push_back(fmt::format("no metrics found in this {} result", r.context.schema));
    }
  }
  r.content_hash = fnv1a64(json_text);
  r.json = std::move(json_text);
  r.source = std::move(source);
  return r;
}

}  // namespace gridlock::model
