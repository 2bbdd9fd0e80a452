! The Fortran module of detred: `use detred`, then detred_sum(x) for real(4) and real(8) arrays of any rank.
!
!   use detred
!   real(8) :: field(nx, ny, nz), s
!   integer :: status
!   s = detred_sum(field)                                            ! tree mode, default threads
!   s = detred_sum(field, mode=DETRED_MODE_COMPENSATED, status=status)
!   if (status /= DETRED_OK) print *, detred_last_error()
!
! The result bits depend only on the number of elements and their values, in array element (storage) order:
! never on the thread count, the machine, or on Fortran, C, C++ or Python being the caller. A contiguous array is
! passed to the library in place; a non-contiguous one (a section with strides, x(1:n:2, :)) is first packed into
! a contiguous temporary by the compiler (copy-in), so the sum is that of the section in array element order. An
! assumed-size array (x(*)) has no size: pass a section, detred_sum(x(1:n)).
!
! Errors: with the optional argument status present, it receives DETRED_OK or an error code, and the result is
! undefined on failure; without it, a failure stops the program with the message (error stop).
! Built on the C API (include/detred/detred.h) through iso_c_binding; docs/bindings.md.
module detred
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_double, c_float, c_ptr, c_loc, c_char, c_null_char, &
                                         c_f_pointer, c_associated
  implicit none
  private

  public :: detred_sum, detred_reference_sum, detred_last_error, detred_status_string, detred_order_version

  ! Modes and statuses: the values of detred_mode and detred_status in detred.h.
  integer, parameter, public :: DETRED_MODE_TREE = 0, DETRED_MODE_COMPENSATED = 1
  integer, parameter, public :: DETRED_OK = 0, DETRED_INVALID_ARGUMENT = 1, DETRED_UNSUPPORTED = 2, &
                                DETRED_DEVICE_ERROR = 3, DETRED_OUT_OF_MEMORY = 4, DETRED_INTERNAL_ERROR = 5

  !> detred_sum(x [, mode] [, threads] [, status]): the deterministic sum of a real(4) or real(8) array of any rank,
  !> of the kind of x. mode: DETRED_MODE_TREE (default) or DETRED_MODE_COMPENSATED. threads: 0 (default) = the
  !> library's default; the bits never depend on it.
  interface detred_sum
    module procedure sum_r8, sum_r4
  end interface detred_sum

  !> detred_reference_sum(x [, mode] [, status]): the scalar reference implementation, the specification in code
  !> (slow by design; for tests).
  interface detred_reference_sum
    module procedure reference_sum_r8, reference_sum_r4
  end interface detred_reference_sum

  ! The C API. Its enums are C ints; x is passed as an address (c_loc of the contiguous array).
  abstract interface
    integer(c_int) function c_reduction_f64(x, n, mode, threads, result) bind(c)
      import :: c_int, c_size_t, c_double, c_ptr
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: mode, threads
      real(c_double), intent(out) :: result
    end function c_reduction_f64
    integer(c_int) function c_reduction_f32(x, n, mode, threads, result) bind(c)
      import :: c_int, c_size_t, c_float, c_ptr
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: mode, threads
      real(c_float), intent(out) :: result
    end function c_reduction_f32
  end interface

  ! One line per operation and kind: the C function of that abstract interface.
  procedure(c_reduction_f64), bind(c, name="detred_sum_f64") :: detred_sum_f64
  procedure(c_reduction_f32), bind(c, name="detred_sum_f32") :: detred_sum_f32

  interface
    integer(c_int) function detred_reference_sum_f64(x, n, mode, result) bind(c, name="detred_reference_sum_f64")
      import :: c_int, c_size_t, c_double, c_ptr
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: mode
      real(c_double), intent(out) :: result
    end function detred_reference_sum_f64
    integer(c_int) function detred_reference_sum_f32(x, n, mode, result) bind(c, name="detred_reference_sum_f32")
      import :: c_int, c_size_t, c_float, c_ptr
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: mode
      real(c_float), intent(out) :: result
    end function detred_reference_sum_f32

    type(c_ptr) function c_last_error() bind(c, name="detred_last_error")
      import :: c_ptr
    end function c_last_error
    type(c_ptr) function c_status_string(status) bind(c, name="detred_status_string")
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function c_status_string
    integer(c_int) function c_order_version() bind(c, name="detred_order_version")
      import :: c_int
    end function c_order_version
    integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function c_strlen
  end interface

contains

  ! ---- The generic procedures: one per operation and kind.

  real(c_double) function sum_r8(x, mode, threads, status) result(s)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    s = reduce_r8(detred_sum_f64, x, mode, threads, status)
  end function sum_r8

  real(c_float) function sum_r4(x, mode, threads, status) result(s)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    s = reduce_r4(detred_sum_f32, x, mode, threads, status)
  end function sum_r4

  real(c_double) function reference_sum_r8(x, mode, status) result(s)
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode
    integer, intent(out), optional :: status
    s = 0
    if (assumed_size(size(x, kind=c_size_t), status)) return
    call finish(detred_reference_sum_f64(c_loc(x), size(x, kind=c_size_t), mode_or_tree(mode), s), status)
  end function reference_sum_r8

  real(c_float) function reference_sum_r4(x, mode, status) result(s)
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode
    integer, intent(out), optional :: status
    s = 0
    if (assumed_size(size(x, kind=c_size_t), status)) return
    call finish(detred_reference_sum_f32(c_loc(x), size(x, kind=c_size_t), mode_or_tree(mode), s), status)
  end function reference_sum_r4

  ! ---- Messages and versions.

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

  ! ---- Shared by the procedures above.

  ! Runs a C reduction on x (any rank, contiguous) with the optional arguments' defaults.
  real(c_double) function reduce_r8(c_function, x, mode, threads, status) result(s)
    procedure(c_reduction_f64) :: c_function
    real(c_double), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    s = 0
    if (assumed_size(size(x, kind=c_size_t), status)) return
    call finish(c_function(c_loc(x), size(x, kind=c_size_t), mode_or_tree(mode), threads_or_default(threads), s), &
                status)
  end function reduce_r8

  real(c_float) function reduce_r4(c_function, x, mode, threads, status) result(s)
    procedure(c_reduction_f32) :: c_function
    real(c_float), intent(in), contiguous, target :: x(..)
    integer, intent(in), optional :: mode, threads
    integer, intent(out), optional :: status
    s = 0
    if (assumed_size(size(x, kind=c_size_t), status)) return
    call finish(c_function(c_loc(x), size(x, kind=c_size_t), mode_or_tree(mode), threads_or_default(threads), s), &
                status)
  end function reduce_r4

  ! True for an assumed-size array (SIZE is negative: its last extent is unknown): status = DETRED_INVALID_ARGUMENT,
  ! or without status a stop with the message (detred_last_error() does not hold it: the C API was not called).
  logical function assumed_size(n, status)
    integer(c_size_t), intent(in) :: n
    integer, intent(out), optional :: status
    assumed_size = n < 0
    if (.not. assumed_size) return
    if (present(status)) then
      status = DETRED_INVALID_ARGUMENT
    else
      error stop "detred: an assumed-size array x(*) has no size; pass a section, detred_sum(x(1:n))"
    end if
  end function assumed_size

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

end module detred
