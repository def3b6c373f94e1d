// Simulator performance (issue 3): generation, event loop, text parse, binary load.
// Run: build/release/bench/sim_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gridlock/core/rng.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/noise.hpp"

namespace {

using gridlock::sim::Schedule;

const Schedule& dissemination(std::uint32_t ranks) {
  static std::map<std::uint32_t, Schedule> cache;
  auto it = cache.find(ranks);
  if (it == cache.end()) {
    it = cache.emplace(ranks, gridlock::sim::generate("dissemination(size=8B)", ranks, 1)).first;
  }
  return it->second;
}

// Event loop only, 2^10 .. 2^20 ranks; reports events per second.
void BM_SimulateDissemination(benchmark::State& state) {
  const Schedule& s = dissemination(static_cast<std::uint32_t>(state.range(0)));
  std::uint64_t events = 0;
  for (auto _ : state) {
    const auto r = gridlock::sim::simulate(s, gridlock::sim::SimOptions{});
    events += r.events;
    benchmark::DoNotOptimize(r.max_finish);
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
// The first noise cursor of 65,536 ranks in the dense pattern of noise_bench (1,000,376 detours,
// 16 MB): a binary search per rank (arg 0, what each rank's first CPU work did before) or one
// sweep for all (arg 1, DetourPattern::cursors_at, what the engine does).
void BM_NoiseFirstCursors(benchmark::State& state) {
  namespace gn = gridlock::noise;
  static const gn::DetourPattern dense =
      gn::DetourPattern::random(1e5, 1'000'000, true, 7, 10'000'000'000'000ULL, 1'000'000);
  constexpr std::uint32_t kRanks = 65536;
  const gridlock::sim::NoiseInjection injection =
      gridlock::sim::make_noise_injection(dense, kRanks, 11, 0, false);
  const bool together = state.range(0) != 0;
  for (auto _ : state) {
    std::vector<gn::DetourPattern::Cursor> cursors =
        together ? dense.cursors_at(injection.offset_ps) : std::vector<gn::DetourPattern::Cursor>(kRanks);
    std::uint64_t sum = 0;
    for (std::uint32_t r = 0; r < kRanks; ++r) {
      sum += dense.finish(0, 1000, injection.offset_ps[r], cursors[r]);
    }
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_NoiseFirstCursors)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_SimulateDissemination)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 20)
    ->Unit(benchmark::kMillisecond);

// The headline figure: 2^20-rank 8-byte dissemination generated in memory and simulated.
void BM_Dissemination1MEndToEnd(benchmark::State& state) {
  for (auto _ : state) {
    const Schedule s = gridlock::sim::generate("dissemination(size=8B)", 1U << 20U, 1);
    const auto r = gridlock::sim::simulate(s, gridlock::sim::SimOptions{});
    benchmark::DoNotOptimize(r.max_finish);
  }
}
BENCHMARK(BM_Dissemination1MEndToEnd)->Iterations(1)->Unit(benchmark::kSecond);

// 1,024-rank pipelined chain broadcast with 1023 * 9776 = 10,000,848 messages (simulation only).
void BM_ChainBroadcast10M(benchmark::State& state) {
  const Schedule s = gridlock::sim::generate("bcast(algo=chain, size=9776B, segment=1B)", 1024, 1);
  std::uint64_t messages = 0;
  for (auto _ : state) {
    const auto r = gridlock::sim::simulate(s, gridlock::sim::SimOptions{});
    messages += r.messages;
    benchmark::DoNotOptimize(r.max_finish);
  }
  state.counters["messages"] = static_cast<double>(messages) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ChainBroadcast10M)->Iterations(1)->Unit(benchmark::kSecond);

void parse_text(benchmark::State& state, bool keep_sources) {
  const std::string text = gridlock::sim::write_goal(dissemination(1U << 16U));
  for (auto _ : state) {
    benchmark::DoNotOptimize(gridlock::sim::parse_goal(text, "bench.goal", keep_sources));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}
void BM_ParseText(benchmark::State& state) { parse_text(state, false); }
BENCHMARK(BM_ParseText)->Unit(benchmark::kMillisecond);
// As gridlock sim reads a file: with every op's line and label kept for stuck-operation reports.
void BM_ParseTextKeepingSources(benchmark::State& state) { parse_text(state, true); }
BENCHMARK(BM_ParseTextKeepingSources)->Unit(benchmark::kMillisecond);

// File shape counters for the binary load benchmarks: bytes per stored op say how compact the
// encoding is, and ops per second compare runs whose encodings differ in size.
void report_program_shape(benchmark::State& state, const Schedule& schedule, std::size_t file_bytes) {
  // The ops the file stores: those of each distinct (program, peers) pair.
  std::uint64_t stored_ops = 0;
  for (const std::uint32_t r : schedule.programs_with_peers().first_rank) {
    stored_ops += schedule.program_of(r).ops.size();
  }
  state.counters["bytes_per_op"] = static_cast<double>(file_bytes) / static_cast<double>(stored_ops);
  state.counters["ops_per_s"] = benchmark::Counter(
      static_cast<double>(stored_ops) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// Times read_binary of `schedule`'s binary file; the counters are per stored op.
void load_binary(benchmark::State& state, const Schedule& schedule) {
  const std::string bytes = gridlock::sim::write_binary(schedule);
  for (auto _ : state) {
    benchmark::DoNotOptimize(gridlock::sim::read_binary(bytes));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes.size()));
  report_program_shape(state, schedule, bytes.size());
}

void BM_LoadBinary(benchmark::State& state) {
  // Random rings: every rank has its own program, so the file is not dominated by sharing.
  const Schedule schedule = gridlock::sim::generate("4x[randomring(size=8B)]", 1U << 16U, 1);
  load_binary(state, schedule);
}
// Loading decodes on several threads: wall-clock time, not the main thread's CPU time.
BENCHMARK(BM_LoadBinary)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_LoadBinaryLargePrograms(benchmark::State& state) {
  // 256 programs of about 5,000 ops each that differ only in their peers (one shape in memory).
  const Schedule schedule = gridlock::sim::generate("1000x[randomring(size=8B)]", 256, 1);
  load_binary(state, schedule);
}
BENCHMARK(BM_LoadBinaryLargePrograms)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_LoadBinaryDistinctShapes(benchmark::State& state) {
  // 256 programs of 5,000 ops that differ in sizes and dependencies, not only in peers (like a
  // traced application): the reader decodes, checks and keeps every one of them in full.
  constexpr std::uint32_t kRanks = 256;
  constexpr std::uint32_t kPairs = 2500;
  gridlock::Rng rng(7);
  gridlock::sim::ScheduleBuilder builder(kRanks);
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    builder.begin_rank(r);
    std::uint32_t previous = 0;
    for (std::uint32_t i = 0; i < kPairs; ++i) {
      const std::uint64_t bytes = 1 + gridlock::uniform_below(rng, 100000);
      const std::uint32_t send = builder.send(bytes, (r + 1) % kRanks);
      const std::uint32_t recv = builder.recv(bytes, (r + kRanks - 1) % kRanks);
      if (i > 0) {
        builder.add_requires(send, previous);
      }
      previous = gridlock::uniform_below(rng, 2) == 0 ? send : recv;
    }
    builder.end_rank();
  }
  const Schedule schedule = builder.finish();
  load_binary(state, schedule);
}
BENCHMARK(BM_LoadBinaryDistinctShapes)->UseRealTime()->Unit(benchmark::kMillisecond);

// load_schedule end to end (file read from the page cache, then decode) of BM_LoadBinary's
// schedule: compare with reading the same file cold from disk (docs/performance.md).
void BM_LoadScheduleFile(benchmark::State& state) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "gridlock_sim_bench.gsched";
  gridlock::sim::save_schedule(gridlock::sim::generate("4x[randomring(size=8B)]", 1U << 16U, 1), path);
  const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
  for (auto _ : state) {
    benchmark::DoNotOptimize(gridlock::sim::load_schedule(path));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * size);
  std::filesystem::remove(path);
}
BENCHMARK(BM_LoadScheduleFile)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
