// Durable directory operations (POSIX): files that survive a crash or a power cut once these
// calls return, and numbered files kept up to a count.
//
//   atomic text file:   write path.tmp, fsync it, rename to path, fsync the directory
//   durable rename:     rename, then fsync the directory that holds the new name
//   retention:          of the files <prefix><number><suffix>, keep the newest K numbers
//
// A reader that sees a name therefore sees the complete file, and a crash between two calls
// leaves either the old state or the new one. Nothing here is collective; the callers decide
// which rank touches the directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace miniapp {

/// fsync the file (or, with `directory`, the directory) at path. Throws std::runtime_error.
void fsync_path(const std::string& path, bool directory);

/// rename(from, to), then fsync the directory of `to`. Throws std::runtime_error.
void rename_durably(const std::string& from, const std::string& to);

/// Write `text` to path.tmp, fsync it and rename it to path durably. Throws std::runtime_error.
void write_text_durably(const std::string& path, const std::string& text);

/// Create dir and its missing parents (mode 0755). Throws std::runtime_error.
void make_dirs(const std::string& dir);

/// The directory part of path ("." when there is none).
std::string dir_of(const std::string& path);

/// The file-name part of path.
std::string base_of(const std::string& path);

/// Names of the entries of dir (empty when it cannot be read).
std::vector<std::string> list_dir(const std::string& dir);

/// The number of a file named <prefix><decimal digits><suffix>, -1 for any other name.
std::int64_t number_of(const std::string& name, const std::string& prefix,
                       const std::string& suffix);

/// The numbers of the files <prefix><N><suffix> in dir, ascending.
std::vector<std::int64_t> numbers_in(const std::string& dir, const std::string& prefix,
                                     const std::string& suffix);

/// Retention of numbered files in dir: a file set is <prefix><N> followed by each of
/// `suffixes` (its first suffix marks a complete set). Keep the newest `keep` complete sets,
/// delete the older ones, and delete temporaries <prefix><N><suffix>.tmp left behind by
/// numbers below `newest`. Throws std::runtime_error when a file cannot be deleted.
void keep_newest(const std::string& dir, const std::string& prefix,
                 const std::vector<std::string>& suffixes, int keep, std::int64_t newest);

}  // namespace miniapp
