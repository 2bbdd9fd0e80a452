! SPDX-License-Identifier: BSD-3-Clause
! detred_cumsum and detred_exclusive_cumsum: deterministic prefix sums (docs/scan.md). Part of the module detred
! (detred.f90), which re-exports them.
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
    module procedure cumsum_r8, cumsum_r4, cumsum_i4, cumsum_i8
  end interface detred_cumsum

  !> call detred_exclusive_cumsum(x, y [, mode] [, threads] [, status]): y(1) = the empty sum (-0.0, or 0 for
  !> integers), y(i) = x(1) + ... + x(i-1): detred_cumsum's y(i-1), bit for bit. Arguments as detred_cumsum.
  interface detred_exclusive_cumsum
    module procedure exclusive_cumsum_r8, exclusive_cumsum_r4, exclusive_cumsum_i4, exclusive_cumsum_i8
  end interface detred_exclusive_cumsum

contains

  subroutine cumsum_r8(x, y, mode, threads, status)
    real(c_double), intent(in), contiguous, target :: x(..)
    real(c_double), intent(out), contiguous, target :: y(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    call scan_with_mode(c_cumsum_f64, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), mode, &
                        threads, status)
  end subroutine cumsum_r8

  subroutine cumsum_r4(x, y, mode, threads, status)
    real(c_float), intent(in), contiguous, target :: x(..)
    real(c_float), intent(out), contiguous, target :: y(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    call scan_with_mode(c_cumsum_f32, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), mode, &
                        threads, status)
  end subroutine cumsum_r4

  subroutine cumsum_i4(x, y, threads, status)
    integer(c_int32_t), intent(in), contiguous, target :: x(..)
    integer(c_int64_t), intent(inout), contiguous, target :: y(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    call scan_exact(c_cumsum_i32, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), threads, status)
  end subroutine cumsum_i4

  subroutine cumsum_i8(x, y, threads, status)
    integer(c_int64_t), intent(in), contiguous, target :: x(..)
    integer(c_int64_t), intent(inout), contiguous, target :: y(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    call scan_exact(c_cumsum_i64, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), threads, status)
  end subroutine cumsum_i8

  subroutine exclusive_cumsum_r8(x, y, mode, threads, status)
    real(c_double), intent(in), contiguous, target :: x(..)
    real(c_double), intent(out), contiguous, target :: y(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    call scan_with_mode(c_exclusive_cumsum_f64, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), &
                        mode, threads, status)
  end subroutine exclusive_cumsum_r8

  subroutine exclusive_cumsum_r4(x, y, mode, threads, status)
    real(c_float), intent(in), contiguous, target :: x(..)
    real(c_float), intent(out), contiguous, target :: y(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    call scan_with_mode(c_exclusive_cumsum_f32, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), &
                        mode, threads, status)
  end subroutine exclusive_cumsum_r4

  subroutine exclusive_cumsum_i4(x, y, threads, status)
    integer(c_int32_t), intent(in), contiguous, target :: x(..)
    integer(c_int64_t), intent(inout), contiguous, target :: y(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    call scan_exact(c_exclusive_cumsum_i32, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), &
                    threads, status)
  end subroutine exclusive_cumsum_i4

  subroutine exclusive_cumsum_i8(x, y, threads, status)
    integer(c_int64_t), intent(in), contiguous, target :: x(..)
    integer(c_int64_t), intent(inout), contiguous, target :: y(..)
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    call scan_exact(c_exclusive_cumsum_i64, c_loc(x), size(x, kind=c_size_t), c_loc(y), size(y, kind=c_size_t), &
                    threads, status)
  end subroutine exclusive_cumsum_i8

end module detred_scans
