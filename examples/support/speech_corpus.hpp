// examples/support/speech_corpus.hpp — a keyword-spotting corpus built
// locally for the federated speech example (Sotto Voce: Shoemate et al.
// 2022, arXiv:2207.07816, which trains on LibriSpeech, not available here):
// ten spoken keywords synthesised by espeak-ng with many voices, speeds and
// pitches, turned into 13 MFCCs per 10 ms frame (privet/ml/mfcc.hpp), and
// split into the organisations of the Sotto Voce setting.
//
// Speakers are (espeak-ng voice + variant, speed, pitch) triples; every
// utterance of a speaker jitters speed (+-8 %), pitch (+-6) and amplitude
// (+-20 %) from a seeded stream, so repetitions differ the way a person's
// do. Organisations (default_organisations()):
//   public    — 6 American and southern-English speakers, public data;
//   clinic    — 8 Scottish and received-pronunciation speakers (private);
//   callcentre — 8 Caribbean, New York, Lancaster and West Midlands
//                speakers (private);
//   outlier   — one speaker unlike the rest: a fast (250 wpm), very high
//               pitched whisper (espeak-ng's `whisperf` variant).
// Each speaker says each keyword `repetitions` times; the last
// `test_repetitions` of every (speaker, word) go to the organisation's test
// set, the others to its training set, so test sets hold the same speakers
// saying the words again.
//
// Audio: espeak-ng's 16-bit mono at 22050 Hz, read by privet::io::read_wav.
// Leading and trailing silence is cut to 50 ms around the samples within
// 2 % of the peak, and white noise at `snr_db` (30 dB) is added from a
// seeded stream, so no frame is digital silence and the features are not
// bit-identical across repetitions. Then MFCCs with `mfcc` options (13
// coefficients, 25 ms Hamming windows every 10 ms, 26 mel filters from 0 Hz
// to Nyquist, c_0..c_12, no mean normalisation).
//
// Cache: `cache_dir/corpus-<hash of the synthesis settings>/` holds
// manifest.txt (the espeak-ng version and the settings; a different
// version discards the audio), wav/*.wav (written under a temporary name
// and renamed, so an interrupted run resumes where it stopped) and
// features-<hash>.bin (the MFCC sequences in the compact format below).
// Synthesis runs `jobs` espeak-ng processes at a time, each launched with
// posix_spawn (no shell; arguments passed as they are), with a progress
// line on stderr.
//
// Fallback: when espeak-ng is not installed (or `use_sample` is set), the
// corpus is read from a small embedded sample, examples/data/speech_sample.bin,
// written by `speech_features --write-sample` from a synthesised corpus:
// a few utterances per keyword and organisation, quantised to 8 bits per
// coefficient.
//
// File format (little-endian), for the cache and the sample alike:
//   "PRVSPCH" 0x01 | u8 quantised (0: float32, 1: int8 affine) | u8 K
//   | f32 frame_shift_ms | u16 + bytes: provenance
//   | u16 words, each u8 + bytes | u8 organisations, each u8 kind, u8 + bytes
//   | u16 speakers, each u8 organisation, u16 speed, u8 pitch, u8 + bytes voice
//   | quantised: f32 offset[K], f32 step[K]
//   | u32 utterances, each u16 speaker, u8 label, u8 split (0 train, 1 test),
//     u16 frames, frames * K values (f32, or i8 q meaning offset + step q).
// The reader checks every count against the bytes present and every index
// against its table, and throws privet::serialization_error otherwise.
#pragma once

#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/io/wav.hpp>
#include <privet/ml/mfcc.hpp>

#include "output_files.hpp"
#include "progress.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

extern char** environ;

namespace privet::examples::speech {

enum class org_kind : std::uint8_t { public_data = 0, private_data = 1, outlier = 2 };

inline const char* kind_name(org_kind k) {
  switch (k) {
    case org_kind::public_data:
      return "public";
    case org_kind::private_data:
      return "private";
    default:
      return "outlier";
  }
}

struct speaker_spec {
  std::string voice;  ///< espeak-ng voice[+variant], e.g. "en-gb-scotland+f4"
  int speed;          ///< words per minute, 80..450
  int pitch;          ///< 0..99
};

struct organisation_spec {
  std::string name;
  org_kind kind;
  std::vector<speaker_spec> speakers;
};

/// The ten keywords of Google's Speech Commands benchmark.
inline std::vector<std::string> default_keywords() {
  return {"yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"};
}

inline std::vector<organisation_spec> default_organisations() {
  return {
      {"public",
       org_kind::public_data,
       {{"en-us+m1", 150, 40},
        {"en-us+f2", 170, 65},
        {"en+m3", 160, 45},
        {"en+f3", 145, 70},
        {"en-us+m7", 185, 35},
        {"en+f1", 165, 55}}},
      {"clinic",
       org_kind::private_data,
       {{"en-gb-scotland+m2", 155, 42},
        {"en-gb-scotland+f4", 175, 68},
        {"en-gb-x-rp+m4", 140, 38},
        {"en-gb-x-rp+f5", 160, 72},
        {"en-gb-scotland+m6", 190, 50},
        {"en-gb-x-rp+m5", 170, 47},
        {"en-gb-scotland+f2", 150, 60},
        {"en-gb-x-rp+f1", 180, 62}}},
      {"callcentre",
       org_kind::private_data,
       {{"en-029+m1", 160, 44},
        {"en-029+f3", 150, 66},
        {"en-us-nyc+m4", 175, 40},
        {"en-us-nyc+f2", 185, 63},
        {"en-gb-x-gbclan+m2", 145, 48},
        {"en-gb-x-gbclan+f4", 165, 70},
        {"en-gb-x-gbcwmd+m7", 155, 36},
        {"en-gb-x-gbcwmd+f5", 170, 58}}},
      {"outlier", org_kind::outlier, {{"en-us+whisperf", 250, 99}}},
  };
}

struct speaker {
  std::string voice;
  int speed;
  int pitch;
  std::uint8_t organisation;
  [[nodiscard]] std::string name() const {
    return voice + " " + std::to_string(speed) + " wpm pitch " + std::to_string(pitch);
  }
};

struct utterance {
  xt::xtensor<float, 2> mfcc;  ///< frames x coefficients
  std::uint8_t label;          ///< index into corpus::words
  std::uint16_t speaker;       ///< index into corpus::speakers
};

struct organisation {
  std::string name;
  org_kind kind;
  std::vector<utterance> train, test;
};

struct corpus {
  std::vector<std::string> words;
  std::vector<speaker> speakers;
  std::vector<organisation> organisations;
  std::size_t coefficients = 13;
  double frame_shift_ms = 10;
  std::string provenance;       ///< how the features were made (stored in the file)
  std::string source;           ///< where this run got them from
  bool embedded = false;        ///< the embedded sample was used
  std::size_t synthesised = 0;  ///< utterances espeak-ng produced in this run
  double seconds = 0;           ///< time load_or_synthesise took
};

struct options {
  std::vector<std::string> words = default_keywords();
  std::vector<organisation_spec> organisations = default_organisations();
  std::size_t speakers_per_organisation = 0;  ///< 0: all; else the first n of each
  std::size_t repetitions = 10;               ///< utterances per (speaker, word)
  std::size_t test_repetitions = 3;           ///< of which this many are test data
  std::uint64_t seed = 20240611;              ///< jitter and noise streams
  double snr_db = 30;                         ///< white noise added before the MFCCs
  ml::mfcc_options mfcc = {.sample_rate = 22050};
  unsigned jobs = 2;                  ///< espeak-ng processes at a time
  std::string program = "espeak-ng";  ///< looked up in PATH unless it has a '/'
  std::filesystem::path sample;       ///< the embedded sample file
  bool use_sample = false;            ///< skip espeak-ng even if it is there
  bool progress = true;               ///< progress line on stderr
};

namespace detail {

inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

inline std::string hex(std::uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

/// The executable `name` in PATH (or `name` itself if it contains '/').
inline std::optional<std::filesystem::path> find_program(const std::string& name) {
  const auto usable = [](const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (usable(name)) return std::filesystem::path(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const auto p = std::filesystem::path(dir) / name;
    if (usable(p)) return p;
  }
  return std::nullopt;
}

/// Starts `program` with `args` (argv[0] included) by posix_spawn, stdout
/// on `out_fd` or /dev/null, stdin from /dev/null, stderr inherited.
inline pid_t spawn(const std::filesystem::path& program, const std::vector<std::string>& args,
                   int out_fd) {
  posix_spawn_file_actions_t fa;
  if (int rc = posix_spawn_file_actions_init(&fa); rc != 0) {
    throw std::system_error(rc, std::generic_category(), "posix_spawn_file_actions_init");
  }
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (out_fd >= 0) {
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  } else {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  }
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    throw std::system_error(rc, std::generic_category(), "cannot start " + program.string());
  }
  return pid;
}

/// Waits for `pid`; its exit status, or 128 + the signal that ended it.
inline int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// espeak-ng's version, from the first line of `espeak-ng --version`
/// ("eSpeak NG text-to-speech: 1.51  Data at: ...").
inline std::string espeak_version(const std::filesystem::path& program) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  pid_t pid = 0;
  try {
    pid = spawn(program, {program.string(), "--version"}, fds[1]);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (text.size() < 4096) text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (const int rc = wait_for(pid); rc != 0) {
    throw std::runtime_error(program.string() + " --version exited with status " +
                             std::to_string(rc));
  }
  const std::string key = "text-to-speech:";
  if (const auto at = text.find(key); at != std::string::npos) {
    std::istringstream rest(text.substr(at + key.size()));
    std::string v;
    if (rest >> v) return v;
  }
  const auto line = text.substr(0, text.find('\n'));
  if (line.empty()) throw std::runtime_error(program.string() + " --version printed nothing");
  return line;
}

// ---- little-endian byte I/O for the feature file ----------------------------

class byte_writer {
 public:
  void u8(std::uint64_t v) { out_.push_back(static_cast<char>(v & 0xff)); }
  void u16(std::uint64_t v) { u8(v), u8(v >> 8); }
  void u32(std::uint64_t v) { u16(v & 0xffff), u16(v >> 16); }
  void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
  void text8(const std::string& s) {
    if (s.size() > 255) throw privet::overflow_error("privet: speech corpus: name too long: " + s);
    u8(s.size());
    out_ += s;
  }
  void text16(const std::string& s) {
    const std::string t = s.substr(0, 65535);
    u16(t.size());
    out_ += t;
  }
  void raw(const std::string& s) { out_ += s; }
  [[nodiscard]] const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

class byte_reader {
 public:
  byte_reader(const std::string& bytes, std::string where) : b_(bytes), where_(std::move(where)) {}
  std::uint64_t u8() {
    need(1, "a byte");
    return static_cast<unsigned char>(b_[pos_++]);
  }
  std::uint64_t u16() {
    const auto lo = u8();
    return lo | (u8() << 8);
  }
  std::uint64_t u32() {
    const auto lo = u16();
    return lo | (u16() << 16);
  }
  float f32() {
    const float v = std::bit_cast<float>(static_cast<std::uint32_t>(u32()));
    if (!std::isfinite(v)) fail("a non-finite value at byte " + std::to_string(pos_ - 4));
    return v;
  }
  std::string text(std::size_t n, const char* what) {
    need(n, what);
    std::string s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  void need(std::uint64_t n, const std::string& what) {
    if (n > b_.size() - pos_) {
      fail("truncated: " + what + " at byte " + std::to_string(pos_) + " needs " +
           std::to_string(n) + " bytes, " + std::to_string(b_.size() - pos_) + " left");
    }
  }
  [[nodiscard]] std::size_t pos() const { return pos_; }
  [[nodiscard]] std::size_t left() const { return b_.size() - pos_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw privet::serialization_error("privet: speech corpus " + where_ + ": " + what);
  }

 private:
  const std::string& b_;
  std::string where_;
  std::size_t pos_ = 0;
};

inline constexpr char file_magic[8] = {'P', 'R', 'V', 'S', 'P', 'C', 'H', 1};

}  // namespace detail

/// Writes `c` in the file format of the header comment, as float32 or
/// quantised to int8 per coefficient (offset and step from each
/// coefficient's range over the whole corpus).
inline void write_features(const std::filesystem::path& path, const corpus& c, bool quantise) {
  detail::byte_writer w;
  w.raw(std::string(detail::file_magic, 8));
  w.u8(quantise ? 1 : 0);
  w.u8(c.coefficients);
  w.f32(static_cast<float>(c.frame_shift_ms));
  w.text16(c.provenance);
  w.u16(c.words.size());
  for (const auto& word : c.words) w.text8(word);
  w.u8(c.organisations.size());
  for (const auto& o : c.organisations) {
    w.u8(static_cast<std::uint8_t>(o.kind));
    w.text8(o.name);
  }
  w.u16(c.speakers.size());
  for (const auto& s : c.speakers) {
    w.u8(s.organisation);
    w.u16(static_cast<std::uint64_t>(s.speed));
    w.u8(static_cast<std::uint64_t>(s.pitch));
    w.text8(s.voice);
  }
  const std::size_t k = c.coefficients;
  std::vector<float> offset(k, 0), step(k, 1);
  if (quantise) {
    std::vector<float> lo(k, INFINITY), hi(k, -INFINITY);
    for (const auto& o : c.organisations)
      for (const auto* set : {&o.train, &o.test})
        for (const auto& u : *set)
          for (std::size_t t = 0; t < u.mfcc.shape()[0]; ++t)
            for (std::size_t j = 0; j < k; ++j)
              lo[j] = std::min(lo[j], u.mfcc(t, j)), hi[j] = std::max(hi[j], u.mfcc(t, j));
    for (std::size_t j = 0; j < k; ++j) {
      if (!(hi[j] >= lo[j])) lo[j] = hi[j] = 0;
      offset[j] = (lo[j] + hi[j]) / 2;
      step[j] = hi[j] > lo[j] ? (hi[j] - lo[j]) / 254 : 1.0f;
      w.f32(offset[j]);
    }
    for (std::size_t j = 0; j < k; ++j) w.f32(step[j]);
  }
  std::size_t total = 0;
  for (const auto& o : c.organisations) total += o.train.size() + o.test.size();
  w.u32(total);
  for (const auto& o : c.organisations) {
    for (int split = 0; split < 2; ++split) {
      for (const auto& u : split == 0 ? o.train : o.test) {
        if (u.mfcc.shape()[0] > 65535) {
          throw privet::overflow_error("privet: speech corpus: an utterance of " +
                                       std::to_string(u.mfcc.shape()[0]) +
                                       " frames; allowed: at most 65535");
        }
        w.u16(u.speaker);
        w.u8(u.label);
        w.u8(static_cast<std::uint64_t>(split));
        w.u16(u.mfcc.shape()[0]);
        for (std::size_t t = 0; t < u.mfcc.shape()[0]; ++t) {
          for (std::size_t j = 0; j < k; ++j) {
            if (quantise) {
              const long q = std::lround((u.mfcc(t, j) - offset[j]) / step[j]);
              w.u8(static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(q, -127L, 127L))));
            } else {
              w.f32(u.mfcc(t, j));
            }
          }
        }
      }
    }
  }
  // A private temporary name, then an atomic rename (output_files.hpp): a
  // concurrent or interrupted writer never leaves a partial file under the
  // real name.
  write_file(path.string(), w.bytes());
}

/// Reads a file written by write_features; throws serialization_error
/// naming the problem for anything malformed.
inline corpus read_features(const std::filesystem::path& path) {
  const std::string where = path.string();
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw privet::error("privet: speech corpus: cannot open " + where);
  if (size > (std::uintmax_t{1} << 30)) {
    throw privet::serialization_error("privet: speech corpus " + where + ": " +
                                      std::to_string(size) + " bytes; allowed: at most 1 GiB");
  }
  std::string bytes(static_cast<std::size_t>(size), '\0');
  {
    std::ifstream in(path, std::ios::binary);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!in) throw privet::error("privet: speech corpus: cannot read " + where);
  }
  detail::byte_reader r(bytes, where);
  if (r.text(8, "the magic") != std::string(detail::file_magic, 8)) {
    r.fail("not a privet speech corpus file (version 1)");
  }
  corpus c;
  const auto quantised = r.u8();
  if (quantised > 1) r.fail("quantisation flag " + std::to_string(quantised) + "; allowed: 0 or 1");
  c.coefficients = r.u8();
  if (c.coefficients == 0) r.fail("0 coefficients; allowed: 1 to 255");
  c.frame_shift_ms = r.f32();
  c.provenance = r.text(r.u16(), "the provenance");
  const auto words = r.u16();
  if (words == 0 || words > 255) r.fail(std::to_string(words) + " words; allowed: 1 to 255");
  for (std::uint64_t i = 0; i < words; ++i) c.words.push_back(r.text(r.u8(), "a word"));
  const auto orgs = r.u8();
  if (orgs == 0) r.fail("no organisations");
  for (std::uint64_t i = 0; i < orgs; ++i) {
    const auto kind = r.u8();
    if (kind > 2) r.fail("organisation kind " + std::to_string(kind) + "; allowed: 0 to 2");
    organisation o;
    o.kind = static_cast<org_kind>(kind);
    o.name = r.text(r.u8(), "an organisation name");
    c.organisations.push_back(std::move(o));
  }
  const auto speakers = r.u16();
  for (std::uint64_t i = 0; i < speakers; ++i) {
    speaker s;
    s.organisation = static_cast<std::uint8_t>(r.u8());
    if (s.organisation >= orgs) {
      r.fail("speaker " + std::to_string(i) + " in organisation " + std::to_string(s.organisation) +
             "; allowed: below " + std::to_string(orgs));
    }
    s.speed = static_cast<int>(r.u16());
    s.pitch = static_cast<int>(r.u8());
    s.voice = r.text(r.u8(), "a voice");
    c.speakers.push_back(std::move(s));
  }
  const std::size_t k = c.coefficients;
  std::vector<float> offset(k, 0), step(k, 1);
  if (quantised) {
    for (auto& v : offset) v = r.f32();
    for (auto& v : step) v = r.f32();
  }
  const auto total = r.u32();
  // Each utterance takes at least 6 bytes: a count the bytes cannot hold
  // is refused before anything is reserved for it.
  if (total > r.left() / 6) {
    r.fail(std::to_string(total) + " utterances cannot fit in the " + std::to_string(r.left()) +
           " bytes left");
  }
  const std::size_t width = quantised ? 1 : 4;
  for (std::uint64_t i = 0; i < total; ++i) {
    utterance u;
    const auto spk = r.u16();
    if (spk >= speakers) {
      r.fail("utterance " + std::to_string(i) + " has speaker " + std::to_string(spk) +
             "; allowed: below " + std::to_string(speakers));
    }
    u.speaker = static_cast<std::uint16_t>(spk);
    const auto label = r.u8();
    if (label >= words) {
      r.fail("utterance " + std::to_string(i) + " has label " + std::to_string(label) +
             "; allowed: below " + std::to_string(words));
    }
    u.label = static_cast<std::uint8_t>(label);
    const auto split = r.u8();
    if (split > 1) {
      r.fail("utterance " + std::to_string(i) + " has split " + std::to_string(split) +
             "; allowed: 0 (train) or 1 (test)");
    }
    const auto frames = r.u16();
    r.need(frames * k * width, "utterance " + std::to_string(i) + "'s frames");
    u.mfcc = xt::xtensor<float, 2>(std::array<std::size_t, 2>{static_cast<std::size_t>(frames), k});
    for (std::size_t t = 0; t < frames; ++t) {
      for (std::size_t j = 0; j < k; ++j) {
        u.mfcc(t, j) = quantised
                           ? offset[j] + step[j] * static_cast<float>(static_cast<std::int8_t>(
                                                       static_cast<std::uint8_t>(r.u8())))
                           : r.f32();
      }
    }
    auto& o = c.organisations[c.speakers[spk].organisation];
    (split == 0 ? o.train : o.test).push_back(std::move(u));
  }
  if (r.left() != 0) r.fail(std::to_string(r.left()) + " bytes after the last utterance");
  return c;
}

/// A small sample of `c`: per organisation and keyword, `train` training
/// and `test` test utterances, taken round-robin over the speakers.
inline corpus make_sample(const corpus& c, std::size_t train, std::size_t test) {
  corpus s = c;
  for (std::size_t oi = 0; oi < c.organisations.size(); ++oi) {
    const auto& o = c.organisations[oi];
    auto pick = [&](const std::vector<utterance>& from, std::size_t per_word) {
      std::vector<utterance> out;
      for (std::size_t w = 0; w < c.words.size(); ++w) {
        // Group this word's utterances by speaker, then take one from each
        // speaker in turn.
        std::vector<std::vector<const utterance*>> by_speaker;
        std::vector<std::uint16_t> ids;
        for (const auto& u : from) {
          if (u.label != w) continue;
          auto it = std::find(ids.begin(), ids.end(), u.speaker);
          if (it == ids.end()) {
            ids.push_back(u.speaker);
            by_speaker.emplace_back();
            it = ids.end() - 1;
          }
          by_speaker[static_cast<std::size_t>(it - ids.begin())].push_back(&u);
        }
        std::size_t taken = 0;
        for (std::size_t round = 0; taken < per_word; ++round) {
          bool any = false;
          for (const auto& list : by_speaker) {
            if (round < list.size() && taken < per_word) {
              out.push_back(*list[round]);
              ++taken;
              any = true;
            }
          }
          if (!any) break;
        }
      }
      return out;
    };
    s.organisations[oi].train = pick(o.train, train);
    s.organisations[oi].test = pick(o.test, test);
  }
  s.provenance = c.provenance + "; sample of " + std::to_string(train) + " train + " +
                 std::to_string(test) + " test utterances per keyword and organisation";
  return s;
}

namespace detail {

inline void validate(const options& o) {
  if (o.words.empty() || o.words.size() > 255)
    throw_invalid("words.size()", o.words.size(), "1 to 255");
  for (const auto& w : o.words) {
    // Words reach espeak-ng as an argument: a leading '-' would be an option.
    if (w.empty() || w.size() > 64 || w[0] == '-' || !std::all_of(w.begin(), w.end(), [](char ch) {
          return std::isalpha(static_cast<unsigned char>(ch)) || ch == ' ' || ch == '\'';
        })) {
      throw_invalid("words", w, "1 to 64 letters, spaces or apostrophes, not starting with '-'");
    }
  }
  if (o.organisations.empty() || o.organisations.size() > 255) {
    throw_invalid("organisations.size()", o.organisations.size(), "1 to 255");
  }
  std::size_t total = 0;
  for (const auto& org : o.organisations) {
    if (org.speakers.empty()) throw_empty("organisations[" + org.name + "].speakers");
    for (const auto& s : org.speakers) {
      if (s.voice.empty() || s.voice[0] == '-')
        throw_invalid("voice", s.voice, "an espeak-ng voice name");
      if (s.speed < 80 || s.speed > 450)
        throw_invalid("speed", s.speed, "80 to 450 words per minute");
      if (s.pitch < 0 || s.pitch > 99) throw_invalid("pitch", s.pitch, "0 to 99");
    }
    total += org.speakers.size();
  }
  if (total > 65535) throw_invalid("speakers", total, "at most 65535 in all");
  if (o.repetitions < 2 || o.repetitions > 1000)
    throw_invalid("repetitions", o.repetitions, "2 to 1000");
  if (o.test_repetitions < 1 || o.test_repetitions >= o.repetitions) {
    throw_invalid("test_repetitions", o.test_repetitions,
                  "1 to repetitions - 1 = " + std::to_string(o.repetitions - 1));
  }
  validate_positive(o.snr_db, "snr_db");
  if (o.jobs < 1 || o.jobs > 64) throw_invalid("jobs", o.jobs, "1 to 64");
}

// One utterance to make: which speaker says which word, which time.
struct job {
  std::uint16_t speaker;
  std::uint8_t word;
  std::uint16_t repetition;
  int speed, pitch, amplitude;
  std::filesystem::path wav;
};

inline std::string synthesis_description(const options& o, const std::vector<speaker>& speakers) {
  std::ostringstream d;
  d << "words=";
  for (const auto& w : o.words) d << w << ',';
  d << " speakers=";
  for (const auto& s : speakers)
    d << s.voice << ':' << s.speed << ':' << s.pitch << ':' << int(s.organisation) << ',';
  d << " repetitions=" << o.repetitions << " seed=" << o.seed
    << " jitter=speed 8%,pitch 6,amplitude 20%";
  return d.str();
}

inline std::string feature_description(const options& o) {
  const auto& m = o.mfcc;
  std::ostringstream d;
  d << "trim=2% of peak + 50 ms; noise=white " << o.snr_db
    << " dB SNR; test_repetitions=" << o.test_repetitions << "; mfcc fs=" << m.sample_rate
    << " window=" << m.frame_length_ms << " ms hamming shift=" << m.frame_shift_ms
    << " ms preemphasis=" << m.pre_emphasis << " filters=" << m.filters << " " << m.low_hz << "-"
    << (m.high_hz == 0 ? m.sample_rate / 2 : m.high_hz) << " Hz (HTK mel) K=" << m.coefficients
    << " (c0..) fft=" << m.fft_size << " floor=" << m.log_floor << " cmn=" << m.mean_normalisation;
  return d.str();
}

// Cuts silence, adds the seeded noise: the audio the features are made of.
inline std::vector<float> prepare(const std::vector<float>& x, double fs, double snr_db,
                                  seeded_generator& gen) {
  float peak = 0;
  for (float v : x) peak = std::max(peak, std::abs(v));
  std::size_t first = 0, last = x.size();
  if (peak > 0) {
    const float threshold = 0.02f * peak;
    while (std::abs(x[first]) < threshold) ++first;
    while (std::abs(x[last - 1]) < threshold) --last;
    const auto margin = static_cast<std::size_t>(0.05 * fs);
    first = first > margin ? first - margin : 0;
    last = std::min(x.size(), last + margin);
  }
  std::vector<float> y(x.begin() + static_cast<std::ptrdiff_t>(first),
                       x.begin() + static_cast<std::ptrdiff_t>(last));
  double energy = 0;
  for (float v : y) energy += static_cast<double>(v) * v;
  const double rms = y.empty() ? 0 : std::sqrt(energy / static_cast<double>(y.size()));
  // Uniform noise on [-b, b] has RMS b / sqrt(3).
  const double b = std::sqrt(3.0) * (rms > 0 ? rms : 1e-4) * std::pow(10.0, -snr_db / 20);
  for (auto& v : y) v += static_cast<float>(b * (2 * uniform_real<double>(gen) - 1));
  return y;
}

}  // namespace detail

/// The corpus: from the cache in `cache_dir` if it is complete for these
/// options and the installed espeak-ng, else synthesised (missing audio
/// only) and cached; from `opts.sample` when espeak-ng is not installed or
/// `opts.use_sample` is set. `corpus::source` says which.
inline corpus load_or_synthesise(const std::filesystem::path& cache_dir, const options& opts) {
  namespace fs = std::filesystem;
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  detail::validate(opts);
  const auto program = opts.use_sample ? std::nullopt : detail::find_program(opts.program);
  if (!program) {
    if (opts.sample.empty()) {
      throw privet::invalid_parameter("sample",
                                      "privet: speech corpus: " + opts.program +
                                          " is not installed and no embedded sample was given");
    }
    corpus c = read_features(opts.sample);
    c.embedded = true;
    c.source = "embedded sample " + opts.sample.string() +
               (opts.use_sample ? " (as asked)" : " (" + opts.program + " not found in PATH)");
    c.seconds = elapsed();
    return c;
  }
  const std::string version = detail::espeak_version(*program);

  corpus c;
  c.words = opts.words;
  c.coefficients = opts.mfcc.coefficients;
  c.frame_shift_ms = opts.mfcc.frame_shift_ms;
  for (std::size_t oi = 0; oi < opts.organisations.size(); ++oi) {
    const auto& spec = opts.organisations[oi];
    c.organisations.push_back({spec.name, spec.kind, {}, {}});
    const std::size_t n = opts.speakers_per_organisation == 0
                              ? spec.speakers.size()
                              : std::min(opts.speakers_per_organisation, spec.speakers.size());
    for (std::size_t i = 0; i < n; ++i) {
      const auto& s = spec.speakers[i];
      c.speakers.push_back({s.voice, s.speed, s.pitch, static_cast<std::uint8_t>(oi)});
    }
  }
  const std::string synth = detail::synthesis_description(opts, c.speakers);
  const std::string features = detail::feature_description(opts);
  const fs::path dir = cache_dir / ("corpus-" + detail::hex(detail::fnv1a(synth)));
  const fs::path wav_dir = dir / "wav";
  const fs::path manifest = dir / "manifest.txt";
  const fs::path feature_file =
      dir /
      ("features-" + detail::hex(detail::fnv1a(version + '\n' + synth + '\n' + features)) + ".bin");
  c.provenance = "espeak-ng " + version + "; " + synth + "; " + features;

  // The manifest names the espeak-ng version the audio came from; audio of
  // another version (or of unknown origin) is discarded.
  const std::string manifest_head =
      "privet speech corpus cache 1\nespeak-ng " + version + "\nsynthesis " + synth + "\n";
  std::string old;
  if (std::ifstream in(manifest); in) old.assign(std::istreambuf_iterator<char>(in), {});
  if (old.rfind(manifest_head, 0) != 0) {
    fs::remove_all(dir);
  } else if (fs::exists(feature_file)) {
    try {
      corpus cached = read_features(feature_file);
      cached.source = "cache " + feature_file.string();
      cached.seconds = elapsed();
      return cached;
    } catch (const privet::serialization_error&) {
      fs::remove(feature_file);  // rebuilt below from the cached audio
    }
  }
  fs::create_directories(wav_dir);
  write_file(manifest.string(), manifest_head);

  // The jobs, with each utterance's jitter from its own seeded stream.
  std::vector<detail::job> jobs;
  for (std::size_t s = 0; s < c.speakers.size(); ++s) {
    for (std::size_t w = 0; w < c.words.size(); ++w) {
      for (std::size_t r = 0; r < opts.repetitions; ++r) {
        const std::uint64_t stream = (s * c.words.size() + w) * opts.repetitions + r;
        seeded_generator gen(opts.seed, stream);
        const auto jitter = [&] { return 2 * uniform_real<double>(gen) - 1; };
        const auto& spk = c.speakers[s];
        const int speed =
            std::clamp(static_cast<int>(std::lround(spk.speed * (1 + 0.08 * jitter()))), 80, 450);
        const int pitch =
            std::clamp(spk.pitch + static_cast<int>(std::lround(6 * jitter())), 0, 99);
        const int amplitude = static_cast<int>(std::lround(100 + 20 * jitter()));
        // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict
        // inside the inlined `"s" + std::string` (GCC bug 105329).
        std::string file = "s";
        file += std::to_string(s);
        file += '_';
        file += c.words[w];
        file += '_';
        file += std::to_string(r);
        file += ".wav";
        jobs.push_back({static_cast<std::uint16_t>(s), static_cast<std::uint8_t>(w),
                        static_cast<std::uint16_t>(r), speed, pitch, amplitude, wav_dir / file});
      }
    }
  }
  std::size_t missing = 0;
  for (const auto& j : jobs) missing += !fs::exists(j.wav);

  const ml::mfcc<float> extract(opts.mfcc);
  std::vector<utterance> made(jobs.size());
  std::atomic<std::size_t> next{0}, done{0}, synthesised{0};
  std::mutex report;
  std::exception_ptr failure;
  std::optional<progress> bar;
  if (opts.progress && missing > 0) bar.emplace("espeak-ng + MFCC", jobs.size(), "utterances");
  const auto worker = [&] {
    try {
      for (std::size_t i; (i = next++) < jobs.size();) {
        const auto& j = jobs[i];
        const auto& spk = c.speakers[j.speaker];
        if (!fs::exists(j.wav)) {
          const fs::path tmp = j.wav.string() + "." + std::to_string(::getpid()) + ".tmp";
          const pid_t pid =
              detail::spawn(*program,
                            {program->string(), "-w", tmp.string(), "-v", spk.voice, "-s",
                             std::to_string(j.speed), "-p", std::to_string(j.pitch), "-a",
                             std::to_string(j.amplitude), c.words[j.word]},
                            -1);
          if (const int rc = detail::wait_for(pid); rc != 0) {
            throw std::runtime_error("espeak-ng exited with status " + std::to_string(rc) +
                                     " for voice " + spk.voice + ", word '" + c.words[j.word] +
                                     "'");
          }
          fs::rename(tmp, j.wav);
          ++synthesised;
        }
        const io::wav_data audio = io::read_wav_file(j.wav);
        if (audio.sample_rate != opts.mfcc.sample_rate || audio.channels != 1) {
          throw std::runtime_error(j.wav.string() + ": " + std::to_string(audio.channels) +
                                   " channel(s) at " + std::to_string(audio.sample_rate) +
                                   " Hz; the MFCC options expect mono at " +
                                   std::to_string(opts.mfcc.sample_rate) + " Hz");
        }
        seeded_generator noise(opts.seed ^ 0x6e6f697365ULL, i);
        const auto x =
            detail::prepare(audio.mono<float>(), opts.mfcc.sample_rate, opts.snr_db, noise);
        made[i] = {extract(x), j.word, j.speaker};
        const std::size_t finished = ++done;
        if (bar) {
          std::lock_guard lock(report);
          bar->update(finished);
        }
      }
    } catch (...) {
      std::lock_guard lock(report);
      if (!failure) failure = std::current_exception();
      next = jobs.size();  // the other workers stop after their current job
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < opts.jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);

  const std::size_t train_reps = opts.repetitions - opts.test_repetitions;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto& o = c.organisations[c.speakers[jobs[i].speaker].organisation];
    (jobs[i].repetition < train_reps ? o.train : o.test).push_back(std::move(made[i]));
  }
  write_features(feature_file, c, false);
  c.synthesised = synthesised;
  c.source = "espeak-ng " + version + " (" + std::to_string(c.synthesised) +
             " utterances synthesised now, " + std::to_string(jobs.size() - c.synthesised) +
             " from the audio cache), cached in " + dir.string();
  c.seconds = elapsed();
  return c;
}

}  // namespace privet::examples::speech
