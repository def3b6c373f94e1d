// Planning a communicator's new order: the processor names (and a distributed graph's edges) go
// to the communicator's rank 0, which plans with gridlock::mapping; the order comes back by
// broadcast and is applied with PMPI_Comm_split. The library never aborts the application unless
// GRIDLOCK_REORDER_STRICT asks it to: a failure keeps the launcher's order with one warning.
#include "detail/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/mapping/reorder.hpp"
#include "gridlock/mapping/reorder_json.hpp"

namespace gridlock::reorder::detail {

namespace {

std::optional<std::string> env(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());  // NOLINT(concurrency-mt-unsafe): read only
  if (value == nullptr) {
    return std::nullopt;
  }
  return std::string(value);
}

bool strict() {
  const std::optional<std::string> value = env("GRIDLOCK_REORDER_STRICT");
  return value && !value->empty() && *value != "0";
}

// The report's entries, as JSON text, with the world rank of the process that planned them (rank
// 0 of their communicator): a program may create communicators from several threads, and under
// SimGrid SMPI every rank runs in this one process, sharing this list.
std::mutex records_mutex;
std::vector<std::pair<int, std::string>> records;

int world_rank() {
  int rank = 0;
  return PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS ? rank : -1;
}

void keep_record(const mapping::ReorderRecord& record) {
  std::string text = mapping::reorder_record_json(record).dump();
  const int rank = world_rank();
  const std::lock_guard<std::mutex> lock(records_mutex);
  records.emplace_back(rank, std::move(text));
}

// Most values (3 per edge) a distributed graph call may gather to rank 0: 64 M edges, 1.5 GB,
// far beyond any graph Scotch maps in the time of a communicator's creation.
constexpr long long kMaxEdgeValues = 3LL * (1LL << 26);

// The outcome rank 0 broadcasts.
enum Outcome : int { kKeep = 0, kReorder = 1, kFail = 2 };

// Rank 0's half: the plan from the gathered names and edges, or the reason there is none.
int plan_on_root(const CallInfo& info, int size, const std::vector<char>& names, int name_len,
                 const std::vector<std::int64_t>& edges, const std::string& too_many_edges,
                 std::vector<int>& keys) {
  mapping::ReorderRecord record;
  record.call = info.call;
  record.binding = info.binding;
  record.comm_size = static_cast<std::uint32_t>(size);
  record.members = static_cast<std::uint32_t>(info.members);
  int outcome = kKeep;
  try {
    const mapping::ReorderConfig config = mapping::reorder_config_from(env);
    if (!too_many_edges.empty()) {
      throw InputError(fmt::format("{}: {}", info.call, too_many_edges));
    }
    std::vector<mapping::Message> messages;
    for (std::size_t i = 0; i + 2 < edges.size(); i += 3) {
      const std::int64_t src = edges[i];
      const std::int64_t dst = edges[i + 1];
      const std::int64_t weight = edges[i + 2];
      if (src < 0 || dst < 0 || src >= info.members || dst >= info.members || weight < 0) {
        throw InputError(fmt::format("{}: edge {} -> {} (weight {}) outside the communicator's {} ranks",
                                     info.call, src, dst, weight, info.members));
      }
      messages.push_back({static_cast<std::uint32_t>(src), static_cast<std::uint32_t>(dst),
                          static_cast<std::uint64_t>(weight)});
    }
    const mapping::TaskGraph graph = info.graph(std::move(messages));
    record.graph = graph.spec;
    record.messages = graph.messages.size();
    std::vector<std::string> hosts;
    hosts.reserve(static_cast<std::size_t>(info.members));
    for (int r = 0; r < info.members; ++r) {
      const char* name = names.data() + (static_cast<std::size_t>(r) * static_cast<std::size_t>(name_len));
      hosts.emplace_back(name, strnlen(name, static_cast<std::size_t>(name_len)));
    }
    record.plan = mapping::plan_reorder(graph, hosts, config);
    if (record.plan.reordered) {
      outcome = kReorder;
      for (int r = 0; r < info.members; ++r) {
        keys[static_cast<std::size_t>(r)] =
            static_cast<int>(record.plan.new_rank[static_cast<std::size_t>(r)]);
      }
    }
  } catch (const std::exception& e) {
    record.error = e.what();
    outcome = kFail;
    std::fprintf(stderr, "gridlock-reorder: %s: %s: %s\n", strict() ? "error" : "warning",
                 info.call,  // NOLINT
                 strict() ? e.what()
                          : fmt::format("{}; the communicator keeps the launcher's order", e.what()).c_str());
  }
  keep_record(record);
  return outcome;
}

}  // namespace

bool reorderable(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter == 0;
}

int reorder(MPI_Comm comm, const CallInfo& info, Reordered& out) {
  out = Reordered{comm, false, {}};
  int rank = 0;
  int size = 0;
  int rc = PMPI_Comm_rank(comm, &rank);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return rc;

  // Processor names, fixed width, to rank 0.
  const int name_len = MPI_MAX_PROCESSOR_NAME;
  std::vector<char> name(static_cast<std::size_t>(name_len), '\0');
  int len = 0;
  rc = PMPI_Get_processor_name(name.data(), &len);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<char> names(rank == 0 ? static_cast<std::size_t>(size) * static_cast<std::size_t>(name_len)
                                    : 0);
  rc = PMPI_Gather(name.data(), name_len, MPI_CHAR, names.data(), name_len, MPI_CHAR, 0, comm);
  if (rc != MPI_SUCCESS) return rc;

  // A distributed graph's edges, as (src, dst, weight) triples, to rank 0.
  std::vector<std::int64_t> edges;
  std::string too_many_edges;
  if (info.gather_edges) {
    std::vector<std::int64_t> mine;
    mine.reserve(info.local_edges.size() * 3);
    for (const Edge& e : info.local_edges) {
      mine.insert(mine.end(), {e.src, e.dst, e.weight});
    }
    // The total first, on every rank, so that all of them skip the gather together when it is
    // beyond one Gatherv (int counts and displacements) or the edge limit.
    long long count = static_cast<long long>(mine.size());
    long long total = 0;
    rc = PMPI_Allreduce(&count, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (total > kMaxEdgeValues) {
      too_many_edges =
          fmt::format("{} edges in all; at most {} are supported", total / 3, kMaxEdgeValues / 3);
    } else {
      const int sent = static_cast<int>(count);
      std::vector<int> counts(rank == 0 ? static_cast<std::size_t>(size) : 0);
      rc = PMPI_Gather(&sent, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
      if (rc != MPI_SUCCESS) return rc;
      std::vector<int> displs(counts.size(), 0);
      for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
      edges.resize(rank == 0 ? static_cast<std::size_t>(total) : 0);
      rc = PMPI_Gatherv(mine.data(), sent, MPI_INT64_T, edges.data(), counts.data(), displs.data(),
                        MPI_INT64_T, 0, comm);
      if (rc != MPI_SUCCESS) return rc;
    }
  }

  std::vector<int> keys(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) keys[static_cast<std::size_t>(r)] = r;
  int outcome = kKeep;
  if (rank == 0) outcome = plan_on_root(info, size, names, name_len, edges, too_many_edges, keys);
  rc = PMPI_Bcast(&outcome, 1, MPI_INT, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  if (outcome == kFail && strict()) {
    // Every rank stops (rank 0 printed why): the tests' way of seeing a failure.
    return PMPI_Abort(comm, 3);
  }
  if (outcome != kReorder) return MPI_SUCCESS;
  rc = PMPI_Bcast(keys.data(), size, MPI_INT, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm split = MPI_COMM_NULL;
  // Ranks beyond the topology's members keep their places after the members.
  rc = PMPI_Comm_split(comm, 0, keys[static_cast<std::size_t>(rank)], &split);
  if (rc != MPI_SUCCESS) return rc;
  out.comm = split;
  out.split = true;
  out.new_rank = std::move(keys);
  return MPI_SUCCESS;
}

mapping::TaskGraph graph_call_graph(int nnodes, const int* index, const int* edges) {
  std::vector<mapping::Message> messages;
  int begin = 0;
  for (int i = 0; i < nnodes; ++i) {
    const int end = index[i];
    if (end < begin) {
      throw InputError(
          fmt::format("MPI_Graph_create: index[{}] = {} is below index[{}] = {}", i, end, i - 1, begin));
    }
    for (int k = begin; k < end; ++k) {
      if (edges[k] < 0 || edges[k] >= nnodes) {
        throw InputError(
            fmt::format("MPI_Graph_create: edge {} of node {} names node {} of {}", k, i, edges[k], nnodes));
      }
      messages.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(edges[k]), 1});
    }
    begin = end;
  }
  return mapping::edge_task_graph(static_cast<std::uint32_t>(nnodes), std::move(messages), "graph");
}

long long grid_members(std::span<const int> dims, int size) {
  long long members = 1;
  for (const int x : dims) {
    if (x < 1) return 0;
    members *= x;
    if (members > size) return members;
  }
  return members;
}

std::vector<Edge> adjacent_edges(int rank, int outdegree, const int* destinations, const int* weights) {
  std::vector<Edge> edges;
  edges.reserve(static_cast<std::size_t>(std::max(outdegree, 0)));
  for (int k = 0; k < outdegree; ++k) {
    edges.push_back({rank, destinations[k], weights != nullptr ? weights[k] : 1});
  }
  return edges;
}

std::vector<Edge> dist_graph_edges(int n, const int* sources, const int* degrees, const int* destinations,
                                   const int* weights) {
  std::vector<Edge> edges;
  int k = 0;
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < degrees[i]; ++d, ++k) {
      edges.push_back({sources[i], destinations[k], weights != nullptr ? weights[k] : 1});
    }
  }
  return edges;
}

CallInfo cart_call(const char* binding, std::span<const int> dims, std::span<const int> periods,
                   int members) {
  CallInfo info;
  info.call = "MPI_Cart_create";
  info.binding = binding;
  info.members = members;
  info.graph = [dims, periods](std::vector<mapping::Message>&& /*unused*/) {
    return mapping::cartesian_task_graph(dims, periods);
  };
  return info;
}

CallInfo graph_call(const char* binding, int nnodes, const int* index, const int* edges) {
  CallInfo info;
  info.call = "MPI_Graph_create";
  info.binding = binding;
  info.members = nnodes;
  info.graph = [nnodes, index, edges](std::vector<mapping::Message>&& /*unused*/) {
    return graph_call_graph(nnodes, index, edges);
  };
  return info;
}

CallInfo dist_graph_call(const char* call, const char* binding, int size, std::span<const Edge> edges) {
  CallInfo info;
  info.call = call;
  info.binding = binding;
  info.members = size;
  info.gather_edges = true;
  info.local_edges = edges;
  info.graph = [size](std::vector<mapping::Message>&& messages) {
    return mapping::edge_task_graph(static_cast<std::uint32_t>(size), std::move(messages), "dist_graph");
  };
  return info;
}

std::vector<int> renumbered(const Reordered& r, const int* ranks, int count) {
  std::vector<int> out(ranks, ranks + std::max(count, 0));
  if (!r.split) return out;
  for (int& x : out) {
    if (x >= 0 && static_cast<std::size_t>(x) < r.new_rank.size())
      x = r.new_rank[static_cast<std::size_t>(x)];
  }
  return out;
}

void write_report() {
  const std::optional<std::string> path = env("GRIDLOCK_REORDER_REPORT");
  if (!path || path->empty()) return;
  int rank = 0;
  int size = 0;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
      PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS) {
    return;
  }
  std::string mine;
  {
    const std::lock_guard<std::mutex> lock(records_mutex);
    for (const auto& [planner, text] : records) {
      if (planner == rank) {
        mine += text;
        mine += '\n';
      }
    }
  }
  const int count = static_cast<int>(std::min<std::size_t>(mine.size(), std::numeric_limits<int>::max() / 2));
  std::vector<int> counts(rank == 0 ? static_cast<std::size_t>(size) : 0);
  if (PMPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return;
  std::vector<int> displs(counts.size(), 0);
  long long total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = static_cast<int>(std::min<long long>(total, std::numeric_limits<int>::max()));
    total += counts[r];
  }
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  if (PMPI_Gatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0,
                   MPI_COMM_WORLD) != MPI_SUCCESS) {
    return;
  }
  if (rank != 0) return;
  try {
    mapping::ReorderConfig config;
    try {
      config = mapping::reorder_config_from(env);
    } catch (const InputError&) {
      // The calls' entries say what was wrong; the context shows the defaults.
    }
    std::string library(MPI_MAX_LIBRARY_VERSION_STRING, '\0');
    int len = 0;
    PMPI_Get_library_version(library.data(), &len);
    library.resize(static_cast<std::size_t>(std::max(len, 0)));
    library = library.substr(0, library.find_first_of(std::string_view("\r\n\0", 3)));
    Json calls = Json::array();
    std::size_t start = 0;
    while (start < all.size()) {
      const std::size_t end = all.find('\n', start);
      calls.push_back(Json::parse(all.substr(start, end - start)));
      start = end == std::string::npos ? all.size() : end + 1;
    }
    write_json_file(*path, mapping::reorder_report_context(static_cast<std::uint32_t>(size), library, config),
                    Json{{"calls", std::move(calls)}});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gridlock-reorder: warning: GRIDLOCK_REORDER_REPORT: %s\n", e.what());  // NOLINT
  }
}

}  // namespace gridlock::reorder::detail
