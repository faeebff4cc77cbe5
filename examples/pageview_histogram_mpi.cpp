// The DP pageview histogram (examples/pageview_histogram.cpp, Adeleye et
// al. 2023, "Publishing Wikipedia usage data with strong privacy
// guarantees", arXiv:2308.16298) over MPI ranks, one process per rank:
//
//   mpiexec -n N pageview_histogram_mpi [--tsv FILE | --rows R [--seed S]]
//       [--secret-file FILE | --write-secret FILE] [--out FILE]
//       [--rho RHO] [--k K] [--t T] [--tau TAU] [--policy actor|client]
//       [--round-bytes B] [--single-process]
//
// The input is split across the ranks:
// - --tsv FILE: every rank opens the same file (a shared filesystem, or the
//   same path on every node), reads its header, and reads the data lines
//   that START in its byte range: the bytes after the header cut into N
//   equal ranges, rank r's [H + (S - H) r / N, H + (S - H) (r + 1) / N) for
//   a header of H bytes in a file of S. Each line is read by exactly one
//   rank, whatever N, and no rank reads more than its range and one line;
//   a rank whose range holds no line start reads no rows.
//   The share is read in rounds of at most --round-bytes bytes (64 MiB), and
//   after each round its rows go to the ranks that own their actors.
// - otherwise a generated day (examples/support/pageview_generator.hpp, as
//   the single-process example): every rank generates the whole day and
//   keeps the rows of the actors it owns.
// Projects and countries are looked up in the generator's fixed lists, so
// every rank gives them the same indices. No rank holds its rows (issue 33):
// each row is bounded by the rank that owns its actor (dist::owner_bounder,
// the single-process example's streaming bounder on each rank's actors),
// at once or after its round, so the ranks' bounding states add up to one
// process's and memory per rank follows its owned (actor, tuple) pairs plus
// one round's rows. The histogram's parameters, the sigma --rho implies
// included, are checked before the secret or the data, and the header line
// is looked for within the reader's line limit.
//
// The noise secret (32 bytes, core/keyed_streams.hpp) is rank 0's: read from
// --secret-file (64 hexadecimal characters, then at most a newline; read by
// rank 0 only, from a file only its owner can read: any other mode is
// refused with the chmod 600 that fixes it; its text and the key are wiped
// on every path) or drawn fresh from rank 0's OS CSPRNG and, with
// --write-secret, written to a new file of mode 0600. Rank 0 broadcasts it
// (dist::share_secret). With the same secret, the release does not depend on
// N (dist/pageview_histogram.hpp explains why), and --single-process (one
// process only) computes it with pageview::histogram alone, without any
// collective: the reference that examples/support/check_mpi_release.cmake
// compares 1, 2 and 3 ranks with, byte for byte.
//
// Ranks agree or refuse (issue 33): mpiexec can start ranks with different
// command lines ("-n 1 P ... : -n 1 P ... --rho 1000"), and a rank that
// releases with its own parameters would make the printed guarantee false.
// Before any rank reads data, draws the secret or branches on
// --single-process, every rank's verdict on its own command line and then
// every parameter of the run (--single-process, the --tsv file's identity,
// --rows, --seed, --rho, --k, --t, --tau, --policy, the secret and output
// files) are all-gathered, a collective every rank enters whatever its
// options; any difference from rank 0 makes every rank exit 2, rank 0
// naming the parameter, both values and the rank, and nothing is written.
//
// Rank 0 prints the data used, the parameters and the privacy guarantee
// spent (the histogram's privacy map after its bounding's stability map),
// and writes the release to --out as TSV, the format being:
//
//   page_id<TAB>project<TAB>country<TAB>count      (header line)
//   <page_id><TAB><project name><TAB><country code><TAB><noisy count>
//
// one line per released cell (noisy count >= tau), "\n" line ends, sorted by
// page_id, then project, then country, each in the order of the public lists
// (examples/support/pageview_generator.hpp); nothing else, so that two
// releases compare byte for byte; an empty release is its header line.
// Only rank 0 writes files, all of them whole or none, never over an input,
// the secret or another output (support/output_files.hpp).
#include <privet/accounting/zcdp.hpp>
#include <privet/dist/pageview_histogram.hpp>
#include <privet/io/pageview_reader.hpp>

#include "support/command_line.hpp"
#include "support/output_files.hpp"
#include "support/pageview_generator.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <streambuf>
#include <string>
#include <vector>

namespace pv = privet::pageview;
namespace ex = privet::examples;
namespace dist = privet::dist;

namespace {

// The release's noise: discrete Gaussian from the constant-time sampler.
using release_mechanism =
    privet::discrete_gaussian_mechanism<std::int64_t, privet::constant_time_noise>;

constexpr const char* program = "pageview_histogram_mpi";

struct options {
  std::string tsv;
  std::uint64_t rows = 1'000'000;
  std::uint64_t seed = 20261123;
  std::string write_tsv;
  std::string secret_file, write_secret;
  std::string out = "pageview_release.tsv";
  double rho = 0.015;
  std::uint64_t k = 10, t = 150, tau = 90;
  std::string policy = "actor";
  bool single_process = false;
  std::uint64_t round_bytes = std::uint64_t{64} << 20;
};

// Silences this process's stdout and keeps its stderr while alive: ranks
// other than 0 parse the same command line as rank 0 and must not print it
// all again, but a refusal of their own is kept (captured()) for rank 0 to
// print.
class silence {
 public:
  explicit silence(bool on) {
    if (!on) return;
    std::fflush(stdout);
    std::fflush(stderr);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null < 0) return;
    kept_ = std::tmpfile();
    saved_out_ = ::dup(1);
    saved_err_ = ::dup(2);
    ::dup2(null, 1);
    ::dup2(kept_ != nullptr ? ::fileno(kept_) : null, 2);
    ::close(null);
  }
  silence(const silence&) = delete;
  silence& operator=(const silence&) = delete;
  ~silence() {
    restore();
    if (kept_ != nullptr) std::fclose(kept_);
  }

  /// Restores stdout and stderr; what was written to stderr meanwhile (its
  /// first line, at most 4 KiB).
  std::string captured() {
    restore();
    if (kept_ == nullptr) return {};
    std::rewind(kept_);
    std::array<char, 4096> text{};
    const std::size_t n = std::fread(text.data(), 1, text.size(), kept_);
    std::string line(text.data(), n);
    if (const auto end = line.find('\n'); end != std::string::npos) line.resize(end);
    return line;
  }

 private:
  void restore() {
    std::fflush(stdout);
    std::fflush(stderr);
    if (saved_out_ >= 0) ::dup2(saved_out_, 1), ::close(saved_out_), saved_out_ = -1;
    if (saved_err_ >= 0) ::dup2(saved_err_, 2), ::close(saved_err_), saved_err_ = -1;
  }
  int saved_out_ = -1, saved_err_ = -1;
  std::FILE* kept_ = nullptr;
};

// Fills o; an exit code when the program should stop (0 after --help, 2
// after a one-line refusal). Rank 0 checks the files; the other ranks
// parse the same command line without looking at the filesystem (an
// output directory or the secret may exist on rank 0's node only), and
// take rank 0's verdict.
std::optional<int> parse(int argc, char** argv, options& o, bool rank0) {
  ex::command_line cli(program,
                       "Wikimedia's DP pageview histogram over MPI ranks: the day split across "
                       "ranks, one shared noise secret, the same release as one process.");
  const auto any_path = [](const std::string&) { return std::string(); };
  if (rank0) {
    cli.input_file("--tsv", o.tsv,
                   "read the day from this TSV file (every rank reads the lines starting in its "
                   "share of the bytes; the file must be readable on every node)");
  } else {
    cli.text("--tsv", o.tsv, "", any_path, "FILE");
  }
  cli.count("--rows", o.rows, "rows of the generated day (ignored with --tsv)", 1, 4'000'000'000);
  cli.count("--seed", o.seed, "seed of the generated day (not of the noise)", 1,
            std::numeric_limits<std::uint64_t>::max());
  // The secret file is checked by rank 0 only (it may exist on rank 0's
  // node only): a regular file only its owner can read; rank 0 reads it after
  // parsing.
  const std::string secret_help =
      "the noise secret: 64 hexadecimal characters (32 bytes), in a file only its owner can read "
      "(chmod 600), read by rank 0 (default: a fresh secret from rank 0's CSPRNG)";
  if (rank0) {
    cli.secret_file("--secret-file", o.secret_file, secret_help);
  } else {
    cli.text("--secret-file", o.secret_file, secret_help, any_path, "FILE");
  }
  if (rank0) {
    cli.output_file("--write-secret", o.write_secret,
                    "write the fresh secret to this new file (mode 0600), to repeat the release");
    cli.output_file("--out", o.out,
                    "the release, as TSV (written by rank 0; never over an input, the secret or "
                    "another output)");
    cli.output_file("--write-tsv", o.write_tsv, "also write the generated day as TSV here");
  } else {
    cli.text("--write-secret", o.write_secret, "", any_path, "FILE");
    cli.text("--out", o.out, "", any_path, "FILE");
    cli.text("--write-tsv", o.write_tsv, "", any_path, "FILE");
  }
  cli.real("--rho", o.rho, "zCDP budget per actor per day", ex::positive);
  cli.count("--k", o.k, "distinct tuples kept per actor", 1, 1'000'000);
  cli.count("--t", o.t, "candidate filter: public views a page needs to be noised", 1,
            std::uint64_t{1} << 62);
  cli.count("--tau", o.tau, "release threshold on noisy counts", 1, std::uint64_t{1} << 62);
  cli.count("--round-bytes", o.round_bytes,
            "with --tsv: bytes of its share a rank reads before the rows go to their actors' "
            "ranks (memory per rank for rows in flight, about 1.5x this; the release does not "
            "depend on it)",
            4096, std::uint64_t{1} << 31);
  cli.choice("--policy", o.policy,
             "bounding: actor (server-side, per actor signature) or client (rows bounded by "
             "clients, enforced again by the server)",
             {"actor", "client"});
  cli.flag("--single-process", o.single_process,
           "release with pageview::histogram alone, without MPI collectives (the reference; "
           "one process only)");
  if (auto exit_code = cli.parse(argc, argv)) return exit_code;
  if (!rank0) return std::nullopt;
  if (!o.secret_file.empty() && !o.write_secret.empty()) {
    return cli.refuse("--write-secret: " + o.write_secret +
                      " given with --secret-file; allowed: one of them (a secret read from a "
                      "file is already kept)");
  }
  if (!o.write_secret.empty() && std::filesystem::exists(o.write_secret)) {
    return cli.refuse("--write-secret: " + o.write_secret +
                      " exists; allowed: a new file (a secret is never overwritten)");
  }
  if (!o.write_tsv.empty() && !o.tsv.empty()) {
    return cli.refuse("--write-tsv: " + o.write_tsv +
                      " given with --tsv; allowed: only with a generated day");
  }
  return std::nullopt;
}

// The secret in `path` (64 hexadecimal characters, then at most "\n" or
// "\r\n"), or the reason it is refused. The message never quotes the
// file's content: it is a secret. The file is refused if group or others
// may read or write it (checked on the open file, so a chmod between the
// command line's check and this read is seen), and its text is wiped from
// this function's buffer on every path, refusals included; it is read with
// read(2) into that buffer alone, not through a stream's own buffer.
std::string read_secret(const std::string& path, privet::keyed_streams::key_type& key) {
  const std::string allowed =
      "allowed: a file only its owner can read (chmod 600 " + path +
      ") holding 64 hexadecimal characters (32 bytes), then at most a newline";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "--secret-file: " + path + " cannot be read; " + allowed;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return "--secret-file: " + path + " is not a regular file; " + allowed;
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return "--secret-file: " + path + " has mode " + mode + ", open to group or others; " + allowed;
  }
  std::array<char, 200> text{};
  std::size_t size = 0;
  while (size < text.size()) {
    const ssize_t n = ::read(fd, text.data() + size, text.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size += static_cast<std::size_t>(n);
  }
  ::close(fd);
  // Wiped on every return below.
  struct wipe {
    std::array<char, 200>& t;
    ~wipe() { sodium_memzero(t.data(), t.size()); }
  } wiped{text};
  if (size > 0 && text[size - 1] == '\n') --size;
  if (size > 0 && text[size - 1] == '\r') --size;
  if (size != 2 * key.size()) {
    return "--secret-file: " + path + " holds " +
           (size >= 198 ? std::string("more than 197") : std::to_string(size)) +
           " characters before its end of line; " + allowed;
  }
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < key.size(); ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      sodium_memzero(key.data(), key.size());
      return "--secret-file: " + path + " holds a character that is not hexadecimal (character " +
             std::to_string(2 * i + (hi < 0 ? 1 : 2)) + "); " + allowed;
    }
    key[i] = static_cast<unsigned char>(16 * hi + lo);
  }
  return {};
}

// Writes the secret as 64 hexadecimal characters and a newline to a new
// file that only its owner can read (O_EXCL, mode 0600); false if it cannot.
bool write_secret(const std::string& path, const privet::keyed_streams::key_type& key) {
  std::array<char, 65> text{};
  static constexpr char digits[] = "0123456789abcdef";
  for (std::size_t i = 0; i < key.size(); ++i) {
    text[2 * i] = digits[key[i] >> 4];
    text[2 * i + 1] = digits[key[i] & 15];
  }
  text[64] = '\n';
  const bool ok = ex::write_new_secret(path, std::string_view(text.data(), text.size()));
  sodium_memzero(text.data(), text.size());
  return ok;
}

// Two byte ranges of one file, [0, header_end) then [begin, end), as one
// stream: the header and this rank's lines, for io::pageview_reader.
class ranges_buf : public std::streambuf {
 public:
  ranges_buf(const std::string& path, std::uint64_t header_end, std::uint64_t begin,
             std::uint64_t end)
      : in_(path, std::ios::binary), ranges_{{{0, header_end}, {begin, end}}}, buf_(1 << 16) {}

 protected:
  int_type underflow() override {
    while (part_ < ranges_.size()) {
      auto& [pos, stop] = ranges_[part_];
      if (pos < stop) {
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(pos));
        const auto want =
            static_cast<std::streamsize>(std::min<std::uint64_t>(buf_.size(), stop - pos));
        in_.read(buf_.data(), want);
        const auto got = in_.gcount();
        if (got <= 0) return traits_type::eof();  // the file shrank: end here
        pos += static_cast<std::uint64_t>(got);
        setg(buf_.data(), buf_.data(), buf_.data() + got);
        return traits_type::to_int_type(buf_[0]);
      }
      ++part_;
    }
    return traits_type::eof();
  }

 private:
  std::ifstream in_;
  std::array<std::pair<std::uint64_t, std::uint64_t>, 2> ranges_;
  std::size_t part_ = 0;
  std::vector<char> buf_;
};

// The first line start at or after x: one past the first '\n' at or after
// x - 1 (x itself if x - 1 ends a line), or the file's size.
std::uint64_t line_start_from(std::ifstream& in, std::uint64_t x, std::uint64_t size) {
  if (x == 0 || x >= size) return std::min(x, size);
  in.clear();
  in.seekg(static_cast<std::streamoff>(x - 1));
  std::uint64_t pos = x - 1;
  char chunk[4096];
  while (pos < size) {
    in.read(chunk, sizeof chunk);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    for (std::size_t i = 0; i < got; ++i)
      if (chunk[i] == '\n') return pos + i + 1;
    pos += got;
    in.clear();
  }
  return size;
}

// This rank's share of the day, never held row by row (issue 33): each row
// goes to the rank that owns its actor (dist::owner_bounder), in rounds, and
// is bounded there, so the ranks' bounding states add up to the
// single-process program's and memory per rank follows its owned (actor,
// tuple) pairs.
struct share {
  std::optional<dist::owner_bounder> bounder;  // set before the rows are read
  std::uint64_t rows = 0;
  pv::page_counts public_counts;
  std::uint64_t skipped = 0;
  std::uint64_t actors = 0;  // generated day only (every rank counts them all)
  std::uint64_t rounds = 0;  // --tsv only: rounds of reading and sending rows
};

// Rank `rank` of `ranks`'s lines of the TSV file (header comment), in
// rounds: the share cut into `rounds` byte ranges at line starts, each read
// and its rows sent to their owners (a collective) before the next;
// `rounds_for` gives the rounds this rank needs at `round_bytes` per round,
// and every rank runs the most any rank needs (all-gathered), so all enter
// the same number of exchanges. Without collectives (--single-process, one
// rank) the rows are all bounded here and there is nothing to exchange.
void read_share(const dist::communicator& comm, const options& o,
                const std::vector<std::string>& project_names,
                const std::vector<std::string>& country_codes, share& s) {
  const std::string& path = o.tsv;
  const int rank = o.single_process ? 0 : comm.rank();
  const int ranks = o.single_process ? 1 : comm.size();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  const std::uint64_t size = std::filesystem::file_size(path);
  // The header's end: one past its '\n', looked for in at most the reader's
  // line limit and its line end (issue 33: a file without a newline cost
  // its whole size in memory here); a header without its newline ends the
  // file.
  constexpr std::uint64_t max_line = privet::io::pageview_reader::default_max_line_bytes;
  std::uint64_t header_end = size;
  {
    std::array<char, 4096> chunk{};
    std::uint64_t pos = 0;
    bool found = false;
    while (!found && pos < size && pos <= max_line + 2) {
      in.read(chunk.data(), chunk.size());
      const auto got = static_cast<std::size_t>(in.gcount());
      if (got == 0) break;
      for (std::size_t i = 0; i < got && !found; ++i) {
        if (chunk[i] == '\n') found = true, header_end = pos + i + 1;
      }
      pos += got;
    }
    if (!found && size > max_line + 2) {
      throw std::runtime_error(
          path + ": no header line end in its first " + std::to_string(max_line + 2) +
          " bytes; allowed: a header line of at most " + std::to_string(max_line) + " bytes");
    }
  }
  const std::uint64_t body = size - header_end, n = static_cast<std::uint64_t>(ranks);
  // (body * r) / n without overflowing 64 bits.
  const auto cut = [&](std::uint64_t r) {
    return header_end + (body / n) * r + (body % n) * r / n;
  };
  const std::uint64_t begin = line_start_from(in, cut(static_cast<std::uint64_t>(rank)), size);
  const std::uint64_t end = line_start_from(in, cut(static_cast<std::uint64_t>(rank) + 1), size);

  std::uint64_t rounds = (end - begin) / o.round_bytes + 1;
  if (!o.single_process) {
    for (const auto& r : comm.all_gather(std::vector<std::uint64_t>{rounds})) {
      rounds = std::max(rounds, r.at(0));
    }
  }
  const privet::io::name_index projects(project_names), countries(country_codes);
  const std::uint64_t span = end - begin;
  // begin + span * j / rounds without overflowing 64 bits.
  const auto sub = [&](std::uint64_t j) {
    return begin + (span / rounds) * j + (span % rounds) * j / rounds;
  };
  std::uint64_t from = begin;
  for (std::uint64_t j = 0; j < rounds; ++j) {
    const std::uint64_t to =
        j + 1 == rounds ? end : std::max(from, line_start_from(in, sub(j + 1), end));
    ranges_buf buf(path, header_end, from, to);
    std::istream stream(&buf);
    privet::io::pageview_reader reader(stream, projects, countries);
    reader.for_each([&](const pv::view& v) {
      s.bounder->add(v);
      ++s.rows;
      s.public_counts.add(v.tuple.page_of());
    });
    s.skipped += reader.skipped_rows();
    if (!o.single_process) s.bounder->exchange();
    from = to;
  }
  s.rounds = rounds;
}

// Rank `rank`'s rows of the generated day: the rows of the actors it owns
// (every rank generates the whole day, so no row needs to travel).
void generate_share(const options& o, bool rank0, ex::output_set& files,
                    const std::vector<std::string>& project_names,
                    const std::vector<std::string>& country_codes, share& s) {
  ex::generator_options g;
  g.rows = o.rows;
  g.seed = o.seed;
  ex::pageview_generator gen(g);
  // The day as TSV, written whole or not at all; the actor column is the
  // generator's signature text, which the reader hashes back to the same
  // actor ids (a day and its TSV give the same release).
  ex::output_file* out = nullptr;
  std::string line;
  if (rank0 && !o.write_tsv.empty()) {
    out = &files.add(o.write_tsv);
    out->write("page_id\tpage_title\tproject\tcountry\tdate\tactor_signature\n");
  }
  s.actors = gen.generate([&](const pv::view& v) {
    if (s.bounder->owns(v.actor)) {
      s.bounder->add(v);
      ++s.rows;
      s.public_counts.add(v.tuple.page_of());
    }
    if (out) {
      const std::string page = std::to_string(v.tuple.page);
      line.assign(page).append("\tPage_").append(page).append("\t");
      line.append(project_names[v.tuple.project]).append("\t");
      line.append(country_codes[v.tuple.country]).append("\t2026-11-22\t");
      line.append(gen.signature()).append("\n");
      out->write(line);
    }
  });
}

// Every rank's message (empty: none), so that every rank stops together
// when one of them failed; rank 0 prints the first.
bool all_fine(const dist::communicator& comm, const std::string& mine) {
  const auto all = comm.all_gather(std::vector<char>(mine.begin(), mine.end()));
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty()) continue;
    if (comm.rank() == 0) {
      std::fprintf(stderr, "%s: rank %zu: %s\n", program, r,
                   std::string(all[r].begin(), all[r].end()).c_str());
    }
    return false;
  }
  return true;
}

// ---- ranks agree or refuse (issue 33) -----------------------------------------
// Every rank parses its own command line (mpiexec's MPMD form, "-n 1 P ... :
// -n 1 P ...", gives ranks different ones), so before any data is read or
// any rank branches (--single-process included), every rank's verdict on
// its command line, then every parameter that affects the run, are
// all-gathered: a collective every rank enters whatever its options, so no
// mix can leave a rank waiting. Every rank then finds the same first
// difference from rank 0 and refuses with exit code 2; rank 0 prints it.

/// One parameter of the run: what the ranks compare (`key`) and how the
/// refusal shows it.
struct parameter {
  std::string name, key, shown;
};

/// What identifies the --tsv file on this rank without reading the day: its
/// size and a BLAKE2b-256 digest of its size, first 64 KiB and last 64 KiB
/// (the header, and where a copy cut short or grown differs). Two ranks
/// reading different files split the day wrongly (a line read twice or by
/// no rank); the whole content is not digested, which would read the day
/// once more on every rank.
std::string tsv_identity(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    return "no readable regular file";
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  constexpr std::uint64_t part = 64 * 1024;
  std::vector<unsigned char> bytes(8);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(size >> (8 * i));
  const auto take = [&](std::uint64_t from, std::uint64_t n) {
    const std::size_t at = bytes.size();
    bytes.resize(at + n);
    std::uint64_t got = 0;
    while (got < n) {
      const ssize_t r =
          ::pread(fd, bytes.data() + at + got, n - got, static_cast<off_t>(from + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<std::uint64_t>(r);
    }
    bytes.resize(at + got);
  };
  const std::uint64_t head = std::min(size, part);
  take(0, head);
  take(std::max(head, size - std::min(size, part)),
       size - std::max(head, size - std::min(size, part)));
  ::close(fd);
  if (sodium_init() < 0) return "no digest (libsodium did not start)";
  std::array<unsigned char, 32> digest{};
  crypto_generichash(digest.data(), digest.size(), bytes.data(), bytes.size(), nullptr, 0);
  static constexpr char hex[] = "0123456789abcdef";
  std::string text = std::to_string(size) + " bytes, BLAKE2b-256 of size, first and last 64 KiB ";
  for (const unsigned char b : digest) text.append(1, hex[b >> 4]).append(1, hex[b & 15]);
  return text;
}

/// The identity as a refusal shows it: the digest cut to 16 hexadecimal
/// characters (the comparison uses all of it).
std::string shown_identity(const std::string& identity) {
  const auto space = identity.rfind(' ');
  if (space == std::string::npos || identity.size() - space - 1 != 64) return identity;
  return identity.substr(0, space + 17) + "...";
}

/// Every parameter that affects the run, this rank's values.
std::vector<parameter> parameters_of(const options& o) {
  const auto same = [](std::string name, std::string value) {
    return parameter{std::move(name), value, value};
  };
  // The shortest text that reads back as the same double: 0.015, not
  // 0.014999999999999999.
  char rho[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(rho, sizeof rho, "%.*g", digits, o.rho);
    if (std::strtod(rho, nullptr) == o.rho) break;
  }
  const std::string identity = o.tsv.empty() ? "none (a generated day)" : tsv_identity(o.tsv);
  return {
      same("--single-process", o.single_process ? "given" : "not given"),
      parameter{"--tsv", identity,
                o.tsv.empty() ? identity : o.tsv + " (" + shown_identity(identity) + ")"},
      same("--rows", std::to_string(o.rows)),
      same("--seed", std::to_string(o.seed)),
      same("--rho", rho),
      same("--k", std::to_string(o.k)),
      same("--t", std::to_string(o.t)),
      same("--tau", std::to_string(o.tau)),
      same("--policy", o.policy),
      // The secret is rank 0's and the files are rank 0's to write, but a
      // rank that names others was not started for this run.
      same("--secret-file", o.secret_file.empty() ? "not given" : o.secret_file),
      same("--write-secret", o.write_secret.empty() ? "not given" : o.write_secret),
      same("--out", o.out),
      same("--write-tsv", o.write_tsv.empty() ? "not given" : o.write_tsv),
  };
}

/// The first parameter in which a rank differs from rank 0, as a refusal
/// ("" when every rank agrees): the same text on every rank; collective.
std::string disagreement(const dist::communicator& comm, const std::vector<parameter>& mine) {
  std::vector<char> record;
  for (const auto& p : mine) {
    for (const std::string* field : {&p.name, &p.key, &p.shown}) {
      record.insert(record.end(), field->begin(), field->end());
      record.push_back('\0');
    }
  }
  const auto all = comm.all_gather(record);
  const auto decode = [](const std::vector<char>& bytes) {
    std::vector<std::string> fields;
    std::string field;
    for (const char c : bytes) {
      if (c == '\0') {
        fields.push_back(std::move(field));
        field.clear();
      } else {
        field.push_back(c);
      }
    }
    return fields;
  };
  const auto reference = decode(all[0]);
  for (std::size_t r = 1; r < all.size(); ++r) {
    const auto theirs = decode(all[r]);
    for (std::size_t i = 0; i + 2 < reference.size(); i += 3) {
      if (i + 2 < theirs.size() && theirs[i] == reference[i] && theirs[i + 1] == reference[i + 1]) {
        continue;
      }
      const std::string shown = i + 2 < theirs.size() ? theirs[i + 2] : "nothing";
      return reference[i] + ": " + shown + " on rank " + std::to_string(r) + ", " +
             reference[i + 2] + " on rank 0; allowed: the same value on every rank";
    }
  }
  return {};
}

std::string release_tsv(const std::vector<pv::release_row>& rows,
                        const std::vector<std::string>& project_names,
                        const std::vector<std::string>& country_codes) {
  std::string text = "page_id\tproject\tcountry\tcount\n";
  for (const auto& [t, c] : rows) {
    text += std::to_string(t.page) + '\t' + project_names.at(t.project) + '\t' +
            country_codes.at(t.country) + '\t' + std::to_string(c) + '\n';
  }
  return text;
}

// The histogram's parameters from the command line.
pv::parameters<> parameters_of_run(const options& o) {
  pv::parameters<> p;
  p.budget = privet::zcdp(o.rho);
  p.k = o.k;
  p.candidate_threshold = static_cast<std::int64_t>(o.t);
  p.release_threshold = static_cast<std::int64_t>(o.tau);
  return p;
}

// The (eps, 1e-7)-DP statement of what a day costs, or why there is none:
// the constant-time sampler's distance tau adds (1 + e^eps) tau to delta,
// which exceeds 1e-7 once rho is very large (--rho 100 gives eps near 180).
std::string approx_dp_text(const privet::within_tv<privet::zcdp>& spent) {
  try {
    char text[96];
    std::snprintf(text, sizeof text, "(%.4f, 1e-7)-DP (Canonne-Kamath-Steinke conversion)",
                  privet::to_approx_dp(spent, 1e-7).epsilon());
    return text;
  } catch (const privet::invalid_parameter&) {
    return "no (eps, 1e-7)-DP statement at this rho (the sampler's distance times e^eps "
           "exceeds 1e-7)";
  }
}

template <class Bounding>
std::vector<pv::release_row> run(const dist::communicator& comm, const options& o, share& s,
                                 const privet::keyed_streams& streams, std::uint32_t countries) {
  // The noise from the constant-time sampler (issue 36), in one process and
  // over the ranks alike.
  const pv::histogram<Bounding, release_mechanism> h(parameters_of_run(o), countries);
  std::vector<pv::release_row> released;
  if (o.single_process) {
    // h(rows, ...) without the rows: the same bounded counts (view_bounder).
    released = h.release(s.bounder->bounder().counts(), s.public_counts, streams);
  } else {
    released = dist::gather_release(
        comm, dist::release_owned(comm, h, *s.bounder, s.public_counts, streams));
  }
  if (comm.rank() == 0) {
    const auto spent = h.guarantee();
    std::printf(
        "parameters: rho = %g per day, k = %llu distinct tuples per actor (%s bounding), "
        "candidate filter t = %llu public views, release threshold tau = %llu\n"
        "noise: discrete Gaussian, sigma = %.2f, constant-time sampler, on every candidate page "
        "x %u countries\n"
        "privacy spent per actor per day: %g-zCDP within total variation %.2g (the sampler's "
        "distance to the exact noise), i.e. %s\n",
        o.rho, static_cast<unsigned long long>(o.k),
        o.policy == "actor" ? "server-side, per actor signature" : "client-side, enforced again",
        static_cast<unsigned long long>(o.t), static_cast<unsigned long long>(o.tau),
        h.mechanism().distribution().sigma(), countries, spent.base().rho(),
        spent.total_variation(), approx_dp_text(spent).c_str());
  }
  return released;
}

int main_mpi(int argc, char** argv, const dist::communicator& comm) {
  const bool rank0 = comm.rank() == 0;

  options o;
  std::optional<int> stop;
  std::string refusal;  // this rank's own refusal of its command line (not rank 0's)
  {
    silence quiet(!rank0);
    stop = parse(argc, argv, o, rank0);
    refusal = quiet.captured();
  }
  // Every rank's verdict on its own command line, on every rank: rank 0
  // checked the files, the others only their values, and with mpiexec's MPMD
  // form the command lines may differ. Any refusal stops every rank.
  {
    std::vector<char> mine{static_cast<char>(stop ? 1 + *stop : 0)};
    if (stop && !rank0) mine.insert(mine.end(), refusal.begin(), refusal.end());
    const auto all = comm.all_gather(mine);
    const auto code = [&](std::size_t r) {
      return all[r].empty() ? 3 : static_cast<unsigned char>(all[r][0]);
    };
    bool same = true;
    for (std::size_t r = 1; r < all.size(); ++r) same = same && code(r) == code(0);
    if (same && code(0) != 0) return code(0) - 1;  // --help everywhere, or refused everywhere
    if (!same) {
      if (code(0) == 3) return 2;  // rank 0 printed its refusal
      for (std::size_t r = 1; r < all.size(); ++r) {
        if (code(r) == code(0)) continue;
        if (rank0) {
          std::string theirs(all[r].begin() + (all[r].empty() ? 0 : 1), all[r].end());
          const std::string prefix = std::string(program) + ": ";
          if (theirs.rfind(prefix, 0) == 0) theirs.erase(0, prefix.size());
          if (code(r) == 3) {
            std::fprintf(stderr, "%s: rank %zu refused its command line: %s\n", program, r,
                         theirs.c_str());
          } else {
            std::fprintf(stderr,
                         "%s: --help: given on rank %zu and not on rank %zu; allowed: the same "
                         "command line on every rank\n",
                         program, code(r) == 1 ? r : std::size_t{0},
                         code(r) == 1 ? std::size_t{0} : r);
          }
        }
        return 2;
      }
    }
  }
  // Every parameter of the run, agreed before any rank reads data, draws the
  // secret or branches on --single-process.
  if (const std::string why = disagreement(comm, parameters_of(o)); !why.empty()) {
    if (rank0) std::fprintf(stderr, "%s: %s (see --help)\n", program, why.c_str());
    return 2;
  }
  if (o.single_process && comm.size() > 1) {
    if (rank0) {
      std::fprintf(stderr,
                   "%s: --single-process: given on %d ranks; allowed: one process (the "
                   "single-process reference) (see --help)\n",
                   program, comm.size());
    }
    return 2;
  }

  // The histogram's parameters, the noise's sigma that --rho implies
  // included, checked before the secret is drawn or any data opened (issue
  // 33): every rank has the same parameters now, so every rank refuses alike.
  try {
    const auto countries = static_cast<std::uint32_t>(ex::countries().size());
    if (o.policy == "actor") {
      (void)pv::histogram<pv::bound_per_actor, release_mechanism>(parameters_of_run(o), countries);
    } else {
      (void)pv::histogram<pv::client_bounded, release_mechanism>(parameters_of_run(o), countries);
    }
  } catch (const privet::error& e) {
    if (rank0) std::fprintf(stderr, "%s: the parameters: %s (see --help)\n", program, e.what());
    return 2;
  }

  // ---- the secret: rank 0's, from the file or its CSPRNG -----------------------
  privet::keyed_streams::key_type key{};
  // Wiped on every path out of here, refusals included.
  struct wipe_key {
    privet::keyed_streams::key_type& k;
    ~wipe_key() { sodium_memzero(k.data(), k.size()); }
  } wiped{key};
  std::vector<unsigned char> refused(1, 0);
  std::string secret_source;
  if (rank0) {
    if (!o.secret_file.empty()) {
      const std::string why = read_secret(o.secret_file, key);
      if (!why.empty()) {
        std::fprintf(stderr, "%s: %s (see --help)\n", program, why.c_str());
        refused[0] = 1;
      }
      secret_source = "read from " + o.secret_file;
    } else {
      key = privet::keyed_streams().secret();  // fresh, from the OS CSPRNG
      if (!o.write_secret.empty()) {
        if (!write_secret(o.write_secret, key)) {
          std::fprintf(stderr,
                       "%s: --write-secret: %s cannot be created; allowed: a new file in "
                       "a writable directory (see --help)\n",
                       program, o.write_secret.c_str());
          refused[0] = 1;
        }
        secret_source = "fresh from rank 0's CSPRNG, written to " + o.write_secret +
                        " (mode 0600: keep it secret, it determines the noise)";
      } else {
        secret_source = "fresh from rank 0's CSPRNG, not kept (--write-secret keeps it)";
      }
    }
  }
  comm.broadcast(refused, 0);
  if (refused[0] != 0) return 2;
  comm.broadcast(key, 0);
  const privet::keyed_streams streams(key);
  sodium_memzero(key.data(), key.size());

  // ---- this rank's share of the day ---------------------------------------------
  const auto& country_list = ex::countries();
  const auto& project_list = ex::projects();
  std::vector<std::string> country_codes, project_names;
  for (const auto& c : country_list) country_codes.emplace_back(c.code);
  for (const auto& p : project_list) project_names.emplace_back(p.name);
  share s;
  {
    // The bounding's salt from the shared secret, as every rank's and one
    // process's (dist::owner_bounder).
    const auto countries = static_cast<std::uint32_t>(country_list.size());
    if (o.policy == "actor") {
      s.bounder.emplace(
          comm,
          pv::histogram<pv::bound_per_actor, release_mechanism>(parameters_of_run(o), countries),
          streams);
    } else {
      s.bounder.emplace(
          comm,
          pv::histogram<pv::client_bounded, release_mechanism>(parameters_of_run(o), countries),
          streams);
    }
  }
  // Rank 0's files (--write-tsv, --out) appear together at the end, or none.
  ex::output_set files;
  std::string failure;
  try {
    if (o.tsv.empty()) {
      generate_share(o, rank0, files, project_names, country_codes, s);
    } else {
      read_share(comm, o, project_names, country_codes, s);
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!all_fine(comm, failure)) return 1;
  const std::vector<std::uint64_t> mine{s.rows, s.skipped};
  const auto counts = comm.all_gather(mine);
  if (rank0) {
    std::uint64_t rows = 0, skipped = 0, least = std::numeric_limits<std::uint64_t>::max(),
                  most = 0;
    for (const auto& c : counts) {
      rows += c[0];
      skipped += c[1];
      least = std::min(least, c[0]);
      most = std::max(most, c[0]);
    }
    const std::string data =
        o.tsv.empty()
            ? "a generated day (seed " + std::to_string(o.seed) + ", " + std::to_string(s.actors) +
                  " actors; model in "
                  "examples/support/pageview_generator.hpp), each actor's rows on the rank "
                  "that owns it"
            : "file " + o.tsv + ", split by bytes at line starts, read in " +
                  std::to_string(s.rounds) + " rounds, rows sent to their actors' ranks";
    std::printf("data: %s\n      %llu rows on %d rank%s (%llu to %llu per rank)", data.c_str(),
                static_cast<unsigned long long>(rows), comm.size(), comm.size() == 1 ? "" : "s",
                static_cast<unsigned long long>(least), static_cast<unsigned long long>(most));
    if (!o.tsv.empty()) {
      std::printf(", %llu malformed rows skipped (a diagnostic of the raw data: do not publish it)",
                  static_cast<unsigned long long>(skipped));
    }
    std::printf("\nsecret: %s\n", secret_source.c_str());
  }

  // ---- the release ------------------------------------------------------------------
  const auto countries = static_cast<std::uint32_t>(country_list.size());
  const auto released = o.policy == "actor"
                            ? run<pv::bound_per_actor>(comm, o, s, streams, countries)
                            : run<pv::client_bounded>(comm, o, s, streams, countries);
  std::string written;
  if (rank0) {
    const std::string text = release_tsv(released, project_names, country_codes);
    // Written whole or not at all; an empty release is a release (its
    // header line alone), written and reported like any other.
    try {
      files.write(o.out, text);
      files.commit();
    } catch (const std::exception& e) {
      written = e.what();
    }
    if (written.empty()) {
      std::printf("release: %zu cells (noisy count >= tau) -> %s (%s)\n", released.size(),
                  o.out.c_str(),
                  o.single_process ? "pageview::histogram in one process"
                                   : "dist::release_owned over the ranks");
    }
  }
  return all_fine(comm, written) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  const dist::environment env(argc, argv);
  const dist::communicator comm;
  try {
    return main_mpi(argc, argv, comm);
  } catch (const std::exception& e) {
    // Every failure the ranks can agree on is reported above; this one is
    // one rank's alone (memory, MPI), and the others may be waiting for it
    // in a collective.
    std::fprintf(stderr, "%s: rank %d: %s\n", program, comm.rank(), e.what());
    if (comm.size() > 1) MPI_Abort(comm.get(), 1);
    return 1;
  }
} catch (const std::exception& e) {  // MPI did not start
  std::fprintf(stderr, "%s: %s\n", program, e.what());
  return 1;
}
