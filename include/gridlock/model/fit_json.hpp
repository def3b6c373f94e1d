#pragma once
/// @file
/// The fit file (schema `gridlock.model.fit` v1, docs/formats/fit-json.md): writing, reading back,
/// and answering "how long does op X of n bytes on p ranks take?" from it.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "gridlock/core/output.hpp"
#include "gridlock/model/fit.hpp"

namespace gridlock::model {

/// The body of a fit file (everything after the context block).
[[nodiscard]] Json fit_to_json(const FitResult& fit);

/// Reads a fit file's document back (`name` for messages). Throws InputError on another schema,
/// a missing field or a parameter that is not a finite number.
[[nodiscard]] FitResult fit_from_json(const Json& doc, std::string_view name);

/// Throws InputError (named `name`) when a value of `fit` lies outside the ranges fit_from_json()
/// accepts, so that `gridlock model fit --json` never writes a file `model predict` refuses.
void check_fit_in_range(const FitResult& fit, std::string_view name);

/// Reads the fit file at `path`. Throws IoError / InputError.
[[nodiscard]] FitResult load_fit(const std::filesystem::path& path);

/// A predicted time and how it was made.
struct Prediction {
  double time_us = 0;  ///< Predicted time.
  std::string model;   ///< `hockney`, `hockney segment 2/3`, `binomial`, `paper_fit`, ...
  std::string basis;   ///< Which series or size range, and any extrapolation.
};

/// Predicts op `op` at `size_bytes` (collectives: per rank) on `ranks` ranks. Point-to-point and
/// RMA ops use the series' segment containing the size (the robust line when no switch was
/// found); `pair_class` empty picks far, then router, then node. Collectives use the model that
/// fits best in the size range containing (or nearest to) the size. Throws InputError when the
/// fit has no such op.
[[nodiscard]] Prediction predict(const FitResult& fit, std::string_view op, std::uint64_t size_bytes,
                                 std::uint32_t ranks, std::string_view pair_class = "");

}  // namespace gridlock::model
