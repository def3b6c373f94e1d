#pragma once
/// @file
/// System presets (`--system NAME|FILE`; docs/predict.md, "System presets", and
/// docs/formats/system-json.md): one JSON file per machine holding its network (a topology spec
/// with link rates and tapering), its number of compute nodes, the packet model's parameters
/// (per-hop latency, packet size, buffer per virtual channel, virtual channels, routing,
/// congestion control) and the host's LogGOPS parameters, each value with the source it comes
/// from. The network commands take a preset's values as defaults; an option given on the command
/// line wins.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridlock/net/packet_model.hpp"
#include "gridlock/sim/engine.hpp"

namespace gridlock::net {

/// Largest system file read (bytes): a preset is a few KiB.
inline constexpr std::uintmax_t kMaxSystemFileBytes = std::uintmax_t{1024} * 1024;
/// Most network ports per node a preset may record.
inline constexpr std::uint32_t kMaxSystemPortsPerNode = 64;

/// The LogGOPS parameters of a prediction unless given, and those a system file's `loggops` starts
/// from: an Aries-class NIC and MPI (L 0.5 us, o 0.3 us, g 0.05 us, G 0.1 ns/B = 10 GB/s, O 0,
/// S 8 KiB), documented in docs/predict.md.
[[nodiscard]] sim::LogGOPSParams default_predict_params() noexcept;

/// A machine: its network, its nodes and its hosts, every value with its source.
struct SystemPreset {
  std::string name;          ///< Bare name (`crystal`), [a-z0-9_-]+.
  std::string title;         ///< One line: machine, network, where it is described.
  std::string file;          ///< The file it was read from.
  std::string network_spec;  ///< Topology spec as `gridlock topo` takes it (canonical form).
  /// Compute nodes of the machine: the topology's first `nodes` nodes in node order.
  std::uint32_t nodes = 0;
  std::uint32_t ports_per_node = 1;  ///< Network ports per node (recorded; the models use one).
  std::uint64_t hop_latency_ps = 0;  ///< Router-to-router hop latency.
  /// Packet size, buffer, virtual channels, routing and congestion control (the seed is the run's).
  PacketOptions packet;
  sim::LogGOPSParams params;  ///< L, o (both sides), g, G, O; the rest are gridlock's defaults.
  /// Every field as `path = value`, in file order (`network`, `loggops.L`, ...), for printing.
  std::vector<std::pair<std::string, std::string>> values;
  /// The source of every field, same order and paths as `values`.
  std::vector<std::pair<std::string, std::string>> sources;
  std::string notes;  ///< Free text of the file's `notes` (may be empty).
};

/// Parses a system file's text; `where` names it in errors. Throws InputError naming `where`, the
/// field and the fix for malformed JSON, a wrong schema or version, an unknown, missing or
/// mistyped field, a value without a source, a bad topology spec, a value out of its bounds
/// (the command line's), or more nodes than the topology has.
[[nodiscard]] SystemPreset parse_system(std::string_view text, std::string_view where);

/// Reads and parses a system file (a regular file of at most kMaxSystemFileBytes); IoError when
/// it cannot be read.
[[nodiscard]] SystemPreset read_system_file(const std::filesystem::path& path);

/// The directories searched for a preset name, in order: `$GRIDLOCK_SYSTEMS_DIR` (if set), the
/// installed `<prefix>/share/gridlock/systems` next to the running executable
/// (`/proc/self/exe`/../../share/gridlock/systems), and the source tree's `share/gridlock/systems`
/// (for the build tree). Directories that do not exist are left out.
[[nodiscard]] std::vector<std::filesystem::path> system_dirs();

/// True when a --system value names a file: it has a '/' or ends in `.json`.
[[nodiscard]] bool is_system_file(std::string_view argument) noexcept;

/// The preset a --system value names: a file (is_system_file()) or a bare name looked up as
/// NAME.json in system_dirs(). Throws InputError naming `what` for a malformed name or an unknown
/// one (listing the available presets).
[[nodiscard]] SystemPreset find_system(std::string_view argument, std::string_view what = "--system");

/// Every preset of system_dirs() by name (a name found in an earlier directory hides later ones),
/// sorted by name. Throws InputError for a preset that does not parse.
[[nodiscard]] std::vector<SystemPreset> list_systems();

/// The values a prediction runs with as one line: `values: routing R, packet P B, buffer B B per
/// VC, V VCs, congestion control on|off, hop latency H ps, L .. ps, o .. ps, g .. ps, G .. ps/B,
/// O .. ps/B` (no newline), so that a run says what it took from a preset and the defaults.
[[nodiscard]] std::string values_line(const PacketOptions& packet, std::uint64_t hop_latency_ps,
                                      const sim::LogGOPSParams& params);

/// `gridlock predict systems`: one line per preset (name, nodes, network, title) under a header,
/// or a line saying there is none and how to add a directory.
[[nodiscard]] std::string systems_table(const std::vector<SystemPreset>& systems);

/// One line naming the preset and where it was read from, for a run's header.
[[nodiscard]] std::string system_line(const SystemPreset& preset);

}  // namespace gridlock::net
