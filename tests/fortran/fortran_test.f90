! SPDX-License-Identifier: BSD-3-Clause
! The Fortran module's test: detred_sum of real(4) and real(8) arrays of ranks 0 to 4 against the reference and
! against the same values as a rank-1 array (the sum follows array element order), sections with strides, modes,
! thread counts, special values and the status of failing calls. Prints one line per failed check and a closing
! "N passed, N failed" line; stops with a nonzero code if any check failed.
program fortran_test
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf, ieee_negative_inf
  use detred
  implicit none

  integer :: passed = 0, failed = 0
  integer, parameter :: n1 = 3 * 4096 + 5
  real(real64), allocatable :: x1(:), x2(:, :), x4(:, :, :, :)
  real(real32), allocatable :: y1(:), y3(:, :, :)
  real(real64) :: s, scalar
  real(real32) :: f
  integer :: mode, threads, status, i

  allocate (x1(n1))
  call fill(x1)
  x2 = reshape(x1(1:64 * 150), [64, 150])
  x4 = reshape(x1(1:7 * 11 * 13 * 9), [7, 11, 13, 9])
  y1 = real(x1, real32)
  y3 = reshape(y1(1:33 * 65 * 5), [33, 65, 5])

  do mode = DETRED_MODE_TREE, DETRED_MODE_COMPENSATED
    ! Every rank equals the reference, and the rank-1 array of the same values in array element order.
    call check(same8(detred_sum(x1, mode=mode), detred_reference_sum(x1, mode=mode)), "rank 1 real(8) vs reference")
    call check(same8(detred_sum(x2, mode=mode), detred_reference_sum(x2, mode=mode)), "rank 2 real(8) vs reference")
    call check(same8(detred_sum(x2, mode=mode), detred_sum(x1(1:64 * 150), mode=mode)), "rank 2 = its storage order")
    call check(same8(detred_sum(x4, mode=mode), detred_sum(x1(1:7 * 11 * 13 * 9), mode=mode)), "rank 4 = storage")
    call check(same4(detred_sum(y1, mode=mode), detred_reference_sum(y1, mode=mode)), "rank 1 real(4) vs reference")
    call check(same4(detred_sum(y3, mode=mode), detred_sum(y1(1:33 * 65 * 5), mode=mode)), "rank 3 real(4) = storage")
    call check(same4(detred_sum(y3, mode=mode), detred_reference_sum(y3, mode=mode)), "rank 3 real(4) vs reference")

    ! A section with strides is summed in array element order: equal to its packed copy.
    call check(same8(detred_sum(x1(1:n1:3), mode=mode), detred_reference_sum(pack8(x1(1:n1:3)), mode=mode)), &
               "strided section = its packed copy")
    call check(same8(detred_sum(x2(5:40, 2:150:7), mode=mode), &
                     detred_reference_sum(reshape(x2(5:40, 2:150:7), [36 * 22]), mode=mode)), "2-D section")

    ! The bits never depend on the thread count.
    do threads = 1, 4
      call check(same8(detred_sum(x1, mode=mode, threads=threads), detred_sum(x1, mode=mode)), "threads, real(8)")
      call check(same4(detred_sum(y1, mode=mode, threads=threads), detred_sum(y1, mode=mode)), "threads, real(4)")
    end do
  end do

  ! Rank 0, empty arrays, special values.
  scalar = 2.5_real64
  call check(same8(detred_sum(scalar), 2.5_real64), "a scalar is its own sum")
  call check(transfer(detred_sum(x1(1:0)), 0_int64) == transfer(-0.0_real64, 0_int64), "empty sum is -0.0")
  call check(transfer(detred_sum(y1(1:0)), 0_int32) == transfer(-0.0_real32, 0_int32), "empty real(4) sum is -0.0")
  x1(100) = ieee_value(x1(100), ieee_quiet_nan)
  call check(transfer(detred_sum(x1), 0_int64) == int(z'7FF8000000000000', int64), "NaN gives the canonical NaN")
  x1(100) = ieee_value(x1(100), ieee_positive_inf)
  x1(200) = ieee_value(x1(200), ieee_negative_inf)
  call check(transfer(detred_sum(x1, mode=DETRED_MODE_COMPENSATED), 0_int64) == int(z'7FF8000000000000', int64), &
             "+Inf with -Inf gives the canonical NaN")

  ! Failures report a status and a message, and do not stop the program when status is present.
  s = detred_sum(x2, mode=7, status=status)
  call check(status == DETRED_INVALID_ARGUMENT, "unknown mode: status")
  call check(index(detred_last_error(), "unknown mode") > 0, "unknown mode: message")
  f = detred_sum(y1, threads=-1, status=status)
  call check(status == DETRED_INVALID_ARGUMENT, "negative threads: status")
  call check(index(detred_last_error(), "threads") > 0, "negative threads: message")
  call check(detred_status_string(DETRED_INVALID_ARGUMENT) == "invalid argument", "status string")
  s = detred_sum(x2, status=status)
  call check(status == DETRED_OK, "success: status is DETRED_OK")
  call assumed_size_case(x1, 10)
  call check(detred_order_version() == 2, "order version")
  deallocate (x1, x2, x4, y1, y3)  ! (the main program's arrays are never freed otherwise: LeakSanitizer reports them)

  write (*, '(i0, " passed, ", i0, " failed")') passed, failed
  if (failed > 0) error stop 1

contains

  subroutine assumed_size_case(x, n)
    real(real64), intent(in) :: x(*)
    integer, intent(in) :: n
    integer :: st
    real(real64) :: r
    r = detred_sum(x, status=st)
    call check(st == DETRED_INVALID_ARGUMENT, "assumed-size array: status")
    call check(same8(detred_sum(x(1:n)), detred_reference_sum(x(1:n))), "assumed-size array: a section of it")
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

  ! Values of mixed sign and magnitude, so that the order of the additions shows in the result bits.
  subroutine fill(x)
    real(real64), intent(out) :: x(:)
    integer(int64) :: state
    state = 42
    do i = 1, size(x)
      state = modulo(state * 1103515245_int64 + 12345_int64, 2147483648_int64)
      x(i) = (1 + real(state, real64) / 2147483648.0_real64) * 2.0_real64**(mod(state, 41_int64) - 20)
      if (mod(state / 7, 2_int64) == 1) x(i) = -x(i)
    end do
  end subroutine fill

end program fortran_test
