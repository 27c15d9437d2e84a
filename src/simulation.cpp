#include "simulation.hpp"

#include <string>

#include "stencil.hpp"

namespace miniapp {

Index3 resolve_rank_grid(const Config& config, int nranks) {
  const Index3 dims =
      Decomposition::choose_dims(nranks, config.grid, config.ranks, config.halo_width);
  if (dims[0] == 0) {
    throw ConfigError("no rank grid for " + std::to_string(nranks) + " ranks fits --grid " +
                      std::to_string(config.grid[0]) + " " + std::to_string(config.grid[1]) +
                      " " + std::to_string(config.grid[2]) + " with at least " +
                      std::to_string(config.halo_width) + " cell(s) per rank per dimension" +
                      " (--ranks " + std::to_string(config.ranks[0]) + " " +
                      std::to_string(config.ranks[1]) + " " + std::to_string(config.ranks[2]) +
                      ")");
  }
  return dims;
}

Simulation::Simulation(const Config& config, MPI_Comm comm)
    : config_(config), a_(config.coefficients()) {
  int nranks = 0;
  MPI_Comm_size(comm, &nranks);
  const Index3 dims = resolve_rank_grid(config, nranks);
  std::array<bool, 3> periodic;
  for (int d = 0; d < 3; ++d) periodic[d] = config.bc[d] == Boundary::Periodic;
  decomp_ = std::make_unique<Decomposition>(comm, config.grid, dims, periodic);

  u_ = Field("miniapp::u", decomp_->owned(), config.halo_width);
  v_ = Field("miniapp::v", decomp_->owned(), config.halo_width);
  fill_initial(u_, InitialCondition::from(config));
  fill_zero(v_);
  halo_ = std::make_unique<HaloExchange>(*decomp_, u_, config.bc, config.bc_value);
}

void Simulation::run(std::int64_t steps) {
  Kokkos::Profiling::pushRegion("miniapp::run");
  const Box interior = u_.interior();
  const double t_loop = MPI_Wtime();
  for (std::int64_t s = 0; s < steps; ++s) {
    double t = MPI_Wtime();
    halo_->exchange(u_);
    times_.halo += MPI_Wtime() - t;

    t = MPI_Wtime();
    apply_stencil7(u_, v_, interior, a_);
    Kokkos::fence();
    times_.stencil += MPI_Wtime() - t;

    std::swap(u_, v_);
  }
  times_.loop += MPI_Wtime() - t_loop;
  steps_done_ += steps;
  Kokkos::Profiling::popRegion();
}

FieldSummary Simulation::summary() const {
  return summarize(u_, config_.grid, decomp_->comm());
}

void Simulation::reset_timers() {
  times_ = {};
  halo_->reset_counters();
}

}  // namespace miniapp
