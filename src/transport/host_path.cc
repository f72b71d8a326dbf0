#include "transport/host_path.h"

#include "sim/random.h"
#include "transport/hermes.h"
#include "transport/mprdma.h"
#include "transport/rdma_transport.h"

namespace rocelab {

namespace {

class FixedPath final : public HostPathPolicy {
 public:
  void on_send(FlowId, Packet&) override {}
};

// A fresh source port per packet, from the 16-bit range the RoCE NICs use for entropy
// (49152-65535), so per-flow hashing switches spread one flow's packets over every path.
class SprayPath final : public HostPathPolicy {
 public:
  void attach(RdmaTransport& transport) override {
    HostPathPolicy::attach(transport);
    streams_.init(transport, "host-spray");
  }
  void on_send(FlowId, Packet& p) override {
    p.sport = static_cast<uint16_t>(49152 + streams_.of(p.src).below(16384));
    p.flow_hash = roce_flow_hash(p.src, p.dst, p.sport);
  }

 private:
  HostStreams streams_;
};

}  // namespace

void HostStreams::init(const RdmaTransport& transport, std::string_view name) {
  const uint64_t seed = transport.network().context().seed;
  const size_t nodes = transport.network().node_count();
  streams_.clear();
  streams_.reserve(nodes);
  for (size_t i = 0; i < nodes; ++i) streams_.emplace_back(seed, name, i);
}

const Registry<HostPathFactory>& host_path_registry() {
  static const Registry<HostPathFactory> registry = [] {
    Registry<HostPathFactory> r;
    r.add("fixed", "one path entropy (source port) per flow, as a RoCE QP has (default)",
          [] { return std::make_unique<PlainHostPathConfig<FixedPath>>(); });
    r.add("spray", "a random source port per data packet: host-based packet spraying",
          [] { return std::make_unique<PlainHostPathConfig<SprayPath>>(); });
    r.add("hermes",
          "Hermes (SIGCOMM'17): per-path RTT/ECN sensing at the sender, cautious rerouting on "
          "source routes",
          [] { return std::make_unique<HermesPathConfig>(); });
    r.add("mprdma",
          "MP-RDMA (NSDI'18): ACK-clocked virtual paths, one ECN window, out-of-order aware "
          "path pruning (with cc: none, recovery: bitmap)",
          [] { return std::make_unique<MpRdmaPathConfig>(); });
    return r;
  }();
  return registry;
}

}  // namespace rocelab
