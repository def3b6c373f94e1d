// libFuzzer target for the GOAL text parser and the binary schedule reader: any input must either
// be rejected with InputError or give a schedule that writes and re-reads to the same schedule, and
// a binary one must read the same on one thread and on several.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gridlock/core/error.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/goal.hpp"

namespace {

// Reading a binary schedule on several threads must give what one thread gives: the same
// schedule, or the same error message.
void check_threaded_read(std::string_view input, std::uint32_t max_ranks) {
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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    const bool binary = input.substr(0, gridlock::sim::kBinaryMagic.size()) == gridlock::sim::kBinaryMagic;
    // Memory grows with the number of ranks a file claims: bound it for the fuzzer.
    constexpr std::uint32_t kMaxRanks = 1U << 16U;
    if (binary) {
      check_threaded_read(input, kMaxRanks);
    }
    const gridlock::sim::Schedule schedule = binary
                                                 ? gridlock::sim::read_binary(input, "fuzz", kMaxRanks)
                                                 : gridlock::sim::parse_goal(input, "fuzz", true, kMaxRanks);
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
      (void)gridlock::sim::simulate(schedule, gridlock::sim::SimOptions{});
    }
  } catch (const gridlock::InputError&) {
    // Rejected with a message: the expected outcome for bad input.
  }
  return 0;
}
