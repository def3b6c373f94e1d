#include "gridlock/core/schema.hpp"

#include <set>
#include <string_view>

#include <gtest/gtest.h>

#include "gridlock/core/output.hpp"

namespace gridlock {
namespace {

TEST(Schema, NamesAreUniqueVersionedAndUnderGridlock) {
  std::set<std::string_view> names;
  for (const Schema& s : schemas::kAll) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name << " is registered twice";
    EXPECT_GE(s.version, 1) << s.name;
    EXPECT_EQ(s.name.substr(0, 9), "gridlock.") << s.name;
    EXPECT_EQ(known_schema_version(s.name), s.version) << s.name;
  }
}

TEST(Schema, UnknownNamesHaveNoVersion) {
  EXPECT_EQ(known_schema_version("gridlock.nosuch"), 0);
  EXPECT_EQ(known_schema_version(""), 0);
  EXPECT_EQ(known_schema_version("gridlock.sweep "), 0);
}

TEST(Schema, EveryNameIsDotted) {
  for (const Schema& s : schemas::kAll) {
    EXPECT_EQ(s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz."), std::string_view::npos) << s.name;
  }
}

TEST(Schema, OldNamesAreReadAsTheRenamedFormats) {
  for (const schemas::Alias& a : schemas::kAliases) {
    EXPECT_EQ(known_schema_version(a.current.name), a.current.version)
        << a.old_name << " is not a current format";
    EXPECT_LT(a.last_version, a.current.version) << a.old_name << ": a rename raises the version";
    EXPECT_EQ(known_schema_version(a.old_name), a.last_version) << a.old_name;
    EXPECT_EQ(canonical_schema_name(a.old_name), a.current.name);
  }
  EXPECT_EQ(canonical_schema_name("gridlock.predict_mapping"), "gridlock.predict.mapping");
  EXPECT_EQ(canonical_schema_name("gridlock.schedule-info"), "gridlock.schedule.info");
  EXPECT_EQ(canonical_schema_name("gridlock.predict_traffic"), "gridlock.predict.traffic");
  EXPECT_EQ(canonical_schema_name("gridlock.sweep"), "gridlock.sweep");
  EXPECT_EQ(canonical_schema_name("someone.else"), "someone.else");
}

TEST(Schema, BaseContextWritesTheRegisteredNameAndVersion) {
  const Json context = base_context("gridlock-bench sweep", schemas::kSweep);
  EXPECT_EQ(context["schema"], "gridlock.sweep");
  EXPECT_EQ(context["schema_version"], 2);
  EXPECT_EQ(context["tool"], "gridlock-bench sweep");
}

}  // namespace
}  // namespace gridlock
