// Fortran bindings (`mpif.h` and `use mpi`, gfortran's names: lower case, one underscore) of the
// most used MPI functions. The MPI library's own Fortran bindings call PMPI_ directly, so the C
// wrappers never see Fortran programs' calls. Each function here records the call and calls the
// library's own binding (found with dlsym(RTLD_NEXT)), which keeps every Fortran convention
// (MPI_IN_PLACE, MPI_STATUS_IGNORE, handle tables) the library's business.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "detail/call.hpp"

namespace {

using gridlock::trace::detail::bytes_of;
using gridlock::trace::detail::Call;
using gridlock::trace::detail::Fn;
using gridlock::trace::detail::now_ns;
using gridlock::trace::detail::rec;
using F = MPI_Fint;

// The MPI library's binding of `name`, looked up once.
template <typename Sig>
Sig* real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "gridlock-trace: error: the MPI library has no Fortran binding %s\n", name);
    std::abort();
  }
  return reinterpret_cast<Sig*>(f);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): dlsym
}

// Fortran's MPI_STATUS_SIZE: MPI-4 names it in C; before, the C status has the same size (Open
// MPI 6 and MPICH 5 integers).
#ifdef kStatusSize
constexpr int kStatusSize = kStatusSize;
#else
constexpr int kStatusSize = static_cast<int>(sizeof(MPI_Status) / sizeof(MPI_Fint));
#endif

// A Fortran status the library fills even when the program ignores it (to read the sender).
struct FStatus {
  F values[kStatusSize] = {};
  MPI_Status c() const {
    MPI_Status s{};
    PMPI_Status_f2c(values, &s);
    return s;
  }
};

void copy_status(const FStatus& from, F* to) {
  if (to == MPI_F_STATUS_IGNORE) return;
  std::copy(std::begin(from.values), std::end(from.values), to);
}

}  // namespace

extern "C" {

void mpi_init_(F* ierr) {
  static auto* f = real<void(F*)>("mpi_init_");
  const std::uint64_t t = now_ns();
  f(ierr);
  if (*ierr == MPI_SUCCESS) rec().start(Fn::Init, t, now_ns());
}

void mpi_init_thread_(F* required, F* provided, F* ierr) {
  static auto* f = real<void(F*, F*, F*)>("mpi_init_thread_");
  const std::uint64_t t = now_ns();
  f(required, provided, ierr);
  if (*ierr == MPI_SUCCESS) rec().start(Fn::InitThread, t, now_ns());
}

void mpi_finalize_(F* ierr) {
  static auto* f = real<void(F*)>("mpi_finalize_");
  rec().finish();
  f(ierr);
}

void mpi_send_(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* ierr) {
  static auto* f = real<void(void*, F*, F*, F*, F*, F*, F*)>("mpi_send_");
  const Call call(Fn::Send);
  if (call.recorded()) {
    rec().send(now_ns(), *dest, PMPI_Comm_f2c(*comm), *tag, bytes_of(*count, PMPI_Type_f2c(*type)));
  }
  f(buf, count, type, dest, tag, comm, ierr);
}

void mpi_recv_(void* buf, F* count, F* type, F* source, F* tag, F* comm, F* status, F* ierr) {
  static auto* f = real<void(void*, F*, F*, F*, F*, F*, F*, F*)>("mpi_recv_");
  const Call call(Fn::Recv);
  FStatus st;
  f(buf, count, type, source, tag, comm, st.values, ierr);
  copy_status(st, status);
  if (call.recorded() && *ierr == MPI_SUCCESS) rec().recv(now_ns(), PMPI_Comm_f2c(*comm), st.c());
}

void mpi_isend_(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* request, F* ierr) {
  static auto* f = real<void(void*, F*, F*, F*, F*, F*, F*, F*)>("mpi_isend_");
  const Call call(Fn::Isend);
  f(buf, count, type, dest, tag, comm, request, ierr);
  if (call.recorded() && *ierr == MPI_SUCCESS) {
    rec().isend(now_ns(), *dest, PMPI_Comm_f2c(*comm), *tag, bytes_of(*count, PMPI_Type_f2c(*type)),
                PMPI_Request_f2c(*request));
  }
}

void mpi_irecv_(void* buf, F* count, F* type, F* source, F* tag, F* comm, F* request, F* ierr) {
  static auto* f = real<void(void*, F*, F*, F*, F*, F*, F*, F*)>("mpi_irecv_");
  const Call call(Fn::Irecv);
  f(buf, count, type, source, tag, comm, request, ierr);
  if (call.recorded() && *ierr == MPI_SUCCESS && *source != MPI_PROC_NULL) {
    rec().irecv(now_ns(), PMPI_Comm_f2c(*comm), PMPI_Request_f2c(*request));
  }
}

void mpi_wait_(F* request, F* status, F* ierr) {
  static auto* f = real<void(F*, F*, F*)>("mpi_wait_");
  const Call call(Fn::Wait);
  const MPI_Request old = PMPI_Request_f2c(*request);
  FStatus st;
  f(request, st.values, ierr);
  copy_status(st, status);
  if (*ierr == MPI_SUCCESS) rec().complete(now_ns(), old, st.c(), call.recorded());
}

void mpi_waitall_(F* count, F* requests, F* statuses, F* ierr) {
  static auto* f = real<void(F*, F*, F*, F*)>("mpi_waitall_");
  const Call call(Fn::Waitall);
  const int n = std::max(*count, 0);
  std::vector<MPI_Request> old(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) old[static_cast<std::size_t>(i)] = PMPI_Request_f2c(requests[i]);
  std::vector<F> st(static_cast<std::size_t>(std::max(n, 1)) * kStatusSize);
  f(count, requests, st.data(), ierr);
  if (statuses != MPI_F_STATUSES_IGNORE)
    std::copy(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(n) * kStatusSize, statuses);
  if (*ierr == MPI_SUCCESS) {
    const std::uint64_t t = now_ns();
    for (int i = 0; i < n; ++i) {
      MPI_Status s{};
      PMPI_Status_f2c(st.data() + static_cast<std::ptrdiff_t>(i) * kStatusSize, &s);
      rec().complete(t, old[static_cast<std::size_t>(i)], s, call.recorded());
    }
  }
}

void mpi_barrier_(F* comm, F* ierr) {
  static auto* f = real<void(F*, F*)>("mpi_barrier_");
  const Call call(Fn::Barrier);
  if (call.recorded()) rec().collective_begin(now_ns());
  f(comm, ierr);
  if (call.recorded() && *ierr == MPI_SUCCESS) {
    rec().collective_end(now_ns(), OTF2_COLLECTIVE_OP_BARRIER, PMPI_Comm_f2c(*comm),
                         OTF2_COLLECTIVE_ROOT_NONE, 0, 0);
  }
}

void mpi_bcast_(void* buf, F* count, F* type, F* root, F* comm, F* ierr) {
  static auto* f = real<void(void*, F*, F*, F*, F*, F*)>("mpi_bcast_");
  const Call call(Fn::Bcast);
  if (call.recorded()) rec().collective_begin(now_ns());
  f(buf, count, type, root, comm, ierr);
  if (call.recorded() && *ierr == MPI_SUCCESS) {
    const MPI_Comm c = PMPI_Comm_f2c(*comm);
    int me = 0;
    PMPI_Comm_rank(c, &me);
    const std::uint64_t b = bytes_of(*count, PMPI_Type_f2c(*type));
    rec().collective_end(now_ns(), OTF2_COLLECTIVE_OP_BCAST, c, static_cast<std::uint32_t>(*root),
                         me == *root ? b : 0, me == *root ? 0 : b);
  }
}

void mpi_reduce_(void* sendbuf, void* recvbuf, F* count, F* type, F* op, F* root, F* comm, F* ierr) {
  static auto* f = real<void(void*, void*, F*, F*, F*, F*, F*, F*)>("mpi_reduce_");
  const Call call(Fn::Reduce);
  if (call.recorded()) rec().collective_begin(now_ns());
  f(sendbuf, recvbuf, count, type, op, root, comm, ierr);
  if (call.recorded() && *ierr == MPI_SUCCESS) {
    const MPI_Comm c = PMPI_Comm_f2c(*comm);
    int me = 0;
    PMPI_Comm_rank(c, &me);
    const std::uint64_t b = bytes_of(*count, PMPI_Type_f2c(*type));
    rec().collective_end(now_ns(), OTF2_COLLECTIVE_OP_REDUCE, c, static_cast<std::uint32_t>(*root), b,
                         me == *root ? b : 0);
  }
}

void mpi_allreduce_(void* sendbuf, void* recvbuf, F* count, F* type, F* op, F* comm, F* ierr) {
  static auto* f = real<void(void*, void*, F*, F*, F*, F*, F*)>("mpi_allreduce_");
  const Call call(Fn::Allreduce);
  if (call.recorded()) rec().collective_begin(now_ns());
  f(sendbuf, recvbuf, count, type, op, comm, ierr);
  if (call.recorded() && *ierr == MPI_SUCCESS) {
    const std::uint64_t b = bytes_of(*count, PMPI_Type_f2c(*type));
    rec().collective_end(now_ns(), OTF2_COLLECTIVE_OP_ALLREDUCE, PMPI_Comm_f2c(*comm),
                         OTF2_COLLECTIVE_ROOT_NONE, b, b);
  }
}

void mpi_comm_split_(F* comm, F* color, F* key, F* newcomm, F* ierr) {
  static auto* f = real<void(F*, F*, F*, F*, F*)>("mpi_comm_split_");
  const Call call(Fn::CommSplit);
  f(comm, color, key, newcomm, ierr);
  if (*ierr == MPI_SUCCESS) rec().comm_created(PMPI_Comm_f2c(*comm), PMPI_Comm_f2c(*newcomm));
}

void mpi_comm_dup_(F* comm, F* newcomm, F* ierr) {
  static auto* f = real<void(F*, F*, F*)>("mpi_comm_dup_");
  const Call call(Fn::CommDup);
  f(comm, newcomm, ierr);
  if (*ierr == MPI_SUCCESS) rec().comm_created(PMPI_Comm_f2c(*comm), PMPI_Comm_f2c(*newcomm));
}

void mpi_comm_free_(F* comm, F* ierr) {
  static auto* f = real<void(F*, F*)>("mpi_comm_free_");
  const Call call(Fn::CommFree);
  rec().comm_freed(PMPI_Comm_f2c(*comm));
  f(comm, ierr);
}

}  // extern "C"
