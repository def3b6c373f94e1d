// The output guard (core/output_guard.hpp): an output naming an input file, an input directory or
// a file read from one is refused; outputs' own values and paths that do not exist yet are not.
#include "gridlock/core/output_guard.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gridlock/core/error.hpp"

namespace gridlock {
namespace {
namespace fs = std::filesystem;

class OutputGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gridlock_output_guard_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "in");
    std::ofstream(dir_ / "in.goal") << "num_ranks 1\n";
    std::ofstream(dir_ / "in" / "h.csv") << "a\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// The message of checking `arguments` with `output` as the value of --json, or "" when accepted.
  std::string refusal(const std::vector<std::string>& arguments, const std::string& output) const {
    try {
      check_outputs_not_inputs(arguments, {{"--json", {output}}}, {});
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(OutputGuardTest, PathCandidatesAreTheArgumentAndWhatFollowsEachSeparator) {
  EXPECT_EQ(path_candidates("matrix:m.csv"),
            (std::vector<std::string>{"matrix:m.csv", "matrix:m.csv", "m.csv"}));
  EXPECT_EQ(path_candidates("a=b,@c"), (std::vector<std::string>{"a=b,@c", "a=b", "b", "@c", "c"}));
}

TEST_F(OutputGuardTest, AnOutputThatIsAnInputFileIsRefused) {
  const std::string in = (dir_ / "in.goal").string();
  EXPECT_NE(refusal({"--json", in, in}, in).find("is the input file"), std::string::npos);
  // The same file through a piece of an argument (`--schedule=FILE`) and through a symbolic link.
  EXPECT_NE(refusal({"--json", in, "--schedule=" + in}, in).find("is the input file"), std::string::npos);
  fs::create_symlink(dir_ / "in.goal", dir_ / "link.goal");
  EXPECT_NE(refusal({"--json", (dir_ / "link.goal").string(), in}, (dir_ / "link.goal").string())
                .find("is the input file"),
            std::string::npos);
}

TEST_F(OutputGuardTest, TheOutputsOwnValueAndNewFilesAreAccepted) {
  const std::string in = (dir_ / "in.goal").string();
  const std::string out = (dir_ / "out.json").string();
  EXPECT_EQ(refusal({"--json", in}, in), "");  // only the output names it: rewriting an output is fine
  EXPECT_EQ(refusal({"--json", out, in}, out), "");
}

// Two outputs naming one file: each is written whole, so the second would replace the first
// (`predict traffic --json t.json --csv t.json` wrote only the CSV).
TEST_F(OutputGuardTest, TwoOutputsNamingOneFileAreRefused) {
  const std::string out = (dir_ / "out.json").string();
  const std::string other = (dir_ / "out.csv").string();
  const auto refused = [](const std::vector<OutputArgument>& outputs) {
    try {
      check_outputs_not_inputs({}, outputs, {});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused({{"--json", {out}}, {"--csv", {out}}}).find("--json and --csv both write '" + out + "'"),
            std::string::npos);
  // Spelled differently, and through a symbolic link to an existing output.
  EXPECT_NE(refused({{"--json", {out}}, {"--csv", {(dir_ / "in" / ".." / "out.json").string()}}}), "");
  std::ofstream(dir_ / "old.json") << "{}";
  fs::create_symlink(dir_ / "old.json", dir_ / "link.json");
  EXPECT_NE(refused({{"--json", {(dir_ / "old.json").string()}}, {"--csv", {(dir_ / "link.json").string()}}}),
            "");
  // One option given twice with one file.
  EXPECT_NE(refused({{"--json", {out, out}}}), "");
  // Relative spellings of one new file in the working directory (`n.out` and `./n.out` compared
  // unequal: only the second resolved against the working directory).
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  const std::string relative = refused({{"--json", {"n.out"}}, {"--histogram", {"./n.out"}}});
  fs::current_path(cwd);
  EXPECT_NE(relative.find("--json and --histogram both write './n.out'"), std::string::npos) << relative;
  // Distinct files, and a device shared by two outputs, are accepted.
  EXPECT_EQ(refused({{"--json", {out}}, {"--csv", {other}}}), "");
  EXPECT_EQ(refused({{"--json", {"/dev/null"}}, {"--csv", {"/dev/null"}}}), "");
}

TEST_F(OutputGuardTest, AnInputDirectoryAndTheFilesReadFromItAreRefused) {
  const std::string in_dir = (dir_ / "in").string();
  EXPECT_NE(refusal({"--json", in_dir, in_dir}, in_dir).find("is the input directory"), std::string::npos);
  const std::string csv = (dir_ / "in" / "h.csv").string();
  EXPECT_NE(refusal({"--json", csv, in_dir}, csv).find("is inside the input directory"), std::string::npos);
}

}  // namespace
}  // namespace gridlock
