#pragma once
/// @file
/// Run-time configuration of gridlock-bench: modes, canary and congestor loop counts, sizes,
/// roles, timeouts and outputs. Defaults are those of the GPCNeT paper (SC'19, §3).

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gridlock::gpcnet {

/// Which suite to run.
enum class Mode {
  kNetwork,  ///< Every node runs the canaries (GPCNeT network_test).
  kLoad,     ///< Canaries beside congestors (GPCNeT network_load_test).
  kCongest,  ///< Congestors alone, for another job's sake (gridlock-bench congest; congest.hpp).
};

/// `network`, `load` or `congest`.
[[nodiscard]] std::string_view mode_key(Mode mode) noexcept;

/// Which part of a load run a job plays (`--role`).
enum class SplitRole : std::uint8_t {
  kBoth,        ///< Canaries and congestors in this job (the default; no rendezvous).
  kCanaries,    ///< Every node runs the canaries; the congestors are another job's.
  kCongestors,  ///< Every node runs the congestors, as the canary job says.
};

/// `both`, `canaries` or `congestors`.
[[nodiscard]] std::string_view split_role_key(SplitRole role) noexcept;

/// The congestor kernels (paper §3.2), plus the optional large-message allreduce.
enum class CongestorType {
  kAllToAll,   ///< Pairwise-exchange all-to-all, `a2a`.
  kP2pIncast,  ///< Two-sided incast to slice rank 0, `p2p-incast`.
  kRmaIncast,  ///< MPI_Put incast to slice rank 0, `rma-incast`.
  kRmaBcast,   ///< MPI_Get from slice rank 0, `rma-bcast`.
  kAllreduce,  ///< Large-message MPI_Allreduce (gradient exchange), `allreduce`; off by default.
};

/// Where the bandwidth canaries receive (RR Two-sided BW, BW+Sync, Nat BW; the Put BW target).
enum class RecvBuffers {
  kShared,    ///< One buffer per neighbour that every outstanding message lands in, as GPCNeT does.
  kSeparate,  ///< One buffer per outstanding message (more memory traffic per rank).
};

/// How ranks with nothing to do wait (idle congestors in the isolated phase, early finishers).
enum class IdleWait {
  kBarrier,  ///< Blocking MPI_Barrier / MPI_Wait, as GPCNeT; MPI yields the core when oversubscribed.
  kSleep,    ///< MPI_Test then a 50 us sleep, in a loop: frees the core, but wakes 20,000 times a second.
  kPoll,     ///< MPI_Test in a busy loop: holds a core.
};

/// What the tables' "Avg" column (and the Congestion Impact of averages) averages.
enum class Average {
  /// Per ring block, the block's bulk timer over its nI iterations (bytes over the block's time for
  /// bandwidths), averaged over ranks and blocks: GPCNeT's "avg". For bandwidths under noise this
  /// is the honest rate (total bytes / total time).
  kBlocks,
  /// The mean of the pooled per-iteration samples. For bandwidths it is a mean of rates, which
  /// weights fast iterations and reads higher than kBlocks whenever iteration times vary.
  kSamples,
};

/// Command-line name of an Average value (`blocks`, `samples`).
[[nodiscard]] std::string_view average_key(Average value) noexcept;
/// Command-line name of a RecvBuffers value (`shared`, `separate`).
[[nodiscard]] std::string_view recv_buffers_key(RecvBuffers value) noexcept;
/// Command-line name of an IdleWait value (`barrier`, `sleep`, `poll`).
[[nodiscard]] std::string_view idle_wait_key(IdleWait value) noexcept;

/// Command-line name of a congestor type (`a2a`, `p2p-incast`, ...).
[[nodiscard]] std::string_view congestor_key(CongestorType type) noexcept;
/// Human-readable name of a congestor type for tables (`All-to-all`, ...).
[[nodiscard]] std::string_view congestor_title(CongestorType type) noexcept;
/// Parses a comma-separated congestor list; throws InputError naming unknown entries and
/// listing the valid ones. Duplicates are an error.
[[nodiscard]] std::vector<CongestorType> parse_congestor_list(std::string_view text);

/// Loop counts of one kernel (paper Listing 1): nM measurements x nR rings x nI iterations,
/// after `warmup` untimed iterations per ring.
struct LoopCounts {
  std::uint64_t measurements = 1;  ///< nM
  std::uint64_t rings = 1;         ///< nR (1 for kernels without rings)
  std::uint64_t iterations = 1;    ///< nI
  std::uint64_t warmup = 0;        ///< untimed iterations before each ring's nI
};

/// The four classic congestors (paper §3.2), in group order: all-to-all, P2P incast, RMA incast,
/// RMA broadcast. gridlock-bench's default `--congestors`; `gridlock predict gpcnet` runs these.
[[nodiscard]] std::vector<CongestorType> default_congestors();

/// GPCNeT's default message sizes and loop counts (paper §3), shared by gridlock-bench's options
/// and `gridlock predict gpcnet`.
inline constexpr std::uint64_t kDefaultLatencyBytes = 8;                            ///< Latency canaries.
inline constexpr std::uint64_t kDefaultBandwidthBytes = std::uint64_t{128} * 1024;  ///< Bandwidth canaries.
inline constexpr std::uint64_t kDefaultBandwidthOutstanding = 8;  ///< Messages in flight to each neighbour.
inline constexpr std::uint64_t kDefaultAllreduceBytes = 8;        ///< Allreduce canary.
inline constexpr std::uint64_t kDefaultAlltoallBytes = 4096;      ///< Alltoall canary, per peer.
inline constexpr std::uint64_t kDefaultCongestorBytes = 4096;     ///< The four classic congestors.
inline constexpr LoopCounts kDefaultLatencyLoop{10000, 30, 200, 200};  ///< Latency canaries.
inline constexpr LoopCounts kDefaultBandwidthLoop{10000, 30, 8, 1};    ///< Bandwidth canaries.
inline constexpr LoopCounts kDefaultAllreduceLoop{100000, 1, 200, 1};  ///< Multiple Allreduce.
inline constexpr LoopCounts kDefaultAlltoallLoop{10000, 1, 8, 1};      ///< Multiple Alltoall.

/// Everything that controls a gridlock-bench run.
struct Options {
  Mode mode = Mode::kLoad;  ///< Suite to run.

  // Node layout.
  std::uint64_t virtual_nodes = 0;   ///< If > 0: total number of (virtual) nodes to form.
  std::uint64_t ranks_per_node = 0;  ///< If > 0: consecutive groups of this many ranks per host form a node.
  /// NICs per node (issue 41; GPCNeT's PPort is then ranks per NIC). If > 0: the local ranks split
  /// evenly and in order over this many; 0: found with hwloc, each rank on the NIC nearest to its
  /// binding (one port when a node has fewer than two NICs).
  std::uint64_t nics_per_node = 0;
  /// If > 0: this many virtual NICs per node, each local to an equal share of the host's CPUs, each
  /// rank on the nearest to its binding (tests of the detection on one host).
  std::uint64_t virtual_nics = 0;
  bool allow_uneven = false;  ///< Run even when the ranks of a node are not spread evenly over its NICs.

  // Roles (load mode).
  std::optional<std::uint64_t> seed;  ///< Seed of node shuffle and rings; time-based when empty.
  /// Fraction of nodes running canaries: the congestors get floor((1 - f) x nodes), as GPCNeT's
  /// CONGESTOR_NODE_FRAC 0.8 (3 canary nodes of 12), the canaries the rest.
  double canary_fraction = 0.2;
  std::vector<CongestorType> congestors = default_congestors();  ///< Congestor types, in group order.
  bool each_congestor = false;  ///< Also run one loaded phase per congestor type alone.

  // Split launches (load mode; split_launch.hpp).
  SplitRole role = SplitRole::kBoth;  ///< `--role`: this job's part of the run.
  std::string rendezvous_dir;         ///< `--rendezvous DIR` shared with the other job (split roles only).
  /// `--rendezvous-timeout`: how long a job waits for the other to appear (the canaries for the
  /// congestor job's ready, the congestors for the canary job's hello).
  double rendezvous_timeout_s = 600.0;

  // Canaries (paper §3.1).
  LoopCounts latency = kDefaultLatencyLoop;      ///< Random-ring latency and RMA Get latency.
  LoopCounts bandwidth = kDefaultBandwidthLoop;  ///< Random-ring bandwidth kernels (BW+Sync, BW, Put BW).
  LoopCounts allreduce = kDefaultAllreduceLoop;  ///< Multiple Allreduce.
  LoopCounts alltoall = kDefaultAlltoallLoop;    ///< Multiple Alltoall (network mode).
  std::uint64_t latency_bytes = kDefaultLatencyBytes;      ///< Latency message size.
  std::uint64_t bandwidth_bytes = kDefaultBandwidthBytes;  ///< Bandwidth message size.
  std::uint64_t bandwidth_outstanding =
      kDefaultBandwidthOutstanding;                        ///< Messages in flight to each neighbour.
  std::uint64_t allreduce_bytes = kDefaultAllreduceBytes;  ///< Allreduce canary size (multiple of 8).
  std::uint64_t alltoall_bytes = kDefaultAlltoallBytes;    ///< Alltoall canary size per peer.
  RecvBuffers recv_buffers = RecvBuffers::kShared;         ///< Bandwidth canaries' receive buffers.
  IdleWait idle_wait = IdleWait::kBarrier;                 ///< How idle ranks wait.
  Average average = Average::kBlocks;                      ///< What the tables' "Avg" averages.

  // Congestors (paper §3.2).
  std::uint64_t congestor_bytes = kDefaultCongestorBytes;  ///< Message size of the four classic congestors.
  std::uint64_t allreduce_congestor_bytes =
      std::uint64_t{8} * 1024 * 1024;  ///< Size of the large allreduce congestor.
  std::uint64_t congestor_warmup = 8;  ///< Iterations a congestor runs before releasing the canaries.
  std::uint64_t congestor_check = 16;  ///< Iterations between stop checks (pipelined Iallreduce).

  // Time limits.
  double test_timeout_s = 10.0;  ///< Per-test limit (paper: 10 s).
  double deadline_s = 0.0;       ///< Whole-run limit; 0 = none.

  // Output.
  std::string json_path;  ///< `--json FILE`, empty for none.
  std::string csv_dir;    ///< `--csv-dir DIR` for histograms, empty for none.
  bool quick = false;     ///< The quick profile was applied.
  bool quiet = false;     ///< No progress on stderr.
  bool verbose = false;   ///< Progress on stderr even when it is not a terminal.
};

/// Applies the `--quick` profile: small counts so a run takes seconds (smoke tests, demos).
void apply_quick_profile(Options& options) noexcept;

/// Checks values that do not depend on the machine (sizes, counts, fractions); throws InputError
/// with the option name and the accepted range.
void validate(const Options& options);

/// Upper bounds of the numeric options (docs/limits.md), checked before any rank allocates or
/// loops: far above useful runs, low enough that counts cannot wrap when summed or multiplied.
/// --*-measurements x --*-rings (blocks planned) stays below 2^64 with room; a run of 10^8
/// measurements is how the MPI tests make a test run into --test-timeout.
inline constexpr std::uint64_t kMaxLoopMeasurements = 1'000'000'000;  ///< --*-measurements
inline constexpr std::uint64_t kMaxLoopRings = 1'000'000;             ///< --*-rings
/// --*-iterations, --*-warmup and the congestors' counts.
inline constexpr std::uint64_t kMaxLoopIterations = 1'000'000'000;
inline constexpr double kMaxRunSeconds = 7 * 86400.0;  ///< --test-timeout, --deadline: a week
/// Most --virtual-nodes and --ranks-per-node (far above any machine).
inline constexpr int kMaxNodes = 10'000'000;

/// Throws InputError naming `option` unless `value` is at most `most`.
void check_at_most(std::uint64_t value, std::uint64_t most, const std::string& option);

/// The options the command line gives as text (units, lists), converted by finish_options().
struct OptionsText {
  std::string congestors = "a2a,p2p-incast,rma-incast,rma-bcast";  ///< --congestors.
  std::string latency_size = "8";                                  ///< --latency-size.
  std::string bandwidth_size = "128KiB";                           ///< --bandwidth-size.
  std::string allreduce_size = "8";                                ///< --allreduce-size.
  std::string alltoall_size = "4KiB";                              ///< --alltoall-size.
  std::string congestor_size = "4KiB";                             ///< --congestor-size.
  std::string allreduce_congestor_size = "8MiB";                   ///< --allreduce-congestor-size.
  std::string test_timeout = "10s";                                ///< --test-timeout.
  std::string deadline = "0";                                      ///< --deadline (0: none).
  std::string rendezvous_timeout = "10min";                        ///< --rendezvous-timeout.
  std::uint64_t seed = 0;                                          ///< --seed (when given).
};

/// Completes `options` from `text` after parsing: with `options.quick` the quick profile first,
/// then every count named in `given` (the long option names given on the command line, e.g.
/// "--latency-measurements") back to the value given; the sizes and times converted, the bounds
/// above checked, validate(). Throws InputError naming the option.
void finish_options(Options& options, const OptionsText& text, const std::set<std::string>& given);

}  // namespace gridlock::gpcnet
