# The git commit is read at configure time; a build from a tarball reports "unknown".
execute_process(
  COMMAND git -C "${CMAKE_CURRENT_SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE GRIDLOCK_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET RESULT_VARIABLE _gridlock_git_rc)
if(NOT _gridlock_git_rc EQUAL 0 OR GRIDLOCK_GIT_COMMIT STREQUAL "")
  set(GRIDLOCK_GIT_COMMIT "unknown")
endif()
configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/version.hpp.in"
               "${CMAKE_CURRENT_BINARY_DIR}/generated/gridlock/core/version.hpp" @ONLY)
