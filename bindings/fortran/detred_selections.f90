! SPDX-License-Identifier: BSD-3-Clause
! detred_min, detred_max, detred_minloc and detred_maxloc. Part of the module detred (detred.f90), which re-exports
! them.
!
! Rules that make the answer unique, on every machine: NaN propagates (min and max give NaN, minloc and maxloc the
! position of the first NaN; Fortran's minval and minloc skip NaNs); -0.0 is smaller than +0.0; ties go to the first
! position. An array of no elements has no minimum: DETRED_EMPTY (minval gives huge(x) there), and minloc/maxloc
! return 0 as minloc does. Nothing is rounded, so there is no mode.
module detred_selections
  use, intrinsic :: iso_c_binding, only: c_size_t, c_int32_t, c_int64_t, c_double, c_float, c_loc
  use detred_c_api
  use detred_calls
  implicit none
  private

  public :: detred_min, detred_max, detred_minloc, detred_maxloc

  !> detred_min(x [, threads] [, status]): the smallest element of a real(4), real(8), integer(4) or integer(8) array
  !> of any rank, of the type and kind of x.
  interface detred_min
    module procedure min_r8, min_r4, min_i4, min_i8
  end interface detred_min

  !> detred_max(x [, threads] [, status]): the largest element.
  interface detred_max
    module procedure max_r8, max_r4, max_i4, max_i8
  end interface detred_max

  !> detred_minloc(x [, threads] [, status]): the 1-based position of the minimum in array element order, as
  !> integer(8): minloc(x, dim=1) for a rank-1 array without NaN or signed zeros; for a higher rank, the position in
  !> reshape(x, [size(x)]).
  interface detred_minloc
    module procedure minloc_r8, minloc_r4, minloc_i4, minloc_i8
  end interface detred_minloc

  !> detred_maxloc(x [, threads] [, status]): the 1-based position of the maximum.
  interface detred_maxloc
    module procedure maxloc_r8, maxloc_r4, maxloc_i4, maxloc_i8
  end interface detred_maxloc

contains

  function min_r8(x, threads, status) result(m)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    real(c_double), target :: m
    m = 0
    call exact(c_min_f64, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(m))
  end function min_r8

  function min_r4(x, threads, status) result(m)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    real(c_float), target :: m
    m = 0
    call exact(c_min_f32, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(m))
  end function min_r4

  function min_i4(x, threads, status) result(m)
    integer(c_int32_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    integer(c_int32_t), target :: m
    m = 0
    call exact(c_min_i32, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(m))
  end function min_i4

  function min_i8(x, threads, status) result(m)
    integer(c_int64_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    integer(c_int64_t), target :: m
    m = 0
    call exact(c_min_i64, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(m))
  end function min_i8

  function max_r8(x, threads, status) result(m)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    real(c_double), target :: m
    m = 0
    call exact(c_max_f64, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(m))
  end function max_r8

  function max_r4(x, threads, status) result(m)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    real(c_float), target :: m
    m = 0
    call exact(c_max_f32, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(m))
  end function max_r4

  function max_i4(x, threads, status) result(m)
    integer(c_int32_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    integer(c_int32_t), target :: m
    m = 0
    call exact(c_max_i32, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(m))
  end function max_i4

  function max_i8(x, threads, status) result(m)
    integer(c_int64_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    integer(c_int64_t), target :: m
    m = 0
    call exact(c_max_i64, c_loc(x), size(x, kind=c_size_t), threads, status, c_loc(m))
  end function max_i8

  integer(c_int64_t) function minloc_r8(x, threads, status) result(p)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    p = location(c_argmin_f64, c_loc(x), size(x, kind=c_size_t), threads, status)
  end function minloc_r8

  integer(c_int64_t) function minloc_r4(x, threads, status) result(p)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    p = location(c_argmin_f32, c_loc(x), size(x, kind=c_size_t), threads, status)
  end function minloc_r4

  integer(c_int64_t) function minloc_i4(x, threads, status) result(p)
    integer(c_int32_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    p = location(c_argmin_i32, c_loc(x), size(x, kind=c_size_t), threads, status)
  end function minloc_i4

  integer(c_int64_t) function minloc_i8(x, threads, status) result(p)
    integer(c_int64_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    p = location(c_argmin_i64, c_loc(x), size(x, kind=c_size_t), threads, status)
  end function minloc_i8

  integer(c_int64_t) function maxloc_r8(x, threads, status) result(p)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    p = location(c_argmax_f64, c_loc(x), size(x, kind=c_size_t), threads, status)
  end function maxloc_r8

  integer(c_int64_t) function maxloc_r4(x, threads, status) result(p)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    p = location(c_argmax_f32, c_loc(x), size(x, kind=c_size_t), threads, status)
  end function maxloc_r4

  integer(c_int64_t) function maxloc_i4(x, threads, status) result(p)
    integer(c_int32_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    p = location(c_argmax_i32, c_loc(x), size(x, kind=c_size_t), threads, status)
  end function maxloc_i4

  integer(c_int64_t) function maxloc_i8(x, threads, status) result(p)
    integer(c_int64_t), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    p = location(c_argmax_i64, c_loc(x), size(x, kind=c_size_t), threads, status)
  end function maxloc_i8

end module detred_selections
