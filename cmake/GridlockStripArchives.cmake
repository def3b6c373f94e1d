# CPack pre-build script (GridlockPackaging.cmake): the static archives' debug information out of
# the package's staging tree; CPACK_STRIP_FILES strips the executables only.
file(GLOB_RECURSE _archives "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.a")
foreach(_archive IN LISTS _archives)
  execute_process(COMMAND "${CPACK_GRIDLOCK_STRIP}" --strip-debug "${_archive}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "strip --strip-debug ${_archive} failed (${_rc})")
  endif()
endforeach()
