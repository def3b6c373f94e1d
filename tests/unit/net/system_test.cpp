// System presets (issue 37 §3): every checked-in preset parses, every value has a source and its
// topology holds the machine's nodes; bad files give errors naming the file, the field and the fix.
#include "gridlock/net/system.hpp"

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/net/system_json.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::net {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kPresets = GRIDLOCK_SYSTEMS_SOURCE_DIR;

std::vector<fs::path> preset_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kPresets)) {
    if (entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  return files;
}

TEST(SystemPresets, EveryCheckedInPresetParsesWithASourceForEveryValue) {
  const auto files = preset_files();
  std::set<std::string> names;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    const SystemPreset p = read_system_file(file);
    names.insert(p.name);
    EXPECT_EQ(p.name, file.stem().string());
    EXPECT_FALSE(p.title.empty());
    // network, nodes, ports_per_node, hop_latency, packet_size, buffer, vcs, routing,
    // congestion_control and the five LogGOPS values; the UGAL rule with it where the machine
    // routes ugal (its rule is a choice, and a choice names its source).
    const std::size_t fields = p.packet.routing == Routing::kUgal ? 15U : 14U;
    ASSERT_EQ(p.values.size(), fields);
    ASSERT_EQ(p.sources.size(), fields);
    for (const auto& [path, source] : p.sources) {
      EXPECT_GT(source.size(), 10U) << path;
    }
    const auto summary = topo::topology_info(p.network_spec);
    EXPECT_GE(summary.nodes, p.nodes);
    EXPECT_GT(p.nodes, 0U);
    // Adaptive routing where the machine routes adaptively (the dragonflies), minimal on fat trees.
    EXPECT_EQ(p.packet.routing == Routing::kUgal, summary.kind == "dragonfly");
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"crystal", "edison", "malbec", "osprey", "sierra", "summit", "theta"}));
}

TEST(SystemPresets, TableOneFacts) {
  const SystemPreset crystal = read_system_file(kPresets / "crystal.json");
  EXPECT_EQ(crystal.nodes, 696U);
  EXPECT_EQ(topo::topology_info(crystal.network_spec).nodes, 768U);  // 2 groups of 384
  EXPECT_FALSE(crystal.packet.congestion_control);
  const SystemPreset malbec = read_system_file(kPresets / "malbec.json");
  EXPECT_EQ(malbec.nodes, 485U);
  EXPECT_TRUE(malbec.packet.congestion_control);
  EXPECT_EQ(read_system_file(kPresets / "osprey.json").nodes, 128U);
  EXPECT_EQ(read_system_file(kPresets / "summit.json").ports_per_node, 2U);
  EXPECT_EQ(read_system_file(kPresets / "sierra.json").ports_per_node, 2U);
  // G is the NIC's time per byte: Aries 10 GB/s = 100 ps/B.
  EXPECT_EQ(crystal.params.gap_per_byte.ps, 100U);
}

// A valid file, as JSON to mutate.
Json valid() {
  auto v = [](Json value) { return Json{{"value", std::move(value)}, {"source", "a test"}}; };
  return Json{{"schema", "gridlock.system"},
              {"version", 1},
              {"name", "mine"},
              {"title", "A test machine"},
              {"network", v("dragonfly:g=3,a=2,p=2,h=1")},
              {"nodes", v(10)},
              {"ports_per_node", v(1)},
              {"hop_latency", v("100ns")},
              {"packet_size", v("2KiB")},
              {"buffer", v("32KiB")},
              {"vcs", v(3)},
              {"routing", v("ugal")},
              {"congestion_control", v(false)},
              {"loggops",
               {{"L", v("0.5us")}, {"o", v("0.3us")}, {"g", v("50ns")}, {"G", v("0.1ns")}, {"O", v("0ns")}}}};
}

std::string error_of(const Json& doc) {
  try {
    (void)parse_system(doc.dump(), "mine.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SystemFile, ValidFileParses) {
  const SystemPreset p = parse_system(valid().dump(), "mine.json");
  EXPECT_EQ(p.name, "mine");
  EXPECT_EQ(p.nodes, 10U);
  EXPECT_EQ(p.packet.routing, Routing::kUgal);
  // Without ugal_rule, the default rule: BookSim2's, the reference's.
  EXPECT_EQ(p.packet.ugal_rule, UgalRule::kBookSim);
  Json hops = valid();
  hops["ugal_rule"] = Json{{"value", "hops"}, {"source", "a test"}};
  EXPECT_EQ(parse_system(hops.dump(), "mine.json").packet.ugal_rule, UgalRule::kHops);
  EXPECT_EQ(p.hop_latency_ps, 100'000U);
  EXPECT_EQ(p.params.latency.ps, 500'000U);
  EXPECT_EQ(p.params.overhead_send.ps, 300'000U);
  EXPECT_EQ(p.params.overhead_recv.ps, 300'000U);
  EXPECT_EQ(p.sources.front().first, "network");
}

struct BadCase {
  std::string what;
  std::function<void(Json&)> change;
  std::string message;
};

TEST(SystemFile, BadFilesNameTheFileTheFieldAndTheFix) {
  const std::vector<BadCase> cases = {
      {"missing field", [](Json& d) { d.erase("nodes"); }, "mine.json: nodes: missing field"},
      {"unknown key", [](Json& d) { d["colour"] = "red"; }, "colour: unknown field: the fields are schema"},
      {"unknown key in a value", [](Json& d) { d["vcs"]["unit"] = "x"; }, "vcs: unknown key 'unit'"},
      {"no source", [](Json& d) { d["buffer"].erase("source"); }, "buffer: missing \"source\""},
      {"empty source", [](Json& d) { d["buffer"]["source"] = ""; },
       "buffer.source: expected a non-empty string"},
      {"no value", [](Json& d) { d["buffer"].erase("value"); }, "buffer: missing \"value\""},
      {"bare value", [](Json& d) { d["vcs"] = 3; }, "vcs: expected an object {\"value\""},
      {"wrong type", [](Json& d) { d["nodes"]["value"] = "ten"; }, "nodes.value: expected a whole number"},
      {"wrong type flag", [](Json& d) { d["congestion_control"]["value"] = "yes"; },
       "congestion_control.value: expected true or false"},
      {"bad spec", [](Json& d) { d["network"]["value"] = "hypercube:4"; }, "mine.json: network.value:"},
      {"more nodes than the topology", [](Json& d) { d["nodes"]["value"] = 13; },
       "nodes.value: 13 is out of bounds: give 1 to 12"},
      {"zero vcs", [](Json& d) { d["vcs"]["value"] = 0; }, "vcs.value: 0 is out of bounds: give 1 to 8"},
      {"negative ports", [](Json& d) { d["ports_per_node"]["value"] = -1; },
       "ports_per_node.value: expected a whole"},
      {"packet too large", [](Json& d) { d["packet_size"]["value"] = "2MiB"; },
       "packet_size.value: 2MiB: give 1 B"},
      {"buffer below a packet", [](Json& d) { d["buffer"]["value"] = "1KiB"; }, "packet_size.value:"},
      {"hop latency too long", [](Json& d) { d["hop_latency"]["value"] = "2s"; },
       "hop_latency.value: 2s: at most 1 s"},
      {"bad time", [](Json& d) { d["loggops"]["L"]["value"] = "fast"; }, "loggops.L.value:"},
      {"missing LogGOPS value", [](Json& d) { d["loggops"].erase("G"); }, "loggops.G: missing field"},
      {"ugal on a fat tree", [](Json& d) { d["network"]["value"] = "fattree:4x4"; },
       "routing.value: ugal routes a dragonfly only; the network is a fattree: give minimal"},
      {"unknown routing", [](Json& d) { d["routing"]["value"] = "adaptive"; }, "routing.value:"},
      {"unknown UGAL rule",
       [](Json& d) {
         d["ugal_rule"] = Json{{"value", "fast"}, {"source", "x"}};
       },
       "ugal_rule.value: ugal_rule 'fast': give booksim"},
      {"UGAL rule without ugal routing",
       [](Json& d) {
         d["routing"]["value"] = "minimal";
         d["ugal_rule"] = Json{{"value", "hops"}, {"source", "x"}};
       },
       "ugal_rule.value: hops: a UGAL rule needs routing ugal, and the routing is minimal: drop ugal_rule"},
      {"UGAL rule without a source",
       [](Json& d) {
         d["ugal_rule"] = Json{{"value", "hops"}};
       },
       "ugal_rule: missing \"source\""},
      {"wrong schema", [](Json& d) { d["schema"] = "gridlock.bench"; },
       "schema: expected \"gridlock.system\""},
      {"wrong version", [](Json& d) { d["version"] = 2; }, "version: expected 1"},
      {"bad name", [](Json& d) { d["name"] = "My Machine"; }, "name: 'My Machine': use lower-case"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Json doc = valid();
    c.change(doc);
    const std::string message = error_of(doc);
    EXPECT_THAT(message, HasSubstr(c.message));
    EXPECT_THAT(message, HasSubstr("mine.json"));
  }
  EXPECT_THAT(
      [] {
        try {
          (void)parse_system("{\"schema\": ", "mine.json");
        } catch (const InputError& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      HasSubstr("system file mine.json: not valid JSON"));
}

TEST(SystemLookup, NamesAndFiles) {
  EXPECT_TRUE(is_system_file("./mine.json"));
  EXPECT_TRUE(is_system_file("mine.json"));
  EXPECT_TRUE(is_system_file("dir/mine"));
  EXPECT_FALSE(is_system_file("crystal"));
  // The source tree's presets are found by name from a build tree.
  EXPECT_EQ(find_system("crystal").nodes, 696U);
  try {
    (void)find_system("nosuch");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--system nosuch: no such system; available: crystal, edison, malbec"));
  }
  try {
    (void)find_system("Crystal!");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("give a preset name"));
  }
  EXPECT_GE(list_systems().size(), 7U);
}

// The lines and JSON of `gridlock predict` moved from the CLI: the values line, the presets'
// table (and its empty form) and the list's JSON.
TEST(SystemReports, ValuesLineTableAndJson) {
  PacketOptions packet;
  sim::LogGOPSParams params = default_predict_params();
  const std::string line = values_line(packet, 100'000, params);
  EXPECT_EQ(line.rfind("values: routing minimal, packet 2048 B, buffer 32768 B per VC, 3 VCs, congestion "
                       "control off, hop latency 100000 ps, L 500000 ps, o 300000 ps, g 50000 ps, G ",
                       0),
            0U)
      << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(systems_table({}), "no system presets found (GRIDLOCK_SYSTEMS_DIR adds a directory)\n");
  SystemPreset preset;
  preset.name = "tiny";
  preset.title = "A tiny machine";
  preset.nodes = 8;
  preset.network_spec = "torus:2x2x2";
  preset.file = "/x/tiny.json";
  const std::string table = systems_table({preset});
  EXPECT_THAT(table, HasSubstr("name        nodes  network"));
  EXPECT_THAT(table, HasSubstr("tiny            8  torus:2x2x2"));
  EXPECT_THAT(table, HasSubstr("A tiny machine\n"));
  const Json body = systems_body({preset});
  EXPECT_EQ(body["systems"][0]["file"], "/x/tiny.json");
  EXPECT_EQ(body["systems"][0]["nodes"], 8);
  const Json context = systems_context();
  EXPECT_EQ(context["tool"], "gridlock predict systems");
  EXPECT_TRUE(context["directories"].is_array());
}

}  // namespace
}  // namespace gridlock::net
