// Distinct integer id types, one per index space, so that two spaces never mix.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace rocelab {

template <class Tag, class Rep = uint32_t>
struct StrongId {
  Rep v = std::numeric_limits<Rep>::max();

  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep value) : v(value) {}
  static constexpr StrongId invalid() { return StrongId{}; }
  constexpr bool valid() const { return v != std::numeric_limits<Rep>::max(); }
  constexpr Rep index() const { return v; }
  constexpr auto operator<=>(const StrongId&) const = default;
};

using NodeId = StrongId<struct NodeTag>;            // host or switch
using PortId = StrongId<struct PortTag, uint16_t>;  // port index within one node
using FlowId = StrongId<struct FlowTag>;            // dense, global
using PathId = StrongId<struct PathTag>;            // end-to-end path between two edge switches
using LinkId = StrongId<struct LinkTag>;            // one direction of a cable
using PacketId = StrongId<struct PacketTag>;        // index into the packet pool
using Priority = uint8_t;                           // 802.1p class, 0..7

}  // namespace rocelab

template <class Tag, class Rep>
struct std::hash<rocelab::StrongId<Tag, Rep>> {
  size_t operator()(const rocelab::StrongId<Tag, Rep>& id) const noexcept {
    return std::hash<Rep>{}(id.v);
  }
};
