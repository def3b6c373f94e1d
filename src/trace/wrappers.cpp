// The MPI C functions of libgridlock-trace.so: each calls its PMPI_ twin and records the call
// (Enter/Leave) and what it did (messages, requests, collectives, communicators) in OTF2.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include "detail/call.hpp"

namespace {

using gridlock::trace::detail::bytes_of;
using gridlock::trace::detail::Call;
using gridlock::trace::detail::Fn;
using gridlock::trace::detail::now_ns;
using gridlock::trace::detail::rec;

std::uint64_t bytes_of(const int* counts, int n, MPI_Datatype type) {
  if (counts == nullptr) return 0;
  std::uint64_t sum = 0;
  for (int i = 0; i < n; ++i) sum += bytes_of(counts[i], type);
  return sum;
}

int comm_size(MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  return n;
}

int comm_rank(MPI_Comm comm) {
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}

bool in_place(const void* buf) { return buf == MPI_IN_PLACE; }

// Scratch arrays for the wait/test families (the handles before the call frees them, statuses
// when the program ignores them), reused to keep allocations out of the calls.
thread_local std::vector<MPI_Request> saved_requests;
thread_local std::vector<MPI_Status> scratch_statuses;

const MPI_Request* save(int n, const MPI_Request* requests) {
  saved_requests.assign(requests, requests + std::max(n, 0));
  return saved_requests.data();
}

MPI_Status* statuses_for(int n, MPI_Status* statuses) {
  if (statuses != MPI_STATUSES_IGNORE) return statuses;
  scratch_statuses.resize(static_cast<std::size_t>(std::max(n, 1)));
  return scratch_statuses.data();
}

// A collective call: Enter, CollectiveBegin, the call, CollectiveEnd with its sizes, Leave.
template <typename Sizes, typename Body>
int collective(Fn fn, OTF2_CollectiveOp op, MPI_Comm comm, std::uint32_t root, Body body, Sizes sizes) {
  const Call call(fn);
  if (call.recorded()) rec().collective_begin(now_ns());
  const int rc = body();
  if (call.recorded() && rc == MPI_SUCCESS) {
    const auto [sent, received] = sizes();
    rec().collective_end(now_ns(), op, comm, root, sent, received);
  }
  return rc;
}

struct Sizes {
  std::uint64_t sent;
  std::uint64_t received;
};

constexpr std::uint32_t kNoRoot = OTF2_COLLECTIVE_ROOT_NONE;

int send_like(Fn fn, const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              int (*pmpi)(const void*, int, MPI_Datatype, int, int, MPI_Comm)) {
  const Call call(fn);
  if (call.recorded()) rec().send(now_ns(), dest, comm, tag, bytes_of(count, type));
  return pmpi(buf, count, type, dest, tag, comm);
}

int isend_like(Fn fn, const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request,
               int (*pmpi)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*)) {
  const Call call(fn);
  const int rc = pmpi(buf, count, type, dest, tag, comm, request);
  if (call.recorded() && rc == MPI_SUCCESS)
    rec().isend(now_ns(), dest, comm, tag, bytes_of(count, type), *request);
  return rc;
}

int created(MPI_Comm parent, MPI_Comm* newcomm, int rc) {
  if (rc == MPI_SUCCESS && newcomm != nullptr) rec().comm_created(parent, *newcomm);
  return rc;
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const std::uint64_t t = now_ns();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) rec().start(Fn::Init, t, now_ns());
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const std::uint64_t t = now_ns();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    rec().start(Fn::InitThread, t, now_ns());
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (*provided == MPI_THREAD_MULTIPLE && rank == 0) {
      std::fprintf(
          stderr,
          "gridlock-trace: warning: MPI_THREAD_MULTIPLE: the tracer records one stream per rank; MPI "
          "calls made from several threads at once garble the trace (docs/tracing.md, Limits)\n");
    }
  }
  return rc;
}

int MPI_Finalize() {
  rec().finish();
  return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  rec().emergency_flush("MPI_Abort was called");
  return PMPI_Abort(comm, errorcode);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_like(Fn::Send, buf, count, type, dest, tag, comm, PMPI_Send);
}
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_like(Fn::Ssend, buf, count, type, dest, tag, comm, PMPI_Ssend);
}
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_like(Fn::Bsend, buf, count, type, dest, tag, comm, PMPI_Bsend);
}
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_like(Fn::Rsend, buf, count, type, dest, tag, comm, PMPI_Rsend);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  const Call call(Fn::Recv);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  if (call.recorded() && rc == MPI_SUCCESS) rec().recv(now_ns(), comm, *st);
  return rc;
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return isend_like(Fn::Isend, buf, count, type, dest, tag, comm, request, PMPI_Isend);
}
int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return isend_like(Fn::Issend, buf, count, type, dest, tag, comm, request, PMPI_Issend);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  const Call call(Fn::Irecv);
  const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  if (call.recorded() && rc == MPI_SUCCESS && source != MPI_PROC_NULL) rec().irecv(now_ns(), comm, *request);
  return rc;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status* status) {
  const Call call(Fn::Sendrecv);
  if (call.recorded()) rec().send(now_ns(), dest, comm, sendtag, bytes_of(sendcount, sendtype));
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                               source, recvtag, comm, st);
  if (call.recorded() && rc == MPI_SUCCESS) rec().recv(now_ns(), comm, *st);
  return rc;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  const Call call(Fn::SendrecvReplace);
  if (call.recorded()) rec().send(now_ns(), dest, comm, sendtag, bytes_of(count, type));
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
  if (call.recorded() && rc == MPI_SUCCESS) rec().recv(now_ns(), comm, *st);
  return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  const Call call(Fn::Probe);
  return PMPI_Probe(source, tag, comm, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  const Call call(Fn::Iprobe);
  return PMPI_Iprobe(source, tag, comm, flag, status);
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  const Call call(Fn::SendInit);
  const int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS && rec().active()) {
    rec().persistent(*request, {dest, comm, tag, bytes_of(count, type), false});
  }
  return rc;
}

namespace {
int send_init_like(Fn fn, const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request,
                   int (*pmpi)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*)) {
  const Call call(fn);
  const int rc = pmpi(buf, count, type, dest, tag, comm, request);
  if (rc == MPI_SUCCESS && rec().active()) {
    rec().persistent(*request, {dest, comm, tag, bytes_of(count, type), false});
  }
  return rc;
}
}  // namespace

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return send_init_like(Fn::SsendInit, buf, count, type, dest, tag, comm, request, PMPI_Ssend_init);
}
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return send_init_like(Fn::BsendInit, buf, count, type, dest, tag, comm, request, PMPI_Bsend_init);
}
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return send_init_like(Fn::RsendInit, buf, count, type, dest, tag, comm, request, PMPI_Rsend_init);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  const Call call(Fn::RecvInit);
  const int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
  if (rc == MPI_SUCCESS && rec().active()) rec().persistent(*request, {source, comm, tag, 0, true});
  return rc;
}

int MPI_Start(MPI_Request* request) {
  const Call call(Fn::Start);
  const int rc = PMPI_Start(request);
  if (call.recorded() && rc == MPI_SUCCESS) rec().start_persistent(now_ns(), *request);
  return rc;
}

int MPI_Startall(int count, MPI_Request requests[]) {
  const Call call(Fn::Startall);
  const int rc = PMPI_Startall(count, requests);
  if (call.recorded() && rc == MPI_SUCCESS) {
    const std::uint64_t t = now_ns();
    for (int i = 0; i < count; ++i) rec().start_persistent(t, requests[i]);
  }
  return rc;
}

int MPI_Request_free(MPI_Request* request) {
  if (request != nullptr) rec().forget(*request);
  return PMPI_Request_free(request);
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  const Call call(Fn::Wait);
  const MPI_Request old = *request;
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Wait(request, st);
  if (rc == MPI_SUCCESS) rec().complete(now_ns(), old, *st, call.recorded());
  return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const Call call(Fn::Test);
  const MPI_Request old = *request;
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Test(request, flag, st);
  if (rc == MPI_SUCCESS && *flag != 0) rec().complete(now_ns(), old, *st, call.recorded());
  return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  const Call call(Fn::Waitall);
  const MPI_Request* old = save(count, requests);
  MPI_Status* st = statuses_for(count, statuses);
  const int rc = PMPI_Waitall(count, requests, st);
  if (rc == MPI_SUCCESS) {
    const std::uint64_t t = now_ns();
    for (int i = 0; i < count; ++i) rec().complete(t, old[i], st[i], call.recorded());
  }
  return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  const Call call(Fn::Testall);
  const MPI_Request* old = save(count, requests);
  MPI_Status* st = statuses_for(count, statuses);
  const int rc = PMPI_Testall(count, requests, flag, st);
  if (rc == MPI_SUCCESS && *flag != 0) {
    const std::uint64_t t = now_ns();
    for (int i = 0; i < count; ++i) rec().complete(t, old[i], st[i], call.recorded());
  }
  return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  const Call call(Fn::Waitany);
  const MPI_Request* old = save(count, requests);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Waitany(count, requests, index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
    rec().complete(now_ns(), old[*index], *st, call.recorded());
  return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  const Call call(Fn::Testany);
  const MPI_Request* old = save(count, requests);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  const int rc = PMPI_Testany(count, requests, index, flag, st);
  if (rc == MPI_SUCCESS && *flag != 0 && *index != MPI_UNDEFINED) {
    rec().complete(now_ns(), old[*index], *st, call.recorded());
  }
  return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  const Call call(Fn::Waitsome);
  const MPI_Request* old = save(incount, requests);
  MPI_Status* st = statuses_for(incount, statuses);
  const int rc = PMPI_Waitsome(incount, requests, outcount, indices, st);
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
    const std::uint64_t t = now_ns();
    for (int i = 0; i < *outcount; ++i) rec().complete(t, old[indices[i]], st[i], call.recorded());
  }
  return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  const Call call(Fn::Testsome);
  const MPI_Request* old = save(incount, requests);
  MPI_Status* st = statuses_for(incount, statuses);
  const int rc = PMPI_Testsome(incount, requests, outcount, indices, st);
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
    const std::uint64_t t = now_ns();
    for (int i = 0; i < *outcount; ++i) rec().complete(t, old[indices[i]], st[i], call.recorded());
  }
  return rc;
}

int MPI_Barrier(MPI_Comm comm) {
  return collective(
      Fn::Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, kNoRoot, [&] { return PMPI_Barrier(comm); },
      [] {
        return Sizes{0, 0};
      });
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return collective(
      Fn::Bcast, OTF2_COLLECTIVE_OP_BCAST, comm, static_cast<std::uint32_t>(root),
      [&] { return PMPI_Bcast(buf, count, type, root, comm); },
      [&] {
        const std::uint64_t b = bytes_of(count, type);
        return comm_rank(comm) == root ? Sizes{b, 0} : Sizes{0, b};
      });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  return collective(
      Fn::Reduce, OTF2_COLLECTIVE_OP_REDUCE, comm, static_cast<std::uint32_t>(root),
      [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); },
      [&] {
        const std::uint64_t b = bytes_of(count, type);
        return Sizes{b, comm_rank(comm) == root ? b : 0};
      });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  return collective(
      Fn::Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, kNoRoot,
      [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); },
      [&] {
        const std::uint64_t b = bytes_of(count, type);
        return Sizes{b, b};
      });
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return collective(
      Fn::Scan, OTF2_COLLECTIVE_OP_SCAN, comm, kNoRoot,
      [&] { return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm); },
      [&] {
        const std::uint64_t b = bytes_of(count, type);
        return Sizes{b, b};
      });
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return collective(
      Fn::Exscan, OTF2_COLLECTIVE_OP_EXSCAN, comm, kNoRoot,
      [&] { return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm); },
      [&] {
        const std::uint64_t b = bytes_of(count, type);
        return Sizes{b, b};
      });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return collective(
      Fn::Gather, OTF2_COLLECTIVE_OP_GATHER, comm, static_cast<std::uint32_t>(root),
      [&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      [&] {
        const bool is_root = comm_rank(comm) == root;
        const std::uint64_t sent =
            in_place(sendbuf) ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
        const std::uint64_t received =
            is_root ? bytes_of(recvcount, recvtype) * static_cast<std::uint64_t>(comm_size(comm)) : 0;
        return Sizes{sent, received};
      });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return collective(
      Fn::Gatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, static_cast<std::uint32_t>(root),
      [&] {
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
      },
      [&] {
        const int me = comm_rank(comm);
        const bool is_root = me == root;
        const std::uint64_t sent =
            in_place(sendbuf) ? bytes_of(recvcounts[me], recvtype) : bytes_of(sendcount, sendtype);
        const std::uint64_t received = is_root ? bytes_of(recvcounts, comm_size(comm), recvtype) : 0;
        return Sizes{sent, received};
      });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return collective(
      Fn::Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, static_cast<std::uint32_t>(root),
      [&] { return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      [&] {
        const bool is_root = comm_rank(comm) == root;
        const std::uint64_t sent =
            is_root ? bytes_of(sendcount, sendtype) * static_cast<std::uint64_t>(comm_size(comm)) : 0;
        const std::uint64_t received =
            in_place(recvbuf) ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
        return Sizes{sent, received};
      });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return collective(
      Fn::Scatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, static_cast<std::uint32_t>(root),
      [&] {
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      [&] {
        const int me = comm_rank(comm);
        const bool is_root = me == root;
        const std::uint64_t sent = is_root ? bytes_of(sendcounts, comm_size(comm), sendtype) : 0;
        const std::uint64_t received =
            in_place(recvbuf) ? bytes_of(sendcounts[me], sendtype) : bytes_of(recvcount, recvtype);
        return Sizes{sent, received};
      });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return collective(
      Fn::Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, kNoRoot,
      [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      [&] {
        const std::uint64_t sent =
            in_place(sendbuf) ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
        return Sizes{sent, bytes_of(recvcount, recvtype) * static_cast<std::uint64_t>(comm_size(comm))};
      });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return collective(
      Fn::Allgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, kNoRoot,
      [&] {
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
      },
      [&] {
        const std::uint64_t sent = in_place(sendbuf) ? bytes_of(recvcounts[comm_rank(comm)], recvtype)
                                                     : bytes_of(sendcount, sendtype);
        return Sizes{sent, bytes_of(recvcounts, comm_size(comm), recvtype)};
      });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  return collective(
      Fn::Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, kNoRoot,
      [&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      [&] {
        const auto n = static_cast<std::uint64_t>(comm_size(comm));
        const std::uint64_t received = bytes_of(recvcount, recvtype) * n;
        return Sizes{in_place(sendbuf) ? received : bytes_of(sendcount, sendtype) * n, received};
      });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm) {
  return collective(
      Fn::Alltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, kNoRoot,
      [&] {
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                              comm);
      },
      [&] {
        const int n = comm_size(comm);
        const std::uint64_t received = bytes_of(recvcounts, n, recvtype);
        return Sizes{in_place(sendbuf) ? received : bytes_of(sendcounts, n, sendtype), received};
      });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm) {
  return collective(
      Fn::ReduceScatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, kNoRoot,
      [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm); },
      [&] {
        return Sizes{bytes_of(recvcounts, comm_size(comm), type),
                     bytes_of(recvcounts[comm_rank(comm)], type)};
      });
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm) {
  return collective(
      Fn::ReduceScatterBlock, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, kNoRoot,
      [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); },
      [&] {
        const std::uint64_t b = bytes_of(recvcount, type);
        return Sizes{b * static_cast<std::uint64_t>(comm_size(comm)), b};
      });
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  const Call call(Fn::CommDup);
  return created(comm, newcomm, PMPI_Comm_dup(comm, newcomm));
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const Call call(Fn::CommSplit);
  return created(comm, newcomm, PMPI_Comm_split(comm, color, key, newcomm));
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const Call call(Fn::CommSplitType);
  return created(comm, newcomm, PMPI_Comm_split_type(comm, split_type, key, info, newcomm));
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const Call call(Fn::CommCreate);
  return created(comm, newcomm, PMPI_Comm_create(comm, group, newcomm));
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* newcomm) {
  const Call call(Fn::CartCreate);
  return created(comm, newcomm, PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm));
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const Call call(Fn::CartSub);
  return created(comm, newcomm, PMPI_Cart_sub(comm, remain_dims, newcomm));
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* newcomm) {
  const Call call(Fn::GraphCreate);
  return created(comm, newcomm, PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm));
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const Call call(Fn::CommCreateGroup);
  return created(comm, newcomm, PMPI_Comm_create_group(comm, group, tag, newcomm));
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree, const int destinations[],
                                   const int destweights[], MPI_Info info, int reorder, MPI_Comm* newcomm) {
  const Call call(Fn::DistGraphCreateAdjacent);
  return created(comm, newcomm,
                 PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                                 destinations, destweights, info, reorder, newcomm));
}

// Nonblocking collectives: a NonBlockingCollectiveRequest now, the operation, communicator,
// root and sizes (the same as the blocking twin's) at the completion of the request.
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  const Call call(Fn::Ibarrier);
  const int rc = PMPI_Ibarrier(comm, request);
  if (call.recorded() && rc == MPI_SUCCESS) {
    rec().icollective(now_ns(), *request, OTF2_COLLECTIVE_OP_BARRIER, comm, kNoRoot, 0, 0);
  }
  return rc;
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  const Call call(Fn::Ibcast);
  const int rc = PMPI_Ibcast(buf, count, type, root, comm, request);
  if (call.recorded() && rc == MPI_SUCCESS) {
    const std::uint64_t b = bytes_of(count, type);
    const bool is_root = comm_rank(comm) == root;
    rec().icollective(now_ns(), *request, OTF2_COLLECTIVE_OP_BCAST, comm, static_cast<std::uint32_t>(root),
                      is_root ? b : 0, is_root ? 0 : b);
  }
  return rc;
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
  const Call call(Fn::Ireduce);
  const int rc = PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
  if (call.recorded() && rc == MPI_SUCCESS) {
    const std::uint64_t b = bytes_of(count, type);
    rec().icollective(now_ns(), *request, OTF2_COLLECTIVE_OP_REDUCE, comm, static_cast<std::uint32_t>(root),
                      b, comm_rank(comm) == root ? b : 0);
  }
  return rc;
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  const Call call(Fn::Iallreduce);
  const int rc = PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
  if (call.recorded() && rc == MPI_SUCCESS) {
    const std::uint64_t b = bytes_of(count, type);
    rec().icollective(now_ns(), *request, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, kNoRoot, b, b);
  }
  return rc;
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Call call(Fn::Iallgather);
  const int rc = PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  if (call.recorded() && rc == MPI_SUCCESS) {
    const std::uint64_t sent =
        in_place(sendbuf) ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
    rec().icollective(now_ns(), *request, OTF2_COLLECTIVE_OP_ALLGATHER, comm, kNoRoot, sent,
                      bytes_of(recvcount, recvtype) * static_cast<std::uint64_t>(comm_size(comm)));
  }
  return rc;
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Call call(Fn::Ialltoall);
  const int rc = PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  if (call.recorded() && rc == MPI_SUCCESS) {
    const auto n = static_cast<std::uint64_t>(comm_size(comm));
    const std::uint64_t received = bytes_of(recvcount, recvtype) * n;
    rec().icollective(now_ns(), *request, OTF2_COLLECTIVE_OP_ALLTOALL, comm, kNoRoot,
                      in_place(sendbuf) ? received : bytes_of(sendcount, sendtype) * n, received);
  }
  return rc;
}

int MPI_Comm_free(MPI_Comm* comm) {
  const Call call(Fn::CommFree);
  if (comm != nullptr) rec().comm_freed(*comm);
  return PMPI_Comm_free(comm);
}

}  // extern "C"
