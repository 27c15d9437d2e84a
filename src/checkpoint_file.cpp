#include "checkpoint_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>
#include <utility>

#include "diagnostics.hpp"
#include "hdf5_handle.hpp"
#include "names.hpp"
#include "text.hpp"
#include "version.hpp"

namespace miniapp {

namespace {

constexpr const char* kDataset = "field";
constexpr const char* kAxisOrder = "z,y,x (C order, x fastest; h5py u[z, y, x])";

std::string errno_text() { return std::strerror(errno); }

// ---- HDF5 property lists --------------------------------------------------------------------

H5Handle mpio_file_access(MPI_Comm comm, const CheckpointTunables& t) {
  H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate(file access)");
  MPI_Info info = MPI_INFO_NULL;
  mpi_check(MPI_Info_create(&info), "MPI_Info_create");
  if (t.cb_nodes > 0) MPI_Info_set(info, "cb_nodes", std::to_string(t.cb_nodes).c_str());
  if (t.cb_buffer > 0) MPI_Info_set(info, "cb_buffer_size", std::to_string(t.cb_buffer).c_str());
  MPI_Info_set(info, "romio_cb_write", t.cb_write.c_str());
  const herr_t rc = H5Pset_fapl_mpio(fapl, comm, info);  // duplicates comm and info
  MPI_Info_free(&info);
  h5check(rc, "H5Pset_fapl_mpio");
  if (t.alignment > 1)
    h5check(H5Pset_alignment(fapl, hsize_t(t.alignment), hsize_t(t.alignment)), "H5Pset_alignment");
  // Metadata read and written collectively: one rank touches the file, the others listen.
  h5check(H5Pset_all_coll_metadata_ops(fapl, true), "H5Pset_all_coll_metadata_ops");
  h5check(H5Pset_coll_metadata_write(fapl, true), "H5Pset_coll_metadata_write");
  return fapl;
}

H5Handle collective_transfer() {
  H5Handle dxpl(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate(transfer)");
  h5check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  return dxpl;
}

/// File and memory dataspaces selecting this rank's block: the owned global box in the
/// [NZ][NY][NX] file dataset, the interior [h, h+n) of the padded local block in memory.
std::pair<H5Handle, H5Handle> block_selections(hid_t file_space, const Field& u) {
  const Index3& lo = u.owned().lo;
  const Index3& n = u.n();
  const Index3& e = u.ext();
  const hsize_t h = hsize_t(u.halo());
  const hsize_t count[3] = {hsize_t(n[2]), hsize_t(n[1]), hsize_t(n[0])};
  const hsize_t file_start[3] = {hsize_t(lo[2]), hsize_t(lo[1]), hsize_t(lo[0])};
  H5Handle fs(H5Scopy(file_space), "H5Scopy");
  h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, file_start, nullptr, count, nullptr),
          "H5Sselect_hyperslab(file)");
  const hsize_t padded[3] = {hsize_t(e[2]), hsize_t(e[1]), hsize_t(e[0])};
  const hsize_t mem_start[3] = {h, h, h};
  H5Handle ms(H5Screate_simple(3, padded, nullptr), "H5Screate_simple(memory)");
  h5check(H5Sselect_hyperslab(ms, H5S_SELECT_SET, mem_start, nullptr, count, nullptr),
          "H5Sselect_hyperslab(memory)");
  return {std::move(fs), std::move(ms)};
}

// ---- attributes -----------------------------------------------------------------------------

void write_attr(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, hsize_t n,
                const void* data) {
  H5Handle space(n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr),
                 std::string("H5Screate(attribute ") + name + ")");
  H5Handle attr(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT),
                std::string("H5Acreate2(") + name + ")");
  h5check(H5Awrite(attr, mem_type, data), std::string("H5Awrite(") + name + ")");
}

H5Handle string_type(std::size_t size) {
  H5Handle t(H5Tcopy(H5T_C_S1), "H5Tcopy(string)");
  h5check(H5Tset_size(t, std::max<std::size_t>(size, 1)), "H5Tset_size");
  h5check(H5Tset_strpad(t, H5T_STR_NULLTERM), "H5Tset_strpad");
  return t;
}

void write_attr_string(hid_t obj, const char* name, const std::string& value) {
  const H5Handle t = string_type(value.size() + 1);
  write_attr(obj, name, t, t, 0, value.c_str());
}

void write_attr_strings3(hid_t obj, const char* name, const std::array<std::string, 3>& v) {
  std::size_t width = 0;
  for (const auto& s : v) width = std::max(width, s.size() + 1);
  std::string packed(3 * width, '\0');
  for (int i = 0; i < 3; ++i) packed.replace(i * width, v[i].size(), v[i]);
  const H5Handle t = string_type(width);
  write_attr(obj, name, t, t, 3, packed.data());
}

/// Thrown while probing a file: the reason it cannot be used.
struct ProbeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

H5Handle open_attr(hid_t obj, const char* name, H5T_class_t cls, hssize_t n) {
  if (H5Aexists(obj, name) <= 0)
    throw ProbeError(std::string("attribute '") + name + "' is missing");
  H5Handle attr(H5Aopen(obj, name, H5P_DEFAULT), std::string("H5Aopen(") + name + ")");
  H5Handle type(H5Aget_type(attr), "H5Aget_type");
  H5Handle space(H5Aget_space(attr), "H5Aget_space");
  const hssize_t points = H5Sget_simple_extent_npoints(space);
  if (H5Tget_class(type) != cls || points != n)
    throw ProbeError(std::string("attribute '") + name + "' has the wrong type or size (expected " +
                     (cls == H5T_FLOAT     ? "float"
                      : cls == H5T_INTEGER ? "integer"
                                           : "string") +
                     " x " + std::to_string(n) + ")");
  return attr;
}

template <class T>
void read_attr(hid_t obj, const char* name, T* out, int n) {
  const bool is_float = std::is_floating_point<T>::value;
  H5Handle attr = open_attr(obj, name, is_float ? H5T_FLOAT : H5T_INTEGER, n);
  const hid_t mem = is_float ? H5T_NATIVE_DOUBLE
                             : (std::is_signed<T>::value ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64);
  h5check(H5Aread(attr, mem, out), std::string("H5Aread(") + name + ")");
}

/// n fixed-length (or, for n = 1, variable-length) strings.
std::vector<std::string> read_attr_strings(hid_t obj, const char* name, int n) {
  H5Handle attr = open_attr(obj, name, H5T_STRING, n);
  H5Handle type(H5Aget_type(attr), "H5Aget_type");
  std::vector<std::string> out;
  if (H5Tis_variable_str(type) > 0) {
    if (n != 1) throw ProbeError(std::string("attribute '") + name + "' has the wrong type");
    H5Handle mem(H5Tcopy(H5T_C_S1), "H5Tcopy");
    h5check(H5Tset_size(mem, H5T_VARIABLE), "H5Tset_size");
    char* value = nullptr;
    h5check(H5Aread(attr, mem, &value), std::string("H5Aread(") + name + ")");
    out.emplace_back(value ? value : "");
    H5free_memory(value);
    return out;
  }
  const std::size_t width = H5Tget_size(type);
  std::string buf(width * std::size_t(n), '\0');
  h5check(H5Aread(attr, type, buf.data()), std::string("H5Aread(") + name + ")");
  for (int i = 0; i < n; ++i) {
    const std::string s = buf.substr(i * width, width);
    out.push_back(s.substr(0, s.find('\0')));
  }
  return out;
}

/// The value named `name` in an enum's table; ProbeError naming the attribute when unknown.
template <class E, std::size_t N>
E parse_name(const std::string& attr, const std::string& name, const NameTable<E, N>& table) {
  if (const std::optional<E> e = value_of(table, name)) return *e;
  throw ProbeError("attribute '" + attr + "' has the unknown value '" + name + "'");
}

void copy_cstr(char* dst, std::size_t size, const std::string& src) {
  std::memset(dst, 0, size);  // the last byte stays 0: at most size - 1 are copied
  src.copy(dst, std::min(size - 1, src.size()));
}

}  // namespace

std::string xdmf(const CheckpointMeta& m, const std::string& h5_name) {
  const Index3& g = m.problem.grid;
  std::ostringstream os;
  os.precision(17);
  os << "<?xml version=\"1.0\" ?>\n"
     << "<!-- miniapp checkpoint " << h5_name << ": cell-centred field u on a uniform grid.\n"
     << "     XDMF lists dimensions slowest first: z y x. -->\n"
     << "<Xdmf Version=\"3.0\">\n <Domain>\n  <Grid Name=\"miniapp\" GridType=\"Uniform\">\n"
     << "   <Time Value=\"" << m.time << "\"/>\n"
     << "   <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << g[2] + 1 << " " << g[1] + 1
     << " " << g[0] + 1 << "\"/>\n"
     << "   <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
     << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
        "Format=\"XML\">0 0 0</DataItem>\n"
     << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
     << m.problem.spacing[2] << " " << m.problem.spacing[1] << " " << m.problem.spacing[0]
     << "</DataItem>\n"
     << "   </Geometry>\n"
     << "   <Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
     << "    <DataItem Dimensions=\"" << g[2] << " " << g[1] << " " << g[0]
     << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5_name << ":/" << kDataset
     << "</DataItem>\n"
     << "   </Attribute>\n  </Grid>\n </Domain>\n</Xdmf>\n";
  return os.str();
}

// ---- public API -------------------------------------------------------------------------------

CheckpointMeta make_checkpoint_meta(const Problem& problem, std::int64_t step,
                                    const Index3& ranks) {
  CheckpointMeta m;
  m.step = step;
  m.time = double(step) * problem.dt;
  m.problem = problem;
  m.writer_ranks = ranks;
  copy_cstr(m.version, sizeof m.version, kVersion);
  return m;
}

void write_field_file(const std::string& path, const Field& u, const CheckpointMeta& m,
                      const CheckpointTunables& t, MPI_Comm comm, const Spectrum* spectrum,
                      const BeforeWrite& before_write) {
  const Problem& p = m.problem;
  hdf5_silence_errors();
  // The host copy of the field: the field itself when it lives in host memory (no copy).
  const auto host = Kokkos::create_mirror_view(u.view());
  Kokkos::deep_copy(host, u.view());
  Kokkos::fence();

  H5Handle file, dset, file_space;
  try {
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      const H5Handle fapl = mpio_file_access(comm, t);
      file = H5Handle(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl),
                      "H5Fcreate(" + path + ")");
    });
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      const hsize_t dims[3] = {hsize_t(p.grid[2]), hsize_t(p.grid[1]), hsize_t(p.grid[0])};
      file_space = H5Handle(H5Screate_simple(3, dims, nullptr), "H5Screate_simple(file)");
      H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate(dataset create)");
      // Every cell is written: no fill values (they would double the bytes written).
      h5check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
      h5check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "H5Pset_alloc_time");
      if (t.chunked) {
        hsize_t chunk[3];
        for (int d = 0; d < 3; ++d) {
          const int parts = std::max(1, m.writer_ranks[d]);
          chunk[2 - d] = hsize_t((p.grid[d] + parts - 1) / parts);
        }
        h5check(H5Pset_chunk(dcpl, 3, chunk), "H5Pset_chunk");
      }
      dset = H5Handle(
          H5Dcreate2(file, kDataset, H5T_IEEE_F64LE, file_space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
          "H5Dcreate2(field)");
      write_attr_string(dset, "axis_order", kAxisOrder);

      // Root attributes: enough to restart without the input file and to say what it holds.
      const std::int64_t grid[3] = {p.grid[0], p.grid[1], p.grid[2]};
      const std::int64_t ranks[3] = {m.writer_ranks[0], m.writer_ranks[1], m.writer_ranks[2]};
      write_attr(file, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &m.step);
      write_attr(file, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &m.time);
      write_attr(file, "grid_xyz", H5T_STD_I64LE, H5T_NATIVE_INT64, 3, grid);
      write_attr(file, "spacing_xyz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, p.spacing.data());
      write_attr(file, "kappa_xyz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, p.kappa.data());
      write_attr(file, "dt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &p.dt);
      write_attr_strings3(file, "bc_xyz",
                          {to_string(p.bc[0]), to_string(p.bc[1]), to_string(p.bc[2])});
      write_attr(file, "bc_value", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &p.bc_value);
      write_attr_string(file, "stencil", stencil_name(p.stencil));
      write_attr_string(file, "init", to_string(p.init));
      write_attr(file, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &p.seed);
      write_attr_string(file, "miniapp_version", m.version);
      write_attr(file, "writer_ranks_xyz", H5T_STD_I64LE, H5T_NATIVE_INT64, 3, ranks);
      write_attr_string(file, "digest", digest_hex(m.digest));
    });
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      auto [fs, ms] = block_selections(file_space, u);
      const H5Handle dxpl = collective_transfer();
      if (before_write) before_write(m.step, path);
      h5check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, ms, fs, dxpl, host.data()),
              "H5Dwrite(" + path + ")");
    });
    if (spectrum && spectrum->step >= 0) {
      // The spectrum is the same on every rank: rank 0 writes it, the others select nothing
      // (the datasets' creation and the write calls are still collective).
      all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        const auto write_1d = [&](const char* name, const std::vector<double>& values) {
          const hsize_t n = values.size();
          H5Handle space(H5Screate_simple(1, &n, nullptr),
                         std::string("H5Screate_simple(") + name + ")");
          H5Handle mem(H5Screate_simple(1, &n, nullptr),
                       std::string("H5Screate_simple(") + name + " memory)");
          H5Handle ds(
              H5Dcreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
              std::string("H5Dcreate2(") + name + ")");
          if (rank != 0) {
            h5check(H5Sselect_none(space), "H5Sselect_none");
            h5check(H5Sselect_none(mem), "H5Sselect_none");
          }
          const H5Handle dxpl = collective_transfer();
          h5check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space, dxpl, values.data()),
                  std::string("H5Dwrite(") + name + ")");
          return ds;
        };
        H5Handle ds = write_1d("spectrum", spectrum->energy);
        write_attr(ds, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &spectrum->step);
        write_attr(ds, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &spectrum->time);
        write_attr_string(ds, "time_units", "s");
        write_attr_string(ds, "k_units", spectrum->k_units);
        write_attr_string(ds, "definition",
                          "E(s) = 1/2 sum over the modes k with round(|k|/dk) = s of "
                          "|FFT(u)(k)/N|^2, s = 0, 1, ...; shell s at |k| = spectrum_k[s] = s dk");
        ds.close("H5Dclose(spectrum)");
        if (!spectrum->k.empty()) {
          H5Handle dk = write_1d("spectrum_k", spectrum->k);
          write_attr_string(dk, "units", spectrum->k_units);
          dk.close("H5Dclose(spectrum_k)");
        }
      });
    }
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      dset.close("H5Dclose(field)");
      h5check(H5Fflush(file, H5F_SCOPE_GLOBAL), "H5Fflush(" + path + ")");
      file.close("H5Fclose(" + path + ")");
    });
  } catch (const CheckpointError&) {
    // Closing collectively after a failure can hang (the ranks' HDF5 states may differ):
    // leave the file open; the caller ends the job with MPI_Abort.
    dset.abandon();
    file_space.abandon();
    file.abandon();
    throw;
  }
}

void read_field_file(const std::string& path, Field& u, const Index3& global, MPI_Comm comm) {
  hdf5_silence_errors();
  const auto host = Kokkos::create_mirror_view(u.view());
  Kokkos::deep_copy(host, u.view());
  H5Handle file, dset;
  try {
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      const H5Handle fapl = mpio_file_access(comm, CheckpointTunables{});
      file = H5Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl), "H5Fopen(" + path + ")");
      dset = H5Handle(H5Dopen2(file, kDataset, H5P_DEFAULT), "H5Dopen2(field)");
    });
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      H5Handle space(H5Dget_space(dset), "H5Dget_space");
      hsize_t dims[3] = {0, 0, 0};
      if (H5Sget_simple_extent_ndims(space) != 3 ||
          H5Sget_simple_extent_dims(space, dims, nullptr) != 3 || dims[0] != hsize_t(global[2]) ||
          dims[1] != hsize_t(global[1]) || dims[2] != hsize_t(global[0]))
        throw std::runtime_error("dataset 'field' does not have the shape of the grid");
      auto [fs, ms] = block_selections(space, u);
      const H5Handle dxpl = collective_transfer();
      h5check(H5Dread(dset, H5T_NATIVE_DOUBLE, ms, fs, dxpl, host.data()), "H5Dread");
    });
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      dset.close("H5Dclose(field)");
      file.close("H5Fclose");
    });
  } catch (const CheckpointError& e) {
    // As when writing: no collective close after a failure; the caller aborts.
    dset.abandon();
    file.abandon();
    throw CheckpointError("reading " + path + " failed: " + e.what(), e.agreed());
  }
  Kokkos::deep_copy(u.view(), host);
  Kokkos::fence();
}

std::string probe_checkpoint_file(const std::string& path, CheckpointMeta& m) {
  hdf5_silence_errors();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "cannot open the file: " + errno_text();
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return "not an HDF5 file";
  }
  try {
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "H5Fopen");
    // Attributes first: the dataset is checked against the grid they describe.
    std::int64_t grid[3], ranks[3];
    read_attr(file, "step", &m.step, 1);
    read_attr(file, "time", &m.time, 1);
    read_attr(file, "grid_xyz", grid, 3);
    Problem& p = m.problem;
    read_attr(file, "spacing_xyz", p.spacing.data(), 3);
    read_attr(file, "kappa_xyz", p.kappa.data(), 3);
    read_attr(file, "dt", &p.dt, 1);
    const auto bc = read_attr_strings(file, "bc_xyz", 3);
    read_attr(file, "bc_value", &p.bc_value, 1);
    const std::string stencil = read_attr_strings(file, "stencil", 1)[0];
    const std::string init = read_attr_strings(file, "init", 1)[0];
    read_attr(file, "seed", &p.seed, 1);
    copy_cstr(m.version, sizeof m.version, read_attr_strings(file, "miniapp_version", 1)[0]);
    read_attr(file, "writer_ranks_xyz", ranks, 3);
    const std::string digest = read_attr_strings(file, "digest", 1)[0];

    for (int d = 0; d < 3; ++d) {
      if (grid[d] < 1 || grid[d] > (std::int64_t(1) << 30))
        throw ProbeError("attribute 'grid_xyz' holds the impossible size " + str(grid[d]));
      p.grid[d] = int(grid[d]);
      m.writer_ranks[d] = int(ranks[d]);
      p.bc[d] = parse_name("bc_xyz", bc[d], kBoundaryNames);
    }
    p.init = parse_name("init", init, kInitNames);
    if (stencil != stencil_name(7) && stencil != stencil_name(27))
      throw ProbeError("attribute 'stencil' has the unknown value '" + stencil + "'");
    p.stencil = stencil == stencil_name(27) ? 27 : 7;
    if (m.step < 0) throw ProbeError("attribute 'step' is negative (" + str(m.step) + ")");
    char* end = nullptr;
    m.digest = std::strtoull(digest.c_str(), &end, 16);
    if (digest.size() != 16 || *end != '\0')
      throw ProbeError("attribute 'digest' is not 16 hex digits ('" + digest + "')");

    if (H5Lexists(file, kDataset, H5P_DEFAULT) <= 0)
      throw ProbeError(std::string("there is no dataset '") + kDataset + "'");
    H5Handle dset(H5Dopen2(file, kDataset, H5P_DEFAULT), "H5Dopen2(field)");
    H5Handle type(H5Dget_type(dset), "H5Dget_type");
    if (H5Tget_class(type) != H5T_FLOAT || H5Tget_size(type) != 8)
      throw ProbeError("dataset 'field' is not 64-bit floating point");
    H5Handle space(H5Dget_space(dset), "H5Dget_space");
    hsize_t dims[3] = {0, 0, 0};
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank != 3 || H5Sget_simple_extent_dims(space, dims, nullptr) != 3 ||
        dims[0] != hsize_t(p.grid[2]) || dims[1] != hsize_t(p.grid[1]) ||
        dims[2] != hsize_t(p.grid[0])) {
      std::string shape;
      for (int d = 0; d < std::min(rank, 3); ++d) shape += (d ? " x " : "") + str(dims[d]);
      throw ProbeError("dataset 'field' has shape [" + shape + "] (z y x), but grid_xyz says " +
                       joined(p.grid) + " (expected [" + str(p.grid[2]) + " x " + str(p.grid[1]) +
                       " x " + str(p.grid[0]) + "])");
    }
    H5Handle dcpl(H5Dget_create_plist(dset), "H5Dget_create_plist");
    if (H5Pget_nfilters(dcpl) != 0)
      throw ProbeError("dataset 'field' is compressed/filtered; miniapp reads unfiltered data");
  } catch (const std::exception& e) {
    H5Eclear2(H5E_DEFAULT);
    std::string what = e.what();
    if (dynamic_cast<const ProbeError*>(&e)) return what;
    return "not a readable miniapp checkpoint (truncated or damaged?): " + what;
  }
  return "";
}

}  // namespace miniapp
