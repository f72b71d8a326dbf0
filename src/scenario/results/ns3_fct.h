// The FCT file of the HPCC and ConWeave ns-3 simulators, so that rocelab's FCTs feed
// their analysis scripts (one finished flow a line):
//   sip dip sport dport size start_ns fct_ns standalone_fct_ns
// HPCC writes sip/dip as %08x IPv4 addresses, ConWeave as decimal node ids.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

namespace rocelab {

struct FctLine {
  uint32_t src_node = 0;
  uint32_t dst_node = 0;
  uint16_t sport = 0;
  uint16_t dport = 0;
  uint64_t size_bytes = 0;
  int64_t start_ns = 0;
  int64_t fct_ns = 0;
  int64_t standalone_fct_ns = 0;
};

enum class Ns3FctStyle {
  kHpcc,      // sip/dip as %08x IPv4 addresses
  kConweave,  // sip/dip as decimal node ids
};

void write_ns3_fct(std::ostream& out, const std::vector<FctLine>& lines,
                   Ns3FctStyle style = Ns3FctStyle::kHpcc);

}  // namespace rocelab
