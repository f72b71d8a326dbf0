#include "scenario/results/text_lines.h"

#include <cassert>

namespace rocelab {

TextLines& TextLines::put_hex(uint32_t v, int width) {
  char tmp[16];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v, 16);
  for (auto digits = r.ptr - tmp; digits < width; ++digits) buf_ += '0';
  buf_.append(tmp, r.ptr);
  return *this;
}

TextLines& TextLines::put_fixed(double v, int precision) {
  assert(precision >= 0 && precision <= 30);
  char tmp[360];  // the widest double in fixed notation (309 digits and a sign) and decimals
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v, std::chars_format::fixed, precision);
  buf_.append(tmp, r.ptr);
  return *this;
}

void append_ns(std::string& out, int64_t ps) {
  const uint64_t mag = ps < 0 ? 0 - static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
  if (ps < 0) out += '-';
  char tmp[24];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, mag / 1000);
  out.append(tmp, r.ptr);
  const auto frac = static_cast<unsigned>(mag % 1000);
  const char decimals[4] = {'.', static_cast<char>('0' + frac / 100),
                            static_cast<char>('0' + frac / 10 % 10),
                            static_cast<char>('0' + frac % 10)};
  out.append(decimals, 4);
}

}  // namespace rocelab
