#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "detail/text.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::oracle {

std::vector<Flow> read_traffic_matrix(const topo::Topology& topology, const std::filesystem::path& path) {
  std::istringstream in(read_input_file(path, "traffic matrix",
                                        "check the path (format: one 'SRC DST RATE [bidir]' line per flow)"));
  std::vector<Flow> flows;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::string_view view(line);
    if (const auto hash = view.find('#'); hash != std::string_view::npos) {
      view = view.substr(0, hash);
    }
    const auto fields = detail::split_fields(view);
    if (fields.empty()) {
      continue;
    }
    const auto where = fmt::format("{}:{}", path.string(), line_no);
    if (fields.size() < 3 || fields.size() > 4 || (fields.size() == 4 && fields[3] != "bidir")) {
      throw InputError(
          fmt::format("{}: expected 'SRC DST RATE [bidir]', e.g. 'nid00016 nid00040 4GB/s bidir'", where));
    }
    const auto src = topology.find_node(fields[0]);
    const auto dst = topology.find_node(fields[1]);
    if (!src || !dst) {
      throw InputError(fmt::format("{}: unknown node '{}' in topology '{}'", where,
                                   printable_excerpt(!src ? fields[0] : fields[1]), topology.spec()));
    }
    double rate = 0;
    try {
      rate = topo::parse_rate_bytes_per_s(fields[2], "flow rate");
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", where, e.what()));
    }
    flows.push_back(Flow{*src, *dst, rate});
    if (fields.size() == 4) {
      flows.push_back(Flow{*dst, *src, rate});
    }
  }
  if (flows.empty()) {
    // An empty matrix would serve zero load on every link, indistinguishable from an idle network.
    throw InputError(fmt::format(
        "traffic matrix '{}' has no flows (it is empty or holds only comments and blank lines); give one "
        "'SRC DST RATE [bidir]' line per flow, e.g. 'nid00016 nid00040 4GB/s bidir' (for no load, use "
        "the source 'sim:none')",
        path.string()));
  }
  return flows;
}

std::vector<std::pair<std::string, std::string>> paper_congestor_pairs() {
  return {{"nid00016", "nid00040"}, {"nid00048", "nid00042"}, {"nid00012", "nid00038"}};
}

std::vector<Flow> paper_congestion_flows(const topo::Topology& topology, double bytes_per_s) {
  std::vector<Flow> flows;
  for (const auto& [a, b] : paper_congestor_pairs()) {
    const auto src = topology.node_id(a);
    const auto dst = topology.node_id(b);
    flows.push_back(Flow{src, dst, bytes_per_s});
    flows.push_back(Flow{dst, src, bytes_per_s});
  }
  return flows;
}

SimulatedLoad::SimulatedLoad(const topo::Topology& topology, std::vector<Flow> flows)
    : topology_(topology), flows_(std::move(flows)), demand_(topology.links().size(), 0.0) {
  std::vector<topo::LinkId> route;
  for (const auto& flow : flows_) {
    if (flow.src >= topology.nodes().size() || flow.dst >= topology.nodes().size() ||
        !(flow.bytes_per_s >= 0)) {
      throw InputError("simulated load: a flow names a node outside the topology or has a negative rate");
    }
    if (flow.src == flow.dst) {
      continue;
    }
    topology.route_into(flow.src, flow.dst, route);
    for (const auto link : route) {
      demand_[link] += flow.bytes_per_s;
    }
    demand_[topology.injection_link(flow.src)] += flow.bytes_per_s;
    demand_[topology.ejection_link(flow.dst)] += flow.bytes_per_s;
  }
}

void SimulatedLoad::poll(MetricStore& store, double now_s) {
  const double interval = polled_ ? now_s - last_s_ : 1.0;
  if (!(interval > 0)) {
    return;
  }
  for (topo::LinkId link = 0; link < demand_.size(); ++link) {
    const double demand = demand_[link];
    if (demand <= 0) {
      continue;
    }
    const double capacity = store.capacity(link);
    const double used = std::min(demand, capacity);
    const double stall = demand > capacity ? 1 - capacity / demand : 0;
    store.add_rates(link, now_s, interval, used, stall);
  }
  polled_ = true;
  last_s_ = now_s;
}

SourceStatus SimulatedLoad::status() const {
  double max_demand = 0;
  std::uint64_t loaded = 0;
  std::uint64_t oversubscribed = 0;
  for (topo::LinkId link = 0; link < demand_.size(); ++link) {
    max_demand = std::max(max_demand, demand_[link]);
    loaded += demand_[link] > 0 ? 1 : 0;
    oversubscribed += demand_[link] > topology_.links()[link].capacity_bytes_per_s ? 1 : 0;
  }
  return {"simulated",
          {{"flows", std::uint64_t{flows_.size()}},
           {"loaded_links", loaded},
           {"oversubscribed_links", oversubscribed},
           {"max_link_demand_bytes_per_s", max_demand}}};
}

}  // namespace gridlock::oracle
