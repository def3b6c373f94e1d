#include "detail/run_setup.hpp"

#include <sys/resource.h>

#include <array>
#include <chrono>

#include <fmt/format.h>

#include "detail/mpi_util.hpp"
#include "gridlock/core/rng.hpp"
#include "gridlock/gpcnet/options_json.hpp"

namespace gridlock::bench::detail {
namespace {

#ifdef GRIDLOCK_SMPI
constexpr bool kSimulated = true;
#else
constexpr bool kSimulated = false;
#endif
// Under SimGrid SMPI a run is a simulation and must repeat exactly: without --seed it uses this
// fixed seed rather than the wall clock.
constexpr std::uint64_t kSimulationDefaultSeed = 1;

}  // namespace

std::pair<std::uint64_t, bool> agree_on_seed(const std::optional<std::uint64_t>& option, MPI_Comm world,
                                             int rank) {
  std::array<std::uint64_t, 2> seed{0, 0};
  if (rank == 0) {
    if (option) {
      seed = {*option, 0};
    } else if (kSimulated) {
      seed = {kSimulationDefaultSeed, 0};
    } else {
      // Read on one rank only.
      const auto now = std::chrono::system_clock::now().time_since_epoch();
      seed = {mix64(static_cast<std::uint64_t>(
                  std::chrono::duration_cast<std::chrono::nanoseconds>(now).count())) %
                  1000000000ULL,
              1};
    }
  }
  GRIDLOCK_MPI(MPI_Bcast(seed.data(), 2, MPI_UINT64_T, 0, world));
  return {seed[0], seed[1] != 0};
}

Json run_context(std::string_view tool, const Schema& schema, const gpcnet::Options& options,
                 const NodeLayout& layout, std::uint64_t seed, bool seed_from_time) {
  Json context = base_context(tool, schema);
  context["mode"] = gpcnet::mode_key(options.mode);
  context["mpi_library"] = mpi_library_version();
  int major = 0;
  int minor = 0;
  GRIDLOCK_MPI(MPI_Get_version(&major, &minor));
  context["mpi_standard"] = fmt::format("{}.{}", major, minor);
  context["ranks"] = layout.world_size();
  context["nodes"] = layout.nodes();
  context["ranks_per_node"] = layout.ranks_per_node();
  context["virtual_nodes"] = layout.virtual_nodes();
  // GPCNeT's PPort is processes per port: ranks per NIC (issue 41).
  context["nics_per_node"] = layout.nics();
  context["ranks_per_nic"] = layout.ranks_per_nic();
  context["nic_source"] = layout.nic_source();
  context["nics"] = layout.nic_names();
  context["nics_even"] = layout.nics_even();
  context["seed"] = seed;
  context["seed_source"] = seed_from_time ? "time" : (options.seed ? "option" : "simulation default");
  context["parameters"] = gpcnet::options_to_json(options);
  return context;
}

void add_peak_rss(Json& context, MPI_Comm world, int rank) {
  // Peak resident memory of the largest rank: shows that statistics do not grow with the loops.
  rusage usage{};
  long peak_kib = getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &peak_kib, 1, MPI_LONG, MPI_MAX, world));
  if (rank == 0) {
#ifdef GRIDLOCK_SMPI
    // Under SMPI every rank is the one simulator process: its RSS describes no rank and varies
    // between identical runs, so it is null (two runs with one seed give the same JSON).
    context["peak_rss_kib_max_rank"] = nullptr;
#else
    context["peak_rss_kib_max_rank"] = peak_kib;
#endif
  }
}

}  // namespace gridlock::bench::detail
