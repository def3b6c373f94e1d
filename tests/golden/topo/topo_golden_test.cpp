// Golden routes: every line of routes.txt is recomputed and compared. The file is the reference;
// a change of routing shows up as a diff in review.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/topo/spec.hpp"

namespace gridlock::topo {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  const auto last = text.find_last_not_of(' ');
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

TEST(TopoGolden, RoutesMatchReferenceFile) {
  std::ifstream in(std::string(GRIDLOCK_GOLDEN_DIR) + "/topo/routes.txt");
  ASSERT_TRUE(in) << "cannot open routes.txt";
  std::string line;
  int checked = 0;
  bool saw_paper = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      const auto bar = line.find('|', start);
      fields.push_back(trim(line.substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
      if (bar == std::string::npos) {
        break;
      }
      start = bar + 1;
    }
    ASSERT_EQ(fields.size(), 4U) << line;
    const auto t = make_topology(fields[0]);
    EXPECT_EQ(t->route_text(t->node_id(fields[1]), t->node_id(fields[2])), fields[3]) << line;
    saw_paper = saw_paper || (fields[1] == "nid00012" && fields[2] == "nid00038");
    ++checked;
  }
  EXPECT_TRUE(saw_paper);
  EXPECT_GE(checked, 10);
}

}  // namespace
}  // namespace gridlock::topo
