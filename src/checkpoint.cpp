#include "checkpoint.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <utility>

#include "diagnostics.hpp"
#include "fault_injection.hpp"
#include "hdf5_handle.hpp"
#include "mpi_utils.hpp"
#include "preflight.hpp"
#include "simulation.hpp"
#include "text.hpp"
#include "version.hpp"

namespace miniapp {

// ---- HDF5 error text ----------------------------------------------------------------------

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

namespace {

constexpr const char* kDataset = "field";
constexpr const char* kAxisOrder = "z,y,x (C order, x fastest; h5py u[z, y, x])";

template <class T>
std::string triple(const std::array<T, 3>& v) {
  return str(v[0]) + " " + str(v[1]) + " " + str(v[2]);
}

std::string errno_text() { return std::strerror(errno); }

// ---- agreement across ranks ---------------------------------------------------------------

/// "rank R: text" of the lowest rank R whose `local` is not empty ("" when none). Collective.
/// A rank with an error waits at most kAgreementGraceSeconds for the others: if they do not
/// arrive, they are stuck in a collective call it left (e.g. it failed before H5Dwrite's
/// MPI-IO collective), and it throws CheckpointError(not agreed) so the driver aborts the job.
std::string first_error(const std::string& local, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int mine = local.empty() ? size : rank;
  int first = size;
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &request), "MPI_Iallreduce");
  if (local.empty()) {
    mpi_check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
  } else {
    const double deadline = MPI_Wtime() + kAgreementGraceSeconds;
    for (int done = 0; !done;) {
      mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done && MPI_Wtime() > deadline)
        throw CheckpointError("rank " + str(rank) + ": " + local +
                                  "; the other ranks did not reach the error " +
                                  "agreement within " + str(kAgreementGraceSeconds) +
                                  " s (stuck in a collective HDF5/MPI-IO call this rank left)",
                              false);
      if (!done) ::usleep(1000);
    }
  }
  if (first == size) return "";
  int len = rank == first ? int(local.size()) : 0;
  mpi_check(MPI_Bcast(&len, 1, MPI_INT, first, comm), "MPI_Bcast");
  std::string text = rank == first ? local : std::string(std::size_t(len), ' ');
  mpi_check(MPI_Bcast(text.data(), len, MPI_CHAR, first, comm), "MPI_Bcast");
  return "rank " + str(first) + ": " + text;
}

/// Run f on every rank; when it throws on any rank, throw Error with the lowest failing
/// rank's message on every rank (so the next collective call is reached by all or by none).
template <class Error, class F>
void all_or_none(MPI_Comm comm, F&& f) {
  std::string err;
  try {
    f();
  } catch (const std::exception& e) {
    err = *e.what() ? e.what() : "unknown error";
  }
  const std::string first = first_error(err, comm);
  if (!first.empty()) throw Error(first);
}

// ---- POSIX durability ---------------------------------------------------------------------

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) throw std::runtime_error("open " + path + " for fsync: " + errno_text());
  const int rc = ::fsync(fd);
  const std::string why = rc != 0 ? errno_text() : "";
  ::close(fd);
  if (rc != 0) throw std::runtime_error("fsync " + path + ": " + why);
}

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

std::string base_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// rename(from, to) and fsync the directory, so the new name survives a power cut.
void rename_durably(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw std::runtime_error("rename " + from + " -> " + to + ": " + errno_text());
  fsync_path(dir_of(to), true);
}

/// Write `text` to path.tmp, fsync, rename to path.
void write_text_durably(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("create " + tmp + ": " + errno_text());
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = errno_text();
      ::close(fd);
      throw std::runtime_error("write " + tmp + ": " + why);
    }
    done += std::size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    throw std::runtime_error("fsync/close " + tmp + ": " + errno_text());
  rename_durably(tmp, path);
}

/// Create dir and its missing parents.
void make_dirs(const std::string& dir) {
  std::string partial;
  std::stringstream parts(dir);
  std::string part;
  if (!dir.empty() && dir[0] == '/') partial = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    partial += part;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
      throw std::runtime_error("cannot create directory " + partial + ": " + errno_text());
    partial += "/";
  }
}

/// Step of a file named checkpoint_<digits><suffix>, or -1.
std::int64_t step_of(const std::string& name, const std::string& suffix) {
  const std::string prefix = "checkpoint_";
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  const std::string digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoll(digits);
}

/// Names of the entries of dir ("" list when it cannot be read).
std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

/// Delete all but the newest `keep` complete checkpoints (file and sidecar), and temporary
/// files of older steps left by an interrupted run. Rank 0 only.
void prune(const std::string& dir, int keep, std::int64_t newest) {
  std::vector<std::int64_t> steps;
  std::vector<std::string> stale;
  for (const std::string& name : list_dir(dir)) {
    const std::int64_t s = step_of(name, ".h5");
    if (s >= 0) steps.push_back(s);
    for (const char* tmp : {".h5.tmp", ".xmf.tmp"}) {
      const std::int64_t t = step_of(name, tmp);
      if (t >= 0 && t < newest) stale.push_back(dir + "/" + name);
    }
  }
  std::sort(steps.rbegin(), steps.rend());
  for (std::size_t i = std::size_t(keep); i < steps.size(); ++i) {
    const std::string h5 = checkpoint_path(dir, steps[i]);
    stale.push_back(h5.substr(0, h5.size() - 3) + ".xmf");
    stale.push_back(h5);
  }
  for (const std::string& path : stale)
    if (std::remove(path.c_str()) != 0 && errno != ENOENT)
      throw std::runtime_error("cannot delete the old checkpoint file " + path + ": " +
                               errno_text());
}

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

template <class E>
E parse_name(const std::string& attr, const std::string& name, std::initializer_list<E> all) {
  for (E e : all)
    if (name == to_string(e)) return e;
  throw ProbeError("attribute '" + attr + "' has the unknown value '" + name + "'");
}

void copy_cstr(char* dst, std::size_t size, const std::string& src) {
  std::memset(dst, 0, size);  // the last byte stays 0: at most size - 1 are copied
  src.copy(dst, std::min(size - 1, src.size()));
}

std::string xdmf(const CheckpointMeta& m, const std::string& h5_name) {
  const Index3& g = m.grid;
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
     << m.spacing[2] << " " << m.spacing[1] << " " << m.spacing[0] << "</DataItem>\n"
     << "   </Geometry>\n"
     << "   <Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
     << "    <DataItem Dimensions=\"" << g[2] << " " << g[1] << " " << g[0]
     << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5_name << ":/" << kDataset
     << "</DataItem>\n"
     << "   </Attribute>\n  </Grid>\n </Domain>\n</Xdmf>\n";
  return os.str();
}

bool same(double a, double b) { return a == b || (a != a && b != b); }

}  // namespace

// ---- public API -------------------------------------------------------------------------------

CheckpointTunables CheckpointTunables::from(const Config& c) {
  CheckpointTunables t;
  t.chunked = c.checkpoint_layout == "chunked";
  t.alignment = c.checkpoint_alignment;
  t.cb_nodes = c.checkpoint_cb_nodes;
  t.cb_buffer = c.checkpoint_cb_buffer;
  t.cb_write = c.checkpoint_cb_write;
  return t;
}

std::string checkpoint_path(const std::string& dir, std::int64_t step) {
  char name[48];
  std::snprintf(name, sizeof name, "checkpoint_%010lld.h5", static_cast<long long>(step));
  return (dir.empty() ? std::string(".") : dir) + "/" + name;
}

CheckpointMeta make_checkpoint_meta(const Config& c, std::int64_t step, const Index3& ranks) {
  CheckpointMeta m;
  m.step = step;
  m.time = double(step) * c.dt;
  m.grid = c.grid;
  m.spacing = c.spacing;
  m.kappa = c.kappa;
  m.dt = c.dt;
  m.bc = c.bc;
  m.bc_value = c.bc_value;
  m.init = c.init;
  m.seed = c.seed;
  m.writer_ranks = ranks;
  copy_cstr(m.stencil, sizeof m.stencil, stencil_name(c.stencil));
  copy_cstr(m.version, sizeof m.version, kVersion);
  return m;
}

void write_field_file(const std::string& path, const Field& u, const CheckpointMeta& m,
                      const CheckpointTunables& t, MPI_Comm comm, const Spectrum* spectrum) {
  hdf5_silence_errors();
  // The host copy of the field: the field itself when it lives in host memory (no copy).
  const auto host = Kokkos::create_mirror_view(u.view());
  Kokkos::deep_copy(host, u.view());
  Kokkos::fence();

  H5Handle file, dset, file_space;
  try {
    all_or_none<CheckpointError>(comm, [&] {
      const H5Handle fapl = mpio_file_access(comm, t);
      file = H5Handle(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl),
                      "H5Fcreate(" + path + ")");
    });
    all_or_none<CheckpointError>(comm, [&] {
      const hsize_t dims[3] = {hsize_t(m.grid[2]), hsize_t(m.grid[1]), hsize_t(m.grid[0])};
      file_space = H5Handle(H5Screate_simple(3, dims, nullptr), "H5Screate_simple(file)");
      H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate(dataset create)");
      // Every cell is written: no fill values (they would double the bytes written).
      h5check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
      h5check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "H5Pset_alloc_time");
      if (t.chunked) {
        hsize_t chunk[3];
        for (int d = 0; d < 3; ++d) {
          const int p = std::max(1, m.writer_ranks[d]);
          chunk[2 - d] = hsize_t((m.grid[d] + p - 1) / p);
        }
        h5check(H5Pset_chunk(dcpl, 3, chunk), "H5Pset_chunk");
      }
      dset = H5Handle(
          H5Dcreate2(file, kDataset, H5T_IEEE_F64LE, file_space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
          "H5Dcreate2(field)");
      write_attr_string(dset, "axis_order", kAxisOrder);

      // Root attributes: enough to restart without the input file and to say what it holds.
      const std::int64_t grid[3] = {m.grid[0], m.grid[1], m.grid[2]};
      const std::int64_t ranks[3] = {m.writer_ranks[0], m.writer_ranks[1], m.writer_ranks[2]};
      write_attr(file, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &m.step);
      write_attr(file, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &m.time);
      write_attr(file, "grid_xyz", H5T_STD_I64LE, H5T_NATIVE_INT64, 3, grid);
      write_attr(file, "spacing_xyz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, m.spacing.data());
      write_attr(file, "kappa_xyz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, m.kappa.data());
      write_attr(file, "dt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &m.dt);
      write_attr_strings3(file, "bc_xyz",
                          {to_string(m.bc[0]), to_string(m.bc[1]), to_string(m.bc[2])});
      write_attr(file, "bc_value", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &m.bc_value);
      write_attr_string(file, "stencil", m.stencil);
      write_attr_string(file, "init", to_string(m.init));
      write_attr(file, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &m.seed);
      write_attr_string(file, "miniapp_version", m.version);
      write_attr(file, "writer_ranks_xyz", H5T_STD_I64LE, H5T_NATIVE_INT64, 3, ranks);
      write_attr_string(file, "digest", digest_hex(m.digest));
    });
    all_or_none<CheckpointError>(comm, [&] {
      auto [fs, ms] = block_selections(file_space, u);
      const H5Handle dxpl = collective_transfer();
      // MINIAPP_FAULT kind:io: this rank alone leaves the collective write with an error, as
      // HDF5 does when a rank's own checks or buffers fail before the MPI-IO collective.
      if (io_fault_armed())
        throw std::runtime_error("H5Dwrite(" + path + ") failed: injected I/O error (" +
                                 fault_description() + ")");
      h5check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, ms, fs, dxpl, host.data()),
              "H5Dwrite(" + path + ")");
    });
    if (spectrum && spectrum->step >= 0) {
      // The spectrum is the same on every rank: rank 0 writes it, the others select nothing
      // (the dataset's creation and the write call are still collective).
      all_or_none<CheckpointError>(comm, [&] {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        const hsize_t n = spectrum->energy.size();
        H5Handle space(H5Screate_simple(1, &n, nullptr), "H5Screate_simple(spectrum)");
        H5Handle mem(H5Screate_simple(1, &n, nullptr), "H5Screate_simple(spectrum memory)");
        H5Handle ds(H5Dcreate2(file, "spectrum", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT),
                    "H5Dcreate2(spectrum)");
        write_attr(ds, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &spectrum->step);
        write_attr_string(ds, "definition",
                          "E(s) = 1/2 sum over round(|k|) = s of |FFT(u)(k)/N|^2, s = 0, 1, ...");
        if (rank != 0) {
          h5check(H5Sselect_none(space), "H5Sselect_none");
          h5check(H5Sselect_none(mem), "H5Sselect_none");
        }
        const H5Handle dxpl = collective_transfer();
        h5check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space, dxpl, spectrum->energy.data()),
                "H5Dwrite(spectrum)");
        ds.close("H5Dclose(spectrum)");
      });
    }
    all_or_none<CheckpointError>(comm, [&] {
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
    all_or_none<CheckpointError>(comm, [&] {
      const H5Handle fapl = mpio_file_access(comm, CheckpointTunables{});
      file = H5Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl), "H5Fopen(" + path + ")");
      dset = H5Handle(H5Dopen2(file, kDataset, H5P_DEFAULT), "H5Dopen2(field)");
    });
    all_or_none<CheckpointError>(comm, [&] {
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
    all_or_none<CheckpointError>(comm, [&] {
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
    read_attr(file, "spacing_xyz", m.spacing.data(), 3);
    read_attr(file, "kappa_xyz", m.kappa.data(), 3);
    read_attr(file, "dt", &m.dt, 1);
    const auto bc = read_attr_strings(file, "bc_xyz", 3);
    read_attr(file, "bc_value", &m.bc_value, 1);
    copy_cstr(m.stencil, sizeof m.stencil, read_attr_strings(file, "stencil", 1)[0]);
    const std::string init = read_attr_strings(file, "init", 1)[0];
    read_attr(file, "seed", &m.seed, 1);
    copy_cstr(m.version, sizeof m.version, read_attr_strings(file, "miniapp_version", 1)[0]);
    read_attr(file, "writer_ranks_xyz", ranks, 3);
    const std::string digest = read_attr_strings(file, "digest", 1)[0];

    for (int d = 0; d < 3; ++d) {
      if (grid[d] < 1 || grid[d] > (std::int64_t(1) << 30))
        throw ProbeError("attribute 'grid_xyz' holds the impossible size " + str(grid[d]));
      m.grid[d] = int(grid[d]);
      m.writer_ranks[d] = int(ranks[d]);
      m.bc[d] = parse_name<Boundary>("bc_xyz", bc[d],
                                     {Boundary::Periodic, Boundary::Dirichlet, Boundary::Neumann});
    }
    m.init =
        parse_name<InitKind>("init", init, {InitKind::Random, InitKind::Sine, InitKind::Gaussian});
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
        dims[0] != hsize_t(m.grid[2]) || dims[1] != hsize_t(m.grid[1]) ||
        dims[2] != hsize_t(m.grid[0])) {
      std::string shape;
      for (int d = 0; d < std::min(rank, 3); ++d) shape += (d ? " x " : "") + str(dims[d]);
      throw ProbeError("dataset 'field' has shape [" + shape + "] (z y x), but grid_xyz says " +
                       triple(m.grid) + " (expected [" + str(m.grid[2]) + " x " + str(m.grid[1]) +
                       " x " + str(m.grid[0]) + "])");
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

std::string latest_checkpoint(const std::string& dir) {
  std::int64_t best = -1;
  for (const std::string& name : list_dir(dir)) best = std::max(best, step_of(name, ".h5"));
  return best < 0 ? "" : checkpoint_path(dir, best);
}

Config merge_restart_config(const Config& config, const CheckpointMeta& m,
                            const std::string& path) {
  Config c = config;
  const std::string where = "--restart " + path + ": ";
  const auto given = [&](const char* opt) { return config.given.count(opt) > 0; };
  auto conflict = [&](const char* opt, const std::string& mine, const std::string& file) {
    throw ConfigError(where + opt + " " + mine + " differs from the checkpoint's " + file +
                      "; a restart continues the same problem (drop " + opt +
                      " to take the checkpoint's value, or start a new run)");
  };
  if (given("--grid") && c.grid != m.grid) conflict("--grid", triple(c.grid), triple(m.grid));
  c.grid = m.grid;
  for (int d = 0; d < 3; ++d) {
    if (given("--spacing") && !same(c.spacing[d], m.spacing[d]))
      conflict("--spacing", triple(c.spacing), triple(m.spacing));
    if (given("--kappa") && !same(c.kappa[d], m.kappa[d]))
      conflict("--kappa", triple(c.kappa), triple(m.kappa));
    if (given("--bc") && c.bc[d] != m.bc[d])
      conflict(
          "--bc",
          std::string(to_string(c.bc[0])) + " " + to_string(c.bc[1]) + " " + to_string(c.bc[2]),
          std::string(to_string(m.bc[0])) + " " + to_string(m.bc[1]) + " " + to_string(m.bc[2]));
  }
  if (given("--dt") && !same(c.dt, m.dt)) conflict("--dt", str(c.dt), str(m.dt));
  if (given("--bc-value") && !same(c.bc_value, m.bc_value))
    conflict("--bc-value", str(c.bc_value), str(m.bc_value));
  const int file_stencil = std::string(m.stencil) == stencil_name(27)  ? 27
                           : std::string(m.stencil) == stencil_name(7) ? 7
                                                                       : 0;
  if (file_stencil == 0)
    throw ConfigError(where + "the checkpoint names the unknown stencil '" + m.stencil + "'");
  if (given("--stencil") && c.stencil != file_stencil)
    conflict("--stencil", str(c.stencil), str(file_stencil));
  c.stencil = file_stencil;
  c.spacing = m.spacing;
  c.kappa = m.kappa;
  c.bc = m.bc;
  c.dt = m.dt;
  c.bc_value = m.bc_value;
  c.init = m.init;  // for the record: the field comes from the file
  c.seed = m.seed;
  if (c.steps < m.step)
    throw ConfigError(where + "--steps=" + str(c.steps) + " is below the checkpoint's step " +
                      str(m.step) + " (--steps counts from step 0: the run continues to it)");
  return c;
}

Restart prepare_restart(const Config& config, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Restart r;
  std::string err;
  if (rank == 0) {
    r.path = config.restart == "latest" ? latest_checkpoint(config.checkpoint_dir) : config.restart;
    if (r.path.empty())
      err = "--restart latest: no complete checkpoint (checkpoint_*.h5) in --checkpoint-dir " +
            config.checkpoint_dir;
    else if (const std::string why = probe_checkpoint_file(r.path, r.meta); !why.empty())
      err = "--restart " + r.path + ": " + why;
  }
  throw_if_root_failed(err, comm);
  int len = int(r.path.size());
  mpi_check(MPI_Bcast(&len, 1, MPI_INT, 0, comm), "MPI_Bcast");
  r.path.resize(std::size_t(len));
  mpi_check(MPI_Bcast(r.path.data(), len, MPI_CHAR, 0, comm), "MPI_Bcast");
  static_assert(std::is_trivially_copyable<CheckpointMeta>::value, "broadcast as bytes");
  mpi_check(MPI_Bcast(&r.meta, int(sizeof r.meta), MPI_BYTE, 0, comm), "MPI_Bcast");
  r.config = merge_restart_config(config, r.meta, r.path);
  return r;
}

void load_restart(const Restart& r, Simulation& sim) {
  const MPI_Comm comm = sim.decomposition().comm();
  read_field_file(r.path, sim.field(), r.config.grid, comm);
  const std::uint64_t digest = sim.summary().digest;
  if (digest != r.meta.digest)
    throw ConfigError("--restart " + r.path + ": the data's digest " + digest_hex(digest) +
                      " does not match the file's digest attribute " + digest_hex(r.meta.digest) +
                      ": the file is damaged");
  sim.start_at(r.meta.step);
}

void preflight_checkpoints(const Config& config, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string err;
  if (rank == 0 && config.checkpoint_every > 0) {
    const std::string& dir = config.checkpoint_dir;
    try {
      make_dirs(dir);
      struct stat st {};
      if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw std::runtime_error("not a directory");
      // Really write (access() says yes to root even on read-only file systems).
      std::string probe = dir + "/.miniapp-probe-XXXXXX";
      const int fd = ::mkstemp(probe.data());
      if (fd < 0) throw std::runtime_error("cannot write in it: " + errno_text());
      const bool ok = ::write(fd, "x", 1) == 1 && ::fsync(fd) == 0;
      const std::string why = errno_text();
      ::close(fd);
      ::unlink(probe.c_str());
      if (!ok) throw std::runtime_error("cannot write in it: " + why);
    } catch (const std::exception& e) {
      err = "--checkpoint-dir " + dir + ": " + e.what();
    }
  }
  throw_if_root_failed(err, comm);
}

std::int64_t next_stop(const Config& config, std::int64_t step) {
  if (config.checkpoint_every <= 0) return config.steps;
  return std::min(config.steps, (step / config.checkpoint_every + 1) * config.checkpoint_every);
}

bool checkpoint_due(const Config& config, std::int64_t step) {
  return config.checkpoint_every > 0 && step > 0 && step % config.checkpoint_every == 0;
}

CheckpointWriter::CheckpointWriter(const Config& config)
    : config_(config), tunables_(CheckpointTunables::from(config)) {}

void CheckpointWriter::write(const Simulation& sim) {
  write(sim.field(), make_checkpoint_meta(config_, sim.step(), sim.decomposition().dims()),
        sim.decomposition().comm());
}

void CheckpointWriter::write(const Field& u, CheckpointMeta meta, MPI_Comm comm) {
  Kokkos::Profiling::pushRegion("miniapp::checkpoint::write");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  const double t0 = MPI_Wtime();
  meta.digest = summarize(u, meta.grid, comm).digest;
  const std::string path = checkpoint_path(config_.checkpoint_dir, meta.step);
  const std::string tmp = path + ".tmp";
  try {
    // The directory exists when --checkpoint-every made the preflight create it; a checkpoint
    // written on a stop signal alone (src/stop_signal.hpp) may be the first one.
    all_or_none<CheckpointError>(comm, [&] {
      if (rank == 0) make_dirs(config_.checkpoint_dir);
    });
    write_field_file(tmp, u, meta, tunables_, comm, &spectrum_);
    // Every rank flushes what it wrote through its own client (parallel file systems).
    all_or_none<CheckpointError>(comm, [&] { fsync_path(tmp, false); });
    // All ranks are past the fsync (all_or_none agreed): publish the file under its name.
    std::string err;
    if (rank == 0) {
      try {
        rename_durably(tmp, path);
        write_text_durably(path.substr(0, path.size() - 3) + ".xmf", xdmf(meta, base_of(path)));
        prune(config_.checkpoint_dir, config_.checkpoint_keep, meta.step);
      } catch (const std::exception& e) {
        err = e.what();
      }
    }
    err = first_error(err, comm);
    if (!err.empty()) throw CheckpointError(err);
  } catch (const CheckpointError& e) {
    Kokkos::Profiling::popRegion();
    throw CheckpointError("writing the checkpoint of step " + str(meta.step) +
                              " failed: " + e.what() + "; the previous checkpoints in " +
                              config_.checkpoint_dir + " are kept",
                          e.agreed());
  }
  double seconds = MPI_Wtime() - t0, slowest = 0;
  mpi_check(MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  stats_.count += 1;
  stats_.bytes = 8.0 * double(meta.grid[0]) * meta.grid[1] * meta.grid[2];
  stats_.seconds_total += slowest;
  stats_.seconds_last = slowest;
  stats_.seconds_max = std::max(stats_.seconds_max, slowest);
  Kokkos::Profiling::popRegion();
}

}  // namespace miniapp
