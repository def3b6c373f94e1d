#pragma once
/// @file
/// The JSON reporter of `gridlock schedule info --json` (schema gridlock.schedule.info version 2,
/// docs/formats/schedule-info-json.md).

#include <string>

#include "gridlock/core/output.hpp"
#include "gridlock/sim/schedule_info.hpp"

namespace gridlock::sim {

/// The context block of a summary: base_context(`tool`, schemas::kScheduleInfo) with the
/// schedule file, its source kind and its ranks.
[[nodiscard]] Json schedule_info_context(const std::string& tool, const std::string& file,
                                         const ScheduleInfo& info);

/// The `schedule` object of a summary (every field of ScheduleInfo; docs/formats/schedule-info-json.md).
[[nodiscard]] Json schedule_info_json(const ScheduleInfo& info);

/// Writes `{context, "schedule": schedule_info_json()}` to `path` atomically.
void write_schedule_info_json(const std::string& path, const Json& context, const ScheduleInfo& info);

}  // namespace gridlock::sim
