#pragma once
/// @file
/// Split launches of `gridlock-bench load` (docs/gridlock-bench.md, "Split launches"): the canaries
/// and the congestors run as two jobs (two allocations, or two `mpirun`s) that share no
/// communicator, only files in a rendezvous directory. The MPI-free part: the roles, and the
/// protocol's files with their waits and heartbeats (rank 0 of each job holds a Rendezvous).
///
/// The protocol, in the order the files appear (each a JSON object carrying the run id, written
/// atomically):
///   canaries.hello      the canary job opened a run (it removed the files of any earlier one)
///   congestors.ready    the congestor job joined that run: kernels built and warm
///   start               the canaries measured alone: congestors, start
///   congestors.running  the congestors run
///   stop                the canaries measured loaded: congestors, stop
///   congestors.done     the congestor job's results
/// and beside them `canaries.alive` and `congestors.alive`, which each job's heartbeat thread
/// rewrites every kHeartbeatPeriodS. A job whose peer's heartbeat has not changed for
/// kHeartbeatStaleS (by the watcher's own clock: no clock of two hosts is compared) takes the peer
/// for dead; a hello with another run id means another canary job took the directory over.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "gridlock/core/output.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::gpcnet {

/// How often a job's heartbeat file is rewritten.
inline constexpr double kHeartbeatPeriodS = 1.0;
/// A peer whose heartbeat did not change for this long is taken for dead (killed, crashed, or its
/// allocation ended): ten periods, so that a heartbeat thread delayed by a loaded node or a slow
/// shared file system is not.
inline constexpr double kHeartbeatStaleS = 10.0;
/// How often a wait looks at the directory.
inline constexpr double kRendezvousPollS = 0.05;
/// Largest protocol file read (the congestor job's results with up to kMaxCongestIntervals
/// intervals of five types stay far below it).
inline constexpr std::uintmax_t kMaxRendezvousFileBytes = std::uintmax_t{64} * 1024 * 1024;

/// One job's end of the rendezvous directory. Only rank 0 of a job holds one.
class Rendezvous {
 public:
  /// Opens `dir` for `role` (kCanaries or kCongestors). Throws InputError when `dir` is not an
  /// existing directory this process can write files in.
  Rendezvous(std::filesystem::path dir, SplitRole role);
  /// Stops the heartbeat.
  ~Rendezvous();
  Rendezvous(const Rendezvous&) = delete;             ///< Owns a thread.
  Rendezvous& operator=(const Rendezvous&) = delete;  ///< Owns a thread.
  Rendezvous(Rendezvous&&) = delete;                  ///< Owns a thread.
  Rendezvous& operator=(Rendezvous&&) = delete;       ///< Owns a thread.

  /// Canaries: removes the protocol files of an earlier run, chooses a fresh run id, writes
  /// `canaries.hello` (`about` and the run id) and starts the heartbeat.
  void open_run(Json about);
  /// Congestors: waits up to `timeout_s` for a `canaries.hello` whose heartbeat beats, takes its
  /// run id and starts the heartbeat; returns the hello. Throws Error when none comes in time.
  Json join_run(double timeout_s);

  /// Writes `name` in the directory: `body` (an object) with this run's id. Throws IoError.
  void post(std::string_view name, Json body);
  /// Waits for `name` with this run's id and returns it. Throws Error, saying which job to look at,
  /// when the peer's heartbeat stops (once it has been seen: see watch_peer()), when another run
  /// took the directory over, or after `timeout_s` (0: no limit but the heartbeat). `what` names
  /// what is awaited for the message ("the congestor job's results").
  Json await(std::string_view name, double timeout_s, std::string_view what);
  /// Whether `name` holds this run's id now (no wait; for polls between batches).
  [[nodiscard]] bool posted(std::string_view name);
  /// From now on the peer's heartbeat counts: a wait or peer_alive() fails once it has not
  /// changed for kHeartbeatStaleS.
  void watch_peer();
  /// Whether the watched peer's heartbeat changed in the last kHeartbeatStaleS (true before
  /// watch_peer()).
  [[nodiscard]] bool peer_alive();
  /// Throws Error when the peer's heartbeat stopped or another canary job took the directory
  /// over; the message says which and what to do.
  void check_peer();

  /// The run id (empty before open_run()/join_run()).
  [[nodiscard]] const std::string& run_id() const noexcept { return run_id_; }
  /// The directory.
  [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }
  /// This job's role.
  [[nodiscard]] SplitRole role() const noexcept { return role_; }

 private:
  using Clock = std::chrono::steady_clock;
  [[nodiscard]] std::optional<Json> read(std::string_view name) const;
  // read(), when the file carries this run's id.
  [[nodiscard]] std::optional<Json> read_ours(std::string_view name) const;
  [[nodiscard]] std::string peer_name() const;
  [[nodiscard]] std::string peer_heartbeat() const;
  void start_heartbeat();
  void beat_until_stopped();

  std::filesystem::path dir_;
  SplitRole role_;
  std::string run_id_;
  // The peer's heartbeat as last read, and when (by this process' clock) it last changed.
  bool watching_ = false;
  std::string peer_beat_;
  Clock::time_point peer_changed_{};
  // The heartbeat thread and how it is told to stop.
  std::thread heartbeat_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace gridlock::gpcnet
