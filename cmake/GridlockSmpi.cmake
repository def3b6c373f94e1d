# SimGrid SMPI: the compiler wrappers smpicc/smpicxx add SMPI's <mpi.h> and libsimgrid, and link
# every program as a shared object that smpirun loads once per simulated rank. FindMPI does not
# recognise the wrappers (it would pick up Open MPI's headers next to them), so MPI::MPI_C is an
# empty INTERFACE target here and gridlock::bench links to it as in the Open MPI build.
get_filename_component(_gridlock_cxx "${CMAKE_CXX_COMPILER}" NAME)
if(NOT _gridlock_cxx MATCHES "^smpicxx" OR NOT CMAKE_C_COMPILER MATCHES "smpicc")
  message(FATAL_ERROR "GRIDLOCK_SMPI needs CMAKE_C_COMPILER=smpicc and CMAKE_CXX_COMPILER=smpicxx "
                      "(use `cmake --preset smpi`; install libsimgrid-dev)")
endif()
find_program(SMPIRUN_EXECUTABLE smpirun REQUIRED)
if(GRIDLOCK_SANITIZE)
  message(FATAL_ERROR "GRIDLOCK_SANITIZE does not work with SMPI (all ranks share one process)")
endif()
set(GRIDLOCK_WITH_MPI ON CACHE BOOL "Build gridlock::bench and gridlock-bench (needs MPI)" FORCE)
add_library(MPI::MPI_C INTERFACE IMPORTED)
target_compile_options(gridlock_options INTERFACE -include "${CMAKE_CURRENT_LIST_DIR}/smpi_fixups.h")
