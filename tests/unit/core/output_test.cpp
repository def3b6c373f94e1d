#include "gridlock/core/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gridlock/core/error.hpp"

namespace gridlock {
namespace {
namespace fs = std::filesystem;

class OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gridlock_output_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

TEST_F(OutputTest, JsonStartsWithContextAndLeavesNoTemporaryFiles) {
  const Json context = base_context("unit-test", "gridlock.test", 1);
  Json body;
  body["value"] = 3.5;
  body["missing"] = std::nan("");
  write_json_file(dir_ / "out.json", context, body);
  const auto parsed = Json::parse(read(dir_ / "out.json"));
  ASSERT_TRUE(parsed.contains("context"));
  EXPECT_EQ(parsed.begin().key(), "context");
  EXPECT_EQ(parsed["context"]["tool"], "unit-test");
  EXPECT_EQ(parsed["context"]["schema_version"], 1);
  EXPECT_TRUE(parsed["context"].contains("gridlock_version"));
  EXPECT_TRUE(parsed["context"].contains("date"));
  EXPECT_EQ(parsed["value"], 3.5);
  EXPECT_TRUE(parsed["missing"].is_null());
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) {
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST_F(OutputTest, AtomicWriteReplacesExistingFile) {
  write_file_atomic(dir_ / "a.txt", "first");
  write_file_atomic(dir_ / "a.txt", "second");
  EXPECT_EQ(read(dir_ / "a.txt"), "second");
}

// A directory given as an input file used to read as an empty file (a noise trace of 0 detours,
// a coordinates file of no nodes); now every reader says what is wrong.
TEST_F(OutputTest, InputFilesAreReadWholeAndDirectoriesAreRefused) {
  std::string big(200'000, 'x');  // more than one read chunk
  big[123'456] = '\n';
  write_file_atomic(dir_ / "in.txt", big);
  EXPECT_EQ(read_input_file(dir_ / "in.txt", "test input"), big);
  write_file_atomic(dir_ / "empty.txt", "");
  EXPECT_EQ(read_input_file(dir_ / "empty.txt", "test input"), "");
  const auto message = [](const fs::path& path) {
    try {
      (void)read_input_file(path, "test input", "do this");
    } catch (const IoError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(dir_).find("cannot read test input '" + dir_.string() + "': it is a directory"),
            std::string::npos)
      << message(dir_);
  EXPECT_NE(message(dir_ / "missing.txt").find("cannot open test input"), std::string::npos);
  EXPECT_NE(message(dir_ / "missing.txt").find("; do this"), std::string::npos);
}

TEST_F(OutputTest, AtomicFileWriterShowsTheFileOnlyWhenCommitted) {
  {
    AtomicFileWriter writer(dir_ / "pieces.txt");
    writer.write("first ");
    writer.write("second");
    EXPECT_FALSE(fs::exists(dir_ / "pieces.txt"));
    writer.commit();
    EXPECT_THROW(writer.write("late"), IoError);
  }
  EXPECT_EQ(read(dir_ / "pieces.txt"), "first second");
  {
    // Abandoned (as when an exception unwinds): neither the file nor its temporary is left.
    AtomicFileWriter writer(dir_ / "abandoned.txt");
    writer.write("half");
  }
  EXPECT_FALSE(fs::exists(dir_ / "abandoned.txt"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) {
    ++entries;
  }
  EXPECT_EQ(entries, 1U);  // pieces.txt
  EXPECT_THROW(AtomicFileWriter(dir_ / "missing-dir" / "x.txt"), IoError);
}

// Run as root, writing to /dev/full or /dev/stdout renamed a regular file over the device node.
// A FIFO shows it without touching /dev: its content must arrive through the pipe, and the
// FIFO must still be there afterwards.
TEST_F(OutputTest, OutputsThatAreFifosOrDevicesAreWrittenInPlace) {
  const fs::path fifo = dir_ / "out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  EXPECT_NO_THROW(check_writable(fifo));
  write_file_atomic(fifo, "through the fifo");
  std::array<char, 64> got{};
  const ssize_t n = ::read(reader, got.data(), got.size());
  ::close(reader);
  EXPECT_EQ(std::string(got.data(), n > 0 ? static_cast<std::size_t>(n) : 0), "through the fifo");
  // Stop here if the FIFO was replaced: the same code would then replace /dev/null below.
  ASSERT_TRUE(fs::is_fifo(fifo));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) {
    ++entries;
  }
  EXPECT_EQ(entries, 1U);  // the FIFO, no temporary file
  EXPECT_NO_THROW(write_file_atomic("/dev/null", "discarded"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(OutputTest, InputFileMapsRegularFilesAndReadsOthers) {
  std::string big(std::size_t{3} * 4096, 'x');  // a whole number of pages: nothing past the end is read
  big[4096] = '\n';
  write_file_atomic(dir_ / "in.bin", big);
  EXPECT_EQ(InputFile(dir_ / "in.bin", "test input").bytes(), big);
  write_file_atomic(dir_ / "empty.bin", "");
  EXPECT_EQ(InputFile(dir_ / "empty.bin", "test input").bytes(), "");
  // A pipe the shell gives (`<(command)`, /dev/stdin) is read, up to the limit.
  std::array<int, 2> ends{};
  ASSERT_EQ(::pipe(ends.data()), 0);
  ASSERT_EQ(::write(ends[1], "through a pipe", 14), 14);
  ::close(ends[1]);
  const fs::path pipe_path = fmt::format("/dev/fd/{}", ends[0]);
  EXPECT_EQ(InputFile(pipe_path, "test input").bytes(), "through a pipe");
  ::close(ends[0]);
  ASSERT_EQ(::pipe(ends.data()), 0);
  ASSERT_EQ(::write(ends[1], "0123456789", 10), 10);
  ::close(ends[1]);
  EXPECT_THROW((void)InputFile(fmt::format("/dev/fd/{}", ends[0]), "test input", "", 4), InputError);
  ::close(ends[0]);
  const auto message = [](const fs::path& path) {
    try {
      (void)InputFile(path, "test input", "do this");
    } catch (const IoError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(dir_).find("it is a directory"), std::string::npos) << message(dir_);
  EXPECT_NE(message(dir_ / "missing.txt").find("cannot open test input"), std::string::npos);
  EXPECT_NE(message(dir_ / "missing.txt").find("; do this"), std::string::npos);
}

// /dev/zero never ends and a named FIFO without a writer blocks its reader forever: both are
// refused before they are opened, as a directory is; a regular file above the limit too.
TEST_F(OutputTest, InputsThatAreNotRegularFilesAreRefused) {
  const auto message = [](const fs::path& path, std::uintmax_t limit) {
    try {
      (void)InputFile(path, "test input", "do this", limit);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("/dev/zero", kDefaultInputLimitBytes).find("it is a character device"),
            std::string::npos);
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message(fifo, kDefaultInputLimitBytes).find("it is a FIFO"), std::string::npos);
  EXPECT_NE(message(dir_, kDefaultInputLimitBytes).find("it is a directory"), std::string::npos);
  write_file_atomic(dir_ / "big.txt", std::string(2048, 'x'));
  EXPECT_NE(message(dir_ / "big.txt", 1024).find("more than the limit of 1 KiB"), std::string::npos);
  EXPECT_EQ(message(dir_ / "big.txt", 2048), "no error");
  EXPECT_THROW((void)read_input_file("/dev/zero", "test input"), IoError);
}

TEST_F(OutputTest, UnwritablePathsGiveIoErrorsThatNameThePath) {
  const fs::path missing = dir_ / "no_such_dir" / "out.json";
  EXPECT_THROW(check_writable(missing), IoError);
  EXPECT_THROW(check_writable(dir_), IoError);
  try {
    write_file_atomic(missing, "x");
    FAIL() << "wrote into a missing directory";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_dir"), std::string::npos);
  }
  EXPECT_NO_THROW(check_writable(dir_ / "fine.json"));
}

TEST_F(OutputTest, ParentThatIsAFileIsNotADirectory) {
  const fs::path file = dir_ / "file.txt";
  std::ofstream(file) << "x";
  try {
    check_writable(file / "out.json");
    FAIL() << "accepted a path below a regular file";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + file.string() + "' is not a directory"), std::string::npos)
        << e.what();
  }
}

TEST_F(OutputTest, CsvHasContextCommentsThenHeaderAndEscapedRows) {
  Json context;
  context["tool"] = "t";
  context["seed"] = 42;
  CsvWriter csv(context, {"name", "value"});
  csv.add_row({"a,b", "1"});
  csv.add_row({"say \"hi\"", "2"});
  EXPECT_THROW(csv.add_row({"only one"}), InputError);
  csv.write(dir_ / "h.csv");
  EXPECT_EQ(read(dir_ / "h.csv"), "# tool: t\n# seed: 42\nname,value\n\"a,b\",1\n\"say \"\"hi\"\"\",2\n");
}

}  // namespace
}  // namespace gridlock
