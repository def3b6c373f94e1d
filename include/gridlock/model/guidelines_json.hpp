#pragma once
/// @file
/// The JSON form of a guideline check (`gridlock model check --json`, docs/model.md).

#include "gridlock/core/output.hpp"
#include "gridlock/model/guidelines.hpp"

namespace gridlock::model {

/// The report as JSON (`level`, `tolerance`, `seed`, `resamples`, `violations`, `results`,
/// `not_checked`).
[[nodiscard]] Json check_to_json(const CheckReport& report, const CheckOptions& options);

}  // namespace gridlock::model
