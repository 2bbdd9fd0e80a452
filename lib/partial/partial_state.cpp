// SPDX-License-Identifier: BSD-3-Clause
// detred::partial_state: picks the operator of (operation, mode, element type), and reads and writes the portable
// form's header (docs/partial-states.md).
#include <cstring>
#include <string>
#include <typeindex>

#include "core/integer_results.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/partial.hpp"
#include "detred/version.hpp"
#include "exact_state.hpp"
#include "state.hpp"

namespace detred {
namespace {

constexpr char magic[8] = {'D', 'T', 'R', 'D', 'P', 'A', 'R', 'T'};
/// Version of the byte layout below (the order version is stored beside it); detred/version.hpp holds the number.
constexpr auto format_version = static_cast<std::uint32_t>(state_format_version);

/// An empty state of class State (a partial::state_for<Op> or partial::exact_state<Op>).
template <class State>
std::unique_ptr<partial_state::impl> make_state(operation op, mode m, element_type t, const options& opt) {
  auto s = std::make_unique<State>();
  s->op = op;
  s->mode = m;
  s->type = t;
  s->how = {.threads = opt.threads, .instruction_set = opt.isa};
  return s;
}

/// The empty state of op over T in mode m; throws for an operation T does not have (as the single-array API).
template <class T>
std::unique_ptr<partial_state::impl> make_state(operation op, mode m, const options& opt) {
  const element_type t = element_type_of<T>();
  if (catalogue::is_scan(op)) {
    // A scan's pieces exchange leaf totals, not a state: the catalogue's partial_state shape of cumsum is those.
    throw error(std::string("partial_state: ") + to_string(op) +
                " has no partial state object (split scans use detred::cumsum_totals and cumsum_piece; docs/scan.md)");
  }
  if (!catalogue::has(op, t)) {
    throw error(std::string("partial_state: ") + to_string(t) + " elements have no " + to_string(op));
  }
  // As the single-array calls: the modes the catalogue has for a partial state; the selections and integer sums,
  // exact in any mode, keep tree mode.
  checked_mode(m, op, t, backend::cpu, call_shape::partial_state, "partial_state");
  if (catalogue::mode_rule_of(op, t) == catalogue::mode_rule::exact) m = mode::tree;
  return with_operator<T>(op, m, [&]<class Op>() -> std::unique_ptr<partial_state::impl> {
    if constexpr (exact::is_exact_op<Op>) {
      // An exact operator's state is a superaccumulator: the order of the terms does not matter (exact_state.hpp).
      return make_state<partial::exact_state<Op>>(op, m, t, opt);
    } else {
      return make_state<partial::state_for<Op>>(op, m, t, opt);
    }
  });
}

/// make_state for the element type t.
std::unique_ptr<partial_state::impl> make_state(operation op, mode m, element_type t, const options& opt) {
  switch (t) {
    case element_type::float64:
      return make_state<double>(op, m, opt);
    case element_type::float32:
      return make_state<float>(op, m, opt);
    case element_type::float16:
      return make_state<float16>(op, m, opt);
    case element_type::bfloat16:
      return make_state<bfloat16>(op, m, opt);
    case element_type::int32:
      return make_state<std::int32_t>(op, m, opt);
    case element_type::int64:
      return make_state<std::int64_t>(op, m, opt);
    case element_type::uint32:
      return make_state<std::uint32_t>(op, m, opt);
    case element_type::uint64:
      return make_state<std::uint64_t>(op, m, opt);
  }
  throw error("partial state: corrupt: unknown element type " + std::to_string(static_cast<int>(t)));
}

unsigned arity(operation op) { return catalogue::arity(op); }

void check_type(const partial_state::impl& s, element_type t, const char* what) {
  if (s.type != t) {
    throw error(std::string("partial_state::") + what + ": " + to_string(t) + " elements given to a state of " +
                to_string(s.type) + " elements");
  }
}

}  // namespace

partial_state::partial_state(std::unique_ptr<impl> state) : state_(std::move(state)) {}
partial_state::partial_state(const partial_state& other) : state_(other.state_->clone()) {}
partial_state& partial_state::operator=(const partial_state& other) {
  if (this != &other) state_ = other.state_->clone();
  return *this;
}
partial_state::partial_state(partial_state&&) noexcept = default;
partial_state& partial_state::operator=(partial_state&&) noexcept = default;
partial_state::~partial_state() = default;

template <class T>
partial_state partial_state::empty(detred::operation op, const options& opt) {
  validate(opt);
  return partial_state(make_state<T>(op, opt.mode, opt));
}

template <class T>
partial_state partial_state::of(detred::operation op, std::span<const T> x, std::uint64_t offset, const options& opt) {
  if (arity(op) != 1) {
    throw error(std::string("partial_state::of: ") + to_string(op) +
                " reads two arrays: use partial_state::of(op, x, y, offset)");
  }
  partial_state s = empty<T>(op, opt);
  if (x.size() > ~std::uint64_t{0} - offset) throw error("partial_state::of: the piece would end past index 2^64 - 1");
  const void* data[1] = {x.data()};
  s.state_->add(data, x.size(), offset);
  return s;
}

template <class T>
partial_state partial_state::of(detred::operation op, std::span<const T> x, std::span<const T> y, std::uint64_t offset,
                                const options& opt) {
  if (arity(op) != 2) {
    throw error(std::string("partial_state::of: ") + to_string(op) +
                " reads one array: use partial_state::of(op, x, offset)");
  }
  validate_lengths(x.size(), y.size(), "partial_state::of");
  partial_state s = empty<T>(op, opt);
  if (x.size() > ~std::uint64_t{0} - offset) throw error("partial_state::of: the piece would end past index 2^64 - 1");
  const void* data[2] = {x.data(), y.data()};
  s.state_->add(data, x.size(), offset);
  return s;
}

template <class T>
void partial_state::append(std::span<const T> chunk) {
  check_type(*state_, element_type_of<T>(), "append");
  if (arity(state_->op) != 1) throw error("partial_state::append: a dot product takes x and y chunks");
  const void* data[1] = {chunk.data()};
  state_->append(data, chunk.size());
}

template <class T>
void partial_state::append(std::span<const std::span<const T>> chunks) {
  check_type(*state_, element_type_of<T>(), "append");
  if (arity(state_->op) != 1) throw error("partial_state::append: a dot product takes x and y chunks");
  // Chunks that follow each other in memory (a caller walking an array) are one range: read as one, they pay no
  // per-chunk cost (a chunk smaller than a leaf is otherwise gathered into the state's cut leaf).
  std::vector<partial::chunk_ref> refs;
  refs.reserve(chunks.size());
  for (const std::span<const T>& c : chunks) {
    if (c.empty()) continue;
    if (!refs.empty() && static_cast<const T*>(refs.back().data) + refs.back().count == c.data()) {
      refs.back().count += c.size();
    } else {
      refs.push_back({c.data(), c.size()});
    }
  }
  state_->append_chunks(refs);
}

template <class T>
void partial_state::append(std::span<const T> x_chunk, std::span<const T> y_chunk) {
  check_type(*state_, element_type_of<T>(), "append");
  if (arity(state_->op) != 2) throw error("partial_state::append: only a dot product takes two chunks");
  validate_lengths(x_chunk.size(), y_chunk.size(), "partial_state::append");
  const void* data[2] = {x_chunk.data(), y_chunk.data()};
  state_->append(data, x_chunk.size());
}

void partial_state::merge(const partial_state& other) {
  const impl& a = *state_;
  const impl& b = *other.state_;
  if (a.op != b.op || a.mode != b.mode || a.type != b.type) {
    throw error(std::string("partial_state::merge: a ") + to_string(b.op) + " (" + to_string(b.mode) + ") of " +
                to_string(b.type) + " elements cannot join a " + to_string(a.op) + " (" + to_string(a.mode) + ") of " +
                to_string(a.type) + " elements");
  }
  state_->merge_from(*other.state_);
}

detred::operation partial_state::operation() const { return state_->op; }
detred::mode partial_state::mode() const { return state_->mode; }
detred::element_type partial_state::element_type() const { return state_->type; }
std::vector<element_range> partial_state::ranges() const { return state_->ranges(); }
std::uint64_t partial_state::end() const {
  const std::vector<element_range> r = ranges();
  return r.empty() ? 0 : r.back().end;
}
bool partial_state::complete() const {
  const std::vector<element_range> r = ranges();
  return r.empty() || (r.size() == 1 && r.front().begin == 0);
}

template <class R>
R partial_state::result() const {
  R r{};
  state_->result(&r, std::type_index(typeid(R)));
  return r;
}

std::vector<std::byte> partial_state::serialize() const {
  partial::byte_writer out;
  out.put_bytes(magic, sizeof magic);
  out.put<std::uint32_t>(format_version);
  out.put<std::uint32_t>(static_cast<std::uint32_t>(order_version));
  out.put<std::uint8_t>(static_cast<std::uint8_t>(state_->op));
  out.put<std::uint8_t>(static_cast<std::uint8_t>(state_->mode));
  out.put<std::uint8_t>(static_cast<std::uint8_t>(state_->type));
  out.put<std::uint8_t>(0);
  out.put<std::uint32_t>(state_->element_bytes());
  out.put<std::uint32_t>(state_->node_bytes());
  state_->write(out);
  const std::uint64_t sum = partial::checksum(out.bytes());
  out.put(sum);
  return std::move(out.bytes());
}

partial_state partial_state::deserialize(std::span<const std::byte> bytes) {
  if (bytes.size() < sizeof magic + 8 || std::memcmp(bytes.data(), magic, sizeof magic) != 0) {
    throw error("partial state: not a detred partial state (the magic bytes DTRDPART are missing)");
  }
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  const std::span<const std::byte> body = bytes.first(bytes.size() - 8);
  partial::byte_reader in(body);
  char m[8];
  in.get_bytes(m, sizeof m, "header");
  const auto version = in.get<std::uint32_t>("header");
  if (version != format_version) {
    throw error("partial state: format version " + std::to_string(version) + " (this library reads version " +
                std::to_string(format_version) + ")");
  }
  const auto order = in.get<std::uint32_t>("header");
  if (order != static_cast<std::uint32_t>(order_version)) {
    throw error("partial state: made under canonical order version " + std::to_string(order) +
                ", this library follows version " + std::to_string(order_version) +
                ": its bits cannot join this library's");
  }
  if (partial::checksum(body) != stored) throw error("partial state: corrupt: the checksum does not match");
  const auto op = in.get<std::uint8_t>("header");
  const auto m_code = in.get<std::uint8_t>("header");
  const auto type = in.get<std::uint8_t>("header");
  // Reserved for a later format; a nonzero byte would not survive a round trip, so it is corruption in version 1.
  const auto reserved = in.get<std::uint8_t>("header");
  if (reserved != 0) throw error("partial state: corrupt: reserved header byte " + std::to_string(reserved));
  if (op >= catalogue::operations.size() || catalogue::is_scan(static_cast<detred::operation>(op)))
    throw error("partial state: corrupt: operation code " + std::to_string(op));
  if (m_code >= catalogue::modes.size()) throw error("partial state: corrupt: mode code " + std::to_string(m_code));
  if (type > static_cast<std::uint8_t>(element_type::uint64))
    throw error("partial state: corrupt: element type " + std::to_string(type));
  std::unique_ptr<impl> s = make_state(static_cast<detred::operation>(op), static_cast<detred::mode>(m_code),
                                       static_cast<detred::element_type>(type), options{});
  if (static_cast<std::uint8_t>(s->mode) != m_code) {
    throw error(std::string("partial state: corrupt: mode code ") + std::to_string(m_code) + " for " +
                to_string(s->op) + ", which has no modes");
  }
  const auto element_bytes = in.get<std::uint32_t>("header");
  const auto node_bytes = in.get<std::uint32_t>("header");
  if (element_bytes != s->element_bytes() || node_bytes != s->node_bytes()) {
    throw error("partial state: corrupt: element and node sizes " + std::to_string(element_bytes) + " and " +
                std::to_string(node_bytes) + " do not match a " + to_string(s->op) + " of " + to_string(s->type));
  }
  s->read(in);
  if (in.remaining() != 0)
    throw error("partial state: corrupt: " + std::to_string(in.remaining()) + " bytes after the last range");
  return partial_state(std::move(s));
}

#define DETRED_PARTIAL_TYPE(T)                                                                                       \
  template partial_state partial_state::of<T>(detred::operation, std::span<const T>, std::uint64_t, const options&); \
  template partial_state partial_state::empty<T>(detred::operation, const options&);                                 \
  template void partial_state::append<T>(std::span<const T>);                                                        \
  template void partial_state::append<T>(std::span<const std::span<const T>>);
DETRED_PARTIAL_TYPE(double)
DETRED_PARTIAL_TYPE(float)
DETRED_PARTIAL_TYPE(float16)
DETRED_PARTIAL_TYPE(bfloat16)
DETRED_PARTIAL_TYPE(std::int32_t)
DETRED_PARTIAL_TYPE(std::int64_t)
DETRED_PARTIAL_TYPE(std::uint32_t)
DETRED_PARTIAL_TYPE(std::uint64_t)
#undef DETRED_PARTIAL_TYPE

#define DETRED_PARTIAL_DOT(T)                                                                            \
  template partial_state partial_state::of<T>(detred::operation, std::span<const T>, std::span<const T>, \
                                              std::uint64_t, const options&);                            \
  template void partial_state::append<T>(std::span<const T>, std::span<const T>);
DETRED_PARTIAL_DOT(double)
DETRED_PARTIAL_DOT(float)
DETRED_PARTIAL_DOT(float16)
DETRED_PARTIAL_DOT(bfloat16)
#undef DETRED_PARTIAL_DOT

template double partial_state::result<double>() const;
template float partial_state::result<float>() const;
template std::int32_t partial_state::result<std::int32_t>() const;
template std::int64_t partial_state::result<std::int64_t>() const;
template std::uint32_t partial_state::result<std::uint32_t>() const;
template std::uint64_t partial_state::result<std::uint64_t>() const;
template statistics<double> partial_state::result<statistics<double>>() const;
template statistics<float> partial_state::result<statistics<float>>() const;

}  // namespace detred
