// Whitespace-separated text files read whole (the ns-3 simulators' topology and flow
// files): each non-blank line's number and fields, as views into the file's text, and the
// checks their readers share. Errors are std::runtime_error("path:line: message").
#pragma once

#include <charconv>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rocelab {

// One non-blank line of a file: its 1-based number and whitespace-separated fields (views
// into the file's text).
struct Line {
  int no = 0;
  std::span<const std::string_view> fields;
};

struct TextFile {
  TextFile() = default;
  // A copy's lines would view the original's text: moves only.
  TextFile(const TextFile&) = delete;
  TextFile& operator=(const TextFile&) = delete;
  TextFile(TextFile&&) = default;
  TextFile& operator=(TextFile&&) = default;

  std::string path;
  std::vector<Line> lines;  // non-blank lines only
  int last_line = 0;        // number of the last line in the file (0 if empty)
  // What the lines view: a flow file has hundreds of thousands of lines, and a string per
  // field cost more than the parse.
  std::vector<char> text;
  std::vector<std::string_view> fields;  // every line's, in order
};

// The file's non-blank lines (lines end at '\n'; spaces, tabs, '\r', '\v' and '\f'
// separate fields). std::runtime_error "path: cannot open file" when it cannot be read.
TextFile read_text_file(const std::string& path);

[[noreturn]] void fail_at(const std::string& path, int line, const std::string& what);

// A whole-token unsigned decimal integer no larger than `max`.
template <typename T>
inline std::optional<T> parse_uint(std::string_view s, T max = std::numeric_limits<T>::max()) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return std::nullopt;
  T v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

// "path: lines A-B after the <what> are ignored, as ns-3 ignores them", for the lines from
// lines[first] on.
std::string ignored_lines_note(const std::string& path, const TextFile& f, size_t first,
                               const std::string& what);

}  // namespace rocelab
