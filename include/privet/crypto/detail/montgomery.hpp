// privet/crypto/detail/montgomery.hpp — modular arithmetic for Paillier with
// secret exponents: a constant-time fixed-window Montgomery exponentiation on
// the limbs of cpp_int-backed integers (our own code), and GMP's
// mpz_powm_sec for the GMP backend.
//
// Montgomery multiplication (Montgomery 1985, "Modular multiplication without
// trial division") in the CIOS form of Koç, Acar and Kaliski (1996,
// "Analyzing and comparing Montgomery multiplication algorithms"), followed by
// a masked final subtraction. Exponentiation scans the exponent in fixed
// windows of w bits, from the top, over a caller-given public number of bits;
// every window costs w squarings, one scan of the whole table of 2^w powers
// (each entry ANDed with a mask that is all ones for the wanted entry only)
// and one multiplication, whatever the window's value.
//
// What is guaranteed, for the cpp_int path (`montgomery`, `powm_ct`):
//  - the sequence of instructions and memory addresses of `pow` depends only
//    on the number of limbs of the modulus and of the base and on `exp_bits`
//    — not on the values of the base, the exponent or the modulus — as far
//    as the C++ code goes (no branch, no index computed from a secret; the
//    carries are taken from the high half of 2-limb sums); the exponent is
//    padded to `exp_bits` before `pow` sees it;
//  - so is the reduction of a base of any length (`to_montgomery`, also
//    behind `reduce`) and the computation of R^2 mod m (by masked doublings,
//    not by division).
// What is not:
//  - the compiler's output is checked for one compiler only: GCC 12 at -O2
//    on x86-64 compiles `mul`, `sub_limbs`, `select_limbs` and `ct_eq_mask`
//    to adc/sbb/and/or whose only conditional jumps are loop controls on the
//    limb count; another compiler or flag set could in principle turn a
//    masked select into a branch;
//  - converting between a Boost integer and limbs copies as many limbs as the
//    integer has and normalises the result (drops its leading zero limbs), so
//    the limb counts of the operands and of the result (their lengths
//    rounded up to 64 bits) show in the time of a copy; the exponent check
//    (`exp < 2^exp_bits`) is a comparison;
//  - a multiplication of variable-time hardware (some old CPUs' 64-bit MUL)
//    leaks whatever the CPU leaks;
//  - arithmetic done outside this file with Boost's operators (division,
//    gcd) is not constant time.
// For the GMP backend, `modular` calls mpz_powm_sec, which GMP documents as
// taking time and following a memory access pattern independent of the
// values of the base and exponent (given their sizes); an exponent of zero is
// answered without calling it (GMP requires exp > 0).
//
// With PRIVET_HAS_OPENSSL as well (CMake defines it when it finds OpenSSL's
// libcrypto, Debian package libssl-dev), the GMP backend's secret-exponent
// powers go through OpenSSL's BN_mod_exp_mont_consttime instead: a
// fixed-window Montgomery exponentiation whose table is read by a
// constant-time gather over every entry ("scatter/gather", Brickell, Graunke
// and Seifert's countermeasure to cache-timing attacks, OpenSSL since 2007),
// on assembly Montgomery products (mulx/adx on x86-64). It is the function
// OpenSSL's own RSA decryption relies on. Why not mpz_powm_sec: measured on
// one core (Xeon, GMP 6.2.1, OpenSSL 3.0), modulo p^2 with exponent p - 1
// as Paillier's CRT decryption uses it, mpz_powm 1269 us / mpz_powm_sec 1418
// / OpenSSL 1131 at 2048-bit moduli and 4305 / 4980 / 3769 at 3072: the
// constant-time GMP call is 12-16 % slower than GMP's variable-time one (the
// one python-paillier's gmpy2 uses), OpenSSL's 11-12 % faster. What it does
// not hide: the number of 64-bit limbs of the base and of the exponent
// (OpenSSL scans limbs * 64 exponent bits; the converted BIGNUM has no
// leading zero limbs, so an exponent shorter than its public bound by a
// limb or more shows; Paillier's exponents p - 1, q - 1 have the public
// length of the primes), and the conversions between mpz and BIGNUM copy as
// many bytes as the values have. Configure with -DPRIVET_WITH_OPENSSL=OFF to
// keep mpz_powm_sec.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/detail/wipe.hpp>

#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#ifdef PRIVET_HAS_OPENSSL
#include <openssl/bn.h>
#include <openssl/crypto.h>

#include <memory>
#include <new>
#endif
#endif

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace privet::detail {

using limb = boost::multiprecision::limb_type;
using double_limb = boost::multiprecision::double_limb_type;
inline constexpr std::size_t limb_bits = sizeof(limb) * CHAR_BIT;

template <class T>
struct is_cpp_int_number : std::false_type {};

template <unsigned MinBits, unsigned MaxBits, boost::multiprecision::cpp_integer_type Sign,
          boost::multiprecision::cpp_int_check_type Checked, class Alloc,
          boost::multiprecision::expression_template_option ET>
struct is_cpp_int_number<boost::multiprecision::number<
    boost::multiprecision::cpp_int_backend<MinBits, MaxBits, Sign, Checked, Alloc>, ET>>
    : std::bool_constant<!boost::multiprecision::backends::is_trivial_cpp_int<
          boost::multiprecision::cpp_int_backend<MinBits, MaxBits, Sign, Checked, Alloc>>::value> {
};

/// A Boost integer on the cpp_int backend whose limbs live in an array (every
/// cpp_int type but the single-limb "trivial" ones).
template <class T>
concept cpp_int_number = big_integer<T> && is_cpp_int_number<T>::value;

template <class T>
struct is_gmp_number : std::false_type {};

#ifdef PRIVET_HAS_GMP
template <boost::multiprecision::expression_template_option ET>
struct is_gmp_number<boost::multiprecision::number<boost::multiprecision::gmp_int, ET>>
    : std::true_type {};
#endif

/// A Boost integer on the GMP backend (only when PRIVET_HAS_GMP).
template <class T>
concept gmp_number = big_integer<T> && is_gmp_number<T>::value;

// --- constant-time limb primitives -------------------------------------------

// All ones when x == y, zero otherwise, without a branch.
inline limb ct_eq_mask(limb x, limb y) noexcept {
  const limb d = x ^ y;
  const limb nonzero = (d | (limb{0} - d)) >> (limb_bits - 1);
  return nonzero - 1;
}

// out = a - b over k limbs; returns the final borrow (0 or 1).
inline limb sub_limbs(const limb* a, const limb* b, limb* out, std::size_t k) noexcept {
  limb borrow = 0;
  for (std::size_t j = 0; j < k; ++j) {
    const double_limb d = static_cast<double_limb>(a[j]) - b[j] - borrow;
    out[j] = static_cast<limb>(d);
    borrow = static_cast<limb>(d >> limb_bits) & 1;
  }
  return borrow;
}

// out = mask ? x : y, limb by limb.
inline void select_limbs(limb mask, const limb* x, const limb* y, limb* out,
                         std::size_t k) noexcept {
  for (std::size_t j = 0; j < k; ++j) out[j] = (x[j] & mask) | (y[j] & ~mask);
}

/// An odd modulus m of k limbs with its Montgomery constants (R = 2^(64 k)
/// for 64-bit limbs). Immutable after construction: one instance may serve
/// any number of threads at once (every operation allocates its own scratch).
class montgomery {
 public:
  /// `modulus` little-endian limbs (copied); leading zero limbs are
  /// dropped. Throws invalid_parameter when the modulus is even or zero.
  explicit montgomery(std::span<const limb> modulus) : m_(modulus.begin(), modulus.end()) {
    while (m_.size() > 1 && m_.back() == 0) m_.pop_back();
    if (m_.empty() || (m_[0] & 1) == 0) {
      throw invalid_parameter("modulus",
                              "privet: modulus is even or zero; allowed: an odd modulus "
                              "(Montgomery reduction needs gcd(m, 2) = 1)");
    }
    k_ = m_.size();
    // Newton's iteration for m^-1 mod 2^w: m * m = 1 mod 8 for odd m, and
    // every step doubles the number of correct low bits.
    limb inv = m_[0];
    for (std::size_t good = 3; good < limb_bits; good *= 2) inv *= limb{2} - m_[0] * inv;
    m_prime_ = limb{0} - inv;
    compute_r2();
  }

  /// Throws invalid_parameter naming `modulus` when it is negative (before
  /// the limb conversion, whose message is about values), even or zero.
  template <cpp_int_number Int>
  explicit montgomery(const Int& modulus) : montgomery(modulus_limbs(modulus)) {}

  [[nodiscard]] std::size_t size() const noexcept { return k_; }
  [[nodiscard]] std::span<const limb> modulus() const noexcept { return m_; }

  /// Limbs of scratch space `mul` needs.
  [[nodiscard]] std::size_t scratch_size() const noexcept { return 2 * k_ + 2; }

  /// out = a b R^-1 mod m, for a < R and b < m (k limbs each; out may alias
  /// either), with `t` scratch of scratch_size() limbs.
  void mul(const limb* a, const limb* b, limb* out, limb* t) const noexcept {
    const std::size_t k = k_;
    const limb* m = m_.data();
    std::fill(t, t + k + 2, limb{0});  // the rest holds the subtraction
    for (std::size_t i = 0; i < k; ++i) {
      const limb bi = b[i];
      limb carry = 0;
      for (std::size_t j = 0; j < k; ++j) {
        const double_limb s = static_cast<double_limb>(a[j]) * bi + t[j] + carry;
        t[j] = static_cast<limb>(s);
        carry = static_cast<limb>(s >> limb_bits);
      }
      double_limb s = static_cast<double_limb>(t[k]) + carry;
      t[k] = static_cast<limb>(s);
      t[k + 1] = static_cast<limb>(s >> limb_bits);
      // u makes t + u m divisible by 2^w; the division is the shift by one
      // limb folded into the loop below.
      const limb u = t[0] * m_prime_;
      s = static_cast<double_limb>(u) * m[0] + t[0];
      carry = static_cast<limb>(s >> limb_bits);
      for (std::size_t j = 1; j < k; ++j) {
        s = static_cast<double_limb>(u) * m[j] + t[j] + carry;
        t[j - 1] = static_cast<limb>(s);
        carry = static_cast<limb>(s >> limb_bits);
      }
      s = static_cast<double_limb>(t[k]) + carry;
      t[k - 1] = static_cast<limb>(s);
      t[k] = t[k + 1] + static_cast<limb>(s >> limb_bits);
    }
    // t < 2m: subtract m unless that borrows (t[k] is the limb above).
    limb* diff = t + k + 2;
    const limb borrow = sub_limbs(t, m, diff, k);
    const limb keep_t = borrow & ~t[k] & 1;  // t < m exactly when both hold
    select_limbs(limb{0} - (keep_t ^ 1), diff, t, out, k);
  }

  /// out = x R mod m (the Montgomery form of x) for x of any number of limbs.
  void to_montgomery(std::span<const limb> x, limb* out) const {
    const std::size_t k = k_;
    wiping_vector<limb> chunk(k), term(k), t(scratch_size()), sum(k + 1), diff(k);
    std::fill(out, out + k, limb{0});
    const std::size_t chunks = (x.size() + k - 1) / k;
    // Horner's rule in base R: acc <- acc R + chunk, all in Montgomery form
    // (mul by R^2 turns aR into aR^2; mul of a chunk < R by R^2 gives its
    // form), so no division by m is ever needed.
    for (std::size_t c = chunks; c-- > 0;) {
      std::fill(chunk.begin(), chunk.end(), limb{0});
      const std::size_t lo = c * k;
      const std::size_t hi = std::min(x.size(), lo + k);
      std::copy(x.begin() + static_cast<std::ptrdiff_t>(lo),
                x.begin() + static_cast<std::ptrdiff_t>(hi), chunk.begin());
      mul(out, r2_.data(), out, t.data());
      mul(chunk.data(), r2_.data(), term.data(), t.data());
      add_mod(out, term.data(), out, sum.data(), diff.data());
    }
  }

  /// out = x R^-1 mod m for x < m: back from Montgomery form.
  void from_montgomery(const limb* x, limb* out) const {
    std::vector<limb> one(k_);
    wiping_vector<limb> t(scratch_size());
    one[0] = 1;
    mul(x, one.data(), out, t.data());
  }

  /// out = base^exp mod m, scanning exactly `exp_bits` bits of `exp` (the
  /// caller's public bound on its length; higher limbs of `exp` must be zero
  /// and are not read). `base` may have any number of limbs and any value.
  void pow(std::span<const limb> base, std::span<const limb> exp, std::size_t exp_bits,
           limb* out) const {
    const std::size_t k = k_;
    const unsigned w = window_bits(exp_bits);
    const std::size_t entries = std::size_t{1} << w;
    // Every buffer here holds powers of the base (a secret randomiser when
    // encrypting, a value modulo a secret prime when decrypting): zeroed
    // when released.
    wiping_vector<limb> table(entries * k), acc(k), sel(k), t(scratch_size());
    // table[0] = 1 in Montgomery form (R mod m), table[1] = base R mod m.
    std::vector<limb> one(1, limb{1});
    to_montgomery(one, table.data());
    to_montgomery(base, table.data() + k);
    for (std::size_t e = 2; e < entries; ++e) {
      mul(table.data() + (e - 1) * k, table.data() + k, table.data() + e * k, t.data());
    }
    std::copy(table.begin(), table.begin() + static_cast<std::ptrdiff_t>(k), acc.begin());
    const std::size_t windows = (exp_bits + w - 1) / w;
    for (std::size_t win = windows; win-- > 0;) {
      if (win + 1 != windows) {
        for (unsigned s = 0; s < w; ++s) mul(acc.data(), acc.data(), acc.data(), t.data());
      }
      const limb digit = window_value(exp, exp_bits, win * w, w);
      std::fill(sel.begin(), sel.end(), limb{0});
      for (std::size_t e = 0; e < entries; ++e) {
        const limb mask = ct_eq_mask(static_cast<limb>(e), digit);
        const limb* row = table.data() + e * k;
        for (std::size_t j = 0; j < k; ++j) sel[j] |= row[j] & mask;
      }
      mul(acc.data(), sel.data(), acc.data(), t.data());
    }
    from_montgomery(acc.data(), out);
  }

  /// out = a b mod m for a < R, b < m (k limbs each).
  void mul_mod(const limb* a, const limb* b, limb* out) const {
    wiping_vector<limb> t(scratch_size()), ab(k_);
    mul(a, b, ab.data(), t.data());
    mul(ab.data(), r2_.data(), out, t.data());
  }

  /// The window width for an exponent of `exp_bits` bits: the w in [1, 5]
  /// minimising table building (2^w - 2 products) plus one product per window.
  /// Five caps the table (32 entries, 16 KiB for a 4096-bit modulus) so that
  /// it stays in a level-1 cache and the full scan per window stays cheap.
  static unsigned window_bits(std::size_t exp_bits) noexcept {
    unsigned best = 1;
    std::size_t best_cost = std::numeric_limits<std::size_t>::max();
    for (unsigned w = 1; w <= 5; ++w) {
      const std::size_t cost = ((std::size_t{1} << w) - 2) + (exp_bits + w - 1) / w;
      if (cost < best_cost) {
        best_cost = cost;
        best = w;
      }
    }
    return best;
  }

  /// The limbs of a modulus, refusing a negative one under its own name.
  template <cpp_int_number Int>
  static wiping_vector<limb> modulus_limbs(const Int& m) {
    if (m < 0) throw_invalid("modulus", std::string_view(m.str()), "an odd modulus > 0");
    return limbs_of(m);
  }

  /// Little-endian limbs of a non-negative cpp_int-backed integer, in a
  /// vector that zeroes them when released (x may be a secret).
  template <cpp_int_number Int>
  static wiping_vector<limb> limbs_of(const Int& x) {
    if (x < 0) {
      throw invalid_parameter("value",
                              "privet: a negative integer was passed to modular arithmetic; "
                              "allowed: >= 0");
    }
    const auto& b = x.backend();
    return wiping_vector<limb>(b.limbs(), b.limbs() + b.size());
  }

  /// The integer with little-endian limbs `p[0..k)`.
  template <cpp_int_number Int>
  static Int from_limbs(const limb* p, std::size_t k) {
    Int r;
    auto& b = r.backend();
    b.resize(static_cast<unsigned>(k), static_cast<unsigned>(k));
    std::memcpy(b.limbs(), p, k * sizeof(limb));
    b.normalize();
    return r;
  }

 private:
  // The w-bit digit of the exponent starting at bit `pos` (bits at or above
  // exp_bits read as zero). Every index here is computed from public values.
  static limb window_value(std::span<const limb> exp, std::size_t exp_bits, std::size_t pos,
                           unsigned w) noexcept {
    limb v = 0;
    const std::size_t idx = pos / limb_bits;
    const std::size_t off = pos % limb_bits;
    if (idx < exp.size()) v = exp[idx] >> off;
    if (off + w > limb_bits && idx + 1 < exp.size()) v |= exp[idx + 1] << (limb_bits - off);
    const std::size_t valid = exp_bits > pos ? std::min<std::size_t>(w, exp_bits - pos) : 0;
    const limb mask = valid == 0 ? 0 : (limb{~limb{0}} >> (limb_bits - valid));
    return v & mask;
  }

  // out = a + b mod m for a, b < m.
  void add_mod(const limb* a, const limb* b, limb* out, limb* sum, limb* diff) const noexcept {
    const std::size_t k = k_;
    limb carry = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const double_limb s = static_cast<double_limb>(a[j]) + b[j] + carry;
      sum[j] = static_cast<limb>(s);
      carry = static_cast<limb>(s >> limb_bits);
    }
    const limb borrow = sub_limbs(sum, m_.data(), diff, k);
    // sum >= m exactly when the addition carried or the subtraction did not borrow.
    const limb use_diff = carry | (borrow ^ 1);
    select_limbs(limb{0} - use_diff, diff, sum, out, k);
  }

  // R^2 mod m without division: 2^k R mod m by k (w + 1) masked doublings of
  // 1, then log2(w) Montgomery squarings, each doubling the exponent of 2:
  // (2^k)^(2^log2 w) = 2^(k w) = R, and R in Montgomery form is R^2 mod m.
  void compute_r2() {
    const std::size_t k = k_;
    // R^2 mod m is as secret as m (a secret prime's square for Paillier's
    // CRT), and so is every step towards it.
    wiping_vector<limb> x(k), twice(k), diff(k), t(scratch_size());
    std::vector<limb> one(k);
    one[0] = 1;
    // 1 mod m: 0 when m = 1.
    const limb b0 = sub_limbs(one.data(), m_.data(), diff.data(), k);
    select_limbs(limb{0} - (b0 ^ 1), diff.data(), one.data(), x.data(), k);
    for (std::size_t i = 0; i < k * (limb_bits + 1); ++i) {
      limb carry = 0;
      for (std::size_t j = 0; j < k; ++j) {
        twice[j] = (x[j] << 1) | carry;
        carry = x[j] >> (limb_bits - 1);
      }
      const limb borrow = sub_limbs(twice.data(), m_.data(), diff.data(), k);
      const limb use_diff = carry | (borrow ^ 1);
      select_limbs(limb{0} - use_diff, diff.data(), twice.data(), x.data(), k);
    }
    for (std::size_t s = 1; s < limb_bits; s *= 2) {
      mul(x.data(), x.data(), x.data(), t.data());
    }
    r2_ = x;
  }

  // The modulus and its constants are secret for a secret modulus (p^2 and
  // q^2 of a Paillier private key): zeroed when released.
  wiping_vector<limb> m_;
  std::size_t k_ = 0;
  limb m_prime_ = 0;  // -m^-1 mod 2^w
  wiping_vector<limb> r2_;
};

/// Bit length of a non-negative Boost integer (0 for 0).
template <class Int>
std::size_t bits_of(const Int& x) {
  return x == 0 ? 0 : static_cast<std::size_t>(boost::multiprecision::msb(x)) + 1;
}

// Throws when a secret exponent does not fit the public length it is
// scanned over (a caller's bug: the result would silently be wrong).
template <class Int>
void check_exponent(const Int& exp, std::size_t exp_bits) {
  if (exp < 0 || bits_of(exp) > exp_bits) {
    throw invalid_parameter(
        "exponent", "privet: exponent is negative or longer than its " + std::to_string(exp_bits) +
                        "-bit public bound; allowed: [0, 2^" + std::to_string(exp_bits) + ")");
  }
}

/// base^exp mod m for a cpp_int-backed integer, in constant time (see the
/// file comment) over `exp_bits` bits of exponent.
template <cpp_int_number Int>
Int powm_ct(const montgomery& mont, const Int& base, const Int& exp, std::size_t exp_bits) {
  check_exponent(exp, exp_bits);
  // Padded to the public length so that pow's schedule does not see how
  // many limbs the secret exponent actually has.
  wiping_vector<limb> e = montgomery::limbs_of(exp);
  e.resize(std::max(e.size(), (exp_bits + limb_bits - 1) / limb_bits), limb{0});
  wiping_vector<limb> out(mont.size());
  mont.pow(montgomery::limbs_of(base), e, exp_bits, out.data());
  return montgomery::from_limbs<Int>(out.data(), out.size());
}

/// The modular arithmetic Paillier needs modulo one odd modulus, for one
/// backend. Immutable: share one instance between threads freely.
template <class Int>
class modular;

template <cpp_int_number Int>
class modular<Int> {
 public:
  explicit modular(const Int& m) : m_(m), mont_(m) {}

  [[nodiscard]] const Int& value() const noexcept { return m_.get(); }

  /// base^exp mod m in constant time, exp < 2^exp_bits (exp_bits public).
  [[nodiscard]] Int pow_secret(const Int& base, const Int& exp, std::size_t exp_bits) const {
    return powm_ct(mont_, base, exp, exp_bits);
  }
  /// base^exp mod m for a public exponent: the same Montgomery ladder over
  /// the exponent's own length, which also keeps a secret base's value out
  /// of the timing (the base of encryption, r, is secret).
  [[nodiscard]] Int pow_public(const Int& base, const Int& exp) const {
    return powm_ct(mont_, base, exp, bits_of(exp));
  }
  /// a b mod m for 0 <= a, b < m, in constant time.
  [[nodiscard]] Int mul(const Int& a, const Int& b) const {
    const std::size_t k = mont_.size();
    wiping_vector<limb> x = padded(a, k), y = padded(b, k), out(k);
    mont_.mul_mod(x.data(), y.data(), out.data());
    return montgomery::from_limbs<Int>(out.data(), k);
  }
  /// x mod m for any x >= 0, in constant time for a given length of x.
  [[nodiscard]] Int reduce(const Int& x) const {
    const std::size_t k = mont_.size();
    wiping_vector<limb> form(k), out(k);
    mont_.to_montgomery(montgomery::limbs_of(x), form.data());
    mont_.from_montgomery(form.data(), out.data());
    return montgomery::from_limbs<Int>(out.data(), k);
  }

 private:
  // The k limbs of v < m; a longer v breaks mul's contract, so it throws
  // rather than being truncated.
  static wiping_vector<limb> padded(const Int& v, std::size_t k) {
    wiping_vector<limb> l = montgomery::limbs_of(v);
    if (l.size() > k) {
      throw invalid_parameter("value",
                              "privet: a factor of a modular product is longer than the "
                              "modulus; allowed: [0, m)");
    }
    l.resize(k, limb{0});
    return l;
  }

  secret<Int> m_;  // wiped: a secret prime (or its square) for private keys
  montgomery mont_;
};

#ifdef PRIVET_HAS_GMP
#ifdef PRIVET_HAS_OPENSSL
namespace openssl {

struct bn_free {
  void operator()(BIGNUM* b) const noexcept { BN_clear_free(b); }
};
struct ctx_free {
  void operator()(BN_CTX* c) const noexcept { BN_CTX_free(c); }
};
struct mont_free {
  void operator()(BN_MONT_CTX* m) const noexcept { BN_MONT_CTX_free(m); }
};
using bignum = std::unique_ptr<BIGNUM, bn_free>;

// OpenSSL's BN functions used here fail only when an allocation fails.
[[noreturn]] inline void fail() {
  throw std::bad_alloc();
}

// OpenSSL's scratch pool, one per thread: a BN_CTX must not be shared.
inline BN_CTX* thread_ctx() {
  thread_local const std::unique_ptr<BN_CTX, ctx_free> ctx(BN_CTX_new());
  if (!ctx) fail();
  return ctx.get();
}

// x >= 0 as a BIGNUM, through little-endian bytes (mpz_export's order -1).
inline bignum from_mpz(mpz_srcptr x) {
  const std::size_t bytes = (mpz_sizeinbase(x, 2) + 7) / 8;
  std::vector<unsigned char> buf(bytes + 1);
  std::size_t count = 0;
  mpz_export(buf.data(), &count, -1, 1, -1, 0, x);
  bignum b(BN_lebin2bn(buf.data(), static_cast<int>(count), nullptr));
  OPENSSL_cleanse(buf.data(), buf.size());
  if (!b) fail();
  return b;
}

inline void to_mpz(mpz_ptr out, const BIGNUM* b) {
  const int bytes = BN_num_bytes(b);
  std::vector<unsigned char> buf(static_cast<std::size_t>(bytes) + 1);
  if (BN_bn2lebinpad(b, buf.data(), bytes) != bytes) fail();
  mpz_import(out, static_cast<std::size_t>(bytes), -1, 1, -1, 0, buf.data());
  OPENSSL_cleanse(buf.data(), buf.size());
}

// An odd modulus with its Montgomery constants, built once: read-only
// afterwards, so one instance serves every thread (BN_mod_exp_mont_consttime
// only reads a BN_MONT_CTX it is given).
class mont_modulus {
 public:
  explicit mont_modulus(mpz_srcptr m) : m_(from_mpz(m)), mont_(BN_MONT_CTX_new()) {
    if (!mont_ || BN_MONT_CTX_set(mont_.get(), m_.get(), thread_ctx()) != 1) {
      fail();
    }
  }
  // out = base^exp mod m for 0 <= base and 0 < exp, in constant time for
  // given limb counts (see the file comment).
  void pow(mpz_ptr out, mpz_srcptr base, mpz_srcptr exp) const {
    bignum b = from_mpz(base);
    bignum e = from_mpz(exp);
    bignum r(BN_new());
    if (!r) fail();
    BN_set_flags(e.get(), BN_FLG_CONSTTIME);
    BN_set_flags(b.get(), BN_FLG_CONSTTIME);
    if (BN_mod_exp_mont_consttime(r.get(), b.get(), e.get(), m_.get(), thread_ctx(), mont_.get()) !=
        1) {
      fail();
    }
    to_mpz(out, r.get());
  }

 private:
  bignum m_;
  std::unique_ptr<BN_MONT_CTX, mont_free> mont_;
};

}  // namespace openssl
#endif

template <gmp_number Int>
class modular<Int> {
 public:
  explicit modular(const Int& m) : m_(m) {
    if (m <= 0 || boost::multiprecision::bit_test(m, 0) == false) {
      throw invalid_parameter("modulus",
                              "privet: modulus is even or not positive; allowed: an odd modulus");
    }
#ifdef PRIVET_HAS_OPENSSL
    mont_ = std::make_shared<const openssl::mont_modulus>(m_.get().backend().data());
#endif
  }

  [[nodiscard]] const Int& value() const noexcept {
    return m_.get();
  }

  /// base^exp mod m in constant time (OpenSSL's BN_mod_exp_mont_consttime
  /// under PRIVET_HAS_OPENSSL, else mpz_powm_sec), exp < 2^exp_bits.
  [[nodiscard]] Int pow_secret(const Int& base, const Int& exp, std::size_t exp_bits) const {
    check_exponent(exp, exp_bits);
    Int r;
    if (exp == 0) {
      r = Int(1) % m_.get();
    } else {
#ifdef PRIVET_HAS_OPENSSL
      // OpenSSL reduces a base >= m itself, by a division; reducing it here
      // keeps the two backends' contracts alike (any base >= 0).
      if (base < 0 || base >= m_.get()) {
        mpz_mod(r.backend().data(), base.backend().data(), m_.get().backend().data());
        mont_->pow(r.backend().data(), r.backend().data(), exp.backend().data());
      } else {
        mont_->pow(r.backend().data(), base.backend().data(), exp.backend().data());
      }
#else
      mpz_powm_sec(r.backend().data(), base.backend().data(), exp.backend().data(),
                   m_.get().backend().data());
#endif
    }
    return r;
  }
  [[nodiscard]] Int pow_public(const Int& base, const Int& exp) const {
    Int r;
    mpz_powm(r.backend().data(), base.backend().data(), exp.backend().data(),
             m_.get().backend().data());
    return r;
  }
  [[nodiscard]] Int mul(const Int& a, const Int& b) const {
    Int r;
    mpz_mul(r.backend().data(), a.backend().data(), b.backend().data());
    mpz_mod(r.backend().data(), r.backend().data(), m_.get().backend().data());
    return r;
  }
  [[nodiscard]] Int reduce(const Int& x) const {
    Int r;
    mpz_mod(r.backend().data(), x.backend().data(), m_.get().backend().data());
    return r;
  }

 private:
  secret<Int> m_;  // wiped: a secret prime (or its square) for private keys
#ifdef PRIVET_HAS_OPENSSL
  std::shared_ptr<const openssl::mont_modulus> mont_;  // shared by copies
#endif
};
#endif

/// A big integer privet's modular arithmetic (and so Paillier) supports: a
/// signed cpp_int-backed type, or the GMP backend under PRIVET_HAS_GMP.
template <class T>
concept modular_integer = big_integer<T> && std::numeric_limits<T>::is_signed &&
    (cpp_int_number<T> || gmp_number<T>);

}  // namespace privet::detail
