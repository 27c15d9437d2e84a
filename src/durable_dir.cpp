#include "durable_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

namespace miniapp {

namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

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

void rename_durably(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw std::runtime_error("rename " + from + " -> " + to + ": " + errno_text());
  fsync_path(dir_of(to), true);
}

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

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

std::int64_t number_of(const std::string& name, const std::string& prefix,
                       const std::string& suffix) {
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

std::vector<std::int64_t> numbers_in(const std::string& dir, const std::string& prefix,
                                     const std::string& suffix) {
  std::vector<std::int64_t> numbers;
  for (const std::string& name : list_dir(dir)) {
    const std::int64_t n = number_of(name, prefix, suffix);
    if (n >= 0) numbers.push_back(n);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

void keep_newest(const std::string& dir, const std::string& prefix,
                 const std::vector<std::string>& suffixes, int keep, std::int64_t newest) {
  if (suffixes.empty()) return;
  const std::vector<std::int64_t> complete = numbers_in(dir, prefix, suffixes.front());
  const std::size_t drop = complete.size() > std::size_t(keep) ? complete.size() - keep : 0;
  const std::set<std::int64_t> old(complete.begin(), complete.begin() + std::ptrdiff_t(drop));
  // Sidecars and temporaries first, the file that marks a set complete last: an interrupted
  // prune may leave a file without its sidecar, never a sidecar naming a deleted file.
  std::vector<std::string> stale, stale_last;
  for (const std::string& name : list_dir(dir)) {
    for (std::size_t i = 0; i < suffixes.size(); ++i) {
      if (old.count(number_of(name, prefix, suffixes[i])))
        (i == 0 ? stale_last : stale).push_back(dir + "/" + name);
      const std::int64_t t = number_of(name, prefix, suffixes[i] + ".tmp");
      if (t >= 0 && t < newest) stale.push_back(dir + "/" + name);
    }
  }
  stale.insert(stale.end(), stale_last.begin(), stale_last.end());
  for (const std::string& path : stale)
    if (std::remove(path.c_str()) != 0 && errno != ENOENT)
      throw std::runtime_error("cannot delete the old file " + path + ": " + errno_text());
}

}  // namespace miniapp
