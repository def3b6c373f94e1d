// GOAL text parser (strict errors), writer, binary format round trips.
#include "gridlock/sim/goal.hpp"

#include <unistd.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gridlock/core/output.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"

namespace gridlock::sim {
namespace {

constexpr std::string_view kExample = R"(// A LogGOPSim-style schedule
num_ranks 3
rank 2 {
  l1: recv 8b from -1 tag -1  /* any source */
  l2: calc 100 cpu 0
  l2 requires l1
}
rank 0 {
l1: send 8b to 2 tag 4 cpu 0 nic 0
l2: send 70000b to 1
l3: calc 2.5us
l3 irequires l1
l3 requires l2
}
rank 1 {
recv 70000b from 0
}
)";

TEST(Goal, ParsesLogGOPSimSyntax) {
  const Schedule s = parse_goal(kExample, "example.goal");
  ASSERT_EQ(s.num_ranks(), 3U);
  const Program& r0 = s.program_of(0);
  ASSERT_EQ(r0.ops.size(), 3U);
  EXPECT_EQ(r0.ops[0].type, OpType::kSend);
  EXPECT_EQ(s.peer(0, 0), 2U);
  EXPECT_EQ(r0.ops[0].tag, 4U);
  EXPECT_EQ(r0.ops[1].size, 70000U);
  EXPECT_EQ(r0.ops[2].type, OpType::kCalc);
  EXPECT_EQ(r0.ops[2].size, 2500U * 1000U);
  EXPECT_EQ(r0.dep_count[2], 2U);
  EXPECT_EQ(std::vector<std::uint32_t>(r0.roots.begin(), r0.roots.end()), (std::vector<std::uint32_t>{0, 1}));
  const Program& r2 = s.program_of(2);
  EXPECT_EQ(r2.ops[0].peer_offset, kAnySource);
  EXPECT_EQ(r2.ops[0].tag, kAnyTag);
  EXPECT_EQ(r2.ops[1].size, 100U * 1000U);  // bare calc values are nanoseconds
  ASSERT_EQ(s.sources().size(), 3U);
  EXPECT_EQ(s.sources()[2].where[0].line, 4U);
  EXPECT_EQ(s.label_of(2, 0), "l1");
  EXPECT_EQ(s.label_of(2, 1), "l2");
  EXPECT_EQ(s.label_of(0, 2), "l3");
  EXPECT_EQ(s.label_of(1, 0), "");   // rank 1's op has no label
  EXPECT_EQ(s.label_of(99, 0), "");  // no such rank
  // Each name is kept once, however many ranks use it.
  EXPECT_EQ(s.label_names(), (std::vector<std::string>{"l1", "l2", "l3"}));
}

TEST(Goal, IdenticalRelativeProgramsAreShared) {
  std::string text = "num_ranks 64\n";
  for (int r = 0; r < 64; ++r) {
    text += "rank " + std::to_string(r) + " {\nsend 8b to " + std::to_string((r + 1) % 64) +
            "\nrecv 8b from " + std::to_string((r + 63) % 64) + "\n}\n";
  }
  const Schedule s = parse_goal(text);
  EXPECT_EQ(s.programs().size(), 1U);
  EXPECT_EQ(s.total_ops(), 128U);
}

// Consecutive equal ranks reuse the previous program without building it again; the shortcut
// must never hand a rank a program that differs from its own, in ops or in edges.
TEST(ScheduleBuilderTest, ConsecutiveRanksShareOnlyEqualPrograms) {
  ScheduleBuilder b(6);
  const auto build = [&b](std::uint32_t rank, std::uint64_t bytes, bool irequires) {
    b.begin_rank(rank);
    const std::uint32_t r = b.recv(bytes, (rank + 5) % 6);
    const std::uint32_t s = b.send(bytes, (rank + 1) % 6);
    if (irequires) {
      b.add_irequires(s, r);
    } else {
      b.add_requires(s, r);
    }
    b.end_rank();
  };
  build(0, 8, false);
  build(1, 8, false);   // same as rank 0
  build(2, 16, false);  // other size
  build(3, 16, false);  // same as rank 2
  build(4, 16, true);   // other edge kind
  build(5, 8, false);   // same as rank 0, not as the previous rank
  const Schedule s = b.finish();
  ASSERT_EQ(s.programs().size(), 3U);
  const std::vector<std::uint32_t>& id = s.rank_program();
  EXPECT_EQ(id[0], id[1]);
  EXPECT_EQ(id[2], id[3]);
  EXPECT_EQ(id[0], id[5]);
  EXPECT_NE(id[0], id[2]);
  EXPECT_NE(id[2], id[4]);
  EXPECT_EQ(s.program_of(3).ops[0].size, 16U);
  EXPECT_EQ(s.program_of(4).succ_begin[2 * 0 + 2] - s.program_of(4).succ_begin[2 * 0 + 1], 1U);
}

struct BadInput {
  const char* text;
  const char* message;
};

// The case's name in CTest (gtest_discover_tests prints the parameter): without it the name held
// the bytes of the two pointers, which changed from one build to the next.
void PrintTo(const BadInput& input, std::ostream* out) { *out << input.message; }

class GoalErrors : public testing::TestWithParam<BadInput> {};

TEST_P(GoalErrors, NamesFileLineColumnExpectedAndFound) {
  try {
    (void)parse_goal(GetParam().text, "bad.goal");
    FAIL() << "accepted: " << GetParam().text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos)
        << "message: " << e.what() << "\nwanted: " << GetParam().message;
    EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Parser, GoalErrors,
    testing::Values(
        BadInput{"", "bad.goal:1:1: expected 'num_ranks N', found end of file"},
        BadInput{"rank 0 {\n}\n", "bad.goal:1:1: expected 'num_ranks N' before the first rank block"},
        BadInput{"num_ranks 0\n", "bad.goal:1:11: expected a number of ranks between 1"},
        BadInput{"num_ranks 2\nnum_ranks 2\n", "bad.goal:2:1: expected at most one 'num_ranks'"},
        BadInput{"num_ranks 99999999999999999999\n",
                 "bad.goal:1:11: expected the number of ranks below 2^64"},
        BadInput{"num_ranks 2\nrank 2 {\n}\n",
                 "bad.goal:2:6: expected a rank below num_ranks 2, found rank 2"},
        BadInput{"num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", "bad.goal:4:1: expected each rank block once"},
        BadInput{"num_ranks 2\nrank 0 \n send",
                 "bad.goal:3:2: expected '{' opening the rank block, found 'send'"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b to 1\n", "bad.goal:4:1: expected '}' closing rank 0"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8 to 1\n}\n",
                 "bad.goal:3:8: expected 'b' after the message size, found 'to'"},
        BadInput{"num_ranks 2\nrank 0 {\nsend b to 1\n}\n", "bad.goal:3:6: expected a message size"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b from 1\n}\n", "bad.goal:3:9: expected 'to', found 'from'"},
        BadInput{"num_ranks 2\nrank 0 {\nrecv 8b to 1\n}\n", "bad.goal:3:9: expected 'from', found 'to'"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b to 2\n}\n",
                 "bad.goal:3:12: expected a peer below num_ranks 2, found peer 2"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b to -1\n}\n", "bad.goal:3:12: expected a rank, found '-1'"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b to 1 tag -1\n}\n",
                 "bad.goal:3:18: expected a non-negative tag"},
        BadInput{"num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 4294967295\n}\n",
                 "bad.goal:3:20: expected a tag below"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 99999999999999999999b to 1\n}\n",
                 "bad.goal:3:6: expected a message size such as '8b' below 2^64"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b to 1 cpu 256\n}\n",
                 "bad.goal:3:18: expected a CPU number between 0 and 255"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b to 1 tag 1 tag 2\n}\n",
                 "bad.goal:3:20: expected 'tag', 'cpu', 'nic'"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b to 1 x\n}\n", "bad.goal:3:14: expected 'tag', 'cpu', 'nic'"},
        BadInput{"num_ranks 2\nrank 0 {\nsend 8b to 1 ;\n}\n",
                 "bad.goal:3:14: expected the end of the line, found ';'"},
        BadInput{"num_ranks 2\nrank 0 {\ncalc x\n}\n", "bad.goal:3:6: expected a computation time"},
        BadInput{"num_ranks 2\nrank 0 {\ncalc 2.5\n}\n", "bad.goal:3:6: expected a computation time such as"},
        BadInput{"num_ranks 2\nrank 0 {\ncalc 99999999999999999\n}\n",
                 "bad.goal:3:6: expected a computation time below 2^64 ps"},
        BadInput{"num_ranks 2\nrank 0 {\ncalc 5 nic 1\n}\n",
                 "bad.goal:3:8: expected 'cpu' or the end of the line"},
        BadInput{"num_ranks 2\nrank 0 {\na: b\n}\n",
                 "bad.goal:3:4: expected 'send', 'recv' or 'calc' after label 'a'"},
        BadInput{"num_ranks 2\nrank 0 {\na b\n}\n",
                 "bad.goal:3:3: expected ':', 'requires' or 'irequires' after 'a'"},
        BadInput{"num_ranks 2\nrank 0 {\na: calc 1\na requires\n}\n",
                 "bad.goal:4:11: expected a label, found end of line"},
        BadInput{"num_ranks 2\nrank 0 {\na: calc 1\na: calc 2\n}\n",
                 "bad.goal:4:1: expected a label defined once per rank"},
        BadInput{"num_ranks 2\nrank 0 {\na: calc 1\na requires zz\n}\n",
                 "bad.goal:4:12: expected a label defined in rank 0, found undefined label 'zz'"},
        BadInput{"num_ranks 2\nrank 0 {\na: calc 1\nqq requires a\n}\n",
                 "bad.goal:4:1: expected a label defined in rank 0, found undefined label 'qq'"},
        BadInput{"num_ranks 2\nrank 1 {\na: calc 1\n}\nrank 0 {\nb: calc 1\nb requires a\n}\n",
                 "bad.goal:7:12: expected a label defined in rank 0"},
        BadInput{"num_ranks 2\nrank 0 {\na: calc 1\nb: calc 1\na requires b\nb requires a\n}\n",
                 "bad.goal:2:1: expected dependencies without cycles in rank 0, found the cycle"},
        BadInput{"num_ranks 2\nrank 0 {\na: calc 1\na irequires a\n}\n", "found the cycle a -> a"},
        BadInput{"num_ranks 2\nrank 0 {\nrank 1 {\n}\n",
                 "bad.goal:3:1: expected '}' closing rank 0 before 'rank'"},
        BadInput{"num_ranks 2\nsend 8b to 1\n", "bad.goal:2:1: expected 'num_ranks' or 'rank', found 'send'"},
        BadInput{"num_ranks 2\n/* never closed\n",
                 "bad.goal:2:1: expected '*/' closing this comment, found end of file"},
        BadInput{"num_ranks 2\n\x01", "bad.goal:2:1: expected 'num_ranks' or 'rank', found byte 0x01"},
        BadInput{"num_ranks 2\nrank 0 {\n@\n}\n",
                 "bad.goal:3:1: expected an operation (send, recv, calc), a label or '}', found '@'"}));

TEST(Goal, AcceptsCommentsAnywhereAndClosingBraceOnTheOpLine) {
  const Schedule s = parse_goal(
      "num_ranks 2 // two\n/* block\n comment */ rank 0 { send 8b to 1 /* c */ }\nrank 1 {\r\nrecv 8b from 0 "
      "// x\r\n}\n");
  EXPECT_EQ(s.program_of(0).ops.size(), 1U);
  EXPECT_EQ(s.program_of(1).ops.size(), 1U);
}

// Regression: a file saved with a UTF-8 byte-order mark (Windows editors) failed at 1:1 with
// "found byte 0xef"; the mark is skipped and columns on line 1 count from after it.
TEST(Goal, Utf8ByteOrderMarkIsSkipped) {
  const Schedule s = parse_goal("\xEF\xBB\xBFnum_ranks 2\r\nrank 0 {\r\nsend 8b to 1\r\n}\r\n");
  EXPECT_EQ(s.num_ranks(), 2U);
  EXPECT_EQ(s.program_of(0).ops.size(), 1U);
  try {
    (void)parse_goal("\xEF\xBB\xBFnum_ranks x\n", "bom.goal");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "bom.goal:1:11: expected the number of ranks, found 'x'");
  }
}

// Regression: columns counted bytes, so an error after non-ASCII text on its line (a comment,
// UTF-8) was reported further right than editors show it. Columns count code points.
TEST(Goal, ErrorColumnsCountCharactersNotBytes) {
  const auto error_of = [](std::string_view text) {
    try {
      (void)parse_goal(text, "u.goal");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // "/* \u00fcn\u00efc\u00f6d\u00e9 */ " is 14 characters (18 bytes): 'to' is at character 22.
  EXPECT_EQ(error_of("num_ranks 2\nrank 0 {\n/* \u00fcn\u00efc\u00f6d\u00e9 */ send 8 to 1\n}\n"),
            "u.goal:3:22: expected 'b' after the message size, found 'to'");
  // A line comment before the end of a line that ends too early.
  EXPECT_EQ(error_of("num_ranks 2\nrank 0 {\nsend 8b to // \u00fcn\u00efc\u00f6d\u00e9\n}\n"),
            "u.goal:3:22: expected a rank, found end of line");
  // A stray non-ASCII character is one column, and what follows it one more.
  EXPECT_EQ(error_of("num_ranks 2 /* \u00e9 */ \u00e9\n"),
            "u.goal:1:21: expected the end of the line, found byte 0xc3");
  // Multi-line block comments: only the bytes on the error's own line count.
  EXPECT_EQ(error_of("num_ranks 2\n/* \u00e9\n\u00e9\u00e9 */ rank 5 {\n}\n"),
            "u.goal:3:12: expected a rank below num_ranks 2, found rank 5");
}

// The column kept for each operation (deadlock reports) counts code points too.
TEST(Goal, OperationColumnsCountCharactersNotBytes) {
  const Schedule s = parse_goal(
      "num_ranks 2\nrank 0 {\n/* \u00e9\u00e9 */ send 8b to 1\n  calc 5\n}\nrank 1 {\n/* \u00e9\n*/ recv 8b "
      "from 0\n}\n");
  ASSERT_EQ(s.sources().size(), 2U);
  ASSERT_EQ(s.sources()[0].where.size(), 2U);
  EXPECT_EQ(s.sources()[0].where[0].line, 3U);
  EXPECT_EQ(s.sources()[0].where[0].column, 10U);
  EXPECT_EQ(s.sources()[0].where[1].column, 3U);
  EXPECT_EQ(s.sources()[1].where[0].line, 8U);
  EXPECT_EQ(s.sources()[1].where[0].column, 4U);
}

TEST(Goal, MissingRanksAreEmpty) {
  const Schedule s = parse_goal("num_ranks 3\nrank 1 {\ncalc 5\n}\n");
  EXPECT_TRUE(s.program_of(0).ops.empty());
  EXPECT_EQ(s.program_of(1).ops.size(), 1U);
  EXPECT_TRUE(s.program_of(2).ops.empty());
}

TEST(Goal, TextRoundTripIsExact) {
  const Schedule s = parse_goal(kExample);
  const std::string text = write_goal(s);
  const Schedule back = parse_goal(text);
  EXPECT_TRUE(s.same_as(back));
  EXPECT_EQ(write_goal(back), text);
}

TEST(Goal, BinaryRoundTripIsExactAndSmaller) {
  const Schedule s =
      generate("2x[allreduce(algo=recdoub, size=1KiB); halo3d(size=4KiB); calc(time=1.5ns)]", 24, 3);
  const std::string bin = write_binary(s);
  const std::string text = write_goal(s);
  EXPECT_LT(bin.size(), text.size());
  const Schedule from_bin = read_binary(bin, "x.gsched");
  EXPECT_TRUE(s.same_as(from_bin));
  EXPECT_EQ(write_binary(from_bin), bin);
  EXPECT_EQ(write_goal(from_bin), text);
  const Schedule from_text = parse_goal(text);
  EXPECT_EQ(write_binary(from_text), bin);
}

TEST(Goal, GoalTextIsStreamedInPiecesThatMakeTheWholeText) {
  const Schedule s = generate("dissemination(size=8B)", 20000, 1);
  std::string streamed;
  std::size_t pieces = 0;
  write_goal(s, [&](std::string_view piece) {
    streamed.append(piece);
    ++pieces;
  });
  EXPECT_GT(pieces, 1U);
  EXPECT_EQ(streamed, write_goal(s));
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gridlock_stream_" + std::to_string(::getpid()) + ".goal");
  save_schedule(s, path);
  EXPECT_TRUE(s.same_as(load_schedule(path)));
  std::filesystem::remove(path);
}

TEST(Goal, BinaryRoundTripOfParsedText) {
  const Schedule s = parse_goal(kExample);
  EXPECT_TRUE(s.same_as(read_binary(write_binary(s))));
}

TEST(Goal, CorruptBinaryIsRejectedNeverCrashes) {
  const std::string bin = write_binary(generate("allreduce; bcast(size=100B)", 9, 1));
  EXPECT_THROW((void)read_binary(bin.substr(0, 7)), InputError);
  EXPECT_THROW((void)read_binary(bin.substr(0, bin.size() - 1)), InputError);
  EXPECT_THROW((void)read_binary(bin + "x"), InputError);
  std::string wrong_version = bin;
  wrong_version[8] = 9;
  EXPECT_THROW((void)read_binary(wrong_version), InputError);
  // Flip every byte in turn: each result is either an error or a valid schedule.
  for (std::size_t i = 0; i < bin.size(); ++i) {
    std::string corrupt = bin;
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5A);
    try {
      (void)read_binary(corrupt);
    } catch (const InputError&) {
    }
  }
}

TEST(Goal, BinaryVersion1WithADependencyCycleIsRejected) {
  // One rank, one calc of 1 ps that requires itself: the loader checks cycles without the builder.
  std::string bin(kBinaryMagic);
  for (const std::uint32_t word : {1U, 0U, 1U, 1U}) {
    for (int i = 0; i < 4; ++i) {
      bin.push_back(static_cast<char>((word >> (8 * i)) & 0xFFU));
    }
  }
  // ops=1; flags=calc; size=1; one "requires" dependant at distance 0; none "irequires".
  bin += std::string{'\x01', '\x03', '\x01', '\x01', '\x00', '\x00'};
  bin += std::string{'\x00', '\x01'};  // rank table: program 0 for a run of 1 rank
  bin += "GLSCHEND";
  try {
    (void)read_binary(bin, "loop.gsched");
    FAIL() << "a cyclic binary schedule was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("loop.gsched: invalid binary schedule: program 0 has a dependency cycle"),
        std::string::npos)
        << e.what();
  }
  // The same bytes without the dependency load fine, so the check above is about the cycle.
  std::string fine = bin;
  fine[kBinaryMagic.size() + 16 + 3] = '\x00';
  fine.erase(kBinaryMagic.size() + 16 + 5, 1);
  EXPECT_EQ(read_binary(fine, "fine.gsched").total_ops(), 1U);
}

TEST(Goal, BinaryCalcWithANicIsRejected) {
  // Found by the fuzzer: a calc with a NIC index loaded fine but could not round-trip through
  // text (GOAL calcs have no NIC), so binary and text disagreed about the schedule.
  std::string bin(kBinaryMagic);
  for (const std::uint32_t word : {1U, 0U, 1U, 1U}) {
    for (int i = 0; i < 4; ++i) {
      bin.push_back(static_cast<char>((word >> (8 * i)) & 0xFFU));
    }
  }
  // ops=1; flags=calc with CPU/NIC bytes; size=1; cpu 0, nic 1; no dependants.
  bin += std::string{'\x01', '\x23', '\x01', '\x00', '\x01', '\x00', '\x00'};
  bin += std::string{'\x00', '\x01'};
  bin += "GLSCHEND";
  try {
    (void)read_binary(bin, "calc.gsched");
    FAIL() << "a calc with a NIC was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a calc with a NIC index"), std::string::npos) << e.what();
  }
}

TEST(Goal, BinaryVersion1DependencyAtAnExtremeDistanceIsRejected) {
  // Found by the fuzzer: a dependant distance near INT64_MAX from op 1 overflowed a signed add
  // (undefined behaviour, caught by UBSan) before the range check could reject it.
  const auto file_with_delta = [](const std::string& zigzag_varint) {
    std::string bin(kBinaryMagic);
    for (const std::uint32_t word : {1U, 0U, 1U, 1U}) {
      for (int i = 0; i < 4; ++i) {
        bin.push_back(static_cast<char>((word >> (8 * i)) & 0xFFU));
      }
    }
    // ops=2; op 0: calc of 1 ps, no dependants; op 1: calc of 1 ps, one "requires" dependant.
    bin += std::string{'\x02', '\x03', '\x01', '\x00', '\x00', '\x03', '\x01', '\x01', '\x00'};
    bin += zigzag_varint;
    bin += std::string{'\x00', '\x01'};  // rank table: program 0 for a run of 1 rank
    return bin + "GLSCHEND";
  };
  const std::string nine_ff(9, '\xff');
  const std::vector<std::pair<std::string, std::string>> deltas{
      {"INT64_MAX", std::string{'\xfe'} + std::string(8, '\xff') + '\x01'},
      {"INT64_MIN", nine_ff + '\x01'},
      {"-2", std::string{'\x03'}},
      {"+1", std::string{'\x02'}},
  };
  for (const auto& [name, varint] : deltas) {
    try {
      (void)read_binary(file_with_delta(varint), "far.gsched");
      ADD_FAILURE() << "a dependant at distance " << name << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("dependency of operation 1 on an operation out of range"),
                std::string::npos)
          << name << ": " << e.what();
    }
  }
  // Distance -1 names op 0, which is in range: the bytes around the delta are well formed.
  EXPECT_EQ(read_binary(file_with_delta(std::string{'\x01'}), "near.gsched").total_ops(), 2U);
}

// A version 2 file: the common header for `ranks` ranks and `programs` programs, then `body`
// (widths, program table, columns, rank table) and the end marker.
std::string v2_file(std::uint32_t ranks, std::uint32_t programs, const std::string& body) {
  std::string bin(kBinaryMagic);
  for (const std::uint32_t word : {2U, 0U, ranks, programs}) {
    for (int i = 0; i < 4; ++i) {
      bin.push_back(static_cast<char>((word >> (8 * i)) & 0xFFU));
    }
  }
  return bin + body + "GLSCHEND";
}

// The message of the InputError read_binary throws for `bin`, or "" if it loads.
std::string binary_error(const std::string& bin) {
  try {
    (void)read_binary(bin, "v2.gsched");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Goal, BinaryVersion1IsStillReadAndWritten) {
  const Schedule s = generate("2x[allreduce(algo=recdoub, size=1KiB); randomring(size=70000B)]", 24, 3);
  const std::string v1 = write_binary(s, 1);
  const std::string v2 = write_binary(s);
  EXPECT_EQ(v1.substr(8, 4), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(v2.substr(8, 4), std::string("\x02\x00\x00\x00", 4));
  EXPECT_TRUE(s.same_as(read_binary(v1)));
  EXPECT_TRUE(s.same_as(read_binary(v2)));
  EXPECT_EQ(write_binary(read_binary(v1), 1), v1);
  EXPECT_THROW((void)write_binary(s, 3), InputError);
  std::string v3 = v2;
  v3[8] = 3;
  EXPECT_NE(binary_error(v3).find("format version 3 is not supported"), std::string::npos)
      << binary_error(v3);
}

TEST(Goal, BinaryVersion2RoundTripsEveryFieldWidth) {
  // Sizes of 1, 2, 4 and 8 bytes, tags, CPU/NIC pairs, any-source and any-tag receives, an op
  // with 20 dependants (count width 1) and a dependency 300 ops back (dependant width 2).
  std::string text = "num_ranks 300\nrank 0 {\n";
  text += "l0: send 8b to 299 tag 7 cpu 1 nic 1\nl1: recv 70000b from -1 tag -1\n";
  text += "l2: calc 10s cpu 1\nl3: send 5000000000b to 1\n";
  for (int i = 4; i < 304; ++i) {
    text += "l" + std::to_string(i) + ": calc 1\n";
  }
  for (int i = 4; i < 24; ++i) {
    text += "l" + std::to_string(i) + " requires l0\n";
  }
  text += "l303 irequires l1\nl303 requires l2\n}\nrank 299 {\nrecv 8b from 0 tag 7 nic 1\n}\n";
  text += "rank 1 {\nrecv 5000000000b from 0\n}\n";
  const Schedule s = parse_goal(text);
  const std::string bin = write_binary(s);
  EXPECT_EQ(bin[24], '\x01');  // dependant counts: one byte each
  EXPECT_EQ(bin[25], '\x02');  // dependants: two bytes each
  const Schedule back = read_binary(bin);
  EXPECT_TRUE(s.same_as(back));
  EXPECT_EQ(write_goal(back), write_goal(s));
  EXPECT_LT(bin.size(), write_goal(s).size());
  // Peer offsets of 3 bytes (more than 65,536 ranks).
  const Schedule wide = generate("randomring(size=8B)", 70000, 1);
  EXPECT_TRUE(wide.same_as(read_binary(write_binary(wide))));
}

// A schedule whose ranks all have different programs using every version 2 column: sizes of 1 to
// 8 bytes, tags, CPU/NIC pairs, any-source receives, forward and backward dependencies.
Schedule varied_schedule(int ranks) {
  std::string text = "num_ranks " + std::to_string(ranks) + "\n";
  const std::array<std::string_view, 4> sizes{"8b", "700b", "70000b", "5000000000b"};
  for (int r = 0; r < ranks; ++r) {
    const int next = (r + 1) % ranks;
    const int prev = (r + ranks - 1) % ranks;
    text += "rank " + std::to_string(r) + " {\n";
    text += "l0: send " + std::string(sizes[static_cast<std::size_t>(r % 4)]) + " to " +
            std::to_string(next) + (r % 3 == 0 ? " tag " + std::to_string(r + 1) : "") +
            (r % 5 == 0 ? " cpu 1 nic 1" : "") + "\n";
    text += "l1: recv " + std::string(sizes[static_cast<std::size_t>(prev % 4)]) + " from " +
            (r % 7 == 0 ? std::string("-1") : std::to_string(prev)) +
            (prev % 3 == 0 ? " tag " + std::to_string(prev + 1) : "") + (r % 5 == 0 ? " nic 1" : "") + "\n";
    for (int i = 0; i < r % 6; ++i) {
      text += "c" + std::to_string(i) + ": calc " + std::to_string(100 * i + r) + "\n";
      text += "c" + std::to_string(i) + " requires l1\n";
    }
    text += "l2: calc 1\nl2 requires l0\n";
    if (r % 2 == 0) {
      text += "l1 irequires l2\n";  // a dependency on an op defined later
    }
    text += "}\n";
  }
  return parse_goal(text, "varied.goal");
}

TEST(Goal, BinaryVersion2DecodesTheSameOnAnyNumberOfThreads) {
  const Schedule s = varied_schedule(97);
  const std::string bin = write_binary(s);
  for (const unsigned threads : {1U, 2U, 3U, 8U, 200U}) {
    SCOPED_TRACE(threads);
    const Schedule back = read_binary(bin, "varied.gsched", kMaxRanks, threads);
    EXPECT_TRUE(s.same_as(back));
    EXPECT_EQ(write_binary(back), bin);
  }
}

TEST(Goal, BinaryProgramsDifferingOnlyInPeersShareOneProgram) {
  // Every rank of a random ring has its own peers: the file stores one program per rank, and the
  // builder and the binary reader (on any number of threads) keep one program and each rank's peers.
  const Schedule s = generate("3x[randomring(size=8B)]", 300, 7);
  EXPECT_EQ(s.programs().size(), 1U);
  const std::string bin = write_binary(s);
  std::uint32_t file_programs = 0;  // the header's program count, after magic, version, flags, ranks
  std::memcpy(&file_programs, bin.data() + 20, sizeof file_programs);
  EXPECT_EQ(file_programs, 300U);
  EXPECT_EQ(s.programs_with_peers().first_rank.size(), 300U);
  const SimResult expected = simulate(s, SimOptions{});
  for (const unsigned threads : {1U, 2U, 3U}) {
    SCOPED_TRACE(threads);
    const Schedule back = read_binary(bin, "rr.gsched", kMaxRanks, threads);
    EXPECT_EQ(back.programs().size(), 1U);
    EXPECT_EQ(back.programs_with_peers().first_rank.size(), 300U);
    EXPECT_TRUE(s.same_as(back));
    for (std::uint32_t r = 0; r < s.num_ranks(); r += 37) {
      for (std::uint32_t i = 0; i < s.program_of(r).ops.size(); ++i) {
        ASSERT_EQ(back.peer(r, i), s.peer(r, i)) << "rank " << r << " op " << i;
      }
    }
    EXPECT_EQ(write_binary(back), bin);
    EXPECT_EQ(write_goal(back), write_goal(s));
    const SimResult got = simulate(back, SimOptions{});
    EXPECT_EQ(got.max_finish.ps, expected.max_finish.ps);
    EXPECT_EQ(got.finish, expected.finish);
  }
}

TEST(Goal, RanksWithoutOpsShareOneEmptyProgramWhetherBegunOrNot) {
  // Rank 1 is begun with no ops, rank 2 never: both have the one empty program, and the file
  // stores it once (it stored two after programs and peers were first kept apart).
  const Schedule s = parse_goal("num_ranks 3\nrank 0 {\n  send 8b to 1\n}\nrank 1 {\n}\n");
  EXPECT_EQ(s.programs_with_peers().first_rank.size(), 2U);
  const std::string bin = write_binary(s);
  std::uint32_t file_programs = 0;
  std::memcpy(&file_programs, bin.data() + 20, sizeof file_programs);
  EXPECT_EQ(file_programs, 2U);
  const Schedule back = read_binary(bin);
  EXPECT_TRUE(s.same_as(back));
  EXPECT_EQ(back.programs_with_peers().first_rank.size(), 2U);
  EXPECT_EQ(write_binary(back), bin);
}

TEST(Goal, BinaryHeaderWithAHugeRankCountIsRejectedWithoutAllocatingForIt) {
  // A 1-rank file whose header claims 0xfffffff0 ranks: the rank table ends long before, which is
  // an InputError; the reader used to allocate 12 bytes per claimed rank first (48 GB: bad_alloc
  // or the OOM killer instead of a message).
  std::string bin = write_binary(parse_goal("num_ranks 1\nrank 0 {\n  calc 100\n}\n"));
  const std::uint32_t huge = 0xFFFFFFF0U;
  std::memcpy(bin.data() + 16, &huge, sizeof huge);  // after magic, version and flags
  EXPECT_THROW((void)read_binary(bin, "huge.gsched"), InputError);
  EXPECT_THROW((void)read_binary(write_binary(parse_goal("num_ranks 1\nrank 0 {\n  calc 100\n}\n"), 1)
                                     .replace(16, 4, std::string(reinterpret_cast<const char*>(&huge), 4)),
                                 "huge1.gsched"),
               InputError);
}

TEST(Goal, BinaryVersion2ThreadedDecodeReportsTheFirstErrorLikeOneThread) {
  // Corrupt bytes all over the file: whatever one thread says (an error or a schedule), several
  // threads must say exactly the same, so the message never depends on the machine.
  const std::string bin = write_binary(varied_schedule(97));
  std::uint64_t state = 12345;
  int errors = 0;
  for (int trial = 0; trial < 400; ++trial) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::string corrupt = bin;
    const std::size_t at = 26 + static_cast<std::size_t>(state >> 33U) % (bin.size() - 26);
    corrupt[at] = static_cast<char>(corrupt[at] ^ static_cast<char>(1U << ((state >> 20U) % 8)));
    std::string single;
    std::string threaded;
    Schedule one;
    Schedule three;
    try {
      one = read_binary(corrupt, "c.gsched", kMaxRanks, 1);
    } catch (const InputError& e) {
      single = e.what();
    }
    try {
      three = read_binary(corrupt, "c.gsched", kMaxRanks, 3);
    } catch (const InputError& e) {
      threaded = e.what();
    }
    EXPECT_EQ(single, threaded) << "byte " << at;
    if (single.empty()) {
      EXPECT_TRUE(one.same_as(three)) << "byte " << at;
    } else {
      ++errors;
    }
  }
  EXPECT_GT(errors, 100);  // the corruption reached the decoder's checks
}

TEST(Goal, BinaryBackwardDependenciesAreCheckedForCycles) {
  // Dependants before their op skip the one-pass forward check: acyclic ones load, cycles do not.
  const Schedule ok = parse_goal("num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\nl1 requires l2\n}\n");
  const Schedule back = read_binary(write_binary(ok));
  EXPECT_TRUE(ok.same_as(back));
  EXPECT_EQ(std::vector<std::uint32_t>(back.program_of(0).roots.begin(), back.program_of(0).roots.end()),
            (std::vector<std::uint32_t>{1}));
  // Two calcs that require each other: counts 0x01 each, dependants +1 and -1 (zigzag 2 and 1).
  const std::string cycle = v2_file(1, 1,
                                    std::string{'\x00', '\x01', '\x02', '\x02', '\x03', '\x03', '\x01',
                                                '\x01', '\x01', '\x01', '\x02', '\x01', '\x00', '\x01'});
  EXPECT_NE(binary_error(cycle).find("v2.gsched: invalid binary schedule: program 0 has a dependency cycle"),
            std::string::npos)
      << binary_error(cycle);
  // The same calc requiring itself.
  const std::string self = v2_file(
      1, 1, std::string{'\x00', '\x01', '\x01', '\x01', '\x03', '\x01', '\x01', '\x00', '\x00', '\x01'});
  EXPECT_NE(binary_error(self).find("program 0 has a dependency cycle"), std::string::npos)
      << binary_error(self);
}

TEST(Goal, BinaryVersion2ErrorsNameTheProblemAndTheByte) {
  struct Case {
    std::uint32_t ranks;
    std::string body;
    std::string_view message;
  };
  // Body: count width, dependant width, program table (ops, dependencies), kinds, sizes, peers,
  // tags, CPU/NIC pairs, dependant counts, dependants, rank table (program 0 for all ranks).
  const std::vector<Case> cases{
      {1, std::string{'\x03', '\x01', '\x00', '\x00', '\x00', '\x01'},
       "byte 24: invalid binary schedule: dependant count width 3"},
      {1, std::string{'\x00', '\x03', '\x00', '\x00', '\x00', '\x01'},
       "byte 25: invalid binary schedule: dependant width 3"},
      {2, std::string{'\x00', '\x01', '\x01', '\x00', '\x05', '\x08', '\x00', '\x00', '\x02'},
       "byte 28: invalid binary schedule: a send to any source"},
      {2, std::string{'\x00', '\x01', '\x01', '\x00', '\x00', '\x08', '\x00', '\x00', '\x02'},
       "byte 28: invalid binary schedule: invalid operation flags"},
      {2, std::string{'\x00', '\x01', '\x01', '\x00', '\x13', '\x08', '\x00', '\x00', '\x02'},
       "a calc with a peer or tag"},
      {2, std::string{'\x00', '\x01', '\x01', '\x00', '\x11', '\x08', '\x00', '\x00', '\x02'},
       "a send with the any-tag value"},
      {2, std::string{'\x00', '\x01', '\x01', '\x00', '\x01', '\x08', '\x02', '\x00', '\x00', '\x02'},
       "byte 30: invalid binary schedule: peer offset 2 out of range (must be below 2)"},
      {2,
       std::string{'\x00', '\x01', '\x01', '\x00', '\x0a', '\x08', '\x01', '\xff', '\xff', '\xff', '\xff',
                   '\x00', '\x00', '\x02'},
       "byte 31: invalid binary schedule: tag 4294967295 out of range"},
      {1, std::string{'\x00', '\x01', '\x01', '\x00', '\x23', '\x01', '\x00', '\x01', '\x00', '\x00', '\x01'},
       "byte 30: invalid binary schedule: a calc with a NIC index"},
      {1, std::string{'\x00', '\x01', '\x01', '\x00', '\x03', '\x01', '\x01', '\x00', '\x01'},
       "byte 30: invalid binary schedule: the dependant counts of program 0 add up to more than the program "
       "table's 0"},
      {1, std::string{'\x00', '\x01', '\x01', '\x01', '\x03', '\x01', '\x00', '\x00', '\x00', '\x01'},
       "byte 30: invalid binary schedule: the dependant counts of program 0 add up to 0, the program table "
       "says 1"},
      {1, std::string{'\x00', '\x01', '\x01', '\x01', '\x03', '\x01', '\x01', '\x02', '\x00', '\x01'},
       "byte 31: invalid binary schedule: dependency of operation 0 on an operation out of range"},
      {1, std::string{'\x00', '\x01', '\x7f', '\x00', '\x03', '\x00', '\x01'},
       "operation or dependency counts larger than the file"},
  };
  for (const Case& c : cases) {
    const std::string message = binary_error(v2_file(c.ranks, 1, c.body));
    EXPECT_NE(message.find(c.message), std::string::npos)
        << "expected '" << c.message << "', got '" << message << "'";
  }
}

TEST(Goal, BinaryVersion2DependencyCountOutOfRangeIsRejected) {
  // Program table: one op with 2^31 - 1 dependants, one more than a program may have.
  const std::string bin = v2_file(
      1, 1, std::string{'\x00', '\x01', '\x01', '\xff', '\xff', '\xff', '\xff', '\x07', '\x00', '\x01'});
  EXPECT_NE(binary_error(bin).find("dependency count 2147483647 out of range"), std::string::npos)
      << binary_error(bin);
}

TEST(Goal, FromProgramsRejectsAStoreWhoseArraysDoNotMatchItsExtents) {
  ProgramStore store;
  store.ops.push_back(Op{1, 0, 0, OpType::kCalc, 0, 0});
  store.succ_begin = {0, 0, 0};
  store.extents.push_back(ProgramExtent{});
  store.extents[0].num_ops = 2;  // but only one op is stored
  try {
    (void)ScheduleBuilder::from_programs(1, store, {0});
    FAIL() << "a malformed store was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("malformed program store"), std::string::npos) << e.what();
  }
  store.extents[0].num_ops = 1;
  EXPECT_EQ(ScheduleBuilder::from_programs(1, store, {0}).total_ops(), 1U);
}

TEST(Goal, BinaryVersion2TruncatedAnywhereIsRejected) {
  const std::string bin = write_binary(parse_goal(kExample));
  std::size_t truncated = 0;
  for (std::size_t n = 0; n < bin.size(); ++n) {
    const std::string message = binary_error(bin.substr(0, n));
    EXPECT_NE(message.find("invalid binary schedule"), std::string::npos)
        << "prefix of " << n << " bytes loaded";
    truncated += message.find("unexpected end of file (truncated?)") != std::string::npos ? 1 : 0;
  }
  EXPECT_GT(truncated, bin.size() / 2);
  EXPECT_EQ(binary_error(bin), "");
}

// Regression: a binary schedule cut to under 8 bytes (the magic) was read as GOAL text and failed
// with "found 'GLSC'"; it is now reported as a truncated binary schedule.
TEST(Goal, BinaryCutWithinItsMagicIsTruncatedNotText) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / fmt::format("gridlock_truncated_{}.gsched", ::getpid());
  for (std::size_t n = 1; n < kBinaryMagic.size(); ++n) {
    write_file_atomic(path, std::string(kBinaryMagic.substr(0, n)));
    try {
      (void)load_schedule(path);
      ADD_FAILURE() << n << " bytes loaded";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("{}: truncated binary schedule: {} of the 8 bytes of the magic 'GLSCHED\\x1a', "
                            "then nothing; expected the magic, a header and the programs (copy or "
                            "write the file again)",
                            path.string(), n));
    }
  }
  std::filesystem::remove(path);
}

TEST(Goal, ParseTimeUnits) {
  EXPECT_EQ(parse_time_ps("2.5us"), 2'500'000U);
  EXPECT_EQ(parse_time_ps("6ns"), 6000U);
  EXPECT_EQ(parse_time_ps("0.25ns"), 250U);
  EXPECT_EQ(parse_time_ps("1500ps"), 1500U);
  EXPECT_EQ(parse_time_ps("1s"), 1'000'000'000'000U);
  EXPECT_EQ(parse_time_ps("0"), 0U);
  EXPECT_EQ(parse_time_ps("0.000001us"), 1U);
  for (const char* bad : {"", "5", "1.5", "-1ns", "0.1ps", "1x", "99999999999s", "1.2.3ns", "ns"}) {
    EXPECT_THROW((void)parse_time_ps(bad), InputError) << bad;
  }
  EXPECT_EQ(format_time_ps(2'500'000), "2.5 us");
  EXPECT_EQ(format_time_ps(250), "250 ps");
  EXPECT_EQ(format_time_ps(6000), "6 ns");
}

}  // namespace
}  // namespace gridlock::sim

namespace gridlock::sim {
namespace {

// Issue 36: `num_ranks 100000000` (20 bytes) cost `schedule info` 3.2 GB before anything was checked.
TEST(GoalBudget, RankCountBeyondTheBudgetIsRefusedBeforeAllocating) {
  MemoryBudget budget(std::uint64_t{1} << 30);
  try {
    (void)parse_goal("num_ranks 100000000\n", "huge.goal", false, kMaxRanks, &budget);
    FAIL() << "10^8 ranks must not fit 1 GiB";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("huge.goal:1: num_ranks 100000000"), std::string::npos) << what;
    EXPECT_NE(what.find("--max-memory"), std::string::npos) << what;
  }
  // The per-rank part of a simulation counts too.
  MemoryBudget small(estimate_schedule_rank_bytes(1000, false) + 1000 * kSimulationBytesPerRank);
  EXPECT_NO_THROW(
      (void)parse_goal("num_ranks 1000\n", "ok.goal", false, kMaxRanks, &small, kSimulationBytesPerRank));
  MemoryBudget tight(estimate_schedule_rank_bytes(1000, false));
  EXPECT_THROW(
      (void)parse_goal("num_ranks 1000\n", "ok.goal", false, kMaxRanks, &tight, kSimulationBytesPerRank),
      InputError);
}

TEST(GoalBudget, BinaryRankCountBeyondTheBudgetIsRefused) {
  std::string bytes(kBinaryMagic);
  for (const std::uint32_t word : {2U, 0U, 4000000000U, 1U}) {
    for (int b = 0; b < 4; ++b) {
      bytes.push_back(static_cast<char>((word >> (8 * b)) & 0xFFU));
    }
  }
  MemoryBudget budget(std::uint64_t{1} << 30);
  try {
    (void)read_binary(bytes, "huge.gsched", kMaxRanks, 1, &budget);
    FAIL() << "4 * 10^9 ranks must not fit 1 GiB";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a binary schedule of 4000000000 ranks"), std::string::npos)
        << e.what();
  }
}

TEST(GoalBudget, EstimatesGrowWithRanksAndOpsAndSaturate) {
  EXPECT_LT(estimate_schedule_rank_bytes(10, false), estimate_schedule_rank_bytes(10, true));
  EXPECT_EQ(estimate_schedule_rank_bytes(2000, false), 2 * estimate_schedule_rank_bytes(1000, false));
  EXPECT_LT(estimate_simulation_bytes(10, 10), estimate_simulation_bytes(10, 20));
  EXPECT_EQ(estimate_simulation_bytes(UINT64_MAX, 1), UINT64_MAX);
  EXPECT_EQ(estimate_schedule_rank_bytes(UINT64_MAX, true), UINT64_MAX);
}

}  // namespace
}  // namespace gridlock::sim
