// The run history's speed (issue 22): adding a 1 MB result (target < 50 ms) and a trend over
// 10,000 runs (target < 1 s). Each add is parse + metrics + one transaction, as `history add` does.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "gridlock/model/history.hpp"

namespace {

namespace fs = std::filesystem;
using gridlock::model::History;
using gridlock::model::HistoryOptions;
using nlohmann::json;

// A sweep with `records` records over ops, sizes and rank counts, and `samples` samples each.
std::string sweep_text(std::size_t records, std::size_t samples, std::uint64_t seed) {
  static const char* const kOps[] = {"allreduce", "bcast",  "reduce", "allgather",
                                     "alltoall",  "gather", "scatter"};
  json out = json::array();
  for (std::size_t i = 0; i < records; ++i) {
    const double t = 1.0 + static_cast<double>(i % 97) + static_cast<double>(seed % 13) * 0.01;
    json r{{"kind", "collective"},
           {"op", kOps[i % 7]},
           {"size_bytes", std::uint64_t{1} << (i / 7 % 27)},
           {"ranks", 2 + i / 189},
           {"pair_class", nullptr},
           {"repeat", 0},
           {"n", samples},
           {"outliers", 0},
           {"time_us",
            {{"mean", t},
             {"min", t},
             {"median", t},
             {"q1", t},
             {"q3", t},
             {"p99", t},
             {"max", t},
             {"ci_low", t},
             {"ci_high", t},
             {"ci_level", 0.95}}},
           {"bandwidth_mib_s", nullptr}};
    if (samples > 0) {
      r["samples_us"] = std::vector<double>(samples, t + 0.123456);
    }
    out.push_back(std::move(r));
  }
  return json{{"context",
               {{"tool", "gridlock-bench sweep"},
                {"schema", "gridlock.sweep"},
                {"schema_version", 1},
                {"date", "2026-11-25T20:00:00Z"},
                {"host", "bench"},
                {"ranks", 64},
                {"seed", seed}}},
              {"records", std::move(out)}}
      .dump();
}

fs::path fresh_db(const std::string& name) {
  fs::path path = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) {
    fs::remove(path.string() + suffix);
  }
  return path;
}

// Arguments: records, samples per record (both about 1 MB of JSON).
void BM_AddResult(benchmark::State& state) {
  const auto records = static_cast<std::size_t>(state.range(0));
  const auto samples = static_cast<std::size_t>(state.range(1));
  const fs::path db = fresh_db("history_bench_add");
  History history(db, HistoryOptions{std::chrono::milliseconds(10000), true});
  std::uint64_t seed = 0;
  std::size_t bytes = 0;
  std::size_t metrics = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::string text = sweep_text(records, samples, ++seed);
    bytes = text.size();
    state.ResumeTiming();
    // As `history add` does: the parsed result moves into the vector (an initializer list would copy it).
    std::vector<gridlock::model::ParsedResult> parsed;
    parsed.push_back(gridlock::model::parse_result(std::move(text), "bench.json"));
    metrics = parsed.front().metrics.size();
    benchmark::DoNotOptimize(history.add(parsed));
  }
  state.counters["json_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["metrics"] = static_cast<double>(metrics);
  fs::remove(db);
}
BENCHMARK(BM_AddResult)->Args({2500, 0})->Args({120, 1000})->Unit(benchmark::kMillisecond)->Iterations(20);

// The database's share alone: the transaction of one parsed result (parsing untimed).
void BM_StoreParsed(benchmark::State& state) {
  const fs::path db = fresh_db("history_bench_store");
  History history(db, HistoryOptions{std::chrono::milliseconds(10000), true});
  std::uint64_t seed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<gridlock::model::ParsedResult> parsed;
    parsed.push_back(
        gridlock::model::parse_result(sweep_text(static_cast<std::size_t>(state.range(0)),
                                                 static_cast<std::size_t>(state.range(1)), ++seed),
                                      "bench.json"));
    state.ResumeTiming();
    benchmark::DoNotOptimize(history.add(parsed));
  }
  fs::remove(db);
}
BENCHMARK(BM_StoreParsed)->Args({2500, 0})->Unit(benchmark::kMillisecond)->Iterations(20);

// Parsing and naming alone (no database), for the share of the add.
void BM_ParseResult(benchmark::State& state) {
  const std::string text =
      sweep_text(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)), 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(gridlock::model::parse_result(text, "bench.json"));
  }
  state.counters["json_MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ParseResult)->Args({2500, 0})->Args({120, 1000})->Unit(benchmark::kMillisecond);

// A trend of one metric over 10,000 runs of 70 records (490 metrics) each.
void BM_Trend(benchmark::State& state) {
  const auto runs = static_cast<std::size_t>(state.range(0));
  const fs::path db = fresh_db("history_bench_trend");
  History history(db, HistoryOptions{std::chrono::milliseconds(10000), true});
  std::vector<gridlock::model::ParsedResult> batch;
  for (std::size_t i = 0; i < runs; ++i) {
    batch.push_back(gridlock::model::parse_result(sweep_text(70, 0, i), "run.json"));
    if (batch.size() == 1000) {
      (void)history.add(batch);
      batch.clear();
    }
  }
  (void)history.add(batch);
  std::size_t points = 0;
  for (auto _ : state) {
    points = history.trend("sweep.allreduce.p2.1B.median").size();
    benchmark::DoNotOptimize(points);
  }
  state.counters["points"] = static_cast<double>(points);
  state.counters["db_MB"] = static_cast<double>(fs::file_size(db)) / 1e6;
  fs::remove(db);
}
BENCHMARK(BM_Trend)->Arg(10000)->Unit(benchmark::kMillisecond);

// regress of the newest of 11 runs of 2,500 records (17,500 metrics) against the 10 before it:
// the baseline read run by run.
void BM_Regress(benchmark::State& state) {
  const fs::path db = fresh_db("history_bench_regress");
  History history(db, HistoryOptions{std::chrono::milliseconds(10000), true});
  for (std::uint64_t i = 0; i < 11; ++i) {
    (void)history.add({gridlock::model::parse_result(sweep_text(2500, 0, i), "run.json")});
  }
  gridlock::model::RegressOptions options;
  options.baseline = gridlock::model::parse_baseline("last:10");
  std::size_t rows = 0;
  for (auto _ : state) {
    rows = history.regress(options).rows.size();
    benchmark::DoNotOptimize(rows);
  }
  state.counters["metrics"] = static_cast<double>(rows);
  fs::remove(db);
}
BENCHMARK(BM_Regress)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
