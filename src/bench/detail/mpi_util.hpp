#pragma once
// Private MPI helpers of gridlock::bench: checked calls, RAII handles, idle waits, reductions.

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "gridlock/bench/comm.hpp"
#include "gridlock/core/histogram.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::bench::detail {

/// Throws MpiError naming the call and source line when `rc` is not MPI_SUCCESS.
void check_mpi(int rc, const char* call, const char* file, int line);

/// The standard name of an MPI error class ("MPI_ERR_COUNT"), empty for a library-specific one.
[[nodiscard]] std::string_view mpi_error_class_name(int error_class) noexcept;

/// One line for error code `rc`: its class name, then the library's text (MPICH's error stack
/// joined with "; "), e.g. "MPI_ERR_COUNT: Invalid count, error stack: ...".
[[nodiscard]] std::string describe_mpi_error(int rc);

/// The MPI library's version string, first line only, without a trailing NUL or separators
/// (for the context block of output files).
[[nodiscard]] std::string mpi_library_version();

}  // namespace gridlock::bench::detail

/// Runs an MPI call and throws MpiError with its text and the MPI error string if it fails.
#define GRIDLOCK_MPI(call) ::gridlock::bench::detail::check_mpi((call), #call, __FILE__, __LINE__)

namespace gridlock::bench::detail {

/// The owned communicator, public since NodeLayout holds its communicators in it.
using Comm = ::gridlock::bench::Comm;

/// Splits `comm` by colour and key (MPI_Comm_split) with errors returned, not fatal.
[[nodiscard]] Comm split(MPI_Comm comm, int color, int key);

/// The two communicators of a rank's role (paper §3.3).
struct RoleComms {
  Comm group;  ///< All ranks of the role, ordered by node position then local rank.
  Comm slice;  ///< The rank with this local rank on every node of the role (PPort slice).
};

/// Splits `world` into role communicators: `group` is the role (0 = canary), `position` the
/// node's position in the role, `ranks_per_node` and `local_rank` from the node layout.
/// Collective over `world`; shared with tests/smpi/layout_check.cpp.
[[nodiscard]] RoleComms split_role_comms(MPI_Comm world, int group, std::uint64_t position,
                                         int ranks_per_node, int local_rank);

/// An RMA window allocated collectively, opened with MPI_Win_lock_all for passive-target
/// access, unlocked and freed on destruction.
class Window {
 public:
  Window() = default;
  /// Collective over `comm`: allocates `bytes` local bytes.
  Window(MPI_Comm comm, std::uint64_t bytes);
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  Window(Window&& other) noexcept : win_(other.win_), base_(other.base_) { other.win_ = MPI_WIN_NULL; }
  Window& operator=(Window&& other) noexcept;
  ~Window();
  [[nodiscard]] MPI_Win get() const noexcept { return win_; }
  [[nodiscard]] void* base() const noexcept { return base_; }

 private:
  void release() noexcept;
  MPI_Win win_ = MPI_WIN_NULL;
  void* base_ = nullptr;
};

/// Runs `create` (which makes this rank's RMA windows, collectively over its slice) in turn:
/// the slices of `comm` take turns 0..turns-1, `my_turn` being this rank's, with a barrier over
/// `comm` after each turn. Open MPI 4.1's osc/rdma names a window's shared-memory segment from
/// the host, the job and the communicator's context id, and slices made by one MPI_Comm_split
/// share context ids, so two slices creating windows at once on one host use one segment (SIGBUS
/// or MPI_ERR_WIN; Open MPI issues 9492 and 7393, fixed in 5.0). The segment file is unlinked
/// before MPI_Win_allocate returns, so windows created one slice at a time never meet.
/// Collective over `comm`.
void create_in_turn(MPI_Comm comm, int my_turn, int turns, const std::function<void()>& create);

/// Waits for a request the way `how` says: kBarrier blocks in MPI_Wait (MPI's own wait, which
/// yields the core when the host is oversubscribed), kSleep tests and sleeps 50 us between tests,
/// kPoll tests in a busy loop.
void idle_wait(MPI_Request& request, gpcnet::IdleWait how = gpcnet::IdleWait::kSleep);

/// Barrier over `comm` for ranks with nothing to do: MPI_Barrier for kBarrier, else
/// MPI_Ibarrier + idle_wait.
void idle_barrier(MPI_Comm comm, gpcnet::IdleWait how = gpcnet::IdleWait::kSleep);

/// Reduces histograms to `root` of `comm` exactly (bucket counts and sums added, min/max
/// reduced). Every rank passes its own (possibly empty) histogram; the root gets the pooled one.
[[nodiscard]] LogHistogram reduce_histogram(const LogHistogram& local, MPI_Comm comm, int root);

/// Runs `step` (local work that may throw: reading an input, a simulation, writing an output; no
/// collective over `comm`) and agrees on its outcome over `comm` before any rank goes on: if it
/// threw on any rank, every rank throws CollectiveError with the message (prefixed `rank R: ` unless
/// R is 0) and exit code of the lowest failing rank R, so main() reports it once and all ranks
/// finalise MPI instead of some waiting forever in a collective the failed rank never reaches.
/// A step of rank 0 only goes through agree_on_root. Collective.
void agree(MPI_Comm comm, const std::function<void()>& step);

/// agree() for a step that only rank 0 of `comm` runs (checking or writing the outputs): every
/// rank ends with rank 0's error, if it had one. Collective.
void agree_on_root(MPI_Comm comm, const std::function<void()>& step);

/// agree_on_root() for a step that may wait long (a split launch's rendezvous): the other ranks wait
/// in an idle barrier, sleeping rather than spinning in a collective, until rank 0's step ended.
/// Collective.
void agree_on_root_idle(MPI_Comm comm, const std::function<void()>& step);

/// Converts a byte count to an MPI element count, throwing if it does not fit in an int.
[[nodiscard]] int to_count(std::uint64_t elements, const char* what);

}  // namespace gridlock::bench::detail
