// Parsing of the tracer's environment. Hand-written rather than gridlock::core's parsers: the
// preloaded library must not pull core (and its dependencies) into every traced process.
#include "gridlock/trace/config.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "detail/functions.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock::trace {
namespace {

// Region order: src/trace/detail/functions.hpp indexes this table.
constexpr auto kFunctions = std::to_array<std::string_view>({"MPI_Init",
                                                             "MPI_Init_thread",
                                                             "MPI_Finalize",
                                                             "MPI_Abort",
                                                             "MPI_Send",
                                                             "MPI_Ssend",
                                                             "MPI_Bsend",
                                                             "MPI_Rsend",
                                                             "MPI_Recv",
                                                             "MPI_Isend",
                                                             "MPI_Issend",
                                                             "MPI_Irecv",
                                                             "MPI_Sendrecv",
                                                             "MPI_Probe",
                                                             "MPI_Iprobe",
                                                             "MPI_Wait",
                                                             "MPI_Waitall",
                                                             "MPI_Waitany",
                                                             "MPI_Waitsome",
                                                             "MPI_Test",
                                                             "MPI_Testall",
                                                             "MPI_Testany",
                                                             "MPI_Testsome",
                                                             "MPI_Barrier",
                                                             "MPI_Bcast",
                                                             "MPI_Reduce",
                                                             "MPI_Allreduce",
                                                             "MPI_Gather",
                                                             "MPI_Gatherv",
                                                             "MPI_Scatter",
                                                             "MPI_Scatterv",
                                                             "MPI_Allgather",
                                                             "MPI_Allgatherv",
                                                             "MPI_Alltoall",
                                                             "MPI_Alltoallv",
                                                             "MPI_Reduce_scatter",
                                                             "MPI_Reduce_scatter_block",
                                                             "MPI_Scan",
                                                             "MPI_Exscan",
                                                             "MPI_Comm_dup",
                                                             "MPI_Comm_split",
                                                             "MPI_Comm_split_type",
                                                             "MPI_Comm_create",
                                                             "MPI_Cart_create",
                                                             "MPI_Cart_sub",
                                                             "MPI_Graph_create",
                                                             "MPI_Comm_free",
                                                             "MPI_Send_init",
                                                             "MPI_Recv_init",
                                                             "MPI_Start",
                                                             "MPI_Startall",
                                                             "MPI_Sendrecv_replace",
                                                             "MPI_Ssend_init",
                                                             "MPI_Bsend_init",
                                                             "MPI_Rsend_init",
                                                             "MPI_Comm_create_group",
                                                             "MPI_Dist_graph_create_adjacent",
                                                             "MPI_Ibarrier",
                                                             "MPI_Ibcast",
                                                             "MPI_Ireduce",
                                                             "MPI_Iallreduce",
                                                             "MPI_Iallgather",
                                                             "MPI_Ialltoall"});
// Every region id has its name (and an entry left empty would be a compile error here).
static_assert(kFunctions.size() == static_cast<std::size_t>(detail::Fn::Count));

}  // namespace

std::span<const std::string_view> traced_functions() { return kFunctions; }

std::uint64_t parse_byte_count(std::string_view text, std::string_view what) {
  const std::string_view t = trim(text);
  const auto fail = [&] {
    return InputError(std::string(what) + ": '" + std::string(text) +
                      "' is not a byte count; write e.g. 4096, 64KiB, 100MB or 2GiB");
  };
  const auto number = parse_number_prefix<double>(t);
  if (!number || !std::isfinite(number->value) || number->value < 0) throw fail();
  const double value = number->value;
  std::string unit(trim(number->rest));
  std::transform(unit.begin(), unit.end(), unit.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  double scale = 1;
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else {
    const std::string_view prefixes = "KMGT";
    const auto pos = prefixes.find(unit[0]);
    if (pos == std::string_view::npos) throw fail();
    const std::string_view rest = std::string_view(unit).substr(1);
    double base = 0;
    if (rest.empty() || rest == "IB") {
      base = 1024;
    } else if (rest == "B") {
      base = 1000;
    } else {
      throw fail();
    }
    scale = std::pow(base, static_cast<double>(pos + 1));
  }
  const double bytes = value * scale;
  if (bytes >= 1.8e19) throw fail();
  return static_cast<std::uint64_t>(bytes);
}

std::vector<std::string> parse_filter(std::string_view list) {
  std::vector<std::string> names;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view item = trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (item.empty()) continue;
    if (std::find(kFunctions.begin(), kFunctions.end(), item) == kFunctions.end()) {
      throw InputError("GRIDLOCK_TRACE_FILTER: '" + std::string(item) +
                       "' is not an MPI function the tracer records; use C names such as "
                       "MPI_Iprobe,MPI_Test (docs/tracing.md lists them)");
    }
    names.emplace_back(item);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

TraceConfig config_from_values(const char* dir, const char* filter, const char* max_bytes) {
  TraceConfig config;
  if (dir != nullptr) {
    if (*dir == '\0') {
      throw InputError(
          "GRIDLOCK_TRACE_DIR is set but empty; unset it (./gridlock-trace) or name a directory");
    }
    config.dir = dir;
  }
  if (filter != nullptr) config.filter = parse_filter(filter);
  if (max_bytes != nullptr) config.max_bytes = parse_byte_count(max_bytes, "GRIDLOCK_TRACE_MAX_BYTES");
  return config;
}

}  // namespace gridlock::trace
