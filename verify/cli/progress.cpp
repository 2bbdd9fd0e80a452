// SPDX-License-Identifier: BSD-3-Clause
#include "progress.hpp"

#include <cstdio>
#include <utility>

#include <unistd.h>

namespace detred::verify::cli {

progress_bar::progress_bar(std::string label, std::uint64_t total)
    : label_(std::move(label)),
      total_(total == 0 ? 1 : total),
      terminal_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

progress_bar::~progress_bar() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");  // erase the bar: what follows starts on a clean line
}

void progress_bar::advance(std::uint64_t amount) { set(done_ + amount); }

void progress_bar::set(std::uint64_t done) {
  done_ = done > total_ ? total_ : done;
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  draw();
}

void progress_bar::draw() {
  constexpr int width = 30;
  const double fraction = static_cast<double>(done_) / static_cast<double>(total_);
  const int filled = static_cast<int>(fraction * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(width - filled), '.');
  std::fprintf(stderr, "\r%s [%s] %3d%%", label_.c_str(), bar.c_str(), static_cast<int>(fraction * 100));
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace detred::verify::cli
