// libFuzzer target: the text parser, one number per line and as CSV by index and by name, for both types. Any
// bytes must give numbers or an input_error; never a crash, and never a NaN.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "input_error.hpp"
#include "text.hpp"

namespace {
template <class Parse>
void run(Parse parse, std::string_view text, const std::string& column) {
  try {
    for (auto v : parse(text, column, "fuzz.txt")) {
      if (v != v) __builtin_trap();
    }
  } catch (const detred::verify::input_error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::string column : {"", "1", "y"}) {
    run(detred::verify::parse_text_f64, text, column);
    run(detred::verify::parse_text_f32, text, column);
  }
  return 0;
}
