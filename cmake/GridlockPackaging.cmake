# Debian package with CPack (issue 28; docs/install.md): `cpack -G DEB` in a configured tree
# (scripts/deb-check.sh builds, installs with apt-get and smoke-runs it in CI). One package with
# the tools, libraries, headers, CMake package, man pages, completion, platforms and docs.
set(CPACK_PACKAGE_NAME gridlock)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "gridlock developers <gridlock-dev@lists.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# RelWithDebInfo binaries and archives carry about 300 MB of debug information: stripped here, as
# Debian's packages are (the build tree keeps it for debugging).
set(CPACK_STRIP_FILES ON)
set(CPACK_GRIDLOCK_STRIP "${CMAKE_STRIP}")
set(CPACK_PRE_BUILD_SCRIPTS "${PROJECT_SOURCE_DIR}/cmake/GridlockStripArchives.cmake")
# The run-time libraries (Open MPI's libmpi, fmt, SQLite, microhttpd, ...) from what the tools
# link, as Debian's own packages do; the launcher beside them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libjs-chart.js: `gridlock report` inlines its Chart.js into every page (docs/report.md).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin, libjs-chart.js")
# Linking the static libraries from another project needs their dependencies' headers and
# archives: recommended, not required, for users of the tools alone.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "libopenmpi-dev, nlohmann-json3-dev, libfmt-dev, libcpp-httplib-dev, libmicrohttpd-dev, libscotch-dev, libsqlite3-dev, libeigen3-dev, zlib1g-dev, libbz2-dev, liblzma-dev, pkg-config")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libsimgrid-dev, netpipe-openmpi")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "HPC network congestion and noise toolkit\n gridlock-bench measures congestion (GPCNeT method), MPI performance sweeps and\n system noise; gridlock simulates LogGOPS schedules with noise, maps tasks with\n Scotch, serves link metrics (resource oracle), fits MPI performance models\n and keeps a run history.")
include(CPack)
