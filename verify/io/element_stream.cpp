// SPDX-License-Identifier: BSD-3-Clause
// See element_stream.hpp. Three sources: binary data at a file offset (.npy, raw, safetensors), text, and the blocks
// of a NetCDF or HDF5 variable.
#include "element_stream.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "element_decode.hpp"
#include "hdf5_reader.hpp"
#include "input_checks.hpp"
#include "input_error.hpp"
#include "netcdf_reader.hpp"
#include "sha256.hpp"
#include "text.hpp"
#include "variable_reader.hpp"

namespace detred::verify {

std::uint64_t element_chunk::size() const {
  return std::visit([](auto s) { return static_cast<std::uint64_t>(s.size()); }, x);
}

class element_stream::source {
 public:
  virtual ~source() = default;
  virtual std::optional<std::uint64_t> known_size() const = 0;
  virtual std::uint64_t data_bytes() const = 0;
  virtual element_chunk next() = 0;

  bool pairs = false;
  bool hashing = true;  // off for commands that need no SHA-256: it costs about as much as a reduction
  std::uint64_t bytes_read = 0;
  std::uint64_t count = 0;
  std::uint64_t missing = 0;
  sha256_stream digest;
};

namespace {

// A file opened read-only, closed with its owner.
class file_handle {
 public:
  explicit file_handle(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw input_error(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd_, &info) != 0) {
      const int err = errno;
      ::close(fd_);
      throw input_error(path, std::string("cannot read its size: ") + std::strerror(err));
    }
    size_ = static_cast<std::uint64_t>(info.st_size);
    // Read front to back once: let the kernel read ahead.
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  ~file_handle() { ::close(fd_); }
  file_handle(const file_handle&) = delete;
  file_handle& operator=(const file_handle&) = delete;

  std::uint64_t size() const { return size_; }

  // Exactly `count` bytes at `offset`; a file that ends sooner changed since its size was checked.
  void read(std::uint64_t offset, std::byte* out, std::uint64_t count) const {
    while (count > 0) {
      const ::ssize_t got = ::pread(fd_, out, static_cast<std::size_t>(count), static_cast<::off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw input_error(path_, std::string("cannot read: ") + std::strerror(errno));
      if (got == 0) {
        throw input_error(path_, "the file ended at byte " + std::to_string(offset) + ", before the " +
                                     std::to_string(size_) +
                                     " bytes it held when opened (it changed while being read)");
      }
      out += got;
      offset += static_cast<std::uint64_t>(got);
      count -= static_cast<std::uint64_t>(got);
    }
  }

  // Up to `count` bytes at `offset` (fewer at the end of the file).
  std::vector<std::byte> head(std::uint64_t count) const {
    std::vector<std::byte> out(static_cast<std::size_t>(std::min(count, size_)));
    read(0, out.data(), out.size());
    return out;
  }

 private:
  std::string path_;
  int fd_;
  std::uint64_t size_ = 0;
};

// The bytes of T elements in little-endian order, as golden files record them.
template <class T>
std::span<const std::byte> little_endian(std::span<const T> values, std::vector<std::byte>& scratch) {
  if constexpr (std::endian::native == std::endian::little) {
    return std::as_bytes(values);
  } else {
    scratch.resize(values.size_bytes());
    for (std::size_t k = 0; k < values.size(); ++k) {
      const auto* p = reinterpret_cast<const std::byte*>(&values[k]);
      std::reverse_copy(p, p + sizeof(T), scratch.begin() + static_cast<std::ptrdiff_t>(k * sizeof(T)));
    }
    return scratch;
  }
}

// Elements stored at [begin, begin + length) of a file: read chunk_bytes at a time, converted per chunk. Bytes left
// over from a chunk that ends inside an element (or inside an (x, y) pair) start the next one.
class binary_source final : public element_stream::source {
 public:
  binary_source(std::unique_ptr<file_handle> file, std::uint64_t begin, std::uint64_t length, dtype stored,
                bool big_endian, std::uint64_t chunk_bytes, bool digest_prefix)
      : file_(std::move(file)),
        begin_(begin),
        length_(length),
        stored_(stored),
        big_endian_(big_endian),
        chunk_bytes_(std::max<std::uint64_t>(chunk_bytes, 1)) {
    // A whole file's digest covers its header too.
    if (digest_prefix && begin > 0)
      if (hashing) digest.update(file_->head(begin));
  }

  std::optional<std::uint64_t> known_size() const override { return length_ / item_size(stored_) / (pairs ? 2 : 1); }
  std::uint64_t data_bytes() const override { return length_; }

  element_chunk next() override {
    const std::uint64_t unit = item_size(stored_) * (pairs ? 2 : 1);
    // The previous chunk's leftover bytes move to the front only now: that chunk may have been read in place.
    if (carry_ > 0) std::memmove(raw_.data(), raw_.data() + leftover_, static_cast<std::size_t>(carry_));
    while (consumed_ < length_) {
      const std::uint64_t want = std::min(chunk_bytes_, length_ - consumed_);
      raw_.resize(static_cast<std::size_t>(carry_ + want));
      file_->read(begin_ + consumed_, raw_.data() + carry_, want);
      if (hashing) digest.update(std::span<const std::byte>(raw_.data() + carry_, static_cast<std::size_t>(want)));
      consumed_ += want;
      bytes_read = consumed_;
      const std::uint64_t total = carry_ + want, whole = total / unit * unit;
      if (whole == 0) {
        carry_ = total;
        continue;
      }
      element_chunk out = convert(std::span<const std::byte>(raw_.data(), static_cast<std::size_t>(whole)));
      carry_ = total - whole;
      leftover_ = whole;
      count += out.size();
      return out;
    }
    return {};
  }

 private:
  element_chunk convert(std::span<const std::byte> bytes) {
    return with_element_types(stored_, [&]<class Stored, class Reduced>() -> element_chunk {
      const std::size_t n = bytes.size() / sizeof(Stored);
      const bool as_is = std::is_same_v<Stored, Reduced> &&
                         (big_endian_ == (std::endian::native == std::endian::big) || sizeof(Stored) == 1);
      const Reduced* values = nullptr;
      if (as_is && !pairs) {
        // raw_'s storage comes from operator new and the chunk starts at its front: aligned for every type.
        values = reinterpret_cast<const Reduced*>(bytes.data());
        return {std::span<const Reduced>(values, n), std::nullopt};
      }
      decoded_.resize(n * sizeof(Reduced));
      auto* target = reinterpret_cast<Reduced*>(decoded_.data());
      decode_into<Stored, Reduced>(bytes, big_endian_, target);
      if (!pairs) return {std::span<const Reduced>(target, n), std::nullopt};
      // An (n, 2) array: x is column 0, y column 1.
      const std::size_t rows = n / 2;
      x_.resize(rows * sizeof(Reduced));
      y_.resize(rows * sizeof(Reduced));
      auto* x = reinterpret_cast<Reduced*>(x_.data());
      auto* y = reinterpret_cast<Reduced*>(y_.data());
      for (std::size_t k = 0; k < rows; ++k) {
        x[k] = target[2 * k];
        y[k] = target[2 * k + 1];
      }
      return {std::span<const Reduced>(x, rows), std::span<const Reduced>(y, rows)};
    });
  }

  std::unique_ptr<file_handle> file_;
  std::uint64_t begin_, length_;
  dtype stored_;
  bool big_endian_;
  std::uint64_t chunk_bytes_;
  std::uint64_t consumed_ = 0;
  std::uint64_t carry_ = 0;
  std::uint64_t leftover_ = 0;
  std::vector<std::byte> raw_, decoded_, x_, y_;
};

// Text read chunk_bytes at a time and parsed line by line; a line cut by a read is completed by the next one.
template <class T>
class text_source final : public element_stream::source {
 public:
  text_source(std::unique_ptr<file_handle> file, std::vector<std::string> columns, const std::string& path,
              std::uint64_t chunk_bytes)
      : file_(std::move(file)),
        parser_(columns, path),
        chunk_bytes_(std::max<std::uint64_t>(chunk_bytes, 1)),
        target_(std::max<std::uint64_t>(chunk_bytes / sizeof(T), 1)) {
    pairs = columns.size() == 2;
  }

  std::optional<std::uint64_t> known_size() const override { return std::nullopt; }
  std::uint64_t data_bytes() const override { return file_->size(); }

  element_chunk next() override {
    out_[0].clear();
    out_[1].clear();
    while (out_[0].size() < target_ && !ended_) {
      if (bytes_read == file_->size()) {
        if (!pending_.empty()) parser_.line(pending_, out_);
        pending_.clear();
        parser_.finish();
        ended_ = true;
        break;
      }
      const std::uint64_t want = std::min(chunk_bytes_, file_->size() - bytes_read);
      buffer_.resize(static_cast<std::size_t>(want));
      file_->read(bytes_read, buffer_.data(), want);
      if (hashing) digest.update(buffer_);
      bytes_read += want;
      std::string_view data(reinterpret_cast<const char*>(buffer_.data()), buffer_.size());
      for (std::size_t newline = data.find('\n'); newline != std::string_view::npos; newline = data.find('\n')) {
        if (pending_.empty()) {
          parser_.line(data.substr(0, newline), out_);
        } else {
          pending_.append(data.substr(0, newline));
          parser_.line(pending_, out_);
          pending_.clear();
        }
        data.remove_prefix(newline + 1);
      }
      pending_.append(data);
    }
    if (out_[0].empty()) return {};
    count += out_[0].size();
    if (!pairs) return {std::span<const T>(out_[0]), std::nullopt};
    return {std::span<const T>(out_[0]), std::span<const T>(out_[1])};
  }

 private:
  std::unique_ptr<file_handle> file_;
  text_parser<T> parser_;
  std::uint64_t chunk_bytes_;
  std::uint64_t target_;
  std::vector<std::byte> buffer_;
  std::string pending_;
  std::array<std::vector<T>, 2> out_;
  bool ended_ = false;
};

// A NetCDF or HDF5 variable, one block (whole storage chunks) at a time, with its missing values counted and, for
// --skip-missing, dropped per block.
template <class T>
class variable_source final : public element_stream::source {
 public:
  variable_source(std::unique_ptr<variable_reader> reader, const std::string& path, const std::string& variable,
                  bool skip_missing)
      : reader_(std::move(reader)), missing_values_(reader_->missing_values()), skip_(skip_missing) {
    n_ = reader_->size();
    if (n_ == std::numeric_limits<std::uint64_t>::max()) {
      throw input_error(path, "variable '" + variable + "': its shape holds more elements than 64 bits can count");
    }
  }

  std::optional<std::uint64_t> known_size() const override {
    if (skip_ && !missing_values_.empty()) return std::nullopt;
    return n_;
  }
  std::uint64_t data_bytes() const override { return n_ * sizeof(T); }

  element_chunk next() override {
    const std::uint64_t block = reader_->block_elements();
    while (k_ < reader_->block_count()) {
      const std::uint64_t first = k_ * block, size = std::min(block, n_ - first);
      values_.resize(static_cast<std::size_t>(size));
      // This may be another thread than the one that opened the file (read ahead): HDF5's printing is per thread.
      silence_hdf5_errors();
      reader_->read_block(k_, std::as_writable_bytes(std::span<T>(values_)));
      ++k_;
      bytes_read += size * sizeof(T);
      missing += count_missing(values_, missing_values_, skip_);
      if (values_.empty()) continue;
      if (hashing) digest.update(little_endian(std::span<const T>(values_), scratch_));
      count += values_.size();
      return {std::span<const T>(values_), std::nullopt};
    }
    return {};
  }

 private:
  std::unique_ptr<variable_reader> reader_;
  std::vector<double> missing_values_;
  bool skip_;
  std::uint64_t n_ = 0;
  std::uint64_t k_ = 0;
  std::vector<T> values_;
  std::vector<std::byte> scratch_;
};

}  // namespace

element_stream::element_stream(const std::string& input, const read_options& options, std::uint64_t chunk_bytes) {
  const input_spec spec = split_input_spec(input);
  const std::string& path = spec.file;
  info_.path_ = input;
  info_.file_name_ = spec.file;
  info_.variable_ = spec.variable;
  info_.in_place_ = false;
  info_.format_ = checked_format(spec, options);
  switch (info_.format_) {
    case file_format::netcdf:
    case file_format::hdf5: {
      std::unique_ptr<variable_reader> reader = info_.format_ == file_format::netcdf
                                                    ? open_netcdf_variable(path, spec.variable, chunk_bytes)
                                                    : open_hdf5_variable(path, spec.variable, chunk_bytes);
      check_variable_type(path, spec.variable, reader->type(), options);
      info_.type_ = reader->type();
      info_.missing_values_ = reader->missing_values();
      info_.missing_skipped_ = options.skip_missing;
      if (info_.type_ == dtype::float32) {
        source_ =
            std::make_unique<variable_source<float>>(std::move(reader), path, spec.variable, options.skip_missing);
      } else {
        source_ =
            std::make_unique<variable_source<double>>(std::move(reader), path, spec.variable, options.skip_missing);
      }
      info_.shape_ = {source_->known_size().value_or(0)};
      break;
    }
    case file_format::npy: {
      auto file = std::make_unique<file_handle>(path);
      const std::vector<std::byte> head = file->head(npy_max_header_bytes + 12);
      const npy_header h = checked_npy_header(head, file->size(), path, options);
      info_.type_ = h.type;
      info_.shape_ = h.shape;
      source_ = std::make_unique<binary_source>(std::move(file), h.data_offset, h.count * item_size(h.type), h.type,
                                                h.big_endian, chunk_bytes, true);
      break;
    }
    case file_format::raw: {
      auto file = std::make_unique<file_handle>(path);
      info_.type_ = checked_raw_type(file->size(), path, options);
      info_.shape_ = {file->size() / item_size(info_.type_)};
      const std::uint64_t size = file->size();
      source_ = std::make_unique<binary_source>(std::move(file), 0, size, info_.type_, false, chunk_bytes, true);
      break;
    }
    case file_format::safetensors: {
      auto file = std::make_unique<file_handle>(path);
      std::vector<std::byte> head = file->head(8);
      std::uint64_t length = 0;
      for (std::size_t i = head.size(); i-- > 0;) length = (length << 8) | static_cast<std::uint64_t>(head[i]);
      if (head.size() == 8) head = file->head(8 + std::min(length, safetensors_max_header_bytes));
      const safetensors_tensor t = checked_tensor(head, file->size(), spec, options);
      info_.type_ = t.type;
      info_.shape_ = t.shape;
      // A tensor's digest covers its own bytes only.
      source_ = std::make_unique<binary_source>(std::move(file), t.data_offset, t.count * item_size(t.type), t.type,
                                                false, chunk_bytes, false);
      break;
    }
    case file_format::text: {
      info_.type_ = checked_text_type(path, options);
      auto file = std::make_unique<file_handle>(path);
      std::vector<std::string> columns;
      const std::size_t comma = options.column.find(',');
      if (comma != std::string::npos) {
        columns = {options.column.substr(0, comma), options.column.substr(comma + 1)};
      } else if (!options.column.empty()) {
        columns = {options.column};
      }
      if (info_.type_ == dtype::float32) {
        source_ = std::make_unique<text_source<float>>(std::move(file), columns, path, chunk_bytes);
      } else {
        source_ = std::make_unique<text_source<double>>(std::move(file), columns, path, chunk_bytes);
      }
      if (columns.size() == 2) {
        info_.text_pair_ = std::array<dataset::values_type, 2>{};
        info_.shape_ = {0, 2};
      } else {
        info_.shape_ = {0};
      }
      break;
    }
    case file_format::automatic:
      break;
  }
  // An empty span of the reduced type: info().values() names the type the chunks hold.
  with_element_types(info_.type_, [&]<class Stored, class Reduced>() { info_.values_ = std::span<const Reduced>(); });
}

element_stream::~element_stream() = default;
element_stream::element_stream(element_stream&&) noexcept = default;
element_stream& element_stream::operator=(element_stream&&) noexcept = default;

dataset element_stream::description() const {
  dataset d;
  d.path_ = info_.path_;
  d.file_name_ = info_.file_name_;
  d.variable_ = info_.variable_;
  d.missing_values_ = info_.missing_values_;
  d.missing_count_ = info_.missing_count_;
  d.missing_skipped_ = info_.missing_skipped_;
  d.format_ = info_.format_;
  d.type_ = info_.type_;
  d.in_place_ = false;
  d.values_ = info_.values_;
  d.shape_ = info_.shape_;
  d.text_pair_ = info_.text_pair_;
  return d;
}

std::optional<std::uint64_t> element_stream::known_size() const { return source_->known_size(); }
std::uint64_t element_stream::data_bytes() const { return source_->data_bytes(); }
std::uint64_t element_stream::bytes_read() const { return source_->bytes_read; }
std::uint64_t element_stream::count() const { return source_->count; }

void element_stream::skip_digest() { source_->hashing = false; }

void element_stream::read_pairs() {
  if (info_.format_ == file_format::npy && info_.holds_pair()) source_->pairs = true;
}

element_chunk element_stream::next() {
  element_chunk c = source_->next();
  if (c.size() == 0) {
    info_.missing_count_ = source_->missing;
    if (info_.format_ == file_format::text || info_.format_ == file_format::netcdf ||
        info_.format_ == file_format::hdf5) {
      info_.shape_[0] = source_->count;
    }
  }
  return c;
}

std::string element_stream::sha256_hex() {
  if (!source_->hashing) throw std::logic_error("element_stream::sha256_hex after skip_digest");
  return source_->digest.hex();
}

}  // namespace detred::verify
