! SPDX-License-Identifier: BSD-3-Clause
! detred_sum and detred_reference_sum. Part of the module detred (detred.f90), which re-exports them.
module detred_sums
  use, intrinsic :: iso_c_binding, only: c_size_t, c_int32_t, c_int64_t, c_double, c_float, c_loc
  use detred_c_api
  use detred_calls
  implicit none
  private

  public :: detred_sum, detred_reference_sum

  !> detred_sum(x [, mode] [, threads] [, status]): the deterministic sum of a real(4) or real(8) array of any rank,
  !> of the kind of x. mode: DETRED_MODE_TREE (default), DETRED_MODE_COMPENSATED or DETRED_MODE_EXACT. threads: 0 (default) = the
  !> library's default; the bits never depend on it.
  !> detred_sum(x [, threads] [, status]) of an integer(4) or integer(8) array: the exact sum as integer(8);
  !> DETRED_OVERFLOW if it does not fit (nothing wraps around). No mode: every mode would be exact.
  interface detred_sum
    module procedure sum_r8, sum_r4, sum_i4, sum_i8
  end interface detred_sum

  !> detred_reference_sum(x [, mode] [, status]): the scalar reference implementation, the specification in code
  !> (slow by design; for tests).
  interface detred_reference_sum
    module procedure reference_sum_r8, reference_sum_r4
  end interface detred_reference_sum

contains

  function sum_r8(x, mode, threads, status) result(s)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_double), target :: s
    s = 0
    call with_mode(c_sum_f64, c_loc(x), size(x, kind=c_size_t), mode, threads, status, c_loc(s))
  end function sum_r8

  function sum_r4(x, mode, threads, status) result(s)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_float), target :: s
    s = 0
    call with_mode(c_sum_f32, c_loc(x), size(x, kind=c_size_t), mode, threads, status, c_loc(s))
  end function sum_r4

  function sum_i4(x, threads, status) result(s)
    integer(c_int32_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    integer(c_int64_t), target :: s
    s = 0
    call exact(c_sum_i32, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(s))
  end function sum_i4

  function sum_i8(x, threads, status) result(s)
    integer(c_int64_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    integer(c_int64_t), target :: s
    s = 0
    call exact(c_sum_i64, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(s))
  end function sum_i8

  function reference_sum_r8(x, mode, status) result(s)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode
    integer, intent(out), optional :: status
    real(c_double), target :: s
    s = 0
    call reference(c_reference_sum_f64, c_loc(x), size(x, kind=c_size_t), mode, status, c_loc(s))
  end function reference_sum_r8

  function reference_sum_r4(x, mode, status) result(s)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode
    integer, intent(out), optional :: status
    real(c_float), target :: s
    s = 0
    call reference(c_reference_sum_f32, c_loc(x), size(x, kind=c_size_t), mode, status, c_loc(s))
  end function reference_sum_r4

end module detred_sums
