// gridlock-bench's tables read by a parser written for the reference GPCNeT's output: the table
// titles and row names of each mode must be those of a captured GPCNeT 1.3 run
// (tests/golden/gpcnet/gpcnet-*.txt, the output text only; how they were captured is in
// tests/golden/gpcnet/README.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gridlock/gpcnet/results.hpp"
#include "gridlock/gpcnet/suite.hpp"

namespace gridlock::gpcnet {

namespace {

// One table of GPCNeT-style output: its title and the names in its first column.
struct Table {
  std::string title;
  std::vector<std::string> rows;
};

// The parser a facility would write for GPCNeT's output: a title is the one cell between two
// full-width bars; rows are `| name | ...` lines; the header rows ("Name", and the empty first
// cell above "Avg | 99%" in the key results) are skipped.
std::vector<Table> parse_tables(const std::string& text) {
  static const std::regex outer(R"(^\+-+\+$)");
  static const std::regex title(R"(^\| +(.*[^ ]) +\|$)");
  static const std::regex row(R"(^\| +([^|]*[^| ]) +\|.*\|$)");
  std::vector<Table> tables;
  std::istringstream lines(text);
  bool after_outer = false;
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, outer)) {
      after_outer = true;
      continue;
    }
    if (after_outer && std::regex_match(line, m, title) && line.find('|', 1) == line.size() - 1) {
      tables.push_back({m[1].str(), {}});
    } else if (!tables.empty() && std::regex_match(line, m, row) && m[1].str() != "Name") {
      tables.back().rows.push_back(m[1].str());
    }
    after_outer = false;
  }
  return tables;
}

std::string read_file(const std::string& name) {
  std::ifstream in(std::string(GRIDLOCK_GOLDEN_DIR) + "/gpcnet/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

CanaryResult canary(const CanarySpec& spec, double value) {
  CanaryResult c;
  c.key = spec.key;
  c.title = spec.title;
  c.units = spec.units;
  c.better = spec.better;
  for (int i = 1; i <= 100; ++i) {
    c.histogram.record(value * i);
  }
  c.fine = summarize(c.histogram);
  c.bulk_mean = c.fine.mean;
  return c;
}

// Our tables for the default options of `mode`, with made-up values (only names are compared).
std::string our_tables(Mode mode) {
  Options options;
  options.mode = mode;
  Report report;
  report.mode = mode;
  PhaseResult isolated{"isolated", {}, {}};
  PhaseResult loaded{"loaded", options.congestors, {}};
  for (const auto& spec : canary_specs(options)) {
    isolated.canaries.push_back(canary(spec, 1.0));
    loaded.canaries.push_back(canary(spec, spec.better == Better::kLower ? 2.0 : 0.5));
  }
  report.phases.push_back(isolated);
  if (mode == Mode::kLoad) {
    report.phases.push_back(loaded);
  }
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  EXPECT_NE(out, nullptr);
  print_tables(report, out);
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

// Every GPCNeT table appears in ours with the same title and rows, in the same order; `skip`
// names GPCNeT tables gridlock reports differently.
void expect_same_tables(const std::string& reference, const std::string& ours, const std::string& skip) {
  const auto theirs = parse_tables(reference);
  const auto mine = parse_tables(ours);
  ASSERT_FALSE(theirs.empty()) << reference;
  std::size_t next = 0;
  for (const auto& table : theirs) {
    if (table.title == skip) {
      continue;
    }
    while (next < mine.size() && mine[next].title != table.title) {
      ++next;
    }
    ASSERT_LT(next, mine.size()) << "GPCNeT table '" << table.title << "' missing (or out of order) in:\n"
                                 << ours;
    EXPECT_EQ(mine[next].rows, table.rows) << table.title;
    ++next;
  }
}

TEST(GpcnetTables, LoadModeTitlesAndRowsAreGpcnets) {
  // "Isolated Congestion Tests" is GPCNeT's table of congestor baselines (printed only when it is
  // built with VERBOSE); gridlock prints the congestors' throughput while the canaries ran instead.
  expect_same_tables(read_file("gpcnet-1.3-network_load_test.txt"), our_tables(Mode::kLoad),
                     "Isolated Congestion Tests");
}

TEST(GpcnetTables, NetworkModeTitlesAndRowsAreGpcnets) {
  expect_same_tables(read_file("gpcnet-1.3-network_test.txt"), our_tables(Mode::kNetwork), "");
}

TEST(GpcnetTables, ParserFindsEveryTableOfTheReference) {
  const auto tables = parse_tables(read_file("gpcnet-1.3-network_load_test.txt"));
  ASSERT_EQ(tables.size(), 3U);  // GPCNeT prints its congestor baselines only when built with VERBOSE
  EXPECT_EQ(tables[0].title, "Isolated Network Tests");
  EXPECT_EQ(tables[0].rows.size(), 3U);
  EXPECT_EQ(tables[2].title, "Network Tests running with Congestion Tests - Key Results");
  EXPECT_EQ(tables[2].rows.size(), 3U);
}

}  // namespace
}  // namespace gridlock::gpcnet
