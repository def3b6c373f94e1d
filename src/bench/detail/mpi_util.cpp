#include "detail/mpi_util.hpp"

#include <time.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <exception>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gridlock/bench/errors.hpp"
#include "gridlock/core/internal_error.hpp"

namespace gridlock::bench::detail {

// gridlock::gpcnet's GPCNeT options, roles and results, as used throughout this file.
using gpcnet::IdleWait;

std::string_view mpi_error_class_name(int error_class) noexcept {
  // The constants' values differ between MPI libraries (MPI_ERR_OP is 10 in Open MPI, 9 in
  // MPICH), so the table compares against them rather than indexing by value.
  static const std::array<std::pair<int, std::string_view>, 37> kNames{{
      {MPI_SUCCESS, "MPI_SUCCESS"},
      {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
      {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
      {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
      {MPI_ERR_TAG, "MPI_ERR_TAG"},
      {MPI_ERR_COMM, "MPI_ERR_COMM"},
      {MPI_ERR_RANK, "MPI_ERR_RANK"},
      {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
      {MPI_ERR_ROOT, "MPI_ERR_ROOT"},
      {MPI_ERR_GROUP, "MPI_ERR_GROUP"},
      {MPI_ERR_OP, "MPI_ERR_OP"},
      {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY"},
      {MPI_ERR_DIMS, "MPI_ERR_DIMS"},
      {MPI_ERR_ARG, "MPI_ERR_ARG"},
      {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN"},
      {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
      {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
      {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
      {MPI_ERR_PENDING, "MPI_ERR_PENDING"},
      {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"},
      {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM"},
      {MPI_ERR_WIN, "MPI_ERR_WIN"},
      {MPI_ERR_BASE, "MPI_ERR_BASE"},
      {MPI_ERR_SIZE, "MPI_ERR_SIZE"},
      {MPI_ERR_DISP, "MPI_ERR_DISP"},
      {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE"},
      {MPI_ERR_ASSERT, "MPI_ERR_ASSERT"},
      {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT"},
      {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC"},
      {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE"},
      {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH"},
      {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED"},
      {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR"},
      {MPI_ERR_SPAWN, "MPI_ERR_SPAWN"},
      {MPI_ERR_PORT, "MPI_ERR_PORT"},
      {MPI_ERR_NAME, "MPI_ERR_NAME"},
      {MPI_ERR_SERVICE, "MPI_ERR_SERVICE"},
  }};
  for (const auto& [value, name] : kNames) {
    if (value == error_class) {
      return name;
    }
  }
  return {};
}

std::string describe_mpi_error(int rc) {
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  if (MPI_Error_string(rc, text.data(), &length) != MPI_SUCCESS) {
    length = 0;
  }
  // MPICH's strings carry a multi-line error stack: one line keeps records and tables readable.
  const std::string_view raw(text.data(),
                             static_cast<std::size_t>(std::clamp(length, 0, MPI_MAX_ERROR_STRING)));
  std::string library;
  for (const char c : raw) {
    if (c != '\n') {
      library += c;
    } else if (!library.empty() && library.back() == ':') {
      library += ' ';
    } else if (!library.empty()) {
      library += "; ";
    }
  }
  while (!library.empty() && (library.back() == ' ' || library.back() == ';')) {
    library.pop_back();
  }
  int error_class = MPI_ERR_UNKNOWN;
  if (MPI_Error_class(rc, &error_class) != MPI_SUCCESS) {
    error_class = MPI_ERR_UNKNOWN;
  }
  const std::string_view name = mpi_error_class_name(error_class);
  // Open MPI's strings already start with the class name ("MPI_ERR_COUNT: invalid count argument").
  if (name.empty() || library.rfind(name, 0) == 0) {
    return library.empty() ? fmt::format("MPI error code {}", rc) : library;
  }
  return library.empty() ? std::string(name) : fmt::format("{}: {}", name, library);
}

void check_mpi(int rc, const char* call, const char* file, int line) {
  if (rc == MPI_SUCCESS) {
    return;
  }
  const std::string reason = describe_mpi_error(rc);
  const std::string_view name(call, std::strcspn(call, "("));
  throw MpiError(fmt::format("{} failed at {}:{}: {} (MPI error code {})", call, file, line, reason, rc),
                 fmt::format("{}: {}", name, reason));
}

void agree(MPI_Comm comm, const std::function<void()>& step) {
  int rank = 0;
  int size = 1;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  GRIDLOCK_MPI(MPI_Comm_size(comm, &size));
  bool failed = true;
  ExitCode code = ExitCode::kOk;
  std::string message;
  try {
    step();
    failed = false;
  } catch (const Error& e) {
    code = e.exit_code();
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = ExitCode::kRuntimeFailure;
    message = kOutOfMemoryMessage;
  } catch (const std::exception& e) {
    // Every error gridlock means to report is an Error: anything else is our defect.
    code = ExitCode::kInternal;
    message = InternalError(fmt::format("unexpected exception: {}", e.what())).what();
  }
  const int mine = failed ? rank : size;
  int first = size;
  GRIDLOCK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) {
    return;
  }
  // The lowest failing rank tells the others what went wrong.
  std::array<int, 2> head{to_int(code), to_count(message.size(), "error message bytes")};
  GRIDLOCK_MPI(MPI_Bcast(head.data(), 2, MPI_INT, first, comm));
  message.resize(static_cast<std::size_t>(head[1]));
  GRIDLOCK_MPI(MPI_Bcast(message.data(), head[1], MPI_CHAR, first, comm));
  const auto code_of_first = static_cast<ExitCode>(head[0]);
  if (first != 0) {
    // "rank 3: " goes after an internal error's "internal error: ", which the message starts with.
    const std::string_view internal = "internal error: ";
    const std::size_t at =
        code_of_first == ExitCode::kInternal && message.starts_with(internal) ? internal.size() : 0;
    message.insert(at, fmt::format("rank {}: ", first));
  }
  throw CollectiveError(message, code_of_first);
}

void agree_on_root(MPI_Comm comm, const std::function<void()>& step) {
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  agree(comm, [&] {
    if (rank == 0) {
      step();
    }
  });
}

void agree_on_root_idle(MPI_Comm comm, const std::function<void()>& step) {
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  std::exception_ptr error;
  if (rank == 0) {
    try {
      step();
    } catch (...) {
      // Rethrown inside agree_on_root() below, once every rank is there to hear it.
      error = std::current_exception();
    }
  }
  idle_barrier(comm, gpcnet::IdleWait::kSleep);
  agree_on_root(comm, [&error] {
    if (error) {
      std::rethrow_exception(error);
    }
  });
}

Comm split(MPI_Comm comm, int color, int key) {
  MPI_Comm result = MPI_COMM_NULL;
  GRIDLOCK_MPI(MPI_Comm_split(comm, color, key, &result));
  Comm owned(result);
  // MPI says a new communicator inherits its parent's handler; set it anyway, so that a failed
  // call on a split communicator comes back as an error whatever the parent had.
  if (result != MPI_COMM_NULL) {
    GRIDLOCK_MPI(MPI_Comm_set_errhandler(result, MPI_ERRORS_RETURN));
  }
  return owned;
}

RoleComms split_role_comms(MPI_Comm world, int group, std::uint64_t position, int ranks_per_node,
                           int local_rank) {
  RoleComms comms;
  comms.group = split(world, group, static_cast<int>(position) * ranks_per_node + local_rank);
  comms.slice = split(world, group * ranks_per_node + local_rank, static_cast<int>(position));
  return comms;
}

Window::Window(MPI_Comm comm, std::uint64_t bytes) {
  GRIDLOCK_MPI(MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, comm, &base_, &win_));
  GRIDLOCK_MPI(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN));
  GRIDLOCK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
}

void Window::release() noexcept {
  if (win_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }
}

Window& Window::operator=(Window&& other) noexcept {
  if (this != &other) {
    release();
    win_ = other.win_;
    base_ = other.base_;
    other.win_ = MPI_WIN_NULL;
  }
  return *this;
}

Window::~Window() { release(); }

void create_in_turn(MPI_Comm comm, int my_turn, int turns, const std::function<void()>& create) {
  // An error in one slice's turn must not leave the other slices waiting at the next barrier:
  // agree() ends every rank with it.
  for (int turn = 0; turn < turns; ++turn) {
    agree(comm, [&] {
      if (turn == my_turn) {
        create();
      }
    });
  }
}

void idle_wait(MPI_Request& request, IdleWait how) {
  // Short sleeps keep latency of the wake-up small (tens of microseconds) against phases that
  // last seconds, while freeing the core on oversubscribed hosts; but each wake-up can preempt a
  // measuring rank on a shared core, which is why kBarrier is the default (docs/gridlock-bench.md).
  constexpr timespec kNap{0, 50'000};
  // A request already completed (and nulled) by an earlier MPI_Test is done. The check is
  // needed: SimGrid SMPI 3.32 leaves `flag` unset for MPI_REQUEST_NULL when the status is
  // MPI_STATUS_IGNORE, which made this loop spin forever (docs/smpi.md).
  if (request == MPI_REQUEST_NULL) {
    return;
  }
  if (how == IdleWait::kBarrier) {
    GRIDLOCK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    return;
  }
  int done = 0;
  for (;;) {
    GRIDLOCK_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done != 0) {
      return;
    }
    if (how == IdleWait::kSleep) {
      nanosleep(&kNap, nullptr);
    }
  }
}

void idle_barrier(MPI_Comm comm, IdleWait how) {
  if (how == IdleWait::kBarrier) {
    GRIDLOCK_MPI(MPI_Barrier(comm));
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  GRIDLOCK_MPI(MPI_Ibarrier(comm, &request));
  idle_wait(request, how);
}

LogHistogram reduce_histogram(const LogHistogram& local, MPI_Comm comm, int root) {
  const auto counts = local.bucket_counts();
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  std::vector<std::uint64_t> total(rank == root ? counts.size() : 0);
  GRIDLOCK_MPI(MPI_Reduce(counts.data(), total.data(), to_count(counts.size(), "histogram buckets"),
                          MPI_UINT64_T, MPI_SUM, root, comm));
  std::array<double, 2> sums{local.sum(), static_cast<double>(local.nan_count())};
  std::array<double, 2> sums_total{};
  GRIDLOCK_MPI(MPI_Reduce(sums.data(), sums_total.data(), 2, MPI_DOUBLE, MPI_SUM, root, comm));
  // min and -max reduce together with one MPI_MIN.
  std::array<double, 2> extremes{local.min(), -local.max()};
  std::array<double, 2> extremes_total{};
  GRIDLOCK_MPI(MPI_Reduce(extremes.data(), extremes_total.data(), 2, MPI_DOUBLE, MPI_MIN, root, comm));
  if (rank != root) {
    return {};
  }
  return LogHistogram::from_parts(total, sums_total[0], extremes_total[0], -extremes_total[1],
                                  static_cast<std::uint64_t>(sums_total[1]));
}

int to_count(std::uint64_t elements, const char* what) {
  if (elements > static_cast<std::uint64_t>(INT_MAX)) {
    throw MpiError(fmt::format("{}: {} elements do not fit in an MPI count", what, elements));
  }
  return static_cast<int>(elements);
}

std::string mpi_library_version() {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int length = 0;
  GRIDLOCK_MPI(MPI_Get_library_version(text.data(), &length));
  // Some libraries count the terminating NUL in `length`; read it as a C string.
  std::string version(text.data(), strnlen(text.data(), static_cast<std::size_t>(length)));
  const auto newline = version.find_first_of("\r\n");
  if (newline != std::string::npos) {
    version.resize(newline);
  }
  while (!version.empty() && (version.back() == ',' || version.back() == ' ')) {
    version.pop_back();
  }
  return version;
}

}  // namespace gridlock::bench::detail
