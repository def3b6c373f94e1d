#pragma once
// The per-process state of the tracer: one OTF2 archive, one event writer (this rank's
// location), the communicators and requests it has seen.
#include <mpi.h>
#include <otf2/otf2.h>

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "detail/functions.hpp"
#include "gridlock/trace/config.hpp"

namespace gridlock::trace::detail {

/// Nanoseconds of CLOCK_MONOTONIC: the trace's timer (resolution 1 ns).
[[nodiscard]] std::uint64_t now_ns() noexcept;

/// What a nonblocking request needs at its completion.
struct RequestInfo {
  /// What the request does.
  enum class Kind : std::uint8_t { Send, Recv, Collective };
  std::uint64_t id = 0;
  std::uint32_t comm = OTF2_UNDEFINED_COMM;
  Kind kind = Kind::Send;
  /// A nonblocking collective's operation, root and sizes, written at its completion.
  OTF2_CollectiveOp op = OTF2_COLLECTIVE_OP_BARRIER;
  std::uint32_t root = OTF2_COLLECTIVE_ROOT_NONE;
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

/// A persistent request as MPI_Send_init / MPI_Recv_init set it up: each MPI_Start starts one
/// nonblocking operation with these parameters.
struct PersistentInfo {
  int peer = MPI_PROC_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  int tag = 0;
  std::uint64_t bytes = 0;
  bool is_recv = false;
};

/// A communicator this rank created as its rank 0: written to the global definitions by rank 0.
struct OwnComm {
  std::uint32_t id = 0;
  std::uint32_t parent = OTF2_UNDEFINED_COMM;
  std::vector<std::uint64_t> members;  // world ranks, in communicator rank order
};

/// A created communicator as rank 0 writes it: id in the events, parent id, world ranks.
struct CommDef {
  std::uint64_t id = 0;
  std::uint64_t parent = OTF2_UNDEFINED_COMM;
  std::vector<std::uint64_t> members;
};

/// The tracer. One per process: the MPI functions it wraps are process-global symbols, so its
/// state is process-global too (the one exception to DEVELOPERS.md's rule, by necessity).
class Recorder {
 public:
  /// The process's recorder.
  static Recorder& instance();

  /// After PMPI_Init: reads the environment, opens the archive, records the init call.
  void start(Fn init_fn, std::uint64_t enter_ns, std::uint64_t leave_ns);
  /// In MPI_Finalize before PMPI_Finalize: closes the events, writes the definitions.
  void finish();
  /// Flushes what this rank recorded when the run ends without MPI_Finalize.
  void emergency_flush(const char* why) noexcept;

  /// True while events are recorded (between start and finish).
  [[nodiscard]] bool active() const noexcept { return active_; }

  /// Records entering `fn`; false when the call is filtered or over the size cap.
  bool enter(Fn fn, std::uint64_t t) noexcept;
  /// Records leaving `fn` (only after enter() returned true).
  void leave(Fn fn, std::uint64_t t) noexcept;

  void send(std::uint64_t t, int peer, MPI_Comm comm, int tag, std::uint64_t bytes) noexcept;
  void recv(std::uint64_t t, MPI_Comm comm, const MPI_Status& status) noexcept;
  void isend(std::uint64_t t, int peer, MPI_Comm comm, int tag, std::uint64_t bytes,
             MPI_Request request) noexcept;
  void irecv(std::uint64_t t, MPI_Comm comm, MPI_Request request) noexcept;
  /// A nonblocking collective started (its sizes are written at its completion).
  void icollective(std::uint64_t t, MPI_Request request, OTF2_CollectiveOp op, MPI_Comm comm,
                   std::uint32_t root, std::uint64_t sent, std::uint64_t received) noexcept;
  /// A request completed (its handle before the call freed it); `recorded`: inside a recorded call.
  void complete(std::uint64_t t, MPI_Request request, const MPI_Status& status, bool recorded) noexcept;
  /// MPI_Send_init / MPI_Recv_init made a persistent request.
  void persistent(MPI_Request request, const PersistentInfo& info) noexcept;
  /// MPI_Start(all) started a persistent request: recorded as an Isend or an Irecv.
  void start_persistent(std::uint64_t t, MPI_Request request) noexcept;
  /// The program freed a request: its completion will not be seen.
  void forget(MPI_Request request) noexcept;
  void collective_begin(std::uint64_t t) noexcept;
  void collective_end(std::uint64_t t, OTF2_CollectiveOp op, MPI_Comm comm, std::uint32_t root,
                      std::uint64_t sent, std::uint64_t received) noexcept;

  /// A communicator was created from `parent` (collective over the new communicator's members).
  void comm_created(MPI_Comm parent, MPI_Comm comm) noexcept;
  /// The program freed a communicator.
  void comm_freed(MPI_Comm comm) noexcept;
  /// The OTF2 communicator id of an MPI communicator (undefined when not tracked).
  [[nodiscard]] std::uint32_t comm_ref(MPI_Comm comm) const noexcept;

 private:
  bool room(std::uint64_t bytes) noexcept;
  /// Keeps a new request; false when its handle is a shared completed one another live request
  /// holds (then the request is complete at its start and is not kept).
  bool track(MPI_Request request, const RequestInfo& info) noexcept;
  void count_bytes(std::uint64_t bytes) noexcept { bytes_ += bytes; }
  void write_global_definitions(const std::vector<std::uint64_t>& events,
                                const std::vector<std::uint64_t>& starts,
                                const std::vector<std::uint64_t>& ends, const std::vector<char>& hosts,
                                const std::vector<CommDef>& defs, std::uint64_t realtime_offset_ns);

  bool active_ = false;
  bool finished_ = false;
  TraceConfig config_;
  std::array<bool, static_cast<std::size_t>(Fn::Count)> filtered_{};
  OTF2_Archive* archive_ = nullptr;
  OTF2_EvtWriter* writer_ = nullptr;
  MPI_Comm trace_comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::uint64_t start_ns_ = 0;
  std::uint64_t realtime_at_start_ns_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t dropped_calls_ = 0;
  bool warned_cap_ = false;
  std::unordered_map<MPI_Comm, std::uint32_t> comms_;
  std::vector<OwnComm> own_comms_;
  std::uint32_t comm_counter_ = 0;
  std::uint64_t untracked_comms_ = 0;
  std::unordered_map<MPI_Request, RequestInfo> requests_;
  std::uint64_t next_request_ = 1;
  std::unordered_map<MPI_Request, PersistentInfo> persistent_;
};

}  // namespace gridlock::trace::detail
