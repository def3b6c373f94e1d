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
/// `gridlock-bench congest` (docs/formats/bench-json.md, "congest").
inline constexpr Schema kBenchCongest{"gridlock.bench.congest", 1};
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
/// `gridlock schedule info --json` (2: renamed from `gridlock.schedule-info`).
inline constexpr Schema kScheduleInfo{"gridlock.schedule.info", 2};
/// `gridlock map --json`.
inline constexpr Schema kMap{"gridlock.map", 1};
/// `gridlock model fit --json` (read back by `--loggops-from` and `model check`).
inline constexpr Schema kModelFit{"gridlock.model.fit", 1};
/// `gridlock model check --json`.
inline constexpr Schema kModelCheck{"gridlock.model.check", 1};
/// `gridlock history trend --json|--csv`.
inline constexpr Schema kHistoryTrend{"gridlock.history.trend", 1};
/// `gridlock predict mapping --json` (2: renamed from `gridlock.predict_mapping`, LogGOPS
/// parameters spelled as `gridlock sim` spells them).
inline constexpr Schema kPredictMapping{"gridlock.predict.mapping", 2};
/// `gridlock predict traffic --json` (2: renamed from `gridlock.predict_traffic`).
inline constexpr Schema kPredictTraffic{"gridlock.predict.traffic", 2};
/// `gridlock predict systems --json`.
inline constexpr Schema kSystems{"gridlock.systems", 1};
/// A machine preset (`--system FILE.json`; share/gridlock/systems/), an input only.
inline constexpr Schema kSystem{"gridlock.system", 1};
/// The report of libgridlock-reorder.so (`GRIDLOCK_REORDER_REPORT`).
inline constexpr Schema kReorder{"gridlock.reorder", 1};
/// The context block embedded in a `gridlock report` page.
inline constexpr Schema kReport{"gridlock.report", 1};

/// All of them.
inline constexpr std::array kAll{
    kBench,          kBenchNoise,     kBenchCongest, kBenchSpmv, kSweep,    kNoiseMeasure, kNoiseTrace,
    kSimResult,      kSimReplicas,    kScheduleInfo, kMap,       kModelFit, kModelCheck,   kHistoryTrend,
    kPredictMapping, kPredictTraffic, kSystems,      kSystem,    kReorder,  kReport};

/// A name a format was written under before it was renamed. Readers still accept files that carry
/// it (history databases and users keep old results) and treat them as the renamed format.
struct Alias {
  std::string_view old_name;  ///< e.g. `gridlock.predict_mapping`.
  Schema current;             ///< The format it is now.
  int last_version = 0;       ///< The last version written under `old_name`.
};

/// Every old name, with the format it became.
inline constexpr std::array kAliases{Alias{"gridlock.schedule-info", kScheduleInfo, 1},
                                     Alias{"gridlock.predict_mapping", kPredictMapping, 1},
                                     Alias{"gridlock.predict_traffic", kPredictTraffic, 1}};
}  // namespace schemas

/// The name a reader dispatches on: the current name of a renamed format, else `name` itself.
[[nodiscard]] constexpr std::string_view canonical_schema_name(std::string_view name) noexcept {
  for (const schemas::Alias& a : schemas::kAliases) {
    if (a.old_name == name) {
      return a.current.name;
    }
  }
  return name;
}

/// The newest version a file naming its format `name` can have: the version this gridlock writes,
/// or for an old name the last version written under it; 0 for a name it does not know.
[[nodiscard]] constexpr int known_schema_version(std::string_view name) noexcept {
  for (const Schema& s : schemas::kAll) {
    if (s.name == name) {
      return s.version;
    }
  }
  for (const schemas::Alias& a : schemas::kAliases) {
    if (a.old_name == name) {
      return a.last_version;
    }
  }
  return 0;
}

}  // namespace gridlock
