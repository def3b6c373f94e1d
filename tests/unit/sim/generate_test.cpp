// Schedule generator: spec syntax, determinism, in-memory == file round trip.
#include "gridlock/sim/generate.hpp"

#include <gtest/gtest.h>

#include <string>

#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/goal.hpp"

namespace gridlock::sim {
namespace {

TEST(Generate, InMemoryEqualsGenerateToFileThenParse) {
  for (const char* spec : {"bcast(algo=chain, size=10KiB, segment=1KiB)", "alltoall(algo=pairwise)",
                           "4x[allreduce(algo=ring, size=1MiB, compute=0.25ns); randomring(size=8B)]"}) {
    const Schedule s = generate(spec, 13, 42);
    const Schedule parsed = parse_goal(write_goal(s));
    EXPECT_TRUE(s.same_as(parsed)) << spec;
    const SimResult a = simulate(s, SimOptions{});
    const SimResult b = simulate(parsed, SimOptions{});
    EXPECT_EQ(a.max_finish, b.max_finish) << spec;
    EXPECT_EQ(a.events, b.events) << spec;
  }
}

TEST(Generate, DeterministicForASeedAndSeedMatters) {
  const std::string a = write_goal(generate("randomring(size=8B)", 50, 7));
  EXPECT_EQ(a, write_goal(generate("randomring(size=8B)", 50, 7)));
  EXPECT_NE(a, write_goal(generate("randomring(size=8B)", 50, 8)));
}

TEST(Generate, SharesProgramsBetweenRanks) {
  const Schedule s = generate("dissemination(size=8B)", 1024, 1);
  EXPECT_EQ(s.programs().size(), 1U);
  EXPECT_EQ(s.total_ops(), 1024U * 20U);
}

TEST(Generate, StepsAreChainedPerRank) {
  // Two calcs in sequence on one rank: the second starts after the first.
  const SimResult r = simulate(generate("calc(time=1us); calc(time=2us)", 1, 1), SimOptions{});
  EXPECT_EQ(r.max_finish.ps, 3'000'000U);
  const SimResult k = simulate(generate("5x[calc(time=1us)]", 1, 1), SimOptions{});
  EXPECT_EQ(k.max_finish.ps, 5'000'000U);
}

TEST(Generate, HaloNeighbourCounts) {
  const Schedule open = generate("halo3d(dims=3x3x3)", 27, 1);
  // The centre rank 13 has 6 neighbours, a corner rank 0 has 3.
  EXPECT_EQ(open.program_of(13).ops.size(), 12U);
  EXPECT_EQ(open.program_of(0).ops.size(), 6U);
  const Schedule torus = generate("halo3d(dims=3x3x3, periodic=1)", 27, 1);
  EXPECT_EQ(torus.program_of(0).ops.size(), 12U);
}

TEST(Generate, RejectsBadSpecs) {
  for (const char* bad :
       {"", "nosuch", "bcast(size=)", "bcast(sise=8B)", "bcast(algo=fancy)", "bcast(root=9)", "calc",
        "calc(time=5)", "halo3d(dims=2x2x2)", "3x allreduce", "3x[allreduce", "bcast(size=8B",
        "bcast(size=8B, size=9B)", "allreduce;", "bcast(segment=0)"}) {
    EXPECT_THROW((void)generate(bad, 4, 1), InputError) << bad;
  }
}

// Repetitions of nothing expand to nothing at once: '999999999x[999999999x[0x[barrier]]]' looped
// 10^18 times without producing a step (a hang); repetitions that expand to too many steps are
// refused before any is built.
TEST(Generate, RepeatedEmptySequencesEndAtOnce) {
  EXPECT_EQ(generate("999999999x[999999999x[0x[barrier]]]", 4, 1).total_ops(), 0U);
  EXPECT_EQ(generate("999999999x[0x[barrier]]; barrier", 4, 1).total_ops(),
            generate("barrier", 4, 1).total_ops());
  EXPECT_THROW((void)generate("999999999x[999999999x[999999999x[calc(time=1us)]]]", 4, 1), InputError);
}

// Checking a spec costs memory for its text, not for its expansion: 10^8 steps were resolved into a
// vector of 10^8 parameter records (about 14 GB) before the first op was built, which got the
// process killed on a 23 GB machine.
TEST(Generate, CheckingAHundredMillionStepsNeedsNoMemoryForThem) {
  EXPECT_NO_THROW(check_program("5000x[10000x[calc(time=1ns); barrier]]", 1U << 20U, 1));
  EXPECT_NO_THROW(check_program("100000000x[randomring(size=8B)]", 64, 1));
  EXPECT_THROW(check_program("100000001x[barrier]", 4, 1), InputError);
}

// `gridlock sim --program` reserves the simulation of a program's operations from its formulas
// before generating it (issue 36): alltoall on 100000 ranks ran for minutes before the count was
// known. The estimate is never below the real count and at most about twice it.
TEST(Generate, OperationEstimateBoundsTheBuiltCount) {
  for (const char* spec : {"bcast(size=8B)",
                           "bcast(algo=binary, size=1MiB)",
                           "bcast(algo=chain, size=100KiB, segment=8KiB)",
                           "reduce(size=8B, compute=1ns)",
                           "allreduce(size=8B)",
                           "allreduce(algo=ring, size=1MiB, compute=1ps)",
                           "allreduce(algo=dissemination, size=8B)",
                           "allgather(size=8B)",
                           "allgather(algo=bruck, size=8B)",
                           "alltoall(size=8B)",
                           "alltoall(algo=pairwise, size=8B)",
                           "gather(size=8B)",
                           "scatter(size=8B)",
                           "barrier",
                           "dissemination(size=8B, compute=1ns)",
                           "randomring(size=8B)",
                           "halo3d(size=8B, periodic=1)",
                           "calc(time=1us)",
                           "3x[alltoall(size=8B); 2x[allreduce(size=8B); calc(time=1us)]]; gather(size=1B)",
                           "0x[alltoall(size=8B)]; barrier"}) {
    for (const std::uint32_t ranks : {1U, 2U, 7U, 16U, 60U}) {
      const std::uint64_t built = generate(spec, ranks, 1).total_ops();
      const std::uint64_t estimate = estimate_program_ops(spec, ranks, 1);
      EXPECT_GE(estimate, built) << spec << " on " << ranks;
      EXPECT_LE(estimate, 2 * built + ranks) << spec << " on " << ranks;
    }
  }
  EXPECT_GE(estimate_program_ops("scatter(size=8B, root=5); bcast(root=6)", 7, 1),
            generate("scatter(size=8B, root=5); bcast(root=6)", 7, 1).total_ops());
  // Large counts from formulas, at once; saturating instead of wrapping.
  EXPECT_GT(estimate_program_ops("alltoall(size=8B)", 100000, 1), std::uint64_t{19'000'000'000});
  EXPECT_EQ(estimate_program_ops("100000000x[alltoall(size=8B)]", kMaxRanks, 1), UINT64_MAX);
  EXPECT_THROW((void)estimate_program_ops("alltoall(size=8B)", 0, 1), InputError);
  EXPECT_THROW((void)estimate_program_ops("bcast(root=9)", 4, 1), InputError);
}

// Steps repeated zero times are still checked: a typo there is still a typo.
TEST(Generate, StepsRepeatedZeroTimesAreStillChecked) {
  EXPECT_THROW(check_program("0x[bcast(root=9)]; barrier", 4, 1), InputError);
  EXPECT_THROW((void)generate("2x[0x[calc(time=1parsec)]]", 4, 1), InputError);
}

// A randomring without ring= uses its step's index in the expanded program, counting every step
// (calcs too), so repeated rings differ; ring= pins one.
TEST(Generate, RepeatedRandomRingsDifferUnlessTheRingIsGiven) {
  const auto goal = [](std::string_view spec) { return write_goal(generate(spec, 40, 5)); };
  EXPECT_EQ(goal("randomring(size=8B); 2x[calc(time=1ns); randomring(size=8B)]"),
            goal("randomring(size=8B, ring=0); calc(time=1ns); randomring(size=8B, ring=2); "
                 "calc(time=1ns); randomring(size=8B, ring=4)"));
  EXPECT_NE(goal("2x[randomring(size=8B)]"), goal("2x[randomring(size=8B, ring=0)]"));
  EXPECT_EQ(goal("2x[randomring(size=8B, ring=3)]"),
            goal("randomring(size=8B, ring=3); randomring(size=8B, ring=3)"));
}

// Deep nesting is refused with its column instead of overflowing the parser's stack (30,000 levels
// of '1x[' ended in SIGSEGV).
TEST(Generate, DeepNestingIsAnErrorNotACrash) {
  std::string deep;
  for (int i = 0; i < 30000; ++i) {
    deep += "1x[";
  }
  deep += "barrier";
  deep.append(30000, ']');
  try {
    (void)generate(deep, 2, 1);
    ADD_FAILURE() << "30,000 nested repetitions were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nested"), std::string::npos) << e.what();
  }
  std::string ok;
  for (int i = 0; i < 32; ++i) {
    ok += "1x[";
  }
  ok += "barrier";
  ok.append(32, ']');
  EXPECT_EQ(generate(ok, 4, 1).total_ops(), generate("barrier", 4, 1).total_ops());
}

TEST(Generate, HelpNamesEveryStep) {
  const std::string help = generator_help();
  for (const char* name : {"bcast", "reduce", "allreduce", "allgather", "alltoall", "gather", "scatter",
                           "barrier", "dissemination", "randomring", "halo3d", "calc"}) {
    EXPECT_NE(help.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace gridlock::sim
