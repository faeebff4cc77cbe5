// examples/support/output_files.cpp — the examples' file writer (see
// output_files.hpp), compiled once into privet_examples_cli.
#include "output_files.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>

namespace privet::examples {

namespace fs = std::filesystem;

namespace {

// The directory a path's file is (or would be) in: "." for a bare name.
fs::path directory_of(const fs::path& p) {
  const fs::path parent = p.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// The file to write for `path`: the file a symlink points to (so that the
// link survives the rename), else `path` itself.
fs::path resolved_target(const std::string& path) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path real = fs::weakly_canonical(path, ec);
    if (!ec) return real;
  }
  return path;
}

std::string errno_text(int e) {
  return std::strerror(e);
}

// ---- temporary files removed on SIGINT, SIGTERM, SIGHUP ------------------------------
// A fixed table that the handler reads with async-signal-safe calls only:
// unlink, then the default action again.
constexpr int max_pending = 32;
constexpr std::size_t max_temp_path = 4096;
std::array<std::array<char, max_temp_path>, max_pending> pending_paths{};
std::array<std::atomic<bool>, max_pending> pending_used{};
std::once_flag handlers_installed;

extern "C" void remove_temporaries(int sig) {
  for (int i = 0; i < max_pending; ++i)
    if (pending_used[i].load()) ::unlink(pending_paths[i].data());
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers() {
  std::call_once(handlers_installed, [] {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction act {};
      act.sa_handler = remove_temporaries;
      sigemptyset(&act.sa_mask);
      ::sigaction(sig, &act, nullptr);
    }
    // Past a file-size limit (ulimit -f) write() then fails with EFBIG, so
    // the temporary file is removed, instead of SIGXFSZ killing the process.
    struct sigaction old {};
    if (::sigaction(SIGXFSZ, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
      std::signal(SIGXFSZ, SIG_IGN);
  });
}

int remember(const std::string& temp) {
  if (temp.size() >= max_temp_path) return -1;
  for (int i = 0; i < max_pending; ++i) {
    bool expected = false;
    if (pending_used[i].load() || !pending_used[i].compare_exchange_strong(expected, true))
      continue;
    // Marked used before the name is complete: the handler may unlink a
    // truncated name, which names no file of ours (it ends in no ".tmp").
    std::memcpy(pending_paths[i].data(), temp.c_str(), temp.size() + 1);
    return i;
  }
  return -1;  // more than 32 at once: still removed on failure, not on a signal
}

void forget(int slot) {
  if (slot >= 0) pending_used[slot].store(false);
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

std::optional<file_identity> identify(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    return file_identity{
        static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), {}};
  }
  const fs::path p(path);
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  if (::stat(directory_of(p).c_str(), &st) != 0) return std::nullopt;
  return file_identity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                       name};
}

bool same_file(const std::string& a, const std::string& b) {
  const auto ia = identify(a), ib = identify(b);
  return ia && ib && *ia == *ib;
}

std::string why_not_writable_directory(const std::string& dir) {
  // A real probe, not access(2): root passes access() on a read-only
  // mount, a full disk passes it too. The probe is created as the
  // temporary files are (O_EXCL, a random name) and removed at once.
  std::uint64_t r = 0;
  if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) return "no randomness";
  char name[48];
  std::snprintf(name, sizeof name, ".privet-probe.%016llx.tmp", static_cast<unsigned long long>(r));
  const std::string probe = (fs::path(dir) / name).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return errno_text(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

std::string why_not_writable(const std::string& path) {
  const fs::path dir = directory_of(resolved_target(path));
  if (const std::string why = why_not_writable_directory(dir.string()); !why.empty())
    return "'" + path + "' is in '" + dir.string() + "', which is not writable (" + why + ")";
  return {};
}

output_file::output_file(std::string path) : path_(std::move(path)) {
  install_handlers();
  const fs::path target = resolved_target(path_);
  target_ = target.string();
  std::uint64_t r = 0;
  if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r))
    throw std::runtime_error("cannot write " + path_ + ": no randomness for a temporary name");
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r));
  // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict inside
  // the inlined `"." + std::string` (GCC bug 105329).
  std::string temp_name = ".";
  temp_name += target.filename().string();
  temp_name += '.';
  temp_name += hex;
  temp_name += ".tmp";
  temp_ = (directory_of(target) / temp_name).string();
  slot_ = remember(temp_);
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd_ < 0) {
    const int e = errno;
    forget(slot_);
    throw std::runtime_error("cannot write " + path_ + ": " + errno_text(e));
  }
  temp_exists_ = true;
  // A file replaced keeps its permissions (a private output stays private).
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0) ::fchmod(fd_, st.st_mode & 07777);
  buffer_.reserve(1 << 20);
}

output_file::~output_file() {
  abandon();
}

void output_file::abandon() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (temp_exists_) {
    ::unlink(temp_.c_str());
    temp_exists_ = false;
  }
  forget(slot_);
  slot_ = -1;
}

void output_file::flush() {
  if (fd_ < 0) throw std::runtime_error("cannot write " + path_ + ": already closed");
  if (!write_all(fd_, buffer_)) {
    const int e = errno;
    abandon();
    throw std::runtime_error("cannot write " + path_ + ": " + errno_text(e));
  }
  buffer_.clear();
}

void output_file::write(std::string_view text) {
  if (buffer_.size() + text.size() > (1u << 20)) {
    flush();
    if (text.size() > (1u << 20)) {
      if (!write_all(fd_, text)) {
        const int e = errno;
        abandon();
        throw std::runtime_error("cannot write " + path_ + ": " + errno_text(e));
      }
      return;
    }
  }
  buffer_.append(text);
}

void output_file::commit() {
  prepare();
  publish();
}

void output_file::prepare() {
  flush();
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    const int e = errno;
    fd_ = -1;
    ::unlink(temp_.c_str());
    temp_exists_ = false;
    forget(slot_);
    slot_ = -1;
    throw std::runtime_error("cannot write " + path_ + ": " + errno_text(e));
  }
  fd_ = -1;
}

void output_file::publish() {
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    ::unlink(temp_.c_str());
    temp_exists_ = false;
    forget(slot_);
    slot_ = -1;
    throw std::runtime_error("cannot write " + path_ + ": " + errno_text(e));
  }
  temp_exists_ = false;
  forget(slot_);
  slot_ = -1;
  // The rename itself reaches the disk with the directory.
  const int dir = ::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

output_file& output_set::add(std::string path) {
  files_.push_back(std::make_unique<output_file>(std::move(path)));
  return *files_.back();
}

namespace {

// Holds SIGINT, SIGTERM and SIGHUP back while alive (they are delivered
// when it ends): a set is never left half renamed by them.
class held_signals {
 public:
  held_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    held_ = ::pthread_sigmask(SIG_BLOCK, &set, &old_) == 0;
  }
  ~held_signals() {
    if (held_) ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  held_signals(const held_signals&) = delete;
  held_signals& operator=(const held_signals&) = delete;

 private:
  sigset_t old_{};
  bool held_ = false;
};

}  // namespace

void output_set::commit() {
  // Everything that can fail for want of space or a size limit happens here,
  // before any target changes; a throw leaves the temporary files to the
  // destructors.
  for (auto& f : files_) f->prepare();
  const held_signals held;
  // The old target of each file, kept as a hard link until the whole set is
  // in place: a later rename that fails renames these back.
  struct step {
    output_file* file;
    std::string backup;  // the old file's link; empty: none (see existed)
    bool existed = false;
    bool replaced = false;
  };
  std::vector<step> steps;
  steps.reserve(files_.size());
  std::string no_way_back;
  for (auto& f : files_) {
    step s{f.get(), {}, false, false};
    struct stat st {};
    if (::lstat(f->target_.c_str(), &st) == 0) {
      s.existed = true;
      s.backup = f->temp_ + ".old";
      if (::link(f->target_.c_str(), s.backup.c_str()) != 0) {
        s.backup.clear();
        if (no_way_back.empty()) no_way_back = f->path_;
      }
    }
    steps.push_back(std::move(s));
  }
  const auto drop_backups = [&] {
    for (const auto& s : steps)
      if (!s.backup.empty()) ::unlink(s.backup.c_str());
  };
  for (auto& s : steps) {
    try {
      s.file->publish();
      s.replaced = true;
    } catch (const std::runtime_error& e) {
      // Put back what this set replaced; the unpublished temporary files go
      // with their output_files.
      for (const auto& done : steps) {
        if (!done.replaced) continue;
        if (!done.backup.empty()) {
          ::rename(done.backup.c_str(), done.file->target_.c_str());
        } else if (!done.existed) {
          ::unlink(done.file->target_.c_str());
        }
      }
      drop_backups();
      std::string what = e.what();
      what += "; the other files of this run were put back as they were";
      if (!no_way_back.empty()) {
        what += ", except " + no_way_back + " (its file system refused a hard link to keep it)";
      }
      throw std::runtime_error(what);
    }
  }
  drop_backups();
  files_.clear();
}

void write_file(const std::string& path, std::string_view text) {
  output_file out(path);
  out.write(text);
  out.commit();
}

bool write_new_secret(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  const bool ok = ::fchmod(fd, 0600) == 0 && write_all(fd, text) && ::fsync(fd) == 0;
  if (::close(fd) != 0 || !ok) {
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

}  // namespace privet::examples
