// privet/crypto/detail/primes.hpp — probable primes for Paillier keys: trial
// division by the odd primes below 2^12, then Miller–Rabin (Miller 1976,
// Rabin 1980) with bases drawn uniformly from the caller's random bit source,
// each exponentiation in constant time (crypto/detail/montgomery.hpp).
//
// Number of rounds. For a candidate the caller chose (adversarially perhaps)
// only the worst case holds: at most 1/4 of the bases lie (Monier 1980, Rabin
// 1980), so 64 rounds give error <= 4^-64 = 2^-128. For a *random* odd k-bit
// candidate far fewer rounds suffice: Damgård, Landrock and Pomerance (1993,
// "Average case error estimates for the strong probable prime test", Math.
// Comp. 61, 177–194; restated as Fact 4.48 of the Handbook of Applied
// Cryptography, Menezes, van Oorschot and Vanstone 1996) bound the probability
// p_{k,t} that such a candidate passing t random rounds is composite;
// `miller_rabin_rounds` evaluates their four bounds and Burthe's p_{k,t} <=
// 4^-t (1996, Math. Comp. 65, valid for every k >= 2) and returns the least t
// meeting the target. With the 2^-80 target it reproduces HAC's Table 4.4
// (tested). For 2^-128 it gives 6 rounds at 1024 bits and 4 at 1536.
//
// Our candidates are not uniform odd k-bit integers: the top two bits are set
// (so that a product of two has exactly 2k bits) and those with a factor
// below 2^12 are dropped. Dropping candidates with small factors removes
// composites only, which can only lower the error. Restricting to the upper
// half of the k-bit odd integers at most doubles the probability of drawing a
// composite that passes, while the density of primes is the same to within a
// factor k/(k-1); so `random_prime` asks for 2^-130 to keep 2^-128.
//
// Timing: the exponentiations are constant time; the rest — trial division,
// the branch on the result of each round, the number of squarings until -1
// appears and the count of trailing zero bits of n - 1 — depends on the
// candidate. Rejected candidates are discarded; for the accepted prime p this
// reveals the 2-adic valuation of p - 1 and the outcome of rounds that all
// pass, as in the usual implementations (OpenSSL's BN_is_prime_ex, GMP's
// mpz_probab_prime_p).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/detail/montgomery.hpp>

#include <boost/multiprecision/integer.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace privet::detail {

inline constexpr std::uint32_t trial_division_limit = 4096;

constexpr std::size_t count_odd_primes_below(std::uint32_t limit) {
  std::size_t count = 0;
  for (std::uint32_t n = 3; n < limit; n += 2) {
    bool prime = true;
    for (std::uint32_t d = 3; d * d <= n; d += 2) {
      if (n % d == 0) {
        prime = false;
        break;
      }
    }
    count += prime ? 1 : 0;
  }
  return count;
}

inline constexpr std::size_t small_prime_count = count_odd_primes_below(trial_division_limit);

// The odd primes below the trial-division limit, by a sieve at compile time.
constexpr std::array<std::uint16_t, small_prime_count> make_small_primes() {
  std::array<bool, trial_division_limit> composite{};
  std::array<std::uint16_t, small_prime_count> primes{};
  std::size_t i = 0;
  for (std::uint32_t n = 3; n < trial_division_limit; n += 2) {
    if (composite[n]) continue;
    primes[i++] = static_cast<std::uint16_t>(n);
    for (std::uint32_t m = n * n; m < trial_division_limit; m += 2 * n) composite[m] = true;
  }
  return primes;
}

inline constexpr std::array<std::uint16_t, small_prime_count> small_primes = make_small_primes();

/// Rounds for a candidate the caller chose: 4^-64 = 2^-128 in the worst case.
inline constexpr unsigned adversarial_rounds = 64;

/// log2 of the best of the Damgård–Landrock–Pomerance bounds (and Burthe's
/// 4^-t) on p_{k,t}, for k-bit random odd candidates and t rounds.
inline double miller_rabin_error_log2(std::size_t bits, unsigned rounds) {
  const double k = static_cast<double>(bits);
  const double t = static_cast<double>(rounds);
  double best = -2.0 * t;  // 4^-t (Burthe 1996, all k >= 2)
  const double lk = std::log2(k);
  if (rounds == 1 && bits >= 2) {  // DLP (i): k^2 4^(2 - sqrt k)
    best = std::min(best, 2.0 * lk + 2.0 * (2.0 - std::sqrt(k)));
  }
  if ((rounds == 2 && bits >= 88) || (rounds >= 3 && t <= k / 9 && bits >= 21)) {
    // DLP (ii): k^(3/2) 2^t t^(-1/2) 4^(2 - sqrt(t k))
    best = std::min(best, 1.5 * lk + t - 0.5 * std::log2(t) + 2.0 * (2.0 - std::sqrt(t * k)));
  }
  if (bits >= 21 && t >= k / 9 && t <= k / 4) {
    // DLP (iii): (7/20) k 2^(-5t) + (1/7) k^(15/4) 2^(-k/2 - 2t) + 12 k 2^(-k/4 - 3t)
    const std::array<double, 3> terms = {
        std::log2(7.0 / 20.0) + lk - 5.0 * t,
        -std::log2(7.0) + 3.75 * lk - k / 2 - 2.0 * t,
        std::log2(12.0) + lk - k / 4 - 3.0 * t,
    };
    const double top = *std::max_element(terms.begin(), terms.end());
    double sum = 0;
    for (double x : terms) sum += std::exp2(x - top);
    best = std::min(best, top + std::log2(sum));
  }
  if (bits >= 21 && t >= k / 4) {  // DLP (iv): (1/7) k^(15/4) 2^(-k/2 - 2t)
    best = std::min(best, -std::log2(7.0) + 3.75 * lk - k / 2 - 2.0 * t);
  }
  return best;
}

/// The least number of random-base rounds after which a random odd
/// `bits`-bit candidate that passes is composite with probability at most
/// 2^-security (Damgård–Landrock–Pomerance; see the file comment).
inline unsigned miller_rabin_rounds(std::size_t bits, unsigned security = 128) {
  if (bits < 2) throw_invalid("bits", bits, ">= 2");
  if (security == 0) throw_invalid("security", security, ">= 1");
  unsigned t = 1;
  while (miller_rabin_error_log2(bits, t) > -static_cast<double>(security)) ++t;
  return t;
}

/// Whether n has an odd prime factor below the trial-division limit other
/// than itself. Remainders are taken modulo products of several small primes
/// (each product below 2^64), one big-integer division per product.
template <modular_integer Int>
bool has_small_factor(const Int& n) {
  std::size_t i = 0;
  while (i < small_primes.size()) {
    std::uint64_t product = 1;
    std::size_t j = i;
    while (j < small_primes.size() && product <= UINT64_MAX / small_primes[j]) {
      product *= small_primes[j++];
    }
    const auto rem = static_cast<std::uint64_t>(Int(n % Int(product)));
    for (; i < j; ++i) {
      if (rem % small_primes[i] == 0 && n != Int(small_primes[i])) return true;
    }
  }
  return false;
}

// n - 1 = 2^s d with d odd, and the arithmetic modulo n, for the rounds of
// one Miller–Rabin test.
template <modular_integer Int>
class strong_test {
 public:
  explicit strong_test(const Int& n)
      : n_(n),
        n_minus_1_(n - 1),
        s_(boost::multiprecision::lsb(n_minus_1_)),
        d_(n_minus_1_ >> s_),
        bits_(bits_of(n)),
        mod_(n) {}

  // Whether n is a strong probable prime to base a, 2 <= a <= n - 2:
  // a^d = 1, or a^(2^i d) = -1 for some i < s.
  [[nodiscard]] bool passes(const Int& a) const {
    Int y = mod_.pow_secret(a, d_, bits_);
    if (y == 1 || y == n_minus_1_) return true;
    for (unsigned i = 1; i < s_; ++i) {
      y = mod_.mul(y, y);
      if (y == n_minus_1_) return true;
      if (y == 1) return false;  // 1 reached without -1: a nontrivial root of 1
    }
    return false;
  }

 private:
  Int n_, n_minus_1_;
  unsigned s_;
  Int d_;
  std::size_t bits_;
  modular<Int> mod_;
};

// Miller-Rabin writes n - 1 = 2^s d and draws bases from [2, n - 2], which
// needs an odd n >= 5. The values go through str() because format_value
// knows only built-in types.
template <modular_integer Int>
void check_miller_rabin_input(const Int& n) {
  if (!(n >= 5 && boost::multiprecision::bit_test(n, 0))) {
    throw_invalid("n", std::string_view(n.str()), "odd, >= 5");
  }
}

/// Whether odd n >= 5 is a strong probable prime to the base a in [2, n - 2]
/// (for known-answer tests with fixed bases).
template <modular_integer Int>
bool strong_probable_prime(const Int& n, const Int& a) {
  check_miller_rabin_input(n);
  if (a < 2 || a > n - 2) {
    throw_invalid("a", std::string_view(a.str()), "[2, n - 2] = [2, " + Int(n - 2).str() + "]");
  }
  return strong_test<Int>(n).passes(a);
}

/// Miller–Rabin with `rounds` bases uniform in [2, n - 2] from `gen`, for odd
/// n >= 5. False means n is certainly composite.
template <modular_integer Int, random_bit_source G>
bool miller_rabin(const Int& n, unsigned rounds, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  check_miller_rabin_input(n);
  const strong_test<Int> test(n);
  const Int bases = n - 3;  // [2, n - 2] has n - 3 elements
  for (unsigned round = 0; round < rounds; ++round) {
    if (!test.passes(Int(uniform_below(gen, bases) + 2))) return false;
  }
  return true;
}

/// Whether n (any integer, possibly chosen by an adversary) is a probable
/// prime: exact below 2^24 (= the trial-division limit squared), and above,
/// trial division then `rounds` random-base Miller–Rabin rounds (a composite
/// passes with probability <= 4^-rounds).
template <modular_integer Int, random_bit_source G>
bool is_probable_prime(const Int& n, G& gen, unsigned rounds = adversarial_rounds) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  if (n < 2) return false;
  if (n == 2) return true;
  if (!boost::multiprecision::bit_test(n, 0)) return false;
  if (has_small_factor(n)) return false;
  // Odd, no odd factor below the limit and n < limit^2: prime.
  if (n < Int(trial_division_limit) * Int(trial_division_limit)) return true;
  return miller_rabin(n, rounds, gen);
}

/// A random probable prime of exactly `bits` bits with its top two bits set
/// (so that the product of two such primes has exactly 2 bits bits), drawn by
/// fresh independent candidates (not an incremental search, whose output is
/// biased towards primes after long gaps and outside DLP's analysis).
template <modular_integer Int, random_bit_source G>
Int random_prime(std::size_t bits, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  if (bits < 16) throw_invalid("bits", bits, ">= 16");
  if constexpr (std::numeric_limits<Int>::is_bounded) {
    const auto digits = static_cast<std::size_t>(std::numeric_limits<Int>::digits);
    if (bits > digits) throw_invalid("bits", bits, "<= " + std::to_string(digits));
  }
  const unsigned rounds = miller_rabin_rounds(bits, 130);
  for (;;) {
    Int x = random_bits<Int>(gen, bits);
    boost::multiprecision::bit_set(x, static_cast<unsigned>(bits - 1));
    boost::multiprecision::bit_set(x, static_cast<unsigned>(bits - 2));
    boost::multiprecision::bit_set(x, 0);
    if (has_small_factor(x)) continue;
    if (miller_rabin(x, rounds, gen)) return x;
  }
}

}  // namespace privet::detail
