#pragma once
// Region ids of the wrapped MPI functions: the index of each name in traced_functions().
#include <cstdint>

namespace gridlock::trace::detail {

enum class Fn : std::uint32_t {
  Init,
  InitThread,
  Finalize,
  Abort,
  Send,
  Ssend,
  Bsend,
  Rsend,
  Recv,
  Isend,
  Issend,
  Irecv,
  Sendrecv,
  Probe,
  Iprobe,
  Wait,
  Waitall,
  Waitany,
  Waitsome,
  Test,
  Testall,
  Testany,
  Testsome,
  Barrier,
  Bcast,
  Reduce,
  Allreduce,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Allgather,
  Allgatherv,
  Alltoall,
  Alltoallv,
  ReduceScatter,
  ReduceScatterBlock,
  Scan,
  Exscan,
  CommDup,
  CommSplit,
  CommSplitType,
  CommCreate,
  CartCreate,
  CartSub,
  GraphCreate,
  CommFree,
  Count
};

}  // namespace gridlock::trace::detail
