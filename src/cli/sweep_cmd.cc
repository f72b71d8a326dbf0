#include "cli/sweep_cmd.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace rocelab {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string duration_text(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

SweepDriver::SweepDriver(const Sweep& sweep, const SweepOptions& options)
    : sweep_(sweep), options_(options), outcomes_(sweep.runs.size()) {
  // What finished before is reused without running (unless --force): a rerun of a finished
  // sweep does no simulation.
  for (size_t i = 0; i < sweep.runs.size(); ++i) {
    if (!options.force) outcomes_[i] = finished_outcome(sweep, i, options.out_dir);
    if (outcomes_[i].status == RunOutcome::Status::kNotRun) {
      pending_.push_back(i);
    } else {
      ++reused_;
      failed_ += outcomes_[i].status == RunOutcome::Status::kFailed;
    }
  }
  started_s_ = last_print_s_ = now_s();
  tty_ = ::isatty(2);
}

std::optional<size_t> SweepDriver::next() {
  std::lock_guard lock(mutex_);
  if (options_.interrupted && options_.interrupted->load()) return std::nullopt;
  if (next_pending_ == pending_.size()) return std::nullopt;
  ++running_;
  return pending_[next_pending_++];
}

void SweepDriver::record(size_t i, RunOutcome outcome) {
  std::lock_guard lock(mutex_);
  --running_;
  const std::string name = run_name(i);
  switch (outcome.status) {
    case RunOutcome::Status::kFailed:
      ++failed_;
      ++done_;
      if (tty_) std::fprintf(stderr, "\r\033[K");
      std::fprintf(stderr, "rocelab %s: %s failed: %s\n", options_.command.c_str(), name.c_str(),
                   outcome.error.c_str());
      break;
    case RunOutcome::Status::kInterrupted:
    case RunOutcome::Status::kNotRun:
      break;  // still to do: a rerun picks it up
    default:
      ++done_;
      if (!options_.quiet && !tty_)
        std::fprintf(stderr, "rocelab %s: [%zu/%zu] %s: %.1f s\n", options_.command.c_str(),
                     reused_ + done_, sweep_.runs.size(), name.c_str(), outcome.wall_s);
  }
  outcomes_[i] = std::move(outcome);
}

std::string SweepDriver::run_name(size_t i) const {
  const SweepRun& r = sweep_.runs[i];
  std::string name = sweep_.schemes[r.scheme].label;
  if (sweep_.points.size() > 1) name = sweep_.points[r.point].id + " " + name;
  if (sweep_.seeds.size() > 1) name += fmt::format(" seed {}", r.seed);
  return name;
}

void SweepDriver::print_progress(bool final) {
  if (options_.quiet || !tty_ || own_progress()) return;
  std::lock_guard lock(mutex_);
  const double t = now_s();
  if (!final && t - last_print_s_ < 1.0) return;
  last_print_s_ = t;
  const size_t total = sweep_.runs.size();
  const size_t left = total - reused_ - done_;
  std::string eta = "-";
  if (done_ > 0 && left > 0) eta = duration_text((t - started_s_) / done_ * left);
  std::fprintf(
      stderr, "\r\033[K%s: %zu/%zu runs done (%zu reused), %zu failed, %zu running, ETA %s",
      options_.command.c_str(), reused_ + done_, total, reused_, failed_, running_, eta.c_str());
  if (final) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

void SweepDriver::worker() {
  while (auto i = next())
    record(*i,
           execute_sweep_run(sweep_, *i, options_.out_dir, options_.interrupted,
                             {own_progress() ? run_name(*i) + ": " : "", options_.keep_incomplete,
                              options_.threads, options_.partitions}));
}

void SweepDriver::run_local(unsigned jobs, const std::function<bool()>& poll) {
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < jobs; ++t) threads.emplace_back([this] { worker(); });
  for (bool more = true; more;) {
    more = poll();
    {
      std::lock_guard lock(mutex_);
      more |= running_ > 0 || (next_pending_ < pending_.size() &&
                               !(options_.interrupted && options_.interrupted->load()));
    }
    print_progress(false);
    if (more) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (auto& t : threads) t.join();
}

int SweepDriver::finish() {
  print_progress(true);
  write_sweep_outputs(sweep_, outcomes_, options_.out_dir);
  size_t finished = 0;
  for (const auto& o : outcomes_) finished += o.ok();
  std::printf(
      "sweep %s: %zu points x %zu schemes x %zu seeds = %zu runs: %zu finished (%zu reused), "
      "%zu failed%s\n",
      sweep_.file.c_str(), sweep_.points.size(), sweep_.schemes.size(), sweep_.seeds.size(),
      sweep_.runs.size(), finished, reused_, failed_,
      finished + failed_ < sweep_.runs.size() ? ", the rest not run (rerun to finish)" : "");
  std::printf("results in %s/ (sweep.csv, runs.csv, runs/)\n", options_.out_dir.c_str());
  if (options_.interrupted && options_.interrupted->load()) return 130;
  return failed_ > 0 ? 3 : 0;
}

int run_sweep_local(const Sweep& sweep, const SweepOptions& options, const SweepFinish& finish) {
  SweepDriver driver(sweep, options);
  driver.run_local(std::max(1u, options.jobs), [] { return false; });
  return finish(driver);
}

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* v = std::getenv(var);
    if (v && std::atoi(v) > 1) return true;
  }
  return false;
}

#ifndef ROCELAB_HAVE_MPI
int run_sweep_mpi(const Sweep&, SweepOptions, int*, char***, const SweepFinish&) {
  throw std::runtime_error(
      "started by mpirun, but this rocelab was built without MPI (install libopenmpi-dev and "
      "rebuild); run the sweep without mpirun to use the local cores");
}
#endif

}  // namespace rocelab
