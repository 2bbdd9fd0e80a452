! SPDX-License-Identifier: BSD-3-Clause
! detred_reduce: any reduction of the library's catalogue by its name, through the C API's detred_reduce, so that an
! operation added to the library is callable from Fortran with no change here (docs/bindings.md). Part of the module
! detred (detred.f90), which re-exports it. Its specific procedures are a template of templates/ instantiated once per
! kind (templates/kinds.fi says why).
#include "templates/kinds.fi"
module detred_by_name
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_size_t, c_double, c_float, c_ptr, c_loc, c_null_char, &
                                         c_null_ptr
  use detred_calls, only: assumed_size, finish, mode_or_tree, threads_or_default
  implicit none
  private

  public :: detred_reduce

  ! The element types of detred.h (detred_type); templates/reduce.fi names them by their C suffix.
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
  !> docs/operations.md: "sum", "asum", "nrm2", "sumsq", "mean", "min", "max", "dot" with y, ...) of a real(4) or
  !> real(8) array of any rank, in array element order, whose result has the kind of x. An operation whose result is not of
  !> that kind (argmin, stats) or that this type lacks gives DETRED_INVALID_ARGUMENT.
  interface detred_reduce
    module procedure REAL_KINDS(reduce)
  end interface detred_reduce

contains

#define TEMPLATE "reduce.fi"
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

end module detred_by_name
