! The Fortran twin of trace_app.cpp (a subset), traced by trace_check.sh through LD_PRELOAD.
! Every rank, with left/right its ring neighbours: MPI_Send/MPI_Recv 100 B, MPI_Isend/MPI_Irecv
! + MPI_Waitall 300 B, MPI_Isend/MPI_Irecv + MPI_Wait 400 B (3 messages, 800 bytes each way);
! MPI_Barrier, MPI_Bcast 1024 B from rank 0, MPI_Allreduce and MPI_Reduce (to the last rank) of
! 8 doubles on MPI_COMM_WORLD; MPI_Allreduce of 4 doubles on MPI_Comm_split(mod(rank, 2)) and
! MPI_Barrier on MPI_Comm_dup(MPI_COMM_WORLD).
program trace_app_f
  use mpi
  implicit none
  integer :: ierr, rank, n, right, left, half, dup
  integer :: reqs(2), status(MPI_STATUS_SIZE)
  integer :: ints(25), ints_in(25)
  character :: out(1024), in(1024)
  double precision :: d(8), dr(8)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  right = mod(rank + 1, n)
  left = mod(rank + n - 1, n)
  ints = rank
  out = 'x'
  d = 1.0d0
  if (mod(rank, 2) == 0) then
    call MPI_Send(ints, 25, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(ints_in, 25, MPI_INTEGER, left, 1, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(ints_in, 25, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(ints, 25, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Irecv(in, 300, MPI_BYTE, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(out, 300, MPI_BYTE, right, 3, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_Irecv(in, 400, MPI_BYTE, left, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(out, 400, MPI_BYTE, right, 4, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Wait(reqs(1), status, ierr)
  if (status(MPI_SOURCE) /= left) stop 3
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Bcast(out, 1024, MPI_BYTE, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(d, dr, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(d, dr, 8, MPI_DOUBLE_PRECISION, MPI_SUM, n - 1, MPI_COMM_WORLD, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Allreduce(d, dr, 4, MPI_DOUBLE_PRECISION, MPI_SUM, half, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Barrier(dup, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)
end program trace_app_f
