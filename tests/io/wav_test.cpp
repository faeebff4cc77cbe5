// The WAVE reader and writer: round trips at every width, the header
// espeak-ng writes, extensible PCM, skipped chunks, and a serialization_error
// naming the problem for every malformed or unsupported file (truncations
// and corruptions of a valid file never crash and never allocate from a
// header field).
#include <privet/io/wav.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using privet::io::read_wav;
using privet::io::wav_data;

std::string le16(std::uint16_t v) {
  return {static_cast<char>(v & 0xff), static_cast<char>(v >> 8)};
}
std::string le32(std::uint32_t v) {
  return le16(static_cast<std::uint16_t>(v & 0xffff)) + le16(static_cast<std::uint16_t>(v >> 16));
}
// A chunk with its pad byte when the payload is odd.
std::string chunk(const std::string& id, const std::string& payload) {
  std::string c = id + le32(static_cast<std::uint32_t>(payload.size())) + payload;
  if (payload.size() % 2) c += '\0';
  return c;
}
std::string riff(const std::string& body) {
  return "RIFF" + le32(static_cast<std::uint32_t>(4 + body.size())) + "WAVE" + body;
}
std::string fmt16(std::uint16_t code, std::uint16_t channels, std::uint32_t rate,
                  std::uint16_t bits) {
  const std::uint16_t align = static_cast<std::uint16_t>(channels * bits / 8);
  return le16(code) + le16(channels) + le32(rate) + le32(rate * align) + le16(align) + le16(bits);
}
std::string pcm_guid() {
  const unsigned char g[16] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
                               0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71};
  return std::string(reinterpret_cast<const char*>(g), 16);
}

wav_data parse(const std::string& bytes, const privet::io::wav_limits& limits = {}) {
  std::istringstream in(bytes);
  return read_wav(in, limits);
}
std::string write(const wav_data& w) {
  std::ostringstream out;
  privet::io::write_wav(out, w);
  return out.str();
}
// A valid 16-bit mono file with three samples.
std::string small_file() {
  return riff(chunk("fmt ", fmt16(1, 1, 8000, 16)) +
              chunk("data", le16(1) + le16(0xffff) + le16(0x7fff)));
}

}  // namespace

TEST_CASE("round trips at 8, 16, 24 and 32 bits, mono and stereo") {
  for (std::uint16_t bits : {8, 16, 24, 32}) {
    for (std::uint16_t channels : {1, 2}) {
      CAPTURE(bits);
      CAPTURE(channels);
      wav_data w;
      w.sample_rate = 22050;
      w.channels = channels;
      w.bits_per_sample = bits;
      const std::int64_t lo = -(std::int64_t{1} << (bits - 1)), hi = -lo - 1;
      for (std::int64_t v : {lo, lo + 1, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, hi - 1,
                             hi, std::int64_t{5} - bits, std::int64_t{bits} * 3, lo / 3})
        w.samples.push_back(static_cast<std::int32_t>(v));
      if (w.samples.size() % channels) w.samples.push_back(0);
      const std::string bytes = write(w);
      CHECK(bytes.size() == 44 + w.samples.size() * bits / 8);
      const wav_data r = parse(bytes);
      CHECK(r.sample_rate == 22050);
      CHECK(r.channels == channels);
      CHECK(r.bits_per_sample == bits);
      CHECK(r.samples == w.samples);
      CHECK(r.frames() == w.samples.size() / channels);
    }
  }
}

TEST_CASE("the canonical header, byte for byte") {
  wav_data w;
  w.sample_rate = 16000;
  w.samples = {1, -2};
  const std::string expected = "RIFF" + le32(40) + "WAVEfmt " + le32(16) + le16(1) + le16(1) +
                               le32(16000) + le32(32000) + le16(2) + le16(16) + "data" + le32(4) +
                               le16(1) + le16(0xfffe);
  CHECK(write(w) == expected);
}

TEST_CASE("the header espeak-ng 1.51 writes with -w") {
  // The first 44 bytes of `espeak-ng -w t.wav -v en-us "seven"` (Debian
  // espeak-ng 1.51+dfsg-10), with the data cut to 4 samples and the two
  // sizes adjusted to match.
  const unsigned char head[] = {0x52, 0x49, 0x46, 0x46, 0x2c, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56,
                                0x45, 0x66, 0x6d, 0x74, 0x20, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00,
                                0x01, 0x00, 0x22, 0x56, 0x00, 0x00, 0x44, 0xac, 0x00, 0x00, 0x02,
                                0x00, 0x10, 0x00, 0x64, 0x61, 0x74, 0x61, 0x08, 0x00, 0x00, 0x00};
  std::string bytes(reinterpret_cast<const char*>(head), sizeof head);
  bytes += le16(0) + le16(100) + le16(0xff9c) + le16(0x8000);
  const wav_data r = parse(bytes);
  CHECK(r.sample_rate == 22050);
  CHECK(r.channels == 1);
  CHECK(r.bits_per_sample == 16);
  CHECK(r.samples == std::vector<std::int32_t>{0, 100, -100, -32768});
  const auto mono = r.mono<double>();
  REQUIRE(mono.size() == 4);
  CHECK(mono[1] == 100.0 / 32768);
  CHECK(mono[3] == -1.0);
}

TEST_CASE("mono averages the channels and scales by 2^-(bits - 1)") {
  wav_data w;
  w.sample_rate = 8000;
  w.channels = 2;
  w.bits_per_sample = 8;
  w.samples = {64, 0, -128, -128, 127, 127};
  const auto m = w.mono<float>();
  REQUIRE(m.size() == 3);
  CHECK(m[0] == 0.25f);
  CHECK(m[1] == -1.0f);
  CHECK(m[2] == 127.0f / 128);
  w.bits_per_sample = 0;
  CHECK_THROWS_WITH_AS((void)w.mono<float>(),
                       "privet: bits_per_sample = 0 is invalid; allowed: 8, 16, 24 or 32",
                       privet::invalid_parameter);
  // Widths between the four are refused too, as the message says.
  for (const std::uint16_t bits : {12, 20, 31, 33}) {
    w.bits_per_sample = bits;
    CHECK_THROWS_WITH_AS((void)w.mono<float>(),
                         ("privet: bits_per_sample = " + std::to_string(bits) +
                          " is invalid; allowed: 8, 16, 24 or 32")
                             .c_str(),
                         privet::invalid_parameter);
  }
  for (const std::uint16_t bits : {16, 24, 32}) {
    w.bits_per_sample = bits;
    CHECK(w.mono<double>()[0] == std::ldexp(32.0, 1 - bits));  // (64 + 0) / 2 / 2^(bits-1)
  }
}

TEST_CASE("extensible PCM, skipped chunks and pad bytes") {
  // WAVE_FORMAT_EXTENSIBLE, 24-bit in 24, front-left + front-right mask.
  const std::string ext = fmt16(0xFFFE, 2, 48000, 24) + le16(22) + le16(24) + le32(3) + pcm_guid();
  const std::string data = chunk("data", std::string("\x01\x00\x00\xff\xff\xff", 6));
  // An odd LIST chunk (5 bytes + pad) before and a fact chunk after.
  const wav_data r =
      parse(riff(chunk("LIST", "abcde") + chunk("fmt ", ext) + data + chunk("fact", le32(1))));
  CHECK(r.sample_rate == 48000);
  CHECK(r.channels == 2);
  CHECK(r.bits_per_sample == 24);
  CHECK(r.samples == std::vector<std::int32_t>{1, -1});
  // A PCM fmt chunk with an empty extension (WAVEFORMATEX, 18 bytes).
  const wav_data e =
      parse(riff(chunk("fmt ", fmt16(1, 1, 8000, 16) + le16(0)) + chunk("data", le16(7))));
  CHECK(e.samples == std::vector<std::int32_t>{7});
  // An empty data chunk is a valid, silent file.
  CHECK(parse(riff(chunk("fmt ", fmt16(1, 1, 8000, 16)) + chunk("data", ""))).samples.empty());
}

TEST_CASE("malformed and unsupported WAVE files throw serialization_error naming the problem") {
  const auto fails = [](const std::string& bytes, const std::string& message,
                        const privet::io::wav_limits& limits = {}) {
    CAPTURE(message);
    CHECK_THROWS_WITH_AS((void)parse(bytes, limits), ("privet: WAV: " + message).c_str(),
                         privet::serialization_error);
  };
  const std::string fmt = chunk("fmt ", fmt16(1, 1, 8000, 16));
  const std::string data = chunk("data", le16(1) + le16(2));

  fails("", "the stream holds 0 bytes, fewer than the 12-byte RIFF header");
  fails(std::string("RIFF\x04\0\0\0WAV", 11),
        "the stream holds 11 bytes, fewer than the 12-byte RIFF header");
  fails("RIFX" + le32(4) + "WAVE",
        "container 'RIFX' is not supported; allowed: 'RIFF' (little-endian, sizes below 4 GiB)");
  fails("RF64" + le32(4) + "WAVE",
        "container 'RF64' is not supported; allowed: 'RIFF' (little-endian, sizes below 4 GiB)");
  fails(std::string("ID3\x03", 4) + le32(4) + "WAVE",
        "not a RIFF file: it starts with 'ID3\\x03', expected 'RIFF'");
  fails("RIFF" + le32(3) + "WAVE", "RIFF size 3 is too small for the form type; allowed: >= 4");
  fails("RIFF" + le32(4) + "AVI ", "RIFF form type is 'AVI ', expected 'WAVE'");
  fails(riff(""), "no 'fmt ' chunk");
  fails(riff(fmt), "no 'data' chunk");
  fails(riff(data + fmt), "the 'data' chunk at byte 12 comes before the 'fmt ' chunk");
  fails(riff(fmt + fmt + data), "a second 'fmt ' chunk at byte 36");
  fails(riff(fmt + data + data), "a second 'data' chunk at byte 48");
  fails(riff(fmt + data + "abc"),
        "the RIFF chunk ends at byte 51, inside the chunk header at byte 48");
  fails(riff(fmt + data) + "x", "the stream continues after the end of the RIFF chunk at byte 48");
  fails(riff(fmt + std::string("da\nt", 4) + le32(0)),
        "chunk id 'da\\x0at' at byte 36 is not four printable ASCII characters");

  // Sizes that do not fit: inside the RIFF chunk, in the stream, in the limit.
  fails("RIFF" + le32(4 + 8 + 16) + "WAVE" + "fmt " + le32(17) + fmt16(1, 1, 8000, 16),
        "chunk 'fmt ' at byte 12 declares 17 bytes, beyond the end of the RIFF chunk at byte 36");
  fails("RIFF" + le32(4 + 8 + 3) + "WAVE" + "junk" + le32(3) + "abc",
        "chunk 'junk' at byte 12 has odd size 3 but its pad byte lies beyond the RIFF chunk");
  fails("RIFF" + le32(4 + 100) + "WAVE" + fmt,
        "truncated: the stream ends at byte 36, inside the chunk header at byte 36 (the RIFF "
        "header declares 112 bytes)");
  fails("RIFF" + le32(4 + 8 + 16 + 8 + 1000) + "WAVE" + fmt + "data" + le32(1000) + le16(5),
        "truncated: chunk 'data' at byte 36 declares 1000 bytes but the stream ends after 2 of "
        "them");
  fails("RIFF" + le32(4 + 8 + 4) + "WAVE" + "LIST" + le32(3) + "xyz",
        "truncated: the stream ends before the pad byte of chunk 'LIST' at byte 12");
  fails("RIFF" + le32(4 + 8 + 200) + "WAVE" + "LIST" + le32(200) + "xyz",
        "truncated: chunk 'LIST' at byte 12 declares 200 bytes but the stream ends after 3 of "
        "them");
  fails("RIFF" + le32(4 + 8 + 16) + "WAVE" + "fmt " + le32(16) + "0123",
        "truncated: chunk 'fmt ' at byte 12 declares 16 bytes but the stream ends after 4 of "
        "them");
  // A header claiming almost 4 GiB on a 50-byte stream: refused by the limit,
  // and with the limit lifted, it fails on truncation after reading what is
  // there (the reserve is capped, so nothing near 4 GiB is allocated).
  const std::string huge = "RIFF" + le32(0xFFFFFFFF) + "WAVE" + fmt + "data" + le32(0xFFFFFFD0) +
                           le16(1) + le16(2) + le16(3);
  fails(huge,
        "'data' chunk at byte 36 declares 4294967248 bytes; allowed: at most max_data_bytes = "
        "268435456");
  fails(huge,
        "truncated: chunk 'data' at byte 36 declares 4294967248 bytes but the stream ends after 6 "
        "of them",
        {.max_data_bytes = std::uint64_t{1} << 40});
  // What `espeak-ng --stdout` writes: placeholder sizes for a pipe.
  fails("RIFF" + le32(0x7ffff024) + "WAVE" + fmt + "data" + le32(0x7ffff000) + le16(0),
        "'data' chunk at byte 36 declares 2147479552 bytes; allowed: at most max_data_bytes = "
        "268435456");
  fails(riff(fmt + chunk("data", "abc")),
        "'data' chunk at byte 36 has 3 bytes, not a multiple of the block size 2");

  // The format chunk.
  fails(riff(chunk("fmt ", fmt16(3, 1, 8000, 32)) + data),
        "format code 0x0003 (IEEE float) in the 'fmt ' chunk at byte 12 is not supported; "
        "allowed: 0x0001 (PCM) or 0xFFFE (extensible PCM)");
  fails(riff(chunk("fmt ", fmt16(7, 1, 8000, 8)) + data),
        "format code 0x0007 (mu-law) in the 'fmt ' chunk at byte 12 is not supported; allowed: "
        "0x0001 (PCM) or 0xFFFE (extensible PCM)");
  fails(riff(chunk("fmt ", fmt16(0x1234, 1, 8000, 16)) + data),
        "format code 0x1234 in the 'fmt ' chunk at byte 12 is not supported; allowed: 0x0001 "
        "(PCM) or 0xFFFE (extensible PCM)");
  fails(riff(chunk("fmt ", fmt16(1, 1, 8000, 16).substr(0, 14)) + data),
        "'fmt ' chunk at byte 12 has size 14; allowed: 16, or 18 to 40 bytes");
  fails(riff(chunk("fmt ", fmt16(1, 1, 8000, 16) + std::string(26, '\0')) + data),
        "'fmt ' chunk at byte 12 has size 42; allowed: 16, or 18 to 40 bytes");
  fails(riff(chunk("fmt ", fmt16(1, 1, 8000, 16) + le16(1) + "x") + data),
        "extension size 1 in the 'fmt ' chunk at byte 12; allowed: 0 for format code 1 (PCM)");
  fails(riff(chunk("fmt ", fmt16(1, 1, 8000, 16) + le16(4) + "x") + data),
        "extension size 4 in the 'fmt ' chunk at byte 12 of 19 bytes; allowed: chunk size - 18 = "
        "1");
  fails(riff(chunk("fmt ", fmt16(1, 1, 8000, 16) + "x") + data),
        "'fmt ' chunk at byte 12 has size 17; allowed: 16, or 18 to 40 bytes");
  fails(riff(chunk("fmt ", fmt16(0xFFFE, 1, 8000, 16) + le16(0)) + data),
        "extension size 0 in the 'fmt ' chunk at byte 12; allowed: 22 for format code 0xFFFE "
        "(extensible)");
  fails(
      riff(chunk("fmt ", fmt16(0xFFFE, 1, 8000, 16) + le16(22) + le16(17) + le32(4) + pcm_guid()) +
           data),
      "valid bits per sample 17 in the 'fmt ' chunk at byte 12; allowed: 1 to 16");
  std::string float_guid = pcm_guid();
  float_guid[0] = 3;
  fails(
      riff(chunk("fmt ", fmt16(0xFFFE, 1, 8000, 16) + le16(22) + le16(16) + le32(4) + float_guid) +
           data),
      "the extensible sub-format in the 'fmt ' chunk at byte 12 is not PCM "
      "(KSDATAFORMAT_SUBTYPE_PCM); only integer PCM is supported");
  fails(riff(chunk("fmt ", fmt16(1, 0, 8000, 16)) + data),
        "channels = 0 in the 'fmt ' chunk at byte 12; allowed: 1 to 32");
  fails(riff(chunk("fmt ", fmt16(1, 3, 8000, 16)) + data),
        "channels = 3 in the 'fmt ' chunk at byte 12; allowed: 1 to 2", {.max_channels = 2});
  fails(riff(chunk("fmt ", fmt16(1, 1, 0, 16)) + data),
        "sample rate 0 in the 'fmt ' chunk at byte 12; allowed: 1 to 1000000 Hz");
  fails(riff(chunk("fmt ", fmt16(1, 1, 2000000, 16)) + data),
        "sample rate 2000000 in the 'fmt ' chunk at byte 12; allowed: 1 to 1000000 Hz");
  fails(riff(chunk("fmt ", fmt16(1, 1, 8000, 12)) + data),
        "bits per sample 12 in the 'fmt ' chunk at byte 12; allowed: 8, 16, 24 or 32");
  fails(
      riff(chunk("fmt ", le16(1) + le16(2) + le32(8000) + le32(32000) + le16(2) + le16(16)) + data),
      "block align 2 in the 'fmt ' chunk at byte 12; allowed: channels * bits / 8 = 4");
  fails(
      riff(chunk("fmt ", le16(1) + le16(1) + le32(8000) + le32(8000) + le16(2) + le16(16)) + data),
      "byte rate 8000 in the 'fmt ' chunk at byte 12; allowed: sample rate * block align = "
      "16000");
}

TEST_CASE("every truncation and every byte corruption of a valid file is handled") {
  const std::string good = small_file();
  REQUIRE(parse(good).samples == std::vector<std::int32_t>{1, -1, 32767});
  for (std::size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    CHECK_THROWS_AS((void)parse(good.substr(0, n)), privet::serialization_error);
  }
  // Each byte set to a few values: the reader either accepts the file or
  // throws serialization_error; nothing else escapes.
  std::size_t accepted = 0, rejected = 0;
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (int v : {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(v);
      try {
        (void)parse(bad);
        ++accepted;
      } catch (const privet::serialization_error&) {
        ++rejected;
      }
    }
  }
  CHECK(rejected > 0);
  CHECK(accepted > 0);  // sample bytes may take any value
}

TEST_CASE("files on disk, and the writer's checks") {
  const auto path = std::filesystem::temp_directory_path() / "privet_wav_test.wav";
  wav_data w;
  w.sample_rate = 44100;
  w.samples = {0, 32767, -32768};
  privet::io::write_wav_file(path, w);
  CHECK(privet::io::read_wav_file(path).samples == w.samples);
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << "zz";
  }
  CHECK_THROWS_WITH_AS((void)privet::io::read_wav_file(path),
                       ("privet: WAV: the stream continues after the end of the RIFF chunk at "
                        "byte 50 (file " +
                        path.string() + ")")
                           .c_str(),
                       privet::serialization_error);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH_AS((void)privet::io::read_wav_file(path),
                       ("privet: WAV: cannot open " + path.string()).c_str(), privet::error);

  std::ostringstream sink;
  wav_data bad = w;
  bad.bits_per_sample = 12;
  CHECK_THROWS_WITH_AS(privet::io::write_wav(sink, bad),
                       "privet: bits_per_sample = 12 is invalid; allowed: 8, 16, 24 or 32",
                       privet::invalid_parameter);
  bad = w;
  bad.channels = 2;
  CHECK_THROWS_WITH_AS(privet::io::write_wav(sink, bad),
                       "privet: samples.size() = 3 is invalid; allowed: a multiple of channels = 2",
                       privet::invalid_parameter);
  bad = w;
  bad.sample_rate = 0;
  CHECK_THROWS_WITH_AS(privet::io::write_wav(sink, bad),
                       "privet: sample_rate = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  bad = w;
  bad.channels = 0;
  CHECK_THROWS_WITH_AS(privet::io::write_wav(sink, bad),
                       "privet: channels = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  bad = w;
  bad.samples[1] = 32768;
  CHECK_THROWS_WITH_AS(privet::io::write_wav(sink, bad),
                       "privet: WAV: sample 1 = 32768 does not fit 16 bits; allowed: [-32768, "
                       "32767]",
                       privet::overflow_error);
  bad = w;
  bad.bits_per_sample = 8;
  bad.samples = {-129};
  CHECK_THROWS_WITH_AS(privet::io::write_wav(sink, bad),
                       "privet: WAV: sample 0 = -129 does not fit 8 bits; allowed: [-128, 127]",
                       privet::overflow_error);
  CHECK(sink.str().empty());  // nothing is written before the checks pass
}

TEST_CASE("the writer's layout limits and stream failures") {
  std::ostringstream sink;
  wav_data w;
  w.sample_rate = 8000;
  w.channels = 16384;
  w.bits_per_sample = 32;
  CHECK_THROWS_WITH_AS(privet::io::write_wav(sink, w),
                       "privet: WAV: block align 65536 does not fit 16 bits; allowed: channels * "
                       "bits / 8 <= 65535",
                       privet::overflow_error);
  w.channels = 2;
  w.bits_per_sample = 16;
  w.sample_rate = 0xFFFFFFFFu;
  CHECK_THROWS_WITH_AS(privet::io::write_wav(sink, w),
                       "privet: WAV: byte rate 17179869180 does not fit 32 bits; allowed: "
                       "sample_rate * block align < 2^32",
                       privet::overflow_error);
  CHECK(sink.str().empty());
  w.sample_rate = 8000;
  w.samples = {1, 2};
  std::ostringstream broken;
  broken.setstate(std::ios::badbit);
  CHECK_THROWS_WITH_AS(privet::io::write_wav(broken, w),
                       "privet: WAV: the output stream failed while writing", privet::error);
  const auto missing = std::filesystem::temp_directory_path() / "privet_no_such_dir" / "x.wav";
  CHECK_THROWS_WITH_AS(privet::io::write_wav_file(missing, w),
                       ("privet: WAV: cannot create " + missing.string()).c_str(), privet::error);
}

// Found by tests/fuzz/wav_fuzz.cpp: one 24-bit sample (3 data bytes and a
// pad byte) read, but the writer left the pad byte out, so the reader
// refused what the writer had made of it.
TEST_CASE("odd-sized data chunks are written with their pad byte (fuzz regression)") {
  const std::string header = "WAVEfmt " + le32(16) + fmt16(1, 1, 48000, 24) + "data" + le32(3);
  const std::string crash = "RIFF" + le32(40) + header + le16(0xffff) + le16(0x007f);
  const wav_data audio = parse(crash);
  CHECK(audio.bits_per_sample == 24);
  CHECK(audio.samples == std::vector<std::int32_t>{8388607});
  CHECK(write(audio) == crash);  // RIFF size 36 + 3 + 1, data size 3, then the pad byte
  CHECK(parse(write(audio)).samples == audio.samples);

  // What the writer made before: the RIFF chunk ends where the pad byte should be.
  const std::string unpadded = "RIFF" + le32(39) + header + le16(0xffff) + std::string(1, '\x7f');
  CHECK_THROWS_WITH_AS(
      parse(unpadded),
      "privet: WAV: chunk 'data' at byte 36 has odd size 3 but its pad byte lies beyond the RIFF "
      "chunk",
      privet::serialization_error);

  // 8-bit mono with an odd sample count is the other odd layout.
  wav_data bytes8;
  bytes8.sample_rate = 8000;
  bytes8.bits_per_sample = 8;
  bytes8.samples = {-128, 0, 127};
  const std::string file8 = write(bytes8);
  CHECK(file8.size() == 44 + 3 + 1);
  CHECK(file8.substr(4, 4) == le32(40));
  CHECK(parse(file8).samples == bytes8.samples);
}
