#include "gridlock/mapping/task_graph.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/core/units.hpp"
#include "gridlock/mapping/task_graph_json.hpp"
#include "gridlock/sim/goal.hpp"
#include "gridlock/sim/schedule.hpp"

namespace gridlock::mapping {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kForms =
    "accepted forms: 'stencil3d:PXxPYxPZ[,bytes=B][,periodic]', 'stencil2d:PXxPY[,bytes=B][,periodic]', "
    "'alltoall:N[,bytes=B]', 'matrix:FILE' (CSV src,dst,bytes or Matrix Market), 'goal:FILE' (GOAL text or "
    "binary schedule)";

// A matrix file is parsed into 16-byte messages, and a larger file is almost certainly not a
// communication matrix; the limit keeps a wrong path (a disk image, a log) from taking the memory.
constexpr std::uintmax_t kMaxMatrixFileBytes = kGiB;

// alltoall's N x (N - 1) messages must stay within kMaxMessages: 16,384 tasks is the largest N.
constexpr std::uint32_t kMaxAlltoallTasks = 16384;

[[noreturn]] void spec_error(std::string_view spec, std::string_view problem) {
  throw InputError(
      fmt::format("invalid task graph spec '{}': {}; {}", printable_excerpt(spec, 200), problem, kForms));
}

// Every graph, however made, has an edge to map and a total that fits in 64 bits (the mapper's
// sums of bytes never overflow).
void finish(const TaskGraph& graph) {
  if (graph.messages.empty()) {
    throw InputError(fmt::format(
        "task graph '{}' has no edges: nothing to map (its {} task(s) send no bytes to each other; give a "
        "graph with at least two communicating tasks)",
        printable_excerpt(graph.spec, 200), graph.num_tasks));
  }
  std::uint64_t total = 0;
  for (const Message& m : graph.messages) {
    if (m.bytes > std::numeric_limits<std::uint64_t>::max() - total) {
      throw InputError(
          fmt::format("task graph '{}': its messages add up to 2^64 bytes or more; give smaller sizes",
                      printable_excerpt(graph.spec, 200)));
    }
    total += m.bytes;
  }
}

void check_task_count(std::uint64_t tasks, std::string_view where) {
  if (tasks == 0 || tasks > kMaxTasks) {
    throw InputError(fmt::format("{}: {} tasks; a task graph has 1 to {} tasks", where, tasks, kMaxTasks));
  }
}

// ---- generated graphs --------------------------------------------------------------------------

// Face neighbours on a grid of up to three dimensions. In each dimension a task has one
// neighbour per distinct task: two (x-1, x+1) inside a dimension of size >= 3 (with `periodic`,
// also at its ends, wrapping around), one at a non-periodic end, one in a dimension of size 2
// (periodic or not: x+1 and x-1 are the same task, and the message is counted once, not twice)
// and none in a dimension of size 1 (wrapping would reach the task itself).
TaskGraph stencil(std::array<std::uint32_t, 3> dims, int ndims, std::uint64_t bytes, bool periodic) {
  const std::string kind = ndims == 3 ? "stencil3d" : "stencil2d";
  std::uint64_t tasks = 1;
  for (int d = 0; d < ndims; ++d) {
    if (dims[d] == 0 || dims[d] > kMaxTasks) {
      tasks = 0;
      break;
    }
    tasks *= dims[d];  // each factor <= 2^22 and the running product is checked: no overflow
    if (tasks > kMaxTasks) {
      break;
    }
  }
  const std::string shape = ndims == 3 ? fmt::format("{}x{}x{}", dims[0], dims[1], dims[2])
                                       : fmt::format("{}x{}", dims[0], dims[1]);
  if (tasks == 0 || tasks > kMaxTasks) {
    throw InputError(fmt::format("{} {}: a stencil has 1 to {} tasks and every dimension is at least 1", kind,
                                 shape, kMaxTasks));
  }
  if (bytes == 0) {
    throw InputError(
        fmt::format("{} {}: the message size is 0 bytes; give bytes=B with B >= 1", kind, shape));
  }
  TaskGraph graph;
  graph.num_tasks = static_cast<std::uint32_t>(tasks);
  graph.spec = fmt::format("{}:{},bytes={}{}", kind, shape, bytes, periodic ? ",periodic" : "");
  graph.coords.reserve(tasks);
  graph.messages.reserve(tasks * 2 * static_cast<std::uint64_t>(ndims));
  const std::array<std::uint32_t, 3> stride = {1, dims[0], dims[0] * (ndims == 3 ? dims[1] : 1)};
  std::array<std::uint32_t, 6> neighbours{};
  for (std::uint32_t id = 0; id < graph.num_tasks; ++id) {
    const std::array<std::uint32_t, 3> c = {id % dims[0], (id / dims[0]) % dims[1],
                                            ndims == 3 ? id / (dims[0] * dims[1]) : 0};
    graph.coords.push_back({static_cast<double>(c[0]), static_cast<double>(c[1]), static_cast<double>(c[2])});
    std::size_t count = 0;
    for (int d = 0; d < ndims; ++d) {
      const std::uint32_t n = dims[d];
      if (n == 1) {
        continue;
      }
      const std::uint32_t base = id - c[d] * stride[d];
      if (c[d] + 1 < n) {
        neighbours[count++] = base + (c[d] + 1) * stride[d];
      } else if (periodic && n > 2) {
        neighbours[count++] = base;
      }
      if (c[d] > 0) {
        neighbours[count++] = base + (c[d] - 1) * stride[d];
      } else if (periodic && n > 2) {
        neighbours[count++] = base + (n - 1) * stride[d];
      }
    }
    // Distinct by construction (different dimensions move different coordinates, and the two
    // of one dimension differ when n > 2); only the order is left to fix.
    // Insertion sort: at most six ids (and GCC 12 warns about std::sort's bounds on a std::array).
    for (std::size_t k = 1; k < count; ++k) {
      const std::uint32_t v = neighbours[k];
      std::size_t j = k;
      for (; j > 0 && neighbours[j - 1] > v; --j) {
        neighbours[j] = neighbours[j - 1];
      }
      neighbours[j] = v;
    }
    for (std::size_t k = 0; k < count; ++k) {
      graph.messages.push_back(Message{id, neighbours[k], bytes});
    }
  }
  finish(graph);
  return graph;
}

// ---- spec options --------------------------------------------------------------------------------

struct Options {
  std::uint64_t bytes = kDefaultStencilBytes;
  bool periodic = false;
};

Options parse_options(std::span<const std::string_view> items, bool allow_periodic, std::string_view spec) {
  Options options;
  bool have_bytes = false;
  for (const std::string_view item : items) {
    const auto eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    if (item.empty()) {
      spec_error(spec, "empty option (a ',' too many?)");
    }
    if (key == "bytes") {
      if (eq == std::string_view::npos) {
        spec_error(spec, "'bytes' needs a value, e.g. bytes=20000 or bytes=16KiB");
      }
      if (have_bytes) {
        spec_error(spec, "'bytes' is given twice");
      }
      have_bytes = true;
      try {
        options.bytes = parse_byte_size(item.substr(eq + 1), "message size (bytes=)");
      } catch (const InputError& e) {
        spec_error(spec, e.what());
      }
      if (options.bytes == 0) {
        spec_error(spec, "bytes=0: messages must have at least 1 byte");
      }
    } else if (key == "periodic" && allow_periodic) {
      if (eq != std::string_view::npos) {
        spec_error(spec, "'periodic' takes no value: write ',periodic'");
      }
      if (options.periodic) {
        spec_error(spec, "'periodic' is given twice");
      }
      options.periodic = true;
    } else {
      spec_error(spec, fmt::format("unknown option '{}' (the options are bytes=B{})", printable_excerpt(key),
                                   allow_periodic ? " and periodic" : ""));
    }
  }
  return options;
}

// Task counts per dimension: positive integers separated by 'x', `ndims` of them.
template <std::size_t N>
std::array<std::uint32_t, N> parse_shape(std::string_view text, std::string_view spec) {
  const auto parts = split(text, 'x');
  if (parts.size() != N) {
    spec_error(spec, fmt::format("the shape '{}' must have {} sizes separated by 'x', e.g. '{}'",
                                 printable_excerpt(text), N, N == 3 ? "4x4x4" : "8x8"));
  }
  std::array<std::uint32_t, N> dims{};
  std::uint64_t product = 1;
  for (std::size_t d = 0; d < N; ++d) {
    const auto value = parse_u64(parts[d]);
    if (!value) {
      spec_error(spec, fmt::format("size '{}' is not a positive integer", printable_excerpt(parts[d])));
    }
    if (*value == 0) {
      spec_error(spec, "a size is 0: every dimension needs at least 1 task");
    }
    if (*value > kMaxTasks || product * *value > kMaxTasks) {  // product <= 2^22, value <= 2^22
      spec_error(spec, fmt::format("more than {} tasks (the most a task graph may have)", kMaxTasks));
    }
    product *= *value;
    dims[d] = static_cast<std::uint32_t>(*value);
  }
  return dims;
}

// ---- files ---------------------------------------------------------------------------------------

// Refuses anything but a regular file before reading: a FIFO would block, /dev/zero would never end.
// Lines of a text file with their 1-based numbers; '\r' before '\n' is dropped.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) {
      return false;
    }
    const auto end = text_.find('\n', pos_);
    const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
    line = text_.substr(pos_, stop - pos_);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    pos_ = stop + 1;
    ++number_;
    return true;
  }
  [[nodiscard]] std::uint64_t number() const noexcept { return number_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint64_t number_ = 0;
};

class FileParser {
 public:
  FileParser(const fs::path& path, std::string_view text) : path_(path.string()), lines_(text) {}

  [[noreturn]] void fail(std::string_view problem) const {
    throw InputError(fmt::format("{}:{}: {}", path_, lines_.number(), problem));
  }

  std::uint32_t task_id(std::string_view text, std::string_view what, bool one_based) const {
    const auto value = parse_u64(text);
    if (!value) {
      fail(fmt::format("{} '{}' is not a {} task number", what, printable_excerpt(text),
                       one_based ? "1-based" : "0-based"));
    }
    if (one_based && *value == 0) {
      fail(fmt::format("{} is 0; Matrix Market rows and columns count from 1", what));
    }
    const std::uint64_t id = one_based ? *value - 1 : *value;
    if (id >= kMaxTasks) {
      fail(fmt::format("{} {} is beyond the {} tasks a task graph may have", what, *value, kMaxTasks));
    }
    return static_cast<std::uint32_t>(id);
  }

  std::uint64_t integer_bytes(std::string_view text) const {
    const auto value = parse_u64(text);
    if (!value) {
      fail(fmt::format("bytes '{}' is not a non-negative integer below 2^64", printable_excerpt(text)));
    }
    return *value;
  }

  // Matrix Market `real` values: non-negative and finite; fractions are rounded to the nearest
  // byte but a positive value keeps at least 1 byte, so no edge vanishes by rounding.
  std::uint64_t real_bytes(std::string_view text) const {
    const std::optional<double> number = parse_double(text);
    const double value = number.value_or(0.0);
    if (!number || !std::isfinite(value)) {
      fail(fmt::format("value '{}' is not a finite number", printable_excerpt(text)));
    }
    if (value < 0) {
      fail(fmt::format("value '{}' is negative; bytes are at least 0", printable_excerpt(text)));
    }
    if (value >= 0x1p64) {
      fail(fmt::format("value '{}' is 2^64 bytes or more", printable_excerpt(text)));
    }
    const double rounded = std::nearbyint(value);
    if (rounded == 0 && value > 0) {
      return 1;
    }
    return rounded >= 0x1p64 ? std::numeric_limits<std::uint64_t>::max()
                             : static_cast<std::uint64_t>(rounded);
  }

  void add(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
    // Traffic from a task to itself does not cross the network (matrices and traces often have a
    // diagonal): it is left out rather than refused.
    if (src == dst || bytes == 0) {
      return;
    }
    if (messages_.size() >= kMaxMessages) {
      fail(fmt::format("more than {} entries; a task graph has at most that many messages", kMaxMessages));
    }
    messages_.push_back(Message{src, dst, bytes});
  }

  TaskGraph csv() {
    std::string_view line;
    bool first = true;
    std::uint64_t max_id = 0;
    bool any = false;
    while (lines_.next(line)) {
      line = trim(lines_.number() == 1 ? without_utf8_bom(line) : line);
      if (line.empty() || line.front() == '#') {
        continue;
      }
      const auto fields = split(line, ',');
      if (first) {
        first = false;
        if (fields.size() == 3 && iequals(trim(fields[0]), "src") && iequals(trim(fields[1]), "dst") &&
            iequals(trim(fields[2]), "bytes")) {
          continue;
        }
      }
      if (fields.size() != 3) {
        fail(fmt::format("expected 'src,dst,bytes' (three fields), found '{}'", printable_excerpt(line)));
      }
      const std::uint32_t src = task_id(trim(fields[0]), "src", false);
      const std::uint32_t dst = task_id(trim(fields[1]), "dst", false);
      const std::uint64_t bytes = integer_bytes(trim(fields[2]));
      max_id = std::max<std::uint64_t>(max_id, std::max(src, dst));
      any = true;
      add(src, dst, bytes);
    }
    if (!any) {
      throw InputError(
          fmt::format("{}: no 'src,dst,bytes' lines: nothing to map (the file has only a header, "
                      "comments or blank lines)",
                      path_));
    }
    return make_task_graph(static_cast<std::uint32_t>(max_id + 1), std::move(messages_), "matrix:" + path_,
                           path_);
  }

  TaskGraph matrix_market() {
    std::string_view line;
    lines_.next(line);
    const auto banner = split_blanks(without_utf8_bom(line));
    if (banner.size() != 5 || !iequals(banner[1], "matrix") || !iequals(banner[2], "coordinate")) {
      fail(fmt::format(
          "expected '%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric', found "
          "'{}' (dense 'array' matrices are not read: write the matrix in coordinate form)",
          printable_excerpt(line, 120)));
    }
    const bool pattern = iequals(banner[3], "pattern");
    const bool real = iequals(banner[3], "real");
    if (!pattern && !real && !iequals(banner[3], "integer")) {
      fail(fmt::format("field '{}' is not supported: use real, integer or pattern",
                       printable_excerpt(banner[3])));
    }
    const bool symmetric = iequals(banner[4], "symmetric");
    if (!symmetric && !iequals(banner[4], "general")) {
      fail(fmt::format("symmetry '{}' is not supported: use general or symmetric",
                       printable_excerpt(banner[4])));
    }
    // The size line follows the comments.
    std::vector<std::string_view> fields;
    bool have_size = false;
    while (lines_.next(line)) {
      if (line.starts_with('%')) {
        continue;
      }
      fields = split_blanks(line);
      if (!fields.empty()) {
        have_size = true;
        break;
      }
    }
    if (!have_size) {
      fail("no size line 'ROWS COLUMNS ENTRIES' after the banner and comments");
    }
    if (fields.size() != 3) {
      fail(fmt::format("expected the size line 'ROWS COLUMNS ENTRIES', found '{}'", printable_excerpt(line)));
    }
    const auto rows = parse_u64(fields[0]);
    const auto columns = parse_u64(fields[1]);
    const auto entries = parse_u64(fields[2]);
    if (!rows || !columns || !entries) {
      fail(fmt::format("the size line '{}' must be three non-negative integers", printable_excerpt(line)));
    }
    if (*rows != *columns) {
      fail(fmt::format("the matrix is {} x {}; a task graph's matrix is square (one row and column per task)",
                       *rows, *columns));
    }
    if (*rows == 0 || *rows > kMaxTasks) {
      fail(fmt::format("the matrix has {} rows; a task graph has 1 to {} tasks", *rows, kMaxTasks));
    }
    if (*entries > kMaxMessages) {
      fail(fmt::format("{} entries; a task graph has at most {} messages", *entries, kMaxMessages));
    }
    const auto tasks = static_cast<std::uint32_t>(*rows);
    const std::size_t values = pattern ? 2 : 3;
    std::uint64_t seen = 0;
    while (lines_.next(line)) {
      fields = split_blanks(line);
      if (fields.empty() || line.starts_with('%')) {
        continue;
      }
      if (seen == *entries) {
        fail(fmt::format("more entries than the {} the size line announces", *entries));
      }
      ++seen;
      if (fields.size() != values) {
        fail(fmt::format("expected '{}', found '{}'", pattern ? "ROW COLUMN" : "ROW COLUMN VALUE",
                         printable_excerpt(line)));
      }
      const std::uint32_t src = task_id(fields[0], "row", true);
      const std::uint32_t dst = task_id(fields[1], "column", true);
      if (src >= tasks || dst >= tasks) {
        fail(fmt::format("entry ({}, {}) is outside the {} x {} matrix", fields[0], fields[1], tasks, tasks));
      }
      const std::uint64_t bytes = pattern ? 1 : real ? real_bytes(fields[2]) : integer_bytes(fields[2]);
      add(src, dst, bytes);
      if (symmetric) {
        add(dst, src, bytes);
      }
    }
    if (seen != *entries) {
      throw InputError(
          fmt::format("{}: {} entries, but the size line announces {}; the file may be truncated", path_,
                      seen, *entries));
    }
    return make_task_graph(tasks, std::move(messages_), "matrix:" + path_, path_);
  }

 private:
  std::string path_;
  Lines lines_;
  std::vector<Message> messages_;
};

}  // namespace

std::uint64_t TaskGraph::total_bytes() const noexcept {
  std::uint64_t total = 0;
  for (const Message& m : messages) {
    // Saturates: make_task_graph refuses graphs whose total overflows, but a graph built by hand may not.
    total = m.bytes > std::numeric_limits<std::uint64_t>::max() - total
                ? std::numeric_limits<std::uint64_t>::max()
                : total + m.bytes;
  }
  return total;
}

Json summary_json(const TaskGraph& graph) {
  Json out;
  out["spec"] = graph.spec;
  out["tasks"] = graph.num_tasks;
  out["messages"] = graph.messages.size();
  out["total_bytes"] = graph.total_bytes();
  out["has_coords"] = !graph.coords.empty();
  return out;
}

TaskGraph make_task_graph(std::uint32_t num_tasks, std::vector<Message> messages, std::string spec,
                          std::string_view where) {
  check_task_count(num_tasks, where);
  for (const Message& m : messages) {
    if (m.src >= num_tasks || m.dst >= num_tasks) {
      throw InputError(
          fmt::format("{}: a message from task {} to task {}, but the graph has tasks 0 to {} only", where,
                      m.src, m.dst, num_tasks - 1));
    }
    if (m.src == m.dst) {
      throw InputError(
          fmt::format("{}: a message from task {} to itself; leave it out (it does not cross the "
                      "network)",
                      where, m.src));
    }
  }
  const auto by_pair = [](const Message& a, const Message& b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  };
  if (!std::is_sorted(messages.begin(), messages.end(), by_pair)) {
    std::sort(messages.begin(), messages.end(), by_pair);
  }
  // Merge repeated pairs in place, dropping zero-byte messages.
  std::size_t out = 0;
  for (std::size_t i = 0; i < messages.size();) {
    Message merged = messages[i];
    std::size_t j = i + 1;
    for (; j < messages.size() && messages[j].src == merged.src && messages[j].dst == merged.dst; ++j) {
      if (messages[j].bytes > std::numeric_limits<std::uint64_t>::max() - merged.bytes) {
        throw InputError(fmt::format("{}: the bytes from task {} to task {} add up to 2^64 or more", where,
                                     merged.src, merged.dst));
      }
      merged.bytes += messages[j].bytes;
    }
    i = j;
    if (merged.bytes == 0) {
      continue;
    }
    messages[out++] = merged;
  }
  messages.resize(out);
  if (messages.size() > kMaxMessages) {
    throw InputError(fmt::format("{}: {} messages, more than the {} a task graph may have", where,
                                 messages.size(), kMaxMessages));
  }
  messages.shrink_to_fit();
  TaskGraph graph;
  graph.num_tasks = num_tasks;
  graph.messages = std::move(messages);
  graph.spec = std::move(spec);
  finish(graph);
  return graph;
}

TaskGraph stencil3d(std::array<std::uint32_t, 3> dims, std::uint64_t bytes, bool periodic) {
  return stencil(dims, 3, bytes, periodic);
}

TaskGraph stencil2d(std::array<std::uint32_t, 2> dims, std::uint64_t bytes, bool periodic) {
  return stencil({dims[0], dims[1], 1}, 2, bytes, periodic);
}

TaskGraph alltoall(std::uint32_t num_tasks, std::uint64_t bytes) {
  if (num_tasks == 0 || num_tasks > kMaxAlltoallTasks) {
    const std::uint64_t n = num_tasks;
    throw InputError(
        fmt::format("alltoall with {} tasks: an all-to-all has 1 to {} tasks ({} would be {} messages, more "
                    "than the {} a task "
                    "graph may have)",
                    num_tasks, kMaxAlltoallTasks, num_tasks, n * (n == 0 ? 0 : n - 1), kMaxMessages));
  }
  if (bytes == 0) {
    throw InputError(
        fmt::format("alltoall:{}: the message size is 0 bytes; give bytes=B with B >= 1", num_tasks));
  }
  TaskGraph graph;
  graph.num_tasks = num_tasks;
  graph.spec = fmt::format("alltoall:{},bytes={}", num_tasks, bytes);
  graph.messages.reserve(static_cast<std::uint64_t>(num_tasks) * (num_tasks - 1));
  for (std::uint32_t src = 0; src < num_tasks; ++src) {
    for (std::uint32_t dst = 0; dst < num_tasks; ++dst) {
      if (dst != src) {
        graph.messages.push_back(Message{src, dst, bytes});
      }
    }
  }
  finish(graph);
  return graph;
}

TaskGraph read_matrix_file(const fs::path& path) {
  const InputFile file(path, "task graph matrix", "check the path", kMaxMatrixFileBytes);
  const std::string_view text = without_utf8_bom(file.bytes());
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    throw InputError(
        fmt::format("task graph matrix '{}' is empty: give CSV lines 'src,dst,bytes' or a Matrix "
                    "Market coordinate file",
                    path.string()));
  }
  FileParser parser(path, text);
  return text.starts_with("%%MatrixMarket") ? parser.matrix_market() : parser.csv();
}

TaskGraph read_schedule_graph(const fs::path& path) {
  // sim::load_schedule, with the rank count bounded by kMaxTasks before anything is allocated (a
  // 20-byte file saying `num_ranks 4000000000` would otherwise ask for gigabytes of rank tables)
  // and without the source locations the simulator keeps for deadlock reports.
  const InputFile file(path, "schedule", "check the path", kNoInputLimit);
  const std::string_view bytes = file.bytes();
  const std::string name = path.string();
  const sim::Schedule schedule = bytes.starts_with(sim::kBinaryMagic)
                                     ? sim::read_binary(bytes, name, kMaxTasks)
                                     : sim::parse_goal(bytes, name, /*keep_sources=*/false, kMaxTasks);
  std::vector<Message> messages;
  std::vector<Message> rank_sends;
  bool any_send = false;
  for (std::uint32_t rank = 0; rank < schedule.num_ranks(); ++rank) {
    const sim::Program& program = schedule.program_of(rank);
    rank_sends.clear();
    for (std::uint32_t op = 0; op < program.ops.size(); ++op) {
      if (program.ops[op].type != sim::OpType::kSend) {
        continue;
      }
      any_send = true;
      const std::uint32_t peer = schedule.peer(rank, op);
      // A send to itself does not cross the network.
      if (peer != rank && program.ops[op].size > 0) {
        rank_sends.push_back(Message{rank, peer, program.ops[op].size});
      }
    }
    // Merged per rank, so memory follows the distinct pairs rather than the number of sends.
    std::sort(rank_sends.begin(), rank_sends.end(),
              [](const Message& a, const Message& b) { return a.dst < b.dst; });
    for (std::size_t i = 0; i < rank_sends.size();) {
      Message merged = rank_sends[i];
      std::size_t j = i + 1;
      for (; j < rank_sends.size() && rank_sends[j].dst == merged.dst; ++j) {
        if (rank_sends[j].bytes > std::numeric_limits<std::uint64_t>::max() - merged.bytes) {
          throw InputError(fmt::format("{}: the sends from rank {} to rank {} add up to 2^64 bytes or more",
                                       name, rank, merged.dst));
        }
        merged.bytes += rank_sends[j].bytes;
      }
      i = j;
      if (messages.size() >= kMaxMessages) {
        throw InputError(fmt::format(
            "{}: more than {} communicating rank pairs, the most a task graph may have", name, kMaxMessages));
      }
      messages.push_back(merged);
    }
  }
  if (!any_send) {
    throw InputError(
        fmt::format("schedule '{}' has no sends: nothing to map (a task graph is made of the bytes "
                    "each rank sends to the others)",
                    name));
  }
  return make_task_graph(schedule.num_ranks(), std::move(messages), "goal:" + name, name);
}

TaskGraph parse_task_graph(std::string_view spec) {
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) {
    spec_error(spec, "no ':' after the kind");
  }
  const std::string_view kind = spec.substr(0, colon);
  const std::string_view rest = spec.substr(colon + 1);
  if (kind == "matrix" || kind == "goal") {
    if (rest.empty()) {
      spec_error(spec, fmt::format("'{}:' needs a file name", kind));
    }
    return kind == "matrix" ? read_matrix_file(fs::path(rest)) : read_schedule_graph(fs::path(rest));
  }
  const auto items = split(rest, ',');
  const std::span<const std::string_view> options(items.data() + 1, items.size() - 1);
  if (kind == "stencil3d") {
    const auto dims = parse_shape<3>(items[0], spec);
    const Options o = parse_options(options, true, spec);
    return stencil3d(dims, o.bytes, o.periodic);
  }
  if (kind == "stencil2d") {
    const auto dims = parse_shape<2>(items[0], spec);
    const Options o = parse_options(options, true, spec);
    return stencil2d(dims, o.bytes, o.periodic);
  }
  if (kind == "alltoall") {
    const auto n = parse_u64(items[0]);
    if (!n || *n == 0) {
      spec_error(spec,
                 fmt::format("the task count '{}' is not a positive integer", printable_excerpt(items[0])));
    }
    if (*n > kMaxAlltoallTasks) {
      spec_error(spec,
                 fmt::format("{} tasks: an all-to-all has at most {} tasks ({} x {} messages would exceed "
                             "the {} a task graph may have)",
                             *n, kMaxAlltoallTasks, *n, *n - 1, kMaxMessages));
    }
    const Options o = parse_options(options, false, spec);
    return alltoall(static_cast<std::uint32_t>(*n), o.bytes);
  }
  spec_error(spec, fmt::format("unknown kind '{}'", printable_excerpt(kind)));
}

std::vector<fs::path> task_graph_inputs(std::string_view spec) {
  for (const std::string_view prefix : {std::string_view("matrix:"), std::string_view("goal:")}) {
    if (spec.starts_with(prefix) && spec.size() > prefix.size()) {
      return {fs::path(spec.substr(prefix.size()))};
    }
  }
  return {};
}

}  // namespace gridlock::mapping
