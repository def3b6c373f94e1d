#pragma once
/// @file
/// Task graphs: who sends how many bytes to whom, the application side of task mapping.
///
/// A task graph has `num_tasks` tasks (MPI ranks, 0-based) and a list of messages: one entry per
/// ordered pair (src, dst) with the bytes src sends to dst per iteration (or in total, for a
/// schedule), src != dst, bytes > 0. Specs:
/// - `stencil3d:PXxPYxPZ[,bytes=B][,periodic]`: a 7-point stencil on a PX x PY x PZ grid of tasks
///   (task id = x + PX*(y + PY*z)), each task sending B bytes to each of its up to six face
///   neighbours; `periodic` wraps around. B defaults to kDefaultStencilBytes, the paper's message
///   (5 x 5 x 100 doubles). In each dimension a task sends one message to each *distinct* neighbour
///   task: a dimension of size 1 adds none (wrapping would reach the task itself), one of size 2
///   adds one, periodic or not (x+1 and x-1 are the same task: one message of B bytes, not 2B), and
///   a periodic dimension of size >= 3 adds two. So 2x2x2 has 24 messages, periodic or not;
///   4x4x4 has 288, periodic 384.
/// - `stencil2d:PXxPY[,bytes=B][,periodic]`: the 5-point stencil in two dimensions.
/// - `alltoall:N[,bytes=B]`: every task sends B bytes (default kDefaultStencilBytes) to every other;
///   N is at most 16,384 (N x (N-1) messages must not exceed kMaxMessages).
/// - `matrix:FILE`: CSV lines `src,dst,bytes` (a header line `src,dst,bytes` and `#` comments are
///   allowed; repeated pairs add up) or a Matrix Market `coordinate` file (`%%MatrixMarket matrix
///   coordinate real|integer|pattern general|symmetric`; 1-based row = src, column = dst, value =
///   bytes; `pattern` means 1 byte; `real` values are rounded to whole bytes, a positive value to at
///   least 1; `symmetric` adds the mirrored entry). CSV task ids count from 0. At most 1 GiB.
/// - `goal:FILE`: the bytes of every send of a GOAL text or gridlock binary schedule, summed per
///   ordered rank pair, so any simulated or traced program can be mapped (receives are ignored).
/// Files must be regular files (a FIFO or device is refused before reading). Traffic from a task to
/// itself in a file (a matrix diagonal, a send to self) is left out: it does not cross the network.
/// Every graph must have at least one message ("has no edges: nothing to map" otherwise) and a
/// total of bytes below 2^64.
/// Tasks of the stencils have grid coordinates (used by geometric mapping); other graphs have none.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gridlock::mapping {

/// Bytes per stencil message by default: the paper's SpMV halo, 5 x 5 x 100 doubles.
inline constexpr std::uint64_t kDefaultStencilBytes = 5ULL * 5 * 100 * 8;

/// Most tasks a task graph may have (the scale the mapper is built for, with room to spare).
inline constexpr std::uint32_t kMaxTasks = 1U << 22;

/// Most messages (distinct ordered pairs) a task graph may have: 2^28, about 4 GB of pairs.
inline constexpr std::uint64_t kMaxMessages = 1ULL << 28;

/// Bytes one task sends to another.
struct Message {
  std::uint32_t src = 0;    ///< Sending task.
  std::uint32_t dst = 0;    ///< Receiving task (!= src).
  std::uint64_t bytes = 0;  ///< Bytes sent (> 0).
  /// Field-wise equality.
  friend bool operator==(const Message&, const Message&) = default;
};

/// An application's communication: tasks and the bytes between them.
struct TaskGraph {
  std::uint32_t num_tasks = 0;  ///< Number of tasks (ranks).
  /// One message per ordered pair, sorted by (src, dst); bytes > 0; src != dst.
  std::vector<Message> messages;
  /// Grid coordinates of each task (stencils), or empty when the graph has no geometry.
  std::vector<std::array<double, 3>> coords;
  /// The spec the graph was made from (canonical for the generated kinds), e.g.
  /// `stencil3d:4x4x4,bytes=20000`.
  std::string spec;

  /// Sum of all message bytes (saturating at 2^64-1 for a graph not built by this library).
  [[nodiscard]] std::uint64_t total_bytes() const noexcept;
};

/// Builds a task graph from raw messages: sums repeated (src, dst) pairs, drops zero-byte
/// messages, sorts. Throws InputError (naming `where`) for a task id >= num_tasks, a message from a
/// task to itself, num_tasks == 0 or > kMaxTasks, a sum (per pair or in total) that overflows 64
/// bits, more than kMaxMessages messages, or no message left (nothing to map).
[[nodiscard]] TaskGraph make_task_graph(std::uint32_t num_tasks, std::vector<Message> messages,
                                        std::string spec, std::string_view where = "task graph");

/// A 7-point (3-D) stencil; `dims` are tasks per dimension (each >= 1). Throws InputError when the
/// product is 0 or above kMaxTasks, when `bytes` is 0, and for 1x1x1 (no edges).
[[nodiscard]] TaskGraph stencil3d(std::array<std::uint32_t, 3> dims, std::uint64_t bytes, bool periodic);
/// A 5-point (2-D) stencil.
[[nodiscard]] TaskGraph stencil2d(std::array<std::uint32_t, 2> dims, std::uint64_t bytes, bool periodic);
/// Every task sends `bytes` to every other task. Throws InputError above 16,384 tasks (the
/// N x (N-1) messages would exceed kMaxMessages), for 0 or 1 task and for 0 bytes.
[[nodiscard]] TaskGraph alltoall(std::uint32_t num_tasks, std::uint64_t bytes);

/// Reads a `src,dst,bytes` CSV or Matrix Market file (format chosen by content: a file starting
/// with `%%MatrixMarket` is Matrix Market). Throws InputError with file:line for malformed lines and
/// IoError for unreadable files. The number of tasks is the largest task id + 1 (CSV) or the
/// matrix's size (Matrix Market: rows and columns must be equal).
[[nodiscard]] TaskGraph read_matrix_file(const std::filesystem::path& path);

/// The bytes of every send of a GOAL text or binary schedule, per ordered rank pair.
[[nodiscard]] TaskGraph read_schedule_graph(const std::filesystem::path& path);

/// Parses any task-graph spec (see the file comment). Throws InputError naming the spec and the
/// accepted forms.
[[nodiscard]] TaskGraph parse_task_graph(std::string_view spec);

/// The input files a spec reads (for `matrix:` and `goal:`), so that a tool can refuse to write an
/// output over one of them; empty for generated graphs.
[[nodiscard]] std::vector<std::filesystem::path> task_graph_inputs(std::string_view spec);

}  // namespace gridlock::mapping
