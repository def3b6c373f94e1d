/* Linked into the reference GPCNeT by bench/compare_gpcnet.sh (PMPI interposition): every rank
 * reports itself as its own "node", vnode<rank>, the grouping gridlock-bench's --virtual-nodes
 * gives one rank per virtual node. With GRIDLOCK_VNODE_RANKS_PER_NODE=k, ranks r with the same
 * r / k share a node instead (as --virtual-nodes N with N = ranks / k). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int MPI_Get_processor_name(char* name, int* resultlen) {
  int rank = 0;
  int per_node = 1;
  const char* env = getenv("GRIDLOCK_VNODE_RANKS_PER_NODE");
  if (env != NULL && atoi(env) > 0) {
    per_node = atoi(env);
  }
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "vnode%d", rank / per_node);
  return MPI_SUCCESS;
}
