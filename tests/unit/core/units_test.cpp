#include "gridlock/core/units.hpp"

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"

namespace gridlock {
namespace {

TEST(Units, ParsesByteSizes) {
  EXPECT_EQ(parse_byte_size("8"), 8U);
  EXPECT_EQ(parse_byte_size("8B"), 8U);
  EXPECT_EQ(parse_byte_size("4KiB"), 4096U);
  EXPECT_EQ(parse_byte_size("128k"), 131072U);
  EXPECT_EQ(parse_byte_size("8MiB"), 8U * 1024 * 1024);
  EXPECT_EQ(parse_byte_size("1.5KiB"), 1536U);
  EXPECT_EQ(parse_byte_size("2KB"), 2000U);
  EXPECT_EQ(parse_byte_size(" 1GiB "), 1024ULL * 1024 * 1024);
}

TEST(Units, RejectsBadByteSizesWithTheValueInTheMessage) {
  for (const char* bad : {"", "abc", "-4", "4XB", "0.5", "1e30GiB", "nan"}) {
    try {
      (void)parse_byte_size(bad, "--msg-size");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--msg-size"), std::string::npos) << e.what();
    }
  }
}

TEST(Units, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("10"), 10.0);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("10s"), 10.0);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("2.5us"), 2.5e-6);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("2min"), 120.0);
  EXPECT_THROW((void)parse_duration_seconds("-1s"), InputError);
  EXPECT_THROW((void)parse_duration_seconds("1 fortnight"), InputError);
}

TEST(Units, FormatsBytes) {
  EXPECT_EQ(format_bytes(8), "8 B");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(131072), "128 KiB");
  EXPECT_EQ(format_bytes(8 * kMiB), "8 MiB");
  EXPECT_EQ(format_bytes(1000), "1000 B");
}

}  // namespace
}  // namespace gridlock

namespace gridlock {
namespace {

TEST(Text, SplitKeepsEmptyFields) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string_view>{""}));
  EXPECT_EQ(split("2x2x8", 'x'), (std::vector<std::string_view>{"2", "2", "8"}));
  EXPECT_EQ(split("a,", ','), (std::vector<std::string_view>{"a", ""}));
}

// Fields quoted in error messages come from files that may be binary garbage.
TEST(Text, PrintableExcerptEscapesAndCuts) {
  EXPECT_EQ(printable_excerpt("nid00012"), "nid00012");
  EXPECT_EQ(printable_excerpt(std::string_view("a\0b\x98\t", 5)), "a\\x00b\\x98\\x09");
  EXPECT_EQ(printable_excerpt(std::string(100, 'z'), 10), "zzzzzzzzzz...");
  EXPECT_EQ(printable_excerpt("exactly10!", 10), "exactly10!");
  EXPECT_EQ(printable_excerpt(""), "");
}

TEST(Text, XmlEscapedReplacesTheFiveSpecialCharacters) {
  EXPECT_EQ(xml_escaped("nid00012"), "nid00012");
  EXPECT_EQ(xml_escaped("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  std::string out = "x=";
  append_xml_escaped(out, "&&");
  EXPECT_EQ(out, "x=&amp;&amp;");
  EXPECT_EQ(xml_escaped("{\"a\": '<'}", false), "{\"a\": '&lt;'}");
}

}  // namespace
}  // namespace gridlock
