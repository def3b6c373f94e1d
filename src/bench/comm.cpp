#include "gridlock/bench/comm.hpp"

#include "detail/mpi_util.hpp"

namespace gridlock::bench {

Comm& Comm::operator=(Comm&& other) noexcept {
  if (this != &other) {
    if (comm_ != MPI_COMM_NULL) {
      MPI_Comm_free(&comm_);
    }
    comm_ = other.comm_;
    other.comm_ = MPI_COMM_NULL;
  }
  return *this;
}

Comm::~Comm() {
  if (comm_ != MPI_COMM_NULL) {
    // A destructor cannot report an error; freeing a valid communicator only fails after
    // MPI_Finalize, which gridlock never calls while handles are alive.
    MPI_Comm_free(&comm_);
  }
}

MPI_Comm* Comm::reset_and_get_address() noexcept {
  if (comm_ != MPI_COMM_NULL) {
    MPI_Comm_free(&comm_);
  }
  comm_ = MPI_COMM_NULL;
  return &comm_;
}

int Comm::rank() const {
  int r = 0;
  GRIDLOCK_MPI(MPI_Comm_rank(comm_, &r));
  return r;
}

int Comm::size() const {
  int s = 0;
  GRIDLOCK_MPI(MPI_Comm_size(comm_, &s));
  return s;
}

}  // namespace gridlock::bench
