// Line-oriented text output for the per-flow files (flows.csv, fct.txt): fields appended
// with std::to_chars into one buffer, written to the stream at the first line end past
// 64 KiB. A run's output has a line per flow (hundreds of thousands); fmt's run-time format
// strings and a stream write per line cost more than the lines themselves.
#pragma once

#include <charconv>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace rocelab {

// A time in ps as ns with three decimals ("-" for negative), appended: 1234567 -> 1234.567.
void append_ns(std::string& out, int64_t ps);

class TextLines {
 public:
  explicit TextLines(std::ostream& out) : out_(out) { buf_.reserve(kFlushBytes + 4096); }
  TextLines(const TextLines&) = delete;
  TextLines& operator=(const TextLines&) = delete;
  ~TextLines() { flush(); }

  TextLines& put(char c) {
    buf_ += c;
    return *this;
  }
  TextLines& put(std::string_view s) {
    buf_ += s;
    return *this;
  }
  // Decimal, as printf's %llu / %lld.
  TextLines& put_int(uint64_t v) { return put_chars(v); }
  TextLines& put_signed(int64_t v) { return put_chars(v); }
  // Lower-case hex padded with zeros to `width`, as printf's %0*x.
  TextLines& put_hex(uint32_t v, int width);
  // Fixed point with `precision` (at most 30) decimals, as printf's %.*f: both round
  // exactly, ties to even.
  TextLines& put_fixed(double v, int precision);
  // A time in ps as ns with three decimals (append_ns).
  TextLines& put_ns(int64_t ps) {
    append_ns(buf_, ps);
    return *this;
  }

  // Ends a line; writes the buffer out once it holds kFlushBytes.
  void end_line() {
    buf_ += '\n';
    if (buf_.size() >= kFlushBytes) flush();
  }
  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr size_t kFlushBytes = size_t{1} << 16;

  template <class T>
  TextLines& put_chars(T v) {
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
    return *this;
  }

  std::ostream& out_;
  std::string buf_;
};

}  // namespace rocelab
