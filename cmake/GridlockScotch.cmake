# Scotch 7 from Debian's libscotch-dev, 64-bit integer variant, as the imported target
# gridlock::scotch.
#
# Why the int64 variant: Scotch sums edge loads times distances in SCOTCH_Num; with 32-bit
# integers a 65,536-task graph with byte loads overflows silently. Why the static archive: the
# int32 and int64 shared libraries have the same SONAME (libscotch-7.0.so), so the loader may pick
# the int32 one at run time whatever we linked against, and Scotch would read our 64-bit arrays
# as 32-bit ones. The archive is position-independent, so it also links into SMPI programs (shared
# objects). gridlock supplies SCOTCH_errorPrint/SCOTCH_errorPrintW itself (src/mapping), so
# libscotcherr (which prints) and libscotcherrexit (which calls exit()) are not linked.
if(TARGET gridlock::scotch)
  return()
endif()
set(_gridlock_scotch_libdir "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/scotch-int64")
find_path(GRIDLOCK_SCOTCH_INCLUDE_DIR scotch.h PATHS /usr/include/scotch-int64 NO_DEFAULT_PATH)
find_library(GRIDLOCK_SCOTCH_LIBRARY NAMES libscotch.a PATHS "${_gridlock_scotch_libdir}" NO_DEFAULT_PATH)
if(NOT GRIDLOCK_SCOTCH_INCLUDE_DIR OR NOT GRIDLOCK_SCOTCH_LIBRARY)
  message(FATAL_ERROR "Scotch (64-bit integers) not found: install Debian's libscotch-dev "
                      "(scripts/setup.sh --deps-only), which provides /usr/include/scotch-int64 and "
                      "${_gridlock_scotch_libdir}/libscotch.a")
endif()
find_package(ZLIB REQUIRED)
find_package(BZip2 REQUIRED)
find_package(LibLZMA REQUIRED)
find_package(Threads REQUIRED)
add_library(gridlock_scotch_imported STATIC IMPORTED GLOBAL)
set_target_properties(gridlock_scotch_imported PROPERTIES
  IMPORTED_LOCATION "${GRIDLOCK_SCOTCH_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${GRIDLOCK_SCOTCH_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "ZLIB::ZLIB;BZip2::BZip2;LibLZMA::LibLZMA;Threads::Threads;m")
add_library(gridlock::scotch ALIAS gridlock_scotch_imported)
message(STATUS "Scotch (int64): ${GRIDLOCK_SCOTCH_LIBRARY}")
