#pragma once
// What every wrapper (C and Fortran) shares: the recorder, a call's Enter/Leave, byte counts.
#include <mpi.h>

#include <algorithm>
#include <cstdint>

#include "detail/recorder.hpp"

namespace gridlock::trace::detail {

/// The process's recorder.
inline Recorder& rec() { return Recorder::instance(); }

/// Enter at construction, Leave at destruction: the events of the call lie in between.
class Call {
 public:
  explicit Call(Fn fn) : fn_(fn), recorded_(rec().enter(fn, now_ns())) {}
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  Call(Call&&) = delete;
  Call& operator=(Call&&) = delete;
  ~Call() {
    if (recorded_) rec().leave(fn_, now_ns());
  }
  /// False when the call is filtered or over the size cap: record nothing of it.
  [[nodiscard]] bool recorded() const noexcept { return recorded_; }

 private:
  Fn fn_;
  bool recorded_;
};

/// count elements of type, in bytes (0 for a null type or a non-positive count).
inline std::uint64_t bytes_of(int count, MPI_Datatype type) {
  if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(std::max(size, 0));
}

}  // namespace gridlock::trace::detail
