#include "exit_status.hpp"

#include <new>
#include <string_view>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/internal_error.hpp"

namespace gridlock::cli {

namespace {

constexpr std::string_view kInternalPrefix = "internal error: ";

ExitStatus internal(std::string_view program, const std::string& what) {
  return {to_int(ExitCode::kInternal), fmt::format("{}: {}", program, what)};
}

}  // namespace

ExitStatus exit_status_of(const std::exception_ptr& error, std::string_view program) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    const std::string_view what = e.what();
    if (e.exit_code() != ExitCode::kInternal) {
      return {to_int(e.exit_code()), fmt::format("{}: error: {}", program, what)};
    }
    // InternalError's message starts with "internal error: " and asks for a report; an error
    // passed on with the internal code (gridlock-bench's CollectiveError) may lack both.
    if (what.starts_with(kInternalPrefix)) {
      return internal(program, e.what());
    }
    return internal(program, InternalError(e.what()).what());
  } catch (const std::bad_alloc&) {
    // Not a bug: the input asks for more than the machine (or the job's limit) gives.
    return {to_int(ExitCode::kRuntimeFailure), fmt::format("{}: error: {}", program, kOutOfMemoryMessage)};
  } catch (const std::exception& e) {
    // Every error gridlock means to report is a gridlock::Error: anything else escaping a command
    // (std::out_of_range from a broken precondition, a library's exception) is our defect.
    return internal(program, InternalError(fmt::format("unexpected exception: {}", e.what())).what());
  } catch (...) {
    return internal(program, InternalError("an exception of unknown type").what());
  }
}

}  // namespace gridlock::cli
