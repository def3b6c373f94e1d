/* What one rank did, counted by the program itself, for `--counts FILE`.
 *
 * The example programs count their own point-to-point messages (number and bytes, each way) and
 * their collectives (number per kind, per communicator with its members as MPI_COMM_WORLD ranks),
 * so that a trace of the same run (tests/mpi/trace_apps_check.sh) can be checked against what
 * the program knows it did. Messages to or from MPI_PROC_NULL are not counted: nothing is sent.
 *
 * At the end every rank appends one JSON line to FILE:
 *   {"app": "cg", "rank": 1, "ranks": 4,
 *    "sent": {"messages": 40, "bytes": 10240}, "received": {"messages": 40, "bytes": 10240},
 *    "collectives": [{"comm": "world", "members": [0, 1, 2, 3], "ops": {"allreduce": 41}}]}
 * The ranks append rather than gather to rank 0, because a gather would be one more collective
 * in the trace. Each line is one write() of an O_APPEND file (stdio fully buffered in a buffer of
 * COUNTS_LINE_BYTES, larger than the line up to some thousand ranks per communicator), so lines of
 * different ranks do not interleave on a local file system; remove FILE before the run.
 */
#ifndef GRIDLOCK_EXAMPLES_COUNTS_H
#define GRIDLOCK_EXAMPLES_COUNTS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COUNTS_MAX_COMMS = 4, COUNTS_MAX_OPS = 4, COUNTS_LINE_BYTES = 1 << 16 };

typedef struct {
  const char* name; /* e.g. "allreduce": the MPI function without MPI_, lower case */
  long calls;
} CountsOp;

typedef struct {
  const char* name; /* the program's name for the communicator */
  MPI_Comm comm;
  int size;
  int* members; /* world rank of each rank of comm, in comm's rank order */
  int nops;
  CountsOp ops[COUNTS_MAX_OPS];
} CountsComm;

typedef struct {
  const char* app;
  long sent_messages, received_messages;
  long long sent_bytes, received_bytes;
  int ncomms;
  CountsComm comms[COUNTS_MAX_COMMS];
} Counts;

static inline void counts_init(Counts* c, const char* app) {
  memset(c, 0, sizeof *c);
  c->app = app;
}

/* Registers a communicator under a name; its members are looked up once, here. */
static inline void counts_add_comm(Counts* c, const char* name, MPI_Comm comm) {
  if (c->ncomms == COUNTS_MAX_COMMS) MPI_Abort(MPI_COMM_WORLD, 70);
  CountsComm* k = &c->comms[c->ncomms++];
  k->name = name;
  k->comm = comm;
  MPI_Comm_size(comm, &k->size);
  k->members = malloc(sizeof(int) * (size_t)k->size);
  int* ranks = malloc(sizeof(int) * (size_t)k->size);
  if (k->members == NULL || ranks == NULL) MPI_Abort(MPI_COMM_WORLD, 70);
  for (int i = 0; i < k->size; ++i) ranks[i] = i;
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_translate_ranks(group, k->size, ranks, world, k->members);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  free(ranks);
}

static inline void counts_send(Counts* c, int peer, long long bytes) {
  if (peer == MPI_PROC_NULL) return;
  c->sent_messages++;
  c->sent_bytes += bytes;
}

static inline void counts_recv(Counts* c, int peer, long long bytes) {
  if (peer == MPI_PROC_NULL) return;
  c->received_messages++;
  c->received_bytes += bytes;
}

/* One collective call `op` on a registered communicator. */
static inline void counts_collective(Counts* c, MPI_Comm comm, const char* op) {
  for (int i = 0; i < c->ncomms; ++i) {
    CountsComm* k = &c->comms[i];
    if (k->comm != comm) continue;
    for (int j = 0; j < k->nops; ++j) {
      if (strcmp(k->ops[j].name, op) == 0) {
        k->ops[j].calls++;
        return;
      }
    }
    if (k->nops == COUNTS_MAX_OPS) break;
    k->ops[k->nops].name = op;
    k->ops[k->nops++].calls = 1;
    return;
  }
  MPI_Abort(MPI_COMM_WORLD, 70); /* a program bug: the communicator was not registered */
}

/* Appends this rank's line to path; returns 0, or -1 with a message on stderr. */
static inline int counts_write(const Counts* c, const char* path) {
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  FILE* f = fopen(path, "a");
  if (f == NULL) {
    fprintf(stderr, "%s: rank %d: cannot open --counts file %s for appending\n", c->app, rank, path);
    return -1;
  }
  /* Fully buffered: the line leaves in one write() at fclose (see the top of this file). */
  static char buffer[COUNTS_LINE_BYTES];
  setvbuf(f, buffer, _IOFBF, sizeof buffer);
  fprintf(f, "{\"app\": \"%s\", \"rank\": %d, \"ranks\": %d, ", c->app, rank, ranks);
  fprintf(f, "\"sent\": {\"messages\": %ld, \"bytes\": %lld}, ", c->sent_messages, c->sent_bytes);
  fprintf(f, "\"received\": {\"messages\": %ld, \"bytes\": %lld}, \"collectives\": [", c->received_messages,
          c->received_bytes);
  for (int i = 0; i < c->ncomms; ++i) {
    const CountsComm* k = &c->comms[i];
    fprintf(f, "%s{\"comm\": \"%s\", \"members\": [", i > 0 ? ", " : "", k->name);
    for (int m = 0; m < k->size; ++m) fprintf(f, "%s%d", m > 0 ? ", " : "", k->members[m]);
    fprintf(f, "], \"ops\": {");
    for (int j = 0; j < k->nops; ++j)
      fprintf(f, "%s\"%s\": %ld", j > 0 ? ", " : "", k->ops[j].name, k->ops[j].calls);
    fprintf(f, "}}");
  }
  fprintf(f, "]}\n");
  if (fclose(f) != 0) {
    fprintf(stderr, "%s: rank %d: cannot write --counts file %s\n", c->app, rank, path);
    return -1;
  }
  return 0;
}

static inline void counts_free(Counts* c) {
  for (int i = 0; i < c->ncomms; ++i) free(c->comms[i].members);
}

#endif
