#pragma once
// `--system NAME|FILE` of the network commands (`gridlock sim --network`, `predict gpcnet`,
// `predict mapping`, `predict traffic`; docs/predict.md, "System presets"): the preset's values
// are defaults, an option given on the command line wins. Parsing only: the preset's file, its
// checks and its lookup are gridlock::net's (gridlock/net/system.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "gridlock/net/system.hpp"
#include "packet_options.hpp"

namespace gridlock::cli {

/// Adds --system to `cmd`; it excludes `network_option` (which must exist already).
inline CLI::Option* add_system_option(CLI::App& cmd, std::string& system,
                                      const std::string& network_option = "--network") {
  auto* opt = cmd.add_option("--system", system,
                             "Machine preset: a name (`gridlock predict systems` lists them) or a FILE.json; "
                             "its network, packet and LogGOPS values are defaults, options given win");
  opt->excludes(cmd.get_option(network_option));
  return opt;
}

/// The preset --system names, or none when it was not given.
inline std::optional<net::SystemPreset> system_from(const std::string& system) {
  if (system.empty()) {
    return std::nullopt;
  }
  return net::find_system(system);
}

/// True when `name` was given on `cmd`'s command line (and `cmd` has the option).
inline bool option_given(const CLI::App& cmd, const std::string& name) {
  const CLI::Option* opt = cmd.get_option_no_throw(name);
  return opt != nullptr && opt->count() > 0;
}

/// The preset's packet values for every option not given on `cmd`'s command line.
inline void apply_preset_packet_options(const CLI::App& cmd, const net::SystemPreset& preset,
                                        net::PacketOptions& p) {
  if (!option_given(cmd, "--routing")) {
    p.routing = preset.packet.routing;
  }
  if (!option_given(cmd, "--packet-size")) {
    p.packet_bytes = preset.packet.packet_bytes;
  }
  if (!option_given(cmd, "--buffer")) {
    p.buffer_bytes = preset.packet.buffer_bytes;
  }
  if (!option_given(cmd, "--vcs")) {
    p.vcs = preset.packet.vcs;
  }
  if (!option_given(cmd, "--congestion-control")) {
    p.congestion_control = preset.packet.congestion_control;
  }
  if (!option_given(cmd, "--ugal-rule")) {
    p.ugal_rule = preset.packet.ugal_rule;
  }
}

/// The packet options of `t` (as packet_options_from()), with the preset's value for every
/// option not given on `cmd`'s command line; UGAL options that would change nothing are refused
/// (net::check_ugal_options()).
inline net::PacketOptions packet_options_with(const CLI::App& cmd, const PacketOptionsText& t,
                                              const std::optional<net::SystemPreset>& preset) {
  net::PacketOptions p = packet_options_from(t);
  if (preset) {
    apply_preset_packet_options(cmd, *preset, p);
  }
  net::check_ugal_options(p, option_given(cmd, "--ugal-rule"), option_given(cmd, "--ugal-threshold"));
  return p;
}

/// --hop-latency in ps: the option when given, else the preset's, else the option's default.
inline std::uint64_t hop_latency_with(const CLI::App& cmd, const std::string& text,
                                      const std::optional<net::SystemPreset>& preset) {
  if (preset && !option_given(cmd, "--hop-latency")) {
    return preset->hop_latency_ps;
  }
  return parse_hop_latency_ps(text);
}

// The run header's line naming the preset is gridlock::net's (net/system.hpp).
using net::system_line;

}  // namespace gridlock::cli
