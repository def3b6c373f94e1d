#pragma once
// `gridlock sim`'s options of a run on a network model (--network and the flow and packet models'
// options): declared here, converted by gridlock::net (net/run.hpp, net/packet_model.hpp).

#include <array>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_numbers.hpp"
#include "gridlock/net/packet_model.hpp"
#include "gridlock/net/packet_options_text.hpp"
#include "gridlock/net/run.hpp"

namespace gridlock::cli {

/// The options add_network_run_options() adds but --network: each needs --network or --system.
inline constexpr std::array<const char*, 12> kNetworkRunOptionNames = {
    "--net-model", "--placement", "--ranks-per-node", "--hop-latency",    "--packet-size",        "--buffer",
    "--vcs",       "--routing",   "--ugal-rule",      "--ugal-threshold", "--congestion-control", "--spread"};

/// The options of a run on a network model (docs/network-models.md), in the order --help lists
/// them. The packet model's are converted as they are parsed; left out, they take the --system
/// preset's values or the model's defaults (net::prepare_network_run()).
inline void add_network_run_options(CLI::App& cmd, net::NetworkRunOptions& o) {
  cmd.add_option("--network", o.network,
                 "Simulate on this network (a topology spec as `gridlock topo` takes it, e.g. "
                 "dragonfly:g=9,a=4,p=2,h=2): messages share links (docs/network-models.md)");
  cmd.add_option("--net-model", o.net_model, "With --network: flow (max-min fair flows) or packet")
      ->capture_default_str();
  cmd.add_option("--placement", o.placement,
                 "With --network: identity, random (nodes shuffled with --seed) or rankfile:FILE")
      ->capture_default_str();
  cmd.add_option("--ranks-per-node", o.ranks_per_node,
                 "With --network and an identity or random placement: ranks on each node")
      ->check(CLI::Range(1U, 4096U))
      ->capture_default_str();
  cmd.add_option("--hop-latency", o.hop_latency,
                 "With --network: latency of each router-to-router hop, e.g. 100ns")
      ->default_str("0");
  add_byte_size_option(cmd, "--packet-size", o.packet_bytes,
                       "With --net-model packet: payload bytes per packet", "2KiB");
  add_byte_size_option(cmd, "--buffer", o.buffer_bytes,
                       "With --net-model packet: buffer per input port and virtual channel, in bytes",
                       "32KiB");
  cmd.add_option_function<std::uint32_t>(
         "--vcs", [&o](std::uint32_t vcs) { o.vcs = vcs; },
         "With --net-model packet: virtual channels per link (1-8)")
      ->default_str("3");
  cmd.add_option_function<std::string>(
         "--routing", [&o](const std::string& text) { o.routing = net::parse_routing(text); },
         "With --net-model packet: minimal, valiant or ugal (valiant and ugal: dragonfly only)")
      ->default_str("minimal");
  cmd.add_option_function<std::string>(
         "--ugal-rule", [&o](const std::string& text) { o.ugal_rule = net::parse_ugal_rule(text); },
         "With --routing ugal: booksim (BookSim2's dragonflynew) or hops (queue x hops); a --system "
         "preset names its machine's")
      ->default_str("booksim");
  cmd.add_option_function<std::string>(
         "--ugal-threshold",
         [&o](const std::string& text) { o.ugal_threshold_bytes = net::parse_ugal_threshold(text); },
         "With --ugal-rule booksim: its bias to the minimal path, in buffered bytes")
      ->default_str("0B");
  cmd.add_flag("--spread", o.spread,
               "With --network: each message takes one of the topology's minimal routes, drawn with --seed "
               "(flow model)");
  cmd.add_flag_callback(
      "--congestion-control", [&o] { o.congestion_control = true; },
      "With --net-model packet: endpoint congestion control (rate halved on marks)");
}

}  // namespace gridlock::cli
