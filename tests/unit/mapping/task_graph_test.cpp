// Task graphs: generated stencils and all-to-all, CSV and Matrix Market files, GOAL schedules, and
// every kind of bad spec or file refused with a message that says what and where.
#include "gridlock/mapping/task_graph.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir_test.hpp"

#include "gridlock/core/error.hpp"
#include "gridlock/mapping/task_graph_json.hpp"

namespace gridlock::mapping {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A fresh directory per test (tests may run in parallel processes).
class TaskGraphFiles : public TempDirTest {
 protected:
  TaskGraphFiles() : TempDirTest("gridlock_task_graph_") {}
};

template <typename F>
std::string io_error(F&& f) {
  try {
    f();
  } catch (const IoError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no IoError";
  return "";
}

std::string spec_error(const std::string& spec) {
  return input_error([&] { (void)parse_task_graph(spec); });
}

// The invariants every graph keeps: sorted unique pairs, no self messages, positive bytes, ids in range.
void expect_valid(const TaskGraph& g) {
  for (std::size_t i = 0; i < g.messages.size(); ++i) {
    const Message& m = g.messages[i];
    ASSERT_LT(m.src, g.num_tasks);
    ASSERT_LT(m.dst, g.num_tasks);
    ASSERT_NE(m.src, m.dst);
    ASSERT_GT(m.bytes, 0U);
    if (i > 0) {
      const Message& p = g.messages[i - 1];
      ASSERT_TRUE(p.src < m.src || (p.src == m.src && p.dst < m.dst)) << i;
    }
  }
}

bool has_message(const TaskGraph& g, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
  return std::find(g.messages.begin(), g.messages.end(), Message{src, dst, bytes}) != g.messages.end();
}

TEST(TaskGraph, Stencil3dCountsHandComputed) {
  // 2x2x2: every task has one neighbour per dimension.
  const TaskGraph small = parse_task_graph("stencil3d:2x2x2");
  expect_valid(small);
  EXPECT_EQ(small.num_tasks, 8U);
  EXPECT_EQ(small.messages.size(), 24U);
  EXPECT_EQ(small.spec, "stencil3d:2x2x2,bytes=20000");
  EXPECT_EQ(small.total_bytes(), 24U * kDefaultStencilBytes);
  // 4x4x4: 3 dimensions x 16 lines x 3 links x 2 directions.
  const TaskGraph g = parse_task_graph("stencil3d:4x4x4,bytes=1KiB");
  expect_valid(g);
  EXPECT_EQ(g.messages.size(), 288U);
  EXPECT_EQ(g.spec, "stencil3d:4x4x4,bytes=1024");
  EXPECT_EQ(g.total_bytes(), 288U * 1024U);
  // Task 0 at (0,0,0) sends to 1 (x+), 4 (y+) and 16 (z+).
  EXPECT_EQ(g.messages[0], (Message{0, 1, 1024}));
  EXPECT_EQ(g.messages[1], (Message{0, 4, 1024}));
  EXPECT_EQ(g.messages[2], (Message{0, 16, 1024}));
  ASSERT_EQ(g.coords.size(), 64U);
  // Task 1 + 4*(2 + 4*3) = 57 is at (1, 2, 3).
  EXPECT_EQ(g.coords[57], (std::array<double, 3>{1, 2, 3}));
}

TEST(TaskGraph, Stencil3dPeriodic) {
  const TaskGraph g = parse_task_graph("stencil3d:4x4x4,bytes=20000,periodic");
  expect_valid(g);
  EXPECT_EQ(g.messages.size(), 64U * 6U);
  EXPECT_EQ(g.spec, "stencil3d:4x4x4,bytes=20000,periodic");
  EXPECT_TRUE(has_message(g, 0, 3, 20000));   // x wraps
  EXPECT_TRUE(has_message(g, 0, 12, 20000));  // y wraps
  EXPECT_TRUE(has_message(g, 0, 48, 20000));  // z wraps
  const TaskGraph odd = parse_task_graph("stencil3d:3x3x3,periodic");
  expect_valid(odd);
  EXPECT_EQ(odd.messages.size(), 27U * 6U);
}

// The size-2 rule: x+1 and x-1 are the same task, so one message of B bytes (not 2B, not two
// messages); size 1 adds nothing (no self messages).
TEST(TaskGraph, PeriodicSmallDimensionsDoNotDoubleCountOrSelfSend) {
  const TaskGraph two = parse_task_graph("stencil3d:2x2x2,bytes=100,periodic");
  expect_valid(two);
  EXPECT_EQ(two.messages.size(), 24U);
  EXPECT_EQ(two.total_bytes(), 2400U);
  EXPECT_EQ(two.messages, parse_task_graph("stencil3d:2x2x2,bytes=100").messages);
  const TaskGraph line = parse_task_graph("stencil3d:1x1x5,bytes=8,periodic");
  expect_valid(line);
  EXPECT_EQ(line.messages.size(), 10U);  // a ring of 5
  const TaskGraph mixed = parse_task_graph("stencil3d:1x2x3,bytes=8,periodic");
  expect_valid(mixed);
  // 6 tasks: 1 neighbour in y (size 2), 2 in z (size 3 wraps), none in x.
  EXPECT_EQ(mixed.messages.size(), 6U * 3U);
  EXPECT_THAT(spec_error("stencil3d:1x1x1,periodic"), HasSubstr("has no edges: nothing to map"));
}

TEST(TaskGraph, Stencil2d) {
  const TaskGraph g = parse_task_graph("stencil2d:3x2,bytes=10");
  expect_valid(g);
  // 3x2 grid: x links 2 per row x 2 rows, y links 3: 7 links, 14 messages.
  EXPECT_EQ(g.messages.size(), 14U);
  EXPECT_EQ(g.spec, "stencil2d:3x2,bytes=10");
  EXPECT_EQ(g.coords[5], (std::array<double, 3>{2, 1, 0}));
  const TaskGraph p = parse_task_graph("stencil2d:4x4,periodic");
  EXPECT_EQ(p.messages.size(), 64U);
  EXPECT_EQ(p.spec, "stencil2d:4x4,bytes=20000,periodic");
  EXPECT_EQ(stencil2d({4, 4}, 20000, true).messages, p.messages);
}

TEST(TaskGraph, LargeStencilBuildsQuickly) {
  const auto start = std::chrono::steady_clock::now();
  const TaskGraph g = parse_task_graph("stencil3d:64x32x32,periodic");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(g.num_tasks, 65536U);
  EXPECT_EQ(g.messages.size(), 65536U * 6U);
  expect_valid(g);
  // Generous, for sanitizer builds on a loaded machine: it takes a few milliseconds in release.
  EXPECT_LT(seconds, 5.0);
}

TEST(TaskGraph, Alltoall) {
  const TaskGraph g = parse_task_graph("alltoall:5,bytes=1kB");
  expect_valid(g);
  EXPECT_EQ(g.messages.size(), 20U);
  EXPECT_EQ(g.spec, "alltoall:5,bytes=1000");
  EXPECT_EQ(g.total_bytes(), 20000U);
  EXPECT_TRUE(g.coords.empty());
  EXPECT_EQ(parse_task_graph("alltoall:2").spec, "alltoall:2,bytes=20000");
  EXPECT_THAT(spec_error("alltoall:1"), HasSubstr("has no edges: nothing to map"));
  EXPECT_THAT(spec_error("alltoall:16385"), HasSubstr("at most 16384 tasks"));
  EXPECT_THAT(spec_error("alltoall:65536"), HasSubstr("at most 16384 tasks"));
  EXPECT_THAT(input_error([] { (void)alltoall(20000, 8); }), HasSubstr("1 to 16384 tasks"));
  EXPECT_THAT(spec_error("alltoall:4,periodic"), HasSubstr("unknown option 'periodic'"));
}

TEST(TaskGraph, SummaryJson) {
  const Json s = summary_json(parse_task_graph("stencil2d:2x2,bytes=8"));
  EXPECT_EQ(s["spec"], "stencil2d:2x2,bytes=8");
  EXPECT_EQ(s["tasks"], 4);
  EXPECT_EQ(s["messages"], 8);
  EXPECT_EQ(s["total_bytes"], 64);
}

TEST(TaskGraph, MakeTaskGraphSumsSortsAndValidates) {
  const TaskGraph g = make_task_graph(3, {{2, 0, 5}, {0, 1, 1}, {2, 0, 7}, {1, 2, 0}}, "test");
  expect_valid(g);
  EXPECT_EQ(g.messages, (std::vector<Message>{{0, 1, 1}, {2, 0, 12}}));
  EXPECT_THAT(input_error([] {
                (void)make_task_graph(3, {{0, 3, 1}}, "t", "here");
              }),
              HasSubstr("here: a message from task 0 to task 3"));
  EXPECT_THAT(input_error([] { (void)make_task_graph(3, {{1, 1, 1}}, "t"); }), HasSubstr("to itself"));
  EXPECT_THAT(input_error([] { (void)make_task_graph(0, {}, "t"); }), HasSubstr("1 to"));
  EXPECT_THAT(input_error([] { (void)make_task_graph(kMaxTasks + 1, {}, "t"); }), HasSubstr("1 to 4194304"));
  EXPECT_THAT(input_error([] {
                (void)make_task_graph(2, {{0, 1, ~0ULL}, {0, 1, 1}}, "t");
              }),
              HasSubstr("2^64"));
  EXPECT_THAT(input_error([] {
                (void)make_task_graph(3, {{0, 1, ~0ULL}, {0, 2, 1}}, "t");
              }),
              HasSubstr("2^64"));
  EXPECT_THAT(input_error([] {
                (void)make_task_graph(2, {{0, 1, 0}}, "t");
              }),
              HasSubstr("task graph 't' has no edges: nothing to map"));
}

TEST(TaskGraph, BadSpecs) {
  EXPECT_THAT(spec_error("stencil3d"), HasSubstr("no ':'"));
  EXPECT_THAT(spec_error("stencil3d"), HasSubstr("accepted forms"));
  EXPECT_THAT(spec_error("ring:4"), HasSubstr("unknown kind 'ring'"));
  EXPECT_THAT(spec_error(""), HasSubstr("no ':'"));
  EXPECT_THAT(spec_error("stencil3d:4x4"), HasSubstr("must have 3 sizes"));
  EXPECT_THAT(spec_error("stencil2d:4x4x4"), HasSubstr("must have 2 sizes"));
  EXPECT_THAT(spec_error("stencil3d:4x0x4"), HasSubstr("a size is 0"));
  EXPECT_THAT(spec_error("stencil3d:4x-1x4"), HasSubstr("size '-1' is not a positive integer"));
  EXPECT_THAT(spec_error("stencil3d:4xax4"), HasSubstr("size 'a' is not a positive integer"));
  EXPECT_THAT(spec_error("stencil3d:4x4x4z"), HasSubstr("size '4z' is not a positive integer"));
  EXPECT_THAT(spec_error("stencil3d:4x4x"), HasSubstr("size '' is not"));
  EXPECT_THAT(spec_error("stencil3d: 4x4x4"), HasSubstr("size ' 4' is not"));
  EXPECT_THAT(spec_error("stencil3d:4096x4096x4096"), HasSubstr("more than 4194304 tasks"));
  EXPECT_THAT(spec_error("stencil3d:99999999999999999999x1x1"), HasSubstr("is not a positive integer"));
  EXPECT_THAT(spec_error("stencil3d:4294967296x4294967296x1"), HasSubstr("more than 4194304 tasks"));
  EXPECT_THAT(spec_error("stencil2d:2048x2049"), HasSubstr("more than 4194304 tasks"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,bytes=0"), HasSubstr("bytes=0"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,bytes=-5"), HasSubstr("message size (bytes=)"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,bytes=lots"), HasSubstr("message size (bytes=)"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,bytes="), HasSubstr("message size (bytes=)"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,bytes"), HasSubstr("'bytes' needs a value"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,bytes=1,bytes=2"), HasSubstr("given twice"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,periodic,periodic"), HasSubstr("given twice"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,periodic=yes"), HasSubstr("takes no value"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,size=4"), HasSubstr("unknown option 'size'"));
  EXPECT_THAT(spec_error("stencil3d:2x2x2,"), HasSubstr("empty option"));
  EXPECT_THAT(spec_error("alltoall:"), HasSubstr("task count '' is not a positive integer"));
  EXPECT_THAT(spec_error("alltoall:0"), HasSubstr("task count '0'"));
  EXPECT_THAT(spec_error("alltoall:1e3"), HasSubstr("task count '1e3'"));
  EXPECT_THAT(spec_error("matrix:"), HasSubstr("needs a file name"));
  EXPECT_THAT(spec_error("goal:"), HasSubstr("needs a file name"));
  // The whole graph's bytes must fit in 64 bits.
  EXPECT_THAT(input_error([] { (void)stencil3d({2, 2, 2}, ~0ULL, false); }), HasSubstr("2^64"));
  EXPECT_THAT(input_error([] { (void)stencil3d({2, 0, 2}, 8, false); }), HasSubstr("1 to 4194304 tasks"));
  EXPECT_THAT(input_error([] { (void)stencil3d({2, 2, 2}, 0, false); }), HasSubstr("0 bytes"));
}

TEST(TaskGraph, InputsOfSpecs) {
  EXPECT_EQ(task_graph_inputs("matrix:/tmp/m.csv"), (std::vector<fs::path>{"/tmp/m.csv"}));
  EXPECT_EQ(task_graph_inputs("goal:run.goal"), (std::vector<fs::path>{"run.goal"}));
  EXPECT_TRUE(task_graph_inputs("stencil3d:2x2x2").empty());
  EXPECT_TRUE(task_graph_inputs("matrix:").empty());
  EXPECT_TRUE(task_graph_inputs("nonsense").empty());
}

TEST_F(TaskGraphFiles, CsvWithHeaderCommentsAndRepeatedPairs) {
  const fs::path path = write("m.csv",
                              "# communication matrix\n"
                              "src,dst,bytes\r\n"
                              "0,1,100\n"
                              "\n"
                              " 2 , 0 , 50 \n"
                              "0,1,23\n"
                              "# a comment line\n"
                              "3,3,999\n"  // the diagonal is left out
                              "1,2,0\n");  // zero bytes are dropped
  const TaskGraph g = parse_task_graph("matrix:" + path.string());
  expect_valid(g);
  EXPECT_EQ(g.num_tasks, 4U);  // the largest id + 1, even from a left-out entry
  EXPECT_EQ(g.messages, (std::vector<Message>{{0, 1, 123}, {2, 0, 50}}));
  EXPECT_EQ(g.spec, "matrix:" + path.string());
  EXPECT_TRUE(g.coords.empty());
  // No header at all is fine too.
  EXPECT_EQ(read_matrix_file(write("n.csv", "0,1,8")).messages, (std::vector<Message>{{0, 1, 8}}));
}

TEST_F(TaskGraphFiles, CsvErrorsNameFileAndLine) {
  const auto error = [&](const std::string& content) {
    const fs::path path = write("bad.csv", content);
    return input_error([&] { (void)read_matrix_file(path); });
  };
  EXPECT_THAT(error("0,1,8\n1,x,8\n"), HasSubstr("bad.csv:2: dst 'x' is not a 0-based task number"));
  EXPECT_THAT(error("0,1,8\n1,0\n"), HasSubstr("bad.csv:2: expected 'src,dst,bytes' (three fields)"));
  EXPECT_THAT(error("0,1,-8\n"), HasSubstr("bad.csv:1: bytes '-8' is not a non-negative integer"));
  EXPECT_THAT(error("0,1,8kB\n"), HasSubstr("bad.csv:1: bytes '8kB'"));
  EXPECT_THAT(error("0,1,99999999999999999999\n"), HasSubstr("bad.csv:1: bytes"));
  EXPECT_THAT(error("0,4194304,8\n"), HasSubstr("bad.csv:1: dst 4194304 is beyond the 4194304 tasks"));
  EXPECT_THAT(error("0,1,18446744073709551615\n0,1,1\n"), HasSubstr("2^64"));
  EXPECT_THAT(error("src,dst,bytes\n0,1,2\nsrc,dst,bytes\n"), HasSubstr("bad.csv:3: src 'src'"));
  EXPECT_THAT(error("src,dst,bytes\n# nothing\n"), HasSubstr("no 'src,dst,bytes' lines"));
  EXPECT_THAT(error("0,0,8\n"), HasSubstr("has no edges: nothing to map"));
  EXPECT_THAT(error(""), HasSubstr("is empty"));
  EXPECT_THAT(error(" \n\n"), HasSubstr("is empty"));
}

TEST_F(TaskGraphFiles, MatrixMarketGeneralSymmetricPattern) {
  const TaskGraph general = read_matrix_file(write("g.mtx",
                                                   "%%MatrixMarket matrix coordinate integer general\n"
                                                   "% a comment\n"
                                                   "3 3 3\n"
                                                   "1 2 10\n"
                                                   "3 1 5\n"
                                                   "1 2 1\n"));
  expect_valid(general);
  EXPECT_EQ(general.num_tasks, 3U);
  EXPECT_EQ(general.messages, (std::vector<Message>{{0, 1, 11}, {2, 0, 5}}));

  const TaskGraph symmetric = read_matrix_file(write("s.mtx",
                                                     "%%MatrixMarket matrix coordinate real symmetric\n"
                                                     "4 4 3\n"
                                                     "2 1 1.5e3\n"
                                                     "4 3 0.2\n"   // rounds to 0 but keeps 1 byte
                                                     "2 2 7\n"));  // diagonal: left out
  expect_valid(symmetric);
  EXPECT_EQ(symmetric.num_tasks, 4U);
  EXPECT_EQ(symmetric.messages, (std::vector<Message>{{0, 1, 1500}, {1, 0, 1500}, {2, 3, 1}, {3, 2, 1}}));

  const TaskGraph pattern = read_matrix_file(write("p.mtx",
                                                   "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                                   "3 3 2\n"
                                                   "2 1\n"
                                                   "3 2\n"));
  expect_valid(pattern);
  EXPECT_EQ(pattern.messages, (std::vector<Message>{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 1, 1}}));
  EXPECT_EQ(pattern.num_tasks, 3U);
}

TEST_F(TaskGraphFiles, MatrixMarketErrors) {
  const auto error = [&](const std::string& content) {
    const fs::path path = write("bad.mtx", content);
    return input_error([&] { (void)read_matrix_file(path); });
  };
  const std::string general = "%%MatrixMarket matrix coordinate integer general\n";
  EXPECT_THAT(error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"),
              HasSubstr("bad.mtx:1: expected '%%MatrixMarket matrix coordinate"));
  EXPECT_THAT(error("%%MatrixMarket matrix coordinate complex general\n"), HasSubstr("field 'complex'"));
  EXPECT_THAT(error("%%MatrixMarket matrix coordinate real skew-symmetric\n"),
              HasSubstr("symmetry 'skew-symmetric'"));
  EXPECT_THAT(error(general), HasSubstr("no size line"));
  EXPECT_THAT(error(general + "2 3 1\n1 2 3\n"), HasSubstr("bad.mtx:2: the matrix is 2 x 3"));
  EXPECT_THAT(error(general + "0 0 0\n"), HasSubstr("bad.mtx:2: the matrix has 0 rows"));
  EXPECT_THAT(error(general + "5000000 5000000 1\n"), HasSubstr("the matrix has 5000000 rows"));
  EXPECT_THAT(error(general + "2 2\n"), HasSubstr("bad.mtx:2: expected the size line"));
  EXPECT_THAT(error(general + "2 2 x\n"), HasSubstr("three non-negative integers"));
  EXPECT_THAT(error(general + "2 2 1\n1 3 4\n"),
              HasSubstr("bad.mtx:3: entry (1, 3) is outside the 2 x 2 matrix"));
  EXPECT_THAT(error(general + "2 2 1\n0 1 4\n"), HasSubstr("bad.mtx:3: row is 0"));
  EXPECT_THAT(error(general + "2 2 1\n1 2\n"), HasSubstr("bad.mtx:3: expected 'ROW COLUMN VALUE'"));
  EXPECT_THAT(error(general + "2 2 1\n1 2 2.5\n"), HasSubstr("bad.mtx:3: bytes '2.5'"));
  EXPECT_THAT(error(general + "2 2 2\n1 2 4\n"), HasSubstr("1 entries, but the size line announces 2"));
  EXPECT_THAT(error(general + "2 2 1\n1 2 4\n2 1 4\n"), HasSubstr("bad.mtx:4: more entries than the 1"));
  EXPECT_THAT(error(general + "2 2 1\n1 1 4\n"), HasSubstr("has no edges: nothing to map"));
  const std::string real = "%%MatrixMarket matrix coordinate real general\n2 2 1\n";
  EXPECT_THAT(error(real + "1 2 -1\n"), HasSubstr("bad.mtx:3: value '-1' is negative"));
  EXPECT_THAT(error(real + "1 2 nan\n"), HasSubstr("is not a finite number"));
  EXPECT_THAT(error(real + "1 2 1e30\n"), HasSubstr("2^64 bytes or more"));
  const std::string pattern = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n";
  EXPECT_THAT(error(pattern + "1 2 3\n"), HasSubstr("expected 'ROW COLUMN'"));
}

TEST_F(TaskGraphFiles, NonRegularFilesAreRefusedBeforeReading) {
  EXPECT_THAT(io_error([&] { (void)parse_task_graph("matrix:" + dir_.string()); }),
              HasSubstr("is a directory"));
  EXPECT_THAT(io_error([] { (void)parse_task_graph("matrix:/dev/zero"); }), HasSubstr("a character device"));
  EXPECT_THAT(io_error([] { (void)parse_task_graph("goal:/dev/zero"); }), HasSubstr("a character device"));
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO without a writer would block this test forever: it must not be opened.
  EXPECT_THAT(io_error([&] { (void)read_matrix_file(fifo); }), HasSubstr("a FIFO"));
  EXPECT_THAT(io_error([&] { (void)read_schedule_graph(fifo); }), HasSubstr("a FIFO"));
  EXPECT_THAT(io_error([&] { (void)read_matrix_file(dir_ / "missing.csv"); }), HasSubstr("no such file"));
  // Above 1 GiB (a sparse file: no disk space used).
  const fs::path big = dir_ / "big.csv";
  { std::ofstream(big) << "0,1,1\n"; }
  fs::resize_file(big, (std::uintmax_t{1} << 30U) + 1);
  EXPECT_THAT(input_error([&] { (void)read_matrix_file(big); }), HasSubstr("more than the limit of 1 GiB"));
}

TEST_F(TaskGraphFiles, GoalScheduleSumsSendsPerPair) {
  const fs::path path = write("run.goal",
                              "num_ranks 4\n"
                              "rank 0 {\n"
                              "  l1: send 100b to 1\n"
                              "  l2: send 20b to 1\n"
                              "  l3: send 7b to 3\n"
                              "  l4: calc 50\n"
                              "  l5: send 9b to 0\n"  // to itself: left out
                              "  l2 requires l1\n"
                              "}\n"
                              "rank 1 {\n"
                              "  recv 100b from 0\n"
                              "  recv 20b from 0\n"
                              "  send 5b to 0\n"
                              "}\n"
                              "rank 3 {\n"
                              "  recv 7b from -1 tag -1\n"
                              "}\n");
  const TaskGraph g = parse_task_graph("goal:" + path.string());
  expect_valid(g);
  EXPECT_EQ(g.num_tasks, 4U);
  EXPECT_EQ(g.messages, (std::vector<Message>{{0, 1, 120}, {0, 3, 7}, {1, 0, 5}}));
  EXPECT_EQ(g.spec, "goal:" + path.string());
  EXPECT_EQ(task_graph_inputs(g.spec), (std::vector<fs::path>{path}));
}

TEST_F(TaskGraphFiles, GoalErrors) {
  const fs::path no_sends =
      write("recv.goal", "num_ranks 2\nrank 0 {\n  calc 10\n}\nrank 1 {\n  calc 5\n}\n");
  EXPECT_THAT(input_error([&] { (void)read_schedule_graph(no_sends); }),
              HasSubstr("has no sends: nothing to map"));
  const fs::path self = write("self.goal", "num_ranks 2\nrank 0 {\n  send 8b to 0\n  recv 8b from 0\n}\n");
  EXPECT_THAT(input_error([&] { (void)read_schedule_graph(self); }),
              HasSubstr("has no edges: nothing to map"));
  const fs::path huge = write("huge.goal", "num_ranks 4000000000\n");
  EXPECT_THAT(input_error([&] { (void)read_schedule_graph(huge); }), HasSubstr("huge.goal:1"));
  const fs::path bad = write("bad.goal", "num_ranks 2\nrank 0 {\n  send 8b to 5\n}\n");
  EXPECT_THAT(input_error([&] { (void)read_schedule_graph(bad); }), HasSubstr("bad.goal:3"));
  EXPECT_THAT(io_error([&] { (void)read_schedule_graph(dir_ / "missing.goal"); }), HasSubstr("no such file"));
}

}  // namespace
}  // namespace gridlock::mapping
