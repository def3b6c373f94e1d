#include "gridlock/core/text.hpp"

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
  EXPECT_EQ(split("a,,b", ','), (Fields{"a", "", "b"}));
  EXPECT_EQ(split("", ','), Fields{""});
}

}  // namespace
}  // namespace gridlock
