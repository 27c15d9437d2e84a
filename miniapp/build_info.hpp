// Provenance of a run: what was built (version, git commit, compiler, flags) and what it ran
// with (Kokkos, MPI and HDF5 versions as the libraries report them at run time).
#pragma once

#include <string>

namespace miniapp {

struct BuildInfo {
  std::string version;       ///< project(VERSION)
  std::string git_describe;  ///< `git describe --always --dirty --tags` at configure time
  std::string git_commit;    ///< full hash, or "unknown" outside a git checkout
  std::string compiler_id;   ///< CMake's compiler id, e.g. GNU
  std::string compiler_version;
  std::string cxx_flags;  ///< CMAKE_CXX_FLAGS + flags of the build type
  std::string build_type;
  std::string extra_flags;     ///< flags every miniapp target adds (no FMA contraction)
  std::string kokkos_version;  ///< e.g. 3.4.1
  std::string kokkos_backend;  ///< default execution space, e.g. OpenMP
  std::string line_kernels;    ///< the line kernels' ISA: AVX-512, AVX2 or portable
  std::string mpi_library;     ///< MPI_Get_library_version, first line
  std::string mpi_standard;    ///< MPI_Get_version, e.g. 3.1
  std::string hdf5_version;    ///< H5get_libversion, e.g. 1.10.8
};

/// Collect the build and library information. Not collective (calls MPI query functions).
BuildInfo build_info();

}  // namespace miniapp
