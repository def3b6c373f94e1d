#pragma once
/// @file
/// The `network` object of `gridlock sim --network --json` (schema gridlock.sim.result,
/// docs/formats/sim-result-json.md): the model, the network, the placement, the parameters and
/// the NetReport of the run.
#include <cstdint>
#include <string>

#include "gridlock/core/output.hpp"
#include "gridlock/net/network.hpp"
#include "gridlock/net/packet_model.hpp"
#include "gridlock/net/placement_spec.hpp"
#include "gridlock/net/report.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::net {

/// The report alone: makespan_ps, messages, network_messages, bytes, links (total, busy, idle),
/// utilisation (mean_busy, p99_busy, max, histogram of kUtilisationBins counts), top_links (name,
/// kind, bytes, utilisation) and slowdown (count, mean, p50, p99, max).
[[nodiscard]] Json net_report_json(const NetReport& report);

/// The `network` object: model, spec, description (`title`, e.g. the model's describe()),
/// placement (kind, rankfile, ranks_per_node, seed, description), parameters (hop_latency_ps) and
/// report (net_report_json()).
[[nodiscard]] Json network_json(const Network& network, const PlacementChoice& placement,
                                const std::string& title, const NetReport& report);

/// The packet model's options as the context blocks of `predict gpcnet`, `predict mapping` and
/// `predict traffic` record them: packet_bytes, buffer_bytes, vcs, routing, congestion_control;
/// with ugal routing ugal_rule (and, for booksim, ugal_threshold_bytes); the router latencies
/// (terminal_latency_ps, global_extra_latency_ps, credit_latency_ps, vc_turnaround_ps) where set.
[[nodiscard]] Json packet_options_json(const PacketOptions& options);

/// Writes `{context, "result": sim::run_result_json(), "network": network}` to `path` atomically.
void write_run_json(const std::string& path, const Json& context, const sim::SimResult& result, bool per_rank,
                    const Json& network);

}  // namespace gridlock::net
