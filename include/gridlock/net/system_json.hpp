#pragma once
/// @file
/// The `system` object a run's JSON context carries when it ran on a preset (`--system`):
/// docs/formats/system-json.md.
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/net/system.hpp"

namespace gridlock::net {

/// name, title, file, nodes, network (canonical spec), values (every field's value as given in
/// the file, by path: `network`, `loggops.L`, ...), sources (every field's source, by path) and
/// notes (when the file has some).
[[nodiscard]] Json system_json(const SystemPreset& preset);

/// The context block of `gridlock predict systems --json`: the base context and the
/// `directories` searched (system_dirs()).
[[nodiscard]] Json systems_context();

/// Its body: `systems`, a list of name, title, nodes, network and file per preset.
[[nodiscard]] Json systems_body(const std::vector<SystemPreset>& systems);

}  // namespace gridlock::net
