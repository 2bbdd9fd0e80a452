// SPDX-License-Identifier: BSD-3-Clause
// A progress bar on stderr, shown only when stderr is a terminal and the work has already taken a second, so that
// quick runs and redirected logs stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace detred::verify::cli {

class progress_bar {
 public:
  progress_bar(std::string label, std::uint64_t total);
  ~progress_bar();
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  /// Marks `amount` more units done.
  void advance(std::uint64_t amount);
  /// Sets the units done so far.
  void set(std::uint64_t done);

 private:
  void draw();

  std::string label_;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace detred::verify::cli
