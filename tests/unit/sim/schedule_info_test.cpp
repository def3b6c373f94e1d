// `gridlock schedule info`: the summary of a schedule (issue 25, part 2).
#include "gridlock/sim/schedule_info.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/schedule_info_json.hpp"

namespace gridlock::sim {
namespace {

ScheduleInfoOptions with_kind(const std::string& kind) {
  ScheduleInfoOptions options;
  options.source_kind = kind;
  return options;
}
ScheduleInfoOptions with_top(std::uint32_t n) {
  ScheduleInfoOptions options;
  options.top_pairs = n;
  return options;
}
ScheduleInfoOptions with_listed(std::uint32_t n) {
  ScheduleInfoOptions options;
  options.unmatched_listed = n;
  return options;
}
ScheduleInfoOptions with_max_keys(std::uint64_t n) {
  ScheduleInfoOptions options;
  options.max_match_keys = n;
  return options;
}
ScheduleInfoOptions with_wall(std::vector<std::uint64_t> wall_ps) {
  ScheduleInfoOptions options;
  options.wall_ps = std::move(wall_ps);
  return options;
}

// Rank 0 sends 8 B and 1000 B to rank 1 and computes; rank 1 receives both and answers with
// 0 B; rank 2 only computes.
Schedule small_schedule() {
  ScheduleBuilder b(3);
  b.begin_rank(0);
  const std::uint32_t s1 = b.send(8, 1, 5);
  const std::uint32_t s2 = b.send(1000, 1, 5);
  const std::uint32_t c = b.calc(SimTime{2000});
  const std::uint32_t r = b.recv(0, 1, 6);
  b.add_requires(s2, s1);
  b.add_irequires(c, s2);
  b.add_requires(r, c);
  b.end_rank();
  b.begin_rank(1);
  const std::uint32_t r1 = b.recv(8, 0, 5);
  const std::uint32_t r2 = b.recv(1000, 0, 5);
  const std::uint32_t a = b.send(0, 0, 6);
  b.add_requires(a, r1);
  b.add_requires(a, r2);
  b.end_rank();
  b.begin_rank(2);
  b.calc(SimTime{500});
  b.calc(SimTime{700});
  b.end_rank();
  return b.finish();
}

TEST(ScheduleInfo, CountsBytesSizesAndDependencies) {
  const ScheduleInfo info = summarize(small_schedule(), with_kind("goal"));
  EXPECT_EQ(info.source_kind, "goal");
  EXPECT_EQ(info.ranks, 3U);
  EXPECT_EQ(info.operations, 9U);
  EXPECT_EQ(info.sends.total, 3U);
  EXPECT_EQ(info.sends.per_rank.min, 0U);
  EXPECT_EQ(info.sends.per_rank.median, 1U);
  EXPECT_EQ(info.sends.per_rank.max, 2U);
  EXPECT_EQ(info.recvs.total, 3U);
  EXPECT_EQ(info.calcs.total, 3U);
  EXPECT_EQ(info.calcs.per_rank.max, 2U);
  EXPECT_EQ(info.bytes_sent.total, 1008U);
  EXPECT_EQ(info.bytes_sent.per_rank.median, 0U);
  EXPECT_EQ(info.bytes_sent.per_rank.max, 1008U);
  EXPECT_EQ(info.calc_ps.total, 3200U);
  EXPECT_EQ(info.calc_ps.per_rank.min, 0U);
  EXPECT_EQ(info.calc_ps.per_rank.median, 1200U);
  EXPECT_EQ(info.calc_ps.per_rank.max, 2000U);
  EXPECT_EQ(info.requires_edges, 4U);
  EXPECT_EQ(info.irequires_edges, 1U);
  ASSERT_EQ(info.sizes.size(), 3U);
  EXPECT_EQ(info.sizes[0].min_bytes, 0U);
  EXPECT_EQ(info.sizes[0].count, 1U);
  EXPECT_EQ(info.sizes[1].min_bytes, 8U);
  EXPECT_EQ(info.sizes[1].max_bytes, 15U);
  EXPECT_EQ(info.sizes[2].min_bytes, 512U);
  EXPECT_EQ(info.sizes[2].max_bytes, 1023U);
  EXPECT_EQ(info.sizes[2].bytes, 1000U);
  EXPECT_EQ(info.unmatched_sends, 0U);
  EXPECT_EQ(info.unmatched_recvs, 0U);
  EXPECT_TRUE(info.unmatched_exact);
  EXPECT_EQ(info.pairs, 2U);
  EXPECT_TRUE(info.symmetric);
  EXPECT_EQ(info.max_out_partners, 1U);
  ASSERT_EQ(info.top_pairs.size(), 2U);
  EXPECT_EQ(info.top_pairs[0].src, 0U);
  EXPECT_EQ(info.top_pairs[0].messages, 2U);
  EXPECT_EQ(info.top_pairs[0].bytes, 1008U);
  EXPECT_EQ(info.top_pairs[1].src, 1U);
  EXPECT_FALSE(info.has_wall);
}

TEST(ScheduleInfo, RingAllreduceSendsTwicePMinusOne) {
  constexpr std::uint32_t kRanks = 8;
  const ScheduleInfo info = summarize(generate("allreduce(algo=ring, size=1KiB)", kRanks, 1));
  EXPECT_EQ(info.sends.per_rank.min, 2 * (kRanks - 1));
  EXPECT_EQ(info.sends.per_rank.max, 2 * (kRanks - 1));
  EXPECT_EQ(info.sends.total, std::uint64_t{kRanks} * 2 * (kRanks - 1));
  EXPECT_EQ(info.recvs.total, info.sends.total);
  EXPECT_EQ(info.pairs, kRanks);  // each rank sends to its successor only
  EXPECT_FALSE(info.symmetric);
  EXPECT_EQ(info.max_out_partners, 1U);
  EXPECT_EQ(info.max_in_partners, 1U);
  EXPECT_DOUBLE_EQ(info.mean_partners(), 1.0);
  EXPECT_EQ(info.unmatched_sends + info.unmatched_recvs, 0U);
}

TEST(ScheduleInfo, RecursiveDoublingIsSymmetric) {
  const ScheduleInfo info = summarize(generate("allreduce(algo=recdoub, size=8B)", 16, 1), with_top(3));
  EXPECT_TRUE(info.symmetric);
  EXPECT_EQ(info.pairs, 16U * 4);
  EXPECT_EQ(info.max_out_partners, 4U);
  EXPECT_EQ(info.unmatched_sends + info.unmatched_recvs, 0U);
  // Every pair carries 8 B: ties go to the lowest source, then the lowest destination.
  ASSERT_EQ(info.top_pairs.size(), 3U);
  EXPECT_EQ(info.top_pairs[0].src, 0U);
  EXPECT_EQ(info.top_pairs[0].dst, 1U);
  EXPECT_EQ(info.top_pairs[1].dst, 2U);
  EXPECT_EQ(info.top_pairs[2].dst, 4U);
}

TEST(ScheduleInfo, BinaryScheduleGivesTheSameSummary) {
  const Schedule text = generate("randomring(size=16B); bcast(size=100B)", 12, 7);
  const Schedule binary = read_binary(write_binary(text));
  const ScheduleInfo a = summarize(text);
  const ScheduleInfo b = summarize(binary);
  EXPECT_EQ(a.sends.total, b.sends.total);
  EXPECT_EQ(a.pairs, b.pairs);
  EXPECT_EQ(a.symmetric, b.symmetric);
  EXPECT_EQ(a.requires_edges, b.requires_edges);
  EXPECT_EQ(format_schedule_info(a, "x"), format_schedule_info(b, "x"));
}

// Same counts on both sides of rank 1 but different tags: only the fingerprints see it.
TEST(ScheduleInfo, TagMismatchIsUnmatched) {
  ScheduleBuilder b(2);
  b.begin_rank(0);
  b.send(8, 1, 1);
  b.send(8, 1, 3);
  b.end_rank();
  b.begin_rank(1);
  b.recv(8, 0, 2);
  b.recv(8, 0, 3);
  b.end_rank();
  const ScheduleInfo info = summarize(b.finish());
  EXPECT_EQ(info.unmatched_sends, 1U);
  EXPECT_EQ(info.unmatched_recvs, 1U);
  ASSERT_EQ(info.unmatched.size(), 2U);
  EXPECT_EQ(info.unmatched[0].tag, 1U);
  EXPECT_EQ(info.unmatched[0].sends, 1U);
  EXPECT_EQ(info.unmatched[1].tag, 2U);
  EXPECT_EQ(info.unmatched[1].recvs, 1U);
  EXPECT_NE(format_schedule_info(info, "t.goal").find("warning: 1 sends without a receive and 1 receives"),
            std::string::npos);
}

TEST(ScheduleInfo, WildcardReceivesTakeTheLeftovers) {
  ScheduleBuilder b(4);
  for (std::uint32_t r = 1; r < 4; ++r) {
    b.begin_rank(r);
    b.send(8, 0, 9);
    b.send(8, 0, r);
    b.end_rank();
  }
  b.begin_rank(0);
  b.recv(8, kAnySource, 9);  // takes three tag-9 sends
  b.recv(8, kAnySource, 9);
  b.recv(8, kAnySource, 9);
  b.recv(8, 2, kAnyTag);           // takes rank 2's tag-2 send
  b.recv(8, kAnySource, kAnyTag);  // takes one of the tag-1 and tag-3 sends
  b.recv(8, kAnySource, kAnyTag);  // takes the other
  b.recv(8, kAnySource, 4);        // nothing left for it
  b.end_rank();
  const ScheduleInfo info = summarize(b.finish());
  EXPECT_EQ(info.any_source_recvs, 6U);
  EXPECT_EQ(info.any_tag_recvs, 3U);
  EXPECT_EQ(info.unmatched_sends, 0U);
  EXPECT_EQ(info.unmatched_recvs, 1U);
  ASSERT_EQ(info.unmatched.size(), 1U);
  EXPECT_EQ(info.unmatched[0].src, kAnySource);
  EXPECT_EQ(info.unmatched[0].tag, 4U);
  EXPECT_EQ(info.max_in_partners, 3U);
  EXPECT_EQ(info.max_in_rank, 0U);
  EXPECT_FALSE(info.symmetric);
}

TEST(ScheduleInfo, CappedMatchingSaysSo) {
  ScheduleBuilder b(3);
  b.begin_rank(0);
  b.send(8, 1, 1);
  b.send(8, 1, 2);
  b.send(8, 2, 3);
  b.end_rank();
  const ScheduleInfo info = summarize(b.finish(), with_listed(1));
  EXPECT_EQ(info.unmatched_sends, 3U);
  EXPECT_EQ(info.unmatched.size(), 1U);
  EXPECT_TRUE(info.unmatched_exact);
  ScheduleBuilder c(3);
  c.begin_rank(0);
  c.send(8, 1, 1);
  c.send(8, 1, 2);
  c.send(8, 2, 3);
  c.end_rank();
  const ScheduleInfo capped = summarize(c.finish(), with_max_keys(1));
  EXPECT_FALSE(capped.unmatched_exact);
  EXPECT_EQ(capped.unmatched_sends, 3U);
  EXPECT_TRUE(capped.unmatched.empty());
  EXPECT_NE(format_schedule_info(capped, "c").find("counted per destination only"), std::string::npos);
}

TEST(ScheduleInfo, ComputeShareFromWallTimes) {
  const ScheduleInfo info = summarize(small_schedule(), with_wall({4000, 1000, 0}));
  ASSERT_TRUE(info.has_wall);
  EXPECT_EQ(info.share.wall_ps_total, 5000U);
  EXPECT_DOUBLE_EQ(info.share.overall, 3200.0 / 5000.0);
  EXPECT_EQ(info.share.ranks_without_wall, 1U);
  EXPECT_DOUBLE_EQ(info.share.min, 0.0);
  EXPECT_DOUBLE_EQ(info.share.max, 0.5);
  EXPECT_NE(format_schedule_info(info, "s").find("| compute share | 64.00% | 0.00% | 0.00% | 50.00% |"),
            std::string::npos);
  EXPECT_THROW((void)summarize(small_schedule(), with_wall({1, 2})), InputError);
}

TEST(ScheduleInfo, TextAndJson) {
  const ScheduleInfo info = summarize(small_schedule(), with_kind("binary"));
  const std::string text = format_schedule_info(info, "s.gsched");
  EXPECT_EQ(text.rfind("schedule: s.gsched (binary schedule): 3 ranks, 9 operations", 0), 0U) << text;
  EXPECT_NE(text.find("| sends | 3 | 0 | 1 | 2 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| 512 B - 1023 B | 1 | 1000 B |"), std::string::npos) << text;
  EXPECT_NE(text.find("compute share: no wall time"), std::string::npos) << text;
  EXPECT_NE(text.find("matching: every send has a receive"), std::string::npos) << text;
  const Json context = schedule_info_context("gridlock schedule info", "s.gsched", info);
  EXPECT_EQ(context["schema"], "gridlock.schedule.info");
  EXPECT_EQ(context["schema_version"], 2);
  EXPECT_EQ(context["source_kind"], "binary");
  const Json body = schedule_info_json(info);
  EXPECT_EQ(body["sends"]["total"], 3);
  EXPECT_EQ(body["message_sizes"].size(), 3U);
  EXPECT_TRUE(body["compute_share"].is_null());
  EXPECT_EQ(body["communication"]["pairs"], 2);
  EXPECT_EQ(body["communication"]["symmetric"], true);
  EXPECT_EQ(body["unmatched"]["exact"], true);
}

TEST(ScheduleInfo, UnbuiltRanksAndEmptySchedule) {
  ScheduleBuilder b(5);
  const ScheduleInfo info = summarize(b.finish());
  EXPECT_EQ(info.ranks, 5U);
  EXPECT_EQ(info.operations, 0U);
  EXPECT_EQ(info.pairs, 0U);
  EXPECT_TRUE(info.symmetric);
  EXPECT_EQ(summarize(Schedule{}).ranks, 0U);
}

}  // namespace
}  // namespace gridlock::sim
