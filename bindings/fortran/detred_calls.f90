! SPDX-License-Identifier: BSD-3-Clause
! What every procedure of the module detred shares: calling a C function of one of the C API's signatures with the
! optional arguments' defaults, handing its status to the caller (or stopping with the message), and the messages and
! versions. Part of the module detred (detred.f90), which re-exports the public names.
module detred_calls
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_int64_t, c_ptr, c_loc, c_char, c_f_pointer, c_associated
  use detred_c_api
  implicit none
  private

  public :: with_mode, two_arrays_with_mode, exact, location, reference, scan_with_mode, scan_exact
  public :: finish, mode_or_tree, threads_or_default, assumed_size  ! for detred_by_name.f90
  public :: detred_last_error, detred_status_string, detred_order_version

contains

  ! c_function(x, n, mode, threads, result) for the n elements at x; the value is written at `result` (only on success).
  subroutine with_mode(c_function, x, n, mode, threads, status, result)
    procedure(c_with_mode) :: c_function
    type(c_ptr), intent(in) :: x, result
    integer(c_size_t), intent(in) :: n
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    if (assumed_size(n, status)) return
    call finish(c_function(x, n, mode_or_tree(mode), threads_or_default(threads), result), status)
  end subroutine with_mode

  ! c_function(x, y, n, mode, threads, result) for two arrays of nx and ny elements, paired in array element order:
  ! they must have the same number (DETRED_INVALID_ARGUMENT otherwise, without a C call: detred_last_error() does not
  ! hold that message).
  subroutine two_arrays_with_mode(c_function, x, nx, y, ny, mode, threads, status, result)
    procedure(c_two_arrays_with_mode) :: c_function
    type(c_ptr), intent(in) :: x, y, result
    integer(c_size_t), intent(in) :: nx, ny
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    if (assumed_size(nx, status)) return
    if (assumed_size(ny, status)) return
    if (nx /= ny) then
      call refuse("x and y differ in size: detred_dot pairs the elements of two arrays of the same size", status)
      return
    end if
    call finish(c_function(x, y, nx, mode_or_tree(mode), threads_or_default(threads), result), status)
  end subroutine two_arrays_with_mode

  ! c_function(x, n, threads, result): exact integer sums and the selections.
  subroutine exact(c_function, x, n, threads, status, result)
    procedure(c_exact) :: c_function
    type(c_ptr), intent(in) :: x, result
    integer(c_size_t), intent(in) :: n
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    if (assumed_size(n, status)) return
    call finish(c_function(x, n, threads_or_default(threads), result), status)
  end subroutine exact

  ! c_function(x, n, mode, threads, y) of a floating-point scan: one output per element, so x (nx elements) and y
  ! (ny) must have the same size (DETRED_INVALID_ARGUMENT otherwise, without a C call).
  subroutine scan_with_mode(c_function, x, nx, y, ny, mode, threads, status)
    procedure(c_with_mode) :: c_function
    type(c_ptr), intent(in) :: x, y
    integer(c_size_t), intent(in) :: nx, ny
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    if (.not. same_size(nx, ny, status)) return
    call with_mode(c_function, x, nx, mode, threads, status, y)
  end subroutine scan_with_mode

  ! c_function(x, n, threads, y) of an exact integer scan, with scan_with_mode's size check.
  subroutine scan_exact(c_function, x, nx, y, ny, threads, status)
    procedure(c_exact) :: c_function
    type(c_ptr), intent(in) :: x, y
    integer(c_size_t), intent(in) :: nx, ny
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    if (.not. same_size(nx, ny, status)) return
    call exact(c_function, x, nx, threads, status, y)
  end subroutine scan_exact

  ! True when x and y of a scan have sizes nx and ny that are known and equal; refuses them otherwise.
  logical function same_size(nx, ny, status)
    integer(c_size_t), intent(in) :: nx, ny
    integer, intent(out), optional :: status
    same_size = .false.
    if (assumed_size(nx, status)) return
    if (assumed_size(ny, status)) return
    if (nx /= ny) then
      call refuse("x and y differ in size: a scan writes one output per element of x", status)
      return
    end if
    same_size = .true.
  end function same_size

  ! The 1-based position in array element order that c_function (argmin or argmax: a 0-based index) selects, or 0 on
  ! failure (as minloc gives 0 for an empty array).
  integer(c_int64_t) function location(c_function, x, n, threads, status) result(position)
    procedure(c_exact) :: c_function
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    integer, intent(in), optional :: threads
    integer, intent(out), optional :: status
    integer(c_int64_t), target :: index
    integer :: code
    index = -1
    call exact(c_function, x, n, threads, code, c_loc(index))
    position = index + 1
    call finish(int(code, c_int), status)
  end function location

  ! c_function(x, n, mode, result): the reference sum.
  subroutine reference(c_function, x, n, mode, status, result)
    procedure(c_reference_sum) :: c_function
    type(c_ptr), intent(in) :: x, result
    integer(c_size_t), intent(in) :: n
    integer, intent(in), optional :: mode
    integer, intent(out), optional :: status
    if (assumed_size(n, status)) return
    call finish(c_function(x, n, mode_or_tree(mode), result), status)
  end subroutine reference

  !> The message of the last failed call on this thread ("" if none).
  function detred_last_error() result(message)
    character(len=:), allocatable :: message
    type(c_ptr) :: p
    p = c_last_error()
    call copy_c_string(p, message)
  end function detred_last_error

  !> A name for a status code: "ok", "invalid argument", ...
  function detred_status_string(status) result(name)
    integer, intent(in) :: status
    character(len=:), allocatable :: name
    type(c_ptr) :: p
    p = c_status_string(int(status, c_int))
    call copy_c_string(p, name)
  end function detred_status_string

  !> The canonical order's version: results of the same order version are bitwise equal everywhere.
  integer function detred_order_version()
    detred_order_version = int(c_order_version())
  end function detred_order_version

  ! True for an assumed-size array (SIZE is negative: its last extent is unknown), which is refused.
  logical function assumed_size(n, status)
    integer(c_size_t), intent(in) :: n
    integer, intent(out), optional :: status
    assumed_size = n < 0
    if (assumed_size) call refuse("an assumed-size array x(*) has no size; pass a section, x(1:n)", status)
  end function assumed_size

  ! A failure found here, before any C call: status = DETRED_INVALID_ARGUMENT, or without status a stop with the
  ! message (detred_last_error() does not hold it: the C API was not called).
  subroutine refuse(message, status)
    character(len=*), intent(in) :: message
    integer, intent(out), optional :: status
    if (present(status)) then
      status = DETRED_INVALID_ARGUMENT
    else
      error stop "detred: " // message
    end if
  end subroutine refuse

  integer(c_int) function mode_or_tree(mode)
    integer, intent(in), optional :: mode
    mode_or_tree = DETRED_MODE_TREE
    if (present(mode)) mode_or_tree = int(mode, c_int)
  end function mode_or_tree

  integer(c_int) function threads_or_default(threads)
    integer, intent(in), optional :: threads
    threads_or_default = 0
    if (present(threads)) threads_or_default = int(threads, c_int)
  end function threads_or_default

  ! Hands the status to the caller, or stops with the message when the caller passed no status.
  subroutine finish(code, status)
    integer(c_int), intent(in) :: code
    integer, intent(out), optional :: status
    character(len=:), allocatable :: message
    if (present(status)) then
      status = int(code)
    else if (code /= DETRED_OK) then
      message = detred_last_error()  ! (a function result used in error stop directly crashes gfortran 12)
      error stop message
    end if
  end subroutine finish

  ! s = a copy of the NUL-terminated C string at p ("" for a null pointer).
  subroutine copy_c_string(p, s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable, intent(out) :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = 0
    if (c_associated(p)) n = int(c_strlen(p))
    allocate (character(len=n) :: s)
    if (n == 0) return
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end subroutine copy_c_string

end module detred_calls
