// HDF5 helpers: an RAII owner for hid_t handles, return-code checks that name the call and
// quote HDF5's innermost error message, and a switch that silences HDF5's automatic printing
// of its error stack (miniapp reports errors itself, once, in its own words).
#pragma once

#include <hdf5.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace miniapp {

/// An HDF5 call failed. The message names the call and quotes HDF5's innermost error.
class Hdf5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Turn off HDF5's automatic error-stack printing for the default stack. Not collective;
/// idempotent.
void hdf5_silence_errors();

/// The innermost message on HDF5's current error stack ("" when empty). Not collective.
std::string hdf5_error_text();

/// Throw Hdf5Error naming `what` when rc is negative.
inline void h5check(herr_t rc, const std::string& what) {
  if (rc < 0) {
    const std::string detail = hdf5_error_text();
    throw Hdf5Error(what + " failed" + (detail.empty() ? "" : " (HDF5: " + detail + ")"));
  }
}

/// Owns one HDF5 identifier (file, group, dataset, dataspace, datatype, attribute or property
/// list) and closes it with the matching H5?close on destruction (errors ignored there: call
/// close() where a failure must be seen, e.g. on a file being written).
class H5Handle {
 public:
  H5Handle() = default;
  /// Take ownership of id; throws Hdf5Error naming `what` when id is negative.
  H5Handle(hid_t id, const std::string& what) : id_(id) {
    if (id_ < 0) {
      id_ = H5I_INVALID_HID;
      h5check(-1, what);
    }
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  H5Handle(H5Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  H5Handle& operator=(H5Handle&& o) noexcept {
    if (this != &o) {
      release();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  ~H5Handle() { release(); }

  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }  // NOLINT: handles are passed straight to H5 calls

  /// Forget the identifier without closing it: after a failed collective operation the ranks
  /// may no longer agree on a collective close, which would hang; the process aborts instead.
  void abandon() noexcept { id_ = H5I_INVALID_HID; }

  /// Close now and throw Hdf5Error naming `what` when HDF5 reports a failure.
  void close(const std::string& what) {
    h5check(close_id(std::exchange(id_, H5I_INVALID_HID)), what);
  }

 private:
  static herr_t close_id(hid_t id) {
    if (id < 0) return 0;
    switch (H5Iget_type(id)) {
      case H5I_FILE:
        return H5Fclose(id);
      case H5I_GROUP:
        return H5Gclose(id);
      case H5I_DATASET:
        return H5Dclose(id);
      case H5I_DATASPACE:
        return H5Sclose(id);
      case H5I_DATATYPE:
        return H5Tclose(id);
      case H5I_ATTR:
        return H5Aclose(id);
      case H5I_GENPROP_LST:
        return H5Pclose(id);
      default:
        return H5Idec_ref(id) < 0 ? -1 : 0;
    }
  }
  void release() noexcept { close_id(std::exchange(id_, H5I_INVALID_HID)); }

  hid_t id_ = H5I_INVALID_HID;
};

}  // namespace miniapp
