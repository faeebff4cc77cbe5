// privet/core/concepts.hpp — the number and generator concepts every template
// parameter in privet is constrained by.
//
// `number_traits<T>` is the customisation point: specialise it to make a
// user-defined big-integer type (or a custom real type) acceptable to privet
// without touching the library, in the spirit of Eigen's NumTraits.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace privet {

/// Traits privet reads from a number type. Specialise for your own types.
///
/// - `is_real`: behaves like a floating-point number (finite checks, +-*/).
/// - `is_integer`: a built-in integer type usable as a count or a key.
/// - `is_big_integer`: an arbitrary- or wide-precision integer usable for
///   modular arithmetic (Paillier).
template <class T, class Enable = void>
struct number_traits {
  /// True for the built-in floating-point types.
  static constexpr bool is_real = std::is_floating_point_v<T>;
  /// True for the built-in integer types except `bool`.
  static constexpr bool is_integer =
      std::is_integral_v<T> && !std::is_same_v<std::remove_cv_t<T>, bool>;
  /// False by default; Boost.Multiprecision integers are recognised below.
  static constexpr bool is_big_integer = false;
};

namespace detail {
// A Boost.Multiprecision `number<Backend, ET>`, recognised by its shape
// (a backend, a string form) rather than by including Boost.Multiprecision:
// its headers cost about 160 k preprocessed lines, and only code that
// already holds such a number (and so has included its backend) can ask.
template <class T>
concept multiprecision_number = requires(const T& x) {
  typename T::backend_type;
  x.backend();
  x.str();
};
}  // namespace detail

// Every Boost.Multiprecision integer (cpp_int, the GMP backend's mpz_int,
// checked fixed-width cpp_int types) is a big integer without further work.
// The backend's headers specialise numeric_limits, which says "integer".
template <class T>
struct number_traits<T, std::enable_if_t<detail::multiprecision_number<T>>> {
  static constexpr bool is_real = false;
  static constexpr bool is_integer = false;
  static constexpr bool is_big_integer =
      std::numeric_limits<T>::is_specialized && std::numeric_limits<T>::is_integer;
};

/// A floating-point-like type: `float`, `double`, `long double`, or a type
/// whose `number_traits` says so.
template <class T>
concept real_number = number_traits<T>::is_real && std::regular<T> && std::totally_ordered<T> &&
    requires(T a, T b) {
  { a + b } -> std::convertible_to<T>;
  { a - b } -> std::convertible_to<T>;
  { a* b } -> std::convertible_to<T>;
  { a / b } -> std::convertible_to<T>;
};

/// A built-in integer type other than `bool`.
template <class T>
concept integer_number = number_traits<T>::is_integer && std::integral<T>;

/// An integer of arbitrary or large fixed precision with the ring and
/// ordering operations modular arithmetic needs.
template <class T>
concept big_integer = number_traits<T>::is_big_integer && std::regular<T> &&
    std::totally_ordered<T> && std::constructible_from<T, unsigned long> &&
    requires(T a, T b, unsigned u) {
  {T(a + b)};
  {T(a - b)};
  {T(a * b)};
  {T(a / b)};
  {T(a % b)};
  {T(a << u)};
  {T(a >> u)};
};

/// std::uniform_random_bit_generator ([rand.req.urng]), spelled out here
/// so that core does not include `<random>` (about 52 k preprocessed lines)
/// for one concept; every standard engine satisfies it.
template <class G>
concept uniform_random_bit_generator =
    std::invocable<G&> && std::unsigned_integral<std::invoke_result_t<G&>> && requires {
  { G::min() } -> std::same_as<std::invoke_result_t<G&>>;
  { G::max() } -> std::same_as<std::invoke_result_t<G&>>;
  requires std::bool_constant<(G::min() < G::max())>::value;
};

namespace detail {
// Number of uniformly random bits one call of G yields, or 0 when the
// generator's range is not of the form [0, 2^w - 1].
template <class G>
constexpr int generator_bits() {
  if constexpr (G::min() != 0) {
    return 0;
  } else {
    const auto mx = static_cast<std::uint64_t>(G::max());
    if (mx == std::numeric_limits<std::uint64_t>::max()) return 64;
    if ((mx & (mx + 1)) != 0) return 0;  // not 2^w - 1
    int w = 0;
    for (std::uint64_t m = mx; m != 0; m >>= 1) ++w;
    return w;
  }
}
}  // namespace detail

/// A generator whose every output is a block of independent uniform bits
/// ([0, 2^w - 1] with w >= 8). privet draws exact integer samples from such
/// blocks; generators such as `std::minstd_rand` whose range is not a power
/// of two are rejected at compile time.
template <class G>
concept random_bit_source = uniform_random_bit_generator<G> &&(detail::generator_bits<G>() >= 8);

/// What privet knows of a generator beyond its range. Specialise with
/// `cryptographically_secure = true` only for a generator whose outputs no
/// one without its state can tell from uniform bits (a CSPRNG, or a PRF
/// stream under a key drawn from one) and whose state no one else can know.
/// A seed is known by whoever chose it: seeded generators stay `false`.
template <class G, class Enable = void>
struct generator_traits {
  /// False unless specialised: a generator is not trusted for release noise
  /// by default.
  static constexpr bool cryptographically_secure = false;
};

/// A `random_bit_source` marked cryptographically secure: the only
/// generators a release path (a mechanism with `secure_noise`, a sketch's or
/// an algorithm's noisy release) accepts. Noise from a generator whose state
/// can be guessed cancels: two runs on neighbouring data with the same seed
/// differ by the data alone.
template <class G>
concept secure_bit_source =
    random_bit_source<G> && generator_traits<std::remove_cv_t<G>>::cryptographically_secure;

}  // namespace privet

/// The sentence a release path prints when handed a generator that is not
/// `secure_bit_source` (a `static_assert`, so the message names the fix
/// rather than listing unsatisfied constraints).
#define PRIVET_REQUIRE_SECURE_GENERATOR(G)                                                         \
  static_assert(::privet::secure_bit_source<G>,                                                    \
                "privet: release noise needs a cryptographically secure generator "                \
                "(privet::secure_generator(), or a keyed_streams stream under a secret from it); " \
                "for simulations use simulation_only_noise, and in tests "                         \
                "privet::testing::seeded_release_generator from <privet/core/testing.hpp>")

/// The sentence a cryptographic entry point (key generation, encryption and
/// re-randomisation, randomiser pools, Shamir coefficients, secure
/// aggregation keys and masks, comparison and private-LR blinding) prints
/// when handed a generator that is not `secure_bit_source`: a key, a
/// randomiser or a mask drawn from a seeded generator can be regenerated by
/// whoever knows (or searches) the seed.
#define PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G)                                                 \
  static_assert(::privet::secure_bit_source<G>,                                                   \
                "privet: keys, encryption randomisers, masks, shares and blinding values need a " \
                "cryptographically secure generator (privet::secure_generator(), or a "           \
                "keyed_streams stream under a secret from it); in tests use "                     \
                "privet::testing::seeded_release_generator from <privet/core/testing.hpp>")
