#include "lb/edge_flow_table.h"

namespace rocelab {

uint16_t flow_crc16(const Packet& p) {
  // Node ids stand in for IPv4 addresses (the ns-3 simulators' 11.x.y.1 scheme).
  const uint32_t sip = 0x0b000001u + ((p.src.index() / 256) << 16) + ((p.src.index() % 256) << 8);
  const uint32_t dip = 0x0b000001u + ((p.dst.index() / 256) << 16) + ((p.dst.index() % 256) << 8);
  const uint8_t tuple[13] = {uint8_t(sip >> 24),
                             uint8_t(sip >> 16),
                             uint8_t(sip >> 8),
                             uint8_t(sip),
                             uint8_t(dip >> 24),
                             uint8_t(dip >> 16),
                             uint8_t(dip >> 8),
                             uint8_t(dip),
                             uint8_t(p.sport >> 8),
                             uint8_t(p.sport),
                             uint8_t(p.dport >> 8),
                             uint8_t(p.dport),
                             17};
  uint16_t crc = 0xffff;
  for (uint8_t byte : tuple) {
    crc ^= static_cast<uint16_t>(byte) << 8;
    for (int i = 0; i < 8; ++i)
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
  }
  return crc;
}

}  // namespace rocelab
