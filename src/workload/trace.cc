#include "workload/trace.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <optional>
#include <ostream>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace rocelab {

namespace {

constexpr const char* kRequiredColumns = "src,dst,size_bytes,start_ns";

class TraceError {
 public:
  TraceError(const std::string& path, size_t line) : path_(path), line_(line) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(path_ + ":" + std::to_string(line_) + ": " + what);
  }

 private:
  const std::string& path_;
  size_t line_;
};

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

bool is_blank_or_comment(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos || line[first] == '#';
}

// Splits one CSV line (no line break inside) into trimmed, unquoted fields.
std::vector<std::string> split_fields(const std::string& line, const TraceError& err) {
  std::vector<std::string> fields;
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && is_space(line[i])) ++i;
    std::string field;
    if (i < n && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < n) {
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field += line[i++];
      }
      if (!closed) err.fail("unterminated quoted field " + std::to_string(fields.size() + 1));
      while (i < n && is_space(line[i])) ++i;
      if (i < n && line[i] != ',') {
        err.fail("unexpected text after quoted field " + std::to_string(fields.size() + 1));
      }
    } else {
      const size_t begin = i;
      while (i < n && line[i] != ',') ++i;
      size_t end = i;
      while (end > begin && is_space(line[end - 1])) --end;
      field = line.substr(begin, end - begin);
    }
    fields.push_back(std::move(field));
    if (i >= n) break;
    ++i;  // the comma
  }
  return fields;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Unsigned decimal integer in [min, max].
uint64_t parse_uint(const std::string& value, const std::string& column, uint64_t min, uint64_t max,
                    const TraceError& err) {
  const std::string quoted = "'" + value + "'";
  if (value.empty()) err.fail("column '" + column + "' is empty; expected an integer");
  if (value[0] == '-') {
    err.fail("column '" + column + "' is negative (" + quoted +
             "); expected an integer >= " + std::to_string(min));
  }
  const std::string digits = value[0] == '+' ? value.substr(1) : value;
  if (!all_digits(digits)) {
    err.fail("column '" + column + "' is not a number (" + quoted +
             "); expected a non-negative integer");
  }
  uint64_t v = 0;
  for (char c : digits) {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      err.fail("column '" + column + "' is out of range (" + quoted + "); expected at most " +
               std::to_string(max));
    }
    v = v * 10 + d;
  }
  if (v < min || v > max) {
    err.fail("column '" + column + "' is out of range (" + quoted + "); expected " +
             std::to_string(min) + ".." + std::to_string(max));
  }
  return v;
}

// Non-negative nanoseconds to exact picoseconds: plain decimals are converted digit by
// digit (rounding half up below 1 ps), anything else strtod accepts (exponents) via double.
Time parse_ns(const std::string& value, const TraceError& err, const std::string& column) {
  const std::string quoted = "'" + value + "'";
  constexpr int64_t kMaxPs = Time::never().ps;
  if (value.empty()) err.fail("column '" + column + "' is empty; expected a number of nanoseconds");
  if (value[0] == '-') {
    err.fail("column '" + column + "' is negative (" + quoted + "); expected a time >= 0");
  }
  const std::string body = value[0] == '+' ? value.substr(1) : value;
  const size_t dot = body.find('.');
  const std::string int_part = body.substr(0, dot);
  const std::string frac_part = dot == std::string::npos ? "" : body.substr(dot + 1);
  const bool plain = (int_part.empty() || all_digits(int_part)) &&
                     (frac_part.empty() || all_digits(frac_part)) &&
                     !(int_part.empty() && frac_part.empty());
  if (plain) {
    __int128 ps = 0;
    for (char c : int_part) {
      ps = ps * 10 + (c - '0');
      if (ps > kMaxPs) err.fail("column '" + column + "' is too large (" + quoted + ")");
    }
    ps *= 1000;
    int64_t scale = 100;
    for (size_t k = 0; k < frac_part.size() && k < 3; ++k, scale /= 10) {
      ps += static_cast<__int128>(frac_part[k] - '0') * scale;
    }
    if (frac_part.size() > 3 && frac_part[3] >= '5') ++ps;
    if (ps > kMaxPs) err.fail("column '" + column + "' is too large (" + quoted + ")");
    return Time{static_cast<int64_t>(ps)};
  }
  // Otherwise only decimal scientific notation (no hex, inf or nan).
  const bool scientific = value.find_first_of("eE") != std::string::npos &&
                          value.find_first_not_of("0123456789.eE+-") == std::string::npos;
  char* end = nullptr;
  errno = 0;
  const double ns = scientific ? std::strtod(value.c_str(), &end) : 0.0;
  if (!scientific || end == value.c_str() || *end != '\0' || errno == ERANGE ||
      !std::isfinite(ns)) {
    err.fail("column '" + column + "' is not a number (" + quoted +
             "); expected a non-negative number of nanoseconds");
  }
  if (ns < 0)
    err.fail("column '" + column + "' is negative (" + quoted + "); expected a time >= 0");
  const double ps = std::round(ns * 1000.0);
  if (ps > static_cast<double>(kMaxPs)) {
    err.fail("column '" + column + "' is too large (" + quoted + ")");
  }
  return Time{static_cast<int64_t>(ps)};
}

struct Columns {
  size_t count = 0;
  std::optional<size_t> src, dst, size_bytes, start_ns, tag;
  std::optional<size_t> id, after, after_delay_ns, behind, qp, sport, dport, path;  // optional
  bool dag() const { return id.has_value(); }
};

Columns parse_header(const std::string& line, const TraceError& err) {
  const std::vector<std::string> names = split_fields(line, err);
  Columns cols;
  cols.count = names.size();
  const std::pair<const char*, std::optional<size_t> Columns::*> known[] = {
      {"src", &Columns::src},
      {"dst", &Columns::dst},
      {"size_bytes", &Columns::size_bytes},
      {"start_ns", &Columns::start_ns},
      {"tag", &Columns::tag},
      {"id", &Columns::id},
      {"after", &Columns::after},
      {"after_delay_ns", &Columns::after_delay_ns},
      {"behind", &Columns::behind},
      {"qp", &Columns::qp},
      {"sport", &Columns::sport},
      {"dport", &Columns::dport},
      {"path", &Columns::path},
  };
  for (size_t i = 0; i < names.size(); ++i) {
    for (const auto& [name, member] : known) {
      if (names[i] != name) continue;
      if ((cols.*member).has_value()) {
        err.fail("header names column '" + names[i] + "' twice (fields " +
                 std::to_string(*(cols.*member) + 1) + " and " + std::to_string(i + 1) + ")");
      }
      cols.*member = i;
    }
  }
  for (const auto& [name, member] : known) {
    if (member == &Columns::tag || member == &Columns::id || member == &Columns::after ||
        member == &Columns::after_delay_ns || member == &Columns::behind ||
        member == &Columns::qp || member == &Columns::sport || member == &Columns::dport ||
        member == &Columns::path)
      continue;
    if (!(cols.*member).has_value()) {
      err.fail(std::string("header is missing column '") + name +
               "'; expected a header with at least " + kRequiredColumns + " (any order), got '" +
               line + "'");
    }
  }
  if (!cols.id && (cols.after || cols.behind || cols.qp || cols.after_delay_ns))
    err.fail("header has after, behind, qp or after_delay_ns but no column 'id' to name flows by");
  return cols;
}

// A flow DAG's rows before their dependencies are resolved.
struct DagRow {
  uint64_t id = 0;
  size_t line = 0;
  std::vector<uint64_t> after;
  std::optional<uint64_t> behind;
  std::optional<uint64_t> qp;
};

std::vector<uint64_t> parse_id_list(const std::string& value, const TraceError& err) {
  std::vector<uint64_t> ids;
  std::string token;
  auto flush = [&] {
    if (!token.empty())
      ids.push_back(parse_uint(token, "after", 0, std::numeric_limits<uint64_t>::max(), err));
    token.clear();
  };
  for (char c : value) {
    if (c == ' ' || c == ';' || c == '\t') {
      flush();
    } else {
      token += c;
    }
  }
  flush();
  return ids;
}

// Orders a DAG's flows so that every flow comes after those it waits for (among the ready
// ones, in file order: a file already in such an order keeps it) and rewrites its
// dependencies as indices.
std::vector<FlowSpec> order_dag(const std::string& path, std::vector<FlowSpec> flows,
                                const std::vector<DagRow>& rows) {
  std::unordered_map<uint64_t, size_t> row_of;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto [it, added] = row_of.emplace(rows[i].id, i);
    if (!added)
      throw std::runtime_error(path + ":" + std::to_string(rows[i].line) + ": id " +
                               std::to_string(rows[i].id) + " is already used on line " +
                               std::to_string(rows[it->second].line));
  }
  auto resolve = [&](const DagRow& r, uint64_t id, const char* column) {
    const auto it = row_of.find(id);
    if (it == row_of.end())
      throw std::runtime_error(path + ":" + std::to_string(r.line) + ": " + column +
                               " names flow " + std::to_string(id) +
                               ", which the trace does not have");
    return it->second;
  };
  std::vector<std::vector<size_t>> waits(rows.size()), waiters(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (uint64_t id : rows[i].after) waits[i].push_back(resolve(rows[i], id, "after"));
    if (rows[i].behind) waits[i].push_back(resolve(rows[i], *rows[i].behind, "behind"));
    if (rows[i].qp) waits[i].push_back(resolve(rows[i], *rows[i].qp, "qp"));
    for (size_t w : waits[i]) waiters[w].push_back(i);
  }
  std::vector<size_t> left(rows.size());
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < rows.size(); ++i) {
    left[i] = waits[i].size();
    if (left[i] == 0) ready.push(i);
  }
  std::vector<size_t> order, index_of(rows.size(), SIZE_MAX);
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    index_of[i] = order.size();
    order.push_back(i);
    for (size_t w : waiters[i])
      if (--left[w] == 0) ready.push(w);
  }
  if (order.size() != rows.size()) {
    // A flow left waits, through flows left, for itself: walk until a flow repeats.
    size_t at = 0;
    while (index_of[at] != SIZE_MAX) ++at;
    std::vector<size_t> walk;
    std::vector<size_t> seen_at(rows.size(), SIZE_MAX);
    while (seen_at[at] == SIZE_MAX) {
      seen_at[at] = walk.size();
      walk.push_back(at);
      for (size_t w : waits[at])
        if (index_of[w] == SIZE_MAX) {
          at = w;
          break;
        }
    }
    std::string cycle;
    for (size_t k = seen_at[at]; k < walk.size(); ++k)
      cycle += std::to_string(rows[walk[k]].id) + " (line " + std::to_string(rows[walk[k]].line) +
               ") waits for ";
    cycle += std::to_string(rows[at].id);
    throw std::runtime_error(path + ": the flows wait for each other in a cycle: " + cycle);
  }
  std::vector<FlowSpec> out;
  out.reserve(flows.size());
  for (size_t i : order) {
    FlowSpec f = std::move(flows[i]);
    f.after.clear();
    for (uint64_t id : rows[i].after)
      f.after.push_back(static_cast<uint32_t>(index_of[row_of.at(id)]));
    if (rows[i].behind) f.behind = static_cast<uint32_t>(index_of[row_of.at(*rows[i].behind)]);
    if (rows[i].qp) f.qp = static_cast<uint32_t>(index_of[row_of.at(*rows[i].qp)]);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

std::vector<FlowSpec> load_flow_trace_csv(const std::string& path, const std::string& tag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open flow trace");

  std::vector<FlowSpec> flows;
  std::vector<DagRow> dag_rows;
  std::optional<Columns> cols;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (is_blank_or_comment(line)) continue;
    const TraceError err(path, line_no);
    if (!cols) {
      cols = parse_header(line, err);
      continue;
    }
    const std::vector<std::string> fields = split_fields(line, err);
    if (fields.size() != cols->count) {
      err.fail("expected " + std::to_string(cols->count) + " fields as in the header, got " +
               std::to_string(fields.size()));
    }
    FlowSpec f;
    constexpr uint64_t kMaxNode = std::numeric_limits<uint32_t>::max();
    f.src_host = static_cast<uint32_t>(parse_uint(fields[*cols->src], "src", 0, kMaxNode, err));
    f.dst_host = static_cast<uint32_t>(parse_uint(fields[*cols->dst], "dst", 0, kMaxNode, err));
    f.size_bytes = parse_uint(fields[*cols->size_bytes], "size_bytes", 1,
                              std::numeric_limits<uint64_t>::max(), err);
    f.start = parse_ns(fields[*cols->start_ns], err, "start_ns");
    if (f.src_host == f.dst_host) {
      err.fail("src and dst are both " + std::to_string(f.src_host) + "; expected distinct hosts");
    }
    f.tag = cols->tag && !fields[*cols->tag].empty() ? fields[*cols->tag] : tag;
    if (cols->sport && !fields[*cols->sport].empty())
      f.sport = static_cast<uint16_t>(parse_uint(fields[*cols->sport], "sport", 0, 65535, err));
    if (cols->dport && !fields[*cols->dport].empty())
      f.dport = static_cast<uint16_t>(parse_uint(fields[*cols->dport], "dport", 0, 65535, err));
    if (cols->path && !fields[*cols->path].empty())
      f.path = static_cast<uint32_t>(parse_uint(fields[*cols->path], "path", 0,
                                                std::numeric_limits<uint32_t>::max() - 1, err));
    if (cols->dag()) {
      DagRow row;
      row.id = parse_uint(fields[*cols->id], "id", 0, std::numeric_limits<uint64_t>::max(), err);
      row.line = line_no;
      if (cols->after) row.after = parse_id_list(fields[*cols->after], err);
      if (cols->behind && !fields[*cols->behind].empty())
        row.behind = parse_uint(fields[*cols->behind], "behind", 0,
                                std::numeric_limits<uint64_t>::max(), err);
      if (cols->qp && !fields[*cols->qp].empty())
        row.qp = parse_uint(fields[*cols->qp], "qp", 0, std::numeric_limits<uint64_t>::max(), err);
      if (cols->after_delay_ns && !fields[*cols->after_delay_ns].empty())
        f.after_delay =
            parse_ns(fields[*cols->after_delay_ns], err, "after_delay_ns") - Time::zero();
      dag_rows.push_back(std::move(row));
    }
    flows.push_back(std::move(f));
  }
  if (in.bad())
    throw std::runtime_error(path + ": read error after line " + std::to_string(line_no));
  if (!cols) {
    throw std::runtime_error(path + ": no header line; expected a header with at least " +
                             std::string(kRequiredColumns));
  }

  if (cols->dag()) return order_dag(path, std::move(flows), dag_rows);
  std::stable_sort(flows.begin(), flows.end(),
                   [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  return flows;
}

void write_flow_trace_csv(std::ostream& out, const std::vector<FlowSpec>& flows) {
  out << "id,src,dst,size_bytes,start_ns,tag,sport,dport,path,after,after_delay_ns,behind,qp\n";
  for (size_t i = 0; i < flows.size(); ++i) {
    const FlowSpec& f = flows[i];
    out << i << ',' << f.src_host << ',' << f.dst_host << ',' << f.size_bytes << ',';
    out << f.start.ps / 1000 << '.' << std::setw(3) << std::setfill('0') << f.start.ps % 1000;
    out << std::setfill(' ') << ',';
    const bool quote = f.tag.find_first_of(",\" ") != std::string::npos;
    if (quote) {
      out << '"';
      for (char c : f.tag) out << (c == '"' ? "\"\"" : std::string(1, c));
      out << '"';
    } else {
      out << f.tag;
    }
    out << ',';
    if (f.sport) out << *f.sport;
    out << ',';
    if (f.dport) out << *f.dport;
    out << ',';
    if (f.path) out << *f.path;
    out << ',';
    for (size_t k = 0; k < f.after.size(); ++k) out << (k ? " " : "") << f.after[k];
    out << ',';
    if (!f.after.empty() || f.after_delay > Delta::zero())
      out << f.after_delay.ps / 1000 << '.' << std::setw(3) << std::setfill('0')
          << f.after_delay.ps % 1000 << std::setfill(' ');
    out << ',';
    if (f.behind) out << *f.behind;
    out << ',';
    if (f.qp) out << *f.qp;
    out << '\n';
  }
}

}  // namespace rocelab
