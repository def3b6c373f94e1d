#include "gridlock/topo/simgrid_platform.hpp"

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/topo/spec.hpp"

namespace gridlock::topo {
namespace {

// A platform without its context comment (which holds the date), for stable comparisons.
SimgridPlatformOptions fixed_context() {
  SimgridPlatformOptions options;
  options.context_comment = "test platform";
  return options;
}

std::size_t count(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// The value of attribute `name` in the tag `tag` (without the quotes), or "" when absent.
std::string attribute(std::string_view tag, std::string_view name) {
  const std::string key = " " + std::string(name) + "=\"";
  const auto at = tag.find(key);
  if (at == std::string_view::npos) {
    return "";
  }
  const auto begin = at + key.size();
  return std::string(tag.substr(begin, tag.find('"', begin) - begin));
}

// Checks that elements nest properly, that every attribute value is quoted and that no raw '&' or
// '<' appears in text or attributes; returns the first problem found, or "".
std::string well_formed_problem(std::string_view xml) {
  std::vector<std::string> open;
  std::size_t at = 0;
  while ((at = xml.find('<', at)) != std::string_view::npos) {
    if (xml.substr(at, 4) == "<!--") {
      const auto end = xml.find("-->", at + 4);
      if (end == std::string_view::npos) {
        return "unterminated comment";
      }
      if (xml.substr(at + 4, end - at - 4).find("--") != std::string_view::npos) {
        return "'--' inside a comment";
      }
      at = end + 3;
      continue;
    }
    const auto end = xml.find('>', at);
    if (end == std::string_view::npos) {
      return "unterminated tag";
    }
    const std::string_view tag = xml.substr(at + 1, end - at - 1);
    if (tag.find('<') != std::string_view::npos) {
      return "'<' inside a tag: " + std::string(tag);
    }
    if (count(tag, "\"") % 2 != 0) {
      return "unbalanced quotes: " + std::string(tag);
    }
    if (tag.front() == '?' || tag.front() == '!') {
      at = end + 1;
      continue;
    }
    if (tag.front() == '/') {
      const std::string name(tag.substr(1));
      if (open.empty() || open.back() != name) {
        return "closing </" + name + "> does not match";
      }
      open.pop_back();
    } else if (tag.back() != '/') {
      open.emplace_back(tag.substr(0, tag.find(' ')));
    }
    at = end + 1;
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

struct Parsed {
  std::vector<std::string> hosts;
  std::map<std::string, std::string> link_bandwidth;  // id -> bandwidth attribute
  std::map<std::string, std::string> link_latency;    // id -> latency attribute
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> routes;
};

Parsed parse(const std::string& xml) {
  Parsed p;
  std::istringstream in(xml);
  std::string line;
  while (std::getline(in, line)) {
    const auto begin = line.find_first_not_of(' ');
    if (begin == std::string::npos) {
      continue;
    }
    const std::string_view l = std::string_view(line).substr(begin);
    if (l.starts_with("<host ")) {
      p.hosts.push_back(attribute(l, "id"));
    } else if (l.starts_with("<link ")) {
      p.link_bandwidth[attribute(l, "id")] = attribute(l, "bandwidth");
      p.link_latency[attribute(l, "id")] = attribute(l, "latency");
      EXPECT_EQ(attribute(l, "sharing_policy"), "SHARED") << l;
    } else if (l.starts_with("<route ")) {
      EXPECT_EQ(attribute(l, "symmetrical"), "NO") << l;
      std::vector<std::string> links;
      for (auto at = l.find("<link_ctn "); at != std::string_view::npos; at = l.find("<link_ctn ", at + 1)) {
        links.push_back(attribute(l.substr(at, l.find('>', at) - at), "id"));
      }
      p.routes[{attribute(l, "src"), attribute(l, "dst")}] = std::move(links);
    }
  }
  return p;
}

TEST(SimgridPlatform, SmallTorusHasOneHostPerNodeOneLinkPerDirectedLinkAndAllRoutes) {
  const auto topo = make_topology("torus:2x2x4,npr=2");
  const std::string xml = simgrid_platform_xml(*topo, fixed_context());
  EXPECT_EQ(well_formed_problem(xml), "");
  EXPECT_NE(xml.find("<platform version=\"4.1\">"), std::string::npos);
  EXPECT_NE(xml.find("routing=\"Full\""), std::string::npos);
  const Parsed p = parse(xml);
  const std::size_t n = topo->nodes().size();
  ASSERT_EQ(n, 32U);
  ASSERT_EQ(p.hosts.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(p.hosts[i], topo->nodes()[i].name);
  }
  EXPECT_EQ(p.link_bandwidth.size(), topo->links().size());
  EXPECT_EQ(p.routes.size(), n * (n - 1));
  EXPECT_EQ(count(xml, "<link "), topo->links().size());
}

TEST(SimgridPlatform, EveryRouteIsInjectionThenTheModelsRouteThenEjection) {
  const auto topo = make_topology("torus:2x2x4,npr=2");
  const Parsed p = parse(simgrid_platform_xml(*topo, fixed_context()));
  for (const auto& src : topo->nodes()) {
    for (const auto& dst : topo->nodes()) {
      if (src.id == dst.id) {
        EXPECT_EQ(p.routes.count({src.name, dst.name}), 0U) << "SimGrid adds the loopback itself";
        continue;
      }
      std::vector<std::string> expected{simgrid_link_id(*topo, topo->injection_link(src.id))};
      for (const LinkId id : topo->route(src.id, dst.id)) {
        expected.push_back(simgrid_link_id(*topo, id));
      }
      expected.push_back(simgrid_link_id(*topo, topo->ejection_link(dst.id)));
      const auto it = p.routes.find({src.name, dst.name});
      ASSERT_NE(it, p.routes.end()) << src.name << " -> " << dst.name;
      EXPECT_EQ(it->second, expected) << src.name << " -> " << dst.name;
    }
  }
}

TEST(SimgridPlatform, PaperRouteOnTheGeminiTorus) {
  const auto topo = make_topology("torus:2x2x8");
  const Parsed p = parse(simgrid_platform_xml(*topo, fixed_context()));
  EXPECT_EQ(p.hosts.size(), 64U);
  const std::vector<std::string> expected{"nid00012:inject", "(0,0,6):X+", "(1,0,6):Y+",    "(1,1,6):Z-",
                                          "(1,1,5):Z-",      "(1,1,4):Z-", "nid00038:eject"};
  EXPECT_EQ(p.routes.at({"nid00012", "nid00038"}), expected);
  // Two nodes on one router cross their terminal links only.
  const std::vector<std::string> same_router{"nid00016:inject", "nid00017:eject"};
  EXPECT_EQ(p.routes.at({"nid00016", "nid00017"}), same_router);
}

TEST(SimgridPlatform, CapacitiesAndLatenciesComeFromTheModelAndOptions) {
  const auto topo = make_topology("torus:2x2x8,cap=9.375GB/s:4.6875GB/s:9.375GB/s,terminal=5GB/s");
  SimgridPlatformOptions options = fixed_context();
  options.network_latency_ps = 250;
  options.terminal_latency_ps = 1'000'000;
  options.host_speed_flops = 2.5e9;
  const std::string xml = simgrid_platform_xml(*topo, options);
  const Parsed p = parse(xml);
  EXPECT_EQ(p.link_bandwidth.at("(0,0,6):X+"), "9375000000Bps");
  EXPECT_EQ(p.link_bandwidth.at("(1,0,6):Y+"), "4687500000Bps");
  EXPECT_EQ(p.link_bandwidth.at("nid00012:inject"), "5000000000Bps");
  EXPECT_EQ(p.link_latency.at("(1,0,6):Y+"), "250ps");
  EXPECT_EQ(p.link_latency.at("nid00038:eject"), "1000ns");
  EXPECT_NE(xml.find("<host id=\"nid00000\" speed=\"2500000000f\"/>"), std::string::npos);
}

TEST(SimgridPlatform, DragonflyAndFatTreeRoutesToo) {
  for (const char* spec : {"dragonfly:g=3,a=2,p=2,h=1", "fattree:4x4,taper=2"}) {
    const auto topo = make_topology(spec);
    const std::string xml = simgrid_platform_xml(*topo, fixed_context());
    EXPECT_EQ(well_formed_problem(xml), "") << spec;
    const Parsed p = parse(xml);
    const std::size_t n = topo->nodes().size();
    EXPECT_EQ(p.routes.size(), n * (n - 1)) << spec;
    EXPECT_EQ(p.routes.at({topo->nodes().front().name, topo->nodes().back().name}).size(),
              topo->hop_count(0, static_cast<NodeId>(n - 1)) + 2)
        << spec;
  }
}

TEST(SimgridPlatform, TooManyNodesIsRefusedWithTheOptionToRaiseTheBound) {
  const auto topo = make_topology("torus:4x4x4,npr=4");  // 256 nodes
  SimgridPlatformOptions options = fixed_context();
  options.max_nodes = 100;
  try {
    (void)simgrid_platform_xml(*topo, options);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 256 nodes, more than the 100"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-nodes 256"), std::string::npos) << e.what();
  }
  const auto path = std::filesystem::path(::testing::TempDir()) / "gridlock_simgrid_refused.xml";
  std::filesystem::remove(path);
  EXPECT_THROW(write_simgrid_platform(*topo, options, path), InputError);
  EXPECT_FALSE(std::filesystem::exists(path)) << "a refused platform leaves no file";
}

TEST(SimgridPlatform, NamesAreEscapedAndTheCommentStaysAComment) {
  const auto dir = std::filesystem::path(::testing::TempDir());
  const auto coords = dir / "gridlock--simgrid-coords.txt";
  {
    std::ofstream out(coords);
    out << "a&b 0 0 0\nc<d 0 0 0\ne\"f 0 0 1\ng'h 0 0 1\n";
  }
  const auto topo = make_topology("torus:1x1x2,npr=2,coords=" + coords.string());
  SimgridPlatformOptions options;  // default context: holds the spec, with its "--" in the path
  const std::string xml = simgrid_platform_xml(*topo, options);
  EXPECT_EQ(well_formed_problem(xml), "");
  EXPECT_NE(xml.find("<host id=\"a&amp;b\""), std::string::npos);
  EXPECT_NE(xml.find("<host id=\"c&lt;d\""), std::string::npos);
  EXPECT_NE(xml.find("<host id=\"e&quot;f\""), std::string::npos);
  EXPECT_NE(xml.find("<host id=\"g&apos;h\""), std::string::npos);
  EXPECT_NE(xml.find("written by gridlock topo simgrid"), std::string::npos);
  std::filesystem::remove(coords);
}

TEST(SimgridPlatform, WritesTheSameBytesAsTheStringForm) {
  const auto topo = make_topology("torus:2x2x4");
  const auto path = std::filesystem::path(::testing::TempDir()) / "gridlock_simgrid_small.xml";
  write_simgrid_platform(*topo, fixed_context(), path);
  std::ifstream in(path);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, simgrid_platform_xml(*topo, fixed_context()));
  std::filesystem::remove(path);
}

TEST(SimgridPlatform, SpeedParsing) {
  EXPECT_DOUBLE_EQ(parse_speed_flops("1Gf"), 1e9);
  EXPECT_DOUBLE_EQ(parse_speed_flops("2.5e9"), 2.5e9);
  EXPECT_DOUBLE_EQ(parse_speed_flops("100Mflops"), 1e8);
  EXPECT_DOUBLE_EQ(parse_speed_flops("3kf"), 3e3);
  EXPECT_DOUBLE_EQ(parse_speed_flops("7f"), 7);
  EXPECT_THROW((void)parse_speed_flops("1Zf"), InputError);
  EXPECT_THROW((void)parse_speed_flops("Gf"), InputError);
  EXPECT_THROW((void)parse_speed_flops("0Gf"), InputError);
  EXPECT_THROW((void)parse_speed_flops("-1Gf"), InputError);
  EXPECT_THROW((void)parse_speed_flops(""), InputError);
  EXPECT_THROW((void)parse_speed_flops("1e400"), InputError);
}

}  // namespace
}  // namespace gridlock::topo
