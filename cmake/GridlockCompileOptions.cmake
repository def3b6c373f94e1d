# Project-wide compile options, applied per target through gridlock_target_defaults().
# -Wnull-dereference is left out: at -O2 GCC 12 reports false positives inside libstdc++
# (std::streambuf), which would fail the optimised -Werror build.
add_library(gridlock_options INTERFACE)
# C++-only warnings in place (the same command line as before for C++, so caches stay valid); the
# tracer has one C file (OTF2's MPI collective callbacks).
target_compile_options(gridlock_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor> -Wcast-align -Wunused
  $<$<COMPILE_LANGUAGE:CXX>:-Woverloaded-virtual> -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
# A unity build (CMAKE_UNITY_BUILD: the ci, mpich, asan, tsan and smpi presets, half the compile
# time from scratch) includes sources into one another, and GCC then takes a class of one source with a member of
# another's anonymous-namespace type for a header's class (-Wsubobject-linkage), which it is not.
if(CMAKE_UNITY_BUILD)
  target_compile_options(gridlock_options INTERFACE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-subobject-linkage>)
endif()
if(GRIDLOCK_WERROR)
  target_compile_options(gridlock_options INTERFACE -Werror)
endif()
if(GRIDLOCK_LLD)
  find_program(GRIDLOCK_LD_LLD ld.lld)
  if(NOT GRIDLOCK_LD_LLD)
    message(FATAL_ERROR "GRIDLOCK_LLD is ON but ld.lld is not installed: apt-get install lld (scripts/setup.sh), or configure with -DGRIDLOCK_LLD=OFF")
  endif()
  target_link_options(gridlock_options INTERFACE -fuse-ld=lld)
endif()
if(GRIDLOCK_SANITIZE)
  # GCC's ASan instruments UBSan's own per-check records as globals (a redzone each): 111 MB of
  # .data in the gridlock binary, which ASan registers at start and LeakSanitizer scans at exit
  # (gridlock --version 0.45 s, 0.18 s without; the suite starts a binary about 3,000 times).
  # --param=asan-globals=0 leaves globals out; what covers their overflows instead: UBSan's
  # bounds check (indexes into arrays of known size), _GLIBCXX_ASSERTIONS (operator[] of
  # std::array, vector, string_view and span) and the fuzzers' clang tree (full ASan, globals too,
  # on the parser sources).
  target_compile_options(gridlock_options INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
    $<$<CXX_COMPILER_ID:GNU>:--param=asan-globals=0> $<$<COMPILE_LANGUAGE:CXX>:-D_GLIBCXX_ASSERTIONS>)
  target_link_options(gridlock_options INTERFACE -fsanitize=address,undefined)
  # Executables not position-independent: a PIE of this size spends half its ASan start-up in the
  # dynamic loader's relocations (gridlock --version: 0.24 s as a PIE, 0.12 s without), and the
  # test suite starts a binary about 3,000 times (one per GoogleTest test, one per bad-input case).
  target_link_options(gridlock_options INTERFACE $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()
if(GRIDLOCK_TSAN)
  target_compile_options(gridlock_options INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(gridlock_options INTERFACE -fsanitize=thread)
endif()

# Every gridlock target calls this so options stay in one place.
function(gridlock_target_defaults target)
  # Build-only: the flags are not part of what an installed target asks of its consumers.
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:gridlock_options>)
endfunction()
