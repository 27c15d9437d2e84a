#include "hdf5_handle.hpp"

namespace miniapp {

void hdf5_silence_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string hdf5_error_text() {
  std::string text;
  // Walk from the innermost error outwards and keep the first description: the root cause.
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        auto* out = static_cast<std::string*>(data);
        if (n == 0 && e->desc) *out = e->desc;
        return 0;
      },
      &text);
  H5Eclear2(H5E_DEFAULT);
  return text;
}

}  // namespace miniapp
