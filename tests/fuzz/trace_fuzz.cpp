// libFuzzer target for `gridlock schedule from-trace`'s converter (gridlock::trace::convert_trace)
// on traces decoded from the fuzz input: definitions (1 .. 8 ranks, MPI_COMM_WORLD, a self
// communicator, sub-communicators with arbitrary member lists, MPI and user regions), per-rank
// event streams and ConvertOptions. Any trace must be refused with InputError or converted; a
// converted trace's schedule must agree with the report and simulate to its end (complete or
// not) or be refused by the simulator with InputError (simulated time overflow). Anything else
// escaping is a bug and crashes the target.
//
// The events are raw (every EventKind with fields from the bytes) or structured: a message
// appended to both its sender and its receiver, a collective appended to every member of its
// communicator. A trace made only of structured events is what a real run records (each rank's
// events in one global order), so its schedule must simulate to completion.
//
// Layout: ranks, sub-communicators, regions, option bytes, then records until the input ends
// (seed corpus: tests/fuzz/trace-corpus).
//
// An input starting with "OTF2" is an archive instead (issue 36): the OTF2 directory reader of
// `gridlock schedule from-trace DIR` and `schedule info DIR`. After the prefix, one byte picks a
// file to replace by a FIFO or a link to /dev/zero (the archive check must refuse it, never block
// or read without end), then the anchor file, the global definitions and the event files of
// locations 0 and 1 follow, each as a 16-bit length and its bytes, written into a temporary
// directory. The archive must be refused with InputError or IoError, or read and converted.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "gridlock/core/error.hpp"
#include "gridlock/sim/engine.hpp"
#include "gridlock/sim/generate.hpp"
#include "gridlock/trace/from_trace.hpp"
#include "gridlock/trace/otf2_reader.hpp"

namespace {

namespace trace = gridlock::trace;
namespace sim = gridlock::sim;

constexpr std::uint32_t kWorld = 0;
constexpr std::uint32_t kSelf = 1;
constexpr std::uint32_t kMaxRanks = 8;
constexpr std::uint32_t kRegions = 4;
// Bounds the work per input (events of all ranks).
constexpr std::size_t kMaxEvents = 2000;
constexpr std::uint8_t kLastKind =
    static_cast<std::uint8_t>(trace::EventKind::kNonblockingCollectiveComplete);
constexpr std::uint8_t kLastOp = static_cast<std::uint8_t>(trace::CollectiveOp::kOther);

class TraceDecoder {
 public:
  TraceDecoder(const std::uint8_t* data, std::size_t size) : in_(data, size) {}

  void decode() {
    info_.num_ranks = in_.ConsumeIntegralInRange<std::uint32_t>(1, kMaxRanks);
    info_.path = "fuzz";
    trace::Communicator world{"MPI_COMM_WORLD", {}, false};
    for (std::uint32_t r = 0; r < info_.num_ranks; ++r) {
      world.members.push_back(r);
    }
    info_.comms[kWorld] = world;
    info_.comms[kSelf] = trace::Communicator{"MPI_COMM_SELF", {}, true};
    const auto subs = in_.ConsumeIntegralInRange<std::uint32_t>(0, 3);
    for (std::uint32_t s = 0; s < subs; ++s) {
      trace::Communicator c{"sub", {}, in_.ConsumeIntegralInRange<int>(0, 15) == 0};
      const auto n = in_.ConsumeIntegralInRange<std::uint32_t>(0, kMaxRanks + 1);
      for (std::uint32_t i = 0; i < n; ++i) {
        // Mostly ranks of the trace, sometimes beyond it (a corrupt definition).
        c.members.push_back(in_.ConsumeIntegralInRange<std::uint32_t>(0, info_.num_ranks + 1));
      }
      info_.comms[2 + s] = std::move(c);
    }
    const auto mpi_regions = in_.ConsumeIntegral<std::uint8_t>();
    for (std::uint32_t r = 0; r < kRegions; ++r) {
      info_.regions[r] = trace::Region{r == 0 ? "main" : "MPI_Call", ((mpi_regions >> r) & 1U) != 0};
    }
    decode_options();
    events_.resize(info_.num_ranks);
    clock_.assign(info_.num_ranks, 0);
    next_request_.assign(info_.num_ranks, 1000);
    while (in_.remaining_bytes() > 0 && total_events() < kMaxEvents) {
      record();
    }
  }

  trace::TraceInfo info_;
  std::vector<std::vector<trace::Event>> events_;
  trace::ConvertOptions options_;
  bool only_structured_ = true;  // every event came from a structured record

 private:
  void decode_options() {
    const auto flags = in_.ConsumeIntegral<std::uint8_t>();
    options_.compute = (flags & 1U) == 0;
    options_.p2p = (flags & 2U) == 0;
    options_.collectives = (flags & 4U) == 0;
    options_.drop_unmatched = (flags & 8U) != 0;
    static constexpr std::array<double, 8> kScales = {
        1.0, 0.5, 1e6, 1e-9, 0.0, -1.0, 2e6, std::numeric_limits<double>::quiet_NaN()};
    options_.compute_scale =
        (flags & 16U) != 0 ? kScales.at(in_.ConsumeIntegralInRange<std::size_t>(0, 7)) : 1.0;
    if ((flags & 32U) != 0) {
      // Ranks as the CLI's parse_rank_list gives them, or raw (unsorted, repeated, out of range).
      const auto mask = in_.ConsumeIntegral<std::uint8_t>();
      for (std::uint32_t r = 0; r < kMaxRanks + 1; ++r) {
        if (((mask >> (r % 8)) & 1U) != 0 && (r < info_.num_ranks || (mask & 0x80U) != 0)) {
          options_.ranks.push_back(r);
        }
      }
      if ((mask & 0x40U) != 0 && !options_.ranks.empty()) {
        std::reverse(options_.ranks.begin(), options_.ranks.end());
        options_.ranks.push_back(options_.ranks.front());
      }
    }
    if ((flags & 64U) != 0) {
      static constexpr std::array<const char*, 9> kKinds = {
          "bcast", "reduce", "allreduce", "allgather", "alltoall", "gather", "scatter", "barrier", "nope"};
      const auto n = in_.ConsumeIntegralInRange<std::uint32_t>(1, 3);
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::string kind = kKinds.at(in_.ConsumeIntegralInRange<std::size_t>(0, kKinds.size() - 1));
        const std::vector<std::string> algos = sim::collective_algorithms(kind);
        const auto pick = in_.ConsumeIntegralInRange<std::size_t>(0, algos.size());
        options_.algorithms[kind] = pick < algos.size() ? algos[pick] : "nope";
      }
    }
    if ((flags & 128U) != 0) {
      parse_options();
    }
  }

  // --ranks-subset and --algo as the CLI parses them, from text at the front of the input.
  void parse_options() {
    const std::string ranks = in_.ConsumeRandomLengthString(24);
    const std::string algos = in_.ConsumeRandomLengthString(48);
    try {
      options_.ranks = trace::parse_rank_list(ranks, info_.num_ranks);
      if (!std::is_sorted(options_.ranks.begin(), options_.ranks.end()) ||
          std::adjacent_find(options_.ranks.begin(), options_.ranks.end()) != options_.ranks.end() ||
          (!options_.ranks.empty() && options_.ranks.back() >= info_.num_ranks)) {
        std::abort();  // not the sorted, distinct ranks of the trace it promises
      }
    } catch (const gridlock::InputError&) {
      // a bad list: refused with a message
    }
    try {
      options_.algorithms = trace::parse_algorithms(algos);
      for (const auto& [kind, algo] : options_.algorithms) {
        const std::vector<std::string> known = sim::collective_algorithms(kind);
        if (std::find(known.begin(), known.end(), algo) == known.end()) {
          std::abort();  // accepted an algorithm the generator does not have
        }
      }
    } catch (const gridlock::InputError&) {
      // a bad --algo: refused with a message
    }
  }

  [[nodiscard]] std::size_t total_events() const {
    std::size_t n = 0;
    for (const auto& e : events_) {
      n += e.size();
    }
    return n;
  }

  std::uint32_t rank() { return in_.ConsumeIntegralInRange<std::uint32_t>(0, info_.num_ranks - 1); }

  // Message and collective sizes: mostly small, sometimes up to 2^64 - 1.
  std::uint64_t bytes() {
    switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
        return in_.ConsumeIntegralInRange<std::uint64_t>(0, 64);
      case 1:
        return in_.ConsumeIntegralInRange<std::uint64_t>(0, std::uint64_t{1} << 24U);
      case 2:
        return std::uint64_t{1} << in_.ConsumeIntegralInRange<unsigned>(0, 63);
      default:
        return in_.ConsumeIntegral<std::uint64_t>();
    }
  }

  // Collective sizes: with --algo bcast=chain a broadcast is one message per 8 KiB segment, so a
  // huge one is a legitimate schedule too large to build in the fuzzer's time (the generator
  // refuses more than 2^30 segments).
  std::uint64_t collective_bytes() {
    const std::uint64_t b = bytes();
    const auto chain = options_.algorithms.find("bcast");
    return chain != options_.algorithms.end() && chain->second == "chain" ? b % (std::uint64_t{1} << 28U) : b;
  }

  std::uint32_t comm() {
    const auto c =
        in_.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(info_.comms.size()));
    return c < info_.comms.size() ? c : trace::kNoComm;
  }

  std::uint64_t tick(std::uint32_t r) {
    return clock_[r] += in_.ConsumeIntegralInRange<std::uint64_t>(0, 1000);
  }

  trace::CollectiveOp op() {
    return static_cast<trace::CollectiveOp>(in_.ConsumeIntegralInRange<std::uint8_t>(0, kLastOp));
  }

  // One call of rank r: Enter of an MPI or user region, the events, Leave.
  void call(std::uint32_t r, std::vector<trace::Event> inner, bool wrap, std::uint32_t region) {
    if (wrap) {
      events_[r].push_back({.time_ns = tick(r), .peer = region, .kind = trace::EventKind::kEnter});
    }
    for (trace::Event& e : inner) {
      e.time_ns = tick(r);
      events_[r].push_back(e);
    }
    if (wrap) {
      events_[r].push_back({.time_ns = tick(r), .peer = region, .kind = trace::EventKind::kLeave});
    }
  }

  void record() {
    switch (in_.ConsumeIntegralInRange<int>(0, 5)) {
      case 0:
        raw_event();
        break;
      case 1:
      case 2:
        message();
        break;
      case 3:
        collective();
        break;
      case 4:
        clock_[rank()] += bytes() >> 4U;  // compute
        break;
      default:
        call(rank(), {}, true, in_.ConsumeIntegralInRange<std::uint32_t>(0, kRegions - 1));
        break;
    }
  }

  void raw_event() {
    only_structured_ = false;
    const std::uint32_t r = rank();
    trace::Event e;
    e.kind = static_cast<trace::EventKind>(in_.ConsumeIntegralInRange<std::uint8_t>(0, kLastKind));
    e.time_ns = in_.ConsumeBool() ? tick(r) : in_.ConsumeIntegral<std::uint64_t>();
    e.bytes = collective_bytes();
    e.received = collective_bytes();
    e.request = in_.ConsumeIntegralInRange<std::uint64_t>(0, 3);
    e.comm = comm();
    e.peer = in_.ConsumeBool() ? trace::kNoRoot : in_.ConsumeIntegralInRange<std::uint32_t>(0, kMaxRanks + 1);
    e.tag = in_.ConsumeIntegralInRange<std::uint32_t>(0, 3);
    if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) {
      e.tag = in_.ConsumeIntegral<std::uint32_t>();
    }
    e.op = op();
    events_[r].push_back(e);
  }

  // A message on MPI_COMM_WORLD or a sub-communicator, appended to its sender and its receiver.
  void message() {
    const auto comm_id =
        in_.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(info_.comms.size()) - 1);
    const trace::Communicator& c = info_.comms.at(comm_id);
    const std::uint32_t n = c.self ? 1 : static_cast<std::uint32_t>(c.members.size());
    if (n == 0) {
      return;
    }
    const auto from = in_.ConsumeIntegralInRange<std::uint32_t>(0, n - 1);
    const auto to = in_.ConsumeIntegralInRange<std::uint32_t>(0, n - 1);
    const std::uint32_t from_world = c.self ? rank() : c.members[from];
    const std::uint32_t to_world = c.self ? from_world : c.members[to];
    if (from_world >= info_.num_ranks || to_world >= info_.num_ranks) {
      return;  // a corrupt member: the converter refuses the communicator anyway
    }
    const auto tag = in_.ConsumeIntegralInRange<std::uint32_t>(0, 3);
    const std::uint64_t size = bytes();
    const bool wrap = in_.ConsumeBool();
    const auto region = in_.ConsumeIntegralInRange<std::uint32_t>(0, kRegions - 1);
    const trace::Event send{
        .bytes = size, .comm = comm_id, .peer = to, .tag = tag, .kind = trace::EventKind::kSend};
    trace::Event recv{
        .bytes = size, .comm = comm_id, .peer = from, .tag = tag, .kind = trace::EventKind::kRecv};
    // A message to oneself is nonblocking (a blocking one could not have completed).
    if (from_world == to_world || in_.ConsumeBool()) {
      trace::Event isend = send;
      isend.kind = trace::EventKind::kIsend;
      isend.request = next_request_[from_world]++;
      const std::uint64_t rreq = next_request_[to_world]++;
      recv.kind = trace::EventKind::kIrecv;
      recv.request = rreq;
      const trace::Event posted{.request = rreq, .kind = trace::EventKind::kIrecvRequest};
      const trace::Event sent{.request = isend.request, .kind = trace::EventKind::kIsendComplete};
      call(from_world, {isend}, wrap, region);
      call(to_world, {posted}, wrap, region);
      call(from_world, {sent}, wrap, region);
      call(to_world, {recv}, wrap, region);
      return;
    }
    call(from_world, {send}, wrap, region);
    call(to_world, {recv}, wrap, region);
  }

  // A collective appended to every member of its communicator (blocking or nonblocking).
  void collective() {
    const auto comm_id =
        in_.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(info_.comms.size()) - 1);
    const trace::Communicator& c = info_.comms.at(comm_id);
    const trace::CollectiveOp the_op = op();
    const std::uint32_t root =
        in_.ConsumeBool() ? trace::kNoRoot : in_.ConsumeIntegralInRange<std::uint32_t>(0, kMaxRanks);
    const bool nonblocking = in_.ConsumeBool();
    std::vector<std::uint32_t> members = c.members;
    if (c.self) {
      members = {rank()};
    }
    for (const std::uint32_t m : members) {
      if (m >= info_.num_ranks) {
        return;  // a corrupt member: the converter refuses the communicator anyway
      }
    }
    for (const std::uint32_t m : members) {
      trace::Event end{.bytes = collective_bytes(),
                       .received = collective_bytes(),
                       .comm = comm_id,
                       .peer = root,
                       .op = the_op};
      if (nonblocking) {
        end.kind = trace::EventKind::kNonblockingCollectiveComplete;
        end.request = next_request_[m]++;
        call(m, {{.request = end.request, .kind = trace::EventKind::kNonblockingCollective}, end}, true, 1);
      } else {
        end.kind = trace::EventKind::kCollectiveEnd;
        call(m, {{.kind = trace::EventKind::kCollectiveBegin}, end}, true, 1);
      }
    }
  }

  FuzzedDataProvider in_;
  std::vector<std::uint64_t> clock_;
  std::vector<std::uint64_t> next_request_;
};

std::uint64_t count_ops(const sim::Schedule& s, sim::OpType type) {
  std::uint64_t n = 0;
  for (std::uint32_t r = 0; r < s.num_ranks(); ++r) {
    for (const sim::Op& op : s.program_of(r).ops) {
      n += op.type == type ? 1 : 0;
    }
  }
  return n;
}

void check(const trace::ConvertedTrace& converted, const trace::ConvertOptions& options, std::uint32_t traced,
           bool structured) {
  const trace::ConvertReport& report = converted.report;
  const sim::Schedule& schedule = converted.schedule;
  std::vector<std::uint32_t> kept = options.ranks;
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  const std::uint32_t ranks = kept.empty() ? traced : static_cast<std::uint32_t>(kept.size());
  if (report.traced_ranks != traced || report.ranks != ranks || schedule.num_ranks() != ranks ||
      report.wall_ns.size() != ranks || report.compute_ns.size() != ranks) {
    std::abort();  // the schedule's ranks are not the kept ones
  }
  const std::uint64_t sends = count_ops(schedule, sim::OpType::kSend);
  const std::uint64_t recvs = count_ops(schedule, sim::OpType::kRecv);
  if (report.sends > sends || report.recvs > recvs ||
      report.calcs > count_ops(schedule, sim::OpType::kCalc)) {
    std::abort();  // the report counts ops the schedule does not have
  }
  if (!options.p2p && (report.sends != 0 || report.recvs != 0)) {
    std::abort();  // --no-p2p kept messages
  }
  if (!options.collectives &&
      (report.sends != sends || report.recvs != recvs || !report.collectives.empty())) {
    std::abort();  // --no-collectives kept collectives
  }
  if (!options.compute && report.calcs != 0) {
    std::abort();  // --no-compute kept compute
  }
  if (!options.p2p && !options.collectives && !options.compute && schedule.total_ops() != 0) {
    std::abort();  // nothing was to be kept
  }
  if (!options.drop_unmatched && report.sends != report.recvs) {
    std::abort();  // a complete trace converted into unmatched messages
  }
  sim::SimResult result;
  try {
    result = sim::simulate(schedule, sim::SimOptions{});
  } catch (const gridlock::InputError&) {
    return;  // simulated time overflowed (huge sizes or compute)
  }
  if (structured && !result.complete) {
    std::abort();  // the trace of a run that completed became a schedule that deadlocks
  }
}

// A valid anchor file: tests/cli/data/files/trace/traces.otf2, byte for byte.
constexpr std::array<std::uint8_t, 107> kValidAnchor = {
    0x03, 0x42, 0x4f, 0x54, 0x46, 0x32, 0x00, 0x03, 0x02, 0x03, 0x00, 0x02, 0x00, 0x00, 0x10, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x74,
    0x65, 0x73, 0x74, 0x73, 0x2f, 0x63, 0x6c, 0x69, 0x2f, 0x64, 0x61, 0x74, 0x61, 0x2f, 0x66, 0x69,
    0x6c, 0x65, 0x73, 0x2f, 0x6d, 0x61, 0x6b, 0x65, 0x5f, 0x74, 0x72, 0x61, 0x63, 0x65, 0x2e, 0x63,
    0x70, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x75, 0xbc, 0xe6, 0xe3, 0x3f, 0x8f, 0xc0, 0x4e,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x00};

// The archive mode: see the top of the file (seed corpus: tests/fuzz/trace-corpus/otf2-*).
int fuzz_archive(const std::uint8_t* data, std::size_t size) {
  namespace fs = std::filesystem;
  FuzzedDataProvider in(data, size);
  const fs::path dir = fs::temp_directory_path() / ("gridlock_trace_fuzz_" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir / "traces");
  const std::array<fs::path, 4> files = {dir / "traces.otf2", dir / "traces.def", dir / "traces" / "0.evt",
                                         dir / "traces" / "1.evt"};
  const auto special = in.ConsumeIntegral<std::uint8_t>();
  for (const fs::path& file : files) {
    const std::string bytes = in.ConsumeBytesAsString(in.ConsumeIntegral<std::uint16_t>());
    if (&file == files.data()) {
      // The anchor is always the fixture's (tests/cli/data/files/trace/traces.otf2): Debian's OTF2
      // callocs the chunk sizes a corrupt anchor declares (10 to 31 GB from a few bytes, untouched
      // pages: the real binary refuses such an archive with exit 2 at 13 MB), which libFuzzer's
      // malloc limit reports as out-of-memory and ASan takes 90 s to map. The definitions and
      // event files are fuzzed, and any of the four may still become a FIFO or /dev/zero.
      std::ofstream(file, std::ios::binary)
          .write(reinterpret_cast<const char*>(kValidAnchor.data()),
                 static_cast<std::streamsize>(kValidAnchor.size()));
      continue;
    }
    std::ofstream(file, std::ios::binary) << bytes;
  }
  // Low two bits: which file; bits 2-3: left alone, a FIFO, or /dev/zero.
  const fs::path& victim = files.at(special & 3U);
  if (((special >> 2U) & 3U) == 1) {
    fs::remove(victim);
    if (::mkfifo(victim.c_str(), 0600) != 0) {
      std::abort();
    }
  } else if (((special >> 2U) & 3U) == 2) {
    fs::remove(victim);
    fs::create_symlink("/dev/zero", victim);
  }
  try {
    const std::unique_ptr<trace::TraceReader> reader = trace::open_otf2(dir);
    trace::ConvertOptions options;
    options.drop_unmatched = true;
    (void)trace::convert_trace(*reader, options);
  } catch (const gridlock::InputError&) {  // NOLINT(bugprone-empty-catch): refused with a message
  } catch (const gridlock::IoError&) {     // NOLINT(bugprone-empty-catch): refused with a message
  }
  fs::remove_all(dir, ec);
  return 0;
}

}  // namespace

// Debian's OTF2 (a system library) leaks its archive object when OTF2_Reader_Open fails on a
// malformed anchor file (no handle is returned to close): not gridlock's leak.
extern "C" const char* __lsan_default_suppressions() { return "leak:libopen-trace-format2.so\n"; }

// OTF2 callocs what corrupt files declare, untouched, and turns a failed allocation into an error,
// which the reader reports as InputError: C allocations may fail here as they do outside ASan.
// gridlock's own (operator new) still stop the fuzzer when too large.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kArchive = "OTF2";
  if (size >= kArchive.size() &&
      std::string_view(reinterpret_cast<const char*>(data), kArchive.size()) == kArchive) {
    return fuzz_archive(data + kArchive.size(), size - kArchive.size());
  }
  TraceDecoder decoder(data, size);
  decoder.decode();
  const std::uint32_t traced = decoder.info_.num_ranks;
  const trace::ConvertOptions options = decoder.options_;
  const bool structured = decoder.only_structured_;
  trace::MemoryTrace memory(std::move(decoder.info_), std::move(decoder.events_));
  trace::ConvertedTrace converted;
  try {
    converted = trace::convert_trace(memory, options);
  } catch (const gridlock::InputError&) {
    return 0;  // refused with a message: fine
  }
  check(converted, options, traced, structured);
  return 0;
}
