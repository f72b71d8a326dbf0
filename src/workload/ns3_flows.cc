#include "workload/ns3_flows.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/units.h"
#include "workload/text_file.h"

namespace rocelab {

Ns3FlowFormat ns3_flow_format(const std::string& name) {
  if (name == "hpcc") return Ns3FlowFormat::kHpcc;
  if (name == "conweave") return Ns3FlowFormat::kConweave;
  if (name == "auto") return Ns3FlowFormat::kAuto;
  throw std::invalid_argument("unknown ns-3 flow file format '" + name + "'");
}

std::vector<FlowSpec> read_ns3_flows(const std::string& path, Ns3FlowFormat format,
                                     const std::string& tag, std::string* ignored) {
  const TextFile f = read_text_file(path);
  if (f.lines.empty())
    fail_at(path, std::max(f.last_line, 1),
            "expected the flow count on the first line, the file is empty");
  const Line& header = f.lines[0];
  const auto count =
      header.fields.size() == 1 ? parse_uint<uint64_t>(header.fields[0]) : std::nullopt;
  if (!count)
    fail_at(path, header.no,
            "expected the flow count (one non-negative integer) on the first line");

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
      fail_at(path, header.no,
              fmt::format("flow count says {} flows but only {} flow lines follow", *count, k));
    const Line& line = f.lines[next++];
    const size_t n = line.fields.size();
    if (format == Ns3FlowFormat::kAuto) {
      if (n == 6)
        format = Ns3FlowFormat::kHpcc;
      else if (n == 5)
        format = Ns3FlowFormat::kConweave;
      else
        fail_at(
            path, line.no,
            fmt::format("expected 6 fields ({}) or 5 fields ({}), got {}", kHpcc, kConweave, n));
      auto_line = line.no;
    }
    const bool hpcc = format == Ns3FlowFormat::kHpcc;
    const size_t want = hpcc ? 6 : 5;
    if (n != want)
      fail_at(path, line.no,
              fmt::format("expected {} fields ({}){}, got {}", want, hpcc ? kHpcc : kConweave,
                          auto_line ? fmt::format(" like line {}", auto_line) : "", n));

    const auto src = parse_uint<uint32_t>(line.fields[0]);
    const auto dst = parse_uint<uint32_t>(line.fields[1]);
    if (!src || !dst)
      fail_at(
          path, line.no,
          fmt::format("expected node ids (non-negative integers) for src and dst, got '{}' '{}'",
                      line.fields[0], line.fields[1]));
    if (*src == *dst) fail_at(path, line.no, fmt::format("src and dst are both node {}", *src));
    if (!parse_uint<uint32_t>(line.fields[2]))
      fail_at(path, line.no,
              fmt::format("expected priority group pg (non-negative integer), got '{}'",
                          line.fields[2]));
    if (hpcc && !parse_uint<uint32_t>(line.fields[3], 65535))
      fail_at(path, line.no, fmt::format("expected dport in [0, 65535], got '{}'", line.fields[3]));
    const std::string_view size_tok = line.fields[hpcc ? 4 : 3];
    const auto size = parse_uint<uint64_t>(size_tok);
    if (!size)
      fail_at(path, line.no,
              fmt::format("expected size in bytes (non-negative integer), got '{}'", size_tok));
    const std::string_view start_tok = line.fields[hpcc ? 5 : 4];
    if (!start_tok.empty() && start_tok[0] == '-')
      fail_at(path, line.no, fmt::format("start time must be non-negative, got '{}'", start_tok));
    const std::string_view start_num =
        !start_tok.empty() && start_tok[0] == '+' ? start_tok.substr(1) : start_tok;
    constexpr int64_t kPsPerSecond = 1000000000000;
    const auto start_ps =
        parse_scaled(start_num, kPsPerSecond, UnitRules{.max = Time::never().ps - 1});
    if (!start_ps)
      fail_at(path, line.no,
              fmt::format("expected start time in seconds (decimal like 2.000001234), got '{}'",
                          start_tok));
    FlowSpec flow{*src, *dst, *size, Time{*start_ps}, tag, {}, {}, {}, {}, {}, {}, {}};
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
    *ignored =
        ignored_lines_note(path, f, next, fmt::format("{} flows the count declares", *count));
  return flows;
}

}  // namespace rocelab
