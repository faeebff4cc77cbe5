// privet/crypto/detail/modulus_checks.hpp — what can be checked of a
// factoring modulus n = p q from n alone, cheaply, before anyone trusts it:
// no prime factor below `modulus_trial_division_bound` (trial division by the
// 3511 odd primes below 2^15) and no perfect power (n = a^k, k >= 2).
//
// Why. Under n = P^2 Paillier's ciphertexts give their plaintexts to anyone
// (Z*_{n^2} then has a subgroup of order P^3 whose discrete logarithms are
// easy), and under n = 3 m every ciphertext tells its plaintext mod 3; a
// public key is read from a peer, so neither may be accepted.
//
// What cannot be checked from n alone: that n has exactly two prime factors
// (n = p q r with all three above the bound passes), that p and q have equal
// length (an unbalanced n = p q with a 100-bit p passes, and falls to the
// elliptic-curve method), that |p - q| is large (Fermat), that p - 1 and
// q - 1 have large prime factors (Pollard's p - 1). These need the primes:
// `private_key::from_primes` checks the length and the distance, and key
// generation draws the primes at random.
//
// Cost, for a b-bit n (b/64 limbs): trial division is at most 878 divisions
// of n by a word (a product of four primes below 2^15), O(b) each; the perfect-power
// test tries each prime exponent k below b / 15 (a root a has no factor below
// 2^15, so a > 2^15) with six power-residue tests modulo word-sized primes
// r = 1 mod k (one division of n by a word each), which a non-power fails
// with probability >= 1 - k^-6; only an n passing all six for some k gets the
// exact k-th root by Newton's method (O(log b) iterations of O(log k) big
// multiplications and one division); an n crafted to pass the residue tests
// for many k forces the roots for each. Measured in bench/readers_bench.cpp
// (modulus_checks): 0.23 ms at 2048 bits, 1.3 ms at 16384 on GMP, about a
// fifth of one exponentiation modulo n at 2048 bits; every root forced
// (modulus_checks_forced_roots): 1.5 ms at 2048 bits, 0.53 s at 16384 (GMP;
// cpp_int 2.7 ms and 1.6 s).
#pragma once

#include <privet/core/error.hpp>
#include <privet/crypto/detail/montgomery.hpp>

#include <boost/multiprecision/cpp_int.hpp>
#include <boost/multiprecision/integer.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace privet::detail {

/// Trial division of an untrusted modulus by every odd prime below this.
inline constexpr std::uint32_t modulus_trial_division_bound = 32768;

// The odd primes below modulus_trial_division_bound (3511 of them), sieved on
// first use.
inline const std::vector<std::uint16_t>& modulus_trial_primes() {
  static const std::vector<std::uint16_t> primes = [] {
    std::vector<bool> composite(modulus_trial_division_bound, false);
    std::vector<std::uint16_t> out;
    for (std::uint32_t n = 3; n < modulus_trial_division_bound; n += 2) {
      if (composite[n]) continue;
      out.push_back(static_cast<std::uint16_t>(n));
      for (std::uint32_t m = n * n; m < modulus_trial_division_bound; m += 2 * n)
        composite[m] = true;
    }
    return out;
  }();
  return primes;
}

// n mod m for a word m > 0.
template <class Int>
std::uint64_t mod_word(const Int& n, std::uint64_t m) {
  return static_cast<std::uint64_t>(Int(n % Int(m)));
}

/// The least odd prime below modulus_trial_division_bound that divides n and
/// is not n itself, or 0 when there is none. Remainders are taken modulo
/// products of four primes (each below 2^60), one division by a word each.
template <class Int>
std::uint32_t small_factor_of(const Int& n) {
  const auto& primes = modulus_trial_primes();
  std::size_t i = 0;
  while (i < primes.size()) {
    std::uint64_t product = 1;
    std::size_t j = i;
    while (j < primes.size() && product <= UINT64_MAX / primes[j]) product *= primes[j++];
    const std::uint64_t rem = mod_word(n, product);
    for (; i < j; ++i) {
      if (rem % primes[i] == 0 && n != Int(primes[i])) return primes[i];
    }
  }
  return 0;
}

// b^e mod m for words (m < 2^32).
inline std::uint64_t pow_mod_word(std::uint64_t b, std::uint64_t e, std::uint64_t m) {
  std::uint64_t r = 1 % m;
  b %= m;
  while (e != 0) {
    if (e & 1) r = r * b % m;
    b = b * b % m;
    e >>= 1;
  }
  return r;
}

inline bool is_word_prime(std::uint64_t x) {
  if (x < 2) return false;
  for (std::uint64_t d = 2; d * d <= x; ++d) {
    if (x % d == 0) return false;
  }
  return true;
}

// The largest a with a^k <= n (n > 0, k >= 2), by Newton's method from above.
template <class Int>
Int integer_root(const Int& n, unsigned k) {
  if (k == 2) return boost::multiprecision::sqrt(n);
  const std::size_t bits = bits_of(n);
  // 2^ceil(bits / k) > n^(1/k): a start above the root.
  Int x = Int(1) << static_cast<unsigned>((bits + k - 1) / k);
  for (;;) {
    const Int xk1 = boost::multiprecision::pow(x, k - 1);
    const Int y = (Int(k - 1) * x + n / xk1) / k;
    if (y >= x) return x;
    x = y;
  }
}

/// The least prime k >= 2 with n = a^k for an integer a, or 0 when n is no
/// perfect power. n must be odd and have no factor below
/// modulus_trial_division_bound (call small_factor_of first): then a >= 2^15
/// and k < bits(n) / 15.
template <class Int>
unsigned perfect_power_exponent(const Int& n) {
  const std::size_t bits = bits_of(n);
  if (bits < 30) return 0;
  const std::size_t max_k = bits / 15;
  for (unsigned k = 2; k <= max_k; ++k) {
    if (!is_word_prime(k)) continue;
    // A k-th power is a k-th power residue modulo every prime r = 1 mod k:
    // n^((r - 1) / k) = 1 mod r, or n = 0 mod r. Six such r above the
    // trial-division bound; a residue fails with probability 1 - 1/k.
    bool may_be_power = true;
    unsigned tested = 0;
    for (std::uint64_t r = 2 * k * (modulus_trial_division_bound / (2 * k) + 1) + 1; tested < 6;
         r += 2 * k) {
      if (!is_word_prime(r)) continue;
      ++tested;
      const std::uint64_t residue = mod_word(n, r);
      if (residue != 0 && pow_mod_word(residue, (r - 1) / k, r) != 1) {
        may_be_power = false;
        break;
      }
    }
    if (!may_be_power) continue;
    // Newton's iterates overshoot n by up to 2^k: a fixed-width Int might
    // wrap, so the root is taken in the unbounded cpp_int there.
    if constexpr (std::numeric_limits<Int>::is_bounded) {
      const boost::multiprecision::cpp_int wide(n);
      if (boost::multiprecision::pow(integer_root(wide, k), k) == wide) return k;
    } else {
      if (boost::multiprecision::pow(integer_root(n, k), k) == n) return k;
    }
  }
  return 0;
}

/// n's form as n alone shows it: invalid_parameter naming the check unless n
/// has no prime factor below modulus_trial_division_bound and is no perfect
/// power. For the moduli of Paillier and DGK public keys.
template <class Int>
void check_modulus_form(const Int& n) {
  if (const std::uint32_t f = small_factor_of(n); f != 0) {
    throw invalid_parameter("n", "privet: n has the prime factor " + std::to_string(f) +
                                     " (trial division by the primes below " +
                                     std::to_string(modulus_trial_division_bound) +
                                     "); allowed: n = p q, a product of two large primes");
  }
  if (const unsigned k = perfect_power_exponent(n); k != 0) {
    throw invalid_parameter("n", "privet: n is a perfect power (n = a^" + std::to_string(k) +
                                     "); allowed: n = p q, a product of two distinct primes");
  }
}

}  // namespace privet::detail
