// SPDX-License-Identifier: BSD-3-Clause
// An owning MPFR number: the oracle's values live in these, never in raw mpfr_t.
#pragma once

#include <mpfr.h>

namespace detred::verify {

class mpfr_number {
 public:
  explicit mpfr_number(mpfr_prec_t precision) { mpfr_init2(value_, precision); }
  ~mpfr_number() { mpfr_clear(value_); }
  mpfr_number(const mpfr_number& other) {
    mpfr_init2(value_, mpfr_get_prec(other.value_));
    mpfr_set(value_, other.value_, MPFR_RNDN);  // same precision: exact
  }
  mpfr_number& operator=(const mpfr_number& other) {
    if (this != &other) {
      mpfr_set_prec(value_, mpfr_get_prec(other.value_));
      mpfr_set(value_, other.value_, MPFR_RNDN);
    }
    return *this;
  }

  mpfr_ptr get() { return value_; }
  mpfr_srcptr get() const { return value_; }

 private:
  mpfr_t value_;
};

}  // namespace detred::verify
