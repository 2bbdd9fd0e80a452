! SPDX-License-Identifier: BSD-3-Clause
! detred_reduce: any reduction of the library's catalogue by its name, through the C API's detred_reduce, so that an
! operation added to the library is callable from Fortran with no change here (docs/bindings.md). Part of the module
! detred (detred.f90), which re-exports it.
module detred_by_name
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_size_t, c_double, c_float, c_ptr, c_loc, c_null_char, &
                                         c_null_ptr
  use detred_calls, only: assumed_size, finish, mode_or_tree, threads_or_default
  implicit none
  private

  public :: detred_reduce

  ! The element types of detred.h (detred_type).
  integer(c_int), parameter :: DETRED_TYPE_F64 = 0, DETRED_TYPE_F32 = 1

  interface
    integer(c_int) function c_reduce(operation, type, x, y, n, mode, threads, result) bind(c, name="detred_reduce")
      import :: c_char, c_int, c_size_t, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: operation
      integer(c_int), value :: type
      type(c_ptr), value :: x, y, result
      integer(c_size_t), value :: n
      integer(c_int), value :: mode, threads
    end function c_reduce
  end interface

  !> detred_reduce(operation, x [, y] [, mode] [, threads] [, status]): the reduction `operation` (its name in
  !> docs/operations.md: "sum", "asum", "nrm2", "sumsq", "min", "max", "dot" with y, ...) of a real(4) or real(8)
  !> array of any rank, in array element order, whose result has the kind of x. An operation whose result is not of
  !> that kind (argmin, stats) or that this type lacks gives DETRED_INVALID_ARGUMENT.
  interface detred_reduce
    module procedure reduce_r8, reduce_r4
  end interface detred_reduce

contains

  function reduce_r8(operation, x, y, mode, threads, status) result(r)
    character(*), intent(in) :: operation
    real(c_double), intent(in), contiguous, target :: x(..)
    real(c_double), intent(in), contiguous, target, optional :: y(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_double), target :: r
    type(c_ptr) :: second
    r = 0
    if (assumed_size(size(x, kind=c_size_t), status)) return
    second = c_null_ptr
    if (present(y)) second = c_loc(y)
    call finish(c_reduce(trim(operation)//c_null_char, DETRED_TYPE_F64, c_loc(x), second, &
                                size(x, kind=c_size_t), mode_or_tree(mode), threads_or_default(threads), &
                                c_loc(r)), status)
  end function reduce_r8

  function reduce_r4(operation, x, y, mode, threads, status) result(r)
    character(*), intent(in) :: operation
    real(c_float), intent(in), contiguous, target :: x(..)
    real(c_float), intent(in), contiguous, target, optional :: y(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_float), target :: r
    type(c_ptr) :: second
    r = 0
    if (assumed_size(size(x, kind=c_size_t), status)) return
    second = c_null_ptr
    if (present(y)) second = c_loc(y)
    call finish(c_reduce(trim(operation)//c_null_char, DETRED_TYPE_F32, c_loc(x), second, &
                                size(x, kind=c_size_t), mode_or_tree(mode), threads_or_default(threads), &
                                c_loc(r)), status)
  end function reduce_r4

end module detred_by_name
