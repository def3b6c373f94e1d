#pragma once
/// @file
/// `gridlock-bench spmv`: the application of the task-mapping paper (Brandt et al., §IV), a
/// distributed sparse matrix-vector product with the 7-point Laplacian on a 3-D grid, applied to a
/// multivector in CG-style iterations: halo exchange with the up-to-six face neighbours, the local
/// product, and one dot-product allreduce. Ranks run as launched (`identity`), or remapped in the
/// application from a rankfile or by the paper's method (rank 0 maps with Scotch on network
/// metrics); the grid position of a rank is its rank in the remapped communicator.

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/gpcnet/results.hpp"

namespace gridlock::bench {

/// How the ranks are placed on the task grid.
enum class SpmvMapping : std::uint8_t {
  kIdentity,  ///< As launched: task t is rank t.
  kRankfile,  ///< The placement of an Open MPI rankfile (`gridlock map`), applied in the application.
  kOracle,    ///< Remapped in the application by Scotch on metrics from a source (the paper's method).
};

/// Parses `identity`, `rankfile` or `oracle`; throws InputError listing them.
[[nodiscard]] SpmvMapping parse_spmv_mapping(std::string_view text);
/// The name parse_spmv_mapping() reads.
[[nodiscard]] std::string_view to_string(SpmvMapping mapping) noexcept;

/// Parses `AxBxC` (three positive numbers, each at most `max`) for option `option`; throws
/// InputError.
[[nodiscard]] std::array<std::uint32_t, 3> parse_dims3(std::string_view text, std::string_view option,
                                                       std::uint32_t max);

/// Largest cells per dimension of a rank's block.
inline constexpr std::uint32_t kMaxSpmvLocal = 1024;
/// Largest number of vectors.
inline constexpr std::uint32_t kMaxSpmvVectors = 4096;
/// Largest number of doubles in one rank's multivector (with ghost cells): 2^28, 2 GiB.
inline constexpr std::uint64_t kMaxSpmvDoubles = 1ULL << 28;
/// Largest --iterations (four per-iteration timings per rank are kept: 32 MB at the limit).
inline constexpr std::uint64_t kMaxSpmvIterations = 1'000'000;

/// Largest congestor message (--congestor-size, --allreduce-congestor-size): 1 GiB.
inline constexpr std::uint64_t kMaxCongestorBytes = std::uint64_t{1} << 30;

/// Options of `gridlock-bench spmv`.
struct SpmvOptions {
  std::array<std::uint32_t, 3> local{5, 5, 5};   ///< Cells per rank (nx, ny, nz).
  std::array<std::uint32_t, 3> grid{0, 0, 0};    ///< Tasks per dimension; all 0: MPI_Dims_create.
  std::uint32_t vectors = 100;                   ///< Columns of the multivector.
  std::uint64_t iterations = 1000;               ///< Timed iterations.
  std::uint64_t warmup = 10;                     ///< Untimed iterations before them.
  SpmvMapping mapping = SpmvMapping::kIdentity;  ///< How ranks are placed on the grid.
  std::string rankfile;                          ///< kRankfile: the rankfile.
  std::string topology;                          ///< kOracle (required), kRankfile (optional): topology spec.
  std::string source = "sim:none";               ///< kOracle: metric source.
  std::string metric = "hops";                   ///< kOracle: weight metric.
  std::uint64_t seed = 1;                        ///< kOracle: Scotch's seed.
  std::string node_names;  ///< Hostlist of virtual node names, given to ranks in equal consecutive blocks.
  /// Congestor kernels run beside the product (the `load` congestors, paper §3.2); empty: none.
  std::vector<gpcnet::CongestorType> congestors;
  std::uint64_t congestor_ranks = 0;  ///< The last N world ranks run the congestors; the others the product.
  std::uint64_t congestor_bytes = 4096;  ///< Message size of the four classic congestors.
  std::uint64_t allreduce_congestor_bytes = std::uint64_t{8} << 20;  ///< Size of the allreduce congestor.
  double congestor_timeout_s =
      3600;               ///< A congestor stops by itself after this long without the stop signal.
  std::string json_path;  ///< --json.
  bool quiet = false;     ///< No progress on stderr.
};

/// Throws InputError for options that are wrong on any number of ranks (sizes out of range, a
/// mapping without its inputs, inputs of another mapping, congestors without ranks or the reverse).
void validate(const SpmvOptions& options);

/// Statistics over the timed iterations of one per-iteration time, each iteration's value being
/// the largest over the ranks (the slowest rank holds the others back at the next exchange).
struct SpmvStat {
  std::string key;    ///< e.g. `halo`.
  std::string title;  ///< Table name, e.g. `Halo exchange`.
  double mean = 0;    ///< Mean over iterations, microseconds.
  double median = 0;  ///< Median, microseconds.
  double p99 = 0;     ///< 99th percentile (nearest rank), microseconds.
  double min = 0;     ///< Smallest, microseconds.
  double max = 0;     ///< Largest, microseconds.
};

/// What rank 0 reports (other ranks get an empty report).
struct SpmvReport {
  Json context;                         ///< Context block.
  std::array<std::uint32_t, 3> grid{};  ///< Tasks per dimension.
  std::vector<SpmvStat> stats;          ///< halo, compute, allreduce, iteration.
  double loop_s = 0;                    ///< Timed loop, largest over ranks.
  double checksum = 0;                  ///< Sum of every entry of the result, summed in task order.
  double residual = 0;                  ///< 2-norm of the last residual over all vectors.
  Json remap;                           ///< How the ranks were placed (method, nodes, placement, times).
  std::vector<gpcnet::CongestorResult>
      congestors;  ///< Congestor throughput while the product ran (--congestors).
};

/// Runs the benchmark collectively over `world`; world rank 0 gets the report. With congestors, the
/// first ranks - congestor_ranks ranks run the product (remapped among themselves) and the last
/// congestor_ranks ranks run the congestor types in equal consecutive blocks (the first types one
/// rank more when they do not divide), each block's kernel over one slice per local rank when every
/// host of the block runs the same number of its ranks on two hosts or more, else over the block;
/// the congestors start before the timed loop and stop when every product rank has finished.
/// Errors that depend on the job (a grid that does not match the ranks, too few congestor ranks, a
/// remap failure, an unwritable output) are thrown on every rank as CollectiveError.
[[nodiscard]] SpmvReport run_spmv(const SpmvOptions& options, MPI_Comm world);

/// Collective over `world`: rank 0 prints the summary table and writes --json; a failure there
/// ends every rank with CollectiveError.
void write_spmv_outputs(const SpmvOptions& options, const SpmvReport& report, MPI_Comm world);

}  // namespace gridlock::bench
