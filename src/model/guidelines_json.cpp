#include "gridlock/model/guidelines_json.hpp"

namespace gridlock::model {

Json check_to_json(const CheckReport& report, const CheckOptions& o) {
  Json body;
  body["level"] = o.level;
  body["tolerance"] = o.tolerance;
  body["seed"] = o.seed;
  body["resamples"] = o.resamples;
  body["violations"] = report.violations();
  Json results = Json::array();
  for (const CheckResult& r : report.results) {
    results.push_back(Json{{"guideline", r.guideline},
                           {"size_bytes", r.size_bytes},
                           {"ranks", r.ranks},
                           {"lhs_median_us", r.lhs_median_us},
                           {"rhs_median_us", r.rhs_median_us},
                           {"factor", r.factor},
                           {"test", r.test},
                           {"p_value", r.p_value},
                           {"violated", r.violated}});
  }
  body["results"] = results;
  body["not_checked"] = report.not_checked;
  return body;
}

}  // namespace gridlock::model
