// libFuzzer target for the small input languages users type or feed in besides GOAL: noise traces
// (three formats), --noise-periodic/--noise-random specs, sizes, durations and times, and program
// specs (gridlock sim --program), task-graph specs of the generated kinds (stencil3d, stencil2d,
// alltoall) and Slurm hostlists. Any input must be rejected with InputError or accepted; an
// accepted trace must write and re-read to the same detours, an accepted task graph must keep its
// invariants and come back from its canonical spec, an accepted hostlist must give names.
//
// The first byte picks the parser, the rest is its text (seed corpus: tests/fuzz/inputs-corpus).
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/mapping/task_graph.hpp"
#include "gridlock/noise/pattern.hpp"
#include "gridlock/noise/trace.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/topo/spec.hpp"

namespace {

namespace noise = gridlock::noise;

// Parses `text` as a trace in `format`; an accepted trace must validate, and must come back
// unchanged from gridlock's own format.
void fuzz_trace(std::string_view text, noise::TraceFormat format) {
  const noise::NoiseTrace trace = noise::parse_trace(text, format, "fuzz");
  noise::NoiseTrace again;
  try {
    noise::validate_trace(trace, "fuzz");
    again = noise::parse_trace(noise::format_trace(trace, noise::TraceFormat::kGridlock),
                               noise::TraceFormat::kGridlock, "fuzz");
  } catch (const gridlock::InputError&) {
    std::abort();  // an accepted trace failed to validate or to re-read
  }
  if (again.detours != trace.detours || again.duration_ns != trace.duration_ns ||
      again.detours_not_listed != trace.detours_not_listed) {
    std::abort();  // the round trip through gridlock's format changed the trace
  }
}

// Parses a noise spec; an accepted one must describe itself and build its pattern.
void fuzz_noise_spec(std::string_view text, bool random) {
  const noise::NoiseSpec spec = random ? noise::parse_random_spec(text) : noise::parse_periodic_spec(text);
  const noise::DetourPattern pattern = noise::make_pattern(spec, 1);
  if (noise::describe(spec, pattern).empty()) {
    std::abort();
  }
}

// Parses sizes and times; a time that parses must format to text that parses.
void fuzz_units(std::string_view text) {
  try {
    (void)gridlock::parse_byte_size(text);
  } catch (const gridlock::InputError&) {
  }
  try {
    (void)gridlock::parse_duration_seconds(text);
  } catch (const gridlock::InputError&) {
  }
  const std::uint64_t ps = gridlock::parse_time_ps(text);
  (void)gridlock::parse_time_ps(gridlock::format_time_ps(ps));
}

namespace mapping = gridlock::mapping;

// Largest graph built per input, so an input costs milliseconds and little memory: stencils of
// up to 4096 tasks (about 25,000 messages), all-to-alls of up to 512 (about 260,000).
constexpr std::uint64_t kMaxFuzzStencilTasks = 4096;
constexpr std::uint64_t kMaxFuzzAlltoallTasks = 512;

// An accepted graph: sorted unique pairs, no self messages, positive bytes, ids in range, at least
// one message, coordinates for every stencil task; its canonical spec gives the same graph.
void check_graph(const mapping::TaskGraph& g, bool again) {
  if (g.num_tasks == 0 || g.num_tasks > mapping::kMaxTasks || g.messages.empty()) {
    std::abort();
  }
  for (std::size_t i = 0; i < g.messages.size(); ++i) {
    const mapping::Message& m = g.messages[i];
    if (m.src >= g.num_tasks || m.dst >= g.num_tasks || m.src == m.dst || m.bytes == 0) {
      std::abort();
    }
    if (i > 0) {
      const mapping::Message& p = g.messages[i - 1];
      if (!(p.src < m.src || (p.src == m.src && p.dst < m.dst))) {
        std::abort();  // unsorted or a repeated pair
      }
    }
  }
  if (!g.coords.empty() && g.coords.size() != g.num_tasks) {
    std::abort();
  }
  if (again) {
    mapping::TaskGraph back;
    try {
      back = mapping::parse_task_graph(g.spec);
    } catch (const gridlock::InputError&) {
      std::abort();  // the canonical spec of an accepted graph was refused
    }
    if (back.spec != g.spec || back.num_tasks != g.num_tasks || back.messages != g.messages) {
      std::abort();
    }
  }
}

// Tasks the shape of a generated spec asks for (saturating), or 0 when the parser will refuse the
// shape anyway (not numbers, a zero): then the spec is parsed as it is, nothing gets built.
std::uint64_t requested_tasks(std::string_view shape) {
  std::uint64_t product = 1;
  for (const std::string_view part : gridlock::split(shape, 'x')) {
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc{} || ptr != part.data() + part.size() || value == 0) {
      return 0;
    }
    product = value > UINT64_MAX / product ? UINT64_MAX : product * value;
  }
  return product;
}

// Task-graph specs of the generated kinds (files are not fuzzed: the fuzzer would open any path).
// A shape too large to build cheaply but within kMaxTasks is replaced by 3 per dimension, so the
// options after it are still parsed; shapes beyond kMaxTasks go to the parser as they are (it
// must refuse them before building anything).
void fuzz_task_graph(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || text.starts_with("matrix:") || text.starts_with("goal:")) {
    if (colon != std::string_view::npos) {
      return;
    }
    (void)mapping::parse_task_graph(text);
    std::abort();  // no ':' must be refused
  }
  const std::string_view kind = text.substr(0, colon);
  const std::string_view rest = text.substr(colon + 1);
  const std::string_view shape = rest.substr(0, rest.find(','));
  const std::uint64_t tasks = requested_tasks(shape);
  const std::uint64_t cheap = kind == "alltoall" ? kMaxFuzzAlltoallTasks : kMaxFuzzStencilTasks;
  // An all-to-all above 16,384 tasks is refused before building: it goes to the parser as it is.
  const bool refused = kind == "alltoall" && tasks > 16384;
  std::string spec(text);
  if (tasks > cheap && tasks <= mapping::kMaxTasks && !refused) {
    std::string small;
    for (std::size_t i = 0; i < gridlock::split(shape, 'x').size(); ++i) {
      small += i == 0 ? "3" : "x3";
    }
    spec = std::string(kind) + ":" + small + std::string(rest.substr(shape.size()));
  }
  check_graph(mapping::parse_task_graph(spec), true);
}

// Hostlists: an accepted one gives 1 .. kMaxAllocationNodes names of 1 .. 255 characters without
// separators; resolved against a small torus, an allocation has one distinct node per name.
void fuzz_hostlist(std::string_view text, std::uint32_t cores) {
  const std::vector<std::string> names = mapping::expand_hostlist(text);
  if (names.empty() || names.size() > mapping::kMaxAllocationNodes) {
    std::abort();
  }
  for (const std::string& name : names) {
    if (name.empty() || name.size() > 255 || name.find_first_of(", \t\r\n[]") != std::string::npos) {
      std::abort();
    }
  }
  if (names.size() > 256) {
    return;
  }
  static const std::unique_ptr<gridlock::topo::Topology> kTorus =
      gridlock::topo::make_topology("torus:2x2x8");
  const mapping::Allocation a = mapping::make_allocation(*kTorus, names, cores);
  std::vector<bool> seen(kTorus->nodes().size());
  if (a.nodes.size() != names.size() || a.cores_per_node != cores) {
    std::abort();
  }
  for (const auto node : a.nodes) {
    if (node >= seen.size() || seen[node]) {
      std::abort();
    }
    seen[node] = true;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) {
    return 0;
  }
  const std::uint8_t which = data[0];
  // Ranks for program specs: 1 .. 65,536, from two bytes (checking is cheap at any scale).
  const std::uint32_t ranks = 1U + (static_cast<std::uint32_t>(data[1]) | (std::uint32_t{data[2]} << 8U));
  const std::string_view text(reinterpret_cast<const char*>(data) + 3, size - 3);
  try {
    switch (which % 10) {
      case 0:
        fuzz_trace(text, noise::TraceFormat::kAuto);
        break;
      case 1:
        fuzz_trace(text, noise::TraceFormat::kGridlock);
        break;
      case 2:
        fuzz_trace(text, noise::TraceFormat::kNetgauge);
        break;
      case 3:
        fuzz_trace(text, noise::TraceFormat::kLoggopsim);
        break;
      case 4:
        fuzz_noise_spec(text, false);
        break;
      case 5:
        fuzz_noise_spec(text, true);
        break;
      case 6:
        fuzz_units(text);
        break;
      case 7:
        gridlock::sim::check_program(text, ranks, 1);
        break;
      case 8:
        fuzz_task_graph(text);
        break;
      default:
        // Cores per node 0 .. 255 (0 must be refused).
        fuzz_hostlist(text, data[1]);
        break;
    }
  } catch (const gridlock::InputError&) {
    // Rejected with a message: the expected outcome for bad input.
  }
  return 0;
}
