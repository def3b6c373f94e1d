/* master_worker: a task farm, the communication pattern of irregular, dynamically balanced work.
 *
 * Pattern shown:
 *   - rank 0 (the master) hands out --tasks tasks of irregular sizes (1 to --max-size doubles,
 *     drawn from --seed) with MPI_Send, one at a time to whichever worker is free;
 *   - a worker computes a result whose size depends on its task (about one double per eight of
 *     the task) and sends it back;
 *   - the master receives with MPI_ANY_SOURCE (whoever finishes first) and MPI_ANY_TAG, and reads
 *     the sender and the size from the status: the order of messages differs from run to run;
 *   - a worker receives with MPI_ANY_TAG too: tag TASK carries work, tag STOP (an empty message)
 *     ends it;
 *   - at the end an MPI_Reduce counts the tasks the workers did and an MPI_Bcast gives every rank
 *     the checksum of all results (summed in task order, so it depends on --seed only).
 *
 * Usage: mpiexec -n 4 ./master_worker [--tasks N] [--max-size N] [--seed S] [--counts FILE]
 *   --tasks    number of tasks (default 50)
 *   --max-size largest task in doubles (default 4096)
 *   --seed     seed of the task sizes (default 1)
 *   --counts   append this rank's messages and collectives to FILE as one JSON line (counts.h)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

static void usage_error(const char* arg, const char* problem) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fprintf(
        stderr,
        "master_worker: %s: %s\nusage: master_worker [--tasks N] [--max-size N] [--seed S] [--counts FILE]\n",
        arg, problem);
  }
  MPI_Finalize();
  exit(2);
}

static int parse_int(const char* flag, const char* value, int min) {
  char* end = NULL;
  const long v = value != NULL ? strtol(value, &end, 10) : 0;
  if (value == NULL || *end != '\0' || v < min || v > 1000000) {
    usage_error(flag, min == 0 ? "needs an integer from 0 to 1000000" : "needs an integer from 1 to 1000000");
  }
  return (int)v;
}

/* SplitMix64, written out rather than rand(): the same --seed gives the same tasks with every C
 * library. */
static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* Task `id`: its size in doubles and its data; data[0] holds the id, so the result can name it. */
static int task_size(uint64_t seed, int id, int max_size) {
  return 1 + (int)(splitmix64(seed * (uint64_t)1000003 + (uint64_t)id) % (uint64_t)max_size);
}

static void make_task(int id, int size, double* data) {
  data[0] = id;
  for (int k = 1; k < size; ++k) data[k] = (double)((id + k) % 17) / 16.0;
}

/* The work: result[0] is the task id, result[m] the sum of squares of the task's m-th block of
 * eight values. Returns the result's size. */
static int work(const double* task, int size, double* result) {
  const int blocks = (size + 7) / 8;
  result[0] = task[0];
  for (int m = 0; m < blocks; ++m) {
    double sum = 0.0;
    for (int k = 8 * m; k < size && k < 8 * m + 8; ++k) sum += task[k] * task[k];
    result[1 + m] = sum;
  }
  return 1 + blocks;
}

/* Sends task `id` (or, with id < 0, STOP) to worker w. */
static void hand_out(int w, int id, uint64_t seed, int max_size, double* buf, Counts* counts) {
  if (id < 0) {
    MPI_Send(NULL, 0, MPI_DOUBLE, w, TAG_STOP, MPI_COMM_WORLD);
    counts_send(counts, w, 0);
    return;
  }
  const int size = task_size(seed, id, max_size);
  make_task(id, size, buf);
  MPI_Send(buf, size, MPI_DOUBLE, w, TAG_TASK, MPI_COMM_WORLD);
  counts_send(counts, w, (long long)size * (long long)sizeof(double));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int tasks = 50, max_size = 4096;
  long seed = 1;
  const char* counts_path = NULL;
  for (int a = 1; a < argc; ++a) {
    const char* value = a + 1 < argc ? argv[a + 1] : NULL;
    if (strcmp(argv[a], "--tasks") == 0) {
      tasks = parse_int("--tasks", value, 0);
    } else if (strcmp(argv[a], "--max-size") == 0) {
      max_size = parse_int("--max-size", value, 1);
    } else if (strcmp(argv[a], "--seed") == 0) {
      seed = parse_int("--seed", value, 0);
    } else if (strcmp(argv[a], "--counts") == 0 && value != NULL) {
      counts_path = value;
    } else {
      usage_error(argv[a], "unknown argument, or its value is missing");
    }
    ++a;
  }
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks < 2) usage_error("mpiexec -n", "needs at least 2 ranks: a master and a worker");
  Counts counts;
  counts_init(&counts, "master_worker");
  counts_add_comm(&counts, "world", MPI_COMM_WORLD);

  const int max_result = 1 + (max_size + 7) / 8;
  double* task = malloc(sizeof(double) * (size_t)max_size);
  double* result = malloc(sizeof(double) * (size_t)max_result);
  double* sums = calloc((size_t)tasks + 1, sizeof(double));
  if (task == NULL || result == NULL || sums == NULL) {
    fprintf(stderr, "master_worker: out of memory for --max-size %d\n", max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long done_here = 0;
  /* The time of the farm on rank 0 (MPI_Wtime is not traced: it adds nothing to a trace). */
  const double start_s = MPI_Wtime();
  if (rank == 0) {
    /* One task to each worker (or STOP when there are more workers than tasks), then a new task
     * to whoever returns a result, until none are left. */
    int next = 0, busy = 0;
    for (int w = 1; w < ranks; ++w) {
      hand_out(w, next < tasks ? next : -1, (uint64_t)seed, max_size, task, &counts);
      if (next < tasks) ++next, ++busy;
    }
    while (busy > 0) {
      MPI_Status status;
      MPI_Recv(result, max_result, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int size = 0;
      MPI_Get_count(&status, MPI_DOUBLE, &size);
      counts_recv(&counts, status.MPI_SOURCE, (long long)size * (long long)sizeof(double));
      if (status.MPI_TAG != TAG_RESULT || size < 1) {
        fprintf(stderr, "master_worker: unexpected message (tag %d, %d doubles) from rank %d\n",
                status.MPI_TAG, size, status.MPI_SOURCE);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      double sum = 0.0;
      for (int m = 1; m < size; ++m) sum += result[m];
      sums[(int)result[0]] = sum;
      hand_out(status.MPI_SOURCE, next < tasks ? next : -1, (uint64_t)seed, max_size, task, &counts);
      if (next < tasks) {
        ++next;
      } else {
        --busy;
      }
    }
  } else {
    for (;;) {
      MPI_Status status;
      MPI_Recv(task, max_size, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int size = 0;
      MPI_Get_count(&status, MPI_DOUBLE, &size);
      counts_recv(&counts, 0, (long long)size * (long long)sizeof(double));
      if (status.MPI_TAG == TAG_STOP) break;
      const int result_size = work(task, size, result);
      MPI_Send(result, result_size, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
      counts_send(&counts, 0, (long long)result_size * (long long)sizeof(double));
      ++done_here;
    }
  }

  long done = 0;
  MPI_Reduce(&done_here, &done, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  counts_collective(&counts, MPI_COMM_WORLD, "reduce");
  double checksum = 0.0;
  if (rank == 0) {
    for (int id = 0; id < tasks; ++id) checksum += sums[id];
  }
  MPI_Bcast(&checksum, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  counts_collective(&counts, MPI_COMM_WORLD, "bcast");
  const double elapsed_s = MPI_Wtime() - start_s;
  if (rank == 0) {
    printf(
        "master_worker: seed %ld, %d tasks of 1 to %d doubles on %d workers in %.3f ms: %ld done, checksum "
        "%.6f\n",
        seed, tasks, max_size, ranks - 1, 1e3 * elapsed_s, done, checksum);
  }

  int status = done == tasks || rank != 0 ? 0 : 1;
  if (counts_path != NULL && counts_write(&counts, counts_path) != 0) status = 3;
  counts_free(&counts);
  free(task);
  free(result);
  free(sums);
  MPI_Finalize();
  return status;
}
