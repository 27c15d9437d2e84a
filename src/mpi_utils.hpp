// Small MPI helpers: return-code checks that name the call, RAII owners for handles, and the
// agreement of all ranks on an error that only some of them saw.
#pragma once

#include <mpi.h>

#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace miniapp {

/// Call before MPI_Init. Open MPI 4.1's default MPI-IO component, OMPIO, can lose parts of
/// collective HDF5 writes from oversubscribed ranks (cells read back as zeros; the restart
/// tests catch it) and reads strided selections several times slower than ROMIO. So exclude
/// it, unless the user chose an I/O component (OMPI_MCA_io set). Other MPI libraries ignore
/// the variable.
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

/// This rank's place among the ranks that share its node (its shared-memory domain).
struct NodePlace {
  int rank = 0;  ///< rank among them
  int size = 1;  ///< how many they are
};

/// Where this rank sits on its node (MPI_COMM_TYPE_SHARED). Collective over comm.
NodePlace place_on_node(MPI_Comm comm);

/// min / avg / max of one per-rank quantity over the ranks of a communicator.
struct Stat {
  double min = 0, avg = 0, max = 0;
};

/// Reduce a per-rank value to min/avg/max over comm (result on every rank). Collective.
Stat reduce_stat(double value, MPI_Comm comm);

/// The ranks' agreement on an error: `first` is "rank R: text" of the lowest rank R that saw
/// one ("" when none did). `reached` is false only on a rank with an error whose partners did
/// not come to the agreement in time (they are stuck in a collective call it left).
struct Agreement {
  bool reached = true;
  std::string first;
};

/// Agree on the first error of all ranks of comm; `local` is this rank's ("" for none).
/// Collective. A rank without an error waits as long as it takes (slow is not failed); a rank
/// with one waits at most `grace_seconds` and then returns reached = false.
Agreement agree_on_error(const std::string& local, MPI_Comm comm, double grace_seconds);

/// Run f on every rank of comm; when it throws on any rank, throw Error(first error) on every
/// rank, so that the next collective call is reached by all ranks or by none. A rank whose
/// partners do not come to the agreement within `grace_seconds` throws Error(its own error,
/// false) alone. Error is constructible from (std::string) and (std::string, bool agreed).
template <class Error, class F>
void all_or_none(MPI_Comm comm, double grace_seconds, F&& f) {
  std::string err;
  try {
    f();
  } catch (const std::exception& e) {
    err = *e.what() ? e.what() : "unknown error";
  }
  const Agreement agreement = agree_on_error(err, comm, grace_seconds);
  if (!agreement.reached) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    throw Error("rank " + std::to_string(rank) + ": " + err +
                    "; the other ranks did not reach the error agreement within " +
                    std::to_string(int(grace_seconds)) +
                    " s (stuck in a collective call this rank left)",
                false);
  }
  if (!agreement.first.empty()) throw Error(agreement.first);
}

}  // namespace miniapp
