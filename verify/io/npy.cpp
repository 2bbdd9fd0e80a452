// SPDX-License-Identifier: BSD-3-Clause
// The .npy header: magic "\x93NUMPY", major and minor version, a little-endian header length (2 bytes in version 1,
// 4 bytes in versions 2 and 3), then a Python dict literal such as
//   {'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }
// padded with spaces and a newline. The parser below accepts exactly that grammar and nothing that could run code.
#include "npy.hpp"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "input_error.hpp"

namespace detred::verify {
namespace {

constexpr unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

// The tokens of the header dict, each parsed at a position; errors say where.
class header_parser {
 public:
  header_parser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  npy_header parse() {
    npy_header h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        if (have_descr) fail("key 'descr' appears twice");
        have_descr = true;
        descr(string_literal(), h);
      } else if (key == "fortran_order") {
        if (have_order) fail("key 'fortran_order' appears twice");
        have_order = true;
        h.fortran_order = boolean();
      } else if (key == "shape") {
        if (have_shape) fail("key 'shape' appears twice");
        have_shape = true;
        h.shape = shape();
      } else {
        fail("unexpected key '" + printable(key) + "' (a .npy header has exactly descr, fortran_order, shape)");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the closing '}'");
    if (!have_descr || !have_order || !have_shape) {
      throw input_error(name_, "malformed .npy header: it must have the keys descr, fortran_order and shape");
    }
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw input_error(name_, "malformed .npy header at byte " + std::to_string(pos_) + ": " + what);
  }

  static std::string printable(std::string_view s) {
    std::string out;
    for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
    return out;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  std::string string_literal() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    const std::size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') fail("escape sequences are not supported in header strings");
      ++pos_;
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }

  bool boolean() {
    skip_space();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }

  std::uint64_t integer() {
    skip_space();
    if (peek() < '0' || peek() > '9') fail("expected a non-negative integer");
    std::uint64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      const auto digit = static_cast<std::uint64_t>(peek() - '0');
      if (v > (UINT64_MAX - digit) / 10) fail("dimension too large");
      v = v * 10 + digit;
      ++pos_;
    }
    if (peek() == 'L') ++pos_;  // Python 2 long literals, written by old NumPy versions
    return v;
  }

  std::vector<std::uint64_t> shape() {
    expect('(');
    std::vector<std::uint64_t> dims;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (dims.size() >= 64) fail("more than 64 dimensions");
      dims.push_back(integer());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')' in the shape");
    }
    ++pos_;
    return dims;
  }

  // '<' little-endian, '>' big-endian, '|' not applicable (one byte); then kind and size: f2 f4 f8 (float16/32/64),
  // i1 i2 i4 i8, u1 u2 u4 u8. Also 'bfloat16' (the name ml_dtypes gives its type) and V2, two opaque bytes, which is
  // what np.save writes for ml_dtypes' bfloat16: the dataset then needs --dtype bfloat16 to know what they hold.
  void descr(const std::string& d, npy_header& h) {
    if (d == "bfloat16") {
      h.type = dtype::bfloat16;
      return;
    }
    if (d.size() == 3 && (d[0] == '<' || d[0] == '>' || d[0] == '|')) {
      h.big_endian = d[0] == '>';
      const std::string code = d.substr(1);
      if (code == "V2") {
        h.type = dtype::bfloat16;
        h.opaque = true;
        return;
      }
      if (const std::optional<dtype> t = parse_dtype(code)) {
        h.type = *t;
        return;
      }
    }
    throw input_error(name_, "unsupported dtype '" + printable(d) +
                                 "' (supported: f8 f4 f2 i8 i4 i2 i1 u8 u4 u2 u1 in either byte order, 'bfloat16', "
                                 "and V2 with --dtype bfloat16)");
  }

  std::string_view text_;
  const std::string& name_;
  std::size_t pos_ = 0;
};

std::uint64_t read_le(std::span<const std::byte> bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<std::uint64_t>(bytes[i]);
  return v;
}

}  // namespace

bool has_npy_magic(std::span<const std::byte> file) {
  return file.size() >= sizeof magic && std::memcmp(file.data(), magic, sizeof magic) == 0;
}

npy_header parse_npy_header(std::span<const std::byte> file, const std::string& name) {
  return parse_npy_header(file, file.size(), name);
}

// `file` is the file's head here: every header check reads it, the size checks use file_size.
npy_header parse_npy_header(std::span<const std::byte> file, std::uint64_t file_size, const std::string& name) {
  if (file_size == 0) throw input_error(name, "empty file (0 bytes)");
  if (!has_npy_magic(file)) throw input_error(name, "not a .npy file (the magic string \\x93NUMPY is missing)");
  if (file.size() < 10) throw input_error(name, "truncated .npy header (" + std::to_string(file.size()) + " bytes)");
  const int major = static_cast<int>(file[6]);
  if (major < 1 || major > 3) {
    throw input_error(name, "unsupported .npy format version " + std::to_string(major) + "." +
                                std::to_string(static_cast<int>(file[7])) + " (supported: 1, 2, 3)");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t prefix = 8 + length_bytes;
  if (file.size() < prefix) throw input_error(name, "truncated .npy header");
  const std::uint64_t header_len = read_le(file.subspan(8, length_bytes));
  if (header_len > npy_max_header_bytes) {
    throw input_error(name, "oversized .npy header: " + std::to_string(header_len) + " bytes (the limit is " +
                                std::to_string(npy_max_header_bytes) + ")");
  }
  if (file.size() - prefix < header_len) {
    throw input_error(name, "truncated .npy header: it claims " + std::to_string(header_len) + " bytes, the file has " +
                                std::to_string(file.size() - prefix) + " after the prefix");
  }
  const std::string_view text(reinterpret_cast<const char*>(file.data() + prefix), header_len);
  npy_header h = header_parser(text, name).parse();
  h.major_version = major;
  h.data_offset = prefix + header_len;

  h.count = 1;
  int non_trivial = 0;
  for (std::uint64_t d : h.shape) {
    if (d > 1) ++non_trivial;
    if (d != 0 && h.count > UINT64_MAX / d) throw input_error(name, "malformed .npy header: the shape overflows");
    h.count *= d;
  }
  if (h.fortran_order && non_trivial > 1) {
    throw input_error(name,
                      "Fortran-order arrays with more than one dimension above 1 are not supported (their "
                      "file order is not the C-order flattening); save np.ascontiguousarray(a) instead");
  }
  const std::uint64_t size = item_size(h.type);
  if (file_size < h.data_offset) throw input_error(name, "truncated .npy header");
  const std::uint64_t available = file_size - h.data_offset;
  if (h.count > available / size) {
    throw input_error(
        name, "truncated data: the header claims " + std::to_string(h.count) + " elements (" +
                  (h.count > UINT64_MAX / size ? std::string("more than 2^64") : std::to_string(h.count * size)) +
                  " bytes), the file holds " + std::to_string(available) + " bytes of data");
  }
  if (h.count * size != available) {
    throw input_error(name, "the file holds " + std::to_string(available - h.count * size) + " bytes after the " +
                                std::to_string(h.count) + " elements its header describes");
  }
  return h;
}

// ------------------------------------------------------------------------------------------------------------------

npy_writer::npy_writer(const std::string& path, dtype type, std::uint64_t n, bool raw)
    : path_(path), type_(type), expected_(n) {
  if (type != dtype::float32 && type != dtype::float64) throw std::logic_error("npy_writer: float32 or float64 only");
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) throw std::runtime_error(path + ": cannot create: " + std::strerror(errno));
  if (raw) return;
  std::string dict = std::string("{'descr': '") + (type == dtype::float32 ? "<f4" : "<f8") +
                     "', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes, as NumPy does; end with a newline.
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::vector<unsigned char> head(magic, magic + sizeof magic);
  head.push_back(1);
  head.push_back(0);
  head.push_back(static_cast<unsigned char>(dict.size() & 0xff));
  head.push_back(static_cast<unsigned char>(dict.size() >> 8));
  head.insert(head.end(), dict.begin(), dict.end());
  put(head);
}

npy_writer::~npy_writer() {
  if (file_ != nullptr) std::fclose(static_cast<std::FILE*>(file_));
}

void npy_writer::put(const std::vector<unsigned char>& bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), static_cast<std::FILE*>(file_)) != bytes.size()) {
    throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
  }
}

namespace {
template <class T>
std::vector<unsigned char> little_endian(std::span<const T> x) {
  using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  std::vector<unsigned char> out(x.size() * sizeof(T));
  std::size_t k = 0;
  for (T v : x) {
    const auto b = std::bit_cast<bits_t>(v);
    for (std::size_t i = 0; i < sizeof(T); ++i) out[k++] = static_cast<unsigned char>(b >> (8 * i));
  }
  return out;
}
}  // namespace

void npy_writer::write(std::span<const float> x) {
  if (type_ != dtype::float32) throw std::logic_error("npy_writer: float data for a float64 file");
  put(little_endian(x));
  written_ += x.size();
}

void npy_writer::write(std::span<const double> x) {
  if (type_ != dtype::float64) throw std::logic_error("npy_writer: double data for a float32 file");
  put(little_endian(x));
  written_ += x.size();
}

void npy_writer::finish() {
  if (written_ != expected_) {
    throw std::logic_error("npy_writer: wrote " + std::to_string(written_) + " of " + std::to_string(expected_) +
                           " elements");
  }
  auto* f = static_cast<std::FILE*>(file_);
  file_ = nullptr;
  if (std::fclose(f) != 0) throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
}

}  // namespace detred::verify
