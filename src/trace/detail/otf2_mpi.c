/* OTF2's own MPI collective callbacks (header-only, C), calling PMPI so that the tracer's
 * collectives on the archive are not traced themselves. */
#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>

#include "otf2_mpi.h"

int gridlock_trace_set_collectives(OTF2_Archive* archive, MPI_Comm comm) {
  return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, comm, MPI_COMM_NULL) == OTF2_SUCCESS ? 0 : 1;
}
