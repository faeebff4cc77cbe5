// libFuzzer target: the strict RIFF/WAVE reader (io/wav.hpp) on arbitrary
// bytes, under the default limits and under tight ones (64 data bytes, 2
// channels, 48 kHz). Every read either succeeds or throws
// serialization_error. A file that reads under the tight limits reads the
// same under the default ones; audio that reads is written back by the
// canonical writer, which must accept it, and reads back equal; its mono
// mix has one value per frame, in [-1, 1). Anything else aborts.
#include <privet/io/wav.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

namespace {

namespace io = privet::io;

void check(bool ok) {
  if (!ok) std::abort();
}

std::optional<io::wav_data> read(const std::string& bytes, const io::wav_limits& limits) {
  std::istringstream in(bytes, std::ios::binary);
  try {
    return io::read_wav(in, limits);
  } catch (const privet::serialization_error&) {
    return std::nullopt;
  }
}

bool same(const io::wav_data& a, const io::wav_data& b) {
  return a.sample_rate == b.sample_rate && a.channels == b.channels &&
         a.bits_per_sample == b.bits_per_sample && a.samples == b.samples;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  io::wav_limits tight;
  tight.max_data_bytes = 64;
  tight.max_channels = 2;
  tight.max_sample_rate = 48000;
  const auto small = read(bytes, tight);
  const auto audio = read(bytes, {});
  check(!small || (audio && same(*small, *audio)));
  if (!audio) return 0;

  check(audio->samples.size() % audio->channels == 0);
  const auto mono = audio->mono<double>();
  check(mono.size() == audio->frames());
  for (const double v : mono) check(v >= -1 && v < 1);

  std::ostringstream out(std::ios::binary);
  io::write_wav(out, *audio);
  const auto again = read(out.str(), {});
  check(again && same(*again, *audio));
  return 0;
}
