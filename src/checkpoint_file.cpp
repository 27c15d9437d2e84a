#include "checkpoint_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <type_traits>
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
/// [NZ][NY][NX] file dataset, the interior [h, h+n) of the padded local block in the storage
/// (Field::storage_ext) in memory.
std::pair<H5Handle, H5Handle> block_selections(hid_t file_space, const Field& u) {
  const Index3& lo = u.owned().lo;
  const Index3& n = u.n();
  const Index3 e = u.storage_ext();
  const hsize_t h = hsize_t(u.halo());
  const hsize_t count[3] = {hsize_t(n[2]), hsize_t(n[1]), hsize_t(n[0])};
  const hsize_t file_start[3] = {hsize_t(lo[2]), hsize_t(lo[1]), hsize_t(lo[0])};
  H5Handle fs(H5Scopy(file_space), "H5Scopy");
  h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, file_start, nullptr, count, nullptr),
          "H5Sselect_hyperslab(file)");
  const hsize_t stored[3] = {hsize_t(e[2]), hsize_t(e[1]), hsize_t(e[0])};
  const hsize_t mem_start[3] = {h, h, h};
  H5Handle ms(H5Screate_simple(3, stored, nullptr), "H5Screate_simple(memory)");
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

/// Variable-length UTF-8 strings: h5py returns them as str, h5dump shows them as text.
H5Handle utf8_string_type() {
  H5Handle t(H5Tcopy(H5T_C_S1), "H5Tcopy(string)");
  h5check(H5Tset_size(t, H5T_VARIABLE), "H5Tset_size(variable)");
  h5check(H5Tset_cset(t, H5T_CSET_UTF8), "H5Tset_cset(UTF-8)");
  h5check(H5Tset_strpad(t, H5T_STR_NULLTERM), "H5Tset_strpad");
  return t;
}

void write_attr_string(hid_t obj, const std::string& name, const std::string& value) {
  const H5Handle t = utf8_string_type();
  const char* data = value.c_str();
  write_attr(obj, name.c_str(), t, t, 0, &data);
}

void write_attr_strings3(hid_t obj, const char* name, const std::array<std::string, 3>& v) {
  const H5Handle t = utf8_string_type();
  const char* data[3] = {v[0].c_str(), v[1].c_str(), v[2].c_str()};
  write_attr(obj, name, t, t, 3, data);
}

void write_int64(hid_t obj, const char* name, hsize_t n, const std::int64_t* v) {
  write_attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, n, v);
}

void write_double(hid_t obj, const char* name, hsize_t n, const double* v) {
  write_attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v);
}

/// Attribute NAME_units: the unit of attribute NAME (UDUNITS spelling; "1": dimensionless).
void write_units(hid_t obj, const char* name, const char* units) {
  write_attr_string(obj, std::string(name) + "_units", units);
}

std::array<std::int64_t, 3> as_int64(const Index3& v) { return {v[0], v[1], v[2]}; }

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

/// n strings, fixed-length (format 1) or variable-length (format 2).
std::vector<std::string> read_attr_strings(hid_t obj, const char* name, int n) {
  H5Handle attr = open_attr(obj, name, H5T_STRING, n);
  H5Handle type(H5Aget_type(attr), "H5Aget_type");
  std::vector<std::string> out;
  if (H5Tis_variable_str(type) > 0) {
    H5Handle mem(H5Tcopy(H5T_C_S1), "H5Tcopy");
    h5check(H5Tset_size(mem, H5T_VARIABLE), "H5Tset_size");
    h5check(H5Tset_cset(mem, H5Tget_cset(type)), "H5Tset_cset");
    std::vector<char*> values(std::size_t(n), nullptr);
    h5check(H5Aread(attr, mem, values.data()), std::string("H5Aread(") + name + ")");
    for (char* v : values) {
      out.emplace_back(v ? v : "");
      H5free_memory(v);
    }
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

std::string read_attr_string(hid_t obj, const char* name) {
  return read_attr_strings(obj, name, 1)[0];
}

bool has_attr(hid_t obj, const char* name) { return H5Aexists(obj, name) > 0; }

/// The stencil: the option value 7 or 27 (format 2), or "7-point"/"27-point" (format 1).
int read_stencil(hid_t file) {
  H5Handle attr(H5Aopen(file, "stencil", H5P_DEFAULT), "H5Aopen(stencil)");
  H5Handle type(H5Aget_type(attr), "H5Aget_type");
  std::string text;
  if (H5Tget_class(type) == H5T_INTEGER) {
    std::int64_t points = 0;
    read_attr(file, "stencil", &points, 1);
    text = str(points);
  } else {
    text = read_attr_string(file, "stencil");
  }
  if (text == "7" || text == "7-point") return 7;
  if (text == "27" || text == "27-point") return 27;
  throw ProbeError("attribute 'stencil' has the unknown value '" + text + "'");
}

/// The value named `name` in an enum's table; ProbeError naming the attribute when unknown.
template <class E, std::size_t N>
E parse_name(const std::string& attr, const std::string& name, const NameTable<E, N>& table) {
  if (const std::optional<E> e = value_of(table, name)) return *e;
  throw ProbeError("attribute '" + attr + "' has the unknown value '" + name + "'");
}

/// The defining attributes of m, in file order, as (name, value text).
std::vector<std::pair<std::string, std::string>> defining_attributes(const CheckpointMeta& m) {
  const Problem& p = m.problem;
  return {{"step", str(m.step)},
          {"time", str(m.time)},
          {"grid_xyz", joined(p.grid)},
          {"spacing_xyz", joined(p.spacing)},
          {"kappa_xyz", joined(p.kappa)},
          {"dt", str(p.dt)},
          {"coefficients_xyz", joined(m.coefficients)},
          {"bc_xyz",
           std::string(to_string(p.bc[0])) + " " + to_string(p.bc[1]) + " " + to_string(p.bc[2])},
          {"bc_value", str(p.bc_value)},
          {"stencil", str(p.stencil)},
          {"init", to_string(p.init)},
          {"seed", str(p.seed)},
          {"sine_mode_xyz", joined(p.sine_mode)}};
}

/// Every defining attribute of m must read as run_definition says it was written; the reason
/// naming the first that does not, else "".
std::string definition_mismatch(const CheckpointMeta& m, const std::string& definition) {
  std::istringstream lines(definition);
  std::map<std::string, std::string> written;
  for (std::string line; std::getline(lines, line);) {
    const std::size_t eq = line.find(" = ");
    if (eq != std::string::npos) written.emplace(line.substr(0, eq), line.substr(eq + 3));
  }
  for (const auto& [name, value] : defining_attributes(m)) {
    const auto it = written.find(name);
    if (it == written.end())
      return "attribute 'run_definition' has no line for '" + name +
             "': it was edited after the file was written";
    if (it->second != value)
      return "attribute '" + name + "' is " + value + ", but run_definition says it was written " +
             "as " + it->second + ": the file was edited after it was written";
  }
  if (definition != run_definition(m))
    return "attribute 'run_definition' holds lines that are not the checkpoint's attributes: it "
           "was edited after the file was written";
  return "";
}

/// The <Grid> element of one checkpoint (indented by `pad`): the cell-centred field u of
/// h5_name on a uniform grid, at the checkpoint's time.
std::string grid_xml(const CheckpointMeta& m, const std::string& h5_name, const std::string& pad) {
  const Index3& g = m.problem.grid;
  const std::array<double, 3>& dx = m.problem.spacing;
  std::ostringstream os;
  os << pad << "<Grid Name=\"step " << m.step << "\" GridType=\"Uniform\">\n"
     << pad << " <Time Value=\"" << str(m.time) << "\"/>\n"
     << pad << " <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << g[2] + 1 << " "
     << g[1] + 1 << " " << g[0] + 1 << "\"/>\n"
     << pad << " <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
     << pad
     << "  <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
        "Format=\"XML\">0 0 0</DataItem>\n"
     << pad << "  <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
     << str(dx[2]) << " " << str(dx[1]) << " " << str(dx[0]) << "</DataItem>\n"
     << pad << " </Geometry>\n"
     << pad << " <Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
     << pad << "  <DataItem Dimensions=\"" << g[2] << " " << g[1] << " " << g[0]
     << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5_name << ":/" << kDataset
     << "</DataItem>\n"
     << pad << " </Attribute>\n"
     << pad << "</Grid>\n";
  return os.str();
}

}  // namespace

std::string xdmf(const CheckpointMeta& m, const std::string& h5_name) {
  return "<?xml version=\"1.0\" ?>\n<!-- miniapp checkpoint " + h5_name +
         ": cell-centred field u on a uniform grid.\n     XDMF lists dimensions slowest first: "
         "z y x. -->\n<Xdmf Version=\"3.0\">\n <Domain>\n" +
         grid_xml(m, h5_name, "  ") + " </Domain>\n</Xdmf>\n";
}

std::string xdmf_time_series(const std::vector<TimeSeriesEntry>& entries) {
  std::string grids;
  for (const TimeSeriesEntry& e : entries) grids += grid_xml(e.meta, e.h5_name, "   ");
  return "<?xml version=\"1.0\" ?>\n<!-- miniapp checkpoints as a time series: one grid per kept "
         "checkpoint, at its time.\n     ParaView: open with the reader \"Xdmf3 Reader\" "
         "(Xdmf3ReaderT), which reads a\n     temporal collection as time steps. -->\n"
         "<Xdmf Version=\"3.0\">\n <Domain>\n  <Grid Name=\"miniapp\" GridType=\"Collection\" "
         "CollectionType=\"Temporal\">\n" +
         grids + "  </Grid>\n </Domain>\n</Xdmf>\n";
}

// ---- public API -------------------------------------------------------------------------------

CheckpointMeta make_checkpoint_meta(const Problem& problem, std::int64_t step, const Index3& ranks,
                                    int halo_width) {
  CheckpointMeta m;
  m.step = step;
  m.time = double(step) * problem.dt;
  m.problem = problem;
  const Coefficients a = problem.coefficients();
  m.coefficients = {a.ax, a.ay, a.az};
  m.halo_width = halo_width;
  m.writer_ranks = ranks;
  m.provenance.miniapp_version = kVersion;
  return m;
}

std::string run_definition(const CheckpointMeta& m) {
  std::string text;
  for (const auto& [name, value] : defining_attributes(m)) text += name + " = " + value + "\n";
  return text;
}

std::uint64_t run_digest(const std::string& definition, std::uint64_t field_digest) {
  const std::string text = definition + "digest = " + digest_hex(field_digest) + "\n";
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64: offset basis, then xor and multiply
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

void broadcast(CheckpointMeta& m, int root, MPI_Comm comm) {
  // The fixed-size part as bytes (Problem is trivially copyable), then each string.
  struct Fixed {
    int format, halo_width;
    std::int64_t step;
    double time;
    Problem problem;
    std::array<double, 3> coefficients;
    Index3 writer_ranks;
    std::uint64_t digest;
  };
  static_assert(std::is_trivially_copyable<Fixed>::value, "broadcast as bytes");
  Fixed f{m.format,  m.halo_width,   m.step,         m.time,
          m.problem, m.coefficients, m.writer_ranks, m.digest};
  mpi_check(MPI_Bcast(&f, int(sizeof f), MPI_BYTE, root, comm), "MPI_Bcast(checkpoint meta)");
  m.format = f.format;
  m.halo_width = f.halo_width;
  m.step = f.step;
  m.time = f.time;
  m.problem = f.problem;
  m.coefficients = f.coefficients;
  m.writer_ranks = f.writer_ranks;
  m.digest = f.digest;
  CheckpointProvenance& p = m.provenance;
  for (std::string* s : {&p.miniapp_version, &p.git_commit, &p.command_line, &p.created_utc}) {
    std::uint64_t n = s->size();
    mpi_check(MPI_Bcast(&n, 1, MPI_UINT64_T, root, comm), "MPI_Bcast(string size)");
    s->resize(std::size_t(n));
    mpi_check(MPI_Bcast(s->data(), int(n), MPI_CHAR, root, comm), "MPI_Bcast(string)");
  }
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

      // Root attributes: everything that defines the run (a restart needs nothing else),
      // then how and by whom it was computed, then the digests that make edits evident.
      const auto grid = as_int64(p.grid), ranks = as_int64(m.writer_ranks);
      const auto mode = as_int64(p.sine_mode);
      const std::int64_t stencil = p.stencil, halo_width = m.halo_width;
      const std::int64_t format = kCheckpointFormat;
      write_int64(file, "step", 0, &m.step);
      write_double(file, "time", 0, &m.time);
      write_units(file, "time", "s");
      write_int64(file, "grid_xyz", 3, grid.data());
      write_double(file, "spacing_xyz", 3, p.spacing.data());
      write_units(file, "spacing_xyz", "m");
      write_double(file, "kappa_xyz", 3, p.kappa.data());
      write_units(file, "kappa_xyz", "m^2/s");
      write_double(file, "dt", 0, &p.dt);
      write_units(file, "dt", "s");
      write_double(file, "coefficients_xyz", 3, m.coefficients.data());
      write_units(file, "coefficients_xyz", "1");
      write_attr_string(file, "coefficients_xyz_definition", "a_d = (kappa_d*dt)/(dx_d*dx_d)");
      write_attr_strings3(file, "bc_xyz",
                          {to_string(p.bc[0]), to_string(p.bc[1]), to_string(p.bc[2])});
      write_double(file, "bc_value", 0, &p.bc_value);
      write_int64(file, "stencil", 0, &stencil);
      write_attr_string(file, "init", to_string(p.init));
      write_attr(file, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &p.seed);
      write_int64(file, "sine_mode_xyz", 3, mode.data());
      write_int64(file, "halo_width", 0, &halo_width);
      write_int64(file, "writer_ranks_xyz", 3, ranks.data());
      const CheckpointProvenance& who = m.provenance;
      write_attr_string(file, "miniapp_version", who.miniapp_version);
      write_attr_string(file, "git_commit", who.git_commit);
      write_attr_string(file, "command_line", who.command_line);
      write_attr_string(file, "created_utc", who.created_utc);
      write_int64(file, "checkpoint_format", 0, &format);
      const std::string definition = run_definition(m);
      write_attr_string(file, "digest", digest_hex(m.digest));
      write_attr_string(file, "run_definition", definition);
      write_attr_string(file, "run_digest", digest_hex(run_digest(definition, m.digest)));
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
    m = CheckpointMeta{};
    m.format = 1;  // files without the attribute came before it
    if (has_attr(file, "checkpoint_format")) {
      std::int64_t format = 0;
      read_attr(file, "checkpoint_format", &format, 1);
      if (format < 2 || format > kCheckpointFormat)
        throw ProbeError("attribute 'checkpoint_format' is " + str(format) +
                         ": this miniapp reads formats 1 to " + str(kCheckpointFormat));
      m.format = int(format);
    }
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
    if (!has_attr(file, "stencil")) throw ProbeError("attribute 'stencil' is missing");
    p.stencil = read_stencil(file);
    const std::string init = read_attr_string(file, "init");
    read_attr(file, "seed", &p.seed, 1);
    m.provenance.miniapp_version = read_attr_string(file, "miniapp_version");
    read_attr(file, "writer_ranks_xyz", ranks, 3);
    const std::string digest = read_attr_string(file, "digest");
    std::string definition, stored_run_digest;
    if (m.format >= 2) {
      std::int64_t mode[3], halo_width = 0;
      read_attr(file, "coefficients_xyz", m.coefficients.data(), 3);
      read_attr(file, "sine_mode_xyz", mode, 3);
      read_attr(file, "halo_width", &halo_width, 1);
      for (int d = 0; d < 3; ++d) p.sine_mode[d] = int(mode[d]);
      m.halo_width = int(halo_width);
      m.provenance.git_commit = read_attr_string(file, "git_commit");
      m.provenance.command_line = read_attr_string(file, "command_line");
      m.provenance.created_utc = read_attr_string(file, "created_utc");
      definition = read_attr_string(file, "run_definition");
      stored_run_digest = read_attr_string(file, "run_digest");
    }

    for (int d = 0; d < 3; ++d) {
      if (grid[d] < 1 || grid[d] > (std::int64_t(1) << 30))
        throw ProbeError("attribute 'grid_xyz' holds the impossible size " + str(grid[d]));
      p.grid[d] = int(grid[d]);
      m.writer_ranks[d] = int(ranks[d]);
      p.bc[d] = parse_name("bc_xyz", bc[d], kBoundaryNames);
    }
    p.init = parse_name("init", init, kInitNames);
    if (m.format < 2) {
      const Coefficients a = p.coefficients();
      m.coefficients = {a.ax, a.ay, a.az};
    }
    if (m.step < 0) throw ProbeError("attribute 'step' is negative (" + str(m.step) + ")");
    const auto hex = [](const std::string& name, const std::string& text) {
      char* end = nullptr;
      const std::uint64_t value = std::strtoull(text.c_str(), &end, 16);
      if (text.size() != 16 || *end != '\0')
        throw ProbeError("attribute '" + name + "' is not 16 hex digits ('" + text + "')");
      return value;
    };
    m.digest = hex("digest", digest);
    if (m.format >= 2) {
      // Tamper evidence: what the file says now against what it was written with.
      if (const std::string why = definition_mismatch(m, definition); !why.empty())
        throw ProbeError(why);
      const std::uint64_t expected = run_digest(definition, m.digest);
      if (hex("run_digest", stored_run_digest) != expected)
        throw ProbeError("attribute 'run_digest' is " + stored_run_digest + ", but 'digest' and " +
                         "'run_definition' give " + digest_hex(expected) +
                         ": one of the three was edited after the file was written");
      const Coefficients a = p.coefficients();
      if (m.coefficients != std::array<double, 3>{a.ax, a.ay, a.az})
        throw ProbeError("attribute 'coefficients_xyz' is " + joined(m.coefficients) +
                         ", but (kappa_d*dt)/(dx_d*dx_d) of the file's kappa_xyz, dt and "
                         "spacing_xyz is " +
                         str(a.ax) + " " + str(a.ay) + " " + str(a.az));
    }

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
