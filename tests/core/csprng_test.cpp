#include <privet/core/csprng.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <set>
#include <type_traits>

static_assert(privet::uniform_random_bit_generator<privet::csprng>);
static_assert(!std::is_copy_constructible_v<privet::csprng>, "a copy would replay randomness");

TEST_CASE("csprng yields distinct words and crosses buffer refills") {
  privet::csprng gen;
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 5000; ++i) seen.insert(gen());  // > 9 refills of 512 words
  // A repeat among 5000 uniform 64-bit words has probability < 1e-12.
  CHECK(seen.size() == 5000);
}

TEST_CASE("two csprng instances are independent") {
  privet::csprng a;
  privet::csprng b;
  CHECK(a() != b());
  privet::csprng moved(std::move(a));
  CHECK(moved() != b());
}

TEST_CASE("csprng fill writes bytes") {
  privet::csprng gen;
  std::array<std::byte, 64> bytes{};
  gen.fill(bytes);
  int zero = 0;
  for (auto b : bytes) zero += b == std::byte{0};
  CHECK(zero < 10);  // 64 uniform bytes with >= 10 zeros: probability < 1e-12
}

#include <sys/wait.h>
#include <unistd.h>

TEST_CASE("after fork the child does not replay the parent's buffered words") {
  privet::csprng gen;
  (void)gen();  // fill the buffer before forking
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::uint64_t w = gen();
    (void)!write(fds[1], &w, sizeof w);
    _exit(0);
  }
  std::uint64_t child = 0;
  REQUIRE(read(fds[0], &child, sizeof child) == sizeof child);
  waitpid(pid, nullptr, 0);
  close(fds[0]);
  close(fds[1]);
  CHECK(child != gen());
}
