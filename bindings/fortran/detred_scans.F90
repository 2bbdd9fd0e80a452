! SPDX-License-Identifier: BSD-3-Clause
! detred_cumsum and detred_exclusive_cumsum: deterministic prefix sums (docs/scan.md). Part of the module detred
! (detred.f90), which re-exports them. Each specific procedure is a template of templates/ instantiated once per kind
! (templates/kinds.fi says why).
#include "templates/kinds.fi"
module detred_scans
  use, intrinsic :: iso_c_binding, only: c_size_t, c_int32_t, c_int64_t, c_double, c_float, c_loc
  use detred_c_api
  use detred_calls
  implicit none
  private

  public :: detred_cumsum, detred_exclusive_cumsum

  !> call detred_cumsum(x, y [, mode] [, threads] [, status]): y(i) = x(1) + ... + x(i) in array element order, for
  !> x of any rank and y of any rank with as many elements: real(8) -> real(8), real(4) -> real(4) (mode:
  !> DETRED_MODE_TREE, the default, or DETRED_MODE_COMPENSATED; DETRED_MODE_EXACT is refused), integer(4) and
  !> integer(8) -> integer(8), exact (DETRED_OVERFLOW for an output that does not fit; no mode). Each output's bits
  !> depend only on its position and the elements up to it, never on size(x), threads or the machine. y must not be
  !> x (Fortran forbids the aliasing); y is written only on success for the integer scans.
  interface detred_cumsum
    module procedure REAL_KINDS(cumsum), INTEGER_KINDS(cumsum)
  end interface detred_cumsum

  !> call detred_exclusive_cumsum(x, y [, mode] [, threads] [, status]): y(1) = the empty sum (-0.0, or 0 for
  !> integers), y(i) = x(1) + ... + x(i-1): detred_cumsum's y(i-1), bit for bit. Arguments as detred_cumsum.
  interface detred_exclusive_cumsum
    module procedure REAL_KINDS(exclusive_cumsum), INTEGER_KINDS(exclusive_cumsum)
  end interface detred_exclusive_cumsum

contains

#define TEMPLATE "scan_with_mode.fi"
#define SPECIFIC KIND_NAME(cumsum)
#define C_FUNCTION C_NAME(c_cumsum)
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "scan_exact.fi"
#define SPECIFIC KIND_NAME(cumsum)
#define C_FUNCTION C_NAME(c_cumsum)
#include "templates/integer_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "scan_with_mode.fi"
#define SPECIFIC KIND_NAME(exclusive_cumsum)
#define C_FUNCTION C_NAME(c_exclusive_cumsum)
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "scan_exact.fi"
#define SPECIFIC KIND_NAME(exclusive_cumsum)
#define C_FUNCTION C_NAME(c_exclusive_cumsum)
#include "templates/integer_kinds.fi"
#include "templates/template_end.fi"

end module detred_scans
