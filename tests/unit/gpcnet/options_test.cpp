#include "gridlock/gpcnet/options.hpp"
#include "gridlock/gpcnet/options_json.hpp"

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"

namespace gridlock::gpcnet {
namespace {

TEST(Options, ParsesCongestorLists) {
  const auto list = parse_congestor_list("a2a,rma-bcast,allreduce");
  ASSERT_EQ(list.size(), 3U);
  EXPECT_EQ(list[0], CongestorType::kAllToAll);
  EXPECT_EQ(list[1], CongestorType::kRmaBcast);
  EXPECT_EQ(list[2], CongestorType::kAllreduce);
}

TEST(Options, UnknownOrDuplicateCongestorsAreErrorsListingValidNames) {
  try {
    (void)parse_congestor_list("a2a,bogus");
    FAIL();
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("'bogus'"), std::string::npos);
    EXPECT_NE(text.find("p2p-incast"), std::string::npos);
  }
  EXPECT_THROW((void)parse_congestor_list("a2a,a2a"), InputError);
  EXPECT_THROW((void)parse_congestor_list(""), InputError);
}

TEST(Options, DefaultsAreThePapersAndValid) {
  const Options o;
  EXPECT_EQ(o.latency.measurements, 10000U);
  EXPECT_EQ(o.latency.rings, 30U);
  EXPECT_EQ(o.latency.iterations, 200U);
  EXPECT_EQ(o.latency.warmup, 200U);
  EXPECT_EQ(o.bandwidth.iterations, 8U);
  EXPECT_EQ(o.allreduce.measurements, 100000U);
  EXPECT_EQ(o.bandwidth_bytes, 131072U);
  EXPECT_EQ(o.congestor_bytes, 4096U);
  EXPECT_DOUBLE_EQ(o.canary_fraction, 0.2);
  EXPECT_DOUBLE_EQ(o.test_timeout_s, 10.0);
  // GPCNeT's method: shared receive buffers, idle ranks in a blocking barrier.
  EXPECT_EQ(o.recv_buffers, RecvBuffers::kShared);
  EXPECT_EQ(o.idle_wait, IdleWait::kBarrier);
  EXPECT_EQ(options_to_json(o)["recv_buffers"], "shared");
  EXPECT_EQ(options_to_json(o)["idle_wait"], "barrier");
  EXPECT_NO_THROW(validate(o));
}

TEST(Options, ValidationNamesTheOption) {
  const auto expect_error = [](const Options& o, const char* option) {
    try {
      validate(o);
      ADD_FAILURE() << "accepted bad " << option;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  };
  Options o;
  o.bandwidth_bytes = 0;
  expect_error(o, "--bandwidth-size");
  o = Options{};
  o.latency.iterations = 0;
  expect_error(o, "--latency-iterations");
  o = Options{};
  o.canary_fraction = 1.0;
  expect_error(o, "--canary-fraction");
  o = Options{};
  o.allreduce_bytes = 12;
  expect_error(o, "--allreduce-size");
  o = Options{};
  o.test_timeout_s = 0;
  expect_error(o, "--test-timeout");
  o = Options{};
  o.virtual_nodes = 4;
  o.ranks_per_node = 2;
  expect_error(o, "--virtual-nodes");
}

TEST(Options, QuickProfileShrinksCountsAndStaysValid) {
  Options o;
  apply_quick_profile(o);
  EXPECT_TRUE(o.quick);
  EXPECT_LT(o.latency.measurements * o.latency.rings * o.latency.iterations, 10000U);
  EXPECT_NO_THROW(validate(o));
  const Json j = options_to_json(o);
  EXPECT_EQ(j["quick"], true);
  EXPECT_EQ(j["latency"]["rings"], o.latency.rings);
}

}  // namespace
}  // namespace gridlock::gpcnet
