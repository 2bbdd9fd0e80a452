! SPDX-License-Identifier: BSD-3-Clause
! detred_stats. Part of the module detred (detred.f90), which re-exports it.
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
    module procedure stats_r8, stats_r4
  end interface detred_stats

contains

  function stats_r8(x, mode, threads, status) result(s)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    type(detred_statistics_r8), target :: s
    s = detred_statistics_r8(0, 0, 0, 0, 0, 0, 0, 0, 0)
    call with_mode(c_stats_f64, c_loc(x), size(x, kind=c_size_t), mode, threads, status, c_loc(s))
  end function stats_r8

  function stats_r4(x, mode, threads, status) result(s)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    type(detred_statistics_r4), target :: s
    s = detred_statistics_r4(0, 0, 0, 0, 0, 0, 0, 0, 0)
    call with_mode(c_stats_f32, c_loc(x), size(x, kind=c_size_t), mode, threads, status, c_loc(s))
  end function stats_r4

end module detred_statistics
