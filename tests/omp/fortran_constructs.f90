! fortran_constructs.f90 — the constructs as gfortran compiles them: parallel do under static,
! dynamic, guided and runtime schedules with reductions (+, *, max, min, .and., .or., ieor on
! integers and reals), collapse, lastprivate, ordered, workshare on array expressions, sections,
! single with copyprivate, master, critical, atomic (update and capture), tasks with taskwait and
! depend, taskloop, threadprivate with copyin, and barriers. Each result is compared with the
! serial one; the summary printed is the same on every runtime.
! omp-run:
! omp-run: OMP_SCHEDULE=guided,3
module state_f
  implicit none
  integer :: tp = -1
  !$omp threadprivate(tp)
contains
  include 'fortran_check.inc'

  recursive function fib(n) result(r)
    integer, intent(in) :: n
    integer :: r, a, b
    if (n < 2) then
      r = n
      return
    end if
    !$omp task shared(a)
    a = fib(n - 1)
    !$omp end task
    !$omp task shared(b)
    b = fib(n - 2)
    !$omp end task
    !$omp taskwait
    r = a + b
  end function fib
end module state_f

program fortran_constructs
  use omp_lib
  use state_f
  implicit none
  integer, parameter :: n = 1000
  integer :: i, j, k, isum, iprod, imax, imin, ix, last, seq(n), pos, nt, cnt, cap, bad
  integer :: hits(n), grid(30, 20), w(n), f
  double precision :: dsum, dmax, x(n), y(n)
  logical :: land, lor
  integer :: copied(3)

  nt = omp_get_max_threads()
  do i = 1, n
    x(i) = dble(mod(i, 17) - 8)
  end do

  ! reductions under each schedule
  isum = 0; iprod = 1; imax = -huge(1); imin = huge(1); ix = 0; dsum = 0; dmax = -huge(1d0)
  land = .true.; lor = .false.
  !$omp parallel do schedule(dynamic, 7) reduction(+:isum, dsum) reduction(*:iprod) &
  !$omp& reduction(max:imax, dmax) reduction(min:imin) reduction(ieor:ix) reduction(.and.:land) reduction(.or.:lor)
  do i = 1, n
    isum = isum + mod(i, 17) - 8
    dsum = dsum + x(i)
    if (mod(i, 250) == 3) iprod = iprod * (-2)
    imax = max(imax, mod(i * 37, 201) - 100)
    imin = min(imin, mod(i * 37, 201) - 100)
    dmax = max(dmax, x(i))
    ix = ieor(ix, i * 7)
    land = land .and. i /= 777
    lor = lor .or. i == 500
  end do
  !$omp end parallel do
  ! the serial references
  j = 0; k = 0; cnt = 1; pos = -huge(1); last = huge(1)
  do i = 1, n
    j = j + mod(i, 17) - 8
    k = ieor(k, i * 7)
    if (mod(i, 250) == 3) cnt = cnt * (-2)
    pos = max(pos, mod(i * 37, 201) - 100)
    last = min(last, mod(i * 37, 201) - 100)
  end do
  call check(isum == j, 'sum')
  call check(abs(dsum - j) < 0.5d0, 'real sum')
  call check(iprod == cnt, 'product')
  call check(imax == pos, 'max')
  call check(imin == last, 'min')
  call check(abs(dmax - 8d0) < 0.5d0, 'real max')
  call check(ix == k, 'ieor')
  call check(.not. land, '.and.')
  call check(lor, '.or.')
  write (*, '(A,I0,A,I0,A,I0,A,I0)') 'Fortran reductions: + ', isum, ' * ', iprod, ' max ', imax, ' ieor ', ix

  ! every iteration once: static, static chunk, guided, runtime; collapse; lastprivate
  hits = 0
  !$omp parallel do schedule(static)
  do i = 1, n
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp parallel do schedule(static, 3)
  do i = n, 1, -1
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp parallel do schedule(guided, 5)
  do i = 1, n, 2
    !$omp atomic
    hits(i) = hits(i) + 2
  end do
  !$omp parallel do schedule(runtime) lastprivate(last)
  do i = 2, n, 2
    !$omp atomic
    hits(i) = hits(i) + 2
    last = i
  end do
  call check(all(hits == 4), 'every iteration once')
  call check(last == n, 'lastprivate')
  grid = 0
  !$omp parallel do collapse(2) schedule(dynamic, 4)
  do j = 1, 20
    do i = 1, 30
      grid(i, j) = grid(i, j) + i * j
    end do
  end do
  cnt = 0
  do j = 1, 20
    do i = 1, 30
      if (grid(i, j) /= i * j) cnt = cnt + 1
    end do
  end do
  call check(cnt == 0, 'collapse(2)')

  ! ordered
  pos = 0
  !$omp parallel do ordered schedule(dynamic, 3)
  do i = 1, 200
    !$omp ordered
    pos = pos + 1
    seq(pos) = i
    !$omp end ordered
  end do
  call check(pos == 200, 'ordered count')
  call check(all(seq(1:200) == [(i, i = 1, 200)]), 'ordered order')
  write (*, '(A)') 'Fortran loops: schedules, collapse, lastprivate, ordered right'

  ! workshare
  y = 0
  !$omp parallel workshare
  y = 2 * x + 1
  w = int(y) * 3
  !$omp end parallel workshare
  call check(all(abs(y - (2 * x + 1)) < 0.5d0), 'workshare: real array')
  call check(all(w == int(2 * x + 1) * 3), 'workshare: integer array')

  ! sections, single copyprivate, master, critical, atomic capture, barrier
  cnt = 0; cap = 0; bad = 0
  !$omp parallel private(k, j, copied) reduction(+:bad)
  !$omp sections
  !$omp section
  !$omp atomic
  cnt = cnt + 1
  !$omp section
  !$omp atomic
  cnt = cnt + 10
  !$omp section
  !$omp atomic
  cnt = cnt + 100
  !$omp end sections
  !$omp single
  copied = [7, 8, 9]
  !$omp end single copyprivate(copied)
  if (any(copied /= [7, 8, 9])) bad = bad + 1
  !$omp master
  cnt = cnt + 1000
  !$omp end master
  !$omp barrier
  if (cnt /= 1111) bad = bad + 1
  !$omp barrier
  !$omp critical (counter)
  cnt = cnt + 1
  !$omp end critical (counter)
  !$omp atomic capture
  cap = cap + 1
  k = cap
  !$omp end atomic
  j = omp_get_num_threads()
  if (k < 1 .or. k > j) bad = bad + 1
  !$omp end parallel
  call check(bad == 0, 'sections, copyprivate, master, barrier')
  call check(cnt == 1111 + nt .and. cap == nt, 'critical, atomic capture')
  write (*, '(A)') 'Fortran: workshare, sections, single copyprivate, master, critical, atomic right'

  ! tasks: fib, depend, taskloop
  f = 0
  !$omp parallel
  !$omp single
  f = fib(15)
  !$omp end single
  !$omp end parallel
  call check(f == 610, 'fib(15)')
  k = 1
  !$omp parallel
  !$omp single
  do i = 1, 50
    !$omp task depend(inout:k) firstprivate(i)
    k = mod(k * 3 + i, 1000003)
    !$omp end task
  end do
  !$omp end single
  !$omp end parallel
  j = 1
  do i = 1, 50
    j = mod(j * 3 + i, 1000003)
  end do
  call check(k == j, 'depend chain')
  isum = 0
  !$omp parallel
  !$omp single
  !$omp taskloop grainsize(32) reduction(+:isum)
  do i = 1, n
    isum = isum + i
  end do
  !$omp end taskloop
  !$omp end single
  !$omp end parallel
  call check(isum == n * (n + 1) / 2, 'taskloop reduction')
  write (*, '(A,I0,A,I0)') 'Fortran tasks: fib(15) = ', f, ', taskloop sum ', isum

  ! threadprivate, copyin
  tp = 42
  bad = 0
  !$omp parallel copyin(tp) reduction(+:bad)
  if (tp /= 42) bad = bad + 1
  tp = omp_get_thread_num()
  !$omp end parallel
  call check(bad == 0 .and. tp == 0, 'threadprivate copyin')
  write (*, '(A)') 'Fortran: threadprivate with copyin right'
end program fortran_constructs
