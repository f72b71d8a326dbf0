// Time series on request (outputs.timeseries_interval): per-flow goodput, per-link
// utilisation, edge-uplink ("path") throughput, switch queue lengths, and every PFC event.
// CSV files in the run directory; rows only for non-zero values, to stay small.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "scenario/build/experiment.h"
#include "scenario/config/scenario_config.h"
#include "sim/lane.h"

namespace rocelab {

class TimeSeriesRecorder final : public EventHandler {
 public:
  // Over several ranks (`ranks`), rank 0 writes what every rank recorded.
  TimeSeriesRecorder(Experiment& exp, const OutputConfig& cfg, const std::string& dir,
                     RankGroup* ranks = nullptr);
  ~TimeSeriesRecorder() override;
  void on_event(uint32_t kind, uint64_t arg) override;
  void finish();  // stops recording (the run is over; a drain may follow) and flushes
  // After Experiment::set_threads: a PFC record list per partition.
  void set_lanes(uint32_t partitions);
  // Writes the PFC events recorded by partitions so far, in a serial run's order. Only
  // where every partition stands at the same point: between runs, or at a global event
  // (over several ranks, every rank calls it there).
  void write_pfc_records();

 private:
  struct PortRef {
    NodeId node;
    PortId port;
    bool edge_uplink;
  };
  void sample();
  enum File : uint8_t { kLinks, kPaths, kQueues, kFlows };
  struct Row {
    File file;
    uint32_t index;  // the port's (ports_) or the flow's
    std::string text;
  };
  void gather_rows(std::vector<Row>& rows) const;
  void write_pfc(const PfcEvent& e);
  // A parallel run's PFC event, with the key of the event that made it and its place
  // among that event's records.
  struct PfcRecord {
    EventKey key;
    uint32_t place;
    PfcEvent event;
  };

  Experiment& exp_;
  OutputConfig cfg_;
  RankGroup* ranks_;
  bool writes_;  // this process writes the files (rank 0 of several)
  uint32_t handler_;
  bool stopped_ = false;
  std::vector<PortRef> ports_;
  std::vector<uint64_t> last_port_bytes_;
  std::vector<uint64_t> last_flow_bytes_;
  std::ofstream flows_, links_, paths_, queues_, pfc_;
  PerLane<std::vector<PfcRecord>> pfc_records_;
  std::vector<PfcRecord> pfc_merge_;
};

}  // namespace rocelab
