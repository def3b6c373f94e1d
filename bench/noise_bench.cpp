// Cost of noise injection (issue 5, §6): the same simulation without and with a dense noise
// pattern, side by side in one run (median of several runs each), and the time of a Monte-Carlo
// study of 1,000 replicas of a 4,096-rank dissemination on all cores.
//
//   noise_bench [ranks=65536] [runs=5] [replicas=1000] [replica_ranks=4096]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/rng.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/noise.hpp"
#include "gridlock/sim/replicas.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::uint64_t arg(int argc, char** argv, int i, std::uint64_t fallback) {
  return argc > i ? std::strtoull(argv[i], nullptr, 10) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  namespace gs = gridlock::sim;
  namespace gn = gridlock::noise;
  const auto ranks = static_cast<std::uint32_t>(arg(argc, argv, 1, 65536));
  const auto runs = static_cast<int>(arg(argc, argv, 2, 5));
  const std::uint64_t replicas = arg(argc, argv, 3, 1000);
  const auto replica_ranks = static_cast<std::uint32_t>(arg(argc, argv, 4, 4096));

  const gs::Schedule schedule = gs::generate("dissemination(size=8B)", ranks, 1);
  // Dense noise: 100,000 detours per second of 1 us on average (exponential), 10 s of them.
  const gn::DetourPattern dense =
      gn::DetourPattern::random(1e5, 1'000'000, true, 7, 10'000'000'000'000ULL, 1'000'000);
  const gs::NoiseInjection injection = gs::make_noise_injection(dense, ranks, 11, 0, false);
  // The same detours at the same phase on every rank: the event order stays that of the noiseless
  // run (all ranks in lock step), so this isolates what the injection itself costs.
  const gs::NoiseInjection cosched = gs::make_noise_injection(dense, ranks, 11, 0, true);
  std::vector<double> clean;
  std::vector<double> noisy;
  std::vector<double> lockstep;
  std::uint64_t events = 0;
  bool noisy_windowed = false;
  for (int r = 0; r < runs; ++r) {
    gs::SimOptions options;
    auto start = std::chrono::steady_clock::now();
    events = gs::simulate(schedule, options).events;
    clean.push_back(seconds_since(start));
    options.noise = &injection;
    start = std::chrono::steady_clock::now();
    noisy_windowed = gs::simulate(schedule, options).windowed;
    noisy.push_back(seconds_since(start));
    options.noise = &cosched;
    start = std::chrono::steady_clock::now();
    (void)gs::simulate(schedule, options);
    lockstep.push_back(seconds_since(start));
  }
  fmt::print("dissemination 8 B, {} ranks, {} events; dense noise: {} detours in {} s ({:.2f}% noise)\n",
             ranks, events, dense.size(), static_cast<double>(dense.period_ps()) / 1e12,
             100 * dense.noise_fraction());
  fmt::print("noiseless: median {:.3f} s of {} runs; noisy ({} order): median {:.3f} s; ratio {:.3f}\n",
             median(clean), runs, noisy_windowed ? "windowed" : "global", median(noisy),
             median(noisy) / median(clean));
  fmt::print("co-scheduled dense noise (same event order as noiseless): median {:.3f} s; ratio {:.3f}\n",
             median(lockstep), median(lockstep) / median(clean));

  const gs::Schedule small = gs::generate("dissemination(size=8B)", replica_ranks, 1);
  const gn::DetourPattern periodic = gn::DetourPattern::periodic(1'000'000'000, 100'000'000);
  gs::ReplicaConfig config;
  config.pattern = &periodic;
  config.seed = 3;
  config.threads = std::max(1U, std::thread::hardware_concurrency());
  const auto start = std::chrono::steady_clock::now();
  const auto times = gs::run_replicas(small, gs::SimOptions{}, config, 0, replicas);
  fmt::print(
      "{} replicas of a {}-rank dissemination with 1000 Hz x 100 us noise on {} threads: {:.2f} s "
      "(median completion {:.3f} us)\n",
      replicas, replica_ranks, config.threads, seconds_since(start),
      static_cast<double>(gs::box_stats(times).median) / 1e6);
  return 0;
}
