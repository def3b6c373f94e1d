#include "gridlock/core/text.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace gridlock {
namespace {

using Fields = std::vector<std::string_view>;

TEST(Text, TrimRemovesEveryBlankOfTheOneRule) {
  EXPECT_EQ(trim(" \t\r\n\v\fabc d\f\v\n\r\t "), "abc d");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t\r\n"), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(Text, TrimKeepsOtherBytes) {
  EXPECT_EQ(trim("\xA0x\xA0"), "\xA0x\xA0");
  EXPECT_EQ(trim(",x,"), ",x,");
}

TEST(Text, SplitFieldsOnBlanksAndCommas) {
  EXPECT_EQ(split_fields("1, 2,,3\r"), (Fields{"1", "2", "3"}));
  EXPECT_EQ(split_fields("\t4 x\n5\v6"), (Fields{"4", "x", "5", "6"}));
  EXPECT_EQ(split_fields(""), Fields{});
  EXPECT_EQ(split_fields(" ,\t, "), Fields{});
}

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

TEST(Text, IequalsIgnoresAsciiCaseOnly) {
  EXPECT_TRUE(gridlock::iequals("Matrix", "matrix"));
  EXPECT_TRUE(gridlock::iequals("", ""));
  EXPECT_FALSE(gridlock::iequals("matrix", "matrices"));
  EXPECT_FALSE(gridlock::iequals("a", "b"));
  // '@' and '`' are one bit apart as 'A'..'Z' and 'a'..'z' are, yet no letters.
  EXPECT_FALSE(gridlock::iequals("@", "`"));
  EXPECT_FALSE(gridlock::iequals("\xC3\xA9", "\xC3\x89"));
}

TEST(Text, ParseUnsignedTakesPlainDecimalsOnly) {
  EXPECT_EQ(gridlock::parse_u32("0"), 0U);
  EXPECT_EQ(gridlock::parse_u32("007"), 7U);
  EXPECT_EQ(gridlock::parse_u32("4294967295"), 4294967295U);
  EXPECT_EQ(gridlock::parse_u64("18446744073709551615"), UINT64_MAX);
  for (const std::string_view bad : {"", " 1", "1 ", "+1", "-1", "-0", "0x10", "1.5", "1e3", "12a", "\t7"}) {
    EXPECT_FALSE(gridlock::parse_u32(bad).has_value()) << "'" << bad << "'";
    EXPECT_FALSE(gridlock::parse_u64(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Text, ParseUnsignedRefusesOverflow) {
  EXPECT_FALSE(gridlock::parse_u32("4294967296").has_value());
  EXPECT_FALSE(gridlock::parse_u64("18446744073709551616").has_value());
  EXPECT_FALSE(gridlock::parse_u64("99999999999999999999999").has_value());
}

TEST(Text, ParseIntTakesAMinusButNoPlus) {
  EXPECT_EQ(gridlock::parse_int("-12"), -12);
  EXPECT_EQ(gridlock::parse_int("2147483647"), 2147483647);
  EXPECT_FALSE(gridlock::parse_int("2147483648").has_value());
  EXPECT_FALSE(gridlock::parse_int("+3").has_value());
  EXPECT_FALSE(gridlock::parse_int("-").has_value());
  EXPECT_FALSE(gridlock::parse_int("3-").has_value());
  EXPECT_EQ(gridlock::parse_number<std::int64_t>("-9223372036854775808"), INT64_MIN);
}

TEST(Text, ParseDoubleTakesTheWholeText) {
  EXPECT_EQ(gridlock::parse_double("2.5e9"), 2.5e9);
  EXPECT_EQ(gridlock::parse_double("-0.5"), -0.5);
  EXPECT_EQ(gridlock::parse_double(".5"), 0.5);
  EXPECT_EQ(gridlock::parse_double("1"), 1.0);
  for (const std::string_view bad : {"", " 1", "1 ", "+1", "1.5x", "0x1p3", "e5", ".", "1e999"}) {
    EXPECT_FALSE(gridlock::parse_double(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Text, ParseDoubleLeavesInfAndNanToTheCaller) {
  const auto inf = gridlock::parse_double("inf");
  ASSERT_TRUE(inf.has_value());
  EXPECT_TRUE(std::isinf(*inf));
  const auto nan = gridlock::parse_double("nan");
  ASSERT_TRUE(nan.has_value());
  EXPECT_TRUE(std::isnan(*nan));
}

// parse_number() tells a number beyond the type's range from text that is no number (the oracle
// client's Content-Length and the CLI's unsigned options name the two differently).
TEST(Text, ParseNumberTellsOutOfRangeFromNoNumber) {
  bool out_of_range = true;
  EXPECT_EQ(gridlock::parse_number<std::uint32_t>("4294967295", out_of_range), 4294967295U);
  EXPECT_FALSE(out_of_range);
  EXPECT_FALSE(gridlock::parse_number<std::uint32_t>("4294967296", out_of_range).has_value());
  EXPECT_TRUE(out_of_range);
  EXPECT_FALSE(gridlock::parse_number<std::uint64_t>("99999999999999999999x", out_of_range).has_value());
  EXPECT_TRUE(out_of_range);
  EXPECT_FALSE(gridlock::parse_number<std::uint64_t>("12x", out_of_range).has_value());
  EXPECT_FALSE(out_of_range);
  EXPECT_FALSE(gridlock::parse_number<std::uint64_t>("", out_of_range).has_value());
  EXPECT_FALSE(out_of_range);
  EXPECT_FALSE(gridlock::parse_number<double>("1e999", out_of_range).has_value());
  EXPECT_TRUE(out_of_range);
}

// A number with a unit after it: the value and the rest; no number at the start, or one out of
// range, gives nothing.
TEST(Text, ParseNumberPrefixSplitsNumberAndUnit) {
  const auto us = gridlock::parse_number_prefix<double>("12.5us");
  ASSERT_TRUE(us.has_value());
  EXPECT_EQ(us->value, 12.5);
  EXPECT_EQ(us->rest, "us");
  const auto bare = gridlock::parse_number_prefix<std::uint64_t>("4096");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->value, 4096U);
  EXPECT_TRUE(bare->rest.empty());
  EXPECT_EQ(gridlock::parse_number_prefix<double>("2e3 Gf")->rest, " Gf");
  EXPECT_FALSE(gridlock::parse_number_prefix<double>("").has_value());
  EXPECT_FALSE(gridlock::parse_number_prefix<double>("us").has_value());
  EXPECT_FALSE(gridlock::parse_number_prefix<double>(" 1us").has_value());
  EXPECT_FALSE(gridlock::parse_number_prefix<double>("1e999us").has_value());
  EXPECT_FALSE(gridlock::parse_number_prefix<std::uint32_t>("-1KiB").has_value());
}

// roff for man pages: backslashes and line-leading requests escaped, option names with real
// minus signs; ASCII upper case without the locale.
TEST(Text, RoffEscapesAndUpperCase) {
  EXPECT_EQ(gridlock::roff_escaped("a\\b"), "a\\eb");
  EXPECT_EQ(gridlock::roff_escaped(".TH x\n'quote\nmid.dle"), "\\&.TH x\n\\&'quote\nmid.dle");
  EXPECT_EQ(gridlock::roff_escaped(""), "");
  EXPECT_EQ(gridlock::roff_word("--json"), "\\-\\-json");
  EXPECT_EQ(gridlock::roff_word("a\\b"), "a\\eb");
  EXPECT_EQ(gridlock::ascii_upper("gridlock-topo route"), "GRIDLOCK-TOPO ROUTE");
  EXPECT_EQ(gridlock::ascii_upper("\xc3\xa9z"), "\xc3\xa9Z");
}

TEST(Text, FormatRangesShortensRuns) {
  EXPECT_EQ(gridlock::format_ranges(std::vector<int>{1, 2, 3, 5, 7, 8}, ", "), "1-3, 5, 7-8");
  EXPECT_EQ(gridlock::format_ranges(std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11}, ","), "0-3,8,10-11");
  EXPECT_EQ(gridlock::format_ranges(std::vector<unsigned>{4}, ","), "4");
  EXPECT_EQ(gridlock::format_ranges(std::vector<int>{}, ","), "");
}
