! SPDX-License-Identifier: BSD-3-Clause
! The C API (include/detred/detred.h) as Fortran sees it: the values of its enums, its structs as bind(c) types, and
! its functions. Part of the module detred (detred.f90), which re-exports the public names; not meant to be used
! directly.
!
! The functions are declared by signature (abstract interfaces), with every array and output passed as an address
! (type(c_ptr)): one interface serves every element type of a signature, so each C function is one line below.
module detred_c_api
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_int64_t, c_double, c_float, c_ptr
  implicit none
  private

  ! detred_mode and detred_status (the values of detred.h).
  integer, parameter, public :: DETRED_MODE_TREE = 0, DETRED_MODE_COMPENSATED = 1, DETRED_MODE_EXACT = 2
  integer, parameter, public :: DETRED_OK = 0, DETRED_INVALID_ARGUMENT = 1, DETRED_UNSUPPORTED = 2, &
                                DETRED_DEVICE_ERROR = 3, DETRED_OUT_OF_MEMORY = 4, DETRED_INTERNAL_ERROR = 5, &
                                DETRED_OVERFLOW = 6, DETRED_EMPTY = 7

  !> The summary statistics of a real(8) array (detred_statistics_f64 in C): count, sum (bit for bit detred_sum in
  !> tree mode), mean, population and sample variance and standard deviation, min and max. For no elements: count 0,
  !> sum -0.0, the rest NaN; any NaN makes every real member NaN; the sample members are NaN for one element.
  type, bind(c), public :: detred_statistics_r8
    integer(c_int64_t) :: count
    real(c_double) :: sum, mean, variance, sample_variance, stddev, sample_stddev, min, max
  end type detred_statistics_r8

  !> The same for a real(4) array (detred_statistics_f32).
  type, bind(c), public :: detred_statistics_r4
    integer(c_int64_t) :: count
    real(c_float) :: sum, mean, variance, sample_variance, stddev, sample_stddev, min, max
  end type detred_statistics_r4

  ! The signatures of detred.h. Enums are C ints; arrays and results are addresses.
  abstract interface
    ! detred_<op>(x, n, mode, threads, result): sums, asum, nrm2, stats.
    integer(c_int) function c_with_mode(x, n, mode, threads, result) bind(c)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: x, result
      integer(c_size_t), value :: n
      integer(c_int), value :: mode, threads
    end function c_with_mode
    ! detred_dot_<type>(x, y, n, mode, threads, result).
    integer(c_int) function c_two_arrays_with_mode(x, y, n, mode, threads, result) bind(c)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: x, y, result
      integer(c_size_t), value :: n
      integer(c_int), value :: mode, threads
    end function c_two_arrays_with_mode
    ! detred_<op>(x, n, threads, result): exact integer sums and the selections, which no mode changes.
    integer(c_int) function c_exact(x, n, threads, result) bind(c)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: x, result
      integer(c_size_t), value :: n
      integer(c_int), value :: threads
    end function c_exact
    ! detred_reference_sum_<type>(x, n, mode, result).
    integer(c_int) function c_reference_sum(x, n, mode, result) bind(c)
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: x, result
      integer(c_size_t), value :: n
      integer(c_int), value :: mode
    end function c_reference_sum
  end interface
  public :: c_with_mode, c_two_arrays_with_mode, c_exact, c_reference_sum

  ! One line per C function the module calls.
  procedure(c_with_mode), bind(c, name="detred_sum_f64"), public :: c_sum_f64
  procedure(c_with_mode), bind(c, name="detred_sum_f32"), public :: c_sum_f32
  procedure(c_exact), bind(c, name="detred_sum_i32"), public :: c_sum_i32
  procedure(c_exact), bind(c, name="detred_sum_i64"), public :: c_sum_i64
  procedure(c_two_arrays_with_mode), bind(c, name="detred_dot_f64"), public :: c_dot_f64
  procedure(c_two_arrays_with_mode), bind(c, name="detred_dot_f32"), public :: c_dot_f32
  procedure(c_with_mode), bind(c, name="detred_asum_f64"), public :: c_asum_f64
  procedure(c_with_mode), bind(c, name="detred_asum_f32"), public :: c_asum_f32
  procedure(c_with_mode), bind(c, name="detred_nrm2_f64"), public :: c_nrm2_f64
  procedure(c_with_mode), bind(c, name="detred_nrm2_f32"), public :: c_nrm2_f32
  procedure(c_exact), bind(c, name="detred_min_f64"), public :: c_min_f64
  procedure(c_exact), bind(c, name="detred_min_f32"), public :: c_min_f32
  procedure(c_exact), bind(c, name="detred_min_i32"), public :: c_min_i32
  procedure(c_exact), bind(c, name="detred_min_i64"), public :: c_min_i64
  procedure(c_exact), bind(c, name="detred_max_f64"), public :: c_max_f64
  procedure(c_exact), bind(c, name="detred_max_f32"), public :: c_max_f32
  procedure(c_exact), bind(c, name="detred_max_i32"), public :: c_max_i32
  procedure(c_exact), bind(c, name="detred_max_i64"), public :: c_max_i64
  procedure(c_exact), bind(c, name="detred_argmin_f64"), public :: c_argmin_f64
  procedure(c_exact), bind(c, name="detred_argmin_f32"), public :: c_argmin_f32
  procedure(c_exact), bind(c, name="detred_argmin_i32"), public :: c_argmin_i32
  procedure(c_exact), bind(c, name="detred_argmin_i64"), public :: c_argmin_i64
  procedure(c_exact), bind(c, name="detred_argmax_f64"), public :: c_argmax_f64
  procedure(c_exact), bind(c, name="detred_argmax_f32"), public :: c_argmax_f32
  procedure(c_exact), bind(c, name="detred_argmax_i32"), public :: c_argmax_i32
  procedure(c_exact), bind(c, name="detred_argmax_i64"), public :: c_argmax_i64
  procedure(c_with_mode), bind(c, name="detred_stats_f64"), public :: c_stats_f64
  procedure(c_with_mode), bind(c, name="detred_stats_f32"), public :: c_stats_f32
  ! The scans have the reductions' signatures, their last address being the output array.
  procedure(c_with_mode), bind(c, name="detred_cumsum_f64"), public :: c_cumsum_f64
  procedure(c_with_mode), bind(c, name="detred_cumsum_f32"), public :: c_cumsum_f32
  procedure(c_exact), bind(c, name="detred_cumsum_i32"), public :: c_cumsum_i32
  procedure(c_exact), bind(c, name="detred_cumsum_i64"), public :: c_cumsum_i64
  procedure(c_with_mode), bind(c, name="detred_exclusive_cumsum_f64"), public :: c_exclusive_cumsum_f64
  procedure(c_with_mode), bind(c, name="detred_exclusive_cumsum_f32"), public :: c_exclusive_cumsum_f32
  procedure(c_exact), bind(c, name="detred_exclusive_cumsum_i32"), public :: c_exclusive_cumsum_i32
  procedure(c_exact), bind(c, name="detred_exclusive_cumsum_i64"), public :: c_exclusive_cumsum_i64

  ! Functions of their own signature.
  interface
    type(c_ptr) function c_last_error() bind(c, name="detred_last_error")
      import :: c_ptr
    end function c_last_error
    type(c_ptr) function c_status_string(status) bind(c, name="detred_status_string")
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function c_status_string
    integer(c_int) function c_order_version() bind(c, name="detred_order_version")
      import :: c_int
    end function c_order_version
    integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function c_strlen
  end interface
  procedure(c_reference_sum), bind(c, name="detred_reference_sum_f64"), public :: c_reference_sum_f64
  procedure(c_reference_sum), bind(c, name="detred_reference_sum_f32"), public :: c_reference_sum_f32
  public :: c_last_error, c_status_string, c_order_version, c_strlen

end module detred_c_api
