! SPDX-License-Identifier: BSD-3-Clause
! detred_stats. Part of the module detred (detred.f90), which re-exports it. Its specific procedures are a template
! of templates/ instantiated once per kind (templates/kinds.fi says why).
#include "templates/kinds.fi"
module detred_statistics
  use, intrinsic :: iso_c_binding, only: c_size_t, c_double, c_float, c_loc
  use detred_c_api
  use detred_calls
  implicit none
  private

  public :: detred_stats

  !> detred_stats(x [, mode] [, threads] [, status]): the summary statistics of a real(4) or real(8) array of any
  !> rank from one read of it, as a type(detred_statistics_r4) or type(detred_statistics_r8) (count, sum, mean,
  !> variance, sample_variance, stddev, sample_stddev, min, max). Tree mode only for now: DETRED_MODE_COMPENSATED
  !> gives DETRED_INVALID_ARGUMENT.
  interface detred_stats
    module procedure REAL_KINDS(stats)
  end interface detred_stats

contains

#define TEMPLATE "stats.fi"
#include "templates/real_kinds.fi"
#include "templates/template_end.fi"

end module detred_statistics
