// `rocelab sweep`: runs a sweep on local threads, or across MPI ranks when started by mpirun.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "scenario/sweep/sweep.h"

namespace rocelab {

struct SweepOptions {
  std::string out_dir;
  unsigned jobs = 1;        // runs at once in this process
  uint32_t threads = 1;     // threads of each run (run --threads)
  uint32_t partitions = 0;  // and its partitions (run --partitions)
  bool quiet = false;
  bool force = false;             // rerun finished points too
  std::string command = "sweep";  // names the progress lines: sweep or compare
  // One run at a time on a terminal: show that run's own progress line (simulated time,
  // flows, ETA) instead of the runner's (compare -j 1).
  bool run_progress = false;
  bool keep_incomplete = false;  // interrupted runs keep their results (compare)
  const std::atomic<bool>* interrupted = nullptr;
};

// Hands out the runs still to do and collects outcomes; thread-safe. Prints progress.
class SweepDriver {
 public:
  SweepDriver(const Sweep& sweep, const SweepOptions& options);
  std::optional<size_t> next();
  void record(size_t run_index, RunOutcome outcome);
  // Runs `jobs` local worker threads until nothing is left; `poll` is called about every
  // 10 ms from the calling thread meanwhile (it serves MPI ranks on the root), and the
  // driver waits while it returns true.
  void run_local(unsigned jobs, const std::function<bool()>& poll);
  void print_progress(bool final);
  // Writes runs.csv, sweep.csv, sweep.json; prints failures; the exit status.
  int finish();
  const std::vector<RunOutcome>& outcomes() const { return outcomes_; }
  // A run's name in messages: its point, scheme and seed, as many as tell it apart.
  std::string run_name(size_t run_index) const;

 private:
  void worker();
  bool own_progress() const { return options_.run_progress && options_.jobs == 1 && tty_; }

  const Sweep& sweep_;
  SweepOptions options_;
  std::mutex mutex_;
  std::vector<RunOutcome> outcomes_;
  std::vector<size_t> pending_;
  size_t next_pending_ = 0;
  size_t reused_ = 0, done_ = 0, failed_ = 0, running_ = 0;
  double started_s_ = 0, last_print_s_ = 0;
  bool tty_ = false;
};

// What ends a sweep once its runs are done: writes its files, returns the exit status.
using SweepFinish = std::function<int(SweepDriver&)>;
inline int finish_sweep(SweepDriver& driver) {
  return driver.finish();
}

int run_sweep_local(const Sweep& sweep, const SweepOptions& options,
                    const SweepFinish& finish = finish_sweep);
// True when this process was started by mpirun with more than one rank.
bool launched_by_mpi();
// Runs the sweep across the MPI ranks; ranks take runs one at a time, as they free up.
int run_sweep_mpi(const Sweep& sweep, SweepOptions options, int* argc, char*** argv,
                  const SweepFinish& finish = finish_sweep);

}  // namespace rocelab
