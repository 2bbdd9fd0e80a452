! SPDX-License-Identifier: BSD-3-Clause
! detred_dot, detred_asum and detred_nrm2. Part of the module detred (detred.f90), which re-exports them.
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
    module procedure dot_r8, dot_r4
  end interface detred_dot

  !> detred_asum(x [, mode] [, threads] [, status]): sum |x(i)|, bit for bit detred_sum(abs(x)).
  interface detred_asum
    module procedure asum_r8, asum_r4
  end interface detred_asum

  !> detred_nrm2(x [, mode] [, threads] [, status]): sqrt(sum x(i)**2) without overflow or underflow in between, as
  !> LAPACK's dnrm2 (Blue's scaling); 0 for no elements.
  interface detred_nrm2
    module procedure nrm2_r8, nrm2_r4
  end interface detred_nrm2

contains

  function dot_r8(x, y, mode, threads, status) result(s)
    real(c_double), intent(in), contiguous, target :: x(..), y(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_double), target :: s
    s = 0
    call two_arrays_with_mode(c_dot_f64, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), mode, &
                              threads, status, c_loc(s))
  end function dot_r8

  function dot_r4(x, y, mode, threads, status) result(s)
    real(c_float), intent(in), contiguous, target :: x(..), y(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_float), target :: s
    s = 0
    call two_arrays_with_mode(c_dot_f32, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), mode, &
                              threads, status, c_loc(s))
  end function dot_r4

  function asum_r8(x, mode, threads, status) result(s)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_double), target :: s
    s = 0
    call with_mode(c_asum_f64, c_loc(x), size(x, kind=c_size_t), mode, threads, status, c_loc(s))
  end function asum_r8

  function asum_r4(x, mode, threads, status) result(s)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_float), target :: s
    s = 0
    call with_mode(c_asum_f32, c_loc(x), size(x, kind=c_size_t), mode, threads, status, c_loc(s))
  end function asum_r4

  function nrm2_r8(x, mode, threads, status) result(s)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_double), target :: s
    s = 0
    call with_mode(c_nrm2_f64, c_loc(x), size(x, kind=c_size_t), mode, threads, status, c_loc(s))
  end function nrm2_r8

  function nrm2_r4(x, mode, threads, status) result(s)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    real(c_float), target :: s
    s = 0
    call with_mode(c_nrm2_f32, c_loc(x), size(x, kind=c_size_t), mode, threads, status, c_loc(s))
  end function nrm2_r4

end module detred_norms
