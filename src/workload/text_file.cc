#include "workload/text_file.h"

#include <fstream>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace rocelab {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

TextFile read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  TextFile file;
  file.path = path;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0)
    file.text.insert(file.text.end(), chunk, chunk + in.gcount());
  if (in.bad()) throw std::runtime_error(path + ": read error");
  // Lines end at '\n', as std::getline reads them; the fields' places are noted first, and
  // the lines' spans made once the field list stops growing.
  std::vector<std::pair<int, size_t>> line_starts;  // (number, first field) per non-blank line
  const char* const text = file.text.data();
  const size_t size = file.text.size();
  int no = 0;
  for (size_t i = 0; i < size;) {
    ++no;
    const size_t first = file.fields.size();
    while (i < size && text[i] != '\n') {
      while (i < size && text[i] != '\n' && is_space(text[i])) ++i;
      const size_t start = i;
      while (i < size && text[i] != '\n' && !is_space(text[i])) ++i;
      if (i > start) file.fields.emplace_back(text + start, i - start);
    }
    if (file.fields.size() > first) line_starts.emplace_back(no, first);
    ++i;  // past the '\n' (or the end)
  }
  file.lines.reserve(line_starts.size());
  for (size_t k = 0; k < line_starts.size(); ++k) {
    const size_t first = line_starts[k].second;
    const size_t end = k + 1 < line_starts.size() ? line_starts[k + 1].second : file.fields.size();
    file.lines.push_back(
        Line{line_starts[k].first,
             std::span<const std::string_view>(file.fields).subspan(first, end - first)});
  }
  file.last_line = no;
  return file;
}

void fail_at(const std::string& path, int line, const std::string& what) {
  throw std::runtime_error(fmt::format("{}:{}: {}", path, line, what));
}

std::string ignored_lines_note(const std::string& path, const TextFile& f, size_t first,
                               const std::string& what) {
  return fmt::format("{}: lines {}-{} after the {} are ignored, as ns-3 ignores them", path,
                     f.lines[first].no, f.lines.back().no, what);
}

}  // namespace rocelab
