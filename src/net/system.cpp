#include "gridlock/net/system.hpp"
#include "gridlock/net/system_json.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/loggops_options.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::net {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSchema = schemas::kSystem.name;
constexpr int kVersion = schemas::kSystem.version;
constexpr std::string_view kFormatDoc = "docs/formats/system-json.md";

// The fields of `loggops`, each {"value": TIME, "source": "..."}.
constexpr std::string_view kLoggopsFields[] = {"L", "o", "g", "G", "O"};

bool is_bare_name(std::string_view name) noexcept {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// Reads one file's fields, naming the file and the field in every error.
class Reader {
 public:
  Reader(SystemPreset& preset, std::string_view where) : preset_(preset), where_(where) {}

  [[noreturn]] void fail(std::string_view field, std::string_view problem) const {
    throw InputError(fmt::format("system file {}: {}: {} ({})", where_, field, problem, kFormatDoc));
  }

  // The object {"value": V, "source": S} of `path`: checks its keys and its source, records both
  // and returns V.
  const Json& value_of(const Json& field, const std::string& path) {
    if (!field.is_object()) {
      fail(path, fmt::format("expected an object {{\"value\": ..., \"source\": \"...\"}}, found {}",
                             field.type_name()));
    }
    for (const auto& [key, unused] : field.items()) {
      if (key != "value" && key != "source") {
        fail(path, fmt::format("unknown key '{}': give only \"value\" and \"source\"", key));
      }
    }
    if (!field.contains("value")) {
      fail(path, "missing \"value\"");
    }
    if (!field.contains("source")) {
      fail(path,
           "missing \"source\": name where the value comes from (a paper's table, a datasheet, or "
           "\"assumption: ...\" for a modelling choice)");
    }
    const Json& source = field.at("source");
    if (!source.is_string() || source.get_ref<const std::string&>().empty()) {
      fail(path + ".source", "expected a non-empty string naming where the value comes from");
    }
    const Json& value = field.at("value");
    preset_.values.emplace_back(path, value.is_string() ? value.get<std::string>() : value.dump());
    preset_.sources.emplace_back(path, source.get<std::string>());
    return value;
  }

  std::string text(const Json& field, const std::string& path) {
    const Json& v = value_of(field, path);
    if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
      fail(path + ".value", fmt::format("expected a non-empty string, found {}", v.type_name()));
    }
    return v.get<std::string>();
  }

  std::uint64_t count(const Json& field, const std::string& path, std::uint64_t least, std::uint64_t most) {
    const Json& v = value_of(field, path);
    if (!v.is_number_unsigned()) {
      fail(path + ".value", fmt::format("expected a whole number from {} to {}, found {}", least, most,
                                        v.is_number() ? v.dump() : std::string(v.type_name())));
    }
    const auto n = v.get<std::uint64_t>();
    if (n < least || n > most) {
      fail(path + ".value", fmt::format("{} is out of bounds: give {} to {}", n, least, most));
    }
    return n;
  }

  bool flag(const Json& field, const std::string& path) {
    const Json& v = value_of(field, path);
    if (!v.is_boolean()) {
      fail(path + ".value", fmt::format("expected true or false, found {}", v.type_name()));
    }
    return v.get<bool>();
  }

  // A value that one of gridlock's parsers checks: its InputError is rethrown naming the field.
  template <typename F>
  auto checked(const std::string& path, F&& parse) const {
    try {
      return parse();
    } catch (const InputError& e) {
      fail(path + ".value", e.what());
    }
  }

 private:
  SystemPreset& preset_;
  std::string_view where_;
};

// Every field but the optional ones (notes, ugal_rule) must be there.
void check_keys(const Reader& r, const Json& object, std::string_view path,
                std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, unused] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (const auto a : allowed) {
        list += list.empty() ? std::string(a) : fmt::format(", {}", a);
      }
      r.fail(path.empty() ? key : fmt::format("{}.{}", path, key),
             fmt::format("unknown field: the fields are {}", list));
    }
  }
  for (const auto a : allowed) {
    if (a != "notes" && a != "ugal_rule" && !object.contains(a)) {
      r.fail(path.empty() ? std::string(a) : fmt::format("{}.{}", path, a), "missing field");
    }
  }
}

std::string preset_list(const std::vector<fs::path>& dirs) {
  std::vector<std::string> names;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const fs::path& p = entry.path();
      if (p.extension() == ".json" && is_bare_name(p.stem().string())) {
        names.push_back(p.stem().string());
      }
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out;
  for (const auto& n : names) {
    out += out.empty() ? n : ", " + n;
  }
  return out.empty() ? "none found" : out;
}

}  // namespace

sim::LogGOPSParams default_predict_params() noexcept {
  sim::LogGOPSParams p;
  p.latency = sim::SimTime{500'000};
  p.overhead_send = sim::SimTime{300'000};
  p.overhead_recv = sim::SimTime{300'000};
  p.gap = sim::SimTime{50'000};
  p.gap_per_byte = sim::SimTime{100};
  p.overhead_per_byte = sim::SimTime{0};
  p.eager_threshold_bytes = 8192;
  return p;
}

SystemPreset parse_system(std::string_view text, std::string_view where) {
  SystemPreset preset;
  preset.file = std::string(where);
  Reader r(preset, where);
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(fmt::format("system file {}: not valid JSON ({}); see {}", where, e.what(), kFormatDoc));
  }
  if (!doc.is_object()) {
    r.fail("(top level)", fmt::format("expected an object, found {}", doc.type_name()));
  }
  check_keys(
      r, doc, "",
      {"schema", "version", "name", "title", "notes", "network", "nodes", "ports_per_node", "hop_latency",
       "packet_size", "buffer", "vcs", "routing", "ugal_rule", "congestion_control", "loggops"});
  if (!doc["schema"].is_string() || doc["schema"].get<std::string>() != kSchema) {
    r.fail("schema", fmt::format("expected \"{}\", found {}", kSchema, doc["schema"].dump()));
  }
  if (!doc["version"].is_number_unsigned() || doc["version"].get<std::uint64_t>() != kVersion) {
    r.fail("version", fmt::format("expected {}, found {}: this gridlock reads version {}", kVersion,
                                  doc["version"].dump(), kVersion));
  }
  for (const std::string_view key : {"name", "title"}) {
    if (!doc[key].is_string() || doc[key].get_ref<const std::string&>().empty()) {
      r.fail(key, fmt::format("expected a non-empty string, found {}", doc[key].dump()));
    }
  }
  preset.name = doc["name"].get<std::string>();
  if (!is_bare_name(preset.name)) {
    r.fail("name", fmt::format("'{}': use lower-case letters, digits, '_' and '-' only", preset.name));
  }
  preset.title = doc["title"].get<std::string>();
  if (doc.contains("notes")) {
    if (!doc["notes"].is_string()) {
      r.fail("notes", fmt::format("expected a string, found {}", doc["notes"].type_name()));
    }
    preset.notes = doc["notes"].get<std::string>();
  }

  const std::string spec = r.text(doc["network"], "network");
  const topo::TopologySummary summary = r.checked("network", [&] { return topo::topology_info(spec); });
  preset.network_spec = summary.spec;
  preset.nodes = static_cast<std::uint32_t>(
      r.count(doc["nodes"], "nodes", 1, std::min<std::uint64_t>(summary.nodes, UINT32_MAX)));
  preset.ports_per_node =
      static_cast<std::uint32_t>(r.count(doc["ports_per_node"], "ports_per_node", 1, kMaxSystemPortsPerNode));
  const std::string hop = r.text(doc["hop_latency"], "hop_latency");
  preset.hop_latency_ps = r.checked("hop_latency", [&] { return parse_time_ps(hop, "hop latency"); });
  if (preset.hop_latency_ps > kMaxHopLatencyPs) {
    r.fail("hop_latency.value", fmt::format("{}: at most 1 s per hop (routers take about 100ns)", hop));
  }
  const std::string packet = r.text(doc["packet_size"], "packet_size");
  const std::uint64_t packet_bytes =
      r.checked("packet_size", [&] { return parse_byte_size(packet, "packet size"); });
  if (packet_bytes == 0 || packet_bytes > kMaxPacketBytes) {
    r.fail("packet_size.value", fmt::format("{}: give 1 B to {}", packet, format_bytes(kMaxPacketBytes)));
  }
  const std::string buffer = r.text(doc["buffer"], "buffer");
  const std::uint64_t buffer_bytes = r.checked("buffer", [&] { return parse_byte_size(buffer, "buffer"); });
  if (buffer_bytes == 0 || buffer_bytes > kMaxBufferBytes) {
    r.fail("buffer.value", fmt::format("{}: give 1 B to {}", buffer, format_bytes(kMaxBufferBytes)));
  }
  // Both fit: the bounds are below 2^32.
  preset.packet.packet_bytes = static_cast<std::uint32_t>(packet_bytes);
  preset.packet.buffer_bytes = static_cast<std::uint32_t>(buffer_bytes);
  preset.packet.vcs = static_cast<std::uint32_t>(r.count(doc["vcs"], "vcs", 1, 8));
  const std::string routing = r.text(doc["routing"], "routing");
  preset.packet.routing = r.checked("routing", [&] { return parse_routing(routing, "routing"); });
  if (preset.packet.routing != Routing::kMinimal && summary.kind != "dragonfly") {
    r.fail("routing.value", fmt::format("{} routes a dragonfly only; the network is a {}: give minimal",
                                        routing, summary.kind));
  }
  if (doc.contains("ugal_rule")) {
    // Optional: without it a ugal preset takes the default rule (BookSim2's).
    const std::string rule = r.text(doc["ugal_rule"], "ugal_rule");
    preset.packet.ugal_rule = r.checked("ugal_rule", [&] { return parse_ugal_rule(rule, "ugal_rule"); });
    if (preset.packet.routing != Routing::kUgal) {
      r.fail("ugal_rule.value", fmt::format("{}: a UGAL rule needs routing ugal, and the routing is {}: drop "
                                            "ugal_rule",
                                            rule, routing));
    }
  }
  preset.packet.congestion_control = r.flag(doc["congestion_control"], "congestion_control");
  r.checked("packet_size", [&] {
    check_packet_sizes(preset.packet);
    return 0;
  });

  const Json& loggops = doc["loggops"];
  if (!loggops.is_object()) {
    r.fail("loggops", fmt::format("expected an object with L, o, g, G and O, found {}", loggops.type_name()));
  }
  check_keys(r, loggops, "loggops", {"L", "o", "g", "G", "O"});
  sim::LogGOPSText t;
  std::map<std::string_view, std::string> times;
  for (const auto key : kLoggopsFields) {
    const std::string path = fmt::format("loggops.{}", key);
    times[key] = r.text(loggops[std::string(key)], path);
    sim::LogGOPSText one;
    std::optional<std::string>* slot = key == "L"   ? &one.latency
                                       : key == "o" ? &one.overhead
                                       : key == "g" ? &one.gap
                                       : key == "G" ? &one.gap_per_byte
                                                    : &one.overhead_per_byte;
    *slot = times[key];
    // Each value alone, so that an error names its field.
    (void)r.checked(path, [&] { return sim::loggops_from_text(one, default_predict_params()); });
  }
  t.latency = times["L"];
  t.overhead = times["o"];
  t.gap = times["g"];
  t.gap_per_byte = times["G"];
  t.overhead_per_byte = times["O"];
  preset.params = sim::loggops_from_text(t, default_predict_params()).params;
  return preset;
}

SystemPreset read_system_file(const fs::path& path) {
  const std::string text = read_input_file(
      path, "system file", "give an existing file or a preset name (gridlock predict systems)",
      kMaxSystemFileBytes);
  return parse_system(text, path.string());
}

std::vector<fs::path> system_dirs() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read while the command starts, before any thread.
  if (const char* env = std::getenv("GRIDLOCK_SYSTEMS_DIR"); env != nullptr && *env != '\0') {
    dirs.emplace_back(env);
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // <prefix>/bin/gridlock -> <prefix>/share/gridlock/systems.
    const fs::path installed = exe.parent_path().parent_path() / "share" / "gridlock" / "systems";
    if (fs::is_directory(installed, ec)) {
      dirs.push_back(installed);
    }
  }
#ifdef GRIDLOCK_SOURCE_SYSTEMS_DIR
  // The source tree's presets, for a gridlock run from its build tree.
  if (const fs::path source = GRIDLOCK_SOURCE_SYSTEMS_DIR; fs::is_directory(source, ec)) {
    dirs.push_back(source);
  }
#endif
  return dirs;
}

bool is_system_file(std::string_view argument) noexcept {
  return argument.find('/') != std::string_view::npos ||
         (argument.size() >= 5 && argument.substr(argument.size() - 5) == ".json");
}

SystemPreset find_system(std::string_view argument, std::string_view what) {
  if (is_system_file(argument)) {
    return read_system_file(fs::path(argument));
  }
  const auto dirs = system_dirs();
  if (!is_bare_name(argument)) {
    throw InputError(
        fmt::format("{} '{}': give a preset name (lower-case letters, digits, '_', '-'; "
                    "available: {}) or a file (a path with '/' or ending in .json)",
                    what, argument, preset_list(dirs)));
  }
  for (const auto& dir : dirs) {
    const fs::path file = dir / (std::string(argument) + ".json");
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) {
      SystemPreset preset = read_system_file(file);
      if (preset.name != argument) {
        throw InputError(
            fmt::format("system file {}: name: '{}' differs from the file's name '{}': make them "
                        "the same",
                        file.string(), preset.name, argument));
      }
      return preset;
    }
  }
  std::string searched;
  for (const auto& dir : dirs) {
    searched += searched.empty() ? dir.string() : ", " + dir.string();
  }
  throw InputError(
      fmt::format("{} {}: no such system; available: {} (searched {}; gridlock predict systems "
                  "lists them, GRIDLOCK_SYSTEMS_DIR adds a directory, --system ./FILE.json reads "
                  "a file)",
                  what, argument, preset_list(dirs), searched.empty() ? "no directory" : searched));
}

Json system_json(const SystemPreset& preset) {
  Json out;
  out["name"] = preset.name;
  out["title"] = preset.title;
  out["file"] = preset.file;
  out["nodes"] = preset.nodes;
  out["network"] = preset.network_spec;
  Json values = Json::object();
  Json sources = Json::object();
  for (const auto& [path, value] : preset.values) {
    values[path] = value;
  }
  for (const auto& [path, source] : preset.sources) {
    sources[path] = source;
  }
  out["values"] = values;
  out["sources"] = sources;
  if (!preset.notes.empty()) {
    out["notes"] = preset.notes;
  }
  return out;
}

std::vector<SystemPreset> list_systems() {
  std::map<std::string, SystemPreset> by_name;
  for (const auto& dir : system_dirs()) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json" && is_bare_name(entry.path().stem().string())) {
        files.push_back(entry.path());
      }
    }
    for (const auto& file : files) {
      const std::string name = file.stem().string();
      if (by_name.count(name) == 0) {
        by_name.emplace(name, read_system_file(file));
      }
    }
  }
  std::vector<SystemPreset> out;
  out.reserve(by_name.size());
  for (auto& [name, preset] : by_name) {
    out.push_back(std::move(preset));
  }
  return out;
}

std::string values_line(const PacketOptions& packet, std::uint64_t hop_latency_ps,
                        const sim::LogGOPSParams& params) {
  return fmt::format(
      "values: routing {}, packet {} B, buffer {} B per VC, {} VCs, congestion control {}, hop latency {} "
      "ps, "
      "L {} ps, o {} ps, g {} ps, G {} ps/B, O {} ps/B",
      packet.routing == Routing::kUgal ? fmt::format("ugal ({} rule)", to_string(packet.ugal_rule))
                                       : std::string(to_string(packet.routing)),
      packet.packet_bytes, packet.buffer_bytes, packet.vcs, packet.congestion_control ? "on" : "off",
      hop_latency_ps, params.latency.ps, params.overhead_send.ps, params.gap.ps, params.gap_per_byte.ps,
      params.overhead_per_byte.ps);
}

std::string systems_table(const std::vector<SystemPreset>& systems) {
  if (systems.empty()) {
    return "no system presets found (GRIDLOCK_SYSTEMS_DIR adds a directory)\n";
  }
  std::string out = fmt::format("{:<10} {:>6}  {:<60} {}\n", "name", "nodes", "network", "title");
  for (const auto& preset : systems) {
    out += fmt::format("{:<10} {:>6}  {:<60} {}\n", preset.name, preset.nodes, preset.network_spec,
                       preset.title);
  }
  return out;
}

Json systems_context() {
  Json context = base_context("gridlock predict systems", schemas::kSystems);
  Json dirs = Json::array();
  for (const auto& dir : system_dirs()) {
    dirs.push_back(dir.string());
  }
  context["directories"] = dirs;
  return context;
}

Json systems_body(const std::vector<SystemPreset>& systems) {
  Json list = Json::array();
  for (const auto& preset : systems) {
    list.push_back({{"name", preset.name},
                    {"title", preset.title},
                    {"nodes", preset.nodes},
                    {"network", preset.network_spec},
                    {"file", preset.file}});
  }
  return Json{{"systems", list}};
}

std::string system_line(const SystemPreset& preset) {
  return fmt::format("system {}: {} ({}; {} nodes of {})", preset.name, preset.title, preset.file,
                     preset.nodes, preset.network_spec);
}

}  // namespace gridlock::net
