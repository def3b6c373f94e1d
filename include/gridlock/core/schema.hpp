#pragma once
/// @file
/// The one registry of result formats: every file gridlock writes names its format in the context
/// block (`"schema"`, `"schema_version"`; core/output.hpp's base_context()), and every reader
/// (`gridlock report`, `gridlock history`, `gridlock model`) recognises it by the same constant.
/// docs/formats/ describes each one.
#include <array>
#include <string_view>

namespace gridlock {

/// A result format: the name its context block carries and the version this gridlock writes.
struct Schema {
  std::string_view name;  ///< e.g. `gridlock.sweep`.
  int version = 0;        ///< Raised whenever the format changes (docs/formats/ says how).
};

/// Every format gridlock writes or reads, by the tool that writes it.
namespace schemas {
/// `gridlock-bench load|network` and `gridlock predict gpcnet`.
inline constexpr Schema kBench{"gridlock.bench", 1};
/// `gridlock-bench noise`.
inline constexpr Schema kBenchNoise{"gridlock.bench.noise", 1};
/// `gridlock-bench spmv`.
inline constexpr Schema kBenchSpmv{"gridlock.bench.spmv", 1};
/// `gridlock-bench sweep` (2: record status and error, file status and reason;
/// docs/formats/sweep-json.md).
inline constexpr Schema kSweep{"gridlock.sweep", 2};
/// `gridlock noise measure`.
inline constexpr Schema kNoiseMeasure{"gridlock.noise.measure", 1};
/// A noise trace (`gridlock noise convert`; `gridlock report` reads the text form as this).
inline constexpr Schema kNoiseTrace{"gridlock.noise.trace", 1};
/// `gridlock sim --json`.
inline constexpr Schema kSimResult{"gridlock.sim.result", 1};
/// `gridlock sim --replicas`, `gridlock-bench sim-replicas`.
inline constexpr Schema kSimReplicas{"gridlock.sim.replicas", 3};
/// `gridlock schedule info --json`.
inline constexpr Schema kScheduleInfo{"gridlock.schedule-info", 1};
/// `gridlock map --json`.
inline constexpr Schema kMap{"gridlock.map", 1};
/// `gridlock model fit --json` (read back by `--loggops-from` and `model check`).
inline constexpr Schema kModelFit{"gridlock.model.fit", 1};
/// `gridlock model check --json`.
inline constexpr Schema kModelCheck{"gridlock.model.check", 1};
/// `gridlock history trend --json|--csv`.
inline constexpr Schema kHistoryTrend{"gridlock.history.trend", 1};
/// `gridlock predict mapping --json`.
inline constexpr Schema kPredictMapping{"gridlock.predict_mapping", 1};
/// `gridlock predict traffic --json`.
inline constexpr Schema kPredictTraffic{"gridlock.predict_traffic", 1};
/// `gridlock predict systems --json`.
inline constexpr Schema kSystems{"gridlock.systems", 1};
/// A machine preset (`--system FILE.json`; share/gridlock/systems/), an input only.
inline constexpr Schema kSystem{"gridlock.system", 1};
/// The context block embedded in a `gridlock report` page.
inline constexpr Schema kReport{"gridlock.report", 1};

/// All of them.
inline constexpr std::array kAll{kBench,      kBenchNoise, kBenchSpmv,    kSweep,          kNoiseMeasure,
                                 kNoiseTrace, kSimResult,  kSimReplicas,  kScheduleInfo,   kMap,
                                 kModelFit,   kModelCheck, kHistoryTrend, kPredictMapping, kPredictTraffic,
                                 kSystems,    kSystem,     kReport};
}  // namespace schemas

/// The version of the format `name` this gridlock writes; 0 for a name it does not know.
[[nodiscard]] constexpr int known_schema_version(std::string_view name) noexcept {
  for (const Schema& s : schemas::kAll) {
    if (s.name == name) {
      return s.version;
    }
  }
  return 0;
}

}  // namespace gridlock
