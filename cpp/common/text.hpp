// Input text quoted in error messages: printable ASCII kept, every other byte written as \xNN.
//
// A message may carry part of the text a user or a file gave (a bad move token). Escaping keeps it
// intact across the C string an exception carries (a NUL would end it there), keeps terminal
// escape sequences off the screen, and never cuts a UTF-8 sequence in two (the result is ASCII).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cogsim {

// At most `limit` bytes of `text`, escaped, with "..." when cut.
inline std::string shown_text(std::string_view text, size_t limit = 20) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const size_t end = text.size() < limit ? text.size() : limit;
  for (size_t i = 0; i < end; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
      out += static_cast<char>(byte);
    } else if (byte == '\\') {
      out += "\\\\";
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

}  // namespace cogsim
