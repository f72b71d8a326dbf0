// One run over MPI ranks (`mpirun -np K rocelab run S.yaml`, issue 52): the ranks as the
// simulator's RankGroup (sim/ranks.h). Built only with MPI (cli/rank_mpi.cc); without it,
// start_mpi_ranks throws, naming what to install.
#pragma once

#include <memory>

#include "sim/ranks.h"

namespace rocelab {

// MPI_Init (threads may call MPI one at a time: a window's last thread to finish trades
// with the other ranks) and MPI_COMM_WORLD as a group. Call once.
std::unique_ptr<RankGroup> start_mpi_ranks(int* argc, char*** argv);
void finish_mpi_ranks();
// Ends every rank at once (an error on one would leave the others waiting).
[[noreturn]] void abort_mpi_ranks(int status);

}  // namespace rocelab
