# Sourced by the scripts that launch MPI jobs on one machine.
# Root is allowed (CI and containers run as root); oversubscription lets many virtual nodes
# share a few cores; Open MPI's shared-memory RMA component collides when many virtual nodes
# share a host, so one-sided traffic goes through the pt2pt component.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_osc="${OMPI_MCA_osc:-pt2pt}"
