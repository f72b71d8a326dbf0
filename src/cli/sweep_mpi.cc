// `mpirun -np N rocelab sweep`: rank 0 hands out runs one at a time as ranks free up (so a
// slow point never leaves the others idle), collects their outcomes and writes the sweep's
// files. Every rank writes its own run directories; on a file system the ranks do not share,
// rank 0 also stores each remote run's summary and configuration, so a rerun there skips it.
#include <mpi.h>

#include <cstdint>
#include <stdexcept>

#include "cli/sweep_cmd.h"

namespace rocelab {

namespace {

constexpr int kTagRequest = 1;  // rank -> 0: {"index": previous run or -1, "outcome": ...}
constexpr int kTagTask = 2;     // 0 -> rank: int64 run index, -1 = no more

void worker_rank(const Sweep& sweep, const SweepOptions& options) {
  nlohmann::json request = {{"index", -1}};
  for (;;) {
    const std::string text = request.dump();
    MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
    int64_t index = -1;
    MPI_Recv(&index, 1, MPI_INT64_T, 0, kTagTask, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (index < 0) return;
    const RunOutcome outcome =
        execute_sweep_run(sweep, static_cast<size_t>(index), options.out_dir, options.interrupted,
                          {"", options.keep_incomplete, options.threads, options.partitions});
    request = {{"index", index}, {"outcome", outcome.to_json()}};
  }
}

int root_rank(const Sweep& sweep, const SweepOptions& options, int ranks,
              const SweepFinish& finish) {
  SweepDriver driver(sweep, options);
  int active = ranks - 1;
  auto serve = [&] {
    int flag = 0;
    MPI_Status status;
    while (active > 0 &&
           (MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &status), flag)) {
      int length = 0;
      MPI_Get_count(&status, MPI_CHAR, &length);
      std::string text(static_cast<size_t>(length), '\0');
      MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      const nlohmann::json request = nlohmann::json::parse(text);
      const int64_t done = request.at("index").get<int64_t>();
      if (done >= 0) {
        RunOutcome outcome = RunOutcome::from_json(request.at("outcome"));
        store_remote_outcome(sweep, static_cast<size_t>(done), options.out_dir, outcome);
        driver.record(static_cast<size_t>(done), std::move(outcome));
      }
      const auto next = driver.next();
      const int64_t index = next ? static_cast<int64_t>(*next) : -1;
      if (index < 0) --active;
      MPI_Send(&index, 1, MPI_INT64_T, status.MPI_SOURCE, kTagTask, MPI_COMM_WORLD);
    }
    return active > 0;
  };
  driver.run_local(options.jobs, serve);
  return finish(driver);
}

}  // namespace

int run_sweep_mpi(const Sweep& sweep, SweepOptions options, int* argc, char*** argv,
                  const SweepFinish& finish) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 0;
  try {
    if (rank == 0) {
      status = root_rank(sweep, options, ranks, finish);
    } else {
      options.quiet = true;
      worker_rank(sweep, options);
    }
  } catch (...) {
    MPI_Abort(MPI_COMM_WORLD, 1);
    throw;
  }
  MPI_Finalize();
  return status;
}

}  // namespace rocelab
