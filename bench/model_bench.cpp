// `gridlock model fit` of a 10,000-record sweep (issue 22: under 1 s): parsing the JSON and every
// fit (Hockney LS + Huber, switch detection, collective models) of a synthetic sweep.
// Run: build/release/bench/model_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "gridlock/core/output.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/model/fit.hpp"
#include "gridlock/model/sweep.hpp"

namespace {

double jitter(gridlock::Rng& rng, double t) {
  const double u = static_cast<double>(rng() >> 11U) / static_cast<double>(1ULL << 53U);
  return t * (1 + 0.03 * (2 * u - 1));
}

// 3 pingpong pair classes + 11 collectives on p = 2..256, sizes 0 B and 1 B .. 64 MiB (28 sizes),
// 4 repeats: 10,192 records with a protocol switch at 8 KiB everywhere.
const std::string& sweep_text() {
  static const std::string text = [] {
    gridlock::Rng rng(1);
    gridlock::Json doc;
    doc["context"] = gridlock::Json{{"schema", "gridlock.sweep"}, {"schema_version", 1}, {"host", "bench"}};
    gridlock::Json records = gridlock::Json::array();
    const auto add = [&](const char* kind, const std::string& op, std::uint64_t n, std::uint32_t p,
                         const char* pair, double t, int repeat) {
      records.push_back(
          gridlock::Json{{"kind", kind},
                         {"op", op},
                         {"size_bytes", n},
                         {"ranks", p},
                         {"pair_class", pair == nullptr ? gridlock::Json(nullptr) : gridlock::Json(pair)},
                         {"repeat", repeat},
                         {"time_us", gridlock::Json{{"median", jitter(rng, t)}}}});
    };
    for (int repeat = 0; repeat < 4; ++repeat) {
      for (std::uint64_t n = 0; n <= (64ULL << 20U); n = n == 0 ? 1 : 2 * n) {
        const auto nd = static_cast<double>(n);
        const double t = n < 8192 ? 1.2 + 1e-3 * nd : 3.4 + 0.8e-3 * nd;
        for (const char* pair : {"node", "router", "far"}) {
          add("p2p", "pingpong", n, 2, pair, t, repeat);
        }
        for (const char* op : {"allreduce", "bcast", "alltoall", "alltoallv", "reduce", "allgather",
                               "allgatherv", "gather", "scatter", "reduce_scatter", "barrier"}) {
          for (std::uint32_t p = 2; p <= 256; p *= 2) {
            add("collective", op, n, p, nullptr, 5 + t * std::log2(p), repeat);
          }
        }
      }
    }
    doc["records"] = records;
    return doc.dump();
  }();
  return text;
}

void BM_ModelFit10kRecords(benchmark::State& state) {
  const std::string& text = sweep_text();
  std::size_t series = 0;
  for (auto _ : state) {
    const gridlock::model::Sweep sweep = gridlock::model::parse_sweep(text, "bench.json");
    const gridlock::model::FitResult fit = gridlock::model::fit_sweep(sweep);
    series = fit.series.size();
    benchmark::DoNotOptimize(fit);
  }
  state.counters["series"] = static_cast<double>(series);
  state.counters["bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_ModelFit10kRecords)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
