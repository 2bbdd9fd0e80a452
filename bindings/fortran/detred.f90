! SPDX-License-Identifier: BSD-3-Clause
! The Fortran module of detred: `use detred`, then deterministic reductions of real(4), real(8), integer(4) and
! integer(8) arrays of any rank: detred_sum, detred_dot, detred_asum, detred_nrm2, detred_min, detred_max,
! detred_minloc, detred_maxloc, detred_stats; and the prefix sums detred_cumsum and detred_exclusive_cumsum.
!
!   use detred
!   real(8) :: field(nx, ny, nz), s
!   type(detred_statistics_r8) :: st
!   integer :: status
!   s = detred_sum(field)                                            ! tree mode, default threads
!   s = detred_sum(field, mode=DETRED_MODE_COMPENSATED, status=status)
!   if (status /= DETRED_OK) print *, detred_last_error()
!   st = detred_stats(field)                                         ! st%mean, st%stddev, st%min, ...
!
! The result bits depend only on the number of elements and their values, in array element (storage) order: never on
! the thread count, the machine, or on Fortran, C, C++ or Python being the caller. A contiguous array is passed to
! the library in place; a non-contiguous one (a section with strides, x(1:n:2, :)) is first packed into a contiguous
! temporary by the compiler (copy-in), so the result is that of the section in array element order. An assumed-size
! array (x(*)) has no size: pass a section, detred_sum(x(1:n)).
!
! Errors: with the optional argument status present, it receives DETRED_OK or an error code, and the result is
! undefined on failure (0 for minloc and maxloc); without it, a failure stops the program with the message (error
! stop). Built on the C API (include/detred/detred.h) through iso_c_binding; docs/bindings.md.
!
! The procedures live in one module per family (detred_sums.F90, detred_norms.F90, detred_selections.F90,
! detred_statistics.F90, detred_scans.F90, detred_by_name.F90) over the C API's declarations (detred_c_api.f90) and
! the shared calls (detred_calls.f90); this module gathers their public names. Each specific procedure is written
! once, in templates/, and instantiated per kind by the preprocessor (templates/kinds.fi).
module detred
  use detred_c_api, only: DETRED_MODE_TREE, DETRED_MODE_COMPENSATED, DETRED_MODE_EXACT, DETRED_OK, DETRED_INVALID_ARGUMENT, &
                          DETRED_UNSUPPORTED, DETRED_DEVICE_ERROR, DETRED_OUT_OF_MEMORY, DETRED_INTERNAL_ERROR, &
                          DETRED_OVERFLOW, DETRED_EMPTY, detred_statistics_r8, detred_statistics_r4
  use detred_calls, only: detred_last_error, detred_status_string, detred_order_version
  use detred_sums, only: detred_sum, detred_reference_sum
  use detred_norms, only: detred_dot, detred_asum, detred_nrm2
  use detred_selections, only: detred_min, detred_max, detred_minloc, detred_maxloc
  use detred_statistics, only: detred_stats
  use detred_scans, only: detred_cumsum, detred_exclusive_cumsum
  use detred_by_name, only: detred_reduce
  implicit none
  private

  public :: DETRED_MODE_TREE, DETRED_MODE_COMPENSATED, DETRED_MODE_EXACT, DETRED_OK, DETRED_INVALID_ARGUMENT, DETRED_UNSUPPORTED, &
            DETRED_DEVICE_ERROR, DETRED_OUT_OF_MEMORY, DETRED_INTERNAL_ERROR, DETRED_OVERFLOW, DETRED_EMPTY
  public :: detred_statistics_r8, detred_statistics_r4
  public :: detred_sum, detred_reference_sum, detred_dot, detred_asum, detred_nrm2, detred_min, detred_max, &
            detred_minloc, detred_maxloc, detred_stats, detred_cumsum, detred_exclusive_cumsum, detred_reduce
  public :: detred_last_error, detred_status_string, detred_order_version

end module detred
