// Cost of the canary bookkeeping per timed iteration: one MPI_Wtime call (each iteration's end
// is the next one's start) and one LogHistogram::record, exactly as in gridlock-bench's
// measurement loop, with an empty kernel.
// Run: mpiexec -n 1 build/release/bench/bench_overhead --benchmark_repetitions=5
#include <mpi.h>

#include <benchmark/benchmark.h>

#include "gridlock/core/histogram.hpp"

namespace {

void BM_TimedIterationBookkeeping(benchmark::State& state) {
  gridlock::LogHistogram histogram;
  double previous = MPI_Wtime();
  for (auto _ : state) {
    benchmark::ClobberMemory();  // stands in for the kernel
    const double now = MPI_Wtime();
    histogram.record((now - previous) * 1e6 / 2.0);
    previous = now;
  }
  benchmark::DoNotOptimize(histogram.count());
  state.counters["histogram_bytes"] =
      static_cast<double>(gridlock::LogHistogram::kBucketCount * sizeof(std::uint64_t));
}
BENCHMARK(BM_TimedIterationBookkeeping);

void BM_MpiWtime(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(MPI_Wtime());
  }
}
BENCHMARK(BM_MpiWtime);

void BM_HistogramRecord(benchmark::State& state) {
  gridlock::LogHistogram histogram;
  double value = 1.0;
  for (auto _ : state) {
    histogram.record(value);
    value = value * 1.0001 + 0.001;  // walk through many buckets
  }
  benchmark::DoNotOptimize(histogram.count());
}
BENCHMARK(BM_HistogramRecord);

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
