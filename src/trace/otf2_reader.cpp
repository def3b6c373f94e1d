#include "gridlock/trace/otf2_reader.hpp"

#include <otf2/otf2.h>

#include <array>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "gridlock/core/error.hpp"
#include "gridlock/core/output.hpp"

namespace gridlock::trace {

const char* collective_name(CollectiveOp op) noexcept {
  static constexpr std::array<const char*, 18> kNames = {"MPI_Barrier",
                                                         "MPI_Bcast",
                                                         "MPI_Gather",
                                                         "MPI_Gatherv",
                                                         "MPI_Scatter",
                                                         "MPI_Scatterv",
                                                         "MPI_Allgather",
                                                         "MPI_Allgatherv",
                                                         "MPI_Alltoall",
                                                         "MPI_Alltoallv",
                                                         "MPI_Alltoallw",
                                                         "MPI_Allreduce",
                                                         "MPI_Reduce",
                                                         "MPI_Reduce_scatter",
                                                         "MPI_Scan",
                                                         "MPI_Exscan",
                                                         "MPI_Reduce_scatter_block",
                                                         "other collective operation"};
  return kNames[static_cast<std::size_t>(op)];
}

namespace {

// OTF2 reports errors through a process-wide callback that prints to stderr by default; while an
// archive is read, the callback keeps the last message instead, for the InputError that follows.
thread_local std::string otf2_last_error;

OTF2_ErrorCode keep_error(void* /*user*/, const char* /*file*/, uint64_t /*line*/, const char* /*function*/,
                          OTF2_ErrorCode code, const char* format, va_list args) {
  std::array<char, 512> text{};
  va_list copy;
  va_copy(copy, args);
  // OTF2 hands over its own format string and arguments: not a literal by nature. clang-tidy 14
  // ignores NOLINT for compiler diagnostics, so the warning is switched off around the call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const int n = std::vsnprintf(text.data(), text.size(), format, copy);
#pragma GCC diagnostic pop
  va_end(copy);
  otf2_last_error = n > 0 ? std::string(text.data()) : std::string(OTF2_Error_GetDescription(code));
  return code;
}

// Installs keep_error for the lifetime of a read, then restores the previous callback.
class ErrorCapture {
 public:
  ErrorCapture() : previous_(OTF2_Error_RegisterCallback(keep_error, nullptr)) { otf2_last_error.clear(); }
  ErrorCapture(const ErrorCapture&) = delete;
  ErrorCapture& operator=(const ErrorCapture&) = delete;
  ~ErrorCapture() { OTF2_Error_RegisterCallback(previous_, nullptr); }

 private:
  OTF2_ErrorCallback previous_;
};

[[noreturn]] void fail(const std::string& path, std::string_view what, OTF2_ErrorCode code) {
  std::string detail =
      otf2_last_error.empty() ? std::string(OTF2_Error_GetDescription(code)) : otf2_last_error;
  throw InputError(
      fmt::format("{}: {}: {} ({}); is it a complete OTF2 archive (written by "
                  "libgridlock-trace.so or Score-P, the run ended with MPI_Finalize)?",
                  path, what, detail, OTF2_Error_GetName(code)));
}

void check(OTF2_ErrorCode code, const std::string& path, std::string_view what) {
  if (code != OTF2_SUCCESS) {
    fail(path, what, code);
  }
}

// The owned OTF2 reader handle.
class Reader {
 public:
  explicit Reader(const std::string& anchor) : reader_(OTF2_Reader_Open(anchor.c_str())) {}
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader() {
    if (reader_ != nullptr) {
      OTF2_Reader_Close(reader_);
    }
  }
  [[nodiscard]] OTF2_Reader* get() const noexcept { return reader_; }

 private:
  OTF2_Reader* reader_;
};

// The global definitions as they are read, before they are resolved into a TraceInfo.
struct RawDefinitions {
  std::unordered_map<std::uint32_t, std::string> strings;
  struct Group {
    OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
    std::vector<std::uint64_t> members;
  };
  std::unordered_map<std::uint32_t, Group> groups;
  struct Comm {
    std::uint32_t name = OTF2_UNDEFINED_STRING;
    std::uint32_t group = OTF2_UNDEFINED_GROUP;
  };
  std::map<std::uint32_t, Comm> comms;
  struct RegionDef {
    std::uint32_t name = OTF2_UNDEFINED_STRING;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  };
  std::map<std::uint32_t, RegionDef> regions;
  std::unordered_map<std::uint64_t, std::uint64_t> location_events;
  std::uint64_t timer_resolution = 0;
  std::uint64_t global_offset = 0;
  std::uint64_t definitions = 0;
  std::string creator;  // the archive's creator, when it names one
};

// Global definition callbacks; each returns OTF2_CALLBACK_SUCCESS (a bad value is found later).
OTF2_CallbackCode on_string(void* data, OTF2_StringRef self, const char* text) {
  static_cast<RawDefinitions*>(data)->strings[self] = text != nullptr ? text : "";
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_clock(void* data, uint64_t resolution, uint64_t offset, uint64_t /*length*/,
                           uint64_t /*realtime*/) {
  auto* defs = static_cast<RawDefinitions*>(data);
  defs->timer_resolution = resolution;
  defs->global_offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_location(void* data, OTF2_LocationRef self, OTF2_StringRef /*name*/,
                              OTF2_LocationType /*type*/, uint64_t events, OTF2_LocationGroupRef /*group*/) {
  static_cast<RawDefinitions*>(data)->location_events[self] = events;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_group(void* data, OTF2_GroupRef self, OTF2_StringRef /*name*/, OTF2_GroupType type,
                           OTF2_Paradigm paradigm, OTF2_GroupFlag /*flags*/, uint32_t count,
                           const uint64_t* members) {
  RawDefinitions::Group& g = static_cast<RawDefinitions*>(data)->groups[self];
  g.type = type;
  g.paradigm = paradigm;
  if (members != nullptr) {
    g.members.assign(members, members + count);
  }
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_comm(void* data, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                          OTF2_CommRef /*parent*/, OTF2_CommFlag /*flags*/) {
  static_cast<RawDefinitions*>(data)->comms[self] = {name, group};
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_region(void* data, OTF2_RegionRef self, OTF2_StringRef name,
                            OTF2_StringRef /*canonical*/, OTF2_StringRef /*description*/,
                            OTF2_RegionRole /*role*/, OTF2_Paradigm paradigm, OTF2_RegionFlag /*flags*/,
                            OTF2_StringRef /*file*/, uint32_t /*begin*/, uint32_t /*end*/) {
  static_cast<RawDefinitions*>(data)->regions[self] = {name, paradigm};
  return OTF2_CALLBACK_SUCCESS;
}

// What the event callbacks fill: one rank's events, in recorded order.
struct EventSink {
  std::vector<Event>* events = nullptr;
  std::uint64_t timer_resolution = 1'000'000'000;
  std::uint64_t global_offset = 0;

  [[nodiscard]] std::uint64_t ns(OTF2_TimeStamp t) const noexcept {
    // Ticks since the offset in nanoseconds; long double keeps 64 bits of mantissa (a cycle
    // counter at 3 GHz times 1e9 overflows 64-bit integers after six seconds).
    const std::uint64_t ticks = t >= global_offset ? t - global_offset : 0;
    const long double ns =
        static_cast<long double>(ticks) * 1e9L / static_cast<long double>(timer_resolution);
    return ns >= 1.8e19L ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(ns);
  }
  void add(Event e) { events->push_back(e); }
};

EventSink& sink(void* data) { return *static_cast<EventSink*>(data); }

CollectiveOp collective_of(OTF2_CollectiveOp op) {
  return op <= OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK ? static_cast<CollectiveOp>(op) : CollectiveOp::kOther;
}

OTF2_CallbackCode on_enter(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                           OTF2_AttributeList* /*attrs*/, OTF2_RegionRef region) {
  sink(data).add({.time_ns = sink(data).ns(t), .peer = region, .kind = EventKind::kEnter});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_leave(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                           OTF2_AttributeList* /*attrs*/, OTF2_RegionRef region) {
  sink(data).add({.time_ns = sink(data).ns(t), .peer = region, .kind = EventKind::kLeave});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_send(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                          OTF2_AttributeList* /*attrs*/, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
  sink(data).add({.time_ns = sink(data).ns(t),
                  .bytes = bytes,
                  .comm = comm,
                  .peer = receiver,
                  .tag = tag,
                  .kind = EventKind::kSend});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                           OTF2_AttributeList* /*attrs*/, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
  sink(data).add({.time_ns = sink(data).ns(t),
                  .bytes = bytes,
                  .request = request,
                  .comm = comm,
                  .peer = receiver,
                  .tag = tag,
                  .kind = EventKind::kIsend});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_isend_complete(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                                    OTF2_AttributeList* /*attrs*/, uint64_t request) {
  sink(data).add({.time_ns = sink(data).ns(t), .request = request, .kind = EventKind::kIsendComplete});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_irecv_request(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                                   OTF2_AttributeList* /*attrs*/, uint64_t request) {
  sink(data).add({.time_ns = sink(data).ns(t), .request = request, .kind = EventKind::kIrecvRequest});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_recv(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                          OTF2_AttributeList* /*attrs*/, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
  sink(data).add({.time_ns = sink(data).ns(t),
                  .bytes = bytes,
                  .comm = comm,
                  .peer = sender,
                  .tag = tag,
                  .kind = EventKind::kRecv});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_irecv(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                           OTF2_AttributeList* /*attrs*/, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
  sink(data).add({.time_ns = sink(data).ns(t),
                  .bytes = bytes,
                  .request = request,
                  .comm = comm,
                  .peer = sender,
                  .tag = tag,
                  .kind = EventKind::kIrecv});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_cancelled(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                               OTF2_AttributeList* /*attrs*/, uint64_t request) {
  sink(data).add({.time_ns = sink(data).ns(t), .request = request, .kind = EventKind::kRequestCancelled});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_coll_begin(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                                OTF2_AttributeList* /*attrs*/) {
  sink(data).add({.time_ns = sink(data).ns(t), .kind = EventKind::kCollectiveBegin});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_coll_end(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                              OTF2_AttributeList* /*attrs*/, OTF2_CollectiveOp op, OTF2_CommRef comm,
                              uint32_t root, uint64_t sent, uint64_t received) {
  sink(data).add({.time_ns = sink(data).ns(t),
                  .bytes = sent,
                  .received = received,
                  .comm = comm,
                  .peer = root,
                  .kind = EventKind::kCollectiveEnd,
                  .op = collective_of(op)});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_nbc_request(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                                 OTF2_AttributeList* /*attrs*/, uint64_t request) {
  sink(data).add(
      {.time_ns = sink(data).ns(t), .request = request, .kind = EventKind::kNonblockingCollective});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_nbc_complete(OTF2_LocationRef /*loc*/, OTF2_TimeStamp t, uint64_t /*pos*/, void* data,
                                  OTF2_AttributeList* /*attrs*/, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                  uint32_t root, uint64_t sent, uint64_t received, uint64_t request) {
  sink(data).add({.time_ns = sink(data).ns(t),
                  .bytes = sent,
                  .received = received,
                  .request = request,
                  .comm = comm,
                  .peer = root,
                  .kind = EventKind::kNonblockingCollectiveComplete,
                  .op = collective_of(op)});
  return OTF2_CALLBACK_SUCCESS;
}

// Callbacks struct owned for the duration of a registration.
template <typename T, void (*Delete)(T*)>
struct Owned {
  explicit Owned(T* p) : ptr(p) {}
  T* ptr;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { Delete(ptr); }
};

// Size bounds of the files OTF2 opens itself. An anchor file holds a few lines of metadata; the
// definitions are read whole; one rank's events are decoded into memory at once (about 3 bytes
// of memory per byte of event file).
constexpr std::uintmax_t kMaxAnchorBytes = std::uintmax_t{16} << 20U;
constexpr std::uintmax_t kMaxDefinitionBytes = kDefaultInputLimitBytes;
constexpr std::uintmax_t kMaxEventFileBytes = std::uintmax_t{4} << 30U;

// OTF2 opens the files of an archive itself, past gridlock's checked reader: each is checked
// first as a file given by name would be (a regular file of bounded size), so a FIFO would not
// block the read and a link to /dev/zero would not fill memory. A file that does not exist is
// left to OTF2, which names what is missing.
void check_archive_file(const std::filesystem::path& path, std::string_view what, std::uintmax_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    return;
  }
  if (check_regular_input(path, what, max_bytes)) {
    throw IoError(fmt::format("cannot read {} '{}': it is a pipe; an OTF2 archive is read from regular files",
                              what, path.string()));
  }
}

std::string anchor_of(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return (path / "traces.otf2").string();
  }
  return path.string();
}

// A callback that decodes nothing of its own: OTF2 has decoded the record to call it.
template <typename... Args>
OTF2_CallbackCode ignore_record(Args... /*record*/) {
  return OTF2_CALLBACK_SUCCESS;
}

// Registers `real`, or in a probe (refuse_if_otf2_crashes()) a callback of the same type that
// ignores the record: one list of the records gridlock reads serves both.
template <typename Callbacks, typename Setter, typename... Args>
void set_callback(Callbacks* callbacks, Setter setter, OTF2_CallbackCode (*real)(Args...), bool probe) {
  (void)setter(callbacks, probe ? &ignore_record<Args...> : real);
}

// The global definition callbacks (the locations always: a probe needs them to read the events).
void register_definitions(OTF2_GlobalDefReaderCallbacks* cb, bool probe) {
  set_callback(cb, OTF2_GlobalDefReaderCallbacks_SetStringCallback, on_string, probe);
  set_callback(cb, OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback, on_clock, probe);
  set_callback(cb, OTF2_GlobalDefReaderCallbacks_SetLocationCallback, on_location, false);
  set_callback(cb, OTF2_GlobalDefReaderCallbacks_SetGroupCallback, on_group, probe);
  set_callback(cb, OTF2_GlobalDefReaderCallbacks_SetCommCallback, on_comm, probe);
  set_callback(cb, OTF2_GlobalDefReaderCallbacks_SetRegionCallback, on_region, probe);
}

// The event callbacks of the records gridlock converts.
void register_events(OTF2_EvtReaderCallbacks* cb, bool probe) {
  set_callback(cb, OTF2_EvtReaderCallbacks_SetEnterCallback, on_enter, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetLeaveCallback, on_leave, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiSendCallback, on_send, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiIsendCallback, on_isend, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback, on_isend_complete, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback, on_irecv_request, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiRecvCallback, on_recv, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiIrecvCallback, on_irecv, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback, on_cancelled, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback, on_coll_begin, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback, on_coll_end, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback, on_nbc_request, probe);
  set_callback(cb, OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback, on_nbc_complete, probe);
}

// The global definitions of the archive at `anchor`, as read; in a probe (refuse_if_otf2_crashes())
// only the locations are kept, every other record decoded and ignored. Throws InputError naming
// what failed.
RawDefinitions read_raw_definitions(const std::string& anchor, bool probe) {
  const ErrorCapture capture;
  Reader reader(anchor);
  if (reader.get() == nullptr) {
    fail(anchor, "cannot open the archive", OTF2_ERROR_INVALID);
  }
  check(OTF2_Reader_SetSerialCollectiveCallbacks(reader.get()), anchor, "cannot set up the reader");
  RawDefinitions raw;
  char* creator = nullptr;
  if (OTF2_Reader_GetCreator(reader.get(), &creator) == OTF2_SUCCESS && creator != nullptr) {
    raw.creator = creator;
    // OTF2 allocates the string with malloc and leaves it to the caller.
    std::free(creator);
  }
  OTF2_GlobalDefReader* global = OTF2_Reader_GetGlobalDefReader(reader.get());
  if (global == nullptr) {
    fail(anchor, "no global definitions (a run that ended without MPI_Finalize leaves none)",
         OTF2_ERROR_INVALID);
  }
  {
    const Owned<OTF2_GlobalDefReaderCallbacks, OTF2_GlobalDefReaderCallbacks_Delete> cb{
        OTF2_GlobalDefReaderCallbacks_New()};
    register_definitions(cb.ptr, probe);
    check(OTF2_Reader_RegisterGlobalDefCallbacks(reader.get(), global, cb.ptr, &raw), anchor,
          "cannot register the definition callbacks");
  }
  check(OTF2_Reader_ReadAllGlobalDefinitions(reader.get(), global, &raw.definitions), anchor,
        "cannot read the global definitions");
  return raw;
}

// Reads the local definitions and the events of rank i at `locations[i]` of the archive at
// `anchor` (`base`: its name without .otf2), rank by rank: its events into `sink`, then
// `visit(rank)`. Without a sink (a probe) the callbacks ignore every record. Throws InputError or
// IoError naming the file or rank that failed.
void read_rank_events(const std::string& anchor, const std::string& base,
                      std::span<const std::uint64_t> locations, EventSink* sink,
                      const std::function<void(std::uint32_t)>& visit) {
  for (const std::uint64_t location : locations) {
    const std::string stem = fmt::format("{}/{}", base, location);
    check_archive_file(stem + ".def", "OTF2 local definitions", kMaxDefinitionBytes);
    check_archive_file(stem + ".evt", "OTF2 event file", kMaxEventFileBytes);
  }
  const ErrorCapture capture;
  Reader reader(anchor);
  if (reader.get() == nullptr) {
    fail(anchor, "cannot open the archive", OTF2_ERROR_INVALID);
  }
  check(OTF2_Reader_SetSerialCollectiveCallbacks(reader.get()), anchor, "cannot set up the reader");
  for (const std::uint64_t location : locations) {
    check(OTF2_Reader_SelectLocation(reader.get(), location), anchor, "cannot select a location");
  }
  const bool have_local_defs = OTF2_Reader_OpenDefFiles(reader.get()) == OTF2_SUCCESS;
  check(OTF2_Reader_OpenEvtFiles(reader.get()), anchor, "cannot open the event files");
  for (std::uint32_t rank = 0; rank < locations.size(); ++rank) {
    const std::uint64_t location = locations[rank];
    const std::string where = fmt::format("{}: rank {} (location {})", anchor, rank, location);
    // The local definitions hold the mapping tables from the rank's own communicator ids to the
    // global ones: read before the events, the reader applies them.
    if (have_local_defs) {
      if (OTF2_DefReader* defs = OTF2_Reader_GetDefReader(reader.get(), location); defs != nullptr) {
        std::uint64_t read = 0;
        check(OTF2_Reader_ReadAllLocalDefinitions(reader.get(), defs, &read), where,
              "cannot read its definitions");
        OTF2_Reader_CloseDefReader(reader.get(), defs);
      }
    }
    OTF2_EvtReader* evt = OTF2_Reader_GetEvtReader(reader.get(), location);
    if (evt == nullptr) {
      fail(where, "no events", OTF2_ERROR_INVALID);
    }
    if (sink != nullptr) {
      sink->events->clear();
    }
    {
      const Owned<OTF2_EvtReaderCallbacks, OTF2_EvtReaderCallbacks_Delete> callbacks{
          OTF2_EvtReaderCallbacks_New()};
      register_events(callbacks.ptr, sink == nullptr);
      check(OTF2_Reader_RegisterEvtCallbacks(reader.get(), evt, callbacks.ptr, sink), where,
            "cannot register the event callbacks");
    }
    std::uint64_t read = 0;
    check(OTF2_Reader_ReadLocalEvents(reader.get(), evt, OTF2_UNDEFINED_UINT64, &read), where,
          "cannot read its events");
    OTF2_Reader_CloseEvtReader(reader.get(), evt);
    visit(rank);
  }
  OTF2_Reader_CloseEvtFiles(reader.get());
  if (have_local_defs) {
    OTF2_Reader_CloseDefFiles(reader.get());
  }
}

// What the probe's child reports: 0 the archive read, kProbeRefused OTF2 (or a file check) refused
// it with an error the real read will name. Any other end is a crash.
constexpr int kProbeRefused = 3;

// Reads the whole archive at `anchor` (`base`: its name without .otf2) with callbacks that ignore
// every record, as the child of refuse_if_otf2_crashes(): the real read's steps on every location.
int probe_archive(const std::string& anchor, const std::string& base) noexcept {
  try {
    const RawDefinitions raw = read_raw_definitions(anchor, true);
    std::vector<std::uint64_t> locations;
    locations.reserve(raw.location_events.size());
    for (const auto& [location, events] : raw.location_events) {
      locations.push_back(location);
    }
    read_rank_events(anchor, base, locations, nullptr, [](std::uint32_t /*rank*/) {});
    return 0;
  } catch (...) {  // OTF2 or a file check refused it: the real read says which
    return kProbeRefused;
  }
}

// Debian's OTF2 decodes a record without checking it against the chunk it sits in: a corrupt
// definitions or event file makes it read past its buffer and die (SIGSEGV in
// OTF2_Buffer_ReadUint64, found by trace_fuzz). A system library cannot be fixed here, and a crash
// is never the answer to bad input, so the archive is first read whole in a child process with
// callbacks that ignore every record (OTF2 decodes each record it hands over, so the child meets
// what the real read would). If the child dies, the archive is refused with a message; if it reads
// or OTF2 reports an error, the real read follows in this process. Costs a second read of the
// archive; without a child (fork fails) the read goes on as before.
void refuse_if_otf2_crashes(const std::string& anchor, const std::string& base) {
  std::fflush(nullptr);  // the child must not write the parent's buffered output a second time
  const pid_t pid = ::fork();
  if (pid < 0) {
    return;
  }
  if (pid == 0) {
    ::_exit(probe_archive(anchor, base));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return;
    }
  }
  if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == kProbeRefused)) {
    return;
  }
  throw InputError(
      fmt::format("{}: the OTF2 library crashed reading this archive ({}): one of its files (traces.def, "
                  "traces/*.def, traces/*.evt) is corrupt, truncated or overwritten; trace the run again",
                  anchor,
                  WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                      : fmt::format("exit status {}", WEXITSTATUS(status))));
}

class Otf2Trace final : public TraceReader {
 public:
  explicit Otf2Trace(const std::filesystem::path& path) : anchor_(anchor_of(path)) {
    std::error_code ec;
    if (!std::filesystem::exists(anchor_, ec)) {
      // The tracer's emergency flush (exit without MPI_Finalize, MPI_Abort) leaves the event files
      // but no anchor: say what happened instead of "no archive".
      const std::filesystem::path events = std::filesystem::path(anchor_).parent_path() / "traces" / "0.evt";
      if (std::filesystem::is_regular_file(events, ec)) {
        throw InputError(fmt::format(
            "{}: event files but no anchor file traces.otf2: the traced run ended without MPI_Finalize "
            "(MPI_Abort, exit() or a crash), which leaves no global definitions, and no OTF2 reader can "
            "read such an archive; trace a run that reaches MPI_Finalize",
            path.string()));
      }
      throw InputError(fmt::format(
          "{}: no OTF2 archive there (expected the anchor file traces.otf2 of "
          "libgridlock-trace.so or Score-P, or the directory holding it). If a traced run wrote "
          "nothing: LD_PRELOAD cannot attach the tracer to a statically linked program (`ldd ./app | "
          "grep libmpi` shows whether MPI is a shared library), and the variables must reach the "
          "ranks (docs/tracing.md, \"How to trace\")",
          path.string()));
    }
    check_archive_file(anchor_, "OTF2 anchor file", kMaxAnchorBytes);
    check_archive_file(archive_base() + ".def", "OTF2 global definitions", kMaxDefinitionBytes);
    info_.path = anchor_;
    refuse_if_otf2_crashes(anchor_, archive_base());
    read_definitions();
  }

  [[nodiscard]] const TraceInfo& info() const noexcept override { return info_; }

  void for_each_rank(const std::function<void(std::uint32_t, std::span<const Event>)>& visit) override {
    std::vector<Event> events;
    EventSink data{&events, timer_resolution_, global_offset_};
    read_rank_events(anchor_, archive_base(), rank_locations_, &data,
                     [&](std::uint32_t rank) { visit(rank, events); });
  }

 private:
  // The archive's name without `.otf2`: its global definitions are `<base>.def`, its per-location
  // files `<base>/<location>.evt` and `.def`.
  [[nodiscard]] std::string archive_base() const {
    return std::filesystem::path(anchor_).replace_extension().string();
  }

  void read_definitions() {
    const RawDefinitions raw = read_raw_definitions(anchor_, false);
    info_.creator = raw.creator;
    resolve(raw);
  }

  [[nodiscard]] std::string string_of(const RawDefinitions& raw, std::uint32_t ref) const {
    const auto it = raw.strings.find(ref);
    return it == raw.strings.end() ? std::string() : it->second;
  }

  void resolve(const RawDefinitions& raw) {
    if (raw.timer_resolution == 0) {
      throw InputError(fmt::format("{}: the archive has no clock properties (timer resolution 0)", anchor_));
    }
    timer_resolution_ = raw.timer_resolution;
    global_offset_ = raw.global_offset;
    // The ranks: the MPI group of type COMM_LOCATIONS lists the locations in rank order.
    const RawDefinitions::Group* locations = nullptr;
    for (const auto& [id, group] : raw.groups) {
      if (group.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && group.paradigm == OTF2_PARADIGM_MPI) {
        locations = &group;
      }
    }
    if (locations == nullptr || locations->members.empty()) {
      throw InputError(fmt::format(
          "{}: no MPI locations group in the definitions: not a trace of an MPI program", anchor_));
    }
    if (locations->members.size() > 0xFFFFFFFEULL) {
      throw InputError(
          fmt::format("{}: {} ranks is more than gridlock takes", anchor_, locations->members.size()));
    }
    info_.num_ranks = static_cast<std::uint32_t>(locations->members.size());
    rank_locations_ = locations->members;
    for (const std::uint64_t location : rank_locations_) {
      const auto it = raw.location_events.find(location);
      if (it == raw.location_events.end()) {
        throw InputError(fmt::format("{}: the MPI locations group names location {}, which is not defined",
                                     anchor_, location));
      }
      info_.events_per_rank.push_back(it->second);
    }
    for (const auto& [id, comm] : raw.comms) {
      Communicator c;
      c.name = string_of(raw, comm.name);
      const auto g = raw.groups.find(comm.group);
      if (g == raw.groups.end()) {
        throw InputError(fmt::format("{}: communicator {} ('{}') refers to group {}, which is not defined",
                                     anchor_, id, c.name, comm.group));
      }
      if (g->second.type == OTF2_GROUP_TYPE_COMM_SELF) {
        c.self = true;
      } else {
        for (const std::uint64_t member : g->second.members) {
          if (member >= info_.num_ranks) {
            throw InputError(fmt::format("{}: communicator {} ('{}') has member {}, beyond the {} ranks",
                                         anchor_, id, c.name, member, info_.num_ranks));
          }
          c.members.push_back(static_cast<std::uint32_t>(member));
        }
      }
      info_.comms.emplace(id, std::move(c));
    }
    for (const auto& [id, region] : raw.regions) {
      Region r;
      r.name = string_of(raw, region.name);
      r.is_mpi = region.paradigm == OTF2_PARADIGM_MPI || r.name.starts_with("MPI_");
      info_.regions.emplace(id, std::move(r));
    }
  }

  std::string anchor_;
  TraceInfo info_;
  std::vector<std::uint64_t> rank_locations_;
  std::uint64_t timer_resolution_ = 1'000'000'000;
  std::uint64_t global_offset_ = 0;
};

}  // namespace

std::unique_ptr<TraceReader> open_otf2(const std::filesystem::path& path) {
  return std::make_unique<Otf2Trace>(path);
}

bool is_otf2_path(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    // Any kind of file: a FIFO or a device named traces.otf2 is refused by open_otf2 with its kind.
    return std::filesystem::exists(path / "traces.otf2", ec);
  }
  return path.extension() == ".otf2";
}

}  // namespace gridlock::trace
