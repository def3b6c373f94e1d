#include "gridlock/model/guidelines.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "detail/stats.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/model/sweep.hpp"

namespace gridlock::model {
namespace {

// One operand of a guideline: op at a size derived from (n, p).
struct Term {
  const char* op;
  enum class Size { kN, kNTimesP, kNOverP } size;
};

struct Guideline {
  const char* text;
  Term lhs;
  std::vector<Term> rhs;
};

const std::vector<Guideline>& guidelines() {
  using S = Term::Size;
  static const std::vector<Guideline> all{
      {"allreduce(n) <= reduce(n) + bcast(n)", {"allreduce", S::kN}, {{"reduce", S::kN}, {"bcast", S::kN}}},
      {"allgather(n) <= gather(n) + bcast(n*p)",
       {"allgather", S::kN},
       {{"gather", S::kN}, {"bcast", S::kNTimesP}}},
      {"bcast(n) <= scatter(n/p) + allgather(n/p)",
       {"bcast", S::kN},
       {{"scatter", S::kNOverP}, {"allgather", S::kNOverP}}},
      {"reduce_scatter(n) <= reduce(n*p) + scatter(n)",
       {"reduce_scatter", S::kN},
       {{"reduce", S::kNTimesP}, {"scatter", S::kN}}},
      {"alltoall(n) <= alltoallv(n)", {"alltoall", S::kN}, {{"alltoallv", S::kN}}},
      {"gather(n) <= allgather(n)", {"gather", S::kN}, {{"allgather", S::kN}}},
  };
  return all;
}

std::optional<std::uint64_t> term_size(const Term& t, std::uint64_t n, std::uint32_t p) {
  switch (t.size) {
    case Term::Size::kN:
      return n;
    case Term::Size::kNTimesP:
      return n * p;
    case Term::Size::kNOverP:
      if (n % p != 0) {
        return std::nullopt;
      }
      return n / p;
  }
  return std::nullopt;
}

const Point* find_point(const Series* s, std::uint64_t size) {
  if (s == nullptr) {
    return nullptr;
  }
  for (const Point& pt : s->points) {
    if (pt.size_bytes == size) {
      return &pt;
    }
  }
  return nullptr;
}

CheckResult compare(const std::string& text, std::uint64_t n, std::uint32_t p, const Point& lhs,
                    const std::vector<const Point*>& rhs, const CheckOptions& o, Rng& rng) {
  CheckResult r;
  r.guideline = text;
  r.size_bytes = n;
  r.ranks = p;
  r.lhs_median_us = lhs.median_us;
  const bool samples = !lhs.samples_us.empty() && std::all_of(rhs.begin(), rhs.end(), [](const Point* q) {
    return !q->samples_us.empty();
  });
  if (samples) {
    // The rhs of a composed guideline is a sum of independent operations: its distribution is
    // the convolution of theirs, drawn here by summing independent resamples (one uniformly
    // chosen sample of each operand per draw).
    std::vector<double> sums;
    if (rhs.size() == 1) {
      sums = rhs.front()->samples_us;
    } else {
      sums.resize(o.resamples);
      for (double& s : sums) {
        s = 0;
        for (const Point* q : rhs) {
          s += q->samples_us[uniform_below(rng, q->samples_us.size())];
        }
      }
    }
    r.rhs_median_us = detail::median(sums);
    r.test = "rank-sum";
    r.p_value = rank_sum_p_value(lhs.samples_us, sums);
    r.factor = detail::median(lhs.samples_us) / r.rhs_median_us;
    r.lhs_median_us = detail::median(lhs.samples_us);
    r.violated = r.p_value < o.level && r.factor > 1 + o.tolerance;
  } else {
    double sum = 0;
    for (const Point* q : rhs) {
      sum += q->median_us;
    }
    r.rhs_median_us = sum;
    r.test = "tolerance";
    r.factor = lhs.median_us / sum;
    r.violated = r.factor > 1 + o.tolerance;
  }
  return r;
}

}  // namespace

std::size_t CheckReport::violations() const {
  return static_cast<std::size_t>(
      std::count_if(results.begin(), results.end(), [](const CheckResult& r) { return r.violated; }));
}

double rank_sum_p_value(const std::vector<double>& a, const std::vector<double>& b) {
  // Hand-written: Debian ships no C++ library with this test (Boost.Math has the normal
  // distribution but no rank tests; GSL has neither), and the normal approximation with tie
  // correction is a few lines on top of std::erfc.
  if (a.empty() || b.empty()) {
    return 1.0;
  }
  struct Value {
    double v;
    bool from_a;
  };
  std::vector<Value> all;
  all.reserve(a.size() + b.size());
  for (const double v : a) {
    all.push_back({v, true});
  }
  for (const double v : b) {
    all.push_back({v, false});
  }
  std::sort(all.begin(), all.end(), [](const Value& x, const Value& y) { return x.v < y.v; });
  const auto total = static_cast<double>(all.size());
  double rank_sum_a = 0;
  double tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].v == all[i].v) {
      ++j;
    }
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    const auto t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].from_a) {
        rank_sum_a += avg_rank;
      }
    }
    i = j;
  }
  const auto na = static_cast<double>(a.size());
  const auto nb = static_cast<double>(b.size());
  const double u = rank_sum_a - na * (na + 1) / 2;
  const double mean = na * nb / 2;
  const double var = na * nb / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (!(var > 0)) {
    return 1.0;
  }
  const double z = (u - mean - 0.5) / std::sqrt(var);
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

CheckReport check_guidelines(const Sweep& sweep, const CheckOptions& o) {
  CheckReport report;
  Rng rng(o.seed);
  std::set<std::uint32_t> all_ranks;
  for (const Series& s : sweep.series) {
    if (s.key.kind == "collective" && s.key.ranks >= 2) {
      all_ranks.insert(s.key.ranks);
    }
  }
  for (const Guideline& g : guidelines()) {
    std::size_t before = report.results.size();
    std::string first_missing;
    for (const std::uint32_t p : all_ranks) {
      const Series* lhs = sweep.find_collective(g.lhs.op, p);
      if (lhs == nullptr) {
        if (first_missing.empty()) {
          first_missing = fmt::format("{} at p={}", g.lhs.op, p);
        }
        continue;
      }
      for (const Point& lp : lhs->points) {
        std::vector<const Point*> rhs;
        std::string missing;
        for (const Term& t : g.rhs) {
          const auto size = term_size(t, lp.size_bytes, p);
          const Point* q = size ? find_point(sweep.find_collective(t.op, p), *size) : nullptr;
          if (q == nullptr) {
            missing = size ? fmt::format("{} at {} (p={})", t.op, format_bytes(*size), p)
                           : fmt::format("{} at {}/{} (not a whole number of bytes)", t.op,
                                         format_bytes(lp.size_bytes), p);
            break;
          }
          rhs.push_back(q);
        }
        if (!missing.empty()) {
          if (first_missing.empty()) {
            first_missing = missing;
          }
          continue;
        }
        report.results.push_back(compare(g.text, lp.size_bytes, p, lp, rhs, o, rng));
      }
    }
    if (report.results.size() == before) {
      report.not_checked.push_back(
          fmt::format("{}: not checked: needs {}", g.text,
                      first_missing.empty() ? std::string(g.lhs.op) : first_missing));
    }
  }
  // Monotony in p: the same op on fewer ranks must not be slower.
  std::map<std::string, std::vector<const Series*>> by_op;
  for (const Series& s : sweep.series) {
    if (s.key.kind == "collective" && s.key.ranks >= 2) {
      by_op[s.key.op].push_back(&s);
    }
  }
  bool monotony_checked = false;
  for (const auto& [op, list] : by_op) {
    for (std::size_t i = 1; i < list.size(); ++i) {
      const Series* small = list[i - 1];
      const Series* large = list[i];
      for (const Point& sp : small->points) {
        const Point* lp = find_point(large, sp.size_bytes);
        if (lp == nullptr) {
          continue;
        }
        const std::string text =
            fmt::format("{}(n, p={}) <= {}(n, p={})", op, small->key.ranks, op, large->key.ranks);
        report.results.push_back(compare(text, sp.size_bytes, large->key.ranks, sp, {lp}, o, rng));
        monotony_checked = true;
      }
    }
  }
  if (!monotony_checked) {
    report.not_checked.emplace_back(
        "op(n, p') <= op(n, p) for p' < p: not checked: needs one op at 2 communicator sizes");
  }
  if (report.results.empty()) {
    throw InputError(fmt::format("no guideline could be checked: {}; run gridlock-bench sweep --guidelines",
                                 fmt::join(report.not_checked, "; ")));
  }
  return report;
}

}  // namespace gridlock::model
