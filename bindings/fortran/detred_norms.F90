! SPDX-License-Identifier: BSD-3-Clause
! detred_dot, detred_asum and detred_nrm2. Part of the module detred (detred.f90), which re-exports them. Each
! specific procedure is a template of templates/ instantiated once per kind (templates/kinds.fi says why).
#include "templates/kinds.fi"
module detred_norms
  use, intrinsic :: iso_c_binding, only: c_size_t, c_double, c_float, c_loc
  use detred_c_api
  use detred_calls
  implicit none
  private

  public :: detred_dot, detred_asum, detred_nrm2

  !> detred_dot(x, y [, mode] [, threads] [, status]): sum x(i) * y(i) of two real(4) or real(8) arrays of any ranks
  !> and the same size, paired in array element order; the kind of x. Compensated mode: Ogita, Rump and Oishi's Dot2.
  interface detred_dot
    module procedure REAL_KINDS(dot)
  end interface detred_dot

  !> detred_asum(x [, mode] [, threads] [, status]): sum |x(i)|, bit for bit detred_sum(abs(x)).
  interface detred_asum
    module procedure REAL_KINDS(asum)
  end interface detred_asum

  !> detred_nrm2(x [, mode] [, threads] [, status]): sqrt(sum x(i)**2) without overflow or underflow in between, as
  !> LAPACK's dnrm2 (Blue's scaling); 0 for no elements.
  interface detred_nrm2
    module procedure REAL_KINDS(nrm2)
  end interface detred_nrm2

contains

#define TEMPLATE "dot.fi"
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "with_mode.fi"
#define SPECIFIC KIND_NAME(asum)
#define C_FUNCTION C_NAME(c_asum)
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

#define TEMPLATE "with_mode.fi"
#define SPECIFIC KIND_NAME(nrm2)
#define C_FUNCTION C_NAME(c_nrm2)
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

end module detred_norms
