! fortran_routines.f90 — every OpenMP routine through its Fortran entry point (libgomp's omp_*_,
! and the omp_*_8_ forms that take integer(8) or logical(8) arguments): threads and levels,
! dynamic and nesting, schedules, thread limit, active levels, ancestors and team sizes, places,
! devices, teams settings, final, cancellation, proc_bind, task priority, locks (simple and
! nested), wtime and wtick, the affinity format routines, pause, allocators, display_env, and a
! detached task's event fulfilled from Fortran. Each value is checked; the summary printed is the
! same on every runtime.
! omp-run:
! omp-run: OMP_CANCELLATION=true OMP_MAX_TASK_PRIORITY=5
module check_f
  implicit none
contains
  include 'fortran_check.inc'
end module check_f

program fortran_routines
  use omp_lib
  use check_f
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: n, t, k, bad, chunk, lv
  integer(8) :: n8, chunk8
  integer(omp_sched_kind) :: kind
  integer(omp_lock_kind) :: lck
  integer(omp_nest_lock_kind) :: nlck
  integer(omp_allocator_handle_kind) :: a, def
  type(omp_alloctrait) :: traits(1)
  type(c_ptr) :: p
  integer, allocatable :: ids(:)
  integer(8), allocatable :: ids8(:)
  integer :: places(64)
  integer(8) :: places8(64)
  character(len=128) :: buf
  integer :: cap(8)
  double precision :: t0, t1
  logical :: ok

  n = omp_get_max_threads()
  call check(omp_get_num_threads() == 1, 'omp_get_num_threads outside a region')
  call check(omp_get_thread_num() == 0, 'omp_get_thread_num outside a region')
  call check(.not. omp_in_parallel(), 'omp_in_parallel outside')
  call check(omp_get_num_procs() >= 1, 'omp_get_num_procs')
  call check(omp_get_level() == 0, 'omp_get_level outside')
  call check(omp_get_active_level() == 0, 'omp_get_active_level outside')

  ! threads, levels, ancestors, team sizes
  bad = 0
  !$omp parallel reduction(+:bad) private(t, ok)
  t = omp_get_thread_num()
  if (omp_get_num_threads() /= n) bad = bad + 1
  if (omp_get_level() /= 1) bad = bad + 1
  if (omp_get_ancestor_thread_num(1) /= t) bad = bad + 1
  if (omp_get_ancestor_thread_num(1_8) /= t) bad = bad + 1
  if (omp_get_team_size(1) /= n) bad = bad + 1
  if (omp_get_team_size(1_8) /= n) bad = bad + 1
  if (omp_get_team_size(0) /= 1) bad = bad + 1
  ok = omp_in_parallel()
  if (n > 1 .neqv. ok) bad = bad + 1
  !$omp end parallel
  call check(bad == 0, 'queries inside a region')
  write (*, '(A,I0,A)') 'Fortran: a team of ', n, ', its queries right'

  call omp_set_num_threads(3)
  call check(omp_get_max_threads() == 3, 'omp_set_num_threads')
  n8 = 2
  call omp_set_num_threads(n8)
  call check(omp_get_max_threads() == 2, 'omp_set_num_threads_8')
  call omp_set_num_threads(n)

  ! dynamic, nested, active levels
  call omp_set_dynamic(.true.)
  call check(omp_get_dynamic(), 'omp_set_dynamic')
  call omp_set_dynamic(.false._8)
  call check(.not. omp_get_dynamic(), 'omp_set_dynamic_8')
  call omp_set_nested(.true.)
  call check(omp_get_nested(), 'omp_set_nested')
  call omp_set_nested(.false._8)
  call check(.not. omp_get_nested(), 'omp_set_nested_8')
  call omp_set_max_active_levels(2)
  call check(omp_get_max_active_levels() == 2, 'omp_set_max_active_levels')
  call omp_set_max_active_levels(1_8)
  call check(omp_get_max_active_levels() == 1, 'omp_set_max_active_levels_8')
  call check(omp_get_supported_active_levels() >= 1, 'supported active levels')
  call check(omp_get_thread_limit() >= 1, 'thread limit')

  ! schedules
  call omp_set_schedule(omp_sched_guided, 7)
  call omp_get_schedule(kind, chunk)
  call check(kind == omp_sched_guided .and. chunk == 7, 'omp_set/get_schedule')
  chunk8 = 5
  call omp_set_schedule(omp_sched_dynamic, chunk8)
  call omp_get_schedule(kind, chunk8)
  call check(kind == omp_sched_dynamic .and. chunk8 == 5, 'omp_set/get_schedule_8')
  write (*, '(A)') 'Fortran: dynamic, nested, max active levels, schedule set and read back'

  ! locks
  call omp_init_lock(lck)
  call check(omp_test_lock(lck), 'omp_test_lock on a free lock')
  call omp_unset_lock(lck)
  k = 0
  !$omp parallel
  call omp_set_lock(lck)
  k = k + 1
  call omp_unset_lock(lck)
  !$omp end parallel
  call omp_destroy_lock(lck)
  call check(k == n, 'a lock around an increment')
  call omp_init_nest_lock(nlck)
  call check(omp_test_nest_lock(nlck) == 1, 'nest count 1')
  call omp_set_nest_lock(nlck)
  call check(omp_test_nest_lock(nlck) == 3, 'nest count 3')
  call omp_unset_nest_lock(nlck)
  call omp_unset_nest_lock(nlck)
  call omp_unset_nest_lock(nlck)
  call omp_destroy_nest_lock(nlck)
  write (*, '(A)') 'Fortran: simple and nested locks right'

  ! time
  t0 = omp_get_wtime()
  t1 = omp_get_wtime()
  call check(t1 >= t0, 'omp_get_wtime')
  call check(omp_get_wtick() > 0, 'omp_get_wtick')

  ! places (libgomp has none without OMP_PLACES): the answers agree with each other
  call check(omp_get_num_places() >= 0, 'num places')
  if (omp_get_num_places() > 0) then
    k = omp_get_place_num_procs(0)
    call check(k >= 1, 'place 0 procs')
    call check(omp_get_place_num_procs(0_8) == k, 'place 0 procs (8)')
    allocate (ids(k), ids8(k))
    call omp_get_place_proc_ids(0, ids)
    call omp_get_place_proc_ids(0_8, ids8)
    call check(all(ids == ids8), 'place proc ids')
    deallocate (ids, ids8)
  end if
  call check(omp_get_place_num() >= -1, 'place num')
  k = omp_get_partition_num_places()
  call check(k >= 0 .and. k <= 64, 'partition num places')
  call omp_get_partition_place_nums(places)
  call omp_get_partition_place_nums(places8)
  call check(omp_get_proc_bind() == omp_proc_bind_false, 'proc bind false')

  ! devices and teams
  call check(omp_is_initial_device(), 'on the host')
  call check(omp_get_initial_device() == omp_get_num_devices(), 'initial device')
  call check(omp_get_device_num() == omp_get_initial_device(), 'device num')
  k = omp_get_default_device()
  call omp_set_default_device(omp_get_initial_device())
  call omp_set_default_device(int(k, 8))
  call check(omp_get_default_device() == k, 'default device')
  call check(omp_get_num_teams() == 1, 'num teams outside')
  call check(omp_get_team_num() == 0, 'team num outside')
  call omp_set_num_teams(4)
  call check(omp_get_max_teams() == 4, 'omp_set_num_teams')
  call omp_set_num_teams(2_8)
  call check(omp_get_max_teams() == 2, 'omp_set_num_teams_8')
  call omp_set_teams_thread_limit(6)
  call check(omp_get_teams_thread_limit() == 6, 'omp_set_teams_thread_limit')
  call omp_set_teams_thread_limit(5_8)
  call check(omp_get_teams_thread_limit() == 5, 'omp_set_teams_thread_limit_8')
  call check(.not. omp_in_final(), 'in_final outside')
  write (*, '(A,L1,A,I0)') 'Fortran: cancellation ', omp_get_cancellation(), ', max task priority ', &
    omp_get_max_task_priority()
  call check(omp_pause_resource(omp_pause_soft, omp_get_initial_device()) == 0, 'pause resource')
  call check(omp_pause_resource_all(omp_pause_soft) == 0, 'pause resource all')

  ! affinity format
  call omp_set_affinity_format('F %n/%N')
  k = omp_get_affinity_format(buf)
  call check(buf(1:k) == 'F %n/%N', 'get affinity format')
  cap = 0
  !$omp parallel num_threads(2) private(t, buf, lv)
  t = omp_get_thread_num()
  lv = omp_capture_affinity(buf, '')
  if (buf(1:lv) == 'F 0/2' .or. buf(1:lv) == 'F 1/2') cap(t + 1) = 1 ! no call in the condition
  !$omp end parallel
  call check(sum(cap) == 2, 'capture affinity')
  call omp_display_affinity('F display')

  ! allocators
  def = omp_get_default_allocator()
  traits(1) = omp_alloctrait(omp_atk_alignment, 256)
  a = omp_init_allocator(omp_default_mem_space, 1, traits)
  call check(a /= omp_null_allocator, 'omp_init_allocator')
  p = omp_alloc(1000_c_size_t, a)
  call check(c_associated(p) .and. mod(transfer(p, 0_c_intptr_t), 256) == 0, 'aligned omp_alloc')
  call omp_free(p, a)
  call omp_set_default_allocator(a)
  call check(omp_get_default_allocator() == a, 'default allocator')
  call omp_set_default_allocator(def)
  call omp_destroy_allocator(a)
  a = omp_init_allocator(omp_default_mem_space, 1_8, traits)
  call check(a /= omp_null_allocator, 'omp_init_allocator_8')
  call omp_destroy_allocator(a)
  write (*, '(A)') 'Fortran: places, devices, teams settings, affinity format, allocators right'

  ! a detached task fulfilled from Fortran
  call detached(ok)
  call check(ok, 'detached task')
  write (*, '(A)') 'Fortran: a detached task completed by omp_fulfill_event'

  call omp_display_env(.false.)
  call omp_display_env(.false._8)
contains
  subroutine detached(ok)
    logical, intent(out) :: ok
    integer(omp_event_handle_kind) :: ev
    integer :: x
    x = 0
    !$omp parallel
    !$omp single
    !$omp task detach(ev) shared(x)
    x = 1
    !$omp end task
    !$omp task firstprivate(ev)
    call omp_fulfill_event(ev)
    !$omp end task
    !$omp taskwait
    !$omp end single
    !$omp end parallel
    ok = x == 1
  end subroutine detached
end program fortran_routines
