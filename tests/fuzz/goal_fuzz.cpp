// libFuzzer target for the GOAL text parser and the binary schedule reader: any input must either
// be rejected with InputError or give a schedule that writes and re-reads to the same schedule, and
// a binary one must read the same on one thread and on several. Its summary (`gridlock schedule
// info`) must count what the schedule holds and agree with the simulator about unmatched messages.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gridlock/core/error.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/schedule_info.hpp"

namespace {

// Reads a binary schedule on one thread and on three: both must give the same schedule or the
// same error message. Returns the schedule, or nothing if the input was rejected.
std::optional<gridlock::sim::Schedule> read_binary_both_ways(std::string_view input,
                                                             std::uint32_t max_ranks) {
  std::string single;
  std::string threaded;
  gridlock::sim::Schedule one;
  gridlock::sim::Schedule three;
  try {
    one = gridlock::sim::read_binary(input, "fuzz", max_ranks, 1);
  } catch (const gridlock::InputError& e) {
    single = e.what();
  }
  try {
    three = gridlock::sim::read_binary(input, "fuzz", max_ranks, 3);
  } catch (const gridlock::InputError& e) {
    threaded = e.what();
  }
  if (single != threaded || (single.empty() && !one.same_as(three))) {
    std::abort();
  }
  if (!single.empty()) {
    return std::nullopt;
  }
  return one;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    const bool binary = input.substr(0, gridlock::sim::kBinaryMagic.size()) == gridlock::sim::kBinaryMagic;
    // Memory grows with the number of ranks a file claims: bound it for the fuzzer.
    constexpr std::uint32_t kMaxRanks = 1U << 16U;
    gridlock::sim::Schedule schedule;
    if (binary) {
      std::optional<gridlock::sim::Schedule> read = read_binary_both_ways(input, kMaxRanks);
      if (!read) {
        return 0;  // rejected with the same message on one thread and on three
      }
      schedule = std::move(*read);
    } else {
      schedule = gridlock::sim::parse_goal(input, "fuzz", true, kMaxRanks);
    }
    if (schedule.total_ops() > 10000) {
      return 0;
    }
    const gridlock::sim::Schedule text =
        gridlock::sim::parse_goal(gridlock::sim::write_goal(schedule), "fuzz");
    const gridlock::sim::Schedule bin =
        gridlock::sim::read_binary(gridlock::sim::write_binary(schedule), "fuzz");
    if (!schedule.same_as(text) || !schedule.same_as(bin)) {
      std::abort();  // round trip changed the schedule
    }
    if (schedule.total_ops() <= 200) {
      gridlock::sim::SimOptions options;
      options.event_order = gridlock::sim::EventOrder::kGlobal;
      const gridlock::sim::SimResult global = gridlock::sim::simulate(schedule, options);
      options.event_order = gridlock::sim::EventOrder::kWindowed;
      const gridlock::sim::SimResult windowed = gridlock::sim::simulate(schedule, options);
      if (windowed.finish != global.finish || windowed.events != global.events ||
          windowed.ops_completed != global.ops_completed ||
          windowed.unexpected_left != global.unexpected_left) {
        std::abort();  // the windowed order changed a result
      }
      const gridlock::sim::ScheduleInfo info = gridlock::sim::summarize(schedule);
      if (info.operations != schedule.total_ops() || info.sends.total != schedule.total_sends()) {
        std::abort();  // the summary miscounted
      }
      // Without wildcard receives the matching check is exact: a schedule with messages left over
      // cannot complete. (With wildcards its greedy order may miss a matching; documented.)
      const bool wildcards = info.any_source_recvs != 0 || info.any_tag_recvs != 0;
      if (!wildcards && global.complete && info.unmatched_sends + info.unmatched_recvs != 0) {
        std::abort();  // the summary reported unmatched messages in a schedule that completes
      }
    }
  } catch (const gridlock::InputError&) {
    // Rejected with a message: the expected outcome for bad input.
  }
  return 0;
}
