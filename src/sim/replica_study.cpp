#include "gridlock/sim/replica_study.hpp"

#include <cstdlib>
#include <exception>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"

namespace gridlock::sim {

ThreadReplicaRunner::ThreadReplicaRunner(unsigned threads, std::string note)
    : threads_(threads), note_(std::move(note)) {
  check_thread_count(threads);
}

std::vector<std::uint64_t> ThreadReplicaRunner::run(const Schedule& schedule, const SimOptions& options,
                                                    const ReplicaConfig& config, std::uint64_t begin,
                                                    std::uint64_t end) {
  ReplicaConfig c = config;
  c.threads = threads_;
  if (progress) {
    const std::uint32_t ranks = schedule.num_ranks();
    const std::uint64_t total = end - begin;
    c.progress = [this, ranks, total](std::uint64_t done) { progress(ranks, done, total); };
  }
  return run_replicas(schedule, options, c, begin, end);
}

std::string ThreadReplicaRunner::where() const { return fmt::format("{} threads{}", threads_, note_); }

ReplicaStudy::ReplicaStudy(ReplicaStudySpec spec) : spec_(std::move(spec)) {
  if (spec_.program.empty() == spec_.schedule_path.empty()) {
    throw InputError("give either a schedule file or --program SPEC (with --ranks), not both or neither");
  }
  check_replica_count(spec_.replicas);
  check_bottleneck_threshold(spec_.bottleneck_threshold);
  if (spec_.noise.kind == noise::NoiseSpec::Kind::kNone) {
    throw InputError("a replica study needs noise");
  }
  if (!spec_.program.empty()) {
    if (spec_.scales.empty()) {
      throw InputError("--program needs --ranks N or a list N1,N2,...");
    }
    // Every scale's program (unknown steps, a root beyond the ranks) before anything is printed.
    for (const std::uint32_t ranks : spec_.scales) {
      check_program(spec_.program, ranks, spec_.seed);
    }
  } else {
    if (spec_.scales.size() > 1) {
      throw InputError(
          "a schedule file has one scale: use --program SPEC with --ranks P1,P2,... for several");
    }
    if (!spec_.scales.empty()) {
      throw InputError(fmt::format("--ranks is for --program: the schedule file {} sets its own rank count",
                                   spec_.schedule_path));
    }
    from_file_ = load_schedule(spec_.schedule_path);
    spec_.scales = {from_file_->num_ranks()};
  }
  pattern_ = noise::make_pattern(spec_.noise, derive_seed(spec_.seed, kNoiseSeedStream + 1));
}

namespace {

// GRIDLOCK_REPLICAS_FAIL=RANKS: the failure of a late scale, on demand, for tests of partial results.
void fail_if_injected(std::uint32_t ranks) {
  const char* value = std::getenv(kReplicasFailEnv);  // NOLINT(concurrency-mt-unsafe): main thread only
  if (value != nullptr && std::strtoull(value, nullptr, 10) == ranks) {
    throw InputError(fmt::format("{} ranks: failure injected by {}={}", ranks, kReplicasFailEnv, value));
  }
}

}  // namespace

ReplicaStudyResult ReplicaStudy::run(ReplicaRunner& runner,
                                     const std::vector<ReplicaReporter*>& reporters) const {
  ReplicaStudyResult result;
  result.scales_planned = spec_.scales.size();
  const auto tell = [&](const std::function<void(ReplicaReporter&)>& call) {
    runner.reporting_process([&] {
      for (ReplicaReporter* r : reporters) {
        call(*r);
      }
    });
  };
  ReplicaConfig config;
  config.pattern = &pattern_;
  config.seed = derive_seed(spec_.seed, kNoiseSeedStream);
  config.cosched = spec_.cosched;
  const ReplicaStudyInfo info{&spec_, &pattern_, spec_.scales, runner.where()};
  tell([&](ReplicaReporter& r) { r.study_started(info); });
  try {
    for (const std::uint32_t ranks : spec_.scales) {
      if (runner.reports()) {
        for (ReplicaReporter* r : reporters) {
          r->scale_started(ranks);
        }
      }
      // Every local step that can fail (memory, a deadlock, simulated time overflowing) goes
      // through the runner, which (under MPI) agrees on it before the next collective step.
      std::optional<Schedule> generated;
      runner.every_process([&] {
        fail_if_injected(ranks);
        if (!from_file_) {
          generated = generate(spec_.program, ranks, spec_.seed);
        }
      });
      const Schedule& schedule = from_file_ ? *from_file_ : *generated;
      // The noiseless run comes first, so that a stuck schedule is reported before any replica runs.
      std::uint64_t noiseless_ps = 0;
      runner.reporting_process([&] {
        const SimResult clean = simulate(schedule, spec_.options);
        if (!clean.complete) {
          throw InputError(stuck_report(clean));
        }
        noiseless_ps = clean.max_finish.ps;
      });
      std::vector<std::uint64_t> times = runner.run(schedule, spec_.options, config, 0, spec_.replicas);
      if (runner.reports()) {
        result.scales.push_back(ScaleResult{schedule.num_ranks(), noiseless_ps, std::move(times)});
        result.bottleneck = find_noise_bottleneck(result.scales, spec_.bottleneck_threshold);
      }
      tell([&](ReplicaReporter& r) { r.scale_finished(result); });
    }
  } catch (const std::exception& e) {
    result.reason = e.what();
    if (runner.reports()) {
      // The finished scales are written even so; a reporter failing again (a full disk) must not
      // hide the error that cut the study short.
      for (ReplicaReporter* r : reporters) {
        try {
          r->study_finished(result);
        } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): the first error is rethrown
        }
      }
    }
    throw;
  }
  result.complete = true;
  tell([&](ReplicaReporter& r) { r.study_finished(result); });
  return result;
}

}  // namespace gridlock::sim
