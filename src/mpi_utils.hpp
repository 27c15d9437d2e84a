// Small MPI helpers: return-code checks that name the call, and RAII owners for handles.
#pragma once

#include <mpi.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace miniapp {

/// Call before MPI_Init. Open MPI 4.1's default MPI-IO component, OMPIO, lost parts of
/// collective HDF5 checkpoint writes from 8 oversubscribed ranks on the project machine (cells
/// read back as zeros in 5 of 12 tries; tests/checkpoint_restart.sh caught it) and reads
/// strided selections about 8x slower than ROMIO. So exclude it, unless the user chose an I/O
/// component (OMPI_MCA_io set). Other MPI libraries ignore the variable.
inline void prefer_romio() { setenv("OMPI_MCA_io", "^ompio", 0); }

/// Throw std::runtime_error naming the MPI call when rc is not MPI_SUCCESS.
inline void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + " failed: " + std::string(text, len));
}

/// Owns an MPI communicator (freed on destruction unless it is a predefined one).
class CommHandle {
 public:
  CommHandle() = default;
  explicit CommHandle(MPI_Comm c) : comm_(c) {}
  CommHandle(const CommHandle&) = delete;
  CommHandle& operator=(const CommHandle&) = delete;
  CommHandle(CommHandle&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  CommHandle& operator=(CommHandle&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
    }
    return *this;
  }
  ~CommHandle() { reset(); }
  MPI_Comm get() const { return comm_; }
  void reset() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm_ != MPI_COMM_NULL && comm_ != MPI_COMM_WORLD && comm_ != MPI_COMM_SELF)
      MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

/// Owns a committed MPI datatype.
class TypeHandle {
 public:
  TypeHandle() = default;
  explicit TypeHandle(MPI_Datatype t) : type_(t) {}
  TypeHandle(const TypeHandle&) = delete;
  TypeHandle& operator=(const TypeHandle&) = delete;
  TypeHandle(TypeHandle&& o) noexcept : type_(std::exchange(o.type_, MPI_DATATYPE_NULL)) {}
  TypeHandle& operator=(TypeHandle&& o) noexcept {
    if (this != &o) {
      reset();
      type_ = std::exchange(o.type_, MPI_DATATYPE_NULL);
    }
    return *this;
  }
  ~TypeHandle() { reset(); }
  MPI_Datatype get() const { return type_; }
  void reset() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
    type_ = MPI_DATATYPE_NULL;
  }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace miniapp
