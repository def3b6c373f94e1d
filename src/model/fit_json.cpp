#include "gridlock/model/fit_json.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/schema.hpp"
#include "gridlock/core/units.hpp"

namespace gridlock::model {
namespace {

Json line_json(const LineFit& f) {
  Json j;
  j["alpha_us"] = f.alpha_us;
  j["beta_us_per_byte"] = f.beta_us_per_byte;
  j["bandwidth_mib_s"] = f.beta_us_per_byte > 0 ? Json(f.bandwidth_mib_s()) : Json(nullptr);
  j["r2"] = f.r2;
  j["max_rel_err"] = f.max_rel_err;
  j["median_rel_err"] = f.median_rel_err;
  j["rel_err"] = f.rel_err;
  return j;
}

// Ranges of a fit file's values (docs/limits.md): far beyond any measured network, yet finite.
// Times are within ±kMaxTimeUs, the sweep's own bound (model/sweep.hpp).
constexpr double kMaxAbsUsPerByte = 1e3;  // 1 KB/s
constexpr double kMaxRelErr = 1e6;

class Reader {
 public:
  // `hint` ends every message: how to fix the file (or, for a fit checked before it is written,
  // the sweep it came from).
  explicit Reader(std::string_view name,
                  std::string_view hint = "write it again with gridlock model fit --json")
      : name_(name), hint_(hint) {}
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(fmt::format("{}: {}: {}; {}", name_, where, what, hint_));
  }
  const Json& at(const Json& j, const char* key, const std::string& where) const {
    if (!j.is_object() || !j.contains(key)) {
      fail(where, fmt::format("missing field '{}'", key));
    }
    return j[key];
  }
  double num(const Json& j, const char* key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_number() || !std::isfinite(v.get<double>())) {
      fail(where, fmt::format("'{}' must be a finite number", key));
    }
    return v.get<double>();
  }
  // A number within [lo, hi]: fitted parameters far outside what any network measures would
  // predict absurd times (alpha_us = -1e300 predicted -1e300 us).
  double num_in(const Json& j, const char* key, const std::string& where, double lo, double hi) const {
    const double v = num(j, key, where);
    if (v < lo || v > hi) {
      fail(where, fmt::format("'{}' is {}: must be {:g} to {:g}", key, v, lo, hi));
    }
    return v;
  }
  double time_us(const Json& j, const char* key, const std::string& where) const {
    return num_in(j, key, where, -kMaxTimeUs, kMaxTimeUs);
  }
  double slope(const Json& j, const char* key, const std::string& where) const {
    return num_in(j, key, where, -kMaxAbsUsPerByte, kMaxAbsUsPerByte);
  }
  std::uint64_t count(const Json& j, const char* key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_number_unsigned()) {
      fail(where, fmt::format("'{}' must be a non-negative integer", key));
    }
    return v.get<std::uint64_t>();
  }
  std::string str(const Json& j, const char* key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (v.is_null()) {
      return "";
    }
    if (!v.is_string()) {
      fail(where, fmt::format("'{}' must be a string", key));
    }
    return v.get<std::string>();
  }
  const Json& array(const Json& j, const char* key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_array()) {
      fail(where, fmt::format("'{}' must be an array", key));
    }
    return v;
  }
  LineFit line(const Json& j, const std::string& where) const {
    LineFit f;
    f.alpha_us = time_us(j, "alpha_us", where);
    f.beta_us_per_byte = slope(j, "beta_us_per_byte", where);
    f.r2 = num_in(j, "r2", where, -kMaxRelErr, 1);
    f.max_rel_err = num_in(j, "max_rel_err", where, 0, kMaxRelErr);
    f.median_rel_err = num_in(j, "median_rel_err", where, 0, kMaxRelErr);
    for (const Json& e : array(j, "rel_err", where)) {
      if (!e.is_number() || !std::isfinite(e.get<double>())) {
        fail(where, "rel_err must hold finite numbers");
      }
      f.rel_err.push_back(e.get<double>());
    }
    return f;
  }

 private:
  std::string name_;
  std::string hint_;
};

const SeriesFit* pick_series(const FitResult& fit, std::string_view op, std::string_view pair_class) {
  std::vector<std::string_view> order{"far", "router", "node"};
  if (!pair_class.empty()) {
    order = {pair_class};
  }
  for (const std::string_view pc : order) {
    for (const SeriesFit& s : fit.series) {
      if (s.key.kind != "collective" && s.key.op == op && s.key.pair_class == pc) {
        return &s;
      }
    }
  }
  if (pair_class.empty()) {
    for (const SeriesFit& s : fit.series) {
      if (s.key.kind != "collective" && s.key.op == op) {
        return &s;
      }
    }
  }
  return nullptr;
}

// A fit extrapolated far enough (or a negative intercept at small sizes) gives a time no
// operation takes: refused rather than printed.
void check_prediction(double time_us, std::string_view op, std::uint64_t size_bytes, std::uint32_t ranks) {
  if (!std::isfinite(time_us) || time_us < 0) {
    throw InputError(fmt::format(
        "the fit predicts {:.4g} us for {} at {} on {} ranks, which no operation takes: the model does not "
        "hold this far from the measured sizes and ranks; sweep sizes and ranks closer to these and fit "
        "again",
        time_us, op, format_bytes(size_bytes), ranks));
  }
}

}  // namespace

Json fit_to_json(const FitResult& fit) {
  Json body;
  body["inputs"] = fit.inputs;
  Json series = Json::array();
  for (const SeriesFit& s : fit.series) {
    Json j;
    j["kind"] = s.key.kind;
    j["op"] = s.key.op;
    j["ranks"] = s.key.ranks;
    j["pair_class"] = s.key.pair_class.empty() ? Json(nullptr) : Json(s.key.pair_class);
    j["sizes_bytes"] = s.sizes_bytes;
    j["median_us"] = s.median_us;
    j["least_squares"] = line_json(s.least_squares);
    j["robust"] = line_json(s.robust);
    j["robust"]["method"] = "huber";
    Json segs = Json::array();
    for (const Segment& g : s.segments) {
      Json sj = line_json(g.fit);
      sj = Json{{"from_bytes", g.from_bytes}, {"to_bytes", g.to_bytes}, {"fit", sj}};
      segs.push_back(sj);
    }
    j["segments"] = segs;
    Json switches = Json::array();
    for (std::size_t i = 0; i + 1 < s.segments.size(); ++i) {
      switches.push_back(describe_switch(s.segments[i], s.segments[i + 1]));
    }
    j["switches"] = switches;
    series.push_back(j);
  }
  body["series"] = series;
  if (fit.p2p) {
    body["p2p_reference"] = Json{{"op", fit.p2p->op},
                                 {"pair_class", fit.p2p->pair_class},
                                 {"alpha_us", fit.p2p->alpha_us},
                                 {"beta_us_per_byte", fit.p2p->beta_us_per_byte}};
  } else {
    body["p2p_reference"] = nullptr;
  }
  Json colls = Json::array();
  for (const CollectiveFit& c : fit.collectives) {
    Json j;
    j["op"] = c.op;
    j["ranks"] = c.ranks;
    Json models;
    for (const CollectiveModel m : kAllCollectiveModels) {
      const ModelParams& q = c.models[static_cast<std::size_t>(m)];
      Json mj;
      mj["available"] = q.available;
      mj["alpha_us"] = q.alpha_us;
      mj["beta_us_per_byte"] = q.beta_us_per_byte;
      if (m == CollectiveModel::kPaperDirect) {
        mj["gamma_us"] = q.gamma_us;
        mj["delta_us_per_byte"] = q.delta_us_per_byte;
      }
      mj["note"] = q.note;
      models[std::string(model_name(m))] = mj;
    }
    j["models"] = models;
    Json ranges = Json::array();
    for (const SizeRange& r : c.ranges) {
      Json rj;
      rj["from_bytes"] = r.from_bytes;
      rj["to_bytes"] = r.to_bytes;
      rj["best"] = model_name(r.best);
      Json errs;
      for (const CollectiveModel m : kAllCollectiveModels) {
        const auto& e = r.median_rel_err[static_cast<std::size_t>(m)];
        errs[std::string(model_name(m))] = e ? Json(*e) : Json(nullptr);
      }
      rj["median_rel_err"] = errs;
      ranges.push_back(rj);
    }
    j["ranges"] = ranges;
    colls.push_back(j);
  }
  body["collectives"] = colls;
  body["notes"] = fit.notes;
  return body;
}

namespace {

// Series `i` of a fit file, checked as fit_from_json() says.
SeriesFit series_from_json(const Reader& rd, const Json& j, std::size_t i) {
  const std::string where = fmt::format("series {}", i);
  SeriesFit s;
  s.key.kind = rd.str(j, "kind", where);
  s.key.op = rd.str(j, "op", where);
  const std::uint64_t ranks = rd.count(j, "ranks", where);
  if (ranks == 0 || ranks > (1U << 30U)) {
    rd.fail(where, "ranks must be 1 to 2^30");
  }
  s.key.ranks = static_cast<std::uint32_t>(ranks);
  s.key.pair_class = rd.str(j, "pair_class", where);
  for (const Json& v : rd.array(j, "sizes_bytes", where)) {
    if (!v.is_number_unsigned()) {
      rd.fail(where, "sizes_bytes must hold non-negative integers");
    }
    s.sizes_bytes.push_back(v.get<std::uint64_t>());
  }
  for (const Json& v : rd.array(j, "median_us", where)) {
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > kMaxTimeUs) {
      rd.fail(where, fmt::format("median_us must hold times above 0 and at most {:g} us", kMaxTimeUs));
    }
    s.median_us.push_back(v.get<double>());
  }
  if (s.sizes_bytes.empty() || s.sizes_bytes.size() != s.median_us.size()) {
    rd.fail(where, fmt::format("sizes_bytes ({} values) and median_us ({} values) must be non-empty and of "
                               "equal length",
                               s.sizes_bytes.size(), s.median_us.size()));
  }
  s.least_squares = rd.line(rd.at(j, "least_squares", where), where + " least_squares");
  s.robust = rd.line(rd.at(j, "robust", where), where + " robust");
  const Json& segs = rd.array(j, "segments", where);
  for (std::size_t k = 0; k < segs.size(); ++k) {
    const std::string w2 = fmt::format("{} segment {}", where, k);
    s.segments.push_back(Segment{rd.count(segs[k], "from_bytes", w2), rd.count(segs[k], "to_bytes", w2),
                                 rd.line(rd.at(segs[k], "fit", w2), w2)});
    if (s.segments.back().from_bytes > s.segments.back().to_bytes) {
      rd.fail(w2, "from_bytes is above to_bytes");
    }
  }
  if (s.segments.empty()) {
    rd.fail(where, "segments is empty (one segment means no switch)");
  }
  return s;
}

// Collective `i` of a fit file, checked as fit_from_json() says.
CollectiveFit collective_from_json(const Reader& rd, const Json& j, std::size_t i) {
  const std::string where = fmt::format("collectives {}", i);
  CollectiveFit c;
  c.op = rd.str(j, "op", where);
  for (const Json& v : rd.array(j, "ranks", where)) {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < 2 || v.get<std::uint64_t>() > (1U << 30U)) {
      rd.fail(where, "ranks must hold integers 2 to 2^30");
    }
    c.ranks.push_back(v.get<std::uint32_t>());
  }
  const Json& models = rd.at(j, "models", where);
  for (const CollectiveModel m : kAllCollectiveModels) {
    const std::string mn(model_name(m));
    const std::string w2 = fmt::format("{} {}", where, mn);
    const Json& mj = rd.at(models, mn.c_str(), where);
    ModelParams& q = c.models[static_cast<std::size_t>(m)];
    const Json& av = rd.at(mj, "available", w2);
    if (!av.is_boolean()) {
      rd.fail(w2, "'available' must be true or false");
    }
    q.available = av.get<bool>();
    q.alpha_us = rd.time_us(mj, "alpha_us", w2);
    q.beta_us_per_byte = rd.slope(mj, "beta_us_per_byte", w2);
    if (m == CollectiveModel::kPaperDirect) {
      q.gamma_us = rd.time_us(mj, "gamma_us", w2);
      q.delta_us_per_byte = rd.slope(mj, "delta_us_per_byte", w2);
    }
    q.note = rd.str(mj, "note", w2);
  }
  const Json& ranges = rd.array(j, "ranges", where);
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    const std::string w2 = fmt::format("{} range {}", where, k);
    SizeRange r;
    r.from_bytes = rd.count(ranges[k], "from_bytes", w2);
    r.to_bytes = rd.count(ranges[k], "to_bytes", w2);
    if (r.from_bytes > r.to_bytes) {
      rd.fail(w2, "from_bytes is above to_bytes");
    }
    const auto best = parse_model_name(rd.str(ranges[k], "best", w2));
    if (!best || !c.models[static_cast<std::size_t>(*best)].available) {
      rd.fail(w2, "'best' must name an available model");
    }
    r.best = *best;
    const Json& errs = rd.at(ranges[k], "median_rel_err", w2);
    for (const CollectiveModel m : kAllCollectiveModels) {
      const std::string mn(model_name(m));
      if (errs.contains(mn) && errs[mn].is_number()) {
        r.median_rel_err[static_cast<std::size_t>(m)] = errs[mn].get<double>();
      }
    }
    c.ranges.push_back(r);
  }
  return c;
}

// Everything of a fit file after its context block, checked as fit_from_json() says.
FitResult fit_body_from_json(const Reader& rd, const Json& doc) {
  FitResult fit;
  for (const Json& in : rd.array(doc, "inputs", "top level")) {
    fit.inputs.push_back(in.is_string() ? in.get<std::string>() : in.dump());
  }
  const Json& series = rd.array(doc, "series", "top level");
  for (std::size_t i = 0; i < series.size(); ++i) {
    fit.series.push_back(series_from_json(rd, series[i], i));
  }
  if (const Json& p = rd.at(doc, "p2p_reference", "top level"); !p.is_null()) {
    fit.p2p = P2pReference{rd.str(p, "op", "p2p_reference"), rd.str(p, "pair_class", "p2p_reference"),
                           rd.time_us(p, "alpha_us", "p2p_reference"),
                           rd.slope(p, "beta_us_per_byte", "p2p_reference")};
  }
  const Json& colls = rd.array(doc, "collectives", "top level");
  for (std::size_t i = 0; i < colls.size(); ++i) {
    fit.collectives.push_back(collective_from_json(rd, colls[i], i));
  }
  if (doc.contains("notes") && doc["notes"].is_array()) {
    for (const Json& n : doc["notes"]) {
      if (n.is_string()) {
        fit.notes.push_back(n.get<std::string>());
      }
    }
  }
  return fit;
}

}  // namespace

FitResult fit_from_json(const Json& doc, std::string_view name) {
  const Reader rd(name);
  const Json& ctx = rd.at(doc, "context", "top level");
  if (schema_name_of(ctx) != schemas::kModelFit.name) {
    rd.fail("context", fmt::format("schema is not '{}': give a file written by gridlock model fit --json",
                                   schemas::kModelFit.name));
  }
  if (!ctx.contains("schema_version") || ctx["schema_version"] != schemas::kModelFit.version) {
    rd.fail("context", fmt::format("schema version is not {} (the one this gridlock reads)",
                                   schemas::kModelFit.version));
  }
  return fit_body_from_json(rd, doc);
}

void check_fit_in_range(const FitResult& fit, std::string_view name) {
  const Reader rd(name,
                  fmt::format("the sweep's times (at most {:g} us each) fit to a line no fit file holds: "
                              "check its records",
                              kMaxTimeUs));
  (void)fit_body_from_json(rd, fit_to_json(fit));
}

FitResult load_fit(const std::filesystem::path& path) {
  const std::string text =
      read_input_file(path, "fit file", "give the --json file that gridlock model fit wrote");
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for numbers like 1E999
    throw InputError(fmt::format("{}: not valid JSON ({}); write it again with gridlock model fit --json",
                                 path.string(), e.what()));
  }
  return fit_from_json(doc, path.string());
}

Prediction predict(const FitResult& fit, std::string_view op, std::uint64_t size_bytes, std::uint32_t ranks,
                   std::string_view pair_class) {
  const auto n = static_cast<double>(size_bytes);
  for (const CollectiveFit& c : fit.collectives) {
    if (c.op != op) {
      continue;
    }
    if (c.ranges.empty()) {
      throw InputError(
          fmt::format("fit has no size range for {}: fit a sweep with {} at 2 or more ranks", op, op));
    }
    if (ranks < 2) {
      throw InputError(fmt::format("--ranks {}: a collective model needs at least 2 ranks", ranks));
    }
    const SizeRange* range = &c.ranges.front();
    for (const SizeRange& r : c.ranges) {
      if (size_bytes >= r.from_bytes) {
        range = &r;
      }
    }
    Prediction out;
    out.model = std::string(model_name(range->best));
    out.time_us = evaluate(range->best, c.models[static_cast<std::size_t>(range->best)], n, ranks);
    check_prediction(out.time_us, op, size_bytes, ranks);
    out.basis = fmt::format("{}: best model for {} .. {}", op, format_bytes(range->from_bytes),
                            format_bytes(range->to_bytes));
    if (size_bytes < c.ranges.front().from_bytes || size_bytes > c.ranges.back().to_bytes) {
      out.basis += "; size outside the measured sizes (extrapolated)";
    }
    if (!c.ranks.empty() && (ranks < c.ranks.front() || ranks > c.ranks.back())) {
      out.basis += fmt::format("; {} ranks outside the measured {} .. {} (extrapolated)", ranks,
                               c.ranks.front(), c.ranks.back());
    }
    return out;
  }
  const SeriesFit* s = pick_series(fit, op, pair_class);
  if (s == nullptr) {
    std::vector<std::string> known;
    for (const SeriesFit& f : fit.series) {
      if (f.key.kind != "collective") {
        known.push_back(describe(f.key));
      }
    }
    for (const CollectiveFit& c : fit.collectives) {
      known.push_back(c.op);
    }
    throw InputError(fmt::format("the fit has no op '{}'{}: it has {}", op,
                                 pair_class.empty() ? "" : fmt::format(" with pair class '{}'", pair_class),
                                 known.empty() ? "nothing" : fmt::format("{}", fmt::join(known, ", "))));
  }
  Prediction out;
  if (s->segments.size() > 1) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < s->segments.size(); ++i) {
      if (size_bytes >= s->segments[i].from_bytes) {
        k = i;
      }
    }
    // Between two segments' measured sizes, the one whose range starts at or below the size.
    out.time_us = s->segments[k].fit.at(n);
    out.model = fmt::format("hockney segment {}/{}", k + 1, s->segments.size());
  } else {
    out.time_us = s->robust.at(n);
    out.model = "hockney (robust)";
  }
  check_prediction(out.time_us, op, size_bytes, ranks);
  out.basis = describe(s->key);
  if (size_bytes < s->sizes_bytes.front() || size_bytes > s->sizes_bytes.back()) {
    out.basis += "; size outside the measured sizes (extrapolated)";
  }
  return out;
}

}  // namespace gridlock::model
