#!/usr/bin/env python3
"""Checks packaging/spack/package.py without Spack (not installable here): the recipe loads
against a stand-in for spack.package, its cmake_args() give exactly the options its header names,
and every option it sets is an option of gridlock's CMakeLists.txt (a renamed option would
otherwise go unnoticed until a site's Spack build).

    spack_recipe_check.py SOURCE_DIR
"""
import importlib.util
import re
import sys
import types


def main() -> int:
    source = sys.argv[1]
    recipe = f"{source}/packaging/spack/package.py"

    fake = types.ModuleType("spack.package")

    class CMakePackage:  # what the recipe uses of Spack's base class
        def define(self, name, value):
            return f"-D{name}:BOOL={'ON' if value else 'OFF'}" if isinstance(value, bool) else f"-D{name}={value}"

        def define_from_variant(self, name, variant):
            return self.define(name, variant in self.spec_variants)

    for decorator in ("version", "variant", "depends_on", "maintainers"):
        setattr(fake, decorator, lambda *args, **kwargs: None)
    fake.CMakePackage = CMakePackage
    sys.modules["spack"] = types.ModuleType("spack")
    sys.modules["spack.package"] = fake

    spec = importlib.util.spec_from_file_location("gridlock_recipe", recipe)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    package = module.Gridlock()

    cmakelists = open(f"{source}/CMakeLists.txt", encoding="utf-8").read()
    known = set(re.findall(r"^option\((\w+)", cmakelists, re.MULTILINE))
    failures = []
    for variants, want_mpi in ((set(), "OFF"), ({"mpi"}, "ON")):
        package.spec_variants = variants
        args = package.cmake_args()
        names = [re.match(r"-D(\w+)", a).group(1) for a in args]
        for name in names:
            if name not in known:
                failures.append(f"the recipe sets {name}, which CMakeLists.txt does not define as an option")
        if f"-DGRIDLOCK_WITH_MPI:BOOL={want_mpi}" not in args:
            failures.append(f"variants {sorted(variants)}: GRIDLOCK_WITH_MPI is not {want_mpi}: {args}")
        for required in ("-DGRIDLOCK_BUILD_TESTS:BOOL=OFF", "-DGRIDLOCK_BUILD_BENCHMARKS:BOOL=OFF"):
            if required not in args:
                failures.append(f"{required} missing: {args}")
    header = open(recipe, encoding="utf-8").read().split("from spack")[0]
    for name in ("GRIDLOCK_WITH_MPI", "GRIDLOCK_BUILD_TESTS", "GRIDLOCK_BUILD_BENCHMARKS"):
        if name not in header:
            failures.append(f"the recipe's header does not name {name}, which it sets")
    for failure in failures:
        print(f"spack_recipe_check: FAILED: {failure}", file=sys.stderr)
    if not failures:
        print("spack_recipe_check: the recipe loads, and sets only existing options, the ones its header names")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
