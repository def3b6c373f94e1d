#include "gridlock/bench/spmv.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "detail/kernels.hpp"
#include "detail/mpi_util.hpp"
#include "gridlock/bench/errors.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/gpcnet/table.hpp"

#include "gridlock/bench/remap.hpp"
#include "gridlock/mapping/allocation.hpp"
#include "gridlock/mapping/launch_files.hpp"

namespace gridlock::bench {

// gridlock::gpcnet's GPCNeT options, roles and results, as used throughout this file.
using gpcnet::congestor_key;
using gpcnet::CongestorResult;
using gpcnet::CongestorType;
using gpcnet::Options;

namespace {

using gpcnet::kInnerBar;

// The six faces: dimension d = face / 2, side -1 (even) or +1 (odd).
constexpr int kFaces = 6;

// A rank's block of cells with one layer of ghost cells, `vectors` values per cell (contiguous, so
// the product runs over the vectors in the innermost loop, as a multivector's rows do).
struct Block {
  std::array<std::size_t, 3> n{};  // interior cells per dimension
  std::size_t vectors = 1;

  [[nodiscard]] std::size_t stride(int dim) const noexcept {
    std::size_t s = vectors;
    for (int d = 0; d < dim; ++d) {
      s *= n[static_cast<std::size_t>(d)] + 2;
    }
    return s;
  }
  [[nodiscard]] std::size_t offset(std::size_t i, std::size_t j, std::size_t k) const noexcept {
    return ((k * (n[1] + 2) + j) * (n[0] + 2) + i) * vectors;
  }
  [[nodiscard]] std::size_t doubles() const noexcept {
    return (n[0] + 2) * (n[1] + 2) * (n[2] + 2) * vectors;
  }
  // Cells of a face (the two other dimensions' interior).
  [[nodiscard]] std::size_t face_cells(int dim) const noexcept {
    const auto d = static_cast<std::size_t>(dim);
    return n[(d + 1) % 3] * n[(d + 2) % 3];
  }
  // Calls f(offset) for every cell of the plane `plane` (0 .. n+1) across dimension `dim`, other
  // coordinates over the interior, in a fixed order.
  template <class F>
  void for_plane(int dim, std::size_t plane, F&& f) const {
    std::array<std::size_t, 3> lo{1, 1, 1};
    std::array<std::size_t, 3> hi{n[0] + 1, n[1] + 1, n[2] + 1};
    lo[static_cast<std::size_t>(dim)] = plane;
    hi[static_cast<std::size_t>(dim)] = plane + 1;
    for (std::size_t k = lo[2]; k < hi[2]; ++k) {
      for (std::size_t j = lo[1]; j < hi[1]; ++j) {
        for (std::size_t i = lo[0]; i < hi[0]; ++i) {
          f(offset(i, j, k));
        }
      }
    }
  }
};

// The exchange partners of a task on the grid (-1: none, the domain's boundary).
std::array<int, kFaces> neighbours_of(int task, const std::array<std::uint32_t, 3>& grid) {
  const auto t = static_cast<std::uint32_t>(task);
  const std::array<std::uint32_t, 3> c{t % grid[0], (t / grid[0]) % grid[1], t / (grid[0] * grid[1])};
  const std::array<std::uint32_t, 3> step{1, grid[0], grid[0] * grid[1]};
  std::array<int, kFaces> result{};
  for (int face = 0; face < kFaces; ++face) {
    const auto d = static_cast<std::size_t>(face / 2);
    const bool up = face % 2 == 1;
    const bool exists = up ? c[d] + 1 < grid[d] : c[d] > 0;
    result[static_cast<std::size_t>(face)] = exists ? static_cast<int>(up ? t + step[d] : t - step[d]) : -1;
  }
  return result;
}

// Right-hand side: exact binary fractions that depend on the global cell and the vector, so a halo
// taken from the wrong neighbour changes the checksum.
double rhs(std::uint64_t gx, std::uint64_t gy, std::uint64_t gz, std::uint64_t v) {
  return 1.0 + static_cast<double>((gx * 7 + gy * 13 + gz * 29 + v) % 17) * 0.0625;
}

// Statistics of one per-iteration series (seconds in, microseconds out).
SpmvStat stat_of(std::string key, std::string title, std::vector<double> seconds) {
  SpmvStat s;
  s.key = std::move(key);
  s.title = std::move(title);
  if (seconds.empty()) {
    s.mean = s.median = s.p99 = s.min = s.max = std::nan("");
    return s;
  }
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  double sum = 0;
  for (const double v : seconds) {
    sum += v;
  }
  constexpr double kUs = 1e6;
  s.mean = kUs * sum / static_cast<double>(n);
  s.median = kUs * (n % 2 == 1 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]));
  // Nearest rank: the smallest value with at least 99% of the values at or below it.
  const auto rank99 = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n)));
  s.p99 = kUs * seconds[std::max<std::size_t>(rank99, 1) - 1];
  s.min = kUs * seconds.front();
  s.max = kUs * seconds.back();
  return s;
}

std::string dims_text(const std::array<std::uint32_t, 3>& d) {
  return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
}

// The grid of tasks: as given, or MPI_Dims_create's near-cubic factorisation of the ranks.
std::array<std::uint32_t, 3> task_grid(const SpmvOptions& options, int size) {
  if (options.grid != std::array<std::uint32_t, 3>{0, 0, 0}) {
    const std::uint64_t tasks = std::uint64_t{options.grid[0]} * options.grid[1] * options.grid[2];
    if (tasks != static_cast<std::uint64_t>(size)) {
      throw InputError(
          fmt::format("--grid {} has {} tasks but the job runs {} ranks; give a grid whose product "
                      "is the number of ranks, or leave --grid out for a near-cubic one",
                      dims_text(options.grid), tasks, size));
    }
    return options.grid;
  }
  std::array<int, 3> dims{0, 0, 0};
  GRIDLOCK_MPI(MPI_Dims_create(size, 3, dims.data()));
  return {static_cast<std::uint32_t>(dims[0]), static_cast<std::uint32_t>(dims[1]),
          static_cast<std::uint32_t>(dims[2])};
}

// This rank's node name for remapping: from --node-names, or empty (MPI_Get_processor_name).
std::string virtual_node_name(const SpmvOptions& options, int rank, int size) {
  if (options.node_names.empty()) {
    return {};
  }
  const std::vector<std::string> names = mapping::expand_hostlist(options.node_names);
  const auto k = static_cast<int>(names.size());
  if (k == 0 || size % k != 0) {
    throw InputError(
        fmt::format("--node-names: {} names do not divide the {} ranks; give a number of node names "
                    "that divides the ranks (rank r gets name r / (ranks / names))",
                    k, size));
  }
  return names[static_cast<std::size_t>(rank / (size / k))];
}

// The task graph of the product: each task sends each face neighbour its face, all vectors.
mapping::TaskGraph spmv_task_graph(const std::array<std::uint32_t, 3>& grid, const Block& block) {
  const std::uint32_t tasks = grid[0] * grid[1] * grid[2];
  std::vector<mapping::Message> messages;
  messages.reserve(std::size_t{tasks} * kFaces);
  for (std::uint32_t t = 0; t < tasks; ++t) {
    const std::array<int, kFaces> nb = neighbours_of(static_cast<int>(t), grid);
    for (int face = 0; face < kFaces; ++face) {
      if (nb[static_cast<std::size_t>(face)] >= 0) {
        messages.push_back({t, static_cast<std::uint32_t>(nb[static_cast<std::size_t>(face)]),
                            block.face_cells(face / 2) * block.vectors * sizeof(double)});
      }
    }
  }
  return mapping::make_task_graph(tasks, std::move(messages),
                                  fmt::format("spmv:{},local={}x{}x{},vectors={}", dims_text(grid),
                                              block.n[0], block.n[1], block.n[2], block.vectors));
}

Json remap_json(const RemapReport& r) {
  Json scotch = nullptr;
  if (r.method != "placement") {
    scotch = {{"levels", r.scotch.levels},         {"architecture", r.scotch.architecture},
              {"terminals", r.scotch.terminals},   {"repaired_tasks", r.scotch.repaired_tasks},
              {"build_s", r.scotch.build_seconds}, {"map_s", r.scotch.map_seconds},
              {"version", r.scotch.scotch_version}};
  }
  // World rank r runs task new_rank_of_rank[r].
  std::vector<std::uint32_t> task_on_core(r.placement.size());
  for (std::size_t t = 0; t < r.placement.size(); ++t) {
    task_on_core[r.placement[t]] = static_cast<std::uint32_t>(t);
  }
  std::vector<std::uint32_t> new_rank_of_rank;
  new_rank_of_rank.reserve(r.core_of_rank.size());
  for (const std::uint32_t core : r.core_of_rank) {
    new_rank_of_rank.push_back(task_on_core[core]);
  }
  return {{"method", r.method},
          {"source", r.source.empty() ? Json(nullptr) : Json(r.source)},
          {"nodes", r.nodes},
          {"cores_per_node", r.cores_per_node},
          {"placement", r.placement},
          {"core_of_rank", r.core_of_rank},
          {"new_rank_of_rank", new_rank_of_rank},
          {"gather_s", r.gather_s},
          {"fetch_s", r.fetch_s},
          {"map_s", r.map_s},
          {"broadcast_s", r.broadcast_s},
          {"scotch", std::move(scotch)}};
}

// Remaps the ranks of `app` (the product's ranks); virtual node names follow the world ranks, so
// congestor ranks (the last ones) get the last names.
// `out` is filled in place: a Remapping owns a communicator and cannot be assigned.
void remap_ranks(const SpmvOptions& options, MPI_Comm app, const std::array<std::uint32_t, 3>& grid,
                 const Block& block, int world_rank, int world_size, std::optional<Remapping>& out) {
  const std::string node_name = virtual_node_name(options, world_rank, world_size);
  int rank = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(app, &rank));
  if (options.mapping == SpmvMapping::kOracle) {
    RemapOptions remap;
    remap.topology = options.topology;
    remap.source = options.source;
    remap.metric = mapping::parse_weight_metric(options.metric);
    remap.seed = options.seed;
    remap.node_name = node_name;
    // Only rank 0 maps; the others pass an empty graph.
    const mapping::TaskGraph graph = rank == 0 ? spmv_task_graph(grid, block) : mapping::TaskGraph{};
    out.emplace(remap_with_scotch(app, graph, remap));
    return;
  }
  if (options.mapping == SpmvMapping::kRankfile) {
    out.emplace(remap_with_placement(app, options.topology, node_name,
                                     [&](const mapping::Allocation& allocation, RemapReport& /*report*/) {
                                       const std::string text = read_input_file(
                                           options.rankfile, "rankfile",
                                           "give the rankfile `gridlock map --rankfile` wrote");
                                       return mapping::read_rankfile(text, allocation, options.rankfile);
                                     }));
  }
}

// One rank's run of the product on `comm`, in which its rank is its task.
struct RankRun {
  std::vector<double> times;  // 4 x iterations: halo, compute, allreduce, iteration
  double loop_s = 0;
  double local_sum = 0;
  double residual2 = 0;  // last global r.r summed over the vectors
};

// One rank's block of the product (its rank in `comm` is its task): x, b and the halo buffers,
// and the three steps of an iteration.
class JacobiBlock {
 public:
  JacobiBlock(MPI_Comm comm, const std::array<std::uint32_t, 3>& grid, const Block& block)
      : comm_(comm), block_(block), vecs_(block.vectors) {
    int task = 0;
    GRIDLOCK_MPI(MPI_Comm_rank(comm, &task));
    const auto t = static_cast<std::uint32_t>(task);
    const std::array<std::uint64_t, 3> origin{std::uint64_t{t % grid[0]} * block.n[0],
                                              std::uint64_t{(t / grid[0]) % grid[1]} * block.n[1],
                                              std::uint64_t{t / (grid[0] * grid[1])} * block.n[2]};
    x_.assign(block.doubles(), 0.0);
    next_.assign(block.doubles(), 0.0);
    b_.assign(block.doubles(), 0.0);
    for_interior([&](std::size_t c, std::size_t i, std::size_t j, std::size_t k) {
      for (std::size_t v = 0; v < vecs_; ++v) {
        b_[c + v] = rhs(origin[0] + i - 1, origin[1] + j - 1, origin[2] + k - 1, v);
      }
    });
    nb_ = neighbours_of(task, grid);
    for (int face = 0; face < kFaces; ++face) {
      if (nb_[static_cast<std::size_t>(face)] >= 0) {
        const std::size_t count = block.face_cells(face / 2) * vecs_;
        send_buf_[static_cast<std::size_t>(face)].resize(count);
        recv_buf_[static_cast<std::size_t>(face)].resize(count);
      }
    }
    dots_.resize(vecs_);
    global_dots_.resize(vecs_);
  }

  // Exchanges the faces of x into its ghost cells. A message sent on face f carries tag f; the
  // neighbour across it receives it on the opposite face (f ^ 1).
  void halo() {
    const std::size_t bytes_per_cell = vecs_ * sizeof(double);
    std::array<MPI_Request, std::size_t{2} * kFaces> requests{};
    int count = 0;
    for (int face = 0; face < kFaces; ++face) {
      const auto f = static_cast<std::size_t>(face);
      if (nb_[f] < 0) {
        continue;
      }
      GRIDLOCK_MPI(MPI_Irecv(recv_buf_[f].data(), detail::to_count(recv_buf_[f].size(), "halo doubles"),
                             MPI_DOUBLE, nb_[f], face ^ 1, comm_,
                             &requests[static_cast<std::size_t>(count++)]));
    }
    for (int face = 0; face < kFaces; ++face) {
      const auto f = static_cast<std::size_t>(face);
      if (nb_[f] < 0) {
        continue;
      }
      const int dim = face / 2;
      const std::size_t plane = face % 2 == 1 ? block_.n[static_cast<std::size_t>(dim)] : 1;
      double* out = send_buf_[f].data();
      block_.for_plane(dim, plane, [&](std::size_t c) {
        std::memcpy(out, &x_[c], bytes_per_cell);
        out += vecs_;
      });
      GRIDLOCK_MPI(MPI_Isend(send_buf_[f].data(), detail::to_count(send_buf_[f].size(), "halo doubles"),
                             MPI_DOUBLE, nb_[f], face, comm_, &requests[static_cast<std::size_t>(count++)]));
    }
    GRIDLOCK_MPI(MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE));
    for (int face = 0; face < kFaces; ++face) {
      const auto f = static_cast<std::size_t>(face);
      if (nb_[f] < 0) {
        continue;
      }
      const int dim = face / 2;
      const std::size_t plane = face % 2 == 1 ? block_.n[static_cast<std::size_t>(dim)] + 1 : 0;
      const double* in = recv_buf_[f].data();
      block_.for_plane(dim, plane, [&](std::size_t c) {
        std::memcpy(&x_[c], in, bytes_per_cell);
        in += vecs_;
      });
    }
  }

  // One Jacobi step on A x = b with the 7-point Laplacian (diagonal 6): r = b - A x, x += r / 6;
  // dots[v] = r.r of vector v. Ghost cells of the domain's boundary stay 0 (Dirichlet).
  void compute() {
    const std::size_t sy = block_.stride(1);
    const std::size_t sz = block_.stride(2);
    const std::size_t vecs = vecs_;
    std::fill(dots_.begin(), dots_.end(), 0.0);
    for_interior([&](std::size_t c, std::size_t /*i*/, std::size_t /*j*/, std::size_t /*k*/) {
      for (std::size_t v = 0; v < vecs; ++v) {
        const std::size_t e = c + v;
        const double ax =
            6.0 * x_[e] - x_[e - vecs] - x_[e + vecs] - x_[e - sy] - x_[e + sy] - x_[e - sz] - x_[e + sz];
        const double r = b_[e] - ax;
        next_[e] = x_[e] + r / 6.0;
        dots_[v] += r * r;
      }
    });
    std::swap(x_, next_);
  }

  // The residuals' global sums, per vector.
  void allreduce() {
    GRIDLOCK_MPI(MPI_Allreduce(dots_.data(), global_dots_.data(), detail::to_count(vecs_, "vectors"),
                               MPI_DOUBLE, MPI_SUM, comm_));
  }

  // The sum of x over this block's cells (the checksum).
  [[nodiscard]] double local_sum() const {
    double sum = 0;
    for_interior([&](std::size_t c, std::size_t /*i*/, std::size_t /*j*/, std::size_t /*k*/) {
      for (std::size_t v = 0; v < vecs_; ++v) {
        sum += x_[c + v];
      }
    });
    return sum;
  }

  // The last global r.r, summed over the vectors.
  [[nodiscard]] double residual2() const {
    double sum = 0;
    for (const double d : global_dots_) {
      sum += d;
    }
    return sum;
  }

 private:
  // Calls f(offset, i, j, k) for every interior cell, k outermost (1-based: 0 is a ghost cell).
  template <typename F>
  void for_interior(F&& f) const {
    for (std::size_t k = 1; k <= block_.n[2]; ++k) {
      for (std::size_t j = 1; j <= block_.n[1]; ++j) {
        for (std::size_t i = 1; i <= block_.n[0]; ++i) {
          f(block_.offset(i, j, k), i, j, k);
        }
      }
    }
  }

  MPI_Comm comm_;
  const Block& block_;
  std::size_t vecs_;
  std::vector<double> x_;
  std::vector<double> next_;
  std::vector<double> b_;
  std::array<int, kFaces> nb_{};
  std::array<std::vector<double>, kFaces> send_buf_;
  std::array<std::vector<double>, kFaces> recv_buf_;
  std::vector<double> dots_;
  std::vector<double> global_dots_;
};

RankRun run_product(const SpmvOptions& options, MPI_Comm comm, const std::array<std::uint32_t, 3>& grid,
                    const Block& block) {
  JacobiBlock jacobi(comm, grid, block);
  for (std::uint64_t it = 0; it < options.warmup; ++it) {
    jacobi.halo();
    jacobi.compute();
    jacobi.allreduce();
  }
  RankRun run;
  const std::size_t n = options.iterations;
  run.times.resize(4 * n);
  GRIDLOCK_MPI(MPI_Barrier(comm));
  const double loop_start = MPI_Wtime();
  for (std::size_t it = 0; it < n; ++it) {
    const double t0 = MPI_Wtime();
    jacobi.halo();
    const double t1 = MPI_Wtime();
    jacobi.compute();
    const double t2 = MPI_Wtime();
    jacobi.allreduce();
    const double t3 = MPI_Wtime();
    run.times[it] = t1 - t0;
    run.times[n + it] = t2 - t1;
    run.times[2 * n + it] = t3 - t2;
    run.times[3 * n + it] = t3 - t0;
  }
  run.loop_s = MPI_Wtime() - loop_start;
  run.local_sum = jacobi.local_sum();
  run.residual2 = jacobi.residual2();
  return run;
}

// The congestor side of a --congestors run: which type this rank runs, and its communicators.
struct CongestorPart {
  int type = -1;        // index into options.congestors; -1: this rank runs the product
  detail::Comm block;   // the ranks of this type
  detail::Comm slice;   // the kernel's communicator: one local rank of every host, or the block
  int slice_color = 0;  // which slice of the block (its local rank, or 0)
};

// Consecutive blocks of the congestor ranks, one per type; the first (ranks mod types) one rank
// more. Returns the type of congestor rank `c`.
int congestor_type_of(std::uint64_t c, std::uint64_t ranks, std::size_t types) {
  const std::uint64_t t = types;
  const std::uint64_t base = ranks / t;
  const std::uint64_t extra = ranks % t;
  const std::uint64_t big = extra * (base + 1);
  return static_cast<int>(c < big ? c / (base + 1) : extra + (c - big) / base);
}

// Collective over `congestors` (the congestor ranks). The slice is one local rank of every host
// (GPCNeT's PPort slices, so a kernel's messages cross the network) when every host of the block
// runs the same number of its ranks and there are two hosts or more; otherwise the whole block
// (one host, e.g. a test, or uneven hosts).
CongestorPart split_congestors(const SpmvOptions& options, MPI_Comm congestors) {
  CongestorPart part;
  int c = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(congestors, &c));
  part.type =
      congestor_type_of(static_cast<std::uint64_t>(c), options.congestor_ranks, options.congestors.size());
  part.block = detail::split(congestors, part.type, c);
  MPI_Comm host_raw = MPI_COMM_NULL;
  GRIDLOCK_MPI(MPI_Comm_split_type(part.block.get(), MPI_COMM_TYPE_SHARED, c, MPI_INFO_NULL, &host_raw));
  const detail::Comm host(host_raw);
  const int local = host.rank();
  // Hosts in the block, and the smallest and largest number of the block's ranks on one host.
  std::array<int, 3> counts{local == 0 ? 1 : 0, host.size(), -host.size()};
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, counts.data(), 1, MPI_INT, MPI_SUM, part.block.get()));
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &counts[1], 2, MPI_INT, MPI_MIN, part.block.get()));
  const bool per_local_rank = counts[0] >= 2 && counts[1] == -counts[2];
  part.slice_color = per_local_rank ? local : 0;
  part.slice = detail::split(part.block.get(), part.slice_color, c);
  return part;
}

Json congestors_json(const std::vector<CongestorResult>& results) {
  Json list = Json::array();
  for (const CongestorResult& r : results) {
    list.push_back({{"type", congestor_key(r.type)},
                    {"ranks", r.ranks},
                    {"iterations", r.iterations},
                    {"bytes", r.bytes},
                    {"mib_per_s_total", r.mib_per_s_total},
                    {"mib_per_s_per_rank", r.mib_per_s_per_rank},
                    {"timed_out", r.timed_out}});
  }
  return list;
}

void print_title(std::string_view title) { gpcnet::print_table_title(stdout, title); }

std::string cell(double value) { return gpcnet::table_cell(value, 12); }

// The JSON record of write_spmv_outputs.
void write_spmv_json(const SpmvOptions& options, const SpmvReport& report) {
  Json stats = Json::object();
  for (const SpmvStat& s : report.stats) {
    stats[s.key] = {{"title", s.title}, {"units", "usec"}, {"mean", s.mean}, {"median", s.median},
                    {"p99", s.p99},     {"min", s.min},    {"max", s.max}};
  }
  write_json_file(options.json_path, report.context,
                  Json{{"grid", report.grid},
                       {"remap", report.remap},
                       {"congestors", congestors_json(report.congestors)},
                       {"statistics", std::move(stats)},
                       {"loop_s", report.loop_s},
                       {"checksum", report.checksum},
                       {"residual", report.residual},
                       {"status", "ok"}});
}

// Rank 0's part of write_spmv_outputs: the file before anything is printed (a closed standard
// output must not lose it), then the tables.
void print_and_write(const SpmvOptions& options, const SpmvReport& report) {
  if (!options.json_path.empty()) {
    write_spmv_json(options, report);
  }
  const Json& c = report.context;
  fmt::print(
      "spmv: {} ranks, grid {} of {}x{}x{} cells, {} vectors, {} iterations (+{} warm-up), mapping {}\n",
      c.value("ranks", 0), dims_text(report.grid), options.local[0], options.local[1], options.local[2],
      options.vectors, options.iterations, options.warmup, to_string(options.mapping));
  if (!report.congestors.empty()) {
    fmt::print("beside congestors on the last {} ranks:", options.congestor_ranks);
    for (const CongestorResult& r : report.congestors) {
      fmt::print(" {} {} ranks {:.1f} MiB/s/rank{}{}", congestor_key(r.type), r.ranks, r.mib_per_s_per_rank,
                 r.timed_out ? " (stopped by --congestor-timeout before the product ended)" : "",
                 &r == &report.congestors.back() ? "\n" : ";");
    }
  }
  if (report.remap.contains("gather_s")) {
    fmt::print("remap ({}): gather {:.6f} s, metrics {:.6f} s, map {:.6f} s, broadcast {:.6f} s\n",
               report.remap.value("method", std::string("?")), report.remap.value("gather_s", 0.0),
               report.remap.value("fetch_s", 0.0), report.remap.value("map_s", 0.0),
               report.remap.value("broadcast_s", 0.0));
  }
  print_title(
      fmt::format("SpMV 7-point, {} vectors, mapping {}", options.vectors, to_string(options.mapping)));
  fmt::print("{}\n", kInnerBar);
  fmt::print("| {:>31} | {:>12} | {:>12} | {:>12} |\n", "Name", "Avg", "99%", "Units");
  fmt::print("{}\n", kInnerBar);
  for (const SpmvStat& s : report.stats) {
    fmt::print("| {:>31} | {} | {} | {:>12} |\n", s.title.substr(0, 31), cell(s.mean), cell(s.p99), "usec");
    fmt::print("{}\n", kInnerBar);
  }
  fmt::print("per iteration: the slowest rank's time; medians:");
  for (const SpmvStat& s : report.stats) {
    fmt::print(" {} {:.1f} usec{}", s.key, s.median, &s == &report.stats.back() ? "\n" : ",");
  }
  fmt::print("loop {:.6f} s (slowest rank), checksum {:.17g}, residual {:.6g}\n", report.loop_s,
             report.checksum, report.residual);
}

}  // namespace

SpmvMapping parse_spmv_mapping(std::string_view text) {
  if (text == "identity") {
    return SpmvMapping::kIdentity;
  }
  if (text == "rankfile") {
    return SpmvMapping::kRankfile;
  }
  if (text == "oracle") {
    return SpmvMapping::kOracle;
  }
  throw InputError(fmt::format("--mapping '{}': give identity, rankfile or oracle", text));
}

std::string_view to_string(SpmvMapping mapping) noexcept {
  switch (mapping) {
    case SpmvMapping::kIdentity:
      return "identity";
    case SpmvMapping::kRankfile:
      return "rankfile";
    case SpmvMapping::kOracle:
      return "oracle";
  }
  return "?";
}

std::array<std::uint32_t, 3> parse_dims3(std::string_view text, std::string_view option, std::uint32_t max) {
  const std::vector<std::string_view> parts = split(text, 'x');
  std::array<std::uint32_t, 3> dims{};
  bool ok = parts.size() == dims.size();
  for (std::size_t d = 0; ok && d < dims.size(); ++d) {
    std::uint64_t value = 0;
    ok = !parts[d].empty() && parts[d].size() <= 10;
    for (const char ch : parts[d]) {
      ok = ok && ch >= '0' && ch <= '9';
      value = ok ? value * 10 + static_cast<std::uint64_t>(ch - '0') : 0;
    }
    ok = ok && value >= 1 && value <= max;
    dims[d] = static_cast<std::uint32_t>(value);
  }
  if (!ok) {
    throw InputError(
        fmt::format("{} '{}': give three numbers from 1 to {} as AxBxC, e.g. 5x5x5", option, text, max));
  }
  return dims;
}

void validate(const SpmvOptions& o) {
  for (const std::uint32_t n : o.local) {
    if (n == 0 || n > kMaxSpmvLocal) {
      throw InputError(fmt::format("--local: give 1 to {} cells per dimension", kMaxSpmvLocal));
    }
  }
  if (o.vectors == 0 || o.vectors > kMaxSpmvVectors) {
    throw InputError(fmt::format("--vectors {}: give 1 to {} vectors", o.vectors, kMaxSpmvVectors));
  }
  const std::uint64_t doubles =
      std::uint64_t{o.local[0] + 2} * (o.local[1] + 2) * (o.local[2] + 2) * o.vectors;
  if (doubles > kMaxSpmvDoubles) {
    throw InputError(
        fmt::format("--local {}x{}x{} with {} vectors needs {} doubles per array on each rank (at most "
                    "{}); give a smaller block or fewer vectors",
                    o.local[0], o.local[1], o.local[2], o.vectors, doubles, kMaxSpmvDoubles));
  }
  if (o.iterations == 0 || o.iterations > kMaxSpmvIterations) {
    throw InputError(fmt::format("--iterations {}: give 1 to {}", o.iterations, kMaxSpmvIterations));
  }
  if (o.warmup > kMaxSpmvIterations) {
    throw InputError(fmt::format("--warmup {}: give 0 to {}", o.warmup, kMaxSpmvIterations));
  }
  if (o.mapping == SpmvMapping::kRankfile && o.rankfile.empty()) {
    throw InputError("--mapping rankfile needs --rankfile FILE (written by `gridlock map --rankfile`)");
  }
  if (o.mapping != SpmvMapping::kRankfile && !o.rankfile.empty()) {
    throw InputError("--rankfile is read with --mapping rankfile only; add --mapping rankfile");
  }
  if (o.mapping == SpmvMapping::kOracle && o.topology.empty()) {
    throw InputError("--mapping oracle needs --topology SPEC (the machine's network, e.g. torus:2x2x2)");
  }
  if (o.mapping == SpmvMapping::kIdentity && !o.topology.empty()) {
    throw InputError("--topology is used with --mapping oracle or rankfile only");
  }
  if (o.congestors.empty() != (o.congestor_ranks == 0)) {
    throw InputError(
        o.congestors.empty()
            ? "--congestor-ranks needs --congestors LIST (e.g. a2a,p2p-incast), the kernels they run"
            : "--congestors needs --congestor-ranks N, how many of the last ranks run them");
  }
  if (!o.congestors.empty() && o.congestor_ranks < 2 * o.congestors.size()) {
    throw InputError(
        fmt::format("--congestor-ranks {}: each of the {} congestor types needs at least 2 ranks; give "
                    "at least {} or fewer types",
                    o.congestor_ranks, o.congestors.size(), 2 * o.congestors.size()));
  }
  if (o.congestor_bytes == 0 || o.congestor_bytes > kMaxCongestorBytes || o.allreduce_congestor_bytes == 0 ||
      o.allreduce_congestor_bytes > kMaxCongestorBytes) {
    throw InputError(fmt::format("--congestor-size and --allreduce-congestor-size: give 1 B to {} MiB",
                                 kMaxCongestorBytes >> 20));
  }
  if (o.allreduce_congestor_bytes % sizeof(double) != 0) {
    throw InputError("--allreduce-congestor-size: give a multiple of 8 bytes (the allreduce sums doubles)");
  }
  if (!(o.congestor_timeout_s > 0) || o.congestor_timeout_s > 1e7) {
    throw InputError("--congestor-timeout: give a number of seconds above 0 (and below 10^7)");
  }
}

// The context block of a product run on `app_size` of the job's `size` ranks.
Json spmv_context(const SpmvOptions& options, const std::array<std::uint32_t, 3>& grid, int app_size,
                  int size) {
  const bool congesting = !options.congestors.empty();
  Json context = base_context("gridlock-bench spmv", schemas::kBenchSpmv);
  context["mpi_library"] = detail::mpi_library_version();
  context["ranks"] = app_size;
  context["world_ranks"] = size;
  context["grid"] = dims_text(grid);
  context["local"] = fmt::format("{}x{}x{}", options.local[0], options.local[1], options.local[2]);
  context["vectors"] = options.vectors;
  context["iterations"] = options.iterations;
  context["warmup"] = options.warmup;
  context["mapping"] = to_string(options.mapping);
  context["rankfile"] = options.rankfile.empty() ? Json(nullptr) : Json(options.rankfile);
  context["topology"] = options.topology.empty() ? Json(nullptr) : Json(options.topology);
  if (options.mapping == SpmvMapping::kOracle) {
    context["source"] = options.source;
    context["metric"] = options.metric;
    context["seed"] = options.seed;
  }
  context["node_names"] = options.node_names.empty() ? Json(nullptr) : Json(options.node_names);
  Json congestors = Json::array();
  for (const CongestorType type : options.congestors) {
    congestors.push_back(congestor_key(type));
  }
  context["congestors"] = std::move(congestors);
  context["congestor_ranks"] = congesting ? options.congestor_ranks : 0;
  if (congesting) {
    context["congestor_bytes"] = options.congestor_bytes;
    context["allreduce_congestor_bytes"] = options.allreduce_congestor_bytes;
    context["congestor_timeout_s"] = options.congestor_timeout_s;
  }
  return context;
}

// A congestor rank's part: its congestor's slice and kernel (windows made one slice at a time),
// driven until the product's ranks are done.
detail::CongestorRun run_congestor_part(const SpmvOptions& options, MPI_Comm world, MPI_Comm part_comm,
                                        CongestorPart& part) {
  part = split_congestors(options, part_comm);
  Options kernel_options;
  kernel_options.congestor_bytes = options.congestor_bytes;
  kernel_options.allreduce_congestor_bytes = options.allreduce_congestor_bytes;
  std::unique_ptr<detail::CongestorKernel> kernel;
  // One slice at a time: RMA windows of slices made by one split collide in Open MPI 4.1.
  int colors = part.slice_color + 1;
  GRIDLOCK_MPI(MPI_Allreduce(MPI_IN_PLACE, &colors, 1, MPI_INT, MPI_MAX, part_comm));
  const int turns = static_cast<int>(options.congestors.size()) * colors;
  detail::create_in_turn(part_comm, part.type * colors + part.slice_color, turns, [&] {
    kernel = detail::make_congestor_kernel(options.congestors[static_cast<std::size_t>(part.type)],
                                           kernel_options, part.slice.get());
  });
  return detail::drive_congestor(*kernel, world, part.slice.get(), kernel_options.congestor_warmup,
                                 kernel_options.congestor_check, options.congestor_timeout_s);
}

SpmvReport run_spmv(const SpmvOptions& options, MPI_Comm world) {
  validate(options);
  int rank = 0;
  int size = 1;
  GRIDLOCK_MPI(MPI_Comm_rank(world, &rank));
  GRIDLOCK_MPI(MPI_Comm_size(world, &size));
  const bool congesting = !options.congestors.empty();
  if (congesting && options.congestor_ranks >= static_cast<std::uint64_t>(size)) {
    throw InputError(
        fmt::format("--congestor-ranks {}: the job runs {} ranks; leave at least one rank for the "
                    "product (launch more ranks, or give fewer congestor ranks)",
                    options.congestor_ranks, size));
  }
  const int app_size = size - static_cast<int>(congesting ? options.congestor_ranks : 0);
  const bool in_app = rank < app_size;
  const std::array<std::uint32_t, 3> grid = task_grid(options, app_size);
  Block block;
  block.n = {options.local[0], options.local[1], options.local[2]};
  block.vectors = options.vectors;
  // The output path is checked before anything runs; the verdict reaches every rank.
  detail::agree_on_root(world, [&] {
    if (!options.json_path.empty()) {
      check_writable(options.json_path);
    }
  });
  // The product's ranks (world order, so world rank 0 is its rank 0), or the congestors'.
  const detail::Comm part_comm = detail::split(world, in_app ? 0 : 1, rank);

  SpmvReport report;
  // A remap failure is the product ranks' (every one of them throws it); agree() hands it to the
  // congestor ranks too, before any of them starts a load that would wait for the product.
  std::optional<Remapping> remapping;
  detail::agree(world, [&] {
    if (in_app) {
      remap_ranks(options, part_comm.get(), grid, block, rank, size, remapping);
    }
  });
  if (rank == 0) {
    report.remap = remapping ? remap_json(remapping->report()) : Json{{"method", "identity"}};
  }

  RankRun run;
  int task = 0;
  CongestorPart part;
  detail::CongestorRun load;
  if (in_app) {
    const MPI_Comm comm = remapping ? remapping->comm() : part_comm.get();
    GRIDLOCK_MPI(MPI_Comm_rank(comm, &task));
    if (congesting) {
      detail::wait_for_congestors(world);
    }
    run = run_product(options, comm, grid, block);
    if (congesting) {
      detail::measure_done(world);
    }
  } else {
    load = run_congestor_part(options, world, part_comm.get(), part);
  }
  if (congesting) {
    // Congestor ranks sleep here instead of spinning while the product's ranks reduce.
    detail::idle_barrier(world);
    report.congestors = detail::reduce_congestor_runs(options.congestors, part.type, load, world);
  }
  if (!in_app) {
    return {};
  }

  // Reductions over the product's ranks to its rank 0 (world rank 0), which reports.
  const MPI_Comm app = part_comm.get();
  const std::size_t n = options.iterations;
  std::vector<double> slowest(rank == 0 ? run.times.size() : 0);
  GRIDLOCK_MPI(MPI_Reduce(run.times.data(), slowest.data(), detail::to_count(run.times.size(), "timings"),
                          MPI_DOUBLE, MPI_MAX, 0, app));
  double loop_s = 0;
  GRIDLOCK_MPI(MPI_Reduce(&run.loop_s, &loop_s, 1, MPI_DOUBLE, MPI_MAX, 0, app));
  // The checksum is summed in task order, so it is the same bits whatever the mapping.
  std::array<double, 2> mine{static_cast<double>(task), run.local_sum};
  std::vector<double> sums(rank == 0 ? 2 * static_cast<std::size_t>(app_size) : 0);
  GRIDLOCK_MPI(MPI_Gather(mine.data(), 2, MPI_DOUBLE, sums.data(), 2, MPI_DOUBLE, 0, app));
  if (rank != 0) {
    return {};
  }
  std::vector<double> by_task(static_cast<std::size_t>(app_size));
  for (std::size_t r = 0; r < by_task.size(); ++r) {
    by_task[static_cast<std::size_t>(sums[2 * r])] = sums[2 * r + 1];
  }
  for (const double v : by_task) {
    report.checksum += v;
  }
  report.residual = std::sqrt(run.residual2);
  report.loop_s = loop_s;
  report.grid = grid;
  const auto series = [&](std::size_t i) {
    return std::vector<double>(slowest.begin() + static_cast<std::ptrdiff_t>(i * n),
                               slowest.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
  };
  report.stats.push_back(stat_of("halo", "Halo exchange", series(0)));
  report.stats.push_back(stat_of("compute", "SpMV compute", series(1)));
  report.stats.push_back(stat_of("allreduce", "Dot allreduce", series(2)));
  report.stats.push_back(stat_of("iteration", "Iteration", series(3)));

  Json context = spmv_context(options, grid, app_size, size);
  report.context = std::move(context);
  return report;
}

void write_spmv_outputs(const SpmvOptions& options, const SpmvReport& report, MPI_Comm world) {
  detail::agree_on_root(world, [&] { print_and_write(options, report); });
}

}  // namespace gridlock::bench
