// The ECMP hash of the HPCC and ConWeave ns-3 simulators (SwitchNode::EcmpHash and
// GetOutDev/DoLbFlowECMP in src/point-to-point/model/switch-node.cc): MurmurHash3 (x86,
// 32-bit) of the 12 bytes sip, dip, sport | dport << 16 (little-endian words), seeded with
// the switch's node id; the next hop is hash % n among the candidates in routing-table
// order. With it (`switch.ecmp_hash: ns3`) a flow imported from their files takes the path
// it takes there.
#pragma once

#include <cstdint>

namespace rocelab {

// Their hosts' addresses (node_id_to_ip): 11.(id / 256).(id % 256).1.
constexpr uint32_t ns3_node_ip(uint32_t node_id) {
  return 0x0b000001u + (node_id / 256) * 0x00010000u + (node_id % 256) * 0x00000100u;
}

// MurmurHash3_x86_32 (Austin Appleby's public-domain algorithm) of three 32-bit words.
constexpr uint32_t murmur3_words(const uint32_t (&words)[3], uint32_t seed) {
  uint32_t h = seed;
  for (uint32_t k : words) {
    k *= 0xcc9e2d51u;
    k = (k << 15) | (k >> 17);
    k *= 0x1b873593u;
    h ^= k;
    h = (h << 13) | (h >> 19);
    h = h * 5 + 0xe6546b64u;
  }
  h ^= 12u;  // the key length in bytes
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

constexpr uint32_t ns3_ecmp_hash(uint32_t src_node, uint32_t dst_node, uint16_t sport,
                                 uint16_t dport, uint32_t switch_node) {
  const uint32_t words[3] = {ns3_node_ip(src_node), ns3_node_ip(dst_node),
                             uint32_t{sport} | (uint32_t{dport} << 16)};
  return murmur3_words(words, switch_node);
}

}  // namespace rocelab
