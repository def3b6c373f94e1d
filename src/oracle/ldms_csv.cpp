#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "detail/capacity.hpp"
#include "detail/text.hpp"
#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"
#include "gridlock/core/text.hpp"
#include "gridlock/oracle/sources.hpp"

namespace gridlock::oracle {
namespace {

enum class Quantity : std::uint8_t {
  kNone,
  kUsedBwPct,       // incoming bytes, percent of capacity
  kBwBytesPerS,     // incoming bytes, rate
  kTrafficBytes,    // incoming bytes, raw counter
  kCreditStallPct,  // outgoing stall, percent
  kCreditStallNs,   // outgoing stall, raw counter (ns)
  kIbXmitData,      // injection bytes, counter of 4-byte units
  kIbRcvData,       // ejection bytes, counter of 4-byte units
  kIbXmitWait,      // injection stall, counter of ticks
};

struct Column {
  Quantity quantity = Quantity::kNone;
  std::string port;  // router port for Gemini columns
  double scale = 1;
  int priority = 0;  // lower wins within a group
  std::string name;
};

bool is_bytes(Quantity q) {
  return q == Quantity::kUsedBwPct || q == Quantity::kBwBytesPerS || q == Quantity::kTrafficBytes ||
         q == Quantity::kIbXmitData || q == Quantity::kIbRcvData;
}

Column classify(std::string_view raw) {
  Column c;
  c.name = std::string(raw);
  std::string_view name = detail::trim(raw);
  std::string_view unit;
  if (const auto open = name.rfind(" ("); open != std::string_view::npos && name.back() == ')') {
    unit = name.substr(open + 2, name.size() - open - 3);
    name = name.substr(0, open);
  }
  if (unit == "% x1e6") {
    c.scale = 1e-6;
  }
  if (name.substr(0, 3) == "ib.") {
    const auto hash = name.find('#');
    const auto counter = name.substr(3, hash == std::string_view::npos ? std::string_view::npos : hash - 3);
    if (counter == "port_xmit_data") {
      c.quantity = Quantity::kIbXmitData;
    } else if (counter == "port_rcv_data") {
      c.quantity = Quantity::kIbRcvData;
    } else if (counter == "port_xmit_wait") {
      c.quantity = Quantity::kIbXmitWait;
    }
    c.priority = 2;
    return c;
  }
  const auto underscore = name.find('_');
  if (underscore == std::string_view::npos || underscore == 0) {
    return c;
  }
  c.port = std::string(name.substr(0, underscore));
  const auto rest = name.substr(underscore + 1);
  if (rest == "SAMPLE_GEMINI_LINK_USED_BW") {
    c.quantity = Quantity::kUsedBwPct;
  } else if (rest == "SAMPLE_GEMINI_LINK_BW") {
    c.quantity = Quantity::kBwBytesPerS;
    c.priority = 1;
  } else if (rest == "traffic") {
    c.quantity = Quantity::kTrafficBytes;
    c.priority = 2;
  } else if (rest == "SAMPLE_GEMINI_LINK_CREDIT_STALL") {
    c.quantity = Quantity::kCreditStallPct;
  } else if (rest == "credit_stall") {
    c.quantity = Quantity::kCreditStallNs;
    c.priority = 1;
  }
  return c;
}

// Splits one CSV line into fields. A field that starts with '"' is IETF RFC 4180 quoted (store_csv
// `ietfcsv=1`): the quotes are removed, '""' stands for one '"', and commas inside stay. Returns
// false for an unterminated quote. `storage` keeps the unquoted text the views point into.
bool split_csv(std::string_view line, std::vector<std::string_view>& fields,
               std::vector<std::string>& storage) {
  fields.clear();
  if (line.find('"') == std::string_view::npos) {
    fields = split(line, ',');
    return true;
  }
  storage.clear();
  std::size_t i = 0;
  for (;;) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      ++i;
    }
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field.push_back(line[i++]);
      }
      if (!closed) {
        return false;
      }
      const auto comma = line.find(',', i);
      if (!detail::trim(line.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i))
               .empty()) {
        return false;  // text after the closing quote
      }
      i = comma;
    } else {
      const auto comma = line.find(',', i);
      field =
          std::string(line.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i));
      i = comma;
    }
    storage.push_back(std::move(field));
    if (i == std::string_view::npos) {
      break;
    }
    ++i;
  }
  // Views are taken once the vector no longer grows (short strings live inside it).
  fields.reserve(storage.size());
  for (const auto& f : storage) {
    fields.emplace_back(f);
  }
  return true;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// store_csv writes, next to a data file NAME (or NAME.EPOCH when it rolls over), companion files
// NAME.TYPE (or NAME.TYPE.EPOCH) for TYPE = HEADER (altheader=1), KIND (typeheader), UNITS, CNAMES
// and PYNAMES. They are not data.
bool is_companion_file(std::string_view name) {
  for (const std::string_view type : {".HEADER", ".KIND", ".UNITS", ".CNAMES", ".PYNAMES"}) {
    for (auto pos = name.find(type); pos != std::string_view::npos; pos = name.find(type, pos + 1)) {
      const auto rest = name.substr(pos + type.size());
      if (pos > 0 && (rest.empty() || (rest[0] == '.' && all_digits(rest.substr(1))))) {
        return true;
      }
    }
  }
  return false;
}

// Where the header of data file `path` may be, most specific first: NAME.HEADER.EPOCH for a
// rolled-over NAME.EPOCH, then PATH.HEADER (altheader without roll-over).
std::vector<std::filesystem::path> header_files(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> out;
  const std::string name = path.filename().string();
  if (const auto dot = name.rfind('.');
      dot != std::string::npos && dot > 0 && all_digits(name.substr(dot + 1))) {
    out.push_back(path.parent_path() / (name.substr(0, dot) + ".HEADER" + name.substr(dot)));
  }
  out.push_back(path.string() + ".HEADER");
  return out;
}

struct FileState {
  std::uintmax_t offset = 0;
  int line_no = 0;
  bool has_header = false;
  std::vector<Column> columns;
  std::size_t time_col = 0;
  std::size_t producer_col = 0;
  bool time_msec = false;  // `#Time_msec` (store_csv time_format=1): milliseconds, plus Time_usec
  std::optional<std::size_t> usec_col;
  bool reported_wait = false;  // a header file that is still empty was reported
};

}  // namespace

// A header file (store_csv altheader) holds one line; LDMS sets of thousands of columns stay far below.
constexpr std::uintmax_t kMaxHeaderFileBytes = std::uintmax_t{16} << 20U;

struct LdmsCsvSource::Impl {
  const topo::Topology& topology;
  std::vector<std::filesystem::path> inputs;
  LdmsCsvOptions options;
  std::map<std::string, FileState> files;
  std::map<std::string, double> producer_time;                             // last row time per producer
  std::map<std::pair<std::string, std::string>, CounterTracker> counters;  // (producer, column)
  std::uint64_t rows = 0;
  std::uint64_t malformed_rows = 0;
  std::uint64_t malformed_values = 0;
  std::uint64_t unmapped_values = 0;
  std::uint64_t truncations = 0;
  std::uint64_t unreadable_files = 0;  // reads refused or failed (a FIFO, a device, no permission)
  std::uint64_t counter_wraps = 0;
  std::uint64_t counter_resets = 0;
  std::uint64_t clamped_values = 0;
  std::set<std::string> unknown_producers;
  std::set<std::string> ignored_columns;
  std::deque<std::string> problems;
  std::vector<std::string_view> row_fields;  // reused by every row
  std::vector<std::string> storage;          // unquoted fields of the current line

  Impl(const topo::Topology& t, std::vector<std::filesystem::path> in, LdmsCsvOptions o)
      : topology(t), inputs(std::move(in)), options(o) {}

  void problem(std::string message) { detail::note_problem(problems, std::move(message)); }

  void parse_header(FileState& state, std::string_view line, const std::string& where) {
    state.columns.clear();
    state.has_header = false;
    state.time_msec = false;
    state.usec_col.reset();
    std::vector<std::string_view> names;
    if (!split_csv(line.substr(1), names, storage)) {
      problem(fmt::format("{}: header has an unterminated '\"'; rows ignored until a valid header", where));
      return;
    }
    bool has_time = false;
    bool has_producer = false;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto name = detail::trim(names[i]);
      if (name == "Time" || name == "Time_msec") {
        state.time_col = i;
        state.time_msec = name == "Time_msec";
        has_time = true;
      } else if (name == "Time_usec") {
        state.usec_col = i;
      } else if (name == "ProducerName") {
        state.producer_col = i;
        has_producer = true;
      }
      state.columns.push_back(classify(name));
    }
    if (!has_time || !has_producer) {
      problem(fmt::format(
          "{}: header lacks the '#Time' (or '#Time_msec') or 'ProducerName' column; rows ignored until a "
          "valid header",
          where));
      return;
    }
    // Keep the best column per (group, port); report the others.
    std::map<std::pair<int, std::string>, int> best;
    for (const auto& c : state.columns) {
      if (c.quantity == Quantity::kNone) {
        continue;
      }
      const auto key = std::pair{is_bytes(c.quantity) ? 0 : 1, c.port + (c.port.empty() ? c.name : "")};
      const auto it = best.find(key);
      best[key] = it == best.end() ? c.priority : std::min(it->second, c.priority);
    }
    for (std::size_t i = 0; i < state.columns.size(); ++i) {
      auto& c = state.columns[i];
      if (i == state.time_col || i == state.producer_col) {
        c.quantity = Quantity::kNone;
        continue;
      }
      if (c.quantity == Quantity::kNone) {
        const auto name = detail::trim(c.name);
        if (name != "Time_usec" && name != "component_id" && name != "job_id" && name != "app_id" &&
            name != "DT" && name != "DT_usec") {
          ignored_columns.insert(c.name);
        }
        continue;
      }
      const auto key = std::pair{is_bytes(c.quantity) ? 0 : 1, c.port + (c.port.empty() ? c.name : "")};
      if (best[key] < c.priority) {
        ignored_columns.insert(c.name + " (superseded)");
        c.quantity = Quantity::kNone;
      }
    }
    state.has_header = true;
  }

  // What to store of `amount` carried or stalled (`stall`) in `interval_s` on a link of
  // `capacity`, or nothing: bytes over the capacity and stalls longer than the interval are
  // clamped or rejected and reported (detail/capacity.hpp). A rejected counter increase is counted
  // as a reset, a rejected percentage or rate as a malformed value; `hint` says what to check.
  std::optional<double> checked(double amount, double interval_s, double capacity, bool stall,
                                const std::string& where, const std::string& column,
                                const std::string& producer, bool counter, std::string_view hint) {
    const auto check = stall ? detail::check_stall(amount, interval_s)
                             : detail::check_capacity(amount, interval_s, capacity);
    if (check.verdict == detail::Verdict::kOk) {
      return amount;
    }
    const std::string figure = stall ? std::string("of the interval stalled")
                                     : fmt::format("of the link's capacity ({:.4g} B/s)", capacity);
    if (check.verdict == detail::Verdict::kClamped) {
      ++clamped_values;
      problem(fmt::format("{}: '{}' of {} is {:.4g}% {}; stored as 100%", where, column, producer,
                          check.percent, figure));
      return check.amount;
    }
    if (counter) {
      ++counter_resets;
      problem(
          fmt::format("{}: counter '{}' of {} rose by {:.4g} {} in {:.4g} s, {:.4g}% of the {}: taken as a "
                      "reset; interval skipped{}",
                      where, column, producer, amount, stall ? "s of stall" : "bytes", interval_s,
                      check.percent, stall ? "interval" : "link's capacity", hint));
    } else {
      ++malformed_values;
      problem(fmt::format("{}: '{}' of {} is {:.4g}% {}, more than {:g} times it: value skipped{}", where,
                          column, producer, check.percent, figure, detail::kMaxOvershoot, hint));
    }
    return std::nullopt;
  }

  // The row's time in seconds (time_format=1 files: Time_msec plus Time_usec), or nullopt after
  // counting the row malformed and saying why.
  std::optional<double> row_time(const FileState& state, const std::vector<std::string_view>& fields,
                                 const std::string& where) {
    auto time = detail::to_double(fields[state.time_col]);
    if (!time) {
      ++malformed_rows;
      problem(fmt::format("{}: time '{}' is not a number", where, printable_excerpt(fields[state.time_col])));
      return std::nullopt;
    }
    if (state.time_msec) {
      // time_format=1: Time_msec is milliseconds since the epoch, Time_usec the microseconds beyond.
      const auto usec =
          state.usec_col ? detail::to_double(fields[*state.usec_col]) : std::optional<double>(0.0);
      if (!usec) {
        ++malformed_rows;
        problem(fmt::format("{}: Time_usec '{}' is not a number", where,
                            printable_excerpt(fields[*state.usec_col])));
        return std::nullopt;
      }
      *time = *time * 1e-3 + *usec * 1e-6;
    }
    return time;
  }

  // The link a column of a router's (or a node's HCA's) row describes: traffic and bandwidth count
  // on the link into the port, credit stalls on the link out of it.
  std::optional<topo::LinkId> column_link(const Column& c, topo::RouterId router, topo::NodeId node) const {
    switch (c.quantity) {
      case Quantity::kUsedBwPct:
      case Quantity::kBwBytesPerS:
      case Quantity::kTrafficBytes:
        return topology.link_in(router, c.port);
      case Quantity::kCreditStallPct:
      case Quantity::kCreditStallNs:
        return topology.link_out(router, c.port);
      case Quantity::kIbXmitData:
      case Quantity::kIbXmitWait:
        return topology.injection_link(node);
      case Quantity::kIbRcvData:
        return topology.ejection_link(node);
      case Quantity::kNone:
        break;
    }
    return std::nullopt;
  }

  // A counter column's value: the delta since the producer's last row (wraps and resets tracked),
  // added as bytes or stall seconds over the counter's own interval.
  void add_counter_value(const Column& c, std::string_view field, double value, double time,
                         topo::LinkId link, const std::string& producer, const std::string& where,
                         MetricStore& store) {
    const auto raw = detail::to_u64(field);
    auto& tracker = counters.try_emplace({producer, c.name}, options.counter_bits).first->second;
    const auto delta = tracker.update(time, raw ? *raw : static_cast<std::uint64_t>(value));
    store.note_counter_event(delta.event);
    if (delta.event == CounterTracker::Event::kWrap) {
      ++counter_wraps;
    } else if (delta.event == CounterTracker::Event::kReset) {
      ++counter_resets;
      problem(
          fmt::format("{}: counter '{}' of {} went back (reset); interval skipped", where, c.name, producer));
    }
    if (delta.event != CounterTracker::Event::kDelta && delta.event != CounterTracker::Event::kWrap) {
      return;
    }
    const double d = delta.delta * c.scale;
    if (c.quantity == Quantity::kTrafficBytes || c.quantity == Quantity::kIbXmitData ||
        c.quantity == Quantity::kIbRcvData) {
      const double bytes = c.quantity == Quantity::kTrafficBytes ? d : d * 4;
      if (const auto kept = checked(bytes, delta.interval_s, store.capacity(link), false, where, c.name,
                                    producer, true, "")) {
        store.add_bytes(link, time, delta.interval_s, *kept);
      } else {
        store.note_counter_event(CounterTracker::Event::kReset);
      }
      return;
    }
    const bool xmit_wait = c.quantity == Quantity::kIbXmitWait;
    const double seconds = xmit_wait ? options.ib_xmit_wait.seconds(d, store.capacity(link)) : d * 1e-9;
    if (std::isnan(seconds)) {
      problem(fmt::format("{}: '{}' of {} counts {} per increment, but the link's capacity is unknown", where,
                          c.name, producer, options.ib_xmit_wait.to_string()));
    } else if (const auto kept = checked(seconds, delta.interval_s, 0, true, where, c.name, producer, true,
                                         xmit_wait ? fmt::format(" (is --ib-xmit-wait-unit {} right?)",
                                                                 options.ib_xmit_wait.to_string())
                                                   : std::string())) {
      store.add_stall(link, time, delta.interval_s, *kept);
    } else {
      store.note_counter_event(CounterTracker::Event::kReset);
    }
  }

  // One column's value of a row: a rate or percentage over the producer's sampling interval, or a
  // counter (add_counter_value()).
  void add_value(const Column& c, std::string_view field, double value, double time, double interval,
                 topo::LinkId link, const std::string& producer, const std::string& where,
                 MetricStore& store) {
    const double v = value * c.scale;
    switch (c.quantity) {
      case Quantity::kUsedBwPct:
      case Quantity::kBwBytesPerS: {
        const double capacity = store.capacity(link);
        const double bytes =
            c.quantity == Quantity::kUsedBwPct ? v / 100 * capacity * interval : v * interval;
        if (const auto kept = checked(bytes, interval, capacity, false, where, c.name, producer, false,
                                      " (is the topology's link capacity right?)")) {
          store.add_bytes(link, time, interval, *kept);
        }
        break;
      }
      case Quantity::kCreditStallPct:
        if (const auto kept = checked(v / 100 * interval, interval, 0, true, where, c.name, producer, false,
                                      " (is the column's unit right? '(% x1e6)' is percent times 1e6)")) {
          store.add_stall(link, time, interval, *kept);
        }
        break;
      default:
        add_counter_value(c, field, value, time, link, producer, where, store);
        break;
    }
  }

  void process_row(FileState& state, std::string_view line, const std::string& where, MetricStore& store) {
    auto& fields = row_fields;
    if (!split_csv(line, fields, storage)) {
      ++malformed_rows;
      problem(fmt::format("{}: unterminated '\"' in the row", where));
      return;
    }
    if (fields.size() != state.columns.size()) {
      ++malformed_rows;
      problem(fmt::format("{}: {} fields, the header has {}", where, fields.size(), state.columns.size()));
      return;
    }
    const auto time = row_time(state, fields, where);
    if (!time) {
      return;
    }
    const std::string producer(detail::trim(fields[state.producer_col]));
    const auto node = topology.find_node(producer);
    if (!node) {
      ++malformed_rows;
      if (unknown_producers.size() < 100 && unknown_producers.insert(producer).second) {
        problem(fmt::format("{}: producer '{}' is not a node of the topology", where,
                            printable_excerpt(producer)));
      }
      return;
    }
    ++rows;
    const topo::RouterId router = topology.nodes()[*node].router;
    double interval = options.default_interval_s;
    if (const auto it = producer_time.find(producer); it != producer_time.end() && *time > it->second) {
      interval = *time - it->second;
    }
    producer_time[producer] = *time;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const auto& c = state.columns[i];
      if (c.quantity == Quantity::kNone) {
        continue;
      }
      const auto value = detail::to_double(fields[i]);
      if (!value || *value < 0) {
        ++malformed_values;
        problem(fmt::format("{}: column '{}' value '{}' is not a non-negative number", where, c.name,
                            printable_excerpt(fields[i])));
        continue;
      }
      const std::optional<topo::LinkId> link = column_link(c, router, *node);
      if (!link) {
        ++unmapped_values;
        continue;
      }
      add_value(c, fields[i], *value, *time, interval, *link, producer, where, store);
    }
  }

  // Reads the header of `path` from its header file (store_csv altheader=1), if there is one.
  // Returns false when a header file exists but holds no complete header line yet.
  bool read_header_file(const std::filesystem::path& path, FileState& state) {
    for (const auto& file : header_files(path)) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(file, ec)) {
        continue;
      }
      std::string text;
      try {
        text =
            read_input_file(file, "LDMS header file", "check the store_csv directory", kMaxHeaderFileBytes);
      } catch (const Error& e) {
        ++unreadable_files;
        problem(fmt::format("{}: {}; its data waits", path.string(), e.what()));
        return false;
      }
      const auto newline = text.find('\n');
      std::string_view line(text.data(), newline == std::string::npos ? 0 : newline);
      if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
      }
      if (line.empty() || line[0] != '#') {
        if (!state.reported_wait) {
          state.reported_wait = true;
          problem(fmt::format("{}: header file {} has no complete '#Time,...' line yet; its data waits",
                              path.string(), file.string()));
        }
        return false;
      }
      parse_header(state, line, file.string() + ":1");
      return true;
    }
    return true;
  }

  void read_file(const std::filesystem::path& path, MetricStore& store) {
    const std::string key = path.string();
    auto& state = files[key];
    // Through the checked input reader: a FIFO would block the poll thread in open() forever and a
    // device (/dev/zero) never ends. Data files have no size limit: they are read in chunks.
    try {
      if (check_regular_input(path, "LDMS CSV file", kNoInputLimit, "check the --source ldms: path")) {
        throw IoError(
            fmt::format("cannot read LDMS CSV file '{}': it is a pipe; the source reads files that "
                        "store_csv appends to",
                        key));
      }
    } catch (const Error& e) {
      ++unreadable_files;
      problem(e.what());
      return;
    }
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) {
      problem(fmt::format("{}: cannot read size: {}", key, ec.message()));
      return;
    }
    if (size < state.offset) {
      ++truncations;
      problem(fmt::format("{}: file shrank from {} to {} bytes; reading it again from the start", key,
                          state.offset, size));
      state = FileState{};
    }
    if (size == state.offset) {
      return;
    }
    if (!state.has_header && state.offset == 0 && !read_header_file(path, state)) {
      return;  // the header file is still being written: read the data once it is complete
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      problem(fmt::format("{}: cannot open", key));
      return;
    }
    in.seekg(static_cast<std::streamoff>(state.offset));
    // At most kMaxChunk bytes per file and poll, so a huge backlog is read over several polls.
    constexpr std::uintmax_t kMaxChunk = std::uintmax_t{64} << 20U;
    std::string text(static_cast<std::size_t>(std::min(size - state.offset, kMaxChunk)), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    const auto last_newline = text.rfind('\n');
    if (last_newline == std::string::npos) {
      if (text.size() == kMaxChunk) {
        ++malformed_rows;
        problem(fmt::format("{}: a line longer than {} bytes was skipped", key, kMaxChunk));
        state.offset += text.size();
      }
      return;  // a partial line: wait for the rest
    }
    std::string_view complete(text.data(), last_newline + 1);
    state.offset += complete.size();
    std::size_t start = 0;
    while (start < complete.size()) {
      const auto end = complete.find('\n', start);
      std::string_view line = complete.substr(start, end - start);
      start = end + 1;
      ++state.line_no;
      if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
      }
      if (detail::trim(line).empty()) {
        continue;
      }
      const auto where = fmt::format("{}:{}", key, state.line_no);
      if (line[0] == '#') {
        parse_header(state, line, where);
        continue;
      }
      if (!state.has_header) {
        ++malformed_rows;
        problem(fmt::format("{}: data row before a '#Time,...' header line", where));
        continue;
      }
      process_row(state, line, where, store);
    }
  }
};

LdmsCsvSource::LdmsCsvSource(const topo::Topology& topology, std::vector<std::filesystem::path> inputs,
                             LdmsCsvOptions options)
    : impl_(std::make_unique<Impl>(topology, std::move(inputs), options)) {}

LdmsCsvSource::~LdmsCsvSource() = default;

void LdmsCsvSource::poll(MetricStore& store, double /*now_s*/) {
  for (const auto& input : impl_->inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec)) {
      std::vector<std::filesystem::path> paths;
      for (const auto& entry : std::filesystem::directory_iterator(input, ec)) {
        const auto name = entry.path().filename().string();
        if (entry.is_regular_file(ec) && !name.empty() && name[0] != '.' && !is_companion_file(name)) {
          paths.push_back(entry.path());
        }
      }
      std::sort(paths.begin(), paths.end());
      for (const auto& path : paths) {
        impl_->read_file(path, store);
      }
    } else if (std::filesystem::exists(input, ec)) {
      // A FIFO or a device is refused by read_file with its kind named (it was "not found (yet)").
      impl_->read_file(input, store);
    } else {
      impl_->problem(fmt::format("{}: not found (yet)", input.string()));
    }
  }
}

SourceStatus LdmsCsvSource::status() const {
  std::vector<std::string> inputs;
  for (const auto& input : impl_->inputs) {
    inputs.push_back(input.string());
  }
  const auto texts = [](const auto& container) {
    return std::vector<std::string>(container.begin(), container.end());
  };
  return {"ldms_csv",
          {{"inputs", std::move(inputs)},
           {"files", std::uint64_t{impl_->files.size()}},
           {"rows", impl_->rows},
           {"malformed_rows", impl_->malformed_rows},
           {"malformed_values", impl_->malformed_values},
           {"unmapped_values", impl_->unmapped_values},
           {"truncations", impl_->truncations},
           {"unreadable_files", impl_->unreadable_files},
           {"counter_wraps", impl_->counter_wraps},
           {"counter_resets", impl_->counter_resets},
           {"clamped_values", impl_->clamped_values},
           {"unknown_producers", texts(impl_->unknown_producers)},
           {"ignored_columns", texts(impl_->ignored_columns)},
           {"recent_problems", texts(impl_->problems)},
           {"xmit_wait_unit", impl_->options.ib_xmit_wait.to_string()}}};
}

}  // namespace gridlock::oracle
