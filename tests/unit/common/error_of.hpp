#pragma once
/// @file
/// The message of the error a call throws, for the tests that check what a user is told. One
/// helper for every test target: copies of it in two sources of one target collide in a unity
/// build (CMAKE_UNITY_BUILD, the asan tree of CI).
#include <string>
#include <utility>

#include "gridlock/core/error.hpp"

namespace gridlock::unittest {

/// What `call()` throws as an `E` (InputError unless said), or "" when it throws nothing.
template <class E = InputError, class F>
std::string error_of(F&& call) {
  try {
    std::forward<F>(call)();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace gridlock::unittest
