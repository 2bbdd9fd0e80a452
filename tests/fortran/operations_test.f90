! SPDX-License-Identifier: BSD-3-Clause
! The Fortran module's operations other than the float sum: each generic for every kind against what Fortran's own
! intrinsics give where the answer is exact (integer sums, min, max, minloc, maxloc on data without NaN or signed
! zeros), against the identities that tie them to detred_sum (dot with ones, asum, the sum and mean of stats), and
! against norm2 within rounding; the scans (detred_cumsum, detred_exclusive_cumsum) against themselves on prefixes
! and thread counts and exactly for integers; every rank as its storage order, sections, thread counts; the rules that differ
! from the intrinsics (NaN, -0.0, 1-based positions) and the status of failing calls. Prints one line per failed
! check and a closing "N passed, N failed" line; stops with a nonzero code if any check failed.
program operations_test
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_is_nan
  use detred
  implicit none

  integer :: passed = 0, failed = 0
  integer, parameter :: n1 = 3 * 4096 + 5
  real(real64), allocatable :: x(:), y(:), x3(:, :, :), ones(:)
  real(real32), allocatable :: f(:), g(:)
  integer(int32), allocatable :: i4(:), i4_2d(:, :)
  integer(int64), allocatable :: i8(:)
  integer :: mode, threads, status

  allocate (x(n1), y(n1), i4(n1), i8(n1))
  call fill(x, 42_int64)
  call fill(y, 7_int64)
  f = real(x, real32)
  g = real(y, real32)
  ones = [(1.0_real64, threads=1, n1)]
  x3 = reshape(x(1:9 * 17 * 31), [9, 17, 31])
  i4 = int(x * 1000, int32)
  i8 = int(x * 2.0_real64**40, int64)
  i4_2d = reshape(i4(1:100 * 80), [100, 80])

  mode = -1
  call integer_sums()
  call selections()
  do mode = DETRED_MODE_TREE, DETRED_MODE_COMPENSATED
    call products_and_norms()
  end do
  do mode = DETRED_MODE_TREE, DETRED_MODE_COMPENSATED
    call scans()
  end do
  mode = -1
  call integer_scans()
  call statistics()
  call rules()
  call errors()
  call by_name()
  deallocate (x, y, x3, ones, f, g, i4, i4_2d, i8)  ! (LeakSanitizer reports the main program's arrays otherwise)

  write (*, '(i0, " passed, ", i0, " failed")') passed, failed
  if (failed > 0) error stop 1

contains

  subroutine integer_sums()
    call check(detred_sum(i4) == sum(int(i4, int64)), "integer(4) sum is exact, as integer(8)")
    call check(detred_sum(i8) == sum(i8), "integer(8) sum")
    call check(detred_sum(i4_2d) == sum(int(i4_2d, int64)), "rank-2 integer(4) sum")
    call check(detred_sum(i4(1:n1:5)) == sum(int(i4(1:n1:5), int64)), "integer section with a stride")
    do threads = 1, 3
      call check(detred_sum(i8, threads=threads) == sum(i8), "integer sum, threads")
    end do
    call check(detred_sum(i4(1:0)) == 0, "empty integer sum is 0")
  end subroutine integer_sums

  subroutine selections()
    ! The data have no NaN and no zeros, so Fortran's intrinsics give the same answers.
    call check(same8(detred_min(x), minval(x)), "real(8) min")
    call check(same8(detred_max(x), maxval(x)), "real(8) max")
    call check(same4(detred_min(f), minval(f)), "real(4) min")
    call check(same4(detred_max(f), maxval(f)), "real(4) max")
    call check(detred_min(i4) == minval(i4), "integer(4) min")
    call check(detred_max(i4) == maxval(i4), "integer(4) max")
    call check(detred_min(i8) == minval(i8), "integer(8) min")
    call check(detred_max(i8) == maxval(i8), "integer(8) max")
    call check(detred_minloc(x) == minloc(x, dim=1), "real(8) minloc is 1-based, as the intrinsic")
    call check(detred_maxloc(x) == maxloc(x, dim=1), "real(8) maxloc")
    call check(detred_minloc(f) == minloc(f, dim=1), "real(4) minloc")
    call check(detred_maxloc(f) == maxloc(f, dim=1), "real(4) maxloc")
    call check(detred_minloc(i4) == minloc(i4, dim=1), "integer(4) minloc")
    call check(detred_maxloc(i8) == maxloc(i8, dim=1), "integer(8) maxloc")
    call check(detred_minloc(x3) == minloc(reshape(x3, [size(x3)]), dim=1), "rank 3: the position in storage order")
    call check(same8(detred_min(x3), minval(x3)), "rank-3 min")
    call check(detred_maxloc(x(2:n1:3)) == maxloc(x(2:n1:3), dim=1), "a section's location is within the section")
    do threads = 1, 4
      call check(detred_minloc(x, threads=threads) == minloc(x, dim=1), "minloc, threads")
      call check(detred_max(i4, threads=threads) == maxval(i4), "integer max, threads")
    end do
  end subroutine selections

  subroutine products_and_norms()
    call check(same8(detred_dot(x, ones, mode=mode), detred_sum(x, mode=mode)), "dot with ones is the sum")
    call check(same8(detred_asum(x, mode=mode), detred_sum(abs(x), mode=mode)), "asum is the sum of magnitudes")
    call check(same4(detred_asum(f, mode=mode), detred_sum(abs(f), mode=mode)), "real(4) asum")
    call check(abs(detred_dot(x, y, mode=mode) - dot_product(x, y)) <= 1e-12_real64 * sum(abs(x * y)), &
               "dot close to dot_product")
    call check(abs(detred_dot(f, g, mode=mode) - dot_product(f, g)) <= 1e-4_real32 * sum(abs(f * g)), &
               "real(4) dot close to dot_product")
    call check(abs(detred_nrm2(x, mode=mode) / norm2(x) - 1) <= 1e-14_real64, "nrm2 close to norm2")
    call check(abs(detred_nrm2(f, mode=mode) / norm2(real(f, real64)) - 1) <= 1e-6_real64, &
               "real(4) nrm2 close to norm2 (of the values in real(8))")
    call check(same8(detred_dot(x3, x(1:size(x3)), mode=mode), detred_dot(x(1:size(x3)), x(1:size(x3)), mode=mode)), &
               "dot pairs elements in storage order, whatever the ranks")
    call check(same8(detred_nrm2(x3, mode=mode), detred_nrm2(x(1:size(x3)), mode=mode)), "rank-3 nrm2")
    call check(same8(detred_dot(x(1:n1:2), y(1:n1:2), mode=mode), &
                     detred_dot(pack8(x(1:n1:2)), pack8(y(1:n1:2)), mode=mode)), "sections are dotted as copies")
    do threads = 1, 4
      call check(same8(detred_dot(x, y, mode=mode, threads=threads), detred_dot(x, y, mode=mode)), "dot, threads")
      call check(same8(detred_nrm2(x, mode=mode, threads=threads), detred_nrm2(x, mode=mode)), "nrm2, threads")
      call check(same4(detred_dot(f, g, mode=mode, threads=threads), detred_dot(f, g, mode=mode)), "real(4) dot")
    end do
  end subroutine products_and_norms

  subroutine statistics()
    type(detred_statistics_r8) :: s
    type(detred_statistics_r4) :: t
    s = detred_stats(x)
    call check(s%count == n1, "stats count")
    call check(same8(s%sum, detred_sum(x)), "stats sum")
    call check(same8(s%mean, s%sum / n1), "stats mean")
    call check(same8(s%min, detred_min(x)), "stats min")
    call check(same8(s%max, detred_max(x)), "stats max")
    call check(abs(s%variance / (sum((x - s%mean)**2) / n1) - 1) < 1e-12_real64, "stats variance")
    call check(same8(s%stddev, sqrt(s%variance)) .and. same8(s%sample_stddev, sqrt(s%sample_variance)), "stddev")
    call check(s%sample_variance > s%variance, "sample variance divides by n - 1")
    t = detred_stats(f)
    call check(t%count == n1, "real(4) stats count")
    call check(same4(t%sum, detred_sum(f)), "real(4) stats sum")
    call check(same4(t%max, detred_max(f)), "real(4) stats max")
    s = detred_stats(x3)
    call check(s%count == size(x3), "rank-3 stats count")
    call check(same8(s%sum, detred_sum(x3)), "rank-3 stats sum")
    t = detred_stats(f, threads=1)
    do threads = 2, 4
      call check(same4(detred_stats_variance(f, threads), t%variance), "stats variance, threads")
    end do
    s = detred_stats([1.0_real64, 2.0_real64, 3.0_real64, 4.0_real64])
    call check(same8(s%mean, 2.5_real64), "stats of 1, 2, 3, 4: mean")
    call check(same8(s%variance, 1.25_real64), "stats of 1, 2, 3, 4: variance")
    call check(same8(s%sample_variance, 5.0_real64 / 3), "stats of 1, 2, 3, 4: sample variance")
    s = detred_stats(x(1:0))
    call check(s%count == 0 .and. ieee_is_nan(s%mean), "stats of nothing: mean NaN")
  end subroutine statistics

  ! Where detred's rules differ from the intrinsics'.
  subroutine rules()
    real(real64) :: z(4), with_nan(5)
    z = [0.0_real64, -0.0_real64, 1.0_real64, 0.0_real64]
    call check(transfer(detred_min(z), 0_int64) == transfer(-0.0_real64, 0_int64), "min: -0.0 below +0.0")
    call check(detred_minloc(z) == 2 .and. minloc(z, dim=1) == 1, "minloc: -0.0 (minloc takes the first zero)")
    with_nan = [3.0_real64, 1.0_real64, 0.0_real64, 5.0_real64, 2.0_real64]
    with_nan(4) = ieee_value(with_nan(4), ieee_quiet_nan)
    call check(ieee_is_nan(detred_max(with_nan)), "max: NaN propagates (maxval skips it)")
    call check(detred_maxloc(with_nan) == 4, "maxloc: the first NaN")
    call check(detred_minloc(with_nan) == 4, "minloc: the first NaN")
    call check(detred_minloc([5, 1, 7, 1]) == 2, "ties: the first position (minloc)")
    call check(detred_maxloc([7_int64, 1_int64, 7_int64]) == 1, "ties: the first position (maxloc)")
  end subroutine rules

  ! detred_reduce: the named functions' bits by name, sumsq (no function of its own) as the dot product of x with
  ! itself, and a refusal.
  subroutine by_name()
    integer :: m, s
    do m = DETRED_MODE_TREE, DETRED_MODE_EXACT
      call check(same8(detred_reduce("sum", x, mode=m), detred_sum(x, mode=m)), "detred_reduce('sum') of real(8)")
      call check(same4(detred_reduce("nrm2", f, mode=m, threads=2), detred_nrm2(f, mode=m)), &
                 "detred_reduce('nrm2') of real(4)")
      call check(same8(detred_reduce("dot", x, y, mode=m), detred_dot(x, y, mode=m)), "detred_reduce('dot')")
      call check(same8(detred_reduce("sumsq", x3, mode=m), detred_dot(x3, x3, mode=m)), &
                 "detred_reduce('sumsq') of a rank-3 array is dot(x, x)")
    end do
    call check(same8(detred_reduce("max", x), detred_max(x)), "detred_reduce('max')")
    call check(same8(detred_reduce("no such", x, status=s), 0.0_real64) .and. s == DETRED_INVALID_ARGUMENT, &
               "detred_reduce of an unknown name")
  end subroutine by_name

  subroutine errors()
    real(real64) :: r
    type(detred_statistics_r8) :: st
    integer(int64) :: big(2), k
    big = [huge(0_int64), 1_int64]
    k = detred_sum(big, status=status)
    call check(status == DETRED_OVERFLOW, "integer(8) sum that does not fit: DETRED_OVERFLOW")
    call check(index(detred_last_error(), "9223372036854775808") > 0, "overflow message states the exact sum")
    r = detred_min(x(1:0), status=status)
    call check(status == DETRED_EMPTY, "min of no elements: DETRED_EMPTY")
    k = detred_minloc(i4(1:0), status=status)
    call check(status == DETRED_EMPTY .and. k == 0, "minloc of no elements: DETRED_EMPTY and 0")
    call check(detred_status_string(DETRED_EMPTY) == "empty", "status string")
    r = detred_dot(x, y(1:10), status=status)
    call check(status == DETRED_INVALID_ARGUMENT, "dot of arrays of different sizes")
    r = detred_nrm2(x, mode=9, status=status)
    call check(status == DETRED_INVALID_ARGUMENT, "nrm2: unknown mode")
    call check(index(detred_last_error(), "unknown mode") > 0, "nrm2: unknown mode message")
    st = detred_stats(x, mode=DETRED_MODE_COMPENSATED, status=status)
    call check(status == DETRED_INVALID_ARGUMENT, "stats: tree mode only")
    k = detred_maxloc(i8, threads=-1, status=status)
    call check(status == DETRED_INVALID_ARGUMENT .and. k == 0, "maxloc: negative threads")
    k = detred_maxloc(i8, status=status)
    call check(status == DETRED_OK .and. k == maxloc(i8, dim=1), "success after failures")
    call assumed_size_case(x, 10)
  end subroutine errors

  subroutine assumed_size_case(a, n)
    real(real64), intent(in) :: a(*)
    integer, intent(in) :: n
    integer(int64) :: p
    p = detred_minloc(a, status=status)
    call check(status == DETRED_INVALID_ARGUMENT, "assumed-size array: status")
    p = detred_minloc(a(1:n), status=status)
    call check(status == DETRED_OK .and. p == minloc(a(1:n), dim=1), "assumed-size array: a section of it")
  end subroutine assumed_size_case

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
      passed = passed + 1
    else
      failed = failed + 1
      write (*, '("FAILED: ", a, " (mode ", i0, ")")') what, mode
    end if
  end subroutine check

  real(real32) function detred_stats_variance(a, threads) result(v)
    real(real32), intent(in) :: a(:)
    integer, intent(in) :: threads
    type(detred_statistics_r4) :: s
    s = detred_stats(a, threads=threads)
    v = s%variance
  end function detred_stats_variance

  ! detred_cumsum and detred_exclusive_cumsum of real(8) and real(4): the same bits for every thread count, each
  ! output the last output of the scan of its prefix alone, the exclusive outputs the inclusive ones shifted by one,
  ! rank 2 as its storage order, and close to the intrinsic sum.
  subroutine scans()
    real(real64), allocatable :: c(:), c2(:), part(:), e(:), x2(:, :), c2d(:, :)
    real(real32), allocatable :: cf(:), ef(:)
    integer :: i
    integer, parameter :: prefixes(6) = [1, 2, 2047, 2048, 2049, 4099]
    allocate (c(n1), c2(n1), e(n1), cf(n1), ef(n1), c2d(100, 80))
    call detred_cumsum(x, c, mode=mode)
    do threads = 1, 3
      call detred_cumsum(x, c2, mode=mode, threads=threads)
      call check(all(transfer(c2, [0_int64]) == transfer(c, [0_int64])), "cumsum: the same bits on every thread count")
    end do
    do i = 1, size(prefixes)
      allocate (part(prefixes(i)))
      call detred_cumsum(x(1:prefixes(i)), part, mode=mode)
      call check(same8(part(prefixes(i)), c(prefixes(i))), "cumsum: an output is that of its prefix alone")
      deallocate (part)
    end do
    call check(abs(c(n1) - sum(x)) <= 1e-12_real64 * sum(abs(x)), "cumsum close to the intrinsic sum")
    call detred_exclusive_cumsum(x, e, mode=mode)
    call check(transfer(e(1), 0_int64) == transfer(-0.0_real64, 0_int64), "exclusive_cumsum starts at -0.0")
    call check(all(transfer(e(2:), [0_int64]) == transfer(c(:n1 - 1), [0_int64])), "exclusive: cumsum shifted by one")
    x2 = reshape(x(1:8000), [100, 80])
    call detred_cumsum(x2, c2d, mode=mode)
    allocate (part(8000))
    call detred_cumsum(x(1:8000), part, mode=mode)
    call check(all(transfer(reshape(c2d, [8000]), [0_int64]) == transfer(part, [0_int64])), "rank 2: storage order")
    call detred_cumsum(f, cf, mode=mode, threads=2)
    call detred_exclusive_cumsum(f, ef, mode=mode)
    call check(all(transfer(ef(2:), [0_int32]) == transfer(cf(:n1 - 1), [0_int32])), "real(4) cumsum and exclusive")
    call check(abs(cf(n1) - sum(real(f, real64))) <= 1e-4_real64 * sum(abs(real(f, real64))), "real(4) cumsum close")
    deallocate (c, c2, part, e, cf, ef, x2, c2d)
  end subroutine scans

  ! Integer scans: exact, into integer(8); DETRED_OVERFLOW leaves y as it was; sizes must agree; exact mode refused.
  subroutine integer_scans()
    integer(int64), allocatable :: c(:), e(:)
    integer(int64) :: running, big(3), out(3)
    real(real64) :: r(3)
    integer :: i
    logical :: exact
    allocate (c(n1), e(n1))
    call detred_cumsum(i4, c, threads=2)
    call detred_exclusive_cumsum(i8, e)
    exact = .true.
    running = 0
    do i = 1, n1
      if (e(i) /= running) exact = .false.
      running = running + i8(i)
    end do
    call check(exact, "integer(8) exclusive_cumsum is exact")
    exact = .true.
    running = 0
    do i = 1, n1
      running = running + i4(i)
      if (c(i) /= running) exact = .false.
    end do
    call check(exact, "integer(4) cumsum is exact, as integer(8)")
    big = [huge(0_int64), 1_int64, 2_int64]
    out = 7
    call detred_cumsum(big, out, status=status)
    call check(status == DETRED_OVERFLOW .and. all(out == 7), "integer(8) cumsum that does not fit: y unchanged")
    call detred_cumsum(i4, c(1:10), status=status)
    call check(status == DETRED_INVALID_ARGUMENT, "cumsum: x and y of different sizes")
    call detred_cumsum(x(1:3), r, mode=DETRED_MODE_EXACT, status=status)
    call check(status == DETRED_INVALID_ARGUMENT, "cumsum: exact mode refused")
    deallocate (c, e)
  end subroutine integer_scans

  logical function same8(a, b)
    real(real64), intent(in) :: a, b
    same8 = transfer(a, 0_int64) == transfer(b, 0_int64)
  end function same8

  logical function same4(a, b)
    real(real32), intent(in) :: a, b
    same4 = transfer(a, 0_int32) == transfer(b, 0_int32)
  end function same4

  function pack8(a) result(p)
    real(real64), intent(in) :: a(:)
    real(real64), allocatable :: p(:)
    p = a
  end function pack8

  ! Values of mixed sign and magnitude (no zeros), so that the order of the additions shows in the result bits.
  subroutine fill(a, seed)
    real(real64), intent(out) :: a(:)
    integer(int64), intent(in) :: seed
    integer(int64) :: state
    integer :: i
    state = seed
    do i = 1, size(a)
      state = modulo(state * 1103515245_int64 + 12345_int64, 2147483648_int64)
      a(i) = (1 + real(state, real64) / 2147483648.0_real64) * 2.0_real64**(mod(state, 21_int64) - 10)
      if (mod(state / 7, 2_int64) == 1) a(i) = -a(i)
    end do
  end subroutine fill

end program operations_test
