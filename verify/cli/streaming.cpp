// SPDX-License-Identifier: BSD-3-Clause
// See streaming.hpp.
#include "streaming.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <future>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include <unistd.h>

#include "detred/partial.hpp"
#include "input_error.hpp"
#include "openmp_wait.hpp"
#include "progress.hpp"

namespace detred::verify::cli {
namespace {

template <class T>
constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// The selections need an element: an empty input has no result (the catalogue's rule).
bool is_selection(op o) { return catalogue::needs_an_element(o); }

// The result of a complete state, as run_op gives the single-array call's: an integer sum that does not fit comes
// back refused with the library's message.
template <class T>
std::vector<output> outputs_of(op o, const detred::partial_state& s) {
  auto one = [](auto r) { return std::vector<output>{{"", bits_of(r)}}; };
  if constexpr (std::is_integral_v<T>) {
    using sum_t = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    switch (o) {
      case op::sum:
        try {
          return one(s.result<sum_t>());
        } catch (const detred::overflow_error& e) {
          std::string message = e.what();
          const std::string prefix = "detred: ";
          if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
          return {{"", result_bits{std::is_signed_v<T> ? dtype::int64 : dtype::uint64, 0, message}}};
        }
      case op::min:
      case op::max:
        return one(s.result<T>());
      default:
        return one(s.result<std::uint64_t>());
    }
  } else if constexpr (is_half_v<T>) {
    return one(s.result<float>());
  } else {
    if (o == op::stats) return stats_members(s.result<statistics<T>>());
    if (o == op::argmin || o == op::argmax) return one(s.result<std::uint64_t>());
    return one(s.result<T>());
  }
}

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

// Reads the next chunk on a second thread while the current one is reduced, so that reading (I/O, decompression,
// parsing, the SHA-256) and the reductions overlap. The stream reuses its buffers, so each chunk is copied into one of
// two buffers owned here: the caller holds one while the reading thread fills the other.
class read_ahead {
 public:
  explicit read_ahead(element_stream& s) : stream_(s) { start(); }
  ~read_ahead() {
    if (pending_.valid()) pending_.wait();
  }
  read_ahead(const read_ahead&) = delete;
  read_ahead& operator=(const read_ahead&) = delete;

  element_stream& stream() { return stream_; }
  // The stream's bytes read when the last chunk was taken (the stream itself belongs to the reading thread).
  std::uint64_t bytes_read() const { return bytes_read_; }

  // The next chunk, valid until the next call; an empty chunk at the end. Rethrows the reading thread's errors.
  element_chunk next() {
    if (!pending_.valid()) return {};
    auto [c, bytes] = pending_.get();
    bytes_read_ = bytes;
    if (c.size() == 0) return c;
    held_ = 1 - held_;
    start();
    return c;
  }

 private:
  struct buffer {
    std::vector<std::byte> x, y;
  };

  void start() {
    pending_ = std::async(std::launch::async, [this, slot = 1 - held_] {
      const element_chunk c = stream_.next();
      return std::pair(copy(c, buffers_[static_cast<std::size_t>(slot)]), stream_.bytes_read());
    });
  }

  static element_chunk copy(const element_chunk& c, buffer& into) {
    auto copied = [](const dataset::values_type& v, std::vector<std::byte>& storage) {
      return std::visit(
          [&](auto s) {
            using T = typename decltype(s)::value_type;
            const auto bytes = std::as_bytes(s);
            storage.assign(bytes.begin(), bytes.end());  // operator new's storage: aligned for every element type
            return dataset::values_type(std::span<const T>(reinterpret_cast<const T*>(storage.data()), s.size()));
          },
          v);
    };
    element_chunk out;
    out.x = copied(c.x, into.x);
    if (c.y) out.y = copied(*c.y, into.y);
    return out;
  }

  element_stream& stream_;
  std::array<buffer, 2> buffers_;
  int held_ = 0;  // the buffer the caller holds; the reading thread fills the other
  std::future<std::pair<element_chunk, std::uint64_t>> pending_;  // a chunk and the bytes read up to its end
  std::uint64_t bytes_read_ = 0;
};

// Two streams read in lockstep (dot's x and y as two inputs): each step takes what both chunks still hold.
class lockstep {
 public:
  lockstep(read_ahead& x, read_ahead& y) : x_(x), y_(y) {}

  // The next equal-length pieces; false at the end. Throws input_error when one input ends before the other.
  bool next(dataset::values_type& x, dataset::values_type& y) {
    if (xo_ == cx_.size()) {
      cx_ = x_.next();
      xo_ = 0;
    }
    if (yo_ == cy_.size()) {
      cy_ = y_.next();
      yo_ = 0;
    }
    if (cx_.size() == 0 || cy_.size() == 0) {
      if (cx_.size() != cy_.size()) unequal();
      return false;
    }
    const std::uint64_t take = std::min(cx_.size() - xo_, cy_.size() - yo_);
    x = piece(cx_.x, xo_, take);
    y = piece(cy_.x, yo_, take);
    xo_ += take;
    yo_ += take;
    return true;
  }

 private:
  static dataset::values_type piece(const dataset::values_type& v, std::uint64_t offset, std::uint64_t count) {
    return std::visit(
        [&](auto s) {
          return dataset::values_type(s.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(count)));
        },
        v);
  }

  // Reads both to their ends, to name both lengths as make_operands does.
  [[noreturn]] void unequal() {
    while (x_.next().size() > 0) {
    }
    while (y_.next().size() > 0) {
    }
    const element_stream &x = x_.stream(), &y = y_.stream();
    throw input_error(y.info().path(), "holds " + std::to_string(y.count()) + " elements, its x (" + x.info().path() +
                                           ") " + std::to_string(x.count()) + ": dot needs equal lengths");
  }

  read_ahead& x_;
  read_ahead& y_;
  element_chunk cx_, cy_;
  std::uint64_t xo_ = 0, yo_ = 0;
};

}  // namespace

std::uint64_t memory_budget() {
  if (const char* text = std::getenv("DETRED_MEMORY_BUDGET"); text != nullptr) {
    const std::string s(text);
    std::size_t end = 0;
    std::uint64_t value = 0;
    try {
      value = std::stoull(s, &end);
    } catch (const std::exception&) {
      end = 0;
    }
    const std::string suffix = end == 0 ? s : s.substr(end);
    int shift = -1;
    if (suffix.empty()) shift = 0;
    if (suffix == "K" || suffix == "k") shift = 10;
    if (suffix == "M" || suffix == "m") shift = 20;
    if (suffix == "G" || suffix == "g") shift = 30;
    if (end == 0 || shift < 0 || value > (~std::uint64_t{0} >> shift)) {
      throw usage_error("DETRED_MEMORY_BUDGET=" + s + ": expected a number of bytes, e.g. 536870912 or 512M");
    }
    return value << shift;
  }
  return physical_memory() / 2;
}

void add_stream_options(CLI::App& command, stream_options& options) {
  command.add_flag("--stream", options.stream,
                   "Read the inputs chunk by chunk in one pass, even when they fit in memory (inputs larger than the "
                   "memory budget are always streamed; the GPU is not used then)");
  command
      .add_option("--chunk-bytes", options.chunk_bytes,
                  "Streaming: bytes read at a time (default: the memory budget / 16, from 64 KiB to 32 MiB)")
      ->check(CLI::PositiveNumber);
}

std::uint64_t chunk_bytes_of(const stream_options& options) {
  if (options.chunk_bytes > 0) return options.chunk_bytes;
  constexpr std::uint64_t smallest = std::uint64_t{64} << 10;  // below this, the calls per chunk cost more than reading
  return std::clamp(memory_budget() / budget_chunks, smallest, default_chunk_bytes);
}

bool should_stream(const stream_options& options, const std::vector<std::string>& inputs, const read_options& read) {
  bool stream = options.stream;
  if (!stream) {
    const std::uint64_t budget = memory_budget();
    stream = std::any_of(inputs.begin(), inputs.end(), [&](const std::string& input) {
      return element_stream(input, read, chunk_bytes_of(options)).data_bytes() > budget;
    });
  }
  if (stream) prefer_passive_openmp_wait();
  return stream;
}

std::vector<stream_set> open_stream_sets(op o, const std::vector<std::string>& inputs, const read_options& read,
                                         std::uint64_t chunk_bytes) {
  if (o != op::dot && read.column.find(',') != std::string::npos) {
    throw usage_error("--column " + read.column + ": two columns are the x and y of --op dot");
  }
  // The element-type checks are make_operands' own, run on the inputs' descriptions (datasets without elements).
  std::vector<stream_set> out;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    stream_set set;
    set.x = std::make_unique<element_stream>(inputs[k], read, chunk_bytes);
    if (o == op::dot && !set.x->info().holds_pair() && k + 1 < inputs.size()) {
      set.y = std::make_unique<element_stream>(inputs[++k], read, chunk_bytes);
      if (set.x->known_size() && set.y->known_size() && *set.x->known_size() != *set.y->known_size()) {
        throw input_error(set.y->info().path(), "holds " + std::to_string(*set.y->known_size()) + " elements, its x (" +
                                                    set.x->info().path() + ") " + std::to_string(*set.x->known_size()) +
                                                    ": dot needs equal lengths");
      }
    }
    std::vector<dataset> infos;
    infos.push_back(set.x->description());
    if (set.y) infos.push_back(set.y->description());
    // The descriptions hold no elements: make_operands checks types and pairing here, run_stream the lengths. It
    // would refuse a selection of them as empty, so the selections' one type rule is checked here.
    if (!is_selection(o)) {
      make_operands(o, infos, read);
    } else {
      require_accepts(o, set.x->info().type(), set.x->info().path());
    }
    out.push_back(std::move(set));
  }
  return out;
}

stream_outcome run_stream(stream_set& set, const std::vector<stream_job>& jobs, std::optional<op> oracle_op,
                          const std::string& progress_label, bool digest) {
  element_stream& x = *set.x;
  if (!digest) {
    x.skip_digest();
    if (set.y) set.y->skip_digest();
  }
  const bool pair_in_x = !set.y && !jobs.empty() && jobs[0].o == op::dot;
  if (pair_in_x) x.read_pairs();
  stream_outcome out;
  out.in.x_data = &x.info();
  out.in.y_data = set.y ? &set.y->info() : nullptr;
  out.in.label = set.y ? x.info().path() + " and " + set.y->info().path() : x.info().path();
  out.in.type = x.info().type();
  out.in.x = x.info().values();
  if (oracle_op) out.oracle = std::make_unique<op_oracle>(*oracle_op, x.info().values());

  std::vector<detred::partial_state> states;
  std::visit(
      [&](auto empty) {
        using T = typename decltype(empty)::value_type;
        for (const stream_job& j : jobs) {
          const detred::options opt{.mode = j.mode.value_or(detred::mode::tree),
                                    .threads = j.path.threads,
                                    .isa = j.path.isa,
                                    .backend = detred::backend::cpu};
          states.push_back(detred::partial_state::empty<T>(j.o, opt));
        }
      },
      out.in.x);

  const std::uint64_t total = x.data_bytes() + (set.y ? set.y->data_bytes() : 0);
  progress_bar bar(progress_label, total);
  read_ahead x_reader(x);
  std::optional<read_ahead> y_reader;
  if (set.y) y_reader.emplace(*set.y);
  auto feed = [&](const dataset::values_type& cx, const std::optional<dataset::values_type>& cy) {
    std::visit(
        [&](auto xs) {
          using T = typename decltype(xs)::value_type;
          for (std::size_t k = 0; k < states.size(); ++k) {
            if constexpr (!std::is_integral_v<T>) {  // dot reads floats only (open_stream_sets checks)
              if (jobs[k].o == op::dot) {
                states[k].append(xs, std::get<std::span<const T>>(*cy));
                continue;
              }
            }
            states[k].append(xs);
          }
        },
        cx);
    if (out.oracle) out.oracle->add(cx, cy);
    bar.set(x_reader.bytes_read() + (y_reader ? y_reader->bytes_read() : 0));
  };
  if (y_reader) {
    lockstep both(x_reader, *y_reader);
    dataset::values_type cx, cy;
    while (both.next(cx, cy)) feed(cx, cy);
  } else {
    for (element_chunk c = x_reader.next(); c.size() > 0; c = x_reader.next()) feed(c.x, c.y);
  }

  out.in.n = x.count();
  for (const stream_job& j : jobs) {
    if (is_selection(j.o) && out.in.n == 0) {
      throw input_error(x.info().path(),
                        std::string("an empty array has no ") + to_string(j.o) + " (it needs at least 1 element)");
    }
  }
  std::visit(
      [&](auto empty) {
        using T = typename decltype(empty)::value_type;
        for (std::size_t k = 0; k < states.size(); ++k) out.results.push_back(outputs_of<T>(jobs[k].o, states[k]));
      },
      out.in.x);
  if (out.oracle) out.oracle->finish();
  if (digest) {
    out.x_sha256 = x.sha256_hex();
    if (set.y) out.y_sha256 = set.y->sha256_hex();
  }
  return out;
}

}  // namespace detred::verify::cli
