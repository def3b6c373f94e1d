#include "detail/recorder.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <new>
#include <numeric>
#include <string>
#include <string_view>

#include "detail/otf2_mpi.h"
#include "gridlock/core/error.hpp"

namespace gridlock::trace::detail {
namespace {

// Upper bounds of the encoded size of each event record (timestamp record, type, length and
// the compressed fields): the size cap counts these, so a capped trace stays below the cap.
constexpr std::uint64_t kEnterLeaveBytes = 16;
constexpr std::uint64_t kSendBytes = 35;
constexpr std::uint64_t kRequestBytes = 44;
constexpr std::uint64_t kCompleteBytes = 20;
constexpr std::uint64_t kCollectiveBytes = 51;
// Room a call needs before it is recorded (its Enter, Leave and the events between them, for
// all but the largest Waitall and Testsome calls).
constexpr std::uint64_t kCallReserveBytes = 256;

// Communicator ids: 0 world, 1 self, then 2 + world rank of the communicator's rank 0 * 4096 +
// the count of communicators that rank created, so that ranks never need to agree on a table.
constexpr std::uint32_t kWorldComm = 0;
constexpr std::uint32_t kSelfComm = 1;
constexpr std::uint32_t kCommsPerRank = 4096;

std::uint64_t clock_ns(clockid_t clock) noexcept {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

OTF2_FlushType pre_flush(void* /*user*/, OTF2_FileType /*type*/, OTF2_LocationRef /*loc*/, void* /*caller*/,
                         bool /*final*/) {
  return OTF2_FLUSH;
}

OTF2_TimeStamp post_flush(void* /*user*/, OTF2_FileType /*type*/, OTF2_LocationRef /*loc*/) {
  return now_ns();
}

OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, post_flush};

// OTF2 keeps every chunk in memory until the writer closes unless the allocator refuses one:
// events get at most kEventChunks chunks (8 MiB per rank), then OTF2 flushes them to the file
// (pre_flush says yes) and starts over. Definitions are small and unbounded.
constexpr std::uint64_t kChunkBytes = std::uint64_t{1024} * 1024;
constexpr std::size_t kEventChunks = 8;

struct ChunkPool {
  std::vector<void*> chunks;
};

void* allocate_chunk(void* /*user*/, OTF2_FileType type, OTF2_LocationRef /*loc*/, void** per_buffer,
                     std::uint64_t chunk_bytes) {
  if (*per_buffer == nullptr) *per_buffer = new (std::nothrow) ChunkPool;
  auto* pool = static_cast<ChunkPool*>(*per_buffer);
  if (pool == nullptr || (type == OTF2_FILETYPE_EVENTS && pool->chunks.size() >= kEventChunks))
    return nullptr;
  void* chunk = std::malloc(chunk_bytes);
  if (chunk != nullptr) pool->chunks.push_back(chunk);
  return chunk;
}

void free_chunks(void* /*user*/, OTF2_FileType /*type*/, OTF2_LocationRef /*loc*/, void** per_buffer,
                 bool final) {
  auto* pool = static_cast<ChunkPool*>(*per_buffer);
  if (pool == nullptr) return;
  for (void* chunk : pool->chunks) std::free(chunk);
  pool->chunks.clear();
  if (final) {
    delete pool;
    *per_buffer = nullptr;
  }
}

OTF2_MemoryCallbacks kMemoryCallbacks = {allocate_chunk, free_chunks};

OTF2_RegionRole role_of(Fn fn) {
  switch (fn) {
    case Fn::Send:
    case Fn::Ssend:
    case Fn::Bsend:
    case Fn::Rsend:
    case Fn::Recv:
    case Fn::Isend:
    case Fn::Issend:
    case Fn::Irecv:
    case Fn::Sendrecv:
    case Fn::Probe:
    case Fn::Iprobe:
    case Fn::Wait:
    case Fn::Waitall:
    case Fn::Waitany:
    case Fn::Waitsome:
    case Fn::Test:
    case Fn::Testall:
    case Fn::Testany:
    case Fn::Testsome:
    case Fn::SendInit:
    case Fn::RecvInit:
    case Fn::Start:
    case Fn::Startall:
    case Fn::SendrecvReplace:
    case Fn::SsendInit:
    case Fn::BsendInit:
    case Fn::RsendInit:
      return OTF2_REGION_ROLE_POINT2POINT;
    case Fn::Barrier:
    case Fn::Ibarrier:
      return OTF2_REGION_ROLE_BARRIER;
    case Fn::Bcast:
    case Fn::Ibcast:
    case Fn::Scatter:
    case Fn::Scatterv:
      return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case Fn::Reduce:
    case Fn::Ireduce:
    case Fn::Gather:
    case Fn::Gatherv:
      return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case Fn::Allreduce:
    case Fn::Iallreduce:
    case Fn::Iallgather:
    case Fn::Ialltoall:
    case Fn::Allgather:
    case Fn::Allgatherv:
    case Fn::Alltoall:
    case Fn::Alltoallv:
    case Fn::ReduceScatter:
    case Fn::ReduceScatterBlock:
      return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case Fn::Scan:
    case Fn::Exscan:
      return OTF2_REGION_ROLE_COLL_OTHER;
    default:
      return OTF2_REGION_ROLE_FUNCTION;
  }
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// Every rank reaches the same verdict: the job ends with one message and exit code `code`.
[[noreturn]] void fail_everywhere(int rank, const std::string& message, int code) {
  if (rank == 0) std::fprintf(stderr, "gridlock-trace: error: %s\n", message.c_str());
  PMPI_Finalize();
  std::exit(code);  // NOLINT(concurrency-mt-unsafe): inside MPI_Init, before the program's threads
}

// The created communicators from the ranks' (id, parent, member count, members...) records,
// parents before their children (readers want a parent defined first).
std::vector<CommDef> order_comms(const std::vector<std::uint64_t>& data) {
  std::vector<CommDef> all;
  for (std::size_t i = 0; i + 3 <= data.size();) {
    CommDef d{data[i], data[i + 1], {}};
    const auto m = static_cast<std::size_t>(data[i + 2]);
    d.members.assign(data.begin() + static_cast<std::ptrdiff_t>(i + 3),
                     data.begin() + static_cast<std::ptrdiff_t>(i + 3 + m));
    i += 3 + m;
    all.push_back(std::move(d));
  }
  std::sort(all.begin(), all.end(), [](const CommDef& a, const CommDef& b) { return a.id < b.id; });
  std::vector<CommDef> ordered;
  std::vector<bool> placed(all.size(), false);
  const auto known = [&](std::uint64_t id) {
    if (id == kWorldComm || id == kSelfComm || id == OTF2_UNDEFINED_COMM) return true;
    const bool in_trace = std::any_of(all.begin(), all.end(), [&](const CommDef& d) { return d.id == id; });
    return !in_trace ||
           std::any_of(ordered.begin(), ordered.end(), [&](const CommDef& d) { return d.id == id; });
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (placed[i] || !known(all[i].parent)) continue;
      placed[i] = true;
      ordered.push_back(all[i]);
      progress = true;
    }
  }
  return ordered;
}

void at_exit() { Recorder::instance().emergency_flush("the program exited without MPI_Finalize"); }

}  // namespace

std::uint64_t now_ns() noexcept { return clock_ns(CLOCK_MONOTONIC); }

Recorder& Recorder::instance() {
  static Recorder recorder;
  return recorder;
}

void Recorder::start(Fn init_fn, std::uint64_t enter_ns, std::uint64_t leave_ns) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  PMPI_Comm_size(MPI_COMM_WORLD, &size_);
  try {
    // NOLINTBEGIN(concurrency-mt-unsafe): read once inside MPI_Init
    config_ = config_from_values(std::getenv("GRIDLOCK_TRACE_DIR"), std::getenv("GRIDLOCK_TRACE_FILTER"),
                                 std::getenv("GRIDLOCK_TRACE_MAX_BYTES"));
    // NOLINTEND(concurrency-mt-unsafe)
  } catch (const std::exception& e) {
    fail_everywhere(rank_, std::string(e.what()) + " (nothing traced)", 2);
  }
  const auto& names = traced_functions();
  for (const auto& name : config_.filter) {
    const auto it = std::find(names.begin(), names.end(), name);
    filtered_[static_cast<std::size_t>(it - names.begin())] = true;
  }
  PMPI_Comm_dup(MPI_COMM_WORLD, &trace_comm_);
  int exists = 0;
  if (rank_ == 0) {
    exists = path_exists(config_.dir + "/traces.otf2") || path_exists(config_.dir + "/traces") ? 1 : 0;
  }
  PMPI_Bcast(&exists, 1, MPI_INT, 0, trace_comm_);
  if (exists != 0) {
    fail_everywhere(rank_,
                    "'" + config_.dir +
                        "' already holds a trace (traces.otf2); remove it or set "
                        "GRIDLOCK_TRACE_DIR to a new directory (nothing traced)",
                    3);
  }
  archive_ = OTF2_Archive_Open(config_.dir.c_str(), "traces", OTF2_FILEMODE_WRITE, kChunkBytes,
                               4 * kChunkBytes, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  int ok = archive_ != nullptr ? 1 : 0;
  if (ok != 0) {
    ok = OTF2_Archive_SetFlushCallbacks(archive_, &kFlushCallbacks, nullptr) == OTF2_SUCCESS &&
                 OTF2_Archive_SetMemoryCallbacks(archive_, &kMemoryCallbacks, nullptr) == OTF2_SUCCESS &&
                 gridlock_trace_set_collectives(archive_, trace_comm_) == 0 &&
                 OTF2_Archive_OpenEvtFiles(archive_) == OTF2_SUCCESS
             ? 1
             : 0;
  }
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, trace_comm_);
  if (all_ok == 0) {
    fail_everywhere(rank_,
                    "cannot create the OTF2 archive in '" + config_.dir +
                        "': check that it can be created and written by every rank (nothing traced)",
                    3);
  }
  writer_ = OTF2_Archive_GetEvtWriter(archive_, static_cast<OTF2_LocationRef>(rank_));
  comms_[MPI_COMM_WORLD] = kWorldComm;
  comms_[MPI_COMM_SELF] = kSelfComm;
  start_ns_ = enter_ns;
  realtime_at_start_ns_ = clock_ns(CLOCK_REALTIME) - (now_ns() - enter_ns);
  active_ = true;
  std::atexit(at_exit);
  if (enter(init_fn, enter_ns)) leave(init_fn, leave_ns);
}

bool Recorder::room(std::uint64_t bytes) noexcept {
  if (config_.max_bytes == 0 || bytes_ + bytes <= config_.max_bytes) return true;
  if (!warned_cap_) {
    warned_cap_ = true;
    std::fprintf(stderr,
                 "gridlock-trace: warning: rank %d reached GRIDLOCK_TRACE_MAX_BYTES (%llu bytes of events); "
                 "its later MPI calls are not recorded (counted, reported at MPI_Finalize)\n",
                 rank_, static_cast<unsigned long long>(config_.max_bytes));
  }
  return false;
}

bool Recorder::enter(Fn fn, std::uint64_t t) noexcept {
  if (!active_ || filtered_[static_cast<std::size_t>(fn)]) return false;
  if (!room(kCallReserveBytes)) {
    ++dropped_calls_;
    return false;
  }
  OTF2_EvtWriter_Enter(writer_, nullptr, t, static_cast<OTF2_RegionRef>(fn));
  count_bytes(kEnterLeaveBytes);
  return true;
}

void Recorder::leave(Fn fn, std::uint64_t t) noexcept {
  OTF2_EvtWriter_Leave(writer_, nullptr, t, static_cast<OTF2_RegionRef>(fn));
  count_bytes(kEnterLeaveBytes);
}

void Recorder::send(std::uint64_t t, int peer, MPI_Comm comm, int tag, std::uint64_t bytes) noexcept {
  if (peer == MPI_PROC_NULL) return;
  OTF2_EvtWriter_MpiSend(writer_, nullptr, t, static_cast<std::uint32_t>(peer), comm_ref(comm),
                         static_cast<std::uint32_t>(tag), bytes);
  count_bytes(kSendBytes);
}

void Recorder::recv(std::uint64_t t, MPI_Comm comm, const MPI_Status& status) noexcept {
  if (status.MPI_SOURCE == MPI_PROC_NULL) return;
  int count = 0;
  PMPI_Get_count(&status, MPI_BYTE, &count);
  OTF2_EvtWriter_MpiRecv(writer_, nullptr, t, static_cast<std::uint32_t>(status.MPI_SOURCE), comm_ref(comm),
                         static_cast<std::uint32_t>(status.MPI_TAG),
                         static_cast<std::uint64_t>(std::max(count, 0)));
  count_bytes(kSendBytes);
}

void Recorder::isend(std::uint64_t t, int peer, MPI_Comm comm, int tag, std::uint64_t bytes,
                     MPI_Request request) noexcept {
  if (peer == MPI_PROC_NULL || request == MPI_REQUEST_NULL) return;
  const std::uint64_t id = next_request_++;
  const std::uint32_t ref = comm_ref(comm);
  OTF2_EvtWriter_MpiIsend(writer_, nullptr, t, static_cast<std::uint32_t>(peer), ref,
                          static_cast<std::uint32_t>(tag), bytes, id);
  count_bytes(kRequestBytes);
  if (!track(request, RequestInfo{id, ref, RequestInfo::Kind::Send})) {
    OTF2_EvtWriter_MpiIsendComplete(writer_, nullptr, t, id);
    count_bytes(kCompleteBytes);
  }
}

// Open MPI and MPICH return one shared, already-completed request object for the sends they finish
// inside MPI_Isend (small messages) and for MPI_PROC_NULL operations, so one handle can stand for several
// live requests of the program; keyed by handle, all but the last of them would never complete.
// A new request whose handle is still live in requests_ and complete is such a one: its
// completion is recorded at its start (it is complete then) and the earlier one keeps the handle.
// A live handle that is not complete is a stale entry (freed by a call the tracer does not see): replaced.
bool Recorder::track(MPI_Request request, const RequestInfo& info) noexcept {
  const auto [it, fresh] = requests_.try_emplace(request, info);
  if (fresh) return true;
  int done = 0;
  PMPI_Request_get_status(request, &done, MPI_STATUS_IGNORE);
  if (done != 0) return false;
  it->second = info;
  return true;
}

void Recorder::irecv(std::uint64_t t, MPI_Comm comm, MPI_Request request) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  const std::uint64_t id = next_request_++;
  OTF2_EvtWriter_MpiIrecvRequest(writer_, nullptr, t, id);
  count_bytes(kCompleteBytes);
  requests_[request] = RequestInfo{id, comm_ref(comm), RequestInfo::Kind::Recv};
}

void Recorder::complete(std::uint64_t t, MPI_Request request, const MPI_Status& status,
                        bool recorded) noexcept {
  if (!active_) return;
  const auto it = requests_.find(request);
  if (it == requests_.end()) return;
  const RequestInfo info = it->second;
  requests_.erase(it);
  if (!recorded && !room(kRequestBytes)) return;
  int cancelled = 0;
  PMPI_Test_cancelled(&status, &cancelled);
  if (cancelled != 0) {
    OTF2_EvtWriter_MpiRequestCancelled(writer_, nullptr, t, info.id);
    count_bytes(kCompleteBytes);
  } else if (info.kind == RequestInfo::Kind::Send) {
    OTF2_EvtWriter_MpiIsendComplete(writer_, nullptr, t, info.id);
    count_bytes(kCompleteBytes);
  } else if (info.kind == RequestInfo::Kind::Collective) {
    OTF2_EvtWriter_NonBlockingCollectiveComplete(writer_, nullptr, t, info.op, info.comm, info.root,
                                                 info.sent, info.received, info.id);
    count_bytes(kCollectiveBytes + 9);
  } else {
    int count = 0;
    PMPI_Get_count(&status, MPI_BYTE, &count);
    // A receive from MPI_PROC_NULL completes with that source: no message.
    const auto sender = status.MPI_SOURCE == MPI_PROC_NULL ? OTF2_UNDEFINED_UINT32
                                                           : static_cast<std::uint32_t>(status.MPI_SOURCE);
    OTF2_EvtWriter_MpiIrecv(writer_, nullptr, t, sender, info.comm,
                            static_cast<std::uint32_t>(status.MPI_TAG),
                            static_cast<std::uint64_t>(std::max(count, 0)), info.id);
    count_bytes(kRequestBytes);
  }
}

void Recorder::icollective(std::uint64_t t, MPI_Request request, OTF2_CollectiveOp op, MPI_Comm comm,
                           std::uint32_t root, std::uint64_t sent, std::uint64_t received) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  const std::uint64_t id = next_request_++;
  OTF2_EvtWriter_NonBlockingCollectiveRequest(writer_, nullptr, t, id);
  count_bytes(kCompleteBytes);
  RequestInfo info{id, comm_ref(comm), RequestInfo::Kind::Collective};
  info.op = op;
  info.root = root;
  info.sent = sent;
  info.received = received;
  if (!track(request, info)) {
    OTF2_EvtWriter_NonBlockingCollectiveComplete(writer_, nullptr, t, op, info.comm, root, sent, received,
                                                 id);
    count_bytes(kCollectiveBytes + 9);
  }
}

void Recorder::forget(MPI_Request request) noexcept {
  requests_.erase(request);
  persistent_.erase(request);
}

void Recorder::persistent(MPI_Request request, const PersistentInfo& info) noexcept {
  if (request != MPI_REQUEST_NULL) persistent_[request] = info;
}

void Recorder::start_persistent(std::uint64_t t, MPI_Request request) noexcept {
  const auto it = persistent_.find(request);
  if (it == persistent_.end()) return;
  const PersistentInfo& p = it->second;
  if (p.is_recv) {
    if (p.peer != MPI_PROC_NULL) irecv(t, p.comm, request);
  } else {
    isend(t, p.peer, p.comm, p.tag, p.bytes, request);
  }
}

void Recorder::collective_begin(std::uint64_t t) noexcept {
  OTF2_EvtWriter_MpiCollectiveBegin(writer_, nullptr, t);
  count_bytes(kEnterLeaveBytes);
}

void Recorder::collective_end(std::uint64_t t, OTF2_CollectiveOp op, MPI_Comm comm, std::uint32_t root,
                              std::uint64_t sent, std::uint64_t received) noexcept {
  OTF2_EvtWriter_MpiCollectiveEnd(writer_, nullptr, t, op, comm_ref(comm), root, sent, received);
  count_bytes(kCollectiveBytes);
}

void Recorder::comm_created(MPI_Comm parent, MPI_Comm comm) noexcept {
  if (!active_ || comm == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter != 0) {
    ++untracked_comms_;
    return;
  }
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  std::uint32_t id = OTF2_UNDEFINED_COMM;
  if (rank == 0 && comm_counter_ < kCommsPerRank) {
    id = 2 + static_cast<std::uint32_t>(rank_) * kCommsPerRank + comm_counter_++;
    int n = 0;
    PMPI_Comm_size(comm, &n);
    MPI_Group group = MPI_GROUP_NULL;
    MPI_Group world = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> local(static_cast<std::size_t>(n));
    std::iota(local.begin(), local.end(), 0);
    std::vector<int> global(static_cast<std::size_t>(n));
    PMPI_Group_translate_ranks(group, n, local.data(), world, global.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    own_comms_.push_back(
        OwnComm{id, comm_ref(parent), std::vector<std::uint64_t>(global.begin(), global.end())});
  }
  PMPI_Bcast(&id, 1, MPI_UINT32_T, 0, comm);
  if (id == OTF2_UNDEFINED_COMM) {
    ++untracked_comms_;
    return;
  }
  comms_[comm] = id;
}

void Recorder::comm_freed(MPI_Comm comm) noexcept { comms_.erase(comm); }

std::uint32_t Recorder::comm_ref(MPI_Comm comm) const noexcept {
  const auto it = comms_.find(comm);
  return it == comms_.end() ? OTF2_UNDEFINED_COMM : it->second;
}

void Recorder::finish() {
  if (!active_) return;
  const std::uint64_t t = now_ns();
  if (enter(Fn::Finalize, t)) leave(Fn::Finalize, t);
  active_ = false;
  finished_ = true;
  const std::uint64_t end = now_ns();
  std::uint64_t events = 0;
  OTF2_EvtWriter_GetNumberOfEvents(writer_, &events);
  OTF2_Archive_CloseEvtWriter(archive_, writer_);
  writer_ = nullptr;
  OTF2_Archive_CloseEvtFiles(archive_);

  // What rank 0 needs for the global definitions.
  const auto n = static_cast<std::size_t>(size_);
  std::vector<std::uint64_t> all_events(n);
  std::vector<std::uint64_t> starts(n);
  std::vector<std::uint64_t> ends(n);
  PMPI_Gather(&events, 1, MPI_UINT64_T, all_events.data(), 1, MPI_UINT64_T, 0, trace_comm_);
  PMPI_Gather(&start_ns_, 1, MPI_UINT64_T, starts.data(), 1, MPI_UINT64_T, 0, trace_comm_);
  PMPI_Gather(&end, 1, MPI_UINT64_T, ends.data(), 1, MPI_UINT64_T, 0, trace_comm_);
  std::vector<char> host(MPI_MAX_PROCESSOR_NAME, '\0');
  int host_len = 0;
  PMPI_Get_processor_name(host.data(), &host_len);
  std::vector<char> hosts(rank_ == 0 ? n * MPI_MAX_PROCESSOR_NAME : 0);
  PMPI_Gather(host.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
              0, trace_comm_);
  std::vector<std::uint64_t> mine;
  for (const auto& c : own_comms_) {
    mine.push_back(c.id);
    mine.push_back(c.parent);
    mine.push_back(c.members.size());
    mine.insert(mine.end(), c.members.begin(), c.members.end());
  }
  const int mine_count = static_cast<int>(mine.size());
  std::vector<int> counts(n);
  PMPI_Gather(&mine_count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, trace_comm_);
  std::vector<int> displs(n);
  if (rank_ == 0) std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  std::vector<std::uint64_t> comm_data(rank_ == 0 ? static_cast<std::size_t>(displs.back() + counts.back())
                                                  : 0);
  PMPI_Gatherv(mine.data(), mine_count, MPI_UINT64_T, comm_data.data(), counts.data(), displs.data(),
               MPI_UINT64_T, 0, trace_comm_);
  std::uint64_t dropped_total = 0;
  PMPI_Reduce(&dropped_calls_, &dropped_total, 1, MPI_UINT64_T, MPI_SUM, 0, trace_comm_);

  // Rank 0 numbers the created communicators densely (parents first); every rank maps the ids
  // in its events to those numbers with an OTF2 mapping table, which readers apply.
  std::vector<CommDef> defs;
  if (rank_ == 0) defs = order_comms(comm_data);
  std::vector<std::uint64_t> order(defs.size());
  std::transform(defs.begin(), defs.end(), order.begin(), [](const CommDef& d) { return d.id; });
  std::uint64_t order_count = order.size();
  PMPI_Bcast(&order_count, 1, MPI_UINT64_T, 0, trace_comm_);
  order.resize(order_count);
  PMPI_Bcast(order.data(), static_cast<int>(order_count), MPI_UINT64_T, 0, trace_comm_);
  OTF2_Archive_OpenDefFiles(archive_);
  OTF2_DefWriter* local_defs = OTF2_Archive_GetDefWriter(archive_, static_cast<OTF2_LocationRef>(rank_));
  if (!order.empty()) {
    OTF2_IdMap* map = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, order.size() + 2);
    OTF2_IdMap_AddIdPair(map, kWorldComm, kWorldComm);
    OTF2_IdMap_AddIdPair(map, kSelfComm, kSelfComm);
    for (std::size_t i = 0; i < order.size(); ++i) OTF2_IdMap_AddIdPair(map, order[i], 2 + i);
    OTF2_DefWriter_WriteMappingTable(local_defs, OTF2_MAPPING_COMM, map);
    OTF2_IdMap_Free(map);
  }
  OTF2_Archive_CloseDefWriter(archive_, local_defs);
  OTF2_Archive_CloseDefFiles(archive_);
  if (rank_ == 0) {
    const std::uint64_t offset = *std::min_element(starts.begin(), starts.end());
    write_global_definitions(all_events, starts, ends, hosts, defs,
                             realtime_at_start_ns_ - (start_ns_ - offset));
  }
  OTF2_Archive_Close(archive_);
  archive_ = nullptr;
  PMPI_Comm_free(&trace_comm_);
  if (rank_ == 0) {
    const std::uint64_t total = std::accumulate(all_events.begin(), all_events.end(), std::uint64_t{0});
    std::fprintf(stderr, "gridlock-trace: wrote %s/traces.otf2: %d ranks, %llu events\n", config_.dir.c_str(),
                 size_, static_cast<unsigned long long>(total));
    if (dropped_total > 0) {
      std::fprintf(stderr,
                   "gridlock-trace: warning: %llu MPI calls not recorded after GRIDLOCK_TRACE_MAX_BYTES "
                   "(%llu bytes per rank) was reached: the trace is incomplete\n",
                   static_cast<unsigned long long>(dropped_total),
                   static_cast<unsigned long long>(config_.max_bytes));
    }
  }
  if (untracked_comms_ > 0) {
    std::fprintf(
        stderr,
        "gridlock-trace: warning: rank %d: %llu communicators not defined in the trace "
        "(intercommunicators, or more than %u created by one rank); their events name no communicator\n",
        rank_, static_cast<unsigned long long>(untracked_comms_), kCommsPerRank);
  }
}

void Recorder::write_global_definitions(const std::vector<std::uint64_t>& events,
                                        const std::vector<std::uint64_t>& starts,
                                        const std::vector<std::uint64_t>& ends,
                                        const std::vector<char>& hosts, const std::vector<CommDef>& defs,
                                        std::uint64_t realtime_offset_ns) {
  OTF2_GlobalDefWriter* w = OTF2_Archive_GetGlobalDefWriter(archive_);
  std::unordered_map<std::string, OTF2_StringRef> strings;
  const auto str = [&](const std::string& s) {
    const auto [it, added] = strings.try_emplace(s, static_cast<OTF2_StringRef>(strings.size()));
    if (added) OTF2_GlobalDefWriter_WriteString(w, it->second, s.c_str());
    return it->second;
  };
  const std::uint64_t offset = *std::min_element(starts.begin(), starts.end());
  const std::uint64_t last = *std::max_element(ends.begin(), ends.end());
  OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000ULL, offset, last - offset, realtime_offset_ns);
  OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, str("MPI"), OTF2_PARADIGM_CLASS_PROCESS);

  // System tree: machine > one node per host name > one process per rank.
  OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, str("machine"), str("machine"),
                                           OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  std::unordered_map<std::string, OTF2_SystemTreeNodeRef> nodes;
  const auto n = static_cast<std::uint32_t>(events.size());
  for (std::uint32_t r = 0; r < n; ++r) {
    const char* h = hosts.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    const std::string host(h, strnlen(h, MPI_MAX_PROCESSOR_NAME));
    auto [it, added] = nodes.try_emplace(host, static_cast<OTF2_SystemTreeNodeRef>(nodes.size() + 1));
    if (added) OTF2_GlobalDefWriter_WriteSystemTreeNode(w, it->second, str(host), str("node"), 0);
    const std::string rank_name = "MPI Rank " + std::to_string(r);
    OTF2_GlobalDefWriter_WriteLocationGroup(w, r, str(rank_name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                            it->second, OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(w, r, str("Master thread"), OTF2_LOCATION_TYPE_CPU_THREAD, events[r],
                                       r);
  }

  const auto& names = traced_functions();
  for (std::uint32_t f = 0; f < names.size(); ++f) {
    const OTF2_StringRef name = str(std::string(names[f]));
    OTF2_GlobalDefWriter_WriteRegion(w, f, name, name, str(""), role_of(static_cast<Fn>(f)),
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, str("MPI"), 0, 0);
  }

  // Groups: 0 the ranks' locations, 1 MPI_COMM_WORLD, 2 MPI_COMM_SELF, 3.. the created ones;
  // members of a communicator group are world ranks (= locations).
  std::vector<std::uint64_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  OTF2_GlobalDefWriter_WriteGroup(w, 0, str(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, n, all.data());
  OTF2_GlobalDefWriter_WriteGroup(w, 1, str(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, n, all.data());
  OTF2_GlobalDefWriter_WriteGroup(w, 2, str(""), OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 0, nullptr);
  OTF2_GlobalDefWriter_WriteComm(w, kWorldComm, str("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
                                 OTF2_COMM_FLAG_NONE);
  OTF2_GlobalDefWriter_WriteComm(w, kSelfComm, str("MPI_COMM_SELF"), 2, OTF2_UNDEFINED_COMM,
                                 OTF2_COMM_FLAG_NONE);
  std::unordered_map<std::uint64_t, std::uint32_t> dense = {{kWorldComm, kWorldComm}, {kSelfComm, kSelfComm}};
  for (std::size_t i = 0; i < defs.size(); ++i) dense[defs[i].id] = static_cast<std::uint32_t>(2 + i);
  for (std::size_t i = 0; i < defs.size(); ++i) {
    OTF2_GlobalDefWriter_WriteGroup(
        w, static_cast<OTF2_GroupRef>(3 + i), str(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
        OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(defs[i].members.size()), defs[i].members.data());
  }
  for (std::size_t i = 0; i < defs.size(); ++i) {
    const auto parent = dense.find(defs[i].parent);
    const auto id = static_cast<std::uint32_t>(2 + i);
    OTF2_GlobalDefWriter_WriteComm(
        w, id, str("MPI_Comm " + std::to_string(id)), static_cast<OTF2_GroupRef>(3 + i),
        parent == dense.end() ? OTF2_UNDEFINED_COMM : parent->second, OTF2_COMM_FLAG_NONE);
  }
  OTF2_Archive_CloseGlobalDefWriter(archive_, w);
}

void Recorder::emergency_flush(const char* why) noexcept {
  if (!active_ || finished_) return;
  active_ = false;
  finished_ = true;
  std::uint64_t events = 0;
  OTF2_EvtWriter_GetNumberOfEvents(writer_, &events);
  OTF2_Archive_CloseEvtWriter(archive_, writer_);
  writer_ = nullptr;
  std::fprintf(stderr,
               "gridlock-trace: warning: rank %d: %s; flushed its %llu events to %s/traces/%d.evt, but the "
               "archive has no global definitions (written in MPI_Finalize): OTF2 readers cannot open it\n",
               rank_, why, static_cast<unsigned long long>(events), config_.dir.c_str(), rank_);
}

}  // namespace gridlock::trace::detail
