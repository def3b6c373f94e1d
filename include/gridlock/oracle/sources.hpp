#pragma once
/// @file
/// Where link metrics come from: a simulated load, LDMS `store_csv` files, or the local node's
/// InfiniBand counters in sysfs. All sources are polled; none throws on bad data after start-up:
/// problems are counted and described in status().
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gridlock/oracle/metric_store.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::oracle {

/// One value of a source's status: a count, a quantity, a flag, a text or a list of texts.
using StatusValue = std::variant<std::uint64_t, double, bool, std::string, std::vector<std::string>>;

/// What a source says about itself (`/v1/health`'s `status` of a source; to_json() in
/// status_json.hpp): its kind and its counters and settings, in the order it reports them.
struct SourceStatus {
  std::string kind;                                         ///< e.g. `simulated`, `ldms_csv`, `sysfs_ib`.
  std::vector<std::pair<std::string, StatusValue>> fields;  ///< Name and value, in order; names unique.
  /// The value named `name`, or nullptr if there is none.
  [[nodiscard]] const StatusValue* find(std::string_view name) const noexcept;
  /// The count named `name`; throws std::out_of_range if there is none or it is not a count.
  [[nodiscard]] std::uint64_t count(std::string_view name) const;
  /// The text named `name`; throws std::out_of_range if there is none or it is not a text.
  [[nodiscard]] const std::string& text(std::string_view name) const;
};

/// A source of link metrics, polled periodically by the service.
class Source {
 public:
  /// Virtual destructor: sources are used through this interface.
  virtual ~Source() = default;
  /// Default constructor.
  Source() = default;
  Source(const Source&) = delete;             ///< Not copyable.
  Source& operator=(const Source&) = delete;  ///< Not copyable.
  Source(Source&&) = delete;                  ///< Not movable.
  Source& operator=(Source&&) = delete;       ///< Not movable.
  /// Reads whatever is new and adds it to `store`; `now_s` is the caller's clock (seconds).
  /// Never throws for bad data; problems are reported in status().
  virtual void poll(MetricStore& store, double now_s) = 0;
  /// Name and counters of this source (rows read, malformed rows, ignored columns, ...).
  [[nodiscard]] virtual SourceStatus status() const = 0;
};

/// One flow of a traffic matrix: `bytes_per_s` from `src` to `dst`.
struct Flow {
  topo::NodeId src = 0;    ///< Sending node.
  topo::NodeId dst = 0;    ///< Receiving node.
  double bytes_per_s = 0;  ///< Offered rate.
};

/// Reads a traffic matrix: one `SRC DST RATE` line per flow (names or indices, rate in bytes/s
/// with optional suffix, e.g. `4GB/s`); `#` starts a comment; a fourth field `bidir` adds the
/// reverse flow. Throws InputError with file:line, and for a file without flows (empty, or only
/// comments and blank lines), which would otherwise be an idle network.
[[nodiscard]] std::vector<Flow> read_traffic_matrix(const topo::Topology& topology,
                                                    const std::filesystem::path& path);
/// The paper's congestion pairs on its 2x2x8 machine, by node name: nid00016<->nid00040,
/// nid00048<->nid00042, nid00012<->nid00038 (its Fig. 1).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> paper_congestor_pairs();
/// paper_congestor_pairs() as flows, both directions at `bytes_per_s` each (node names must exist).
[[nodiscard]] std::vector<Flow> paper_congestion_flows(const topo::Topology& topology, double bytes_per_s);

/// A simulated load: flows routed over the topology give each link an offered load D.
/// Used bandwidth = min(D, C) / C; stall estimate = max(0, 1 - C / D) of the time (the share of
/// the offered traffic that has to wait). LIMITATIONS: offered load, no feedback (a flow slowed
/// by one link still loads the others at its full rate); terminal links are loaded too.
class SimulatedLoad final : public Source {
 public:
  /// Routes `flows` over `topology` (kept by reference: it must outlive the source).
  SimulatedLoad(const topo::Topology& topology, std::vector<Flow> flows);
  /// Adds one interval per loaded link ending at `now_s` (1 s for the first poll).
  void poll(MetricStore& store, double now_s) override;
  /// Kind `simulated`: flows, loaded_links, oversubscribed_links, max_link_demand_bytes_per_s.
  [[nodiscard]] SourceStatus status() const override;
  /// Offered load per link in bytes/s, indexed by LinkId.
  [[nodiscard]] const std::vector<double>& demand_bytes_per_s() const noexcept { return demand_; }

 private:
  const topo::Topology& topology_;
  std::vector<Flow> flows_;
  std::vector<double> demand_;
  double last_s_ = 0;
  bool polled_ = false;
};

/// What one InfiniBand `port_xmit_wait` increment stands for. The InfiniBand specification counts
/// "ticks" of data waiting without being sent, of an implementation-specific length. NVIDIA
/// documents its switches in bytes the port could have sent instead: Quantum, Quantum-2 and
/// Quantum-3 count one increment per 8 bytes whatever the port width, Switch-IB, Switch-IB 2 and
/// SwitchX one per 32 bytes per lane (`perfquery -c` shows a port's Tick field; bytes per
/// increment = Tick + 1, times the lanes on the older switches). A unit in bytes becomes time at
/// the link's rate; a unit in time is used as it is. The default is 8 bytes.
struct XmitWaitUnit {
  double bytes = 8;  ///< Bytes per increment; 0 when the unit is a time.
  double ns = 0;     ///< Nanoseconds per increment, when `bytes` is 0.
  /// Parses `8B`, `128B` (bytes) or `4ns`, `0.5ns` (time); throws InputError otherwise.
  [[nodiscard]] static XmitWaitUnit parse(std::string_view text);
  /// The unit as parse() reads it, e.g. `8B` or `4ns`.
  [[nodiscard]] std::string to_string() const;
  /// Seconds of waiting that `increments` stand for on a link of `rate_bytes_per_s`; NaN when the
  /// unit is in bytes and the rate is not known (not positive).
  [[nodiscard]] double seconds(double increments, double rate_bytes_per_s) const noexcept;
};

/// Options of LdmsCsvSource.
struct LdmsCsvOptions {
  double default_interval_s = 1;  ///< Interval of a producer's first row of percentages.
  unsigned counter_bits = 64;     ///< Width of raw counters (wrap detection).
  XmitWaitUnit ib_xmit_wait{};    ///< Meaning of one `port_xmit_wait` increment (hardware-specific).
};

/// LDMS `store_csv` files. The header line starts with `#` (`#Time,Time_usec,ProducerName,...`);
/// columns are found by name. Recognized metric columns (others are listed as ignored):
/// - Gemini derived: `<D>_SAMPLE_GEMINI_LINK_USED_BW (% x1e6)` (incoming side: the link arriving
///   on port D of the producer's router), `<D>_SAMPLE_GEMINI_LINK_CREDIT_STALL (% x1e6)` (outgoing
///   link D), `<D>_SAMPLE_GEMINI_LINK_BW (B/s)`; units `(%)` and `(% x1e6)` are both understood.
/// - Gemini raw counters: `<D>_traffic (B)` (incoming), `<D>_credit_stall (ns)` (outgoing).
/// - InfiniBand (sysclassib): `ib.port_xmit_data#<dev>.<port>` (4-byte units, the node's
///   injection link), `ib.port_rcv_data#...` (ejection link), `ib.port_xmit_wait#...` (stall on
///   the injection link; see XmitWaitUnit, converted at the link's capacity).
/// D is a torus port (`X+` ... `Z-`) or any port name of the topology. When several columns give
/// the same quantity of the same link, percentages win over rates over raw counters.
/// Rows of several producers may be interleaved; inputs may be files or directories (every file
/// in them, in name order, so rolled-over files are picked up); new rows are read as files grow;
/// a partial last line waits for the next poll; a file that shrinks is read again from the start.
/// With store_csv `altheader=1` the header is in its own file: `NAME.HEADER.EPOCH` for the
/// rolled-over `NAME.EPOCH`, else `FILE.HEADER`; header, kind, units and name files are not data.
/// `ietfcsv=1` quoting and `time_format=1` (`#Time_msec` plus `Time_usec`) are understood.
class LdmsCsvSource final : public Source {
 public:
  /// Watches `inputs` (files or directories).
  LdmsCsvSource(const topo::Topology& topology, std::vector<std::filesystem::path> inputs,
                LdmsCsvOptions options = {});
  /// Closes the files.
  ~LdmsCsvSource() override;
  LdmsCsvSource(const LdmsCsvSource&) = delete;             ///< Not copyable.
  LdmsCsvSource& operator=(const LdmsCsvSource&) = delete;  ///< Not copyable.
  LdmsCsvSource(LdmsCsvSource&&) = delete;                  ///< Not movable.
  LdmsCsvSource& operator=(LdmsCsvSource&&) = delete;       ///< Not movable.
  /// Reads the rows added since the last poll (`now_s` is unused: rows carry their own time).
  void poll(MetricStore& store, double now_s) override;
  /// Counts of rows, malformed rows and values, ignored columns, unknown producers, recent problems.
  [[nodiscard]] SourceStatus status() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Options of SysfsIbSource.
struct SysfsIbOptions {
  std::filesystem::path sys_root = "/sys";  ///< Root of sysfs (a fake tree in tests).
  unsigned counter_bits = 64;               ///< Width of the counters.
  XmitWaitUnit xmit_wait{};  ///< Meaning of one `port_xmit_wait` increment (hardware-specific).
};

/// The local node's InfiniBand counters: `<root>/class/infiniband/<dev>/ports/<n>/counters/`
/// `port_xmit_data` and `port_rcv_data` (4-byte units) and `port_xmit_wait` (see XmitWaitUnit;
/// a unit in bytes is converted at each port's rate), and `ports/<n>/rate` (e.g.
/// `100 Gb/sec (4X EDR)`), mapped to the node's injection (transmit) and ejection (receive)
/// links. Several ports are summed.
class SysfsIbSource final : public Source {
 public:
  /// Reads the counters of `node`.
  SysfsIbSource(const topo::Topology& topology, topo::NodeId node, SysfsIbOptions options = {});
  /// Reads every port's counters; the interval ends at `now_s`.
  void poll(MetricStore& store, double now_s) override;
  /// Node, ports, polls, read errors and the last one, port rate, counter resets, values clamped
  /// to the port's rate or to the interval (stalls), and the last 20 problems.
  [[nodiscard]] SourceStatus status() const override;

 private:
  void problem(std::string message);
  struct PortState {
    CounterTracker xmit;
    CounterTracker rcv;
    CounterTracker wait;
  };
  struct PollSums;  // what one poll adds up over the node's ports (sysfs_ib.cpp)
  void poll_port(const std::filesystem::path& port, MetricStore& store, double now_s, PollSums& sums);
  std::optional<double> read_counter(const std::filesystem::path& port, const char* name,
                                     CounterTracker& tracker, MetricStore& store, double now_s,
                                     PollSums& sums, bool& reset);
  void add_data(const std::filesystem::path& port, const char* name, CounterTracker& tracker,
                double port_rate, MetricStore& store, double now_s, PollSums& sums, double& sum,
                bool& skipped);
  void add_wait(const std::filesystem::path& port, CounterTracker& tracker, double port_rate,
                MetricStore& store, double now_s, PollSums& sums);
  void store_sums(MetricStore& store, double now_s, const PollSums& sums);
  const topo::Topology& topology_;
  topo::NodeId node_;
  SysfsIbOptions options_;
  std::map<std::string, PortState> ports_;
  std::uint64_t polls_ = 0;
  std::uint64_t read_errors_ = 0;
  std::string last_error_;
  std::uint64_t counter_resets_ = 0;
  std::uint64_t clamped_values_ = 0;
  std::deque<std::string> problems_;
  double rate_bytes_per_s_ = 0;
};

/// Options of make_source().
struct SourceOptions {
  /// Rate of each flow of `sim:paper`, or `line`: each flow at its sender's injection link rate.
  std::string sim_rate = "2GB/s";
  unsigned counter_bits = 64;  ///< Width of raw counters (LDMS and sysfs sources).
  XmitWaitUnit xmit_wait{};    ///< Meaning of one `port_xmit_wait` increment.
  std::string node;            ///< `sysfs`: this node's name in the topology (default: host name).
};

/// The source a `--source` argument names: `sim:paper` (the paper's congestion pairs at
/// `sim_rate`; only on a topology with the paper's nodes), `sim:none` (no load), `sim:FILE` (a
/// traffic matrix), `ldms:PATH` (store_csv files or directory) or `sysfs[:ROOT]` (this node's
/// InfiniBand counters). Throws InputError for an unknown kind and IoError for a missing path.
[[nodiscard]] std::unique_ptr<Source> make_source(std::string_view text, const topo::Topology& topology,
                                                  const SourceOptions& options = {});

/// Parses an InfiniBand `rate` file (`100 Gb/sec (4X EDR)`) into bytes/s; 0 when unreadable.
[[nodiscard]] double parse_ib_rate_bytes_per_s(std::string_view text) noexcept;

}  // namespace gridlock::oracle
