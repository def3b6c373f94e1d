#pragma once
/// @file
/// The GPCNeT tests in one table: the canaries (paper §3.1) and the congestors (§3.2), each with
/// the JSON key and the table name it is reported under, its units and its default sizes.
/// gridlock-bench runs them over MPI; `gridlock predict gpcnet` simulates three canaries beside
/// the four classic congestors. Both take every name from here.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/stats.hpp"
#include "gridlock/gpcnet/options.hpp"

namespace gridlock::gpcnet {

/// The canary tests, in the network mode's execution order.
enum class Canary : std::uint8_t {
  kRrTwoSidedLat,      ///< Random-ring two-sided latency.
  kRrGetLat,           ///< Random-ring MPI_Get latency (network mode).
  kRrTwoSidedBw,       ///< Random-ring two-sided bandwidth (network mode).
  kRrPutBw,            ///< Random-ring MPI_Put bandwidth (network mode).
  kRrTwoSidedBwSync,   ///< Random-ring two-sided bandwidth followed by a barrier.
  kNatTwoSidedBw,      ///< Two-sided bandwidth with the slice-order neighbours (network mode).
  kMultipleAllreduce,  ///< Every slice's small MPI_Allreduce at once.
  kMultipleAlltoall,   ///< Every slice's MPI_Alltoall at once (network mode).
};

/// How a canary picks its peers.
enum class RingKind : std::uint8_t {
  kNone,     ///< Collective over the slice, no peers.
  kRandom,   ///< A new seeded random ring for each ring index (paper §3.1.1).
  kNatural,  ///< Neighbours in slice rank order.
};

/// Which of the options' message sizes and loop counts a canary runs with.
enum class CanaryClass : std::uint8_t {
  kLatency,    ///< Options::latency_bytes, Options::latency.
  kBandwidth,  ///< Options::bandwidth_bytes, Options::bandwidth.
  kAllreduce,  ///< Options::allreduce_bytes, Options::allreduce.
  kAlltoall,   ///< Options::alltoall_bytes, Options::alltoall.
};

/// One row of the canary table.
struct CanaryTest {
  Canary id;               ///< The test.
  std::string_view key;    ///< Stable identifier (JSON, CSV file names): `rr_two_sided_lat`.
  std::string_view name;   ///< Table name without the size, GPCNeT's: `RR Two-sided Lat`.
  std::string_view units;  ///< `usec` or `MiB/s/rank`.
  Better better;           ///< Direction that is good.
  CanaryClass size_class;  ///< Which message size and loop counts it runs with.
  RingKind rings;          ///< Peer selection.
  bool in_load_mode;       ///< Also run in load mode (network mode runs every canary).
};

/// Every canary, in network-mode order.
[[nodiscard]] std::span<const CanaryTest> canary_tests() noexcept;
/// The row of `id`.
[[nodiscard]] const CanaryTest& canary_test(Canary id) noexcept;
/// Table title of `id` at `bytes` per message: `RR Two-sided Lat (8 B)`.
[[nodiscard]] std::string canary_title(Canary id, std::uint64_t bytes);

/// A canary as a run configures it: the table's names with the options' size and loop counts.
struct CanarySpec {
  Canary id = Canary::kRrTwoSidedLat;  ///< The test.
  std::string key;                     ///< CanaryTest::key.
  std::string title;                   ///< canary_title() at the options' size.
  std::string units;                   ///< CanaryTest::units.
  Better better = Better::kLower;      ///< CanaryTest::better.
  LoopCounts loop;                     ///< nM, nR, nI, warm-up (one ring for natural rings).
  RingKind rings = RingKind::kRandom;  ///< CanaryTest::rings.
};

/// The canary tests of `options.mode`, in execution order.
[[nodiscard]] std::vector<CanarySpec> canary_specs(const Options& options);

/// One row of the congestor table.
struct CongestorTest {
  CongestorType type;      ///< The kernel.
  std::string_view key;    ///< Command-line and JSON name: `a2a`.
  std::string_view title;  ///< Table name: `All-to-all`.
};

/// Every congestor type, in declaration order (congestor_key() and congestor_title() read it).
[[nodiscard]] std::span<const CongestorTest> congestor_tests() noexcept;

}  // namespace gridlock::gpcnet
