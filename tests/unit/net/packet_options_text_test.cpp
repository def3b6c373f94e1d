// The packet model's options as text (net/packet_options_text.hpp): converted, bounded, and
// refused with the option's name.
#include "gridlock/net/packet_options_text.hpp"

#include <gtest/gtest.h>

#include <string>

#include "gridlock/core/error.hpp"

namespace gridlock::net {
namespace {

/// The InputError message of converting `text`, or "" when it converts.
std::string error_of(const PacketOptionsText& text) {
  try {
    (void)packet_options_from(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PacketOptionsText, DefaultsConvertToTheModelsDefaults) {
  const PacketOptions p = packet_options_from(PacketOptionsText{});
  const PacketOptions model;
  EXPECT_EQ(p.packet_bytes, model.packet_bytes);
  EXPECT_EQ(p.buffer_bytes, model.buffer_bytes);
  EXPECT_EQ(p.vcs, model.vcs);
  EXPECT_EQ(p.routing, Routing::kMinimal);
  // Not given: the model's default, BookSim2's rule (the reference's).
  EXPECT_EQ(p.ugal_rule, model.ugal_rule);
  EXPECT_EQ(p.ugal_rule, UgalRule::kBookSim);
  EXPECT_FALSE(p.congestion_control);
}

TEST(PacketOptionsText, UnitsAndChoicesConvert) {
  PacketOptionsText t;
  t.routing = "ugal";
  t.packet_size = "4KiB";
  t.buffer = "64KiB";
  t.vcs = 4;
  t.credit_latency = "20ns";
  t.ugal_rule = "booksim";
  t.ugal_threshold = "1KiB";
  const PacketOptions p = packet_options_from(t);
  EXPECT_EQ(p.routing, Routing::kUgal);
  EXPECT_EQ(p.packet_bytes, 4096U);
  EXPECT_EQ(p.buffer_bytes, 65536U);
  EXPECT_EQ(p.vcs, 4U);
  EXPECT_EQ(p.credit_latency_ps, 20'000U);
  EXPECT_EQ(p.ugal_rule, UgalRule::kBookSim);
  EXPECT_EQ(p.ugal_threshold_bytes, 1024U);
}

TEST(PacketOptionsText, BadValuesNameTheirOption) {
  PacketOptionsText t;
  t.vcs = 0;
  EXPECT_NE(error_of(t).find("--vcs 0: give 1 to 8"), std::string::npos) << error_of(t);
  t = {};
  t.packet_size = "0B";
  EXPECT_NE(error_of(t).find("--packet-size 0B: give 1 B to"), std::string::npos) << error_of(t);
  t = {};
  t.credit_latency = "2s";
  EXPECT_NE(error_of(t).find("--credit-latency 2s: at most 1 s"), std::string::npos) << error_of(t);
  t = {};
  t.ugal_rule = "fast";
  EXPECT_NE(error_of(t).find("--ugal-rule 'fast'"), std::string::npos) << error_of(t);
  t = {};
  t.ugal_threshold = "1GiB";
  EXPECT_NE(error_of(t).find("--ugal-threshold 1GiB: give at most 256 MiB"), std::string::npos)
      << error_of(t);
  EXPECT_THROW((void)parse_hop_latency_ps("2s"), InputError);
  EXPECT_EQ(parse_hop_latency_ps("100ns"), 100'000U);
}

// UGAL options that would change nothing are refused once a preset's values are in.
TEST(PacketOptionsText, UgalOptionsThatChangeNothingAreRefused) {
  const auto error = [](const PacketOptions& p, bool rule, bool threshold) {
    try {
      check_ugal_options(p, rule, threshold);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  PacketOptions p;
  EXPECT_EQ(error(p, false, false), "(no error)");  // minimal routing, the default rule untouched
  EXPECT_NE(error(p, true, false).find("--ugal-rule booksim applies to ugal routing, not minimal"),
            std::string::npos);
  EXPECT_NE(error(p, false, true).find("--ugal-threshold applies to ugal routing, not minimal"),
            std::string::npos);
  p.routing = Routing::kUgal;
  p.ugal_threshold_bytes = 480;
  EXPECT_EQ(error(p, true, true), "(no error)");
  EXPECT_EQ(error(p, false, true), "(no error)");  // the default rule takes a threshold
  p.ugal_rule = UgalRule::kHops;                   // e.g. a preset's
  EXPECT_NE(error(p, false, true)
                .find("only --ugal-rule booksim takes a threshold, and the rule is hops (the "
                      "--system preset's)"),
            std::string::npos)
      << error(p, false, true);
  EXPECT_NE(error(p, true, true).find("and the rule is hops (--ugal-rule)"), std::string::npos);
  EXPECT_EQ(parse_ugal_rule("hops"), UgalRule::kHops);
  EXPECT_STREQ(to_string(UgalRule::kBookSim), "booksim");
}

}  // namespace
}  // namespace gridlock::net
