# Spack recipe for gridlock (issue 28; docs/install.md).
#
# It configures with exactly the CMake options CI tests:
#   - the "ci"/"release" configuration: CMAKE_BUILD_TYPE (Spack's build_type, RelWithDebInfo by
#     default, as the presets), GRIDLOCK_WITH_MPI=ON (+mpi) or OFF (~mpi, the "tsan" preset's
#     setting), GRIDLOCK_BUILD_TESTS=OFF and GRIDLOCK_BUILD_BENCHMARKS=OFF (CI builds them, an
#     install does not need them; neither changes what is installed);
#   - nothing else: GRIDLOCK_SMPI (the SimGrid SMPI tree) builds a test-only gridlock-bench and is
#     not installable. +simgrid only adds the SimGrid dependency for users of the installed
#     platforms (share/gridlock/platforms) with their own SMPI builds.
# Copy this file to packages/gridlock/package.py of a Spack repository (`spack repo create`).
from spack.package import *


class Gridlock(CMakePackage):
    """Induce, measure, model, simulate and work around congestion and system noise in HPC
    networks: gridlock-bench (GPCNeT-style congestion benchmark, MPI sweeps, noise) and gridlock
    (LogGOPS simulation with noise, topologies and routes, resource oracle, Scotch task mapping,
    MPI performance models, run history)."""

    homepage = "https://github.com/gridlock-hpc/gridlock"
    git = "https://github.com/gridlock-hpc/gridlock.git"

    maintainers("gridlock-developers")

    version("main", branch="main")

    variant("mpi", default=True, description="Build gridlock-bench and gridlock::bench (MPI)")
    variant("simgrid", default=False, description="Depend on SimGrid for the installed SMPI platforms")

    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("nlohmann-json@3.10:")
    depends_on("fmt@9:")
    depends_on("cli11@2.1:")
    depends_on("cpp-httplib@0.11:")
    depends_on("libmicrohttpd")
    depends_on("scotch+int64~mpi")
    depends_on("sqlite@3.31:")
    depends_on("eigen@3.3:")
    depends_on("zlib-api")
    depends_on("bzip2")
    depends_on("xz")
    depends_on("otf2@3:")
    depends_on("hwloc@2.1:")
    depends_on("mpi", when="+mpi")
    depends_on("simgrid", when="+simgrid")

    def cmake_args(self):
        return [
            self.define_from_variant("GRIDLOCK_WITH_MPI", "mpi"),
            self.define("GRIDLOCK_BUILD_TESTS", False),
            self.define("GRIDLOCK_BUILD_BENCHMARKS", False),
        ]
