#pragma once
/// @file
/// An owned MPI communicator.

#include <mpi.h>

namespace gridlock::bench {

/// Owns a communicator (from a split, a dup or MPI_Comm_split_type) and frees it on destruction.
class Comm {
 public:
  /// MPI_COMM_NULL: owns nothing.
  Comm() = default;
  /// Takes ownership of `comm` (MPI_COMM_NULL allowed).
  explicit Comm(MPI_Comm comm) noexcept : comm_(comm) {}
  Comm(const Comm&) = delete;             ///< One owner.
  Comm& operator=(const Comm&) = delete;  ///< One owner.
  /// Takes `other`'s communicator; `other` owns nothing after.
  Comm(Comm&& other) noexcept : comm_(other.comm_) { other.comm_ = MPI_COMM_NULL; }
  /// Frees this communicator and takes `other`'s.
  Comm& operator=(Comm&& other) noexcept;
  /// Frees the communicator (not MPI_COMM_NULL).
  ~Comm();
  /// The handle (MPI_COMM_NULL when owning nothing).
  [[nodiscard]] MPI_Comm get() const noexcept { return comm_; }
  /// Where MPI calls write a new communicator into; frees the one owned before.
  [[nodiscard]] MPI_Comm* reset_and_get_address() noexcept;
  /// This rank in it (throws MpiError on failure).
  [[nodiscard]] int rank() const;
  /// Its size (throws MpiError on failure).
  [[nodiscard]] int size() const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace gridlock::bench
