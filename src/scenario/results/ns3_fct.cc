#include "scenario/results/ns3_fct.h"

#include "net/ns3_ecmp_hash.h"  // ns3_node_ip
#include "scenario/results/text_lines.h"

namespace rocelab {

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
