# Sourced by the scripts that launch MPI jobs on one machine.
# Root is allowed (CI and containers run as root); oversubscription lets many virtual nodes
# share a few cores. Open MPI's default components are kept (gridlock-bench creates its RMA
# windows one slice at a time, docs/gridlock-bench.md).
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
