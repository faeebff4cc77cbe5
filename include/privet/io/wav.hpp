// privet/io/wav.hpp — a strict reader and a canonical writer of RIFF/WAVE
// files holding integer PCM: format code 1 (WAVE_FORMAT_PCM) or 0xFFFE
// (WAVE_FORMAT_EXTENSIBLE with the PCM sub-format GUID), 8-bit unsigned or
// 16-, 24- and 32-bit signed little-endian samples, interleaved channels.
// This covers what espeak-ng writes with `-w file` (16-bit mono, 22050 Hz).
//
// Layout as defined by Microsoft/IBM's "Multimedia Programming Interface and
// Data Specifications 1.0" (1991; RIFF chunks, the WAVE form, the `fmt `
// and `data` chunks, one pad byte after odd-sized chunks) and Microsoft's
// "Multiple Channel Audio Data and WAVE Files" (WAVEFORMATEXTENSIBLE).
//
// Strict: a file is accepted only if every chunk lies inside the RIFF chunk,
// the stream holds exactly the bytes the RIFF header declares, there is one
// `fmt ` chunk before one `data` chunk, and the format fields agree with
// each other (block_align = channels * bits / 8, byte_rate = rate *
// block_align). Anything else throws serialization_error naming the
// problem and its byte offset. Sizes read from the header never drive an
// allocation by themselves: the data chunk is checked against
// `wav_limits::max_data_bytes` and then read in blocks, so a header that
// claims 4 GB on a 50-byte stream fails after reading 50 bytes. Unknown
// chunks (LIST, fact, cue...) are skipped without being stored.
//
// Not accepted: the streaming header `espeak-ng --stdout` writes (sizes set
// to a 0x7ffff... placeholder because a pipe cannot be rewound) is reported
// as truncated, as is any RIFF size larger than the stream; RIFX, RF64,
// floating-point and compressed formats are rejected by name.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace privet::io {

/// Decoded PCM audio. Samples are interleaved by channel and signed: an
/// 8-bit file's unsigned bytes are stored minus 128, so every width has the
/// range [-2^(bits-1), 2^(bits-1) - 1].
struct wav_data {
  std::uint32_t sample_rate = 0;       ///< Sample frames per second (Hz), >= 1 in a file.
  std::uint16_t channels = 1;          ///< Interleaved channels, >= 1 in a file.
  std::uint16_t bits_per_sample = 16;  ///< The file's sample width: 8, 16, 24 or 32.
  /// The samples, frame by frame (channels of a frame adjacent), each in
  /// [-2^(bits_per_sample - 1), 2^(bits_per_sample - 1) - 1].
  std::vector<std::int32_t> samples;

  /// Number of sample frames (one sample per channel each).
  [[nodiscard]] std::size_t frames() const noexcept {
    return channels == 0 ? 0 : samples.size() / channels;
  }

  /// The mean of the channels, scaled by 2^-(bits-1) into [-1, 1). Throws
  /// invalid_parameter naming `bits_per_sample` unless it is 8, 16, 24 or 32
  /// (the widths read_wav and write_wav accept), whatever the struct was
  /// filled with by hand.
  template <real_number Real = float>
  [[nodiscard]] std::vector<Real> mono() const {
    if (bits_per_sample != 8 && bits_per_sample != 16 && bits_per_sample != 24 &&
        bits_per_sample != 32) {
      throw_invalid("bits_per_sample", bits_per_sample, "8, 16, 24 or 32");
    }
    std::vector<Real> out(frames());
    const double scale = 1.0 / (static_cast<double>(std::uint64_t{1} << (bits_per_sample - 1)) *
                                static_cast<double>(channels));
    for (std::size_t f = 0; f < out.size(); ++f) {
      double sum = 0;
      for (std::size_t c = 0; c < channels; ++c) sum += samples[f * channels + c];
      out[f] = static_cast<Real>(sum * scale);
    }
    return out;
  }
};

/// Bounds the reader enforces on header fields before trusting them.
struct wav_limits {
  /// Largest `data` chunk accepted (bytes). 256 MiB is about 50 minutes of
  /// 16-bit stereo at 44.1 kHz.
  std::uint64_t max_data_bytes = std::uint64_t{256} << 20;
  /// Most channels accepted.
  std::uint16_t max_channels = 32;
  /// Highest sample rate accepted (Hz).
  std::uint32_t max_sample_rate = 1'000'000;
};

namespace detail {

inline constexpr std::uint16_t wav_format_pcm = 1;
inline constexpr std::uint16_t wav_format_extensible = 0xFFFE;
// KSDATAFORMAT_SUBTYPE_PCM, 00000001-0000-0010-8000-00aa00389b71, as stored.
inline constexpr std::array<unsigned char, 16> wav_pcm_guid = {
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71};

inline std::uint16_t le16(const unsigned char* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

// A chunk id for a message: printable ASCII as is, anything else as \xNN,
// so a garbage id cannot inject control characters into a log.
inline std::string printable_id(const unsigned char* p) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string s = "'";
  for (int i = 0; i < 4; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\'' && p[i] != '\\') {
      s += static_cast<char>(p[i]);
    } else {
      s += "\\x";
      s += hex[p[i] >> 4];
      s += hex[p[i] & 15];
    }
  }
  return s + "'";
}

inline std::string format_code_name(std::uint16_t code) {
  switch (code) {
    case 0x0002:
      return " (Microsoft ADPCM)";
    case 0x0003:
      return " (IEEE float)";
    case 0x0006:
      return " (A-law)";
    case 0x0007:
      return " (mu-law)";
    case 0x0011:
      return " (IMA ADPCM)";
    case 0x0055:
      return " (MPEG layer 3)";
    default:
      return "";
  }
}

[[noreturn]] inline void wav_fail(const std::string& what) {
  throw serialization_error("privet: WAV: " + what);
}

class wav_parser {
 public:
  wav_parser(std::istream& in, const wav_limits& limits) : in_(in), limits_(limits) {}

  wav_data parse() {
    unsigned char head[12];
    const std::size_t got = read_some(head, sizeof head);
    if (got < sizeof head) {
      wav_fail("the stream holds " + std::to_string(got) +
               " bytes, fewer than the 12-byte RIFF header");
    }
    if (std::memcmp(head, "RIFX", 4) == 0 || std::memcmp(head, "RF64", 4) == 0) {
      wav_fail("container " + printable_id(head) +
               " is not supported; allowed: 'RIFF' (little-endian, sizes below 4 GiB)");
    }
    if (std::memcmp(head, "RIFF", 4) != 0) {
      wav_fail("not a RIFF file: it starts with " + printable_id(head) + ", expected 'RIFF'");
    }
    const std::uint32_t riff_size = le32(head + 4);
    if (riff_size < 4) {
      wav_fail("RIFF size " + std::to_string(riff_size) +
               " is too small for the form type; allowed: >= 4");
    }
    if (std::memcmp(head + 8, "WAVE", 4) != 0) {
      wav_fail("RIFF form type is " + printable_id(head + 8) + ", expected 'WAVE'");
    }
    const std::uint64_t riff_end = 8 + std::uint64_t{riff_size};
    std::uint64_t pos = 12;
    while (pos < riff_end) {
      if (riff_end - pos < 8) {
        wav_fail("the RIFF chunk ends at byte " + std::to_string(riff_end) +
                 ", inside the chunk header at byte " + std::to_string(pos));
      }
      unsigned char ch[8];
      const std::size_t n = read_some(ch, sizeof ch);
      if (n < sizeof ch) {
        wav_fail("truncated: the stream ends at byte " + std::to_string(pos + n) +
                 ", inside the chunk header at byte " + std::to_string(pos) +
                 " (the RIFF header declares " + std::to_string(riff_end) + " bytes)");
      }
      for (int i = 0; i < 4; ++i) {
        if (ch[i] < 0x20 || ch[i] >= 0x7f) {
          wav_fail("chunk id " + printable_id(ch) + " at byte " + std::to_string(pos) +
                   " is not four printable ASCII characters");
        }
      }
      const std::string id = printable_id(ch);
      const std::uint64_t size = le32(ch + 4);
      const std::uint64_t body = pos + 8;
      if (body + size > riff_end) {
        wav_fail("chunk " + id + " at byte " + std::to_string(pos) + " declares " +
                 std::to_string(size) + " bytes, beyond the end of the RIFF chunk at byte " +
                 std::to_string(riff_end));
      }
      const std::uint64_t padded = size + (size & 1);
      if (body + padded > riff_end) {
        wav_fail("chunk " + id + " at byte " + std::to_string(pos) + " has odd size " +
                 std::to_string(size) + " but its pad byte lies beyond the RIFF chunk");
      }
      if (std::memcmp(ch, "fmt ", 4) == 0) {
        read_format(pos, size);
      } else if (std::memcmp(ch, "data", 4) == 0) {
        read_data(pos, size);
      } else {
        skip(id, pos, size);
      }
      if (padded != size) {
        unsigned char pad;
        if (read_some(&pad, 1) != 1) {
          wav_fail("truncated: the stream ends before the pad byte of chunk " + id + " at byte " +
                   std::to_string(pos));
        }
      }
      pos = body + padded;
    }
    if (!have_format_) wav_fail("no 'fmt ' chunk");
    if (!have_data_) wav_fail("no 'data' chunk");
    if (in_.peek() != std::istream::traits_type::eof()) {
      wav_fail("the stream continues after the end of the RIFF chunk at byte " +
               std::to_string(riff_end));
    }
    return std::move(out_);
  }

 private:
  std::size_t read_some(unsigned char* p, std::size_t n) {
    in_.read(reinterpret_cast<char*>(p), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in_.gcount());
  }

  void skip(const std::string& id, std::uint64_t pos, std::uint64_t size) {
    std::uint64_t left = size;
    while (left > 0) {
      const auto step = static_cast<std::streamsize>(std::min<std::uint64_t>(left, 1 << 16));
      in_.ignore(step);
      const auto got = static_cast<std::uint64_t>(in_.gcount());
      left -= got;
      if (got < static_cast<std::uint64_t>(step)) {
        wav_fail("truncated: chunk " + id + " at byte " + std::to_string(pos) + " declares " +
                 std::to_string(size) + " bytes but the stream ends after " +
                 std::to_string(size - left) + " of them");
      }
    }
  }

  void read_format(std::uint64_t pos, std::uint64_t size) {
    const std::string at = " in the 'fmt ' chunk at byte " + std::to_string(pos);
    if (have_format_) wav_fail("a second 'fmt ' chunk at byte " + std::to_string(pos));
    if (size < 16 || size == 17 || size > 40) {
      wav_fail("'fmt ' chunk at byte " + std::to_string(pos) + " has size " + std::to_string(size) +
               "; allowed: 16, or 18 to 40 bytes");
    }
    unsigned char f[40] = {};
    const std::size_t got = read_some(f, static_cast<std::size_t>(size));
    if (got < size) {
      wav_fail("truncated: chunk 'fmt ' at byte " + std::to_string(pos) + " declares " +
               std::to_string(size) + " bytes but the stream ends after " + std::to_string(got) +
               " of them");
    }
    const std::uint16_t code = le16(f);
    const std::uint16_t channels = le16(f + 2);
    const std::uint32_t rate = le32(f + 4);
    const std::uint32_t byte_rate = le32(f + 8);
    const std::uint16_t block_align = le16(f + 12);
    const std::uint16_t bits = le16(f + 14);
    const std::uint16_t extra = size >= 18 ? le16(f + 16) : 0;
    if (size >= 18 && 18 + std::uint64_t{extra} != size) {
      wav_fail("extension size " + std::to_string(extra) + at + " of " + std::to_string(size) +
               " bytes; allowed: chunk size - 18 = " + std::to_string(size - 18));
    }
    if (code == wav_format_pcm) {
      if (extra != 0) {
        wav_fail("extension size " + std::to_string(extra) + at +
                 "; allowed: 0 for format code 1 (PCM)");
      }
    } else if (code == wav_format_extensible) {
      if (extra != 22) {
        wav_fail("extension size " + std::to_string(extra) + at +
                 "; allowed: 22 for format code 0xFFFE (extensible)");
      }
      const std::uint16_t valid_bits = le16(f + 18);
      if (valid_bits == 0 || valid_bits > bits) {
        wav_fail("valid bits per sample " + std::to_string(valid_bits) + at + "; allowed: 1 to " +
                 std::to_string(bits));
      }
      if (!std::equal(wav_pcm_guid.begin(), wav_pcm_guid.end(), f + 24)) {
        wav_fail("the extensible sub-format" + at +
                 " is not PCM (KSDATAFORMAT_SUBTYPE_PCM); only integer PCM is supported");
      }
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%04X", code);
      wav_fail("format code " + std::string(hex) + format_code_name(code) + at +
               " is not supported; allowed: 0x0001 (PCM) or 0xFFFE (extensible PCM)");
    }
    if (channels == 0 || channels > limits_.max_channels) {
      wav_fail("channels = " + std::to_string(channels) + at + "; allowed: 1 to " +
               std::to_string(limits_.max_channels));
    }
    if (rate == 0 || rate > limits_.max_sample_rate) {
      wav_fail("sample rate " + std::to_string(rate) + at + "; allowed: 1 to " +
               std::to_string(limits_.max_sample_rate) + " Hz");
    }
    if (bits != 8 && bits != 16 && bits != 24 && bits != 32) {
      wav_fail("bits per sample " + std::to_string(bits) + at + "; allowed: 8, 16, 24 or 32");
    }
    const std::uint32_t expected_align = std::uint32_t{channels} * (bits / 8);
    if (block_align != expected_align) {
      wav_fail("block align " + std::to_string(block_align) + at +
               "; allowed: channels * bits / 8 = " + std::to_string(expected_align));
    }
    const std::uint64_t expected_rate = std::uint64_t{rate} * expected_align;
    if (byte_rate != expected_rate) {
      wav_fail("byte rate " + std::to_string(byte_rate) + at +
               "; allowed: sample rate * block align = " + std::to_string(expected_rate));
    }
    out_.sample_rate = rate;
    out_.channels = channels;
    out_.bits_per_sample = bits;
    have_format_ = true;
  }

  void read_data(std::uint64_t pos, std::uint64_t size) {
    if (!have_format_)
      wav_fail("the 'data' chunk at byte " + std::to_string(pos) +
               " comes before the 'fmt ' chunk");
    if (have_data_) wav_fail("a second 'data' chunk at byte " + std::to_string(pos));
    const std::size_t width = out_.bits_per_sample / 8u;
    const std::size_t block = width * out_.channels;
    if (size % block != 0) {
      wav_fail("'data' chunk at byte " + std::to_string(pos) + " has " + std::to_string(size) +
               " bytes, not a multiple of the block size " + std::to_string(block));
    }
    if (size > limits_.max_data_bytes) {
      wav_fail(
          "'data' chunk at byte " + std::to_string(pos) + " declares " + std::to_string(size) +
          " bytes; allowed: at most max_data_bytes = " + std::to_string(limits_.max_data_bytes));
    }
    // Blocks of whole sample frames; memory grows with what the stream
    // actually holds, never with the declared size alone.
    constexpr std::size_t buffer_bytes = std::size_t{1} << 16;
    const std::size_t step_bytes = buffer_bytes - buffer_bytes % block;
    std::vector<unsigned char> buf(step_bytes);
    std::uint64_t left = size;
    out_.samples.reserve(
        static_cast<std::size_t>(std::min<std::uint64_t>(size / width, std::uint64_t{1} << 20)));
    while (left > 0) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, step_bytes));
      const std::size_t got = read_some(buf.data(), want);
      if (got < want) {
        wav_fail("truncated: chunk 'data' at byte " + std::to_string(pos) + " declares " +
                 std::to_string(size) + " bytes but the stream ends after " +
                 std::to_string(size - left + got) + " of them");
      }
      decode(buf.data(), got, width);
      left -= got;
    }
    have_data_ = true;
  }

  void decode(const unsigned char* p, std::size_t bytes, std::size_t width) {
    for (std::size_t i = 0; i < bytes; i += width) {
      std::int32_t v = 0;
      switch (width) {
        case 1:
          v = static_cast<std::int32_t>(p[i]) - 128;
          break;
        case 2:
          v = static_cast<std::int16_t>(le16(p + i));
          break;
        case 3: {
          const std::uint32_t u =
              p[i] | (p[i + 1] << 8) | (static_cast<std::uint32_t>(p[i + 2]) << 16);
          v = static_cast<std::int32_t>(u ^ 0x800000u) - 0x800000;  // sign-extend 24 bits
          break;
        }
        default:
          v = static_cast<std::int32_t>(le32(p + i));
          break;
      }
      out_.samples.push_back(v);
    }
  }

  std::istream& in_;
  wav_limits limits_;
  wav_data out_;
  bool have_format_ = false, have_data_ = false;
};

inline void put16(std::ostream& out, std::uint16_t v) {
  const char b[2] = {static_cast<char>(v & 0xff), static_cast<char>(v >> 8)};
  out.write(b, 2);
}
inline void put32(std::ostream& out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff),
                     static_cast<char>((v >> 16) & 0xff), static_cast<char>(v >> 24)};
  out.write(b, 4);
}

}  // namespace detail

/// Reads one WAVE file from `in` (opened in binary mode), which must end
/// where the RIFF chunk ends. Throws serialization_error naming the problem
/// and its byte offset for anything malformed or unsupported.
inline wav_data read_wav(std::istream& in, const wav_limits& limits = {}) {
  return detail::wav_parser(in, limits).parse();
}

/// Reads the WAVE file at `path`; throws privet::error if it cannot be
/// opened and serialization_error if it is malformed.
inline wav_data read_wav_file(const std::filesystem::path& path, const wav_limits& limits = {}) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error("privet: WAV: cannot open " + path.string());
  try {
    return read_wav(in, limits);
  } catch (const serialization_error& e) {
    throw serialization_error(std::string(e.what()) + " (file " + path.string() + ")");
  }
}

/// Writes `audio` as a canonical 44-byte-header PCM WAVE file (format code
/// 1), with the pad byte RIFF requires after an odd-sized data chunk (8- or
/// 24-bit audio with an odd number of samples). Throws invalid_parameter
/// for an unsupported layout (channels 0, bits not 8/16/24/32, sample rate
/// 0, a sample count that is not a multiple of the channel count),
/// overflow_error for a sample outside
/// [-2^(bits-1), 2^(bits-1) - 1] or data beyond the 4 GiB RIFF limit.
inline void write_wav(std::ostream& out, const wav_data& audio) {
  const unsigned bits = audio.bits_per_sample;
  if (bits != 8 && bits != 16 && bits != 24 && bits != 32) {
    throw_invalid("bits_per_sample", bits, "8, 16, 24 or 32");
  }
  if (audio.channels == 0) throw_invalid("channels", audio.channels, ">= 1");
  if (audio.sample_rate == 0) throw_invalid("sample_rate", audio.sample_rate, ">= 1");
  if (audio.samples.size() % audio.channels != 0) {
    throw_invalid("samples.size()", audio.samples.size(),
                  "a multiple of channels = " + std::to_string(audio.channels));
  }
  const std::uint64_t width = bits / 8;
  const std::uint64_t block = width * audio.channels;
  const std::uint64_t data_bytes = audio.samples.size() * width;
  const std::uint64_t byte_rate = std::uint64_t{audio.sample_rate} * block;
  if (block > 0xFFFF)
    throw overflow_error("privet: WAV: block align " + std::to_string(block) +
                         " does not fit 16 bits; allowed: channels * bits / 8 <= 65535");
  if (byte_rate > 0xFFFFFFFFu) {
    throw overflow_error("privet: WAV: byte rate " + std::to_string(byte_rate) +
                         " does not fit 32 bits; allowed: sample_rate * block align < 2^32");
  }
  // Counted in the RIFF size, not in the data chunk's: without it the
  // reader (and any strict one) finds the chunk's pad byte missing.
  const std::uint64_t pad = data_bytes & 1;
  if (data_bytes + pad + 36 > 0xFFFFFFFFu) {
    throw overflow_error("privet: WAV: " + std::to_string(data_bytes) +
                         " data bytes do not fit a RIFF file; allowed: at most 4294967258");
  }
  const std::int64_t lo = -(std::int64_t{1} << (bits - 1)), hi = -lo - 1;
  for (std::size_t i = 0; i < audio.samples.size(); ++i) {
    const std::int64_t v = audio.samples[i];
    if (v < lo || v > hi) {
      throw overflow_error("privet: WAV: sample " + std::to_string(i) + " = " + std::to_string(v) +
                           " does not fit " + std::to_string(bits) + " bits; allowed: [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  }
  out.write("RIFF", 4);
  detail::put32(out, static_cast<std::uint32_t>(36 + data_bytes + pad));
  out.write("WAVEfmt ", 8);
  detail::put32(out, 16);
  detail::put16(out, detail::wav_format_pcm);
  detail::put16(out, audio.channels);
  detail::put32(out, audio.sample_rate);
  detail::put32(out, static_cast<std::uint32_t>(byte_rate));
  detail::put16(out, static_cast<std::uint16_t>(block));
  detail::put16(out, static_cast<std::uint16_t>(bits));
  out.write("data", 4);
  detail::put32(out, static_cast<std::uint32_t>(data_bytes));
  std::vector<char> buf;
  buf.reserve(static_cast<std::size_t>(data_bytes + pad));
  for (const std::int32_t s : audio.samples) {
    const auto u = static_cast<std::uint32_t>(bits == 8 ? s + 128 : s);
    for (unsigned b = 0; b < width; ++b) buf.push_back(static_cast<char>((u >> (8 * b)) & 0xff));
  }
  if (pad != 0) buf.push_back('\0');
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (!out) throw error("privet: WAV: the output stream failed while writing");
}

/// Writes `audio` to `path` (see write_wav).
inline void write_wav_file(const std::filesystem::path& path, const wav_data& audio) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw error("privet: WAV: cannot create " + path.string());
  write_wav(out, audio);
  out.close();
  if (!out) throw error("privet: WAV: cannot write " + path.string());
}

}  // namespace privet::io
