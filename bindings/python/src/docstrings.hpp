// SPDX-License-Identifier: BSD-3-Clause
// Docstring entries (numpydoc) that several functions share word for word, written once; a docstring splices them
// between its raw string literals: R"(... mode ...)" DETRED_DOC_AXIS_AND_THREADS R"(Returns ...)".
#pragma once

/// `threads`, as every reduction and scan takes it.
#define DETRED_DOC_THREADS "threads : int\n    CPU threads; 0 = the library's default. Never changes the result.\n"

/// `axis` and `threads` of the reductions whose output elements reduce their lanes alone.
#define DETRED_DOC_AXIS_AND_THREADS \
  "axis : None, int or tuple of ints\n    The axes to reduce (None: all).\n" DETRED_DOC_THREADS
