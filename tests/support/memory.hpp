// tests/support/memory.hpp — the peak resident memory a piece of code adds,
// for the resource-limit tests (<header>_limits_test.cpp): an input far
// larger than its documented bound must be processed in memory that follows
// the bound, not the input.
//
// The peak is getrusage(RUSAGE_SELF).ru_maxrss. A process's peak only ever
// rises, so an earlier test case of the same executable could hide the
// growth of a later one; the probe therefore first hands free heap memory
// back to the kernel (malloc_trim) and resets the kernel's high-water mark
// to the current resident size (writing 5 to /proc/self/clear_refs, Linux
// >= 4.0), which ru_maxrss follows. Where the reset is refused the probe
// says so (reset() is false) and measures from the old peak, which can only
// under-report.
#pragma once

#include <malloc.h>
#include <sys/resource.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace privet::test {

/// True when built with AddressSanitizer, whose shadow memory and
/// quarantine of freed blocks make resident sizes meaningless: memory
/// checks are skipped there (the code still runs, so ASan checks it).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool address_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool address_sanitizer = true;
#else
inline constexpr bool address_sanitizer = false;
#endif
#else
inline constexpr bool address_sanitizer = false;
#endif

inline constexpr std::size_t mebibyte = std::size_t{1} << 20;

/// The size of a limits test's huge input: n, or n / 10 under
/// AddressSanitizer, where the memory check is skipped and sanitized code at
/// -O0 runs 10-30 times slower (the sanitize preset's two slowest tests were
/// 10^7-record inputs: 181 s and 77 s). The smaller input still exceeds every
/// bound it is fed to by orders of magnitude, so the same paths run.
constexpr std::uint64_t huge_input(std::uint64_t n) {
  return address_sanitizer ? n / 10 : n;
}

/// The growth of the process's peak resident size from construction to
/// growth(), in bytes.
class peak_rss_probe {
 public:
  peak_rss_probe() {
    malloc_trim(0);
    {
      std::ofstream clear("/proc/self/clear_refs");
      if (clear) clear << "5";
      clear.close();
      reset_ = static_cast<bool>(clear);
    }
    base_ = peak_bytes();
  }

  /// Whether the high-water mark was reset (the growth is then exact).
  [[nodiscard]] bool reset() const noexcept { return reset_; }

  [[nodiscard]] std::size_t growth() const {
    const std::size_t now = peak_bytes();
    return now > base_ ? now - base_ : 0;
  }

 private:
  static std::size_t peak_bytes() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<std::size_t>(u.ru_maxrss) * 1024;  // Linux reports KiB
  }

  bool reset_ = false;
  std::size_t base_ = 0;
};

}  // namespace privet::test
