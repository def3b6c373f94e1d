// libFuzzer target for what `gridlock model` and `gridlock history` read: sweep files (then fitted
// and checked against the guidelines), fit files (then predicted from), any result JSON named into
// history metrics, metric names and --baseline specs. Any input must be rejected with InputError
// or accepted; an accepted sweep's fit must be finite (its fit file must read back: the reader
// refuses NaN and infinities) and every prediction from it finite.
//
// The first byte picks the reader, the rest is its text (seed corpus: tests/fuzz/model-corpus).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/model/fit.hpp"
#include "gridlock/model/fit_json.hpp"
#include "gridlock/model/guidelines.hpp"
#include "gridlock/model/history.hpp"
#include "gridlock/model/sweep.hpp"

namespace {

namespace model = gridlock::model;

// Predictions at a few sizes and rank counts from an accepted fit: finite or InputError.
void predict_all(const model::FitResult& fit) {
  for (const char* op : {"pingpong", "bw_uni", "put_passive", "allreduce", "bcast", "alltoall"}) {
    for (const std::uint64_t size : {std::uint64_t{0}, std::uint64_t{8}, std::uint64_t{1} << 20}) {
      try {
        const model::Prediction p = model::predict(fit, op, size, 64);
        if (!std::isfinite(p.time_us)) {
          std::abort();  // a prediction that is not a number
        }
      } catch (const gridlock::InputError&) {
        // the fit has no such op
      }
    }
  }
}

void fuzz_sweep(std::string_view text) {
  model::Sweep sweep = model::parse_sweep(text, "fuzz");
  const model::FitResult fit = model::fit_sweep(sweep);
  // The body as `gridlock model fit --json` writes it, behind the context block the CLI adds.
  gridlock::Json doc = gridlock::base_context("gridlock model fit", gridlock::schemas::kModelFit);
  doc = gridlock::Json{{"context", doc}};
  doc.update(model::fit_to_json(fit));
  model::FitResult again;
  try {
    again = model::fit_from_json(gridlock::Json::parse(doc.dump()), "fuzz");
  } catch (const gridlock::InputError&) {
    std::abort();  // the fit of an accepted sweep wrote a file its own reader refuses
  }
  predict_all(again);
  try {
    (void)model::check_guidelines(sweep, model::CheckOptions{});
  } catch (const gridlock::InputError&) {
    // no guideline could be checked on this sweep
  }
}

void fuzz_fit_file(std::string_view text) {
  gridlock::Json doc;
  try {
    doc = gridlock::Json::parse(text);
  } catch (const gridlock::Json::exception&) {
    return;  // not JSON: the reader's caller reports it
  }
  predict_all(model::fit_from_json(doc, "fuzz"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) {
    return 0;
  }
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 5) {
      case 0:
        fuzz_sweep(text);
        break;
      case 1:
        fuzz_fit_file(text);
        break;
      case 2:
        (void)model::result_metrics(text, "fuzz");
        break;
      case 3:
        (void)model::canonical_metric_name(text);
        break;
      default:
        (void)model::parse_baseline(text);
        break;
    }
  } catch (const gridlock::InputError&) {
    // rejected with a message: fine
  }
  return 0;
}
