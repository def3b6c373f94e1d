#pragma once
/// @file
/// What a run on a simulated network did to the network (`gridlock sim --network`;
/// docs/network-models.md, "Using the models"): per-link utilisation over the run, the busiest
/// links, a utilisation histogram and the messages' slowdown against the contention-free time.
/// The JSON form is in report_json.hpp.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gridlock/net/network.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::net {

/// Bins of the utilisation histogram: 0-10%, 10-20%, ..., 90-100% of a link's capacity.
inline constexpr std::size_t kUtilisationBins = 10;
/// Links listed in NetReport::top_links unless asked otherwise.
inline constexpr std::size_t kDefaultTopLinks = 10;

/// One link's share of a run.
struct LinkUse {
  topo::LinkId link = 0;                           ///< The link's id in the whole topology.
  std::string name;                                ///< topo::Topology::link_name().
  topo::LinkKind kind = topo::LinkKind::kNetwork;  ///< Network, injection or ejection.
  double bytes = 0;                                ///< Bytes it carried.
  double utilisation = 0;                          ///< bytes / (capacity x makespan), 0..1.
};

/// Summary of the per-message slowdown (transfer time over the time alone on the network).
struct SlowdownSummary {
  std::uint64_t count = 0;  ///< Messages with a slowdown (crossed a link with more than one byte).
  double mean = 0;          ///< Mean (0 when count is 0).
  double p50 = 0;           ///< Median (LogHistogram, within 0.4%; 0 when count is 0).
  double p99 = 0;           ///< 99th percentile (as p50).
  double max = 0;           ///< Largest (exact; 0 when count is 0).
};

/// What a run did to the network.
struct NetReport {
  std::string model;                   ///< `flow` or `packet` (NetStats::model).
  std::uint64_t makespan_ps = 0;       ///< The run's makespan the utilisations are relative to.
  std::uint64_t messages = 0;          ///< Messages injected.
  std::uint64_t network_messages = 0;  ///< Messages that crossed at least one link.
  double bytes = 0;                    ///< Bytes injected into links (payload after the first byte).
  /// Links of the whole topology (network, injection, ejection), a part's left-out links included.
  std::uint64_t links = 0;
  std::uint64_t busy_links = 0;  ///< Links that carried at least one byte.
  std::uint64_t idle_links = 0;  ///< Links that carried nothing.
  /// Busy links per utilisation bin: bin i holds [10i%, 10(i+1)%); 100% goes in the last bin.
  std::array<std::uint64_t, kUtilisationBins> utilisation_histogram{};
  double mean_busy_utilisation = 0;  ///< Mean utilisation over the busy links (0: none).
  double p99_busy_utilisation = 0;   ///< Nearest-rank 99th percentile over the busy links (0: none).
  double max_utilisation = 0;        ///< Largest link utilisation.
  std::vector<LinkUse> top_links;    ///< Busiest links by bytes (ties: lower link id first).
  SlowdownSummary slowdown;          ///< Per-message slowdown.
};

/// Builds the report of a run on `network` that left `stats` and took `makespan_ps` (the
/// engine's max finish time), with the `top_n` busiest links. Throws InputError when `stats` does
/// not have one byte count per link of the network's topology. A makespan of 0 gives
/// utilisation 0 everywhere.
[[nodiscard]] NetReport make_net_report(const Network& network, const NetStats& stats,
                                        std::uint64_t makespan_ps, std::size_t top_n = kDefaultTopLinks);

/// `network`, `injection` or `ejection`.
[[nodiscard]] const char* to_string(topo::LinkKind kind) noexcept;

/// Prints the report to `out` (not null) as the project's `| name | avg | 99% | units |` tables:
/// messages and slowdown, link utilisation, the top links and the histogram, after a line
/// `network: DESCRIPTION` (e.g. the model's describe()).
void print_net_report(std::FILE* out, const NetReport& report, const std::string& description);

}  // namespace gridlock::net
