#ifndef GRIDLOCK_TRACE_OTF2_MPI_H
#define GRIDLOCK_TRACE_OTF2_MPI_H
#include <mpi.h>
#include <otf2/otf2.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Installs OTF2's MPI collective callbacks on the archive over comm; 0 on success. */
int gridlock_trace_set_collectives(OTF2_Archive* archive, MPI_Comm comm);
#ifdef __cplusplus
}
#endif
#endif
