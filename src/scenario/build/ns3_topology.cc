#include "scenario/build/ns3_topology.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "sim/units.h"
#include "workload/text_file.h"

namespace rocelab {

namespace {

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

BitsPerSec parse_link_rate(const TextFile& f, const Line& line, std::string_view token) {
  if (is_byte_rate(unit_of(token)))
    fail_at(
        f.path, line.no,
        fmt::format("'{}' is a byte rate in ns-3 (capital B); write the rate in bits, e.g. 100Gbps",
                    token));
  UnitError error;
  const auto v = parse_rate(token, nullptr, kRateRules, &error);
  if (!v && error == UnitError::kUnknownUnit)
    fail_at(f.path, line.no,
            fmt::format("{}, got unit '{}' in '{}'", kRateHelp, unit_of(token), token));
  if (!v && error == UnitError::kFraction)
    fail_at(f.path, line.no,
            fmt::format("link rate '{}' is not a whole number of bits per second", token));
  if (!v) fail_at(f.path, line.no, fmt::format("{}, got '{}'", kRateHelp, token));
  if (*v <= 0) fail_at(f.path, line.no, fmt::format("link rate must be positive, got '{}'", token));
  return *v;
}

Delta parse_link_delay(const TextFile& f, const Line& line, std::string_view token) {
  UnitError error;
  const auto v = parse_duration(token, nullptr, kDelayRules, &error);
  if (!v && error == UnitError::kUnknownUnit)
    fail_at(f.path, line.no,
            fmt::format("{}, got unit '{}' in '{}'", kDelayHelp, unit_of(token), token));
  if (!v) fail_at(f.path, line.no, fmt::format("{}, got '{}'", kDelayHelp, token));
  return *v;
}

void parse_error_rate(const TextFile& f, const Line& line, std::string_view token) {
  // Any spelling of zero ("0", "0.000000"); nothing else is modelled.
  UnitError error;
  const auto zero = parse_scaled(token, 1, UnitRules{.whole = true, .max = 0}, &error);
  if (!zero && (error == UnitError::kSyntax || error == UnitError::kUnknownUnit))
    fail_at(f.path, line.no,
            fmt::format("expected error_rate 0 as the fifth field, got '{}'", token));
  if (!zero)
    fail_at(f.path, line.no,
            fmt::format("error_rate '{}': random link errors are not modelled from topology "
                        "files, only 0 is accepted; a scenario's events: link_loss makes a link "
                        "lossy (docs/faults.md)",
                        token));
}

constexpr const char* kLinkFields = "'src dst rate delay error_rate' (e.g. 0 128 100Gbps 1000ns 0)";

}  // namespace

TopologySpec read_ns3_topology(const std::string& path, std::string* ignored) {
  const TextFile f = read_text_file(path);
  if (f.lines.empty())
    fail_at(path, std::max(f.last_line, 1),
            "expected header 'node_count switch_count link_count', the file is empty");

  // Header.
  const Line& header = f.lines[0];
  if (header.fields.size() != 3)
    fail_at(path, header.no,
            fmt::format("expected header 'node_count switch_count link_count' (3 integers), got {} "
                        "fields",
                        header.fields.size()));
  const auto node_count = parse_uint<uint32_t>(header.fields[0]);
  const auto switch_count = parse_uint<uint32_t>(header.fields[1]);
  const auto link_count = parse_uint<uint32_t>(header.fields[2]);
  if (!node_count || !switch_count || !link_count)
    fail_at(path, header.no,
            "expected header 'node_count switch_count link_count' as non-negative integers");
  if (*node_count == 0) fail_at(path, header.no, "expected node_count >= 1, got 0");
  if (*switch_count > *node_count)
    fail_at(path, header.no,
            fmt::format("switch_count {} exceeds node_count {}", *switch_count, *node_count));

  // Switch ids.
  size_t next = 1;
  std::vector<bool> is_switch(*node_count, false);
  int switch_line = header.no;  // where node kinds are decided, for kind-related errors
  if (*switch_count > 0) {
    if (next >= f.lines.size())
      fail_at(
          path, f.last_line + 1,
          fmt::format("expected a line with the {} switch ids, found end of file", *switch_count));
    const Line& sw = f.lines[next++];
    switch_line = sw.no;
    if (sw.fields.size() != *switch_count)
      fail_at(path, sw.no,
              fmt::format("expected {} switch ids on this line (switch_count on line {}), found {}",
                          *switch_count, header.no, sw.fields.size()));
    for (const std::string_view tok : sw.fields) {
      const auto id = parse_uint<uint32_t>(tok);
      if (!id || *id >= *node_count)
        fail_at(path, sw.no,
                fmt::format("expected switch ids in [0, {}), got '{}'", *node_count, tok));
      if (is_switch[*id]) fail_at(path, sw.no, fmt::format("duplicate switch id {}", *id));
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
      fail_at(
          path, header.no,
          fmt::format("header declares {} links but only {} link lines follow", *link_count, k));
    const Line& line = f.lines[next++];
    if (line.fields.size() != 5)
      fail_at(path, line.no,
              fmt::format("expected link {} ({} fields), got {} fields", kLinkFields, 5,
                          line.fields.size()));
    uint32_t ends[2];
    for (int e = 0; e < 2; ++e) {
      const auto id = parse_uint<uint32_t>(line.fields[e]);
      if (!id || *id >= *node_count)
        fail_at(path, line.no,
                fmt::format("expected node ids in [0, {}) (node_count on line {}), got '{}'",
                            *node_count, header.no, line.fields[e]));
      ends[e] = *id;
    }
    if (ends[0] == ends[1])
      fail_at(path, line.no, fmt::format("link from node {} to itself", ends[0]));
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
          fail_at(path, line.no,
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
        ignored_lines_note(path, f, next, fmt::format("{} links the header declares", *link_count));

  for (uint32_t i = 0; i < *node_count; ++i)
    if (!is_switch[i] && host_link_line[i] == 0)
      fail_at(
          path, switch_line,
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
      fail_at(path, switch_line,
              fmt::format("switch {} is not connected to any host (no path through switches to a "
                          "switch with hosts)",
                          i));
    spec.nodes[i].layer = dist[i] == 0   ? Layer::kEdge
                          : dist[i] == 1 ? Layer::kAggregation
                                         : Layer::kCore;
  }
  return spec;
}

}  // namespace rocelab
