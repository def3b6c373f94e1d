#pragma once
// Synthetic sweep documents (schema gridlock.sweep v1) for the model tests.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/core/rng.hpp"

namespace gridlock::model::test {

// Multiplicative noise: t * (1 + noise * u), u uniform in [-1, 1], from a seeded Rng.
inline double jitter(Rng& rng, double t, double noise) {
  const double u = static_cast<double>(rng() >> 11U) / static_cast<double>(1ULL << 53U);
  return t * (1 + noise * (2 * u - 1));
}

class SweepBuilder {
 public:
  explicit SweepBuilder(std::string host = "node1") {
    doc_["context"] = Json{{"tool", "gridlock-bench sweep"},
                           {"schema", "gridlock.sweep"},
                           {"schema_version", 1},
                           {"host", host},
                           {"mpi_library", "Open MPI"},
                           {"ranks", 16}};
    doc_["records"] = Json::array();
  }
  SweepBuilder& add(const std::string& kind, const std::string& op, std::uint64_t size, std::uint32_t ranks,
                    double median_us, const std::vector<double>& samples = {}, std::uint64_t repeat = 0) {
    Json r{{"kind", kind},
           {"op", op},
           {"size_bytes", size},
           {"ranks", ranks},
           {"pair_class", kind == "collective" ? Json(nullptr) : Json("far")},
           {"repeat", repeat},
           {"n", samples.empty() ? 100 : samples.size()},
           {"time_us", Json{{"median", median_us}}}};
    if (!samples.empty()) {
      r["samples_us"] = samples;
    }
    doc_["records"].push_back(r);
    return *this;
  }
  Json& doc() { return doc_; }
  [[nodiscard]] std::string text() const { return doc_.dump(); }

 private:
  Json doc_;
};

// Powers of two from 0 B (then 1 B) to `max_bytes`.
inline std::vector<std::uint64_t> pow2_sizes(std::uint64_t max_bytes) {
  std::vector<std::uint64_t> s{0};
  for (std::uint64_t n = 1; n <= max_bytes; n *= 2) {
    s.push_back(n);
  }
  return s;
}

}  // namespace gridlock::model::test
