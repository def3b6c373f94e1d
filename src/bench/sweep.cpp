#include "gridlock/bench/sweep.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/mpi_util.hpp"
#include "detail/sweep_kernels.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/bench/layout.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/gpcnet/options.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/topo/spec.hpp"
#include "gridlock/topo/topology.hpp"

namespace gridlock::bench {

// gridlock::gpcnet's GPCNeT options, roles and results, as used throughout this file.
using gpcnet::Options;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kCiLevel = 0.95;
constexpr double kOutlierIqr = 3.0;
// Largest buffer of one collective (alltoall, gather: size x ranks; 1 GiB, so counts and
// displacements fit in an int); beyond it the size is skipped.
constexpr std::uint64_t kMaxCollectiveBuffer = std::uint64_t{1} << 30;

const std::vector<std::string> kOps = {
    "pingpong",    "bw_uni",     "bw_bi",     "put_fence", "get_fence", "put_passive",
    "get_passive", "allreduce",  "bcast",     "barrier",   "alltoall",  "alltoallv",
    "reduce",      "allgatherv", "allgather", "gather",    "scatter",   "reduce_scatter"};
constexpr std::size_t kFirstRma = 3;
constexpr std::size_t kFirstCollective = 7;

const std::array<std::string_view, 3> kPairClasses = {"node", "router", "far"};

std::size_t op_index(std::string_view name) {
  const auto it = std::find(kOps.begin(), kOps.end(), name);
  return static_cast<std::size_t>(it - kOps.begin());
}

double quantile_linear(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Json number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// The pairs of world ranks that stand for each hop class (rank 0 and a partner; -1: none).
struct Pairs {
  std::array<int, 3> partner{-1, -1, -1};
  std::array<std::string, 3> reason;
};

// Rank 0's choice of partners: the first rank on rank 0's node, on another node behind rank 0's
// router, and on another node (behind another router when the topology is known).
Pairs choose_pairs(const std::vector<int>& node_of_rank, const std::vector<std::int64_t>& router_of_node,
                   bool topology_known) {
  Pairs p;
  const int size = static_cast<int>(node_of_rank.size());
  const int home = node_of_rank[0];
  for (int r = 1; r < size; ++r) {
    const int node = node_of_rank[static_cast<std::size_t>(r)];
    if (node == home) {
      if (p.partner[0] < 0) {
        p.partner[0] = r;
      }
      continue;
    }
    const bool same_router = topology_known && router_of_node[static_cast<std::size_t>(node)] ==
                                                   router_of_node[static_cast<std::size_t>(home)];
    if (same_router && p.partner[1] < 0) {
      p.partner[1] = r;
    }
    if (!same_router && p.partner[2] < 0) {
      p.partner[2] = r;
    }
  }
  if (p.partner[0] < 0) {
    p.reason[0] = "no other rank on rank 0's node (run two ranks per node)";
  }
  if (p.partner[1] < 0) {
    p.reason[1] = topology_known ? "no other node behind rank 0's router in this job"
                                 : "needs --topology SPEC that knows the node names";
  }
  if (p.partner[2] < 0) {
    p.reason[2] = topology_known ? "no node behind another router in this job" : "all ranks are on one node";
  }
  return p;
}

std::vector<int> communicator_sizes(const SweepOptions& o, int world) {
  std::vector<int> sizes;
  if (o.quick) {
    sizes = {2, world};
  } else if (o.ranks_per_step > 0) {
    for (std::uint64_t k = o.ranks_per_step; k <= static_cast<std::uint64_t>(world); k += o.ranks_per_step) {
      sizes.push_back(static_cast<int>(k));
    }
  } else {
    for (int k = 2; k <= world && k > 0; k *= 2) {
      sizes.push_back(k);
      if (k > INT_MAX / 2) {
        break;
      }
    }
  }
  sizes.push_back(world);
  std::erase_if(sizes, [](int k) { return k < 2; });
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// Collective sizes of `op` on `ranks` ranks: the sweep's sizes from 1 B up to --max-coll-size (barrier:
// 0 only); with
// --guidelines, bcast also at n x ranks (Allgather(n) <= Gather(n) + Bcast(n*p)).
std::vector<std::uint64_t> collective_sizes(const SweepOptions& o, std::string_view op, int ranks) {
  std::vector<std::uint64_t> sizes;
  if (op == "barrier") {
    return {0};
  }
  // Zero-byte collectives measure nothing useful, and SMPI's Open MPI selector divides by the count.
  for (const std::uint64_t s : o.sizes) {
    if (s > 0 && s <= o.max_coll_size) {
      sizes.push_back(s);
    }
  }
  if (o.guidelines && op == "bcast") {
    const std::vector<std::uint64_t> base = sizes;
    for (const std::uint64_t s : base) {
      if (s * static_cast<std::uint64_t>(ranks) <= kMaxSweepSize) {
        sizes.push_back(s * static_cast<std::uint64_t>(ranks));
      }
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

detail::SweepBudget budget_of(const SweepOptions& o, std::string_view op, std::uint64_t size) {
  const bool fault = o.fault && o.fault->op == op && o.fault->size_bytes == size;
  return {o.reps, o.min_reps, o.warmup, o.max_time_s, fault};
}

void progress(const SweepOptions& o, int rank, const std::string& text) {
  if (!o.quiet && rank == 0) {
    fmt::print(stderr, "sweep: {}\n", text);
    std::fflush(stderr);
  }
}

SweepRecord make_record(const SweepOptions& o, std::string_view op, std::uint64_t size, int ranks,
                        std::string_view pair_class, std::uint64_t pass, detail::Measured m) {
  SweepRecord r;
  r.kind = sweep_op_kind(op);
  r.op = std::string(op);
  r.size_bytes = size;
  r.ranks = ranks;
  r.pair_class = std::string(pair_class);
  r.repeat = pass;
  r.invalid = m.invalid;
  r.stats = summarize_sweep_samples(m.samples_us);
  const double factor = op == "bw_bi" ? 2.0 : 1.0;
  r.bandwidth_mib_s = sweep_op_has_bandwidth(op) && size > 0 && r.stats.median > 0
                          ? factor * static_cast<double>(size) / kMiB / (r.stats.median * 1e-6)
                          : std::nan("");
  if (o.samples) {
    r.samples_us = std::move(m.samples_us);
  }
  return r;
}

// A measured record, or (the measurement failed) a failed record with the error.
void add_result(const SweepOptions& o, SweepReport& report, std::string_view op, std::uint64_t size,
                int ranks, std::string_view pair_class, std::uint64_t pass, std::optional<detail::Measured> m,
                const std::string& error) {
  if (m) {
    report.records.push_back(make_record(o, op, size, ranks, pair_class, pass, std::move(*m)));
    return;
  }
  SweepRecord r = make_record(o, op, size, ranks, pair_class, pass, {});
  r.status = SweepStatus::kFailed;
  r.error = error;
  r.bandwidth_mib_s = std::nan("");
  report.records.push_back(std::move(r));
  ++report.failed;
}

// The records of the sizes an op did not attempt after it failed at `failed_size` on this pair or
// communicator: what failed there would most likely fail again (a limit, a broken path), and each
// attempt risks leaving a peer inside a call, which MPI cannot recover from.
void add_skipped_after(const SweepOptions& o, SweepReport& report, std::string_view op,
                       const std::vector<std::uint64_t>& sizes, std::uint64_t failed_size, int ranks,
                       std::string_view pair_class, std::uint64_t pass) {
  const std::string where = pair_class.empty() ? fmt::format("on this communicator of {} ranks", ranks)
                                               : fmt::format("on this {} pair", pair_class);
  for (const std::uint64_t s : sizes) {
    if (s <= failed_size) {
      continue;
    }
    SweepRecord r = make_record(o, op, s, ranks, pair_class, pass, {});
    r.status = SweepStatus::kSkipped;
    r.error = fmt::format("not measured: {} failed at {} {}", op, format_bytes(failed_size), where);
    r.bandwidth_mib_s = std::nan("");
    report.records.push_back(std::move(r));
  }
}

// Runs one measurement on every rank of `comm` (the pair or communicator of the op; world rank 0,
// which keeps the records, is in every one). An exception on any rank (an MPI call that returned
// an error: a resource or implementation limit, memory) is caught on that rank, and after the
// measurement the ranks agree on it with one MPI_Allreduce of the lowest failing rank; that
// rank's message goes to the others, and the caller records the failure and goes on: a failed
// measurement is data. Ranks outside `comm` wait in an idle barrier and need not know.
// This recovers when every rank of `comm` leaves the measurement, which is so when the failure is
// everywhere (limits, memory for the same size, argument errors) or on a rank whose peers are not
// waiting on it; a rank that fails while a peer waits in a call for it cannot be recovered in MPI
// 3 without the fault tolerance extensions (ULFM): the job then hangs until the launcher's time
// limit, and the partial JSON written after every op keeps what was measured.
template <typename Measure>
std::optional<detail::Measured> measure_or_fail(MPI_Comm comm, int world_rank, std::string& error,
                                                Measure&& measure) {
  std::optional<detail::Measured> out;
  int failed = 0;
  try {
    out = measure();
  } catch (const MpiError& e) {
    error = e.summary();
    failed = 1;
  } catch (const std::exception& e) {
    error = e.what();
    failed = 1;
  }
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(comm, &rank));
  // The lowest failing world rank (the name in the message) and its rank in `comm` (the root below).
  std::array<int, 2> first{failed != 0 ? world_rank : INT_MAX, rank};
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, first.data(), 1, MPI_2INT, MPI_MINLOC, comm));
  if (first[0] == INT_MAX) {
    return out;
  }
  // The first failing rank's message, so that rank 0 reports the cause and not "it failed elsewhere".
  auto length = static_cast<int>(std::min<std::size_t>(error.size(), 4096));
  GRIDLOCK_MPI(MPI_Bcast(&length, 1, MPI_INT, first[1], comm));
  error.resize(static_cast<std::size_t>(length));
  GRIDLOCK_MPI(MPI_Bcast(error.data(), length, MPI_CHAR, first[1], comm));
  error = fmt::format("rank {}: {}", first[0], error);
  return std::nullopt;
}

// This rank's node key for pairing, and rank 0's node names (index = key) for the topology.
struct NodeKeys {
  int key = 0;
  std::vector<std::string> names;  // rank 0 only
};

NodeKeys node_keys(const SweepOptions& o, MPI_Comm world, int rank, int size) {
  NodeKeys keys;
  if (!o.node_names.empty()) {
    const std::vector<std::string> names = mapping::expand_hostlist(o.node_names);
    const auto k = static_cast<int>(names.size());
    if (k == 0 || size % k != 0) {
      throw InputError(
          fmt::format("--node-names: {} names do not divide the {} ranks; give a number of node names "
                      "that divides the ranks (rank r gets name r / (ranks / names))",
                      k, size));
    }
    keys.key = rank / (size / k);
    if (rank == 0) {
      keys.names = names;
    }
    return keys;
  }
  Options layout_options;
  layout_options.virtual_nodes = o.virtual_nodes;
  layout_options.ranks_per_node = o.ranks_per_node;
  // Nodes only: a sweep does not slice by NIC, so no hwloc and no uneven-binding refusal.
  layout_options.nics_per_node = 1;
  const NodeLayout layout = NodeLayout::detect(world, layout_options);
  keys.key = static_cast<int>(layout.node_id());
  keys.names = layout.gather_node_names();
  return keys;
}

// Called by rank 0 after each op on a pair or communicator (the partial JSON).
using OpDone = std::function<void()>;

void measure_pair_class(const SweepOptions& o, MPI_Comm world, int rank, std::size_t cls, int partner,
                        std::uint64_t pass, const std::vector<std::string>& ops, SweepReport& report,
                        detail::SweepBuffers& buffers, const OpDone& op_done) {
  const bool member = rank == 0 || rank == partner;
  const detail::Comm pair = detail::split(world, member ? 0 : MPI_UNDEFINED, rank);
  const std::string_view name = kPairClasses[cls];
  // One op's sizes on the pair, until the first failure (`measure` runs one size).
  const auto run_op = [&](const std::string& op, const auto& measure) {
    progress(
        o, rank,
        fmt::format("pass {}: {} {} pair (ranks 0, {}), {} sizes", pass, op, name, partner, o.sizes.size()));
    for (const std::uint64_t s : o.sizes) {
      std::string error;
      std::optional<detail::Measured> m =
          measure_or_fail(pair.get(), rank, error, [&] { return measure(op, s, budget_of(o, op, s)); });
      const bool failed = !m;
      if (rank == 0) {
        add_result(o, report, op, s, 2, name, pass, std::move(m), error);
      }
      if (failed) {
        if (rank == 0) {
          add_skipped_after(o, report, op, o.sizes, s, 2, name, pass);
        }
        break;
      }
    }
    if (rank == 0) {
      op_done();
    }
  };
  if (member) {
    buffers.reserve(o.sizes.back(), o.seed);
    bool any_rma = false;
    for (const std::string& op : ops) {
      if (sweep_op_kind(op) != SweepKind::kP2p) {
        any_rma = any_rma || sweep_op_kind(op) == SweepKind::kRma;
        continue;
      }
      run_op(op, [&](const std::string& name_of_op, std::uint64_t s, const detail::SweepBudget& budget) {
        return detail::measure_p2p(name_of_op, pair.get(), s, o.window, budget, buffers);
      });
    }
    if (any_rma) {
      void* base = nullptr;
      MPI_Win win = MPI_WIN_NULL;
      GRIDLOCK_MPI(MPI_Win_allocate(static_cast<MPI_Aint>(std::max<std::uint64_t>(o.sizes.back(), 1)), 1,
                                    MPI_INFO_NULL, pair.get(), &base, &win));
      // A window does not inherit its communicator's handler: without this, a failed MPI_Put
      // would abort the job (MPI_ERRORS_ARE_FATAL) instead of becoming a failed record.
      GRIDLOCK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
      for (const std::string& op : ops) {
        if (sweep_op_kind(op) != SweepKind::kRma) {
          continue;
        }
        run_op(op, [&](const std::string& name_of_op, std::uint64_t s, const detail::SweepBudget& budget) {
          return detail::measure_rma(name_of_op, pair.get(), win, s, budget, buffers);
        });
      }
      GRIDLOCK_MPI(MPI_Win_free(&win));
    }
  }
  detail::idle_barrier(world);
}

void measure_collectives(const SweepOptions& o, MPI_Comm world, int rank, int ranks, std::uint64_t pass,
                         const std::vector<std::string>& ops, SweepReport& report,
                         detail::SweepBuffers& buffers, const OpDone& op_done) {
  const bool member = rank < ranks;
  const detail::Comm comm = detail::split(world, member ? 0 : MPI_UNDEFINED, rank);
  if (member) {
    for (const std::string& op : ops) {
      if (sweep_op_kind(op) != SweepKind::kCollective) {
        continue;
      }
      const std::vector<std::uint64_t> sizes = collective_sizes(o, op, ranks);
      progress(o, rank, fmt::format("pass {}: {} on {} ranks, {} sizes", pass, op, ranks, sizes.size()));
      for (const std::uint64_t s : sizes) {
        const std::uint64_t bytes = detail::collective_buffer_bytes(op, s, ranks);
        if (bytes > kMaxCollectiveBuffer) {
          if (rank == 0 && pass == 0) {
            report.skipped.push_back({fmt::format("{} {} on {} ranks", op, format_bytes(s), ranks),
                                      fmt::format("needs a buffer of {} bytes per rank, more than {}", bytes,
                                                  format_bytes(kMaxCollectiveBuffer))});
          }
          continue;
        }
        std::string error;
        std::optional<detail::Measured> m = measure_or_fail(comm.get(), rank, error, [&] {
          buffers.reserve(bytes, o.seed);
          return detail::measure_collective(op, comm.get(), s, o.sync, o.window_us, budget_of(o, op, s),
                                            buffers);
        });
        const bool failed = !m;
        if (rank == 0) {
          add_result(o, report, op, s, ranks, "", pass, std::move(m), error);
        }
        if (failed) {
          if (rank == 0) {
            std::vector<std::uint64_t> rest;
            std::copy_if(sizes.begin(), sizes.end(), std::back_inserter(rest), [&](std::uint64_t x) {
              return detail::collective_buffer_bytes(op, x, ranks) <= kMaxCollectiveBuffer;
            });
            add_skipped_after(o, report, op, rest, s, ranks, "", pass);
          }
          break;
        }
      }
      if (rank == 0) {
        op_done();
      }
    }
  }
  detail::idle_barrier(world);
}

Json parameters_json(const SweepOptions& o) {
  return {{"ops", o.ops},
          {"sizes", o.sizes},
          {"max_size", o.max_size},
          {"max_coll_size", o.max_coll_size},
          {"ranks_per_step", o.ranks_per_step},
          {"reps", o.reps},
          {"min_reps", o.min_reps},
          {"max_time_s", o.max_time_s},
          {"warmup", o.warmup},
          {"window", o.window},
          {"sync", to_string(o.sync)},
          {"window_us", o.window_us},
          {"repeat", o.repeat},
          {"quick", o.quick},
          {"samples", o.samples},
          {"guidelines", o.guidelines},
          {"topology", o.topology.empty() ? Json(nullptr) : Json(o.topology)},
          {"node_names", o.node_names.empty() ? Json(nullptr) : Json(o.node_names)},
          {"virtual_nodes", o.virtual_nodes},
          {"ranks_per_node", o.ranks_per_node},
          {"seed", o.seed}};
}

Json sweep_context(const SweepOptions& options, int size, std::uint64_t nodes) {
  Json context = base_context("gridlock-bench sweep", schemas::kSweep);
  context["mpi_library"] = detail::mpi_library_version();
  int version = 0;
  int subversion = 0;
  GRIDLOCK_MPI(MPI_Get_version(&version, &subversion));
  context["mpi_standard"] = fmt::format("{}.{}", version, subversion);
  context["ranks"] = size;
  context["nodes"] = nodes;
  context["seed"] = options.seed;
  context["sync"] = to_string(options.sync);
  context["parameters"] = parameters_json(options);
  return context;
}

std::string value_cell(double value) {
  return std::isfinite(value) ? fmt::format("{:>12.2f}", value) : fmt::format("{:>12}", "-");
}

constexpr std::string_view kBar =
    "+--------------+--------------+--------------+--------------+--------------+--------------+";

void print_tables(const SweepOptions& o, const SweepReport& report) {
  const Json& c = report.context;
  fmt::print("sweep: {} ranks on {} nodes, sync {}, seed {}, {}\n", c.value("ranks", 0), c.value("nodes", 0),
             to_string(o.sync), o.seed, c.value("mpi_library", std::string("?")));
  for (const SweepSkip& s : report.skipped) {
    fmt::print("skipped: {}: {}\n", s.what, s.reason);
  }
  std::size_t i = 0;
  while (i < report.records.size()) {
    const SweepRecord& head = report.records[i];
    std::size_t end = i;
    while (end < report.records.size() && report.records[end].op == head.op &&
           report.records[end].ranks == head.ranks && report.records[end].pair_class == head.pair_class &&
           report.records[end].repeat == head.repeat) {
      ++end;
    }
    const bool bw = sweep_op_has_bandwidth(head.op);
    std::string title = head.kind == SweepKind::kCollective
                            ? fmt::format("{} on {} ranks", head.op, head.ranks)
                            : fmt::format("{} ({} pair)", head.op, head.pair_class);
    if (o.repeat > 1) {
      title += fmt::format(", pass {}", head.repeat);
    }
    fmt::print("\n{}\n| {:<{}} |\n{}\n", kBar, title, kBar.size() - 4, kBar);
    fmt::print("| {:>12} | {:>12} | {:>12} | {:>12} | {:>12} | {:>12} |\n{}\n", "Size", "Avg", "Min",
               "Median", "99%", "Units", kBar);
    for (std::size_t k = i; k < end; ++k) {
      const SweepRecord& r = report.records[k];
      const SweepStats& s = r.stats;
      if (r.status != SweepStatus::kOk) {
        const std::string_view word = to_string(r.status);
        fmt::print("| {:>12} | {:>12} | {:>12} | {:>12} | {:>12} | {:>12} |\n", format_bytes(r.size_bytes),
                   word, word, word, word, bw ? "MiB/s" : "usec");
      } else if (bw) {
        // Bandwidths from the times: the 99% column is the slow tail (size / p99 time).
        const auto rate = [&](double us) {
          return r.size_bytes > 0 && us > 0
                     ? (r.op == "bw_bi" ? 2.0 : 1.0) * static_cast<double>(r.size_bytes) / kMiB / (us * 1e-6)
                     : std::nan("");
        };
        fmt::print("| {:>12} | {} | {} | {} | {} | {:>12} |\n", format_bytes(r.size_bytes),
                   value_cell(rate(s.mean)), value_cell(rate(s.max)), value_cell(rate(s.median)),
                   value_cell(rate(s.p99)), "MiB/s");
      } else {
        fmt::print("| {:>12} | {} | {} | {} | {} | {:>12} |\n", format_bytes(r.size_bytes),
                   value_cell(s.mean), value_cell(s.min), value_cell(s.median), value_cell(s.p99), "usec");
      }
    }
    fmt::print("{}\n", kBar);
    i = end;
  }
  for (const SweepRecord& r : report.records) {
    if (r.status == SweepStatus::kFailed) {
      fmt::print("failed: {} {} {}: {}\n", r.op, format_bytes(r.size_bytes),
                 r.pair_class.empty() ? fmt::format("on {} ranks", r.ranks) : r.pair_class + " pair",
                 r.error);
    }
  }
}

}  // namespace

SweepSync parse_sweep_sync(std::string_view text) {
  if (text == "barrier") {
    return SweepSync::kBarrier;
  }
  if (text == "window") {
    return SweepSync::kWindow;
  }
  throw InputError(fmt::format("--sync: unknown synchronisation '{}'; use barrier or window", text));
}

std::string_view to_string(SweepSync sync) noexcept {
  return sync == SweepSync::kBarrier ? "barrier" : "window";
}

std::string_view to_string(SweepStatus status) noexcept {
  switch (status) {
    case SweepStatus::kOk:
      return "ok";
    case SweepStatus::kFailed:
      return "failed";
    case SweepStatus::kSkipped:
      return "skipped";
  }
  return "?";
}

std::optional<SweepFault> parse_sweep_fault(std::string_view spec) {
  spec = trim(spec);
  if (spec.empty()) {
    return std::nullopt;
  }
  const std::size_t colon = spec.rfind(':');
  const std::string_view op = colon == std::string_view::npos ? spec : trim(spec.substr(0, colon));
  if (colon == std::string_view::npos || op_index(op) >= kOps.size()) {
    throw InputError(
        fmt::format("GRIDLOCK_SWEEP_FAIL='{}': give OP:BYTES with OP one of {} (e.g. allreduce:1024)", spec,
                    fmt::join(kOps, ",")));
  }
  return SweepFault{std::string(op),
                    parse_byte_size(trim(spec.substr(colon + 1)), "GRIDLOCK_SWEEP_FAIL size")};
}

std::string_view to_string(SweepKind kind) noexcept {
  switch (kind) {
    case SweepKind::kP2p:
      return "p2p";
    case SweepKind::kRma:
      return "rma";
    case SweepKind::kCollective:
      return "collective";
  }
  return "?";
}

const std::vector<std::string>& sweep_op_names() { return kOps; }

SweepKind sweep_op_kind(std::string_view name) {
  const std::size_t i = op_index(name);
  if (i >= kOps.size()) {
    throw InputError(fmt::format("unknown sweep op '{}'; known ops: {}", name, fmt::join(kOps, ",")));
  }
  if (i < kFirstRma) {
    return SweepKind::kP2p;
  }
  return i < kFirstCollective ? SweepKind::kRma : SweepKind::kCollective;
}

bool sweep_op_has_bandwidth(std::string_view name) noexcept {
  const std::size_t i = op_index(name);
  return name == "bw_uni" || name == "bw_bi" || (i >= kFirstRma && i < kFirstCollective);
}

const std::vector<std::string>& sweep_guideline_ops() {
  static const std::vector<std::string> ops = {"allreduce", "bcast",  "alltoall", "alltoallv",     "reduce",
                                               "allgather", "gather", "scatter",  "reduce_scatter"};
  return ops;
}

std::vector<std::string> parse_sweep_ops(std::string_view text) {
  std::vector<bool> chosen(kOps.size(), false);
  for (const std::string_view item : split(text, ',')) {
    const std::string_view name = trim(item);
    if (name == "all") {
      chosen.assign(kOps.size(), true);
    } else if (name == "p2p" || name == "rma" || name == "collectives") {
      const SweepKind kind = name == "p2p"   ? SweepKind::kP2p
                             : name == "rma" ? SweepKind::kRma
                                             : SweepKind::kCollective;
      for (std::size_t i = 0; i < kOps.size(); ++i) {
        chosen[i] = chosen[i] || sweep_op_kind(kOps[i]) == kind;
      }
    } else {
      const std::size_t i = op_index(name);
      if (i >= kOps.size()) {
        throw InputError(fmt::format("--ops: unknown op '{}'; known ops: {} (or all, p2p, rma, collectives)",
                                     name, fmt::join(kOps, ",")));
      }
      chosen[i] = true;
    }
  }
  std::vector<std::string> ops;
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    if (chosen[i]) {
      ops.push_back(kOps[i]);
    }
  }
  if (ops.empty()) {
    throw InputError("--ops: no op given; name at least one (e.g. pingpong,allreduce) or all");
  }
  return ops;
}

std::vector<std::uint64_t> parse_size_list(std::string_view text, std::string_view what) {
  std::vector<std::uint64_t> sizes;
  for (const std::string_view item : split(text, ',')) {
    sizes.push_back(parse_byte_size(trim(item), what));
  }
  return sizes;
}

std::vector<std::uint64_t> sweep_sizes(std::uint64_t max_size, const std::vector<std::uint64_t>& extra,
                                       bool only_extra) {
  if (max_size > kMaxSweepSize) {
    throw InputError(fmt::format("--max-size {} is above the largest size {} (counts must fit in an int)",
                                 format_bytes(max_size), format_bytes(kMaxSweepSize)));
  }
  std::vector<std::uint64_t> sizes;
  if (!only_extra) {
    sizes.push_back(0);
    for (std::uint64_t s = 1; s <= max_size; s *= 2) {
      sizes.push_back(s);
    }
  }
  for (const std::uint64_t s : extra) {
    if (s > max_size) {
      throw InputError(
          fmt::format("--sizes: {} is above --max-size {}; raise --max-size or leave the size out",
                      format_bytes(s), format_bytes(max_size)));
    }
    sizes.push_back(s);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.empty()) {
    throw InputError("--only-sizes needs --sizes LIST");
  }
  return sizes;
}

void apply_sweep_quick_profile(SweepOptions& o) {
  o.quick = true;
  o.max_size = 256 * kKiB;
  o.max_coll_size = 64 * kKiB;
  o.sizes = {0, 1, 8, 64, 512, 4 * kKiB, 32 * kKiB, 256 * kKiB};
  o.reps = 100;
  o.min_reps = 5;
  o.max_time_s = 0.02;
  o.window = 16;
}

void validate(const SweepOptions& o) {
  if (o.ops.empty()) {
    throw InputError("--ops: no op given");
  }
  for (const std::string& op : o.ops) {
    (void)sweep_op_kind(op);
  }
  if (o.reps == 0 || o.reps > kMaxSweepReps) {
    throw InputError(fmt::format("--reps must be 1 to {} (got {})", kMaxSweepReps, o.reps));
  }
  if (o.min_reps == 0 || o.min_reps > o.reps) {
    throw InputError(fmt::format("--min-reps must be 1 to --reps ({}) (got {})", o.reps, o.min_reps));
  }
  if (!(o.max_time_s > 0) || o.max_time_s > 86400) {
    throw InputError("--max-time must be positive and at most a day");
  }
  if (o.window == 0 || o.window > kMaxSweepWindow) {
    throw InputError(fmt::format("--window must be 1 to {} messages (got {})", kMaxSweepWindow, o.window));
  }
  if (!(o.window_us >= 0) || o.window_us > 1e7) {
    throw InputError("--window-us must be 0 (automatic) to 10 s");
  }
  if (o.repeat == 0 || o.repeat > kMaxSweepRepeat) {
    throw InputError(fmt::format("--repeat must be 1 to {} (got {})", kMaxSweepRepeat, o.repeat));
  }
  if (o.sizes.empty()) {
    throw InputError("no message sizes; give --max-size or --sizes");
  }
  if (o.sizes.back() > kMaxSweepSize || o.max_coll_size > kMaxSweepSize) {
    throw InputError(
        fmt::format("sizes must be at most {} (counts must fit in an int)", format_bytes(kMaxSweepSize)));
  }
  if (o.warmup > o.reps * 100 + 1000) {
    throw InputError("--warmup is far above --reps; give fewer warm-up calls");
  }
  if (!o.node_names.empty() && (o.virtual_nodes > 0 || o.ranks_per_node > 0)) {
    throw InputError("--node-names sets the nodes already; leave out --virtual-nodes and --ranks-per-node");
  }
}

SweepStats summarize_sweep_samples(std::vector<double> samples) {
  SweepStats s;
  s.n = samples.size();
  if (samples.empty()) {
    const double nan = std::nan("");
    s.mean = s.min = s.median = s.q1 = s.q3 = s.p99 = s.max = s.ci_low = s.ci_high = s.ci_level = nan;
    return s;
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  double sum = 0;
  for (const double v : samples) {
    sum += v;
  }
  s.mean = sum / static_cast<double>(n);
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile_linear(samples, 0.5);
  s.q1 = quantile_linear(samples, 0.25);
  s.q3 = quantile_linear(samples, 0.75);
  const auto rank99 = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n)));
  s.p99 = samples[std::max<std::size_t>(rank99, 1) - 1];
  const double fence = s.q3 + kOutlierIqr * (s.q3 - s.q1);
  s.outliers =
      static_cast<std::uint64_t>(samples.end() - std::upper_bound(samples.begin(), samples.end(), fence));
  // Binomial order statistics: the largest j with P(B <= j - 1) <= (1 - level) / 2, B ~ Bin(n, 1/2).
  // The probabilities go by the recurrence P(k + 1) = P(k) (n - k) / (k + 1) in logs, so large n
  // does not underflow (and no lgamma, which is not thread-safe).
  const double tail = (1 - kCiLevel) / 2;
  const double nd = static_cast<double>(n);
  double log_pmf = nd * std::log(0.5);  // log P(B = 0)
  double cdf = 0;                       // P(B <= j - 1)
  std::size_t j = 0;                    // 1-based order statistic; 0: none reaches the level
  for (std::size_t k = 0; k < n / 2 + 1; ++k) {
    const double next = cdf + std::exp(log_pmf);
    if (next > tail) {
      break;
    }
    cdf = next;
    j = k + 1;
    const double kd = static_cast<double>(k);
    log_pmf += std::log((nd - kd) / (kd + 1));
  }
  if (j == 0) {
    // Too few samples for 95%: the range, with the coverage it has.
    s.ci_low = s.min;
    s.ci_high = s.max;
    s.ci_level = 1 - 2 * std::exp(nd * std::log(0.5));
  } else {
    s.ci_low = samples[j - 1];
    s.ci_high = samples[n - j];
    s.ci_level = 1 - 2 * cdf;
  }
  return s;
}

SweepVariability sweep_variability(const std::vector<double>& medians_us) {
  SweepVariability v;
  v.medians_us = medians_us;
  std::vector<double> finite;
  for (const double m : medians_us) {
    if (std::isfinite(m)) {
      finite.push_back(m);
    }
  }
  if (finite.size() < 2) {
    v.cv = v.iqr_us = v.median_us = std::nan("");
    return v;
  }
  std::sort(finite.begin(), finite.end());
  double sum = 0;
  for (const double m : finite) {
    sum += m;
  }
  const double mean = sum / static_cast<double>(finite.size());
  double ss = 0;
  for (const double m : finite) {
    ss += (m - mean) * (m - mean);
  }
  const double sd = std::sqrt(ss / static_cast<double>(finite.size() - 1));
  v.cv = mean > 0 ? sd / mean : std::nan("");
  v.iqr_us = quantile_linear(finite, 0.75) - quantile_linear(finite, 0.25);
  v.median_us = quantile_linear(finite, 0.5);
  return v;
}

SweepReport run_sweep(const SweepOptions& options, MPI_Comm world) {
  validate(options);
  int rank = 0;
  int size = 1;
  GRIDLOCK_MPI(MPI_Comm_rank(world, &rank));
  GRIDLOCK_MPI(MPI_Comm_size(world, &size));
  if (size < 2) {
    throw InputError(
        "sweep needs at least 2 ranks (a pair for point-to-point, two for collectives); "
        "start it with mpiexec -n 2 or more");
  }
  detail::agree_on_root(world, [&] {
    if (!options.json_path.empty()) {
      check_writable(options.json_path);
    }
  });
  NodeKeys keys;
  detail::agree(world, [&] { keys = node_keys(options, world, rank, size); });
  std::vector<int> node_of_rank(rank == 0 ? static_cast<std::size_t>(size) : 0);
  GRIDLOCK_MPI(MPI_Gather(&keys.key, 1, MPI_INT, node_of_rank.data(), 1, MPI_INT, 0, world));

  // Rank 0 picks the pairs (resolving the nodes on the topology) and tells everyone.
  Pairs pairs;
  std::uint64_t nodes = 0;
  detail::agree_on_root(world, [&] {
    nodes = keys.names.size();
    std::vector<std::int64_t> router_of_node(keys.names.size(), -1);
    if (!options.topology.empty()) {
      const std::unique_ptr<topo::Topology> topology = topo::make_topology(options.topology);
      const mapping::Allocation allocation = mapping::make_allocation(*topology, keys.names, 1);
      for (std::size_t i = 0; i < allocation.nodes.size(); ++i) {
        router_of_node[i] = topology->nodes()[allocation.nodes[i]].router;
      }
    }
    pairs = choose_pairs(node_of_rank, router_of_node, !options.topology.empty());
  });
  GRIDLOCK_MPI(MPI_Bcast(pairs.partner.data(), 3, MPI_INT, 0, world));

  const bool pair_ops = std::any_of(options.ops.begin(), options.ops.end(), [](const std::string& op) {
    return sweep_op_kind(op) != SweepKind::kCollective;
  });
  const bool collective_ops = std::any_of(options.ops.begin(), options.ops.end(), [](const std::string& op) {
    return sweep_op_kind(op) == SweepKind::kCollective;
  });
  SweepReport report;
  if (rank == 0 && pair_ops) {
    for (std::size_t c = 0; c < kPairClasses.size(); ++c) {
      if (pairs.partner[c] < 0) {
        report.skipped.push_back({fmt::format("pair class {}", kPairClasses[c]), pairs.reason[c]});
      }
    }
  }
  const std::vector<int> comm_sizes = communicator_sizes(options, size);
  if (rank == 0) {
    report.context = sweep_context(options, size, nodes);
  }
  // Ops on one pair or communicator in one pass: the unit of the partial file's progress.
  const auto count_ops = [&](SweepKind kind) {
    return static_cast<std::size_t>(
        std::count_if(options.ops.begin(), options.ops.end(),
                      [&](const std::string& op) { return sweep_op_kind(op) == kind; }));
  };
  const auto pair_classes = static_cast<std::size_t>(
      std::count_if(pairs.partner.begin(), pairs.partner.end(), [](int p) { return p >= 0; }));
  const std::size_t total_ops =
      options.repeat * (pair_classes * (count_ops(SweepKind::kP2p) + count_ops(SweepKind::kRma)) +
                        comm_sizes.size() * count_ops(SweepKind::kCollective));
  std::size_t done_ops = 0;
  bool partial_warned = false;
  const OpDone op_done = [&] {
    ++done_ops;
    if (options.json_path.empty()) {
      return;
    }
    report.complete = false;
    report.reason = fmt::format("in progress: {} of {} ops done", done_ops, total_ops);
    try {
      write_json_file(options.json_path, report.context, sweep_json_body(options, report));
    } catch (const std::exception& e) {
      // The final write reports the error as the job's; a partial one only warns, once: ranks
      // outside this pair or communicator could not be told without a collective.
      if (!partial_warned) {
        fmt::print(stderr, "gridlock-bench sweep: warning: partial results not written: {}\n", e.what());
        partial_warned = true;
      }
    }
  };
  detail::SweepBuffers buffers;
  for (std::uint64_t pass = 0; pass < options.repeat; ++pass) {
    if (pair_ops) {
      for (std::size_t c = 0; c < kPairClasses.size(); ++c) {
        if (pairs.partner[c] >= 0) {
          measure_pair_class(options, world, rank, c, pairs.partner[c], pass, options.ops, report, buffers,
                             op_done);
        }
      }
    }
    if (collective_ops) {
      for (const int k : comm_sizes) {
        measure_collectives(options, world, rank, k, pass, options.ops, report, buffers, op_done);
      }
    }
  }
  report.complete = true;
  report.reason.clear();
  // Every rank returns the exit code of failed measurements, so they agree on it.
  auto failed = static_cast<unsigned long long>(report.failed);
  GRIDLOCK_MPI(MPI_Bcast(&failed, 1, MPI_UNSIGNED_LONG_LONG, 0, world));
  if (rank != 0) {
    SweepReport empty;
    empty.failed = failed;
    return empty;
  }
  return report;
}

Json sweep_json_body(const SweepOptions& options, const SweepReport& report) {
  Json records = Json::array();
  using Key = std::tuple<std::string, std::uint64_t, int, std::string>;
  std::map<Key, std::vector<double>> medians;
  std::vector<Key> order;
  for (const SweepRecord& r : report.records) {
    const SweepStats& s = r.stats;
    Json head = {{"kind", to_string(r.kind)},
                 {"op", r.op},
                 {"size_bytes", r.size_bytes},
                 {"ranks", r.ranks},
                 {"pair_class", r.pair_class.empty() ? Json(nullptr) : Json(r.pair_class)},
                 {"repeat", r.repeat},
                 {"status", to_string(r.status)}};
    if (r.status != SweepStatus::kOk) {
      // No statistics: a consumer that reads time_us without looking at the status fails loudly.
      head[r.status == SweepStatus::kFailed ? "error" : "reason"] = r.error;
      records.push_back(std::move(head));
      continue;
    }
    Json rec = {{"n", s.n},
                {"outliers", s.outliers},
                {"invalid", r.invalid},
                {"time_us",
                 {{"mean", number(s.mean)},
                  {"min", number(s.min)},
                  {"median", number(s.median)},
                  {"q1", number(s.q1)},
                  {"q3", number(s.q3)},
                  {"p99", number(s.p99)},
                  {"max", number(s.max)},
                  {"ci_low", number(s.ci_low)},
                  {"ci_high", number(s.ci_high)},
                  {"ci_level", number(s.ci_level)}}},
                {"bandwidth_mib_s", number(r.bandwidth_mib_s)}};
    if (options.samples) {
      rec["samples_us"] = r.samples_us;
    }
    head.update(rec);
    records.push_back(std::move(head));
    const Key key{r.op, r.size_bytes, r.ranks, r.pair_class};
    auto [it, inserted] = medians.try_emplace(key);
    if (inserted) {
      order.push_back(key);
    }
    it->second.push_back(s.median);
  }
  Json body = {{"status", report.complete ? "complete" : "cut_short"}};
  if (!report.complete) {
    body["reason"] = report.reason;
  }
  body["failed"] = std::count_if(report.records.begin(), report.records.end(),
                                 [](const SweepRecord& r) { return r.status == SweepStatus::kFailed; });
  body["records"] = std::move(records);
  if (options.repeat >= 2) {
    Json variability = Json::array();
    for (const Key& key : order) {
      const auto& [op, size_bytes, ranks, pair_class] = key;
      const std::vector<double>& m = medians.at(key);
      const SweepVariability v = sweep_variability(m);
      Json medians_json = Json::array();
      for (const double x : m) {
        medians_json.push_back(number(x));
      }
      variability.push_back({{"kind", to_string(sweep_op_kind(op))},
                             {"op", op},
                             {"size_bytes", size_bytes},
                             {"ranks", ranks},
                             {"pair_class", pair_class.empty() ? Json(nullptr) : Json(pair_class)},
                             {"repeats", m.size()},
                             {"medians_us", std::move(medians_json)},
                             {"cv", number(v.cv)},
                             {"iqr_us", number(v.iqr_us)},
                             {"median_us", number(v.median_us)}});
    }
    body["variability"] = std::move(variability);
  }
  Json skipped = Json::array();
  for (const SweepSkip& s : report.skipped) {
    skipped.push_back({{"what", s.what}, {"reason", s.reason}});
  }
  body["skipped"] = std::move(skipped);
  return body;
}

void write_sweep_outputs(const SweepOptions& options, const SweepReport& report, MPI_Comm world) {
  detail::agree_on_root(world, [&] {
    // The file before the tables: a closed standard output must not lose it.
    if (!options.json_path.empty()) {
      write_json_file(options.json_path, report.context, sweep_json_body(options, report));
    }
    print_tables(options, report);
  });
}

}  // namespace gridlock::bench
