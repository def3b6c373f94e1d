#include "gridlock/model/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "detail/stats.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/schema.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::model {
namespace {

const char* const kFix = "fix the file or run gridlock-bench sweep --json again";

[[noreturn]] void bad(std::string_view name, std::size_t index, const std::string& what) {
  throw InputError(fmt::format("{}: record {}: {}; {}", name, index, what, kFix));
}

const Json& field(const Json& record, std::string_view name, std::size_t index, const char* key) {
  const auto it = record.find(key);
  if (it == record.end()) {
    bad(name, index, fmt::format("missing field '{}'", key));
  }
  return *it;
}

std::string string_field(const Json& record, std::string_view name, std::size_t index, const char* key) {
  const Json& v = field(record, name, index, key);
  if (!v.is_string()) {
    bad(name, index, fmt::format("'{}' must be a string", key));
  }
  return v.get<std::string>();
}

std::uint64_t count_field(const Json& record, std::string_view name, std::size_t index, const char* key) {
  const Json& v = field(record, name, index, key);
  if (v.is_number_unsigned()) {
    return v.get<std::uint64_t>();
  }
  if (v.is_number_integer()) {
    bad(name, index, fmt::format("'{}' is negative ({})", key, v.get<std::int64_t>()));
  }
  bad(name, index, fmt::format("'{}' must be a non-negative integer", key));
}

double time_field(const Json& v, std::string_view name, std::size_t index, const std::string& what) {
  if (!v.is_number()) {
    bad(name, index, fmt::format("{} must be a number of microseconds", what));
  }
  const double t = v.get<double>();
  if (!std::isfinite(t) || t <= 0 || t > kMaxTimeUs) {
    bad(name, index,
        fmt::format("{} is {}: times must be positive, finite and at most {:g} us", what, t, kMaxTimeUs));
  }
  return t;
}

void pool(Point& point) { point.median_us = detail::median(point.record_medians_us); }

std::string context_value(const Json& context, const char* key) {
  const auto it = context.find(key);
  if (it == context.end() || it->is_null()) {
    return "(none)";
  }
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace

std::string describe(const SeriesKey& key) {
  if (key.kind == "collective") {
    return fmt::format("{} p={}", key.op, key.ranks);
  }
  return fmt::format("{} ({})", key.op, key.pair_class);
}

const Series* Sweep::find(const SeriesKey& key) const {
  const auto it = std::lower_bound(series.begin(), series.end(), key,
                                   [](const Series& s, const SeriesKey& k) { return s.key < k; });
  return it != series.end() && it->key == key ? &*it : nullptr;
}

const Series* Sweep::find_collective(std::string_view op, std::uint32_t ranks) const {
  return find(SeriesKey{"collective", std::string(op), ranks, ""});
}

namespace {

// The records of a sweep document, after checking its context block (schema and version) and
// that it has records. Throws InputError naming `name` otherwise.
const Json& sweep_records(const Json& doc, std::string_view name) {
  if (!doc.is_object() || !doc.contains("context") || !doc["context"].is_object()) {
    throw InputError(fmt::format("{}: no context block: not a gridlock sweep result; {}", name, kFix));
  }
  const Json& context = doc["context"];
  if (schema_name_of(context) != schemas::kSweep.name) {
    throw InputError(
        fmt::format("{}: schema is '{}', not 'gridlock.sweep': give the --json output of "
                    "gridlock-bench sweep",
                    name, context_value(context, "schema")));
  }
  if (!context.contains("schema_version") ||
      (context["schema_version"] != 1 && context["schema_version"] != 2)) {
    throw InputError(
        fmt::format("{}: gridlock.sweep schema version {} is not supported (this gridlock reads "
                    "versions 1 and 2)",
                    name, context_value(context, "schema_version")));
  }
  if (!doc.contains("records") || !doc["records"].is_array()) {
    throw InputError(fmt::format("{}: no 'records' array; {}", name, kFix));
  }
  const Json& records = doc["records"];
  if (records.empty()) {
    throw InputError(fmt::format("{}: no records: the sweep measured nothing; run it again", name));
  }
  return records;
}

// The series a record belongs to (kind, op, ranks and pair class) and its size, checked in the
// record's field order.
SeriesKey record_key(const Json& r, std::string_view name, std::size_t i, std::uint64_t& size) {
  SeriesKey key;
  key.kind = string_field(r, name, i, "kind");
  if (key.kind != "p2p" && key.kind != "rma" && key.kind != "collective") {
    bad(name, i, fmt::format("kind '{}' is not p2p, rma or collective", key.kind));
  }
  key.op = string_field(r, name, i, "op");
  size = count_field(r, name, i, "size_bytes");
  const std::uint64_t ranks = count_field(r, name, i, "ranks");
  if (ranks == 0 || ranks > (1U << 30U)) {
    bad(name, i, fmt::format("ranks is {}: give 1 to 2^30 ranks", ranks));
  }
  key.ranks = static_cast<std::uint32_t>(ranks);
  const Json& pair = field(r, name, i, "pair_class");
  if (key.kind == "collective") {
    if (!pair.is_null()) {
      bad(name, i, "pair_class must be null for a collective");
    }
  } else {
    if (!pair.is_string() || pair.get<std::string>().empty()) {
      bad(name, i, fmt::format("pair_class must be node, router or far for {} records", key.kind));
    }
    key.pair_class = pair.get<std::string>();
  }
  return key;
}

}  // namespace

Sweep parse_sweep(std::string_view text, std::string_view name) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for numbers like 1E999
    throw InputError(fmt::format("{}: not valid JSON ({}); {}", name, e.what(), kFix));
  }
  const Json& records = sweep_records(doc, name);
  const Json& context = doc["context"];
  // (key, size) -> point; (key, size, repeat) -> first record index, to name duplicates.
  std::map<std::pair<SeriesKey, std::uint64_t>, Point> points;
  std::map<std::tuple<SeriesKey, std::uint64_t, std::uint64_t>, std::size_t> seen;
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::map<SeriesKey, std::size_t> left_out;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Json& r = records[i];
    if (!r.is_object()) {
      bad(name, i, "not an object");
    }
    std::uint64_t size = 0;
    const SeriesKey key = record_key(r, name, i, size);
    const std::uint64_t repeat = r.contains("repeat") ? count_field(r, name, i, "repeat") : 0;
    // Version 2: a failed or skipped measurement has a status and no statistics.
    if (const auto st = r.find("status"); st != r.end()) {
      if (!st->is_string() || (*st != "ok" && *st != "failed" && *st != "skipped")) {
        bad(name, i, "status must be ok, failed or skipped");
      }
      if (*st != "ok") {
        ++(*st == "failed" ? failed : skipped);
        ++left_out[key];
        continue;
      }
    }
    const Json& time = field(r, name, i, "time_us");
    if (!time.is_object() || !time.contains("median")) {
      bad(name, i, "time_us.median is missing");
    }
    const double median = time_field(time["median"], name, i, "time_us.median");
    const auto [it, fresh] = seen.emplace(std::make_tuple(key, size, repeat), i);
    if (!fresh) {
      bad(name, i,
          fmt::format("{} at {} (repeat {}) is also record {}: one record per size and repeat", describe(key),
                      format_bytes(size), repeat, it->second));
    }
    Point& p = points[{key, size}];
    p.size_bytes = size;
    p.record_medians_us.push_back(median);
    if (const auto s = r.find("samples_us"); s != r.end() && !s->is_null()) {
      if (!s->is_array()) {
        bad(name, i, "samples_us must be an array of microseconds");
      }
      for (std::size_t j = 0; j < s->size(); ++j) {
        p.samples_us.push_back(time_field((*s)[j], name, i, fmt::format("samples_us[{}]", j)));
      }
    }
  }
  if (points.empty()) {
    throw InputError(fmt::format(
        "{}: no measured records: all {} records failed ({}) or were skipped ({}); see their 'error' "
        "and run the sweep again",
        name, records.size(), failed, skipped));
  }
  Sweep sweep;
  sweep.context = context;
  sweep.inputs.emplace_back(name);
  if (failed + skipped > 0) {
    sweep.warnings.push_back(
        fmt::format("{}: {} failed and {} skipped measurements left out (their 'error' "
                    "and 'reason' say why)",
                    name, failed, skipped));
  }
  if (const auto st = doc.find("status"); st != doc.end() && *st == "cut_short") {
    sweep.warnings.push_back(fmt::format("{}: the sweep was cut short ({}): only what it measured is used",
                                         name,
                                         doc.contains("reason") ? doc["reason"].dump() : "no reason given"));
  }
  for (auto& [ks, point] : points) {
    if (sweep.series.empty() || sweep.series.back().key != ks.first) {
      const auto lo = left_out.find(ks.first);
      sweep.series.push_back(Series{ks.first, {}, lo == left_out.end() ? 0 : lo->second});
    }
    pool(point);
    sweep.series.back().points.push_back(std::move(point));
  }
  return sweep;
}

void merge_sweep(Sweep& into, Sweep more) {
  if (into.inputs.empty()) {
    into = std::move(more);
    return;
  }
  for (const char* key : {"host", "mpi_library", "ranks"}) {
    const std::string a = context_value(into.context, key);
    const std::string b = context_value(more.context, key);
    if (a != b) {
      into.warnings.push_back(fmt::format("{} differs: {} has {}, {} has {}; the fit mixes them", key,
                                          into.inputs.front(), a, more.inputs.front(), b));
    }
  }
  for (auto& s : more.series) {
    const auto it = std::lower_bound(into.series.begin(), into.series.end(), s.key,
                                     [](const Series& x, const SeriesKey& k) { return x.key < k; });
    if (it == into.series.end() || it->key != s.key) {
      into.series.insert(it, std::move(s));
      continue;
    }
    it->left_out += s.left_out;
    for (auto& p : s.points) {
      auto& pts = it->points;
      const auto q = std::lower_bound(pts.begin(), pts.end(), p.size_bytes,
                                      [](const Point& x, std::uint64_t n) { return x.size_bytes < n; });
      if (q == pts.end() || q->size_bytes != p.size_bytes) {
        pts.insert(q, std::move(p));
        continue;
      }
      q->record_medians_us.insert(q->record_medians_us.end(), p.record_medians_us.begin(),
                                  p.record_medians_us.end());
      q->samples_us.insert(q->samples_us.end(), p.samples_us.begin(), p.samples_us.end());
      pool(*q);
    }
  }
  into.inputs.insert(into.inputs.end(), more.inputs.begin(), more.inputs.end());
  into.warnings.insert(into.warnings.end(), more.warnings.begin(), more.warnings.end());
}

void warn_non_monotone(Sweep& sweep) {
  // Larger messages faster than smaller ones by more than half is not physics but a measurement
  // problem (a cache effect, a wrong size): warned, not refused, since it is what was measured.
  for (const Series& s : sweep.series) {
    for (std::size_t i = 1; i < s.points.size(); ++i) {
      const Point& a = s.points[i - 1];
      const Point& b = s.points[i];
      if (b.median_us < 0.5 * a.median_us) {
        sweep.warnings.push_back(fmt::format(
            "{}: time falls from {:.4g} us at {} to {:.4g} us at {}; check the sweep", describe(s.key),
            a.median_us, format_bytes(a.size_bytes), b.median_us, format_bytes(b.size_bytes)));
      }
    }
  }
}

Sweep load_sweeps(const std::vector<std::filesystem::path>& paths) {
  if (paths.empty()) {
    throw InputError("no sweep file given: pass the --json output of gridlock-bench sweep");
  }
  Sweep all;
  for (const auto& path : paths) {
    const std::string text =
        read_input_file(path, "sweep result", "give the --json file that gridlock-bench sweep wrote");
    merge_sweep(all, parse_sweep(text, path.string()));
  }
  warn_non_monotone(all);
  return all;
}

}  // namespace gridlock::model
