! SPDX-License-Identifier: BSD-3-Clause
! detred_min, detred_max, detred_minloc and detred_maxloc. Part of the module detred (detred.f90), which re-exports
! them.
!
! Rules that make the answer unique, on every machine: NaN propagates (min and max give NaN, minloc and maxloc the
! position of the first NaN; Fortran's minval and minloc skip NaNs); -0.0 is smaller than +0.0; ties go to the first
! position. An array of no elements has no minimum: DETRED_EMPTY (minval gives huge(x) there), and minloc/maxloc
! return 0 as minloc does. Nothing is rounded, so there is no mode.
!
! Each specific procedure is a template of templates/ instantiated once per kind (templates/kinds.fi says why).
#include "templates/kinds.fi"
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
    module procedure REAL_KINDS(min), INTEGER_KINDS(min)
  end interface detred_min

  !> detred_max(x [, threads] [, status]): the largest element.
  interface detred_max
    module procedure REAL_KINDS(max), INTEGER_KINDS(max)
  end interface detred_max

  !> detred_minloc(x [, threads] [, status]): the 1-based position of the minimum in array element order, as
  !> integer(8): minloc(x, dim=1) for a rank-1 array without NaN or signed zeros; for a higher rank, the position in
  !> reshape(x, [size(x)]).
  interface detred_minloc
    module procedure REAL_KINDS(minloc), INTEGER_KINDS(minloc)
  end interface detred_minloc

  !> detred_maxloc(x [, threads] [, status]): the 1-based position of the maximum.
  interface detred_maxloc
    module procedure REAL_KINDS(maxloc), INTEGER_KINDS(maxloc)
  end interface detred_maxloc

contains

#define TEMPLATE "exact.fi"
#define SPECIFIC KIND_NAME(min)
#define C_FUNCTION C_NAME(c_min)
#define RESULT_TYPE X_TYPE
#include "templates/real_kinds.fi"
#include "templates/integer_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "exact.fi"
#define SPECIFIC KIND_NAME(max)
#define C_FUNCTION C_NAME(c_max)
#define RESULT_TYPE X_TYPE
#include "templates/real_kinds.fi"
#include "templates/integer_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "location.fi"
#define SPECIFIC KIND_NAME(minloc)
#define C_FUNCTION C_NAME(c_argmin)
#include "templates/real_kinds.fi"
#include "templates/integer_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "location.fi"
#define SPECIFIC KIND_NAME(maxloc)
#define C_FUNCTION C_NAME(c_argmax)
#include "templates/real_kinds.fi"
#include "templates/integer_kinds.fi"
#include "templates/template_end.fi"

end module detred_selections
