! SPDX-License-Identifier: BSD-3-Clause
! detred_sum and detred_reference_sum. Part of the module detred (detred.f90), which re-exports them. Each specific
! procedure is a template of templates/ instantiated once per kind (templates/kinds.fi says why).
#include "templates/kinds.fi"
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
    module procedure REAL_KINDS(sum), INTEGER_KINDS(sum)
  end interface detred_sum

  !> detred_reference_sum(x [, mode] [, status]): the scalar reference implementation, the specification in code
  !> (slow by design; for tests).
  interface detred_reference_sum
    module procedure REAL_KINDS(reference_sum)
  end interface detred_reference_sum

contains

#define TEMPLATE "with_mode.fi"
#define SPECIFIC KIND_NAME(sum)
#define C_FUNCTION C_NAME(c_sum)
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "exact.fi"
#define SPECIFIC KIND_NAME(sum)
#define C_FUNCTION C_NAME(c_sum)
#define RESULT_TYPE integer(c_int64_t)
#include "templates/integer_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "reference_sum.fi"
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

end module detred_sums
