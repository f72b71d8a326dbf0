#include "scenario/build/ns3_format.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "scenario/config/units.h"
#include "scenario/results/text_lines.h"

namespace rocelab {

namespace {

// One non-blank line of a file: its 1-based number and whitespace-separated fields (views
// into the file's text).
struct Line {
  int no = 0;
  std::span<const std::string_view> fields;
};

struct File {
  File() = default;
  // A copy's lines would view the original's text: moves only.
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  File(File&&) = default;
  File& operator=(File&&) = default;

  std::string path;
  std::vector<Line> lines;  // non-blank lines only
  int last_line = 0;        // number of the last line in the file (0 if empty)
  // What the lines view: a flow file has hundreds of thousands of lines, and a string per
  // field cost more than the parse.
  std::vector<char> text;
  std::vector<std::string_view> fields;  // every line's, in order
};

[[noreturn]] void fail(const std::string& path, int line, const std::string& what) {
  throw std::runtime_error(fmt::format("{}:{}: {}", path, line, what));
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

File read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  File file;
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

// A whole-token unsigned decimal integer no larger than `max`.
template <typename T>
std::optional<T> parse_uint(std::string_view s, T max = std::numeric_limits<T>::max()) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return std::nullopt;
  T v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

constexpr const char* kRateHelp =
    "expected a link rate like 100Gbps (number then bps, Kbps, Mbps, Gbps, Tbps or Gb/s style)";
constexpr const char* kDelayHelp =
    "expected a link delay like 1000ns (number then ps, ns, us, ms or s)";

// The files' units are matched in any case, as this reader always has ("100gbps"), and
// must be given; a rate is whole bits per second (ns-3's DataRate holds a uint64_t).
constexpr UnitRules kRateRules{.any_case = true,
                               .unit_required = true,
                               .whole = true,
                               .max = std::numeric_limits<int64_t>::max()};
constexpr UnitRules kDelayRules{.any_case = true, .unit_required = true};

// ns-3 reads a capital B as bytes ("GBps"); a case-blind match would take it for Gbps.
bool is_byte_rate(std::string_view unit) {
  const bool prefixed =
      unit.size() > 3 && std::string_view("kKmMgGtT").find(unit[0]) != std::string_view::npos;
  const std::string_view rest = prefixed ? unit.substr(1) : unit;
  return !rest.empty() && rest[0] == 'B';
}

BitsPerSec parse_link_rate(const File& f, const Line& line, std::string_view token) {
  if (is_byte_rate(unit_of(token)))
    fail(
        f.path, line.no,
        fmt::format("'{}' is a byte rate in ns-3 (capital B); write the rate in bits, e.g. 100Gbps",
                    token));
  UnitError error;
  const auto v = parse_rate(token, nullptr, kRateRules, &error);
  if (!v && error == UnitError::kUnknownUnit)
    fail(f.path, line.no,
         fmt::format("{}, got unit '{}' in '{}'", kRateHelp, unit_of(token), token));
  if (!v && error == UnitError::kFraction)
    fail(f.path, line.no,
         fmt::format("link rate '{}' is not a whole number of bits per second", token));
  if (!v) fail(f.path, line.no, fmt::format("{}, got '{}'", kRateHelp, token));
  if (*v <= 0) fail(f.path, line.no, fmt::format("link rate must be positive, got '{}'", token));
  return *v;
}

Delta parse_link_delay(const File& f, const Line& line, std::string_view token) {
  UnitError error;
  const auto v = parse_duration(token, nullptr, kDelayRules, &error);
  if (!v && error == UnitError::kUnknownUnit)
    fail(f.path, line.no,
         fmt::format("{}, got unit '{}' in '{}'", kDelayHelp, unit_of(token), token));
  if (!v) fail(f.path, line.no, fmt::format("{}, got '{}'", kDelayHelp, token));
  return *v;
}

void parse_error_rate(const File& f, const Line& line, std::string_view token) {
  // Any spelling of zero ("0", "0.000000"); nothing else is modelled.
  UnitError error;
  const auto zero = parse_scaled(token, 1, UnitRules{.whole = true, .max = 0}, &error);
  if (!zero && (error == UnitError::kSyntax || error == UnitError::kUnknownUnit))
    fail(f.path, line.no, fmt::format("expected error_rate 0 as the fifth field, got '{}'", token));
  if (!zero)
    fail(f.path, line.no,
         fmt::format("error_rate '{}': random link errors are not modelled, only 0 is accepted",
                     token));
}

// "path: lines A-B after the N ... are ignored, as ns-3 ignores them".
std::string ignored_note(const std::string& path, const File& f, size_t first,
                         const std::string& what) {
  return fmt::format("{}: lines {}-{} after the {} are ignored, as ns-3 ignores them", path,
                     f.lines[first].no, f.lines.back().no, what);
}

constexpr const char* kLinkFields = "'src dst rate delay error_rate' (e.g. 0 128 100Gbps 1000ns 0)";

}  // namespace

TopologySpec read_ns3_topology(const std::string& path, std::string* ignored) {
  const File f = read_file(path);
  if (f.lines.empty())
    fail(path, std::max(f.last_line, 1),
         "expected header 'node_count switch_count link_count', the file is empty");

  // Header.
  const Line& header = f.lines[0];
  if (header.fields.size() != 3)
    fail(path, header.no,
         fmt::format("expected header 'node_count switch_count link_count' (3 integers), got {} "
                     "fields",
                     header.fields.size()));
  const auto node_count = parse_uint<uint32_t>(header.fields[0]);
  const auto switch_count = parse_uint<uint32_t>(header.fields[1]);
  const auto link_count = parse_uint<uint32_t>(header.fields[2]);
  if (!node_count || !switch_count || !link_count)
    fail(path, header.no,
         "expected header 'node_count switch_count link_count' as non-negative integers");
  if (*node_count == 0) fail(path, header.no, "expected node_count >= 1, got 0");
  if (*switch_count > *node_count)
    fail(path, header.no,
         fmt::format("switch_count {} exceeds node_count {}", *switch_count, *node_count));

  // Switch ids.
  size_t next = 1;
  std::vector<bool> is_switch(*node_count, false);
  int switch_line = header.no;  // where node kinds are decided, for kind-related errors
  if (*switch_count > 0) {
    if (next >= f.lines.size())
      fail(path, f.last_line + 1,
           fmt::format("expected a line with the {} switch ids, found end of file", *switch_count));
    const Line& sw = f.lines[next++];
    switch_line = sw.no;
    if (sw.fields.size() != *switch_count)
      fail(path, sw.no,
           fmt::format("expected {} switch ids on this line (switch_count on line {}), found {}",
                       *switch_count, header.no, sw.fields.size()));
    for (const std::string_view tok : sw.fields) {
      const auto id = parse_uint<uint32_t>(tok);
      if (!id || *id >= *node_count)
        fail(path, sw.no,
             fmt::format("expected switch ids in [0, {}), got '{}'", *node_count, tok));
      if (is_switch[*id]) fail(path, sw.no, fmt::format("duplicate switch id {}", *id));
      is_switch[*id] = true;
    }
  }

  TopologySpec spec;
  spec.description = "ns-3 topology " + path;
  spec.nodes.reserve(*node_count);
  for (uint32_t i = 0; i < *node_count; ++i) {
    if (is_switch[i])
      spec.add_node(NodeKind::kSwitch, Layer::kEdge, "s" + std::to_string(i));
    else
      spec.add_node(NodeKind::kHost, Layer::kHost, "h" + std::to_string(i));
  }

  // Links.
  std::vector<int> host_link_line(*node_count, 0);  // line of a host's link, 0 if none yet
  std::vector<std::vector<uint32_t>> switch_neighbors(*node_count);
  std::vector<bool> has_host(*node_count, false);
  spec.links.reserve(*link_count);
  for (uint32_t k = 0; k < *link_count; ++k) {
    if (next >= f.lines.size())
      fail(path, header.no,
           fmt::format("header declares {} links but only {} link lines follow", *link_count, k));
    const Line& line = f.lines[next++];
    if (line.fields.size() != 5)
      fail(path, line.no,
           fmt::format("expected link {} ({} fields), got {} fields", kLinkFields, 5,
                       line.fields.size()));
    uint32_t ends[2];
    for (int e = 0; e < 2; ++e) {
      const auto id = parse_uint<uint32_t>(line.fields[e]);
      if (!id || *id >= *node_count)
        fail(path, line.no,
             fmt::format("expected node ids in [0, {}) (node_count on line {}), got '{}'",
                         *node_count, header.no, line.fields[e]));
      ends[e] = *id;
    }
    if (ends[0] == ends[1])
      fail(path, line.no, fmt::format("link from node {} to itself", ends[0]));
    const BitsPerSec rate = parse_link_rate(f, line, line.fields[2]);
    const Delta delay = parse_link_delay(f, line, line.fields[3]);
    parse_error_rate(f, line, line.fields[4]);
    for (int e = 0; e < 2; ++e) {
      const uint32_t n = ends[e], other = ends[1 - e];
      if (is_switch[n]) {
        if (is_switch[other])
          switch_neighbors[n].push_back(other);
        else
          has_host[n] = true;
      } else {
        if (host_link_line[n] != 0)
          fail(path, line.no,
               fmt::format("host {} already has a link (line {}); hosts must have exactly one "
                           "link (multi-homed hosts are not modelled)",
                           n, host_link_line[n]));
        host_link_line[n] = line.no;
      }
    }
    spec.add_link(ends[0], ends[1], rate, delay);
  }
  // ns-3 reads what the header declares and ignores the rest: ConWeave's files end with a
  // free-text description, HPCC's mix/topology.txt with links of a larger fabric.
  if (next < f.lines.size() && ignored)
    *ignored =
        ignored_note(path, f, next, fmt::format("{} links the header declares", *link_count));

  for (uint32_t i = 0; i < *node_count; ++i)
    if (!is_switch[i] && host_link_line[i] == 0)
      fail(path, switch_line,
           fmt::format("node {} is not listed as a switch, so it is a host, but no link attaches "
                       "it; hosts must have exactly one link",
                       i));

  // Layers: edge switches have hosts; the rest by switch-hop distance from the edge.
  std::vector<int> dist(*node_count, -1);
  std::deque<uint32_t> queue;
  for (uint32_t i = 0; i < *node_count; ++i)
    if (is_switch[i] && has_host[i]) {
      dist[i] = 0;
      queue.push_back(i);
    }
  while (!queue.empty()) {
    const uint32_t n = queue.front();
    queue.pop_front();
    for (uint32_t m : switch_neighbors[n])
      if (dist[m] < 0) {
        dist[m] = dist[n] + 1;
        queue.push_back(m);
      }
  }
  for (uint32_t i = 0; i < *node_count; ++i) {
    if (!is_switch[i]) continue;
    if (dist[i] < 0)
      fail(path, switch_line,
           fmt::format("switch {} is not connected to any host (no path through switches to a "
                       "switch with hosts)",
                       i));
    spec.nodes[i].layer = dist[i] == 0   ? Layer::kEdge
                          : dist[i] == 1 ? Layer::kAggregation
                                         : Layer::kCore;
  }
  return spec;
}

Ns3FlowFormat ns3_flow_format(const std::string& name) {
  if (name == "hpcc") return Ns3FlowFormat::kHpcc;
  if (name == "conweave") return Ns3FlowFormat::kConweave;
  if (name == "auto") return Ns3FlowFormat::kAuto;
  throw std::invalid_argument("unknown ns-3 flow file format '" + name + "'");
}

std::vector<FlowSpec> read_ns3_flows(const std::string& path, Ns3FlowFormat format,
                                     const std::string& tag, std::string* ignored) {
  const File f = read_file(path);
  if (f.lines.empty())
    fail(path, std::max(f.last_line, 1),
         "expected the flow count on the first line, the file is empty");
  const Line& header = f.lines[0];
  const auto count =
      header.fields.size() == 1 ? parse_uint<uint64_t>(header.fields[0]) : std::nullopt;
  if (!count)
    fail(path, header.no, "expected the flow count (one non-negative integer) on the first line");

  constexpr const char* kHpcc = "HPCC 'src dst pg dport size start_seconds'";
  constexpr const char* kConweave = "ConWeave 'src dst pg size start_seconds'";
  int auto_line = 0;  // line that fixed the format under kAuto
  std::unordered_map<uint64_t, uint16_t> hpcc_pair_ports;
  std::unordered_map<uint32_t, uint16_t> conweave_sports, conweave_dports;
  std::vector<FlowSpec> flows;
  flows.reserve(static_cast<size_t>(std::min<uint64_t>(*count, 1u << 20)));
  size_t next = 1;
  for (uint64_t k = 0; k < *count; ++k) {
    if (next >= f.lines.size())
      fail(path, header.no,
           fmt::format("flow count says {} flows but only {} flow lines follow", *count, k));
    const Line& line = f.lines[next++];
    const size_t n = line.fields.size();
    if (format == Ns3FlowFormat::kAuto) {
      if (n == 6)
        format = Ns3FlowFormat::kHpcc;
      else if (n == 5)
        format = Ns3FlowFormat::kConweave;
      else
        fail(path, line.no,
             fmt::format("expected 6 fields ({}) or 5 fields ({}), got {}", kHpcc, kConweave, n));
      auto_line = line.no;
    }
    const bool hpcc = format == Ns3FlowFormat::kHpcc;
    const size_t want = hpcc ? 6 : 5;
    if (n != want)
      fail(path, line.no,
           fmt::format("expected {} fields ({}){}, got {}", want, hpcc ? kHpcc : kConweave,
                       auto_line ? fmt::format(" like line {}", auto_line) : "", n));

    const auto src = parse_uint<uint32_t>(line.fields[0]);
    const auto dst = parse_uint<uint32_t>(line.fields[1]);
    if (!src || !dst)
      fail(path, line.no,
           fmt::format("expected node ids (non-negative integers) for src and dst, got '{}' '{}'",
                       line.fields[0], line.fields[1]));
    if (*src == *dst) fail(path, line.no, fmt::format("src and dst are both node {}", *src));
    if (!parse_uint<uint32_t>(line.fields[2]))
      fail(path, line.no,
           fmt::format("expected priority group pg (non-negative integer), got '{}'",
                       line.fields[2]));
    if (hpcc && !parse_uint<uint32_t>(line.fields[3], 65535))
      fail(path, line.no, fmt::format("expected dport in [0, 65535], got '{}'", line.fields[3]));
    const std::string_view size_tok = line.fields[hpcc ? 4 : 3];
    const auto size = parse_uint<uint64_t>(size_tok);
    if (!size)
      fail(path, line.no,
           fmt::format("expected size in bytes (non-negative integer), got '{}'", size_tok));
    const std::string_view start_tok = line.fields[hpcc ? 5 : 4];
    if (!start_tok.empty() && start_tok[0] == '-')
      fail(path, line.no, fmt::format("start time must be non-negative, got '{}'", start_tok));
    const std::string_view start_num =
        !start_tok.empty() && start_tok[0] == '+' ? start_tok.substr(1) : start_tok;
    constexpr int64_t kPsPerSecond = 1000000000000;
    const auto start_ps =
        parse_scaled(start_num, kPsPerSecond, UnitRules{.max = Time::never().ps - 1});
    if (!start_ps)
      fail(path, line.no,
           fmt::format("expected start time in seconds (decimal like 2.000001234), got '{}'",
                       start_tok));
    FlowSpec flow{*src, *dst, *size, Time{*start_ps}, tag, {}, {}, {}};
    // network-load-balance.cc: "if (target_len == 0) target_len = 1".
    if (!hpcc && flow.size_bytes == 0) flow.size_bytes = 1;
    if (hpcc) {
      // third.cc: sport = portNumder[src][dst]++, each host pair from 10000; dport as given.
      flow.sport = hpcc_pair_ports.try_emplace((uint64_t{*src} << 32) | *dst, uint16_t{10000})
                       .first->second++;
      flow.dport = static_cast<uint16_t>(*parse_uint<uint32_t>(line.fields[3], 65535));
    } else {
      // network-load-balance.cc ScheduleFlowInputs: per-host counters from 10000 (source)
      // and 100 (destination), uint16_t as theirs.
      auto s = conweave_sports.try_emplace(*src, uint16_t{10000}).first;
      auto d = conweave_dports.try_emplace(*dst, uint16_t{100}).first;
      flow.sport = s->second++;
      flow.dport = d->second++;
    }
    flows.push_back(std::move(flow));
  }
  // As for topologies (HPCC's mix/flow.txt lists more flows than its count).
  if (next < f.lines.size() && ignored)
    *ignored = ignored_note(path, f, next, fmt::format("{} flows the count declares", *count));
  return flows;
}

void write_ns3_fct(std::ostream& file, const std::vector<FctLine>& lines, Ns3FctStyle style) {
  TextLines out(file);
  for (const FctLine& l : lines) {
    if (style == Ns3FctStyle::kHpcc)
      out.put_hex(ns3_node_ip(l.src_node), 8).put(' ').put_hex(ns3_node_ip(l.dst_node), 8);
    else
      out.put_int(l.src_node).put(' ').put_int(l.dst_node);
    out.put(' ').put_int(l.sport).put(' ').put_int(l.dport).put(' ').put_int(l.size_bytes);
    out.put(' ').put_signed(l.start_ns).put(' ').put_signed(l.fct_ns).put(' ');
    out.put_signed(l.standalone_fct_ns);
    out.end_line();
  }
}

}  // namespace rocelab
