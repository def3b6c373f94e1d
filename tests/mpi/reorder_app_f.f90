! The Fortran twin of reorder_app.c (a subset) for libgridlock-reorder.so's Fortran bindings:
! every rank's partner is mod(rank + n/2, n). MPI_Dist_graph_create_adjacent with reorder = .true.
! (weighted, then MPI_UNWEIGHTED): a neighbour allgather of world ranks must deliver the partner's.
! MPI_Cart_create of a periodic ring with reorder = .true.: the new communicator has every rank.
! Rank 0 prints how many ranks changed number per call; exit code 1 on a failed check.
program reorder_app_f
  use mpi
  implicit none
  integer :: ierr, rank, n, partner, comm, failures, all, moved, total, newrank, got, k
  integer :: weights(1), dims(1)
  logical :: periods(1)
  character(len=50) :: label

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  failures = 0
  partner = mod(rank + n / 2, n)
  weights(1) = 1000

  do k = 1, 2
    if (k == 1) then
      label = 'MPI_Dist_graph_create_adjacent'
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (/partner/), weights, 1, (/partner/), weights, &
                                          MPI_INFO_NULL, .true., comm, ierr)
    else
      label = 'MPI_Dist_graph_create_adjacent (unweighted)'
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (/partner/), MPI_UNWEIGHTED, 1, (/partner/), &
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, .true., comm, ierr)
    end if
    if (ierr /= MPI_SUCCESS) failures = failures + 1
    call MPI_Comm_rank(comm, newrank, ierr)
    got = -1
    call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, got, 1, MPI_INTEGER, comm, ierr)
    if (got /= partner) then
      print '(a,i0,a,i0,a,i0)', 'reorder_app_f: rank ', rank, ': neighbour is world rank ', got, ', not ', partner
      failures = failures + 1
    end if
    moved = 0
    if (newrank /= rank) moved = 1
    call MPI_Allreduce(moved, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a,a,a,i0,a,i0,a)', 'reorder_app_f: ', trim(label), ': ', total, ' of ', n, &
                         ' ranks renumbered'
    call MPI_Comm_free(comm, ierr)
  end do

  dims(1) = n
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .true., comm, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  call MPI_Comm_size(comm, got, ierr)
  if (got /= n) failures = failures + 1
  call MPI_Comm_free(comm, ierr)

  call MPI_Allreduce(failures, all, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (all == 0) then
      print '(a)', 'reorder_app_f: all checks passed'
    else
      print '(a)', 'reorder_app_f: CHECKS FAILED'
    end if
  end if
  call MPI_Finalize(ierr)
  if (all /= 0) stop 1
end program reorder_app_f
