# The version is fixed at configure time; the git commit is read again at every build (the target
# gridlock_git_commit), so that a binary rebuilt after a commit or a pull does not report the commit
# its tree was configured at. A build from a tarball reports "unknown"; uncommitted changes to
# tracked files add "-dirty".
configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/version.hpp.in"
               "${CMAKE_CURRENT_BINARY_DIR}/generated/gridlock/core/version.hpp" @ONLY)
set(GRIDLOCK_GIT_COMMIT_CPP "${CMAKE_CURRENT_BINARY_DIR}/generated/git_commit.cpp")
# The script rewrites the file only when the commit changed; as a byproduct, Ninja then recompiles
# one file and relinks, and nothing when the commit is the same.
add_custom_target(gridlock_git_commit
  COMMAND "${CMAKE_COMMAND}" "-DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}"
          "-DOUTPUT=${GRIDLOCK_GIT_COMMIT_CPP}" -P "${CMAKE_CURRENT_SOURCE_DIR}/cmake/WriteGitCommit.cmake"
  BYPRODUCTS "${GRIDLOCK_GIT_COMMIT_CPP}"
  COMMENT "Reading the git commit"
  VERBATIM)
