#pragma once
// Shared pieces of the mapping tests: a fixture with a fresh temporary directory per test, for
// tests that read files, and the message of an expected InputError.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"

namespace gridlock::mapping {

/// Each test gets `<TempDir>/<prefix><pid>_<test name>/`, emptied before and removed after it.
class TempDirTest : public ::testing::Test {
 protected:
  /// `prefix` names the test file's directories, e.g. `gridlock_task_graph_`.
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  /// Creates the directory.
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (prefix_ + std::to_string(::getpid()) + "_" + std::string(info->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  /// Removes the directory.
  void TearDown() override { std::filesystem::remove_all(dir_); }
  /// Writes `content` to `name` in the directory and returns its path.
  [[nodiscard]] std::filesystem::path write(const std::string& name, const std::string& content) const {
    std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::filesystem::path dir_;  ///< The test's directory.

 private:
  std::string prefix_;
};

/// The message of the InputError `f` throws, or "" (and a test failure) when it throws nothing.
template <typename F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

}  // namespace gridlock::mapping
