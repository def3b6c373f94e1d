#pragma once
/// @file
/// The report of libgridlock-reorder.so (`GRIDLOCK_REORDER_REPORT=FILE`,
/// docs/formats/reorder-json.md): one entry per topology call that asked for a reorder.
#include <cstdint>
#include <string>
#include <vector>

#include "gridlock/core/output.hpp"
#include "gridlock/mapping/reorder.hpp"

namespace gridlock::mapping {

/// One topology call with `reorder` true, as the communicator's rank 0 saw it.
struct ReorderRecord {
  std::string call;             ///< e.g. `MPI_Cart_create`.
  std::string binding;          ///< `c` or `fortran`.
  std::uint32_t comm_size = 0;  ///< Ranks of the communicator the call was made on.
  std::uint32_t members = 0;    ///< Ranks in the new topology (a grid may leave ranks out).
  std::string graph;            ///< The task graph's spec, e.g. `cart:4x2x2p`.
  std::uint64_t messages = 0;   ///< Distinct (source, destination) pairs of the graph.
  ReorderPlan plan;             ///< The plan, when one was made.
  std::string error;            ///< Why no plan was made (the order kept); empty otherwise.
};

/// One record as the report's `calls[]` entry: the call, sizes, machine, method, whether the
/// order changed (and the note or error when not), the costs before and after under every metric
/// and in hop-bytes, with their changes in percent, and the planning time.
[[nodiscard]] Json reorder_record_json(const ReorderRecord& record);

/// The report's context block: base context of `libgridlock-reorder`, world size, MPI library,
/// the seed and the configuration (topology, nodes, oracle, metric, virtual nodes).
[[nodiscard]] Json reorder_report_context(std::uint32_t world_size, const std::string& mpi_library,
                                          const ReorderConfig& config);

}  // namespace gridlock::mapping
