# Install rules, the CMake package (find_package(gridlock CONFIG)) and the pkg-config file
# (issue 28; docs/install.md). Included from the top-level CMakeLists.txt after every target
# exists; not in the SMPI or TSAN trees, which build test-only variants.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The tools link gridlock's libraries statically and the system's shared libraries from their
# system directories; a dependency found outside them (an MPI under /opt, a module's SimGrid) is
# kept in the installed tools' RPATH, so they run after the build tree is gone.
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)

# The libraries another project may link, exported as gridlock::<name>. gridlock::bench (MPI) only
# where it is built.
set(_gridlock_exported core noise sim topo oracle mapping model)
if(TARGET gridlock_bench)
  list(APPEND _gridlock_exported bench)
endif()
set(_gridlock_lib_targets "")
foreach(_name IN LISTS _gridlock_exported)
  set_target_properties(gridlock_${_name} PROPERTIES EXPORT_NAME ${_name})
  list(APPEND _gridlock_lib_targets gridlock_${_name})
endforeach()

install(TARGETS gridlock
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
if(TARGET gridlock-bench)
  install(TARGETS gridlock-bench
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
endif()
install(TARGETS ${_gridlock_lib_targets}
        EXPORT gridlockTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Public headers; gridlock/bench needs <mpi.h> and is installed only with its library.
set(_gridlock_header_excludes "")
if(NOT TARGET gridlock_bench)
  set(_gridlock_header_excludes PATTERN "bench" EXCLUDE)
endif()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/gridlock"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development
        FILES_MATCHING PATTERN "*.hpp" ${_gridlock_header_excludes})
install(FILES "${PROJECT_BINARY_DIR}/generated/gridlock/core/version.hpp"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gridlock/core COMPONENT development)

# SimGrid platforms, examples and the documentation.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/platforms/"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gridlock/platforms COMPONENT tools)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/"
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT tools)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/"
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools)
install(FILES "${PROJECT_SOURCE_DIR}/README.md"
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools)

# The CMake package. The libraries are static, so their private dependencies are part of what a
# consumer links: gridlockConfig.cmake finds them again (the same packages the build used).
set(_gridlock_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/gridlock)
install(EXPORT gridlockTargets
        NAMESPACE gridlock::
        DESTINATION ${_gridlock_cmake_dir} COMPONENT development)
if(TARGET gridlock_bench)
  set(GRIDLOCK_PACKAGE_HAS_BENCH ON)
else()
  set(GRIDLOCK_PACKAGE_HAS_BENCH OFF)
endif()
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/gridlockConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/gridlockConfig.cmake"
  INSTALL_DESTINATION ${_gridlock_cmake_dir})
# 0.x: minor versions may change the API, so a request for 0.1 is satisfied by 0.1.y only.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/gridlockConfigVersion.cmake"
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
        "${PROJECT_BINARY_DIR}/gridlockConfig.cmake"
        "${PROJECT_BINARY_DIR}/gridlockConfigVersion.cmake"
        "${PROJECT_SOURCE_DIR}/cmake/GridlockScotch.cmake"
        DESTINATION ${_gridlock_cmake_dir} COMPONENT development)

# pkg-config, for Makefile users: the serial libraries, with what their static archives need.
# The prefix is found from the .pc file's own place, so `cmake --install --prefix P` and a moved
# tree both work.
file(RELATIVE_PATH GRIDLOCK_PC_TO_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
string(REGEX REPLACE "/$" "" GRIDLOCK_PC_TO_PREFIX "${GRIDLOCK_PC_TO_PREFIX}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/gridlock.pc.in" "${PROJECT_BINARY_DIR}/gridlock.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/gridlock.pc"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)
