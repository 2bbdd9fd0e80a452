// SPDX-License-Identifier: BSD-3-Clause
// MPI return codes as detred errors (with MPI's own error text), and the MPI datatype of an element type.
#pragma once

#include <string>
#include <type_traits>

#include <mpi.h>

#include "detred/options.hpp"

namespace detred::mpi {

/// Throws detred::error naming `what` if code is not MPI_SUCCESS. MPI's default handler aborts on errors before
/// a code comes back; communicators set to MPI_ERRORS_RETURN get the error here.
inline void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw error(std::string("detred::mpi: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

/// The MPI datatype of double or float elements.
template <class T>
MPI_Datatype datatype() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>);
  return std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
}

}  // namespace detred::mpi
