// oracle::make_source: a `--source` argument to a Source, shared by `gridlock oracle serve` and
// the mapping tools, which read the same sources in-process.
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/oracle/service.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::oracle {

std::unique_ptr<Source> make_source(std::string_view text, const topo::Topology& topology,
                                    const SourceOptions& options) {
  const auto colon = text.find(':');
  const std::string kind(text.substr(0, colon));
  const std::string rest =
      colon == std::string_view::npos ? std::string() : std::string(text.substr(colon + 1));
  if (kind == "sim") {
    if (rest == "none") {
      return std::make_unique<SimulatedLoad>(topology, std::vector<Flow>{});
    }
    if (rest.empty() || rest == "paper") {
      // The paper's three pairs are node names of its machine: on another topology the same names
      // (any torus numbers nodes nid00000...) would load unrelated links.
      if (!is_paper_machine(topology)) {
        throw InputError(fmt::format(
            "--source {}: the paper's congestion pairs apply only to its 2x2x8 Gemini torus (torus:2x2x8), "
            "not to '{}'; for this topology use sim:none (no load), sim:MATRIX_FILE (a traffic matrix), "
            "ldms:PATH or sysfs[:ROOT]",
            text, topology.spec()));
      }
      double rate = 0;
      if (options.sim_rate == "line") {
        // As fast as the sender's link allows, like the paper's congestion utility ("sends 1 MiB
        // messages as quickly as possible"); flows then oversubscribe the links they share.
        const auto sender = topology.find_node("nid00016");
        rate = sender ? topology.links()[topology.injection_link(*sender)].capacity_bytes_per_s : 0;
      } else {
        rate = topo::parse_rate_bytes_per_s(options.sim_rate, "--sim-rate");
      }
      return std::make_unique<SimulatedLoad>(topology, paper_congestion_flows(topology, rate));
    }
    return std::make_unique<SimulatedLoad>(topology, read_traffic_matrix(topology, rest));
  }
  if (kind == "ldms") {
    if (rest.empty()) {
      throw InputError("--source ldms:PATH needs a store_csv file or directory, e.g. ldms:/var/ldms/csv");
    }
    // Fail now rather than serve no data: the path is the directory (or file) store_csv writes.
    std::error_code ec;
    if (!std::filesystem::exists(rest, ec)) {
      throw IoError(
          fmt::format("--source ldms:{}: no such file or directory; give the store_csv output directory (its "
                      "path/container) or one of its files, e.g. ldms:/var/ldms/csv",
                      rest));
    }
    LdmsCsvOptions ldms;
    ldms.counter_bits = options.counter_bits;
    ldms.ib_xmit_wait = options.xmit_wait;
    return std::make_unique<LdmsCsvSource>(topology, std::vector<std::filesystem::path>{rest}, ldms);
  }
  if (kind == "sysfs") {
    SysfsIbOptions sysfs;
    if (!rest.empty()) {
      sysfs.sys_root = rest;
    }
    std::error_code ec;
    const auto devices = sysfs.sys_root / "class" / "infiniband";
    if (!std::filesystem::is_directory(sysfs.sys_root, ec)) {
      throw IoError(fmt::format("--source {}: '{}' is not a directory; give the sysfs root, e.g. sysfs:/sys",
                                text, sysfs.sys_root.string()));
    }
    if (!std::filesystem::is_directory(devices, ec)) {
      throw IoError(
          fmt::format("--source {}: no InfiniBand devices ('{}' does not exist): is an InfiniBand driver "
                      "loaded on this node?",
                      text, devices.string()));
    }
    sysfs.counter_bits = options.counter_bits;
    sysfs.xmit_wait = options.xmit_wait;
    const std::string node = options.node.empty() ? host_name() : options.node;
    const auto id = topology.find_node(node);
    if (!id) {
      throw InputError(
          fmt::format("--source sysfs: this node '{}' is not in the topology; name it with --node", node));
    }
    return std::make_unique<SysfsIbSource>(topology, *id, sysfs);
  }
  throw InputError(
      fmt::format("unknown --source '{}': use sim[:paper|:none|:MATRIX_FILE], ldms:PATH or sysfs[:ROOT]",
                  printable_excerpt(text)));
}

}  // namespace gridlock::oracle
