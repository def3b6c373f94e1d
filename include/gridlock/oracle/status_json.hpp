#pragma once
/// @file
/// JSON forms of the oracle's source status and health, as `/v1/health` serves them (docs/oracle.md).

#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/oracle/service.hpp"
#include "gridlock/oracle/sources.hpp"

namespace gridlock::oracle {

/// A status value: a number, a boolean, a string or an array of strings.
[[nodiscard]] Json to_json(const StatusValue& value);

/// `{"kind": ..., then every field in order}`.
[[nodiscard]] Json to_json(const SourceStatus& status);

/// `{"source", "polls", "errors", "ok", "error" (only if there is one), "status" (only if there is one)}`.
[[nodiscard]] Json to_json(const SourceHealth& health);

/// An array of to_json(health), in order.
[[nodiscard]] Json to_json(const std::vector<SourceHealth>& health);

}  // namespace gridlock::oracle
