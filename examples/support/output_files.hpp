// examples/support/output_files.hpp — how the examples write files: never
// over what the user owns, never half.
//
// - same_file(): whether two paths name one file (device and inode, symlinks
//   followed; for a file that does not exist yet, its resolved directory and
//   name), which command_line::parse uses to refuse an output that is an
//   input, the secret or another output of the same run, before any work.
// - output_file: writes to a fresh temporary file in the target's directory
//   (O_CREAT | O_EXCL, a name with 64 random bits from the OS), then flushes,
//   fsyncs and renames it over the target. A run that fails or is stopped
//   (an exception, a full disk, a file-size limit, SIGINT/SIGTERM/SIGHUP)
//   leaves the old file as it was and removes the temporary file; only
//   SIGKILL or a crash can leave a temporary file (named .<target>.<hex>.tmp),
//   and even then never a partial target.
// - output_set: several output_files that appear together or not at all (a
//   plot and its CSV, a release and its plot): each is written and fsynced
//   first, then they are renamed one after the other with SIGINT, SIGTERM
//   and SIGHUP held back, and a rename that fails puts back the files
//   already replaced (each kept as a hard link until the set is in place).
// - write_new_secret(): a secret goes to a new file (O_EXCL), mode 0600.
//
// Use:
//   ex::output_file out(path);    // throws std::runtime_error naming path
//   out.write(text);              // buffered
//   out.commit();                 // flush, fsync, rename: the file is there
//   ex::write_file(path, text);   // the same in one call
//   ex::output_set files;         // several files, all or none:
//   files.write(a, text_a);       //   each written to its temporary file
//   files.write(b, text_b);
//   files.commit();               //   then all renamed, or none
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace privet::examples {

/// What a path names on the filesystem: (device, inode) of the file it
/// reaches through any symlinks; for a file that does not exist yet, the
/// (device, inode) of the directory it would be created in, and its name.
struct file_identity {
  std::uint64_t device = 0, inode = 0;
  std::string name;  ///< empty for an existing file
  bool operator==(const file_identity&) const = default;
};

/// The identity of `path`, or nothing if neither it nor its directory exists.
[[nodiscard]] std::optional<file_identity> identify(const std::string& path);

/// Whether `a` and `b` name the same file (or the same file to be created).
[[nodiscard]] bool same_file(const std::string& a, const std::string& b);

/// Why the directory `path` would be written in cannot take a new file
/// (empty if it can): the check every output gets before the work starts.
/// It creates and removes a probe file there (access(2) says yes to root
/// on a read-only mount).
[[nodiscard]] std::string why_not_writable(const std::string& path);
/// Why the existing directory `dir` cannot take a new file (the errno
/// text), or empty: the same probe.
[[nodiscard]] std::string why_not_writable_directory(const std::string& dir);

/// A file written whole or not at all (see the header comment). Not
/// copyable; destroying it uncommitted removes the temporary file.
class output_file {
 public:
  /// Creates the temporary file beside `path` (beside the file a symlink
  /// `path` points to, so the link survives); throws std::runtime_error
  /// naming `path` if it cannot.
  explicit output_file(std::string path);
  ~output_file();
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  /// Appends `text` (buffered, 1 MiB); throws std::runtime_error naming the
  /// target if the file system refuses (a full disk, a file-size limit).
  void write(std::string_view text);
  /// Flushes, fsyncs and renames over the target, then fsyncs the
  /// directory; throws std::runtime_error naming the target if it cannot
  /// (the old file, if any, is then as it was).
  void commit();
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  friend class output_set;
  // commit() in two steps, for output_set: the content safe on disk in the
  // temporary file, then the rename.
  void prepare();
  void publish();
  void flush();
  void abandon() noexcept;
  std::string path_, target_, temp_;
  int fd_ = -1;
  bool temp_exists_ = false;  // the temporary file is there to remove
  int slot_ = -1;             // in the signal handler's list of temporary files
  std::string buffer_;
};

/// Several files committed together (see the header comment): after a
/// failed commit() every target is as it was before, except that a file
/// system refusing hard links gives no way back for a file already replaced
/// (the message then says so), and a SIGKILL or crash in the middle leaves
/// the targets renamed so far (with the old contents beside them as
/// .<target>.<hex>.tmp.old). Destroying the set uncommitted removes every
/// temporary file.
class output_set {
 public:
  /// A new file of the set, to be written into (see output_file).
  output_file& add(std::string path);
  /// Adds `path` with content `text`.
  void write(std::string path, std::string_view text) { add(std::move(path)).write(text); }
  /// Writes and fsyncs every file, then renames them all; throws
  /// std::runtime_error naming the file that failed, with every target as it
  /// was.
  void commit();
  [[nodiscard]] bool empty() const noexcept { return files_.empty(); }

 private:
  std::vector<std::unique_ptr<output_file>> files_;
};

/// Writes `text` to `path` through output_file.
void write_file(const std::string& path, std::string_view text);

/// Writes `text` (a secret) to the new file `path`, mode 0600 (O_EXCL: an
/// existing file is never replaced), fsynced; on failure removes what it
/// created and returns false. The caller wipes `text`.
[[nodiscard]] bool write_new_secret(const std::string& path, std::string_view text);

}  // namespace privet::examples
