#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <concepts>
#include <cstdint>
#include <random>

namespace {
// An archetype: a user-defined big integer made acceptable through the
// number_traits customisation point, with only the operations the concept asks.
struct archetype_int {
  unsigned long v = 0;
  archetype_int() = default;
  archetype_int(unsigned long x) : v(x) {}  // NOLINT(google-explicit-constructor)
  [[maybe_unused]] friend archetype_int operator+(archetype_int a, archetype_int b) {
    return a.v + b.v;
  }
  [[maybe_unused]] friend archetype_int operator-(archetype_int a, archetype_int b) {
    return a.v - b.v;
  }
  [[maybe_unused]] friend archetype_int operator*(archetype_int a, archetype_int b) {
    return a.v * b.v;
  }
  [[maybe_unused]] friend archetype_int operator/(archetype_int a, archetype_int b) {
    return a.v / b.v;
  }
  [[maybe_unused]] friend archetype_int operator%(archetype_int a, archetype_int b) {
    return a.v % b.v;
  }
  [[maybe_unused]] friend archetype_int operator<<(archetype_int a, unsigned s) { return a.v << s; }
  [[maybe_unused]] friend archetype_int operator>>(archetype_int a, unsigned s) { return a.v >> s; }
  [[maybe_unused]] friend auto operator<=>(const archetype_int&, const archetype_int&) = default;
};
}  // namespace

template <>
struct privet::number_traits<archetype_int> {
  [[maybe_unused]] static constexpr bool is_real = false;
  [[maybe_unused]] static constexpr bool is_integer = false;
  static constexpr bool is_big_integer = true;
};

TEST_CASE("number concepts accept the intended types and reject the rest") {
  using boost::multiprecision::cpp_int;
  using checked_1024 = boost::multiprecision::number<boost::multiprecision::cpp_int_backend<
      1024, 1024, boost::multiprecision::unsigned_magnitude, boost::multiprecision::checked, void>>;
  static_assert(privet::real_number<double> && privet::real_number<float>);
  static_assert(!privet::real_number<int> && !privet::real_number<cpp_int>);
  static_assert(privet::integer_number<std::int64_t> && privet::integer_number<unsigned>);
  static_assert(!privet::integer_number<bool> && !privet::integer_number<double>);
  static_assert(privet::big_integer<cpp_int> && privet::big_integer<checked_1024>);
  static_assert(privet::big_integer<archetype_int>);
  static_assert(!privet::big_integer<long> && !privet::big_integer<double>);
#ifdef PRIVET_HAS_GMP
  static_assert(privet::big_integer<boost::multiprecision::mpz_int>);
  static_assert(!privet::real_number<boost::multiprecision::mpz_int>);
#endif
  CHECK(true);
}

TEST_CASE("random_bit_source requires a power-of-two range") {
  static_assert(privet::random_bit_source<std::mt19937>);
  static_assert(privet::random_bit_source<std::mt19937_64>);
  static_assert(!privet::random_bit_source<std::minstd_rand>);  // range [1, 2^31 - 2]
  CHECK(privet::detail::generator_bits<std::mt19937>() == 32);
}

TEST_CASE("only generators marked cryptographically secure are release grade") {
  // The OS-seeded CSPRNG and keyed streams (whose secret comes from it) are;
  // a seed, the standard engines and the test-only marker's base are not.
  static_assert(privet::secure_bit_source<privet::csprng>);
  static_assert(privet::secure_bit_source<privet::keyed_stream>);
  static_assert(privet::secure_bit_source<privet::testing::seeded_release_generator>);
  static_assert(!privet::secure_bit_source<privet::seeded_generator>);
  static_assert(!privet::secure_bit_source<std::mt19937_64>);
  static_assert(!privet::secure_bit_source<std::mt19937>);
  // Every one of them is still a random_bit_source for simulations.
  static_assert(privet::random_bit_source<privet::seeded_generator>);
  static_assert(privet::random_bit_source<std::mt19937>);
  // A keyed stream is a ChaCha20 stream like the seeded generator: the type
  // carries the secret's provenance, not a different cipher.
  const privet::keyed_streams streams = privet::testing::seeded_keyed_streams(9);
  auto a = streams.stream(1, 2);
  auto b = streams.stream(1, 2);
  CHECK(a() == b());
  CHECK(a() != streams.stream(1, 3)());
  // Streams drawn from a generator are as good as the generator: release
  // grade from the CSPRNG, simulation-only (plain seeded streams) from a seed.
  privet::seeded_generator seeded(3);
  static_assert(
      std::same_as<decltype(privet::streams_from(seeded)), privet::simulation_keyed_streams>);
  static_assert(!privet::secure_bit_source<decltype(privet::streams_from(seeded).stream(0))>);
  static_assert(std::same_as<decltype(privet::streams_from(privet::secure_generator())),
                             privet::keyed_streams>);
  // The same secret gives the same streams under either type.
  privet::seeded_generator again(3);
  const auto sim = privet::streams_from(again);
  CHECK(privet::keyed_streams(sim.secret()).stream(4)() == sim.stream(4)());
}
