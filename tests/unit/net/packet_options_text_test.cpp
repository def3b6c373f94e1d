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
  EXPECT_EQ(p.ugal_rule, UgalRule::kHops);
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
  t.ugal_threshold = "1KiB";
  EXPECT_NE(error_of(t).find("only --ugal-rule booksim takes a threshold"), std::string::npos) << error_of(t);
  EXPECT_THROW((void)parse_hop_latency_ps("2s"), InputError);
  EXPECT_EQ(parse_hop_latency_ps("100ns"), 100'000U);
}

}  // namespace
}  // namespace gridlock::net
