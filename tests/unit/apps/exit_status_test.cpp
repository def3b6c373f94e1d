// The exception -> message and exit code mapping both command-line tools share (exit_status.hpp):
// the user's errors say "error:", ours say "internal error: ... please report" and exit 70.
#include "exit_status.hpp"

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"

namespace {

using gridlock::ExitCode;
using gridlock::to_int;
using gridlock::cli::exit_status_of;
using gridlock::cli::ExitStatus;

template <typename E>
ExitStatus status_of(const E& error, const char* program = "gridlock") {
  return exit_status_of(std::make_exception_ptr(error), program);
}

TEST(ExitStatus, UserErrorsKeepTheirCodes) {
  const ExitStatus input = status_of(gridlock::InputError("--ranks: 0 is not a rank count"));
  EXPECT_EQ(input.code, to_int(ExitCode::kUsage));
  EXPECT_EQ(input.message, "gridlock: error: --ranks: 0 is not a rank count");
  const ExitStatus io = status_of(gridlock::IoError("cannot read 'x.goal'"));
  EXPECT_EQ(io.code, to_int(ExitCode::kIo));
  EXPECT_EQ(io.message, "gridlock: error: cannot read 'x.goal'");
  const ExitStatus failed = status_of(gridlock::Error("the TSC did not advance"));
  EXPECT_EQ(failed.code, to_int(ExitCode::kRuntimeFailure));
  EXPECT_EQ(failed.message, "gridlock: error: the TSC did not advance");
}

TEST(ExitStatus, OutOfMemoryIsNotABug) {
  const ExitStatus status = status_of(std::bad_alloc());
  EXPECT_EQ(status.code, to_int(ExitCode::kRuntimeFailure));
  EXPECT_EQ(status.message, std::string("gridlock: error: ") + gridlock::kOutOfMemoryMessage);
}

TEST(ExitStatus, InternalErrorSaysInternalNotError) {
  const ExitStatus status = status_of(gridlock::InternalError("the queue lost an event"));
  EXPECT_EQ(status.code, 70);
  EXPECT_TRUE(status.message.starts_with("gridlock: internal error: the queue lost an event"))
      << status.message;
  EXPECT_NE(status.message.find("please report"), std::string::npos) << status.message;
  EXPECT_EQ(status.message.find("error: internal error"), std::string::npos) << status.message;
}

TEST(ExitStatus, UnexpectedExceptionsAreInternal) {
  const ExitStatus status =
      status_of(std::out_of_range("route: router id out of range"), "gridlock-bench: rank 3");
  EXPECT_EQ(status.code, 70);
  EXPECT_TRUE(status.message.starts_with("gridlock-bench: rank 3: internal error: ")) << status.message;
  EXPECT_NE(status.message.find("route: router id out of range"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("please report"), std::string::npos) << status.message;
  const ExitStatus unknown = status_of(42);
  EXPECT_EQ(unknown.code, 70);
  EXPECT_TRUE(unknown.message.starts_with("gridlock: internal error: ")) << unknown.message;
}

// An Error carrying the internal code without InternalError's words (gridlock-bench passes codes on
// between ranks) still reads as ours, asking for a report once.
class PassedOn : public gridlock::Error {
 public:
  using Error::Error;
  [[nodiscard]] ExitCode exit_code() const noexcept override { return ExitCode::kInternal; }
};

TEST(ExitStatus, InternalCodeWithoutTheWordsGetsThem) {
  const ExitStatus plain = status_of(PassedOn("rank 2: lost a message"), "gridlock-bench");
  EXPECT_EQ(plain.code, 70);
  EXPECT_TRUE(plain.message.starts_with("gridlock-bench: internal error: rank 2: lost a message"))
      << plain.message;
  const ExitStatus worded = status_of(PassedOn(gridlock::InternalError("x").what()), "gridlock-bench");
  const std::string& m = worded.message;
  EXPECT_EQ(m.find("please report"), m.rfind("please report")) << m;
}

}  // namespace
