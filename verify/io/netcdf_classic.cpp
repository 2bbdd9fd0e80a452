// SPDX-License-Identifier: BSD-3-Clause
// See netcdf_classic.hpp. The header, in the format specification's words (big-endian; NON_NEG is 4 bytes in CDF-1 and
// CDF-2 and 8 in CDF-5, OFFSET 4 bytes in CDF-1 and 8 in the others; names and attribute values padded to 4 bytes):
//   magic numrecs dim_list gatt_list var_list
//   dim_list = ABSENT | NC_DIMENSION nelems {name dim_length}
//   att_list = ABSENT | NC_ATTRIBUTE nelems {name nc_type nelems values}
//   var_list = ABSENT | NC_VARIABLE nelems {name nelems {dimid} vatt_list nc_type vsize begin}
#include "netcdf_classic.hpp"

#include <algorithm>
#include <vector>

namespace detred::verify {
namespace {

constexpr std::uint32_t tag_dimension = 0x0a, tag_variable = 0x0b, tag_attribute = 0x0c;

/// The header's fields in order; any read past the end ends the parse (nullopt).
class header_reader {
 public:
  header_reader(std::span<const std::byte> bytes, int version) : bytes_(bytes), version_(version) {}

  bool ok() const { return ok_; }
  std::uint64_t position() const { return at_; }

  std::uint64_t big_endian(unsigned size) {
    if (!ok_ || bytes_.size() - at_ < size) {
      ok_ = false;
      return 0;
    }
    std::uint64_t v = 0;
    for (unsigned k = 0; k < size; ++k) v = v << 8 | std::to_integer<std::uint64_t>(bytes_[at_ + k]);
    at_ += size;
    return v;
  }
  std::uint64_t non_negative() { return big_endian(version_ == 5 ? 8 : 4); }
  std::uint64_t offset() { return big_endian(version_ == 1 ? 4 : 8); }
  void skip(std::uint64_t size) {
    const std::uint64_t padded = size + (4 - size % 4) % 4;
    if (!ok_ || size > bytes_.size() || bytes_.size() - at_ < padded) {
      ok_ = false;
      return;
    }
    at_ += padded;
  }
  void name() { skip(non_negative()); }
  /// The element count of a list whose tag must be `tag` (or absent: tag 0, count 0).
  std::uint64_t list(std::uint32_t tag) {
    const std::uint64_t t = big_endian(4);
    const std::uint64_t count = non_negative();
    if ((t != tag && t != 0) || (t == 0 && count != 0)) ok_ = false;
    return ok_ ? count : 0;
  }
  void attributes() {
    const std::uint64_t count = list(tag_attribute);
    for (std::uint64_t k = 0; k < count && ok_; ++k) {
      name();
      const unsigned size = type_size(big_endian(4));
      const std::uint64_t values = non_negative();
      if (size == 0 || values > bytes_.size()) ok_ = false;
      skip(values * size);
    }
  }

  /// Bytes of an element of nc_type t; 0 for a type the format does not have.
  static unsigned type_size(std::uint64_t t) {
    switch (t) {
      case 1:
      case 2:
      case 7:
        return 1;  // byte, char, ubyte
      case 3:
      case 8:
        return 2;  // short, ushort
      case 4:
      case 5:
      case 9:
        return 4;  // int, float, uint
      case 6:
      case 10:
      case 11:
        return 8;  // double, int64, uint64
      default:
        return 0;
    }
  }

 private:
  std::span<const std::byte> bytes_;
  int version_;
  std::uint64_t at_ = 4;
  bool ok_ = true;
};

/// a * b, or false if it does not fit in 64 bits.
bool multiply(std::uint64_t a, std::uint64_t b, std::uint64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

}  // namespace

std::optional<std::uint64_t> classic_netcdf_extent(std::span<const std::byte> file) {
  if (file.size() < 8 || file[0] != std::byte{'C'} || file[1] != std::byte{'D'} || file[2] != std::byte{'F'})
    return std::nullopt;
  const int version = std::to_integer<int>(file[3]);
  if (version != 1 && version != 2 && version != 5) return std::nullopt;
  header_reader in(file, version);
  const std::uint64_t numrecs = in.non_negative();
  if (numrecs == (version == 5 ? ~std::uint64_t{0} : std::uint64_t{0xffffffff})) return std::nullopt;  // streaming

  std::vector<std::uint64_t> dimensions(in.list(tag_dimension));
  for (std::uint64_t& length : dimensions) {
    in.name();
    length = in.non_negative();
  }
  in.attributes();

  struct variable {
    bool record;
    std::uint64_t bytes;  // per record for a record variable
    std::uint64_t begin;
  };
  std::vector<variable> variables;
  const std::uint64_t count = in.list(tag_variable);
  for (std::uint64_t k = 0; k < count && in.ok(); ++k) {
    in.name();
    const std::uint64_t rank = in.non_negative();
    if (rank > file.size()) return std::nullopt;
    variable v{false, 1, 0};
    for (std::uint64_t d = 0; d < rank && in.ok(); ++d) {
      const std::uint64_t id = in.non_negative();
      if (id >= dimensions.size()) return std::nullopt;
      if (d == 0 && dimensions[id] == 0) {
        v.record = true;  // the unlimited dimension: one record per step
      } else if (!multiply(v.bytes, dimensions[id], v.bytes)) {
        return std::nullopt;
      }
    }
    in.attributes();
    const unsigned size = header_reader::type_size(in.big_endian(4));
    in.non_negative();  // vsize: recomputed below (it saturates for large variables)
    v.begin = in.offset();
    if (size == 0 || !multiply(v.bytes, size, v.bytes)) return std::nullopt;
    variables.push_back(v);
  }
  if (!in.ok()) return std::nullopt;

  // The record size as the NetCDF library computes it: each record variable's bytes rounded up to 4, except that a
  // single record variable is packed.
  std::uint64_t record_bytes = 0, record_variables = 0, packed = 0;
  for (const variable& v : variables) {
    if (!v.record) continue;
    record_bytes += v.bytes + (4 - v.bytes % 4) % 4;
    ++record_variables;
    packed = v.bytes;
  }
  if (record_variables == 1) record_bytes = packed;

  std::uint64_t extent = in.position();
  for (const variable& v : variables) {
    std::uint64_t end = v.begin;
    if (!v.record) {
      end += v.bytes;
    } else if (numrecs > 0 && v.bytes > 0) {
      std::uint64_t before_last = 0;
      if (!multiply(numrecs - 1, record_bytes, before_last)) return std::nullopt;
      end += before_last + v.bytes;
    }
    if (end < v.begin) return std::nullopt;  // wrapped: a corrupt header
    extent = std::max(extent, end);
  }
  return extent;
}

}  // namespace detred::verify
