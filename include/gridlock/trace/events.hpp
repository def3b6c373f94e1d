#pragma once
/// @file
/// An MPI trace as the converter reads it: per-rank event streams (point-to-point, requests,
/// collectives, calls) and the definitions they refer to (ranks, communicators, regions),
/// decoupled from the file format. `open_otf2()` (otf2_reader.hpp) reads them from an OTF2
/// archive; `MemoryTrace` holds them in memory (tests, the fuzzer).

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gridlock::trace {

/// What an event records (OTF2's MPI event records and Enter/Leave).
enum class EventKind : std::uint8_t {
  kEnter,                  ///< A call begins (`region`).
  kLeave,                  ///< A call ends (`region`).
  kSend,                   ///< Blocking send (`peer`, `comm`, `tag`, `bytes`).
  kIsend,                  ///< Nonblocking send started (`peer`, `comm`, `tag`, `bytes`, `request`).
  kIsendComplete,          ///< A nonblocking send completed (`request`).
  kIrecvRequest,           ///< A nonblocking receive was posted (`request`).
  kRecv,                   ///< Blocking receive done (`peer` = actual sender, `comm`, `tag`, `bytes`).
  kIrecv,                  ///< A nonblocking receive completed (`peer`, `comm`, `tag`, `bytes`, `request`).
  kRequestCancelled,       ///< A request was cancelled (`request`).
  kCollectiveBegin,        ///< A blocking collective begins.
  kCollectiveEnd,          ///< A blocking collective ends (`op`, `comm`, `peer` = root, `bytes`, `received`).
  kNonblockingCollective,  ///< A nonblocking collective started (`request`).
  kNonblockingCollectiveComplete,  ///< It completed (`op`, `comm`, root, sizes, `request`).
};

/// The MPI collective operations, in OTF2's order (OTF2_CollectiveOp values 0 .. 16).
enum class CollectiveOp : std::uint8_t {
  kBarrier,
  kBcast,
  kGather,
  kGatherv,
  kScatter,
  kScatterv,
  kAllgather,
  kAllgatherv,
  kAlltoall,
  kAlltoallv,
  kAlltoallw,
  kAllreduce,
  kReduce,
  kReduceScatter,
  kScan,
  kExscan,
  kReduceScatterBlock,
  kOther,  ///< Anything else an archive names (OTF2's create/destroy handles, allocations, ...).
};

/// The MPI name of a collective operation ("MPI_Allreduce").
[[nodiscard]] const char* collective_name(CollectiveOp op) noexcept;

/// No root (OTF2_COLLECTIVE_ROOT_NONE).
inline constexpr std::uint32_t kNoRoot = 0xFFFFFFFFU;
/// A communicator the archive does not define.
inline constexpr std::uint32_t kNoComm = 0xFFFFFFFFU;

/// One event of one rank. Fields that an event kind does not use are zero.
struct Event {
  std::uint64_t time_ns = 0;     ///< Since the trace's global offset, nanoseconds.
  std::uint64_t bytes = 0;       ///< Message bytes; collectives: bytes this rank sent.
  std::uint64_t received = 0;    ///< Collectives: bytes this rank received.
  std::uint64_t request = 0;     ///< Request id (nonblocking operations), per rank.
  std::uint32_t comm = kNoComm;  ///< Communicator id (TraceInfo::comms).
  /// Peer rank in `comm` (send: receiver, receive: sender); collectives: the root in `comm` or
  /// kNoRoot; Enter/Leave: the region id (TraceInfo::regions).
  std::uint32_t peer = 0;
  std::uint32_t tag = 0;                     ///< Message tag.
  EventKind kind = EventKind::kEnter;        ///< What happened.
  CollectiveOp op = CollectiveOp::kBarrier;  ///< Collectives: which one.
};

/// A communicator: its members as ranks of the trace (world ranks), in communicator rank order.
struct Communicator {
  std::string name;                    ///< As the archive names it (may be empty).
  std::vector<std::uint32_t> members;  ///< World ranks; empty for a self communicator.
  bool self = false;                   ///< MPI_COMM_SELF and the like: each rank alone.
};

/// A code region (an MPI function, or a user function in Score-P traces).
struct Region {
  std::string name;     ///< "MPI_Send", "main", ...
  bool is_mpi = false;  ///< An MPI call: the time outside such calls is the program's compute.
};

/// The definitions of a trace.
struct TraceInfo {
  std::uint32_t num_ranks = 0;                  ///< MPI ranks (locations of MPI_COMM_WORLD).
  std::map<std::uint32_t, Communicator> comms;  ///< By communicator id.
  std::map<std::uint32_t, Region> regions;      ///< By region id.
  std::string creator;                          ///< The tool that wrote the archive.
  std::string path;                             ///< Where it was read from (messages).
  std::vector<std::uint64_t> events_per_rank;   ///< Events each rank recorded (0 if unknown).
};

/// A trace readable rank by rank, as often as needed (the converter reads it twice).
class TraceReader {
 public:
  TraceReader() = default;
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;
  virtual ~TraceReader() = default;
  /// The definitions.
  [[nodiscard]] virtual const TraceInfo& info() const noexcept = 0;
  /// Calls `visit(rank, events)` for every rank in increasing order, with that rank's events in
  /// recorded order; the span is valid during the call only. Throws InputError on a corrupt
  /// archive, naming the rank.
  virtual void for_each_rank(const std::function<void(std::uint32_t, std::span<const Event>)>& visit) = 0;
};

/// A trace held in memory (tests, the fuzzer, programs that make traces themselves).
class MemoryTrace final : public TraceReader {
 public:
  /// A trace of `info.num_ranks` ranks with `events[r]` for rank r (missing ranks: no events).
  MemoryTrace(TraceInfo info, std::vector<std::vector<Event>> events)
      : info_(std::move(info)), events_(std::move(events)) {}
  /// The definitions.
  [[nodiscard]] const TraceInfo& info() const noexcept override { return info_; }
  /// Visits the ranks' events.
  void for_each_rank(const std::function<void(std::uint32_t, std::span<const Event>)>& visit) override {
    for (std::uint32_t r = 0; r < info_.num_ranks; ++r) {
      visit(r, r < events_.size() ? std::span<const Event>(events_[r]) : std::span<const Event>());
    }
  }

 private:
  TraceInfo info_;
  std::vector<std::vector<Event>> events_;
};

}  // namespace gridlock::trace
