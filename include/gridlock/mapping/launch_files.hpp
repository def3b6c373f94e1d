#pragma once
/// @file
/// Files that make an MPI launcher place ranks as a placement says (docs/formats/):
/// - Open MPI rankfile (`mpirun --rankfile FILE`): `rank R=HOST slot=S`, one line per rank;
/// - Slurm hostfile for `srun --distribution=arbitrary` (`SLURM_HOSTFILE=FILE`): line R names the
///   host of rank R;
/// - MPICH / Cray `MPICH_RANK_ORDER` (`MPICH_RANK_REORDER_METHOD=3`): the ranks in the order of the
///   cores they fill, node by node and slot by slot.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gridlock/mapping/allocation.hpp"
#include "gridlock/mapping/mapping.hpp"

namespace gridlock::mapping {

/// The Open MPI rankfile of a placement.
[[nodiscard]] std::string write_rankfile(const Placement& placement, const Allocation& allocation);
/// The Slurm arbitrary-distribution hostfile of a placement.
[[nodiscard]] std::string write_slurm_hostfile(const Placement& placement, const Allocation& allocation);
/// The MPICH_RANK_ORDER file of a placement. Throws InputError when some core is left empty
/// (the format places ranks on consecutive cores and cannot leave holes).
[[nodiscard]] std::string write_mpich_rank_order(const Placement& placement, const Allocation& allocation);

/// Reads a rankfile back (`rank R=HOST slot=S` lines, `#` comments) into a placement on
/// `allocation`. Throws InputError with `where`:line for malformed lines, unknown hosts, slots out
/// of range, missing or repeated ranks.
[[nodiscard]] Placement read_rankfile(std::string_view text, const Allocation& allocation,
                                      std::string_view where = "rankfile");
/// Reads a Slurm hostfile back: rank R goes to the next free slot of its host.
[[nodiscard]] Placement read_slurm_hostfile(std::string_view text, const Allocation& allocation,
                                            std::string_view where = "hostfile");
/// Reads an MPICH_RANK_ORDER file back (comma-separated ranks and `A-B` ranges, `#` comments).
[[nodiscard]] Placement read_mpich_rank_order(std::string_view text, const Allocation& allocation,
                                              std::string_view where = "MPICH_RANK_ORDER");

/// The node of each of `ranks` ranks a rankfile (`rank R=HOST slot=S` lines, read_rankfile) places on
/// `topology`'s nodes (`gridlock sim --placement rankfile:FILE`): HOST is one of its node names, every
/// rank 0..ranks-1 appears exactly once. Throws InputError with `where`:line for
/// unknown hosts, malformed lines and repeated ranks, and when the file leaves ranks out or places
/// more ranks than `ranks`. The message about an unknown host names the nodes as `first_node` ..
/// `last_node` (default: the topology's first and last; a topology part gives the whole network's).
[[nodiscard]] std::vector<topo::NodeId> read_rankfile_nodes(const topo::Topology& topology,
                                                            std::uint32_t ranks, std::string_view text,
                                                            std::string_view where = "rankfile",
                                                            std::string_view first_node = {},
                                                            std::string_view last_node = {});

/// The distinct hosts the well-formed `rank R=HOST slot=S` lines of a rankfile name, sorted: the
/// nodes a run needs, known before the topology (or the part of it) that holds them is built.
/// Malformed lines are skipped here; read_rankfile_nodes() names them.
[[nodiscard]] std::vector<std::string> rankfile_hosts(std::string_view text);

}  // namespace gridlock::mapping
