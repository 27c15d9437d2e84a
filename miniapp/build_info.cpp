#include "build_info.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "build_info_generated.hpp"
#include "stencil_line.hpp"
#include "version.hpp"

namespace miniapp {

BuildInfo build_info() {
  BuildInfo b;
  b.version = kVersion;
  b.git_describe = MINIAPP_GIT_DESCRIBE;
  b.git_commit = MINIAPP_GIT_COMMIT;
  b.compiler_id = MINIAPP_CXX_COMPILER_ID;
  b.compiler_version = MINIAPP_CXX_COMPILER_VERSION;
  b.cxx_flags = MINIAPP_CXX_FLAGS;
  b.build_type = MINIAPP_BUILD_TYPE;
  b.extra_flags = MINIAPP_EXTRA_FLAGS;  // see src/CMakeLists.txt

  b.kokkos_version = std::to_string(KOKKOS_VERSION / 10000) + "." +
                     std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                     std::to_string(KOKKOS_VERSION % 100);
  b.kokkos_backend = Kokkos::DefaultExecutionSpace::name();
  b.line_kernels = kLineKernels;

  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(lib, &len) == MPI_SUCCESS) {
    std::string s(lib, std::size_t(len));
    s = s.substr(0, s.find_first_of("\r\n"));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    b.mpi_library = s;
  }
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  b.mpi_standard = std::to_string(major) + "." + std::to_string(minor);

  unsigned hmaj = 0, hmin = 0, hrel = 0;
  if (H5get_libversion(&hmaj, &hmin, &hrel) >= 0)
    b.hdf5_version = std::to_string(hmaj) + "." + std::to_string(hmin) + "." + std::to_string(hrel);
  return b;
}

}  // namespace miniapp
