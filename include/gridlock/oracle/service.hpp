#pragma once
/// @file
/// The oracle service: a topology, its metric sources, the store they fill and the Oracle that
/// answers from it, with a poll thread. Used in-process by `gridlock oracle serve` (behind the
/// HTTP Server), by the mapping library and by the tests.
///
/// One bad source never stops the service: every source is polled inside its own try/catch and
/// an exception is recorded in that source's status. Health is answered from a status copied
/// after each poll, so it never waits for a source that is reading files.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gridlock/oracle/metric_store.hpp"
#include "gridlock/oracle/oracle.hpp"
#include "gridlock/oracle/sources.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::oracle {

/// True when `topology` is the paper's machine, the 2x2x8 Gemini torus (`torus:2x2x8`), the only
/// one `sim:paper` applies to.
[[nodiscard]] bool is_paper_machine(const topo::Topology& topology);
/// The source used when none is named: `sim:paper` on the paper's machine, else `sim:none`.
[[nodiscard]] std::string default_source(const topo::Topology& topology);

/// Options of Service.
struct ServiceOptions {
  std::vector<std::string> sources;  ///< `--source` texts (see make_source); empty: default_source().
  SourceOptions source_options;      ///< Options passed to make_source().
  double retention_s = 600;          ///< Seconds of history kept per link.
  double poll_s = 1;                 ///< Period of the poll thread (start()).
};

/// A source with the name it was made from, for status and errors.
struct NamedSource {
  std::string name;                ///< E.g. `sim:paper`.
  std::unique_ptr<Source> source;  ///< The source.
};

/// The health of one source as of the last poll (`/v1/health`'s `sources`; to_json() in
/// status_json.hpp).
struct SourceHealth {
  std::string source;                  ///< The source's name, e.g. `sim:paper`.
  std::uint64_t polls = 0;             ///< Polls of this source.
  std::uint64_t errors = 0;            ///< Polls that threw.
  bool ok = true;                      ///< No poll error, and status() answered.
  std::string error;                   ///< The last error (empty if none).
  std::optional<SourceStatus> status;  ///< The source's own status(); empty if it threw.
};

/// Sources, store and Oracle of one topology, polled by a background thread. Thread-safe:
/// queries (oracle()), status() and poll_once() may run concurrently.
class Service {
 public:
  /// Makes the sources named in `options` (or the default one). Throws InputError for an unknown
  /// or duplicate source, or `sim:paper` on another topology, and IoError for a missing path.
  /// `topology` must outlive the service. Polls nothing yet.
  Service(const topo::Topology& topology, const ServiceOptions& options);
  /// A service over ready-made sources (tests, embedding); names must be unique.
  Service(const topo::Topology& topology, std::vector<NamedSource> sources, ServiceOptions options);
  /// Stops the poll thread.
  ~Service();
  Service(const Service&) = delete;             ///< Not copyable.
  Service& operator=(const Service&) = delete;  ///< Not copyable.
  Service(Service&&) = delete;                  ///< Not movable.
  Service& operator=(Service&&) = delete;       ///< Not movable.

  /// Polls every source once at `now_s` (seconds, the caller's clock); a source that throws is
  /// recorded in its status (`error`, `errors`) and the others are still polled. Refreshes the
  /// cached status. Polls are serialized; queries are not blocked by them.
  void poll_once(double now_s);
  /// Starts the poll thread: poll_once(wall-clock seconds) every `poll_s` (idempotent).
  void start();
  /// Stops and joins the poll thread (idempotent).
  void stop();

  /// The topology.
  [[nodiscard]] const topo::Topology& topology() const noexcept { return topology_; }
  /// The store the sources fill.
  [[nodiscard]] const MetricStore& store() const noexcept { return store_; }
  /// The oracle answering from the store.
  [[nodiscard]] const Oracle& oracle() const noexcept { return oracle_; }
  /// Names of the sources, in order.
  [[nodiscard]] std::vector<std::string> source_names() const;
  /// Health of every source, in order, as of the last poll; a source whose status() throws is not
  /// ok and its error says so. Never waits for a poll in progress.
  [[nodiscard]] std::vector<SourceHealth> status() const;
  /// Completed polls (of all sources together).
  [[nodiscard]] std::uint64_t polls() const noexcept { return polls_.load(); }

 private:
  struct Slot {
    NamedSource named;
    std::uint64_t polls = 0;
    std::uint64_t errors = 0;
    std::string last_error;
  };
  void refresh_status();

  const topo::Topology& topology_;
  ServiceOptions options_;
  MetricStore store_;
  Oracle oracle_;
  std::vector<Slot> slots_;
  std::mutex poll_mutex_;  // serializes polls only; status and queries never take it
  mutable std::mutex status_mutex_;
  std::shared_ptr<const std::vector<SourceHealth>> status_;
  std::atomic<std::uint64_t> polls_{0};
  std::mutex thread_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gridlock::oracle
