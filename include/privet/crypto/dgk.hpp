// privet/crypto/dgk.hpp — the DGK cryptosystem (Damgård, Geisler and
// Krøigaard 2007, "Efficient and secure comparison for on-line auctions",
// ACISP, LNCS 4586, 416–430; and their "A correction to 'Efficient and secure
// comparison for on-line auctions'", Int. J. Applied Cryptography 1(4), 2009,
// 323–324): additively homomorphic encryption over a small plaintext space
// Z_u whose private key tells in one short exponentiation whether a
// ciphertext encrypts zero. It is the cryptosystem of the DGK comparison
// protocol (crypto/secure_comparison.hpp).
//
// Keys, for a k-bit modulus, t-bit subgroup primes and a small prime u:
// v_p, v_q random t-bit primes; p = 2 u v_p a_p + 1 and q = 2 u v_q a_q + 1
// primes of k/2 bits (top two bits set, so n = p q has exactly k bits) with
// random cofactors a_p, a_q, v_q not dividing p - 1 nor v_p dividing q - 1;
// g of order u v_p v_q and h of order v_p v_q in Z*_n, both built mod p and
// mod q and joined by the CRT. Public key (n, g, h, u, t); private key
// (p, q, v_p, v_q).
//
// Encryption of m in Z_u: c = g^m h^r mod n with r uniform of ceil(2.5 t)
// bits. h^r then lies within statistical distance 2^(-t/2) of a uniform
// element of the order-v_p v_q subgroup <h> (r is half a t longer than that
// order); the correction note is what lengthened r beyond the 2t bits of the
// conference paper, whose proof needed h^r close to uniform in <h>.
// Semantic security rests on the small RSA subgroup decision assumption: an
// element of <h> cannot be told from one of <g>.
//
// Decryption uses p alone: c^(v_p) mod p = (g^(v_p))^m mod p, because h^(v_p)
// = 1 mod p, and g^(v_p) has order u mod p. So c encrypts 0 exactly when
// c^(v_p) mod p = 1 (`is_zero`, one exponentiation with a t-bit exponent over
// a k/2-bit modulus), and the full plaintext is the index of c^(v_p) mod p in
// the table of powers of g^(v_p) (`decrypt`; the table, u entries, is built
// on first use). Both also check that c^(v_p) mod p lies in the order-u
// subgroup — a value that does not is no DGK ciphertext of this key.
//
// Parameter sizes. Factoring n must be hard (k = 2048 for 112-bit security,
// 3072 for 128, NIST SP 800-57 part 1 rev. 5, table 2), and so must finding
// the hidden subgroup order: Coron, Joux, Mandal, Naccache and Tibouchi
// (PKC 2011, "Cryptanalysis of the RSA subgroup assumption from TCC 2005")
// find primes v_p, v_q of t bits in about 2^(t/2) operations, so t must be
// twice the security level: 224 bits at 2048, 256 at 3072 (the papers' t =
// 160 gives 80 bits). Keys below either bound, or a modulus under 2048 bits,
// only through `allow_insecure`. A key read from another party
// (`deserialize_public_key`) is capped on its header, before n, g and h are
// read: n of at most max_peer_key_bits (4096; more through
// crypto::peer_key_limit) and t of at most max_peer_subgroup_bits (512),
// because t sets every encryption's cost (a 2.5 t-bit exponent and a table of
// powers of h for it). Every public key's n is checked for a prime factor
// below 32768 and for being a perfect power (crypto/detail/modulus_checks.hpp,
// which lists what n alone cannot show). u is a prime of at most 16 bits; for
// comparisons of l-bit integers DGK take the smallest prime above l + 2
// (`plaintext_prime_for`).
//
// Plaintexts are integers in [0, u); a plaintext out of range throws
// overflow_error (never reduced behind the caller's back). Homomorphic
// operations act in Z_u: E(a) E(b) = E(a + b mod u), E(a)^k = E(k a mod u) —
// scalars are integers read modulo u, which is the operation's definition,
// not a wrap. Negation is E(a)^(u-1) (a valid encryption of -a mod u, no
// modular inversion needed).
//
// Side channels: the secret exponents (v_p in decryption and the zero test,
// the cofactors in key generation, the encryption exponent r, a plaintext
// m) go through constant-time code — montgomery.hpp's fixed-window
// exponentiation on cpp_int, mpz_powm_sec on GMP — and g^m and h^r through
// fixed-base tables read in full whatever the exponent (fixed_base.hpp, with
// its stated limits on GMP). Not constant time: the table lookup of full
// decryption (it branches on the plaintext; the comparison protocol uses
// only the zero test), the comparison of c^(v_p) mod p with 1, the gcd
// checks on received ciphertexts, key generation's prime search control
// flow, and Boost's conversions.
//
// Secrets in memory (crypto/detail/wipe.hpp): p, q, v_p, v_q, g^(v_p) mod p
// and the decryption table are zeroed when the last copy of a private key
// goes (copies share the key data; p(), q(), v_p(), v_q() return
// references), and so are key generation's parts and each encryption's r
// and h^r. Serialised keys are strings this library does not wipe.
//
// Threads: key data are immutable once built (the fixed-base tables and the
// decryption table under std::call_once); keys and ciphertexts may be shared
// by any number of threads.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/detail/fixed_base.hpp>
#include <privet/crypto/detail/modulus_checks.hpp>
#include <privet/crypto/detail/montgomery.hpp>
#include <privet/crypto/detail/primes.hpp>
#include <privet/crypto/detail/wipe.hpp>
#include <privet/crypto/detail/wire.hpp>
#include <privet/crypto/key_size.hpp>

#include <boost/multiprecision/cpp_int.hpp>
#include <boost/multiprecision/integer.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::dgk {

/// An integer type DGK keys and ciphertexts can be built on: a signed
/// cpp_int type (arbitrary precision, or fixed width holding n) or, under
/// PRIVET_HAS_GMP, boost::multiprecision::mpz_int.
template <class Int>
concept integer = privet::detail::modular_integer<Int>;

/// A scalar for homomorphic multiplication: the key's integer type or a
/// built-in integer (read modulo u).
template <class S, class Int>
concept scalar = std::same_as<S, Int> || integer_number<S>;

using crypto::default_key_bits;
using crypto::max_key_bits;
using crypto::min_insecure_key_bits;
using crypto::min_key_bits;
using crypto::security_bits;

/// Smallest subgroup prime length accepted even with allow_insecure.
inline constexpr std::size_t min_insecure_subgroup_bits = 16;
/// Largest subgroup prime length t a reader accepts from another party:
/// twice the highest security level of NIST SP 800-57's table (256 bits).
/// Encryption draws r of 2.5 t bits and keeps a table of powers of h for
/// them, so t sets what every encryption under a key costs: a peer's t of
/// 8173 bits made one encryption at 16384 bits cost about a second and 88 MB.
inline constexpr std::size_t max_peer_subgroup_bits = 512;
using crypto::max_peer_key_bits;
using crypto::peer_key_limit;
/// Least length of the random cofactor a_p of p - 1 = 2 u v_p a_p: below it
/// there are too few candidates of the requested length to find primes.
inline constexpr std::size_t min_cofactor_bits = 16;
/// Smallest plaintext prime u.
inline constexpr std::uint32_t min_plaintext_prime = 3;
/// Largest plaintext prime u (the largest prime below 2^16): full decryption
/// keeps a table of u entries.
inline constexpr std::uint32_t max_plaintext_prime = 65521;

/// The least subgroup prime length t for a modulus of `modulus_bits` bits
/// without allow_insecure: twice its security level (the hidden-order attack
/// of Coron et al. costs about 2^(t/2)).
constexpr std::size_t min_subgroup_bits(std::size_t modulus_bits) noexcept {
  return 2 * security_bits(modulus_bits);
}

/// Length of the encryption exponent r for t-bit subgroup primes: ceil(2.5 t).
constexpr std::size_t randomizer_bits(std::size_t subgroup_bits) noexcept {
  return (5 * subgroup_bits + 1) / 2;
}

namespace detail {

constexpr bool is_small_prime(std::uint32_t x) noexcept {
  if (x < 2) return false;
  for (std::uint32_t d = 2; d * d <= x; ++d) {
    if (x % d == 0) return false;
  }
  return true;
}

constexpr unsigned bits_of_u32(std::uint32_t x) noexcept {
  unsigned b = 0;
  for (; x != 0; x >>= 1) ++b;
  return b;
}

}  // namespace detail

/// The plaintext prime DGK choose for comparisons of `comparison_bits`-bit
/// integers: the smallest prime above comparison_bits + 2.
inline std::uint32_t plaintext_prime_for(std::size_t comparison_bits) {
  constexpr std::size_t largest = max_plaintext_prime - 3;
  if (comparison_bits < 1 || comparison_bits > largest) {
    throw_invalid("comparison_bits", comparison_bits, "[1, " + std::to_string(largest) + "]");
  }
  auto u = static_cast<std::uint32_t>(comparison_bits + 3);
  while (!detail::is_small_prime(u)) ++u;
  return u;
}

using crypto::allow_insecure;
using crypto::allow_insecure_t;

/// The sizes of a new key: k, t and u. `plaintext_prime` has no default:
/// it fixes what the key can compare (use for_comparison).
struct key_parameters {
  std::size_t modulus_bits = default_key_bits;                      ///< k, even
  std::size_t subgroup_bits = min_subgroup_bits(default_key_bits);  ///< t
  std::uint32_t plaintext_prime = 0;                                ///< u, a prime

  /// k bits, t = min_subgroup_bits(k), u = plaintext_prime_for(comparison_bits).
  static key_parameters for_comparison(std::size_t comparison_bits,
                                       std::size_t modulus_bits = default_key_bits) {
    return {modulus_bits, min_subgroup_bits(modulus_bits), plaintext_prime_for(comparison_bits)};
  }
};

template <integer Int>
class public_key;
template <integer Int>
class private_key;
template <integer Int>
class ciphertext;

namespace detail {

using privet::detail::bits_of;
using privet::detail::fixed_base_pow;
using privet::detail::modular;
using privet::detail::secret;
using privet::detail::wipe_secret;

// The largest modulus for Int: a fixed-width type must hold n and a sum of
// two residues.
template <class Int>
std::size_t max_bits_for() {
  if constexpr (std::numeric_limits<Int>::is_bounded) {
    const auto digits = static_cast<std::size_t>(std::numeric_limits<Int>::digits);
    return std::min(max_key_bits, digits - 2);
  } else {
    return max_key_bits;
  }
}

inline void check_plaintext_prime(std::uint32_t u) {
  if (u < min_plaintext_prime || u > max_plaintext_prime || !is_small_prime(u)) {
    throw_invalid("plaintext_prime", u,
                  "a prime in [" + std::to_string(min_plaintext_prime) + ", " +
                      std::to_string(max_plaintext_prime) +
                      "] (dgk::plaintext_prime_for(l) for l-bit comparisons)");
  }
}

template <class Int>
void check_modulus_bits(std::size_t bits, bool insecure, bool even) {
  const std::size_t low = insecure ? min_insecure_key_bits : min_key_bits;
  const std::size_t high = max_bits_for<Int>();
  if (bits < low || bits > high || (even && bits % 2 != 0)) {
    std::string allowed = even ? "an even number in " : "";
    allowed += "[" + std::to_string(low) + ", " + std::to_string(high) + "]";
    if (high < max_key_bits) allowed += " (this integer type must hold n)";
    if (!insecure) {
      allowed += "; smaller keys (>= " + std::to_string(min_insecure_key_bits) +
                 " bits) only through dgk::allow_insecure";
    }
    throw_invalid("modulus_bits", bits, allowed);
  }
}

// t must be twice the security level (or >= 16 when insecure) and leave
// p - 1 = 2 u v_p a_p room for a random cofactor of min_cofactor_bits.
inline void check_subgroup_bits(std::size_t t, std::size_t modulus_bits, std::uint32_t u,
                                bool insecure) {
  const std::size_t low = insecure ? min_insecure_subgroup_bits : min_subgroup_bits(modulus_bits);
  const std::size_t overhead = 1 + bits_of_u32(u) + min_cofactor_bits;
  const std::size_t half = modulus_bits / 2;
  const std::size_t high = half > overhead ? half - overhead : 0;
  if (t < low || t > high) {
    std::string allowed = "[" + std::to_string(low) + ", " + std::to_string(high) + "] for a " +
                          std::to_string(modulus_bits) +
                          "-bit modulus and u = " + std::to_string(u);
    if (!insecure) {
      allowed +=
          " (twice the modulus' security level; smaller only through "
          "dgk::allow_insecure)";
    }
    throw_invalid("subgroup_bits", t, allowed);
  }
}

// The low 64 bits of x >= 0.
template <class Int>
std::uint64_t low_word(const Int& x) {
  return Int(x & Int(std::numeric_limits<std::uint64_t>::max()))
      .template convert_to<std::uint64_t>();
}

// x < 2^(8 width) as `width` big-endian bytes.
template <class Int>
void write_fixed(privet::detail::wire_writer& w, const Int& x, std::size_t width) {
  std::vector<std::uint8_t> out(width, 0);
  Int rest = x;
  std::size_t i = width;
  while (i > 0 && rest != 0) {
    std::uint64_t word = low_word(rest);
    rest >>= 64;
    for (int b = 0; b < 8 && i > 0; ++b, word >>= 8) out[--i] = static_cast<std::uint8_t>(word);
  }
  w.bytes(out);
}

// The integer of `width` big-endian bytes.
template <class Int>
Int read_fixed(privet::detail::wire_reader& r, std::size_t width) {
  std::vector<std::uint8_t> bytes(width);
  r.bytes(bytes);
  Int x = 0;
  std::size_t i = 0;
  std::uint64_t word = 0;
  for (; i < width % 8; ++i) word = (word << 8) | bytes[i];
  x = Int(word);
  while (i < width) {
    word = 0;
    for (int b = 0; b < 8; ++b, ++i) word = (word << 8) | bytes[i];
    x <<= 64;
    x += static_cast<unsigned long long>(word);
  }
  return x;
}

template <class Int>
std::size_t byte_width(const Int& modulus) {
  return (bits_of(modulus) + 7) / 8;
}

template <class Int>
struct public_context {
  public_context(const Int& n_in, const Int& g_in, const Int& h_in, std::uint32_t u_in,
                 std::size_t t)
      : n(n_in),
        g(g_in),
        h(h_in),
        u(u_in),
        u_bits(bits_of_u32(u_in)),
        subgroup_bits(t),
        r_bits(randomizer_bits(t)),
        bits(bits_of(n_in)),
        bytes(byte_width(n_in)),
        mod_n(n_in) {}

  // g^m for m < 2^u_bits, from a table built on first use.
  const fixed_base_pow<Int>& g_table() const {
    std::call_once(
        g_once_, [this] { g_table_ = std::make_unique<const fixed_base_pow<Int>>(n, g, u_bits); });
    return *g_table_;
  }
  // h^r for r < 2^r_bits, from a table built on first use.
  const fixed_base_pow<Int>& h_table() const {
    std::call_once(
        h_once_, [this] { h_table_ = std::make_unique<const fixed_base_pow<Int>>(n, h, r_bits); });
    return *h_table_;
  }

  // g^m h^r mod n, m < u, r < 2^r_bits.
  [[nodiscard]] Int encrypt(std::uint64_t m, const Int& r) const {
    // h^r is as secret as r (with the ciphertext it gives g^m): wiped.
    const secret<Int> hr(h_table().pow(r));
    return mod_n.mul(g_table().pow(Int(m)), hr.get());
  }

  Int n, g, h;
  std::uint32_t u;
  unsigned u_bits;
  std::size_t subgroup_bits;
  std::size_t r_bits;
  std::size_t bits;
  std::size_t bytes;  // big-endian width of a ciphertext on the wire
  modular<Int> mod_n;

 private:
  // Written once inside call_once and only read after it returned.
  mutable std::once_flag g_once_, h_once_;
  mutable std::unique_ptr<const fixed_base_pow<Int>> g_table_, h_table_;
};

// Same n, g, h and u.
template <class Int>
bool same_key(const public_context<Int>& a, const public_context<Int>& b) noexcept {
  return &a == &b || (a.n == b.n && a.g == b.g && a.h == b.h && a.u == b.u);
}

// Plaintexts are m in [0, u); the value is secret, so it is not shown.
template <class Int>
void check_plaintext(const public_context<Int>& key, std::uint64_t m) {
  if (m >= key.u) {
    throw overflow_error(
        "privet: DGK plaintext m is outside the plaintext space; allowed: [0, u) "
        "with u = " +
        std::to_string(key.u));
  }
}

template <class Int>
void check_randomizer(const public_context<Int>& key, const Int& r) {
  if (r < 0 || bits_of(r) > key.r_bits) {
    throw invalid_parameter("r", "privet: DGK encryption exponent r is invalid; allowed: [0, 2^" +
                                     std::to_string(key.r_bits) + ") for " +
                                     std::to_string(key.subgroup_bits) + "-bit subgroup primes");
  }
}

// Whether `value` is an element of Z*_n: [1, n) and coprime to n.
template <class Int>
bool is_unit(const public_context<Int>& key, const Int& value) {
  return value >= 1 && value < key.n && boost::multiprecision::gcd(value, key.n) == 1;
}

// x mod u in [0, u) for any integer scalar.
template <class Int>
std::uint64_t scalar_mod_u(const public_context<Int>& key, const Int& k) {
  Int r = k % Int(key.u);
  if (r < 0) r += Int(key.u);
  return r.template convert_to<std::uint64_t>();
}
template <class Int, integer_number I>
std::uint64_t scalar_mod_u(const public_context<Int>& key, I k) {
  if constexpr (std::is_signed_v<I>) {
    const auto u = static_cast<long long>(key.u);
    long long r = static_cast<long long>(k) % u;
    if (r < 0) r += u;
    return static_cast<std::uint64_t>(r);
  } else {
    return static_cast<std::uint64_t>(k) % key.u;
  }
}

template <class Int>
struct private_context {
  // From validated parts (see private_key::from_parts and generate).
  private_context(const Int& p_in, const Int& q_in, const Int& vp_in, const Int& vq_in,
                  const Int& g, std::uint32_t u_in)
      : p(p_in),
        q(q_in),
        v_p(vp_in),
        v_q(vq_in),
        u(u_in),
        u_bits(bits_of_u32(u_in)),
        prime_bits(bits_of(p_in)),
        subgroup_bits(std::max(bits_of(vp_in), bits_of(vq_in))),
        mod_p(p_in),
        base(project_base(mod_p, g, vp_in, subgroup_bits)) {}
  private_context(const private_context&) = delete;
  private_context& operator=(const private_context&) = delete;
  // The primes, the subgroup orders, g^(v_p) mod p and the table of its
  // powers' low words are zeroed before their storage is released.
  ~private_context() {
    for (Int* x : {&p, &q, &v_p, &v_q, &base}) wipe_secret(*x);
    privet::detail::secure_zero(table_.data(), table_.size() * sizeof(table_[0]));
  }

  // g^(v_p) mod p, with g mod p wiped (g minus it is a multiple of p).
  static Int project_base(const modular<Int>& mod, const Int& g, const Int& vp, std::size_t bits) {
    const secret<Int> gp(mod.reduce(g));
    return mod.pow_secret(gp.get(), vp, bits);
  }
  // c^(v_p) mod p = (g^(v_p))^m mod p for c = g^m h^r.
  [[nodiscard]] Int project(const Int& c) const {
    // c mod p is wiped: c minus it is a multiple of p.
    const secret<Int> cp(mod_p.reduce(c));
    return mod_p.pow_secret(cp.get(), v_p, subgroup_bits);
  }
  // Whether w lies in the order-u subgroup <g^(v_p)> of Z*_p.
  [[nodiscard]] bool in_plaintext_group(const Int& w) const {
    return w != 0 && mod_p.pow_secret(w, Int(u), u_bits) == 1;
  }
  // The m in [0, u) with base^m = w, for w in the order-u subgroup.
  [[nodiscard]] std::optional<std::uint32_t> log(const Int& w) const {
    std::call_once(table_once_, [this] {
      table_.reserve(u);
      secret<Int> x(Int(1));
      for (std::uint32_t m = 0; m < u; ++m) {
        table_.emplace_back(low_word(x.get()), m);
        x = secret<Int>(mod_p.mul(x.get(), base));
      }
      std::sort(table_.begin(), table_.end());
    });
    const std::uint64_t key = low_word(w);
    auto it = std::lower_bound(table_.begin(), table_.end(),
                               std::pair<std::uint64_t, std::uint32_t>(key, 0));
    // Entries share their low 64 bits with probability about u^2 / 2^64:
    // each candidate is confirmed by recomputing its power.
    for (; it != table_.end() && it->first == key; ++it) {
      if (mod_p.pow_public(base, Int(it->second)) == w) return it->second;
    }
    return std::nullopt;
  }

  Int p, q, v_p, v_q;
  std::uint32_t u;
  unsigned u_bits;
  std::size_t prime_bits;
  std::size_t subgroup_bits;
  modular<Int> mod_p;
  Int base;  // g^(v_p) mod p, of order u

 private:
  mutable std::once_flag table_once_;
  mutable std::vector<std::pair<std::uint64_t, std::uint32_t>> table_;  // (low word, m)
};

struct access;

}  // namespace detail

/// A DGK ciphertext: an element of Z*_n and the public key it belongs to.
template <integer Int>
class ciphertext {
 public:
  using integer_type = Int;  ///< The integer type of n and of the value.

  /// Wraps a received value under `key`; throws invalid_parameter unless it
  /// lies in [1, n) and is coprime to n.
  ciphertext(const dgk::public_key<Int>& key, const Int& value);

  /// The element of Z*_n (what goes on the wire).
  [[nodiscard]] const Int& value() const noexcept { return value_; }
  /// The public key this ciphertext was made under.
  [[nodiscard]] dgk::public_key<Int> key() const;
  /// Whether `other` was made under the same key (same n, g, h and u).
  [[nodiscard]] bool same_key(const ciphertext& other) const noexcept {
    return detail::same_key(*ctx_, *other.ctx_);
  }

  /// E(a) + E(b) = E(a + b mod u): one product modulo n. Throws
  /// invalid_parameter when b is under another key.
  friend ciphertext operator+(const ciphertext& a, const ciphertext& b) {
    a.check_same(b);
    return ciphertext(a.ctx_, a.ctx_->mod_n.mul(a.value_, b.value_));
  }
  /// E(-a mod u) = E(a)^(u - 1).
  friend ciphertext operator-(const ciphertext& a) { return a.times(a.ctx_->u - 1); }
  /// E(a - b mod u); throws invalid_parameter when b is under another key.
  friend ciphertext operator-(const ciphertext& a, const ciphertext& b) {
    a.check_same(b);
    return a + (-b);
  }
  /// E(k a mod u) for any integer k (read modulo u). k = 0 mod u gives 1,
  /// the deterministic encryption of 0: re-randomise before revealing it.
  template <scalar<Int> S>
  friend ciphertext operator*(const ciphertext& a, const S& k) {
    return a.times(detail::scalar_mod_u(*a.ctx_, k));
  }
  /// E(k a mod u), as a * k.
  template <scalar<Int> S>
  friend ciphertext operator*(const S& k, const ciphertext& a) {
    return a.times(detail::scalar_mod_u(*a.ctx_, k));
  }
  /// E(a + m mod u) for a plaintext m in [0, u) (else overflow_error).
  [[nodiscard]] ciphertext plus(std::uint64_t m) const {
    detail::check_plaintext(*ctx_, m);
    return ciphertext(ctx_, ctx_->mod_n.mul(value_, ctx_->g_table().pow(Int(m))));
  }
  /// In-place forms of + and - (same conditions and exceptions).
  ///@{
  ciphertext& operator+=(const ciphertext& b) { return *this = *this + b; }
  ciphertext& operator-=(const ciphertext& b) { return *this = *this - b; }
  ///@}

  /// Same value under the same key.
  friend bool operator==(const ciphertext& a, const ciphertext& b) {
    return a.same_key(b) && a.value_ == b.value_;
  }

 private:
  friend struct detail::access;
  friend class dgk::public_key<Int>;
  friend class dgk::private_key<Int>;
  using context = detail::public_context<Int>;

  ciphertext(std::shared_ptr<const context> ctx, Int value)
      : ctx_(std::move(ctx)), value_(std::move(value)) {}

  void check_same(const ciphertext& other) const {
    if (!same_key(other)) {
      throw invalid_parameter("rhs",
                              "privet: rhs is a DGK ciphertext under a different public key; "
                              "allowed: ciphertexts under the same key (same n, g, h, u)");
    }
  }
  // The exponent k < u is public to the caller but may be secret to others
  // (a blinding factor): constant-time over u's length.
  [[nodiscard]] ciphertext times(std::uint64_t k) const {
    return ciphertext(ctx_, ctx_->mod_n.pow_secret(value_, Int(k), ctx_->u_bits));
  }

  std::shared_ptr<const context> ctx_;
  Int value_;
};

/// A DGK public key (n, g, h, u, t). Cheap to copy: copies share the
/// immutable key data and its encryption tables.
template <integer Int>
class public_key {
 public:
  using integer_type = Int;  ///< The integer type of n, g and h.

  /// The key (n, g, h, u) with t-bit subgroup primes. Throws invalid_parameter
  /// unless n is odd of min_key_bits to max_key_bits bits, u a prime in
  /// [3, 65521], t in [min_subgroup_bits(bits of n), ...], and g, h distinct
  /// elements of Z*_n other than 1. (The orders of g and h cannot be checked
  /// without the factors of n.)
  public_key(const Int& n, const Int& g, const Int& h, std::uint32_t u, std::size_t subgroup_bits)
      : public_key(n, g, h, u, subgroup_bits, false) {}
  /// As above, down to min_insecure_key_bits and min_insecure_subgroup_bits.
  public_key(const Int& n, const Int& g, const Int& h, std::uint32_t u, std::size_t subgroup_bits,
             allow_insecure_t)
      : public_key(n, g, h, u, subgroup_bits, true) {}

  /// The modulus n = p q.
  [[nodiscard]] const Int& n() const noexcept { return ctx_->n; }
  /// g, of order u v_p v_q in Z*_n: the plaintext base.
  [[nodiscard]] const Int& g() const noexcept { return ctx_->g; }
  /// h, of order v_p v_q in Z*_n: the randomiser base.
  [[nodiscard]] const Int& h() const noexcept { return ctx_->h; }
  /// u: plaintexts live in Z_u.
  [[nodiscard]] std::uint32_t plaintext_modulus() const noexcept { return ctx_->u; }
  /// t, the bit length of the hidden subgroup primes.
  [[nodiscard]] std::size_t subgroup_bits() const noexcept { return ctx_->subgroup_bits; }
  /// Bits of the encryption exponent r: ceil(2.5 t).
  [[nodiscard]] std::size_t randomizer_bits() const noexcept { return ctx_->r_bits; }
  /// Bits of n.
  [[nodiscard]] std::size_t bits() const noexcept { return ctx_->bits; }
  /// Whether the key is below the secure sizes (a modulus under min_key_bits
  /// or subgroup primes under min_subgroup_bits: accepted only through
  /// allow_insecure).
  [[nodiscard]] bool insecure() const noexcept {
    return ctx_->bits < min_key_bits || ctx_->subgroup_bits < min_subgroup_bits(ctx_->bits);
  }

  /// E(m) = g^m h^r mod n for m in [0, u) (else overflow_error), r of
  /// randomizer_bits() bits from `gen`.
  template <random_bit_source G>
  [[nodiscard]] ciphertext<Int> encrypt(std::uint64_t m, G& gen) const {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    detail::check_plaintext(*ctx_, m);
    const detail::secret<Int> r(random_bits<Int>(gen, ctx_->r_bits));  // wiped
    return ciphertext<Int>(ctx_, ctx_->encrypt(m, r.get()));
  }
  /// As above, with randomness from this thread's secure generator.
  [[nodiscard]] ciphertext<Int> encrypt(std::uint64_t m) const {
    return encrypt(m, secure_generator());
  }
  /// E(m) with the caller's r in [0, 2^randomizer_bits()) (else
  /// invalid_parameter).
  [[nodiscard]] ciphertext<Int> encrypt_with(std::uint64_t m, const Int& r) const {
    detail::check_plaintext(*ctx_, m);
    detail::check_randomizer(*ctx_, r);
    return ciphertext<Int>(ctx_, ctx_->encrypt(m, r));
  }
  /// c times a fresh h^r: the same plaintext, unlinkable to c. Throws
  /// invalid_parameter when c is under another key.
  template <random_bit_source G>
  [[nodiscard]] ciphertext<Int> rerandomize(const ciphertext<Int>& c, G& gen) const {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    check_own(c);
    const detail::secret<Int> r(random_bits<Int>(gen, ctx_->r_bits));
    const detail::secret<Int> hr(ctx_->h_table().pow(r.get()));
    return ciphertext<Int>(ctx_, ctx_->mod_n.mul(c.value(), hr.get()));
  }
  /// As above, with randomness from this thread's secure generator.
  [[nodiscard]] ciphertext<Int> rerandomize(const ciphertext<Int>& c) const {
    return rerandomize(c, secure_generator());
  }

  /// Same n, g, h and u.
  friend bool operator==(const public_key& a, const public_key& b) {
    return detail::same_key(*a.ctx_, *b.ctx_);
  }

 private:
  friend struct detail::access;
  friend class dgk::private_key<Int>;
  friend class dgk::ciphertext<Int>;
  using context = detail::public_context<Int>;

  public_key(const Int& n, const Int& g, const Int& h, std::uint32_t u, std::size_t t,
             bool insecure) {
    if (n <= 0 || !boost::multiprecision::bit_test(n, 0)) {
      throw invalid_parameter("n",
                              "privet: n is not a positive odd integer; allowed: an odd "
                              "modulus n = p q");
    }
    const std::size_t bits = detail::bits_of(n);
    detail::check_modulus_bits<Int>(bits, insecure, false);
    detail::check_plaintext_prime(u);
    detail::check_subgroup_bits(t, bits, u, insecure);
    privet::detail::check_modulus_form(n);
    auto ctx = std::make_shared<const context>(n, g, h, u, t);
    const auto check_element = [&](const Int& x, const char* name) {
      if (x <= 1 || !detail::is_unit(*ctx, x)) {
        throw invalid_parameter(name, std::string("privet: ") + name +
                                          " is not an element of Z*_n other than 1; allowed: an "
                                          "integer in [2, n) coprime to n");
      }
    };
    check_element(g, "g");
    check_element(h, "h");
    if (g == h) {
      throw invalid_parameter("h",
                              "privet: h equals g; allowed: h of order v_p v_q, g of order "
                              "u v_p v_q");
    }
    ctx_ = std::move(ctx);
  }
  explicit public_key(std::shared_ptr<const context> ctx) : ctx_(std::move(ctx)) {}

  void check_own(const ciphertext<Int>& c) const {
    if (!detail::same_key(*ctx_, *c.ctx_)) {
      throw invalid_parameter("ciphertext",
                              "privet: ciphertext is under a different DGK public key; allowed: a "
                              "ciphertext under this key (same n, g, h, u)");
    }
  }

  std::shared_ptr<const context> ctx_;
};

/// A DGK private key: p, q, v_p, v_q and the decryption data (wiped when
/// the last copy goes). Cheap to copy:
/// copies share the immutable key data.
template <integer Int>
class private_key {
 public:
  using integer_type = Int;  ///< The integer type of the key's numbers.

  /// The key of the given parts, all checked: p and q distinct probable
  /// primes of equal length (64 Miller-Rabin rounds with bases from `gen`,
  /// error <= 2^-128 whoever chose them), v_p and v_q distinct probable
  /// primes of equal length t, u v_p | p - 1, u v_q | q - 1, v_q not dividing
  /// p - 1 nor v_p dividing q - 1, g of order u v_p v_q and h of order v_p v_q
  /// (checked mod p and mod q), and the public key's sizes. Throws
  /// invalid_parameter naming the first part that fails.
  template <random_bit_source G>
  static private_key from_parts(const Int& p, const Int& q, const Int& v_p, const Int& v_q,
                                std::uint32_t u, const Int& g, const Int& h, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    return from_parts(p, q, v_p, v_q, u, g, h, gen, false);
  }
  /// As above, down to the insecure sizes.
  template <random_bit_source G>
  static private_key from_parts(const Int& p, const Int& q, const Int& v_p, const Int& v_q,
                                std::uint32_t u, const Int& g, const Int& h, G& gen,
                                allow_insecure_t) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    return from_parts(p, q, v_p, v_q, u, g, h, gen, true);
  }

  /// The matching public key.
  [[nodiscard]] const dgk::public_key<Int>& public_key() const noexcept { return pub_; }
  /// The secret numbers, by reference (a caller who copies one owns the
  /// copy's wiping): the primes p and q of n, and the t-bit primes v_p | p - 1
  /// and v_q | q - 1 of the hidden subgroup.
  ///@{
  [[nodiscard]] const Int& p() const noexcept { return ctx_->p; }
  [[nodiscard]] const Int& q() const noexcept { return ctx_->q; }
  [[nodiscard]] const Int& v_p() const noexcept { return ctx_->v_p; }
  [[nodiscard]] const Int& v_q() const noexcept { return ctx_->v_q; }
  ///@}

  /// Whether c encrypts 0 (mod u): c^(v_p) mod p = 1, one constant-time
  /// exponentiation with a t-bit exponent modulo p. Throws invalid_parameter
  /// when c is under another key or c^(v_p) mod p is outside the order-u
  /// subgroup (no DGK ciphertext of this key).
  [[nodiscard]] bool is_zero(const ciphertext<Int>& c) const {
    pub_.check_own(c);
    const detail::secret<Int> w(projected(c));
    return w.get() == 1;
  }

  /// The plaintext in [0, u), by the table of powers of g^(v_p) mod p (built
  /// on first use). Not constant time in the plaintext. Throws as is_zero.
  [[nodiscard]] std::uint32_t decrypt(const ciphertext<Int>& c) const {
    pub_.check_own(c);
    const detail::secret<Int> w(projected(c));
    const std::optional<std::uint32_t> m = ctx_->log(w.get());
    if (!m) throw_not_ciphertext();  // unreachable for w in the order-u subgroup
    return *m;
  }

 private:
  friend struct detail::access;

  private_key(dgk::public_key<Int> pub, std::shared_ptr<const detail::private_context<Int>> ctx)
      : pub_(std::move(pub)), ctx_(std::move(ctx)) {}

  [[noreturn]] static void throw_not_ciphertext() {
    throw invalid_parameter("ciphertext",
                            "privet: ciphertext is not a DGK encryption under this key (c^(v_p) "
                            "mod p lies outside the order-u subgroup); allowed: g^m h^r mod n");
  }

  [[nodiscard]] Int projected(const ciphertext<Int>& c) const {
    Int w = ctx_->project(c.value());
    if (!ctx_->in_plaintext_group(w)) throw_not_ciphertext();
    return w;
  }

  template <random_bit_source G>
  static private_key from_parts(const Int& p, const Int& q, const Int& v_p, const Int& v_q,
                                std::uint32_t u, const Int& g, const Int& h, G& gen, bool insecure);

  dgk::public_key<Int> pub_;
  std::shared_ptr<const detail::private_context<Int>> ctx_;
};

/// A freshly generated key pair.
template <integer Int>
struct keypair {
  dgk::public_key<Int> public_key;    ///< The key to publish.
  dgk::private_key<Int> private_key;  ///< The key to keep.
};

namespace detail {

struct access {
  template <class Int>
  static const std::shared_ptr<const public_context<Int>>& context(const public_key<Int>& k) {
    return k.ctx_;
  }
  template <class Int>
  static const std::shared_ptr<const public_context<Int>>& context(const ciphertext<Int>& c) {
    return c.ctx_;
  }
  template <class Int>
  static ciphertext<Int> make(const std::shared_ptr<const public_context<Int>>& ctx, Int value) {
    return ciphertext<Int>(ctx, std::move(value));
  }
  template <class Int>
  static public_key<Int> key(std::shared_ptr<const public_context<Int>> ctx) {
    return public_key<Int>(std::move(ctx));
  }
  template <class Int>
  static private_key<Int> make_private(public_key<Int> pub,
                                       std::shared_ptr<const private_context<Int>> ctx) {
    return private_key<Int>(std::move(pub), std::move(ctx));
  }
};

// The x mod pq with x = a_p mod p, x = a_q mod q (Garner), p^-1 mod q given.
template <class Int>
Int crt(const Int& a_p, const Int& a_q, const Int& p, const modular<Int>& mod_q,
        const Int& p_inv_q) {
  const Int& q = mod_q.value();
  const secret<Int> t(mod_q.reduce(Int(a_q + q - mod_q.reduce(a_p))));
  return a_p + p * mod_q.mul(t.get(), p_inv_q);
}

// A random prime of exactly `bits` bits with its top two bits set, p = 1 mod
// m (m even), whose cofactor (p - 1) / m is not a multiple of the prime
// `avoid`. Candidates are fresh and independent: x uniform with the top bits
// set, moved down to the nearest integer = 1 mod m, so every admissible
// prime is equally likely. 64 Miller-Rabin rounds (the worst-case bound
// 4^-64: the Damgård-Landrock-Pomerance average-case bounds are for uniform
// odd candidates, not for this form).
template <class Int, class G>
Int random_prime_one_mod(std::size_t bits, const Int& m, const Int& avoid, G& gen) {
  const Int low = Int(3) << static_cast<unsigned>(bits - 2);
  for (;;) {
    Int x = random_bits<Int>(gen, bits);
    boost::multiprecision::bit_set(x, static_cast<unsigned>(bits - 1));
    boost::multiprecision::bit_set(x, static_cast<unsigned>(bits - 2));
    const Int cand = x - Int((x - 1) % m);
    if (cand < low) continue;
    if (Int((cand - 1) / m) % avoid == 0) continue;
    if (privet::detail::has_small_factor(cand)) continue;
    if (privet::detail::miller_rabin(cand, privet::detail::adversarial_rounds, gen)) return cand;
  }
}

// An element of order exactly a b in Z*_p (a, b distinct primes, or b = 1
// for order a) as y = x^cofactor, cofactor = (p - 1) / (a b), x random: y's
// order divides a b, and is a b unless y^a = 1 or y^b = 1.
template <class Int, class G>
Int element_of_order(const modular<Int>& mod_p, const Int& cofactor, const Int& a, const Int& b,
                     G& gen) {
  const Int& p = mod_p.value();
  const std::size_t pb = bits_of(p);
  for (;;) {
    const Int x = uniform_below(gen, Int(p - 3)) + 2;  // [2, p - 2]
    const Int y = mod_p.pow_secret(x, cofactor, pb);
    if (b == 1) {
      if (y != 1) return y;
      continue;
    }
    if (mod_p.pow_secret(y, a, pb) != 1 && mod_p.pow_secret(y, b, pb) != 1) return y;
  }
}

template <class Int, class G>
keypair<Int> generate(const key_parameters& params, bool insecure, G& gen) {
  const std::uint32_t u32 = params.plaintext_prime;
  check_plaintext_prime(u32);
  check_modulus_bits<Int>(params.modulus_bits, insecure, true);
  check_subgroup_bits(params.subgroup_bits, params.modulus_bits, u32, insecure);
  const std::size_t half = params.modulus_bits / 2;
  const std::size_t t = params.subgroup_bits;
  const Int u(u32);
  // Every secret part is a secret<Int>: wiped when generation returns (the
  // key keeps its own copies).
  const secret<Int> v_p(privet::detail::random_prime<Int>(t, gen));
  secret<Int> v_q;
  do {
    v_q = secret<Int>(privet::detail::random_prime<Int>(t, gen));
  } while (v_q.get() == v_p.get());
  const secret<Int> p(random_prime_one_mod(half, Int(2 * u * v_p.get()), v_q.get(), gen));
  const secret<Int> q(random_prime_one_mod(half, Int(2 * u * v_q.get()), v_p.get(), gen));
  // p != q: p = 1 mod v_p while q - 1 is no multiple of v_p.
  const modular<Int> mod_p(p.get()), mod_q(q.get());
  const std::size_t pb = bits_of(p.get());
  // g_p of order u v_p, h_p of order v_p (and so mod q).
  const secret<Int> cg_p(Int((p.get() - 1) / (u * v_p.get())));
  const secret<Int> cg_q(Int((q.get() - 1) / (u * v_q.get())));
  const secret<Int> ch_p(Int((p.get() - 1) / v_p.get()));
  const secret<Int> ch_q(Int((q.get() - 1) / v_q.get()));
  const secret<Int> g_p(element_of_order(mod_p, cg_p.get(), u, v_p.get(), gen));
  const secret<Int> g_q(element_of_order(mod_q, cg_q.get(), u, v_q.get(), gen));
  const secret<Int> h_p(element_of_order(mod_p, ch_p.get(), v_p.get(), Int(1), gen));
  const secret<Int> h_q(element_of_order(mod_q, ch_q.get(), v_q.get(), Int(1), gen));
  const secret<Int> p_inv_q(
      mod_q.pow_secret(p.get(), Int(q.get() - 2), pb));  // Fermat, constant time
  const Int g = crt(g_p.get(), g_q.get(), p.get(), mod_q, p_inv_q.get());
  const Int h = crt(h_p.get(), h_q.get(), p.get(), mod_q, p_inv_q.get());
  auto pub_ctx = std::make_shared<const public_context<Int>>(Int(p.get() * q.get()), g, h, u32, t);
  public_key<Int> pub = access::key<Int>(std::move(pub_ctx));
  auto priv_ctx =
      std::make_shared<const private_context<Int>>(p.get(), q.get(), v_p.get(), v_q.get(), g, u32);
  private_key<Int> sk = access::make_private<Int>(pub, std::move(priv_ctx));
  return keypair<Int>{std::move(pub), std::move(sk)};
}

}  // namespace detail

template <integer Int>
ciphertext<Int>::ciphertext(const dgk::public_key<Int>& key, const Int& value)
    : ctx_(detail::access::context(key)), value_(value) {
  if (!detail::is_unit(*ctx_, value)) {
    throw invalid_parameter("value",
                            "privet: DGK ciphertext value is invalid; allowed: an integer in [1, "
                            "n) coprime to n");
  }
}

template <integer Int>
dgk::public_key<Int> ciphertext<Int>::key() const {
  return detail::access::key<Int>(ctx_);
}

/// The checks and construction behind the public from_parts overloads;
/// `insecure` admits the sizes below the secure bounds. @private
template <integer Int>
template <random_bit_source G>
private_key<Int> private_key<Int>::from_parts(const Int& p, const Int& q, const Int& v_p,
                                              const Int& v_q, std::uint32_t u, const Int& g,
                                              const Int& h, G& gen, bool insecure) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  using privet::detail::is_probable_prime;
  detail::check_plaintext_prime(u);
  const Int ui(u);
  if (!is_probable_prime(p, gen))
    throw invalid_parameter("p", "privet: p is not prime; allowed: a prime");
  if (!is_probable_prime(q, gen))
    throw invalid_parameter("q", "privet: q is not prime; allowed: a prime");
  if (p == q) throw invalid_parameter("q", "privet: q equals p; allowed: a prime other than p");
  const std::size_t pb = detail::bits_of(p);
  if (detail::bits_of(q) != pb) {
    throw_invalid("q",
                  std::string_view("a prime of " + std::to_string(detail::bits_of(q)) + " bits"),
                  "a prime of the same length as p (" + std::to_string(pb) + " bits)");
  }
  if (!is_probable_prime(v_p, gen))
    throw invalid_parameter("v_p", "privet: v_p is not prime; allowed: a prime");
  if (!is_probable_prime(v_q, gen))
    throw invalid_parameter("v_q", "privet: v_q is not prime; allowed: a prime");
  const std::size_t t = detail::bits_of(v_p);
  if (v_p == v_q || detail::bits_of(v_q) != t) {
    throw invalid_parameter("v_q",
                            "privet: v_q equals v_p or differs in length; allowed: a prime "
                            "other than v_p of the same length (" +
                                std::to_string(t) + " bits)");
  }
  if (Int((p - 1) % Int(ui * v_p)) != 0 || Int((p - 1) % v_q) == 0) {
    throw invalid_parameter("p",
                            "privet: p - 1 is not a multiple of u v_p or is one of v_q; "
                            "allowed: p = 1 mod u v_p with v_q not dividing p - 1");
  }
  if (Int((q - 1) % Int(ui * v_q)) != 0 || Int((q - 1) % v_p) == 0) {
    throw invalid_parameter("q",
                            "privet: q - 1 is not a multiple of u v_q or is one of v_p; "
                            "allowed: q = 1 mod u v_q with v_p not dividing q - 1");
  }
  const Int n = p * q;
  // The public key's own checks (sizes, g and h units) come first: they name
  // the size rules.
  dgk::public_key<Int> pub = insecure ? dgk::public_key<Int>(n, g, h, u, t, allow_insecure)
                                      : dgk::public_key<Int>(n, g, h, u, t);
  const detail::modular<Int> mod_p(p), mod_q(q);
  const auto order_is = [&](const detail::modular<Int>& mod, const Int& x, const Int& a,
                            const Int& b) {
    // x^(a b) = 1, and x^a != 1, x^b != 1 for primes a, b (b = 1: just x^a = 1, x != 1).
    const std::size_t mb = detail::bits_of(mod.value());
    const Int y = mod.reduce(x);
    if (mod.pow_secret(y, Int(a * b), 2 * mb) != 1) return false;
    if (b == 1) return y != 1;
    return mod.pow_secret(y, a, mb) != 1 && mod.pow_secret(y, b, mb) != 1;
  };
  if (!order_is(mod_p, g, ui, v_p) || !order_is(mod_q, g, ui, v_q)) {
    throw invalid_parameter("g",
                            "privet: g does not have order u v_p v_q; allowed: g of order u "
                            "v_p mod p and u v_q mod q");
  }
  if (!order_is(mod_p, h, v_p, Int(1)) || !order_is(mod_q, h, v_q, Int(1))) {
    throw invalid_parameter("h",
                            "privet: h does not have order v_p v_q; allowed: h of order v_p "
                            "mod p and v_q mod q");
  }
  auto ctx = std::make_shared<const detail::private_context<Int>>(p, q, v_p, v_q, g, u);
  return private_key(std::move(pub), std::move(ctx));
}

/// A new key pair of the given sizes (modulus_bits even, >= min_key_bits;
/// subgroup_bits >= min_subgroup_bits(modulus_bits); plaintext_prime a
/// prime), primes and randomness from `gen` (use a CSPRNG: privet::csprng).
template <integer Int = boost::multiprecision::cpp_int, random_bit_source G>
keypair<Int> generate_keypair(const key_parameters& params, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return detail::generate<Int>(params, false, gen);
}
/// As above for sizes below the secure bounds (tests, papers' timings):
/// breakable keys, asked for by name.
template <integer Int = boost::multiprecision::cpp_int, random_bit_source G>
keypair<Int> generate_keypair(const key_parameters& params, allow_insecure_t, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return detail::generate<Int>(params, true, gen);
}
/// A new key pair from this thread's secure generator.
template <integer Int = boost::multiprecision::cpp_int>
keypair<Int> generate_keypair(const key_parameters& params) {
  return generate_keypair<Int>(params, secure_generator());
}

// ---- serialisation of public keys ---------------------------------------------
// version (1 byte) = 1, kind (1 byte) = 1, modulus bits (4 bytes LE),
// subgroup bits (4), u (4), then n, g and h, each big-endian on
// ceil(modulus bits / 8) bytes.

namespace detail {
inline constexpr std::uint8_t key_wire_version = 1;
inline constexpr std::uint8_t public_key_kind = 1;
inline constexpr std::uint32_t max_key_bytes = max_key_bits / 8;

template <class Int>
public_key<Int> read_public_key(std::span<const std::uint8_t> bytes, bool insecure,
                                const peer_key_limit& limit) {
  if (limit.bits < min_insecure_key_bits || limit.bits > max_key_bits) {
    throw_invalid(
        "peer_key_limit.bits", limit.bits,
        "[" + std::to_string(min_insecure_key_bits) + ", " + std::to_string(max_key_bits) + "]");
  }
  privet::detail::wire_reader r(bytes, "DGK public key");
  const std::uint8_t version = r.u8();
  if (version != key_wire_version) {
    r.fail("format version " + std::to_string(version) + " (this build reads version " +
           std::to_string(key_wire_version) + ")");
  }
  const std::uint8_t kind = r.u8();
  if (kind != public_key_kind) r.fail("kind " + std::to_string(kind) + " is not a public key (1)");
  const std::uint32_t bits = r.u32();
  const std::uint32_t t = r.u32();
  const std::uint32_t u = r.u32();
  if (bits < 2 || bits > max_key_bits) {
    r.fail("modulus length " + std::to_string(bits) + " bits outside [2, " +
           std::to_string(max_key_bits) + "]");
  }
  // What a peer's key may make its users pay, before n, g and h are read.
  if (bits > limit.bits) {
    r.fail("modulus length " + std::to_string(bits) + " bits; allowed from another party: at " +
           "most " + std::to_string(limit.bits) + " (dgk::max_peer_key_bits = " +
           std::to_string(max_peer_key_bits) + "; pass crypto::peer_key_limit{bits} for more)");
  }
  if (t > max_peer_subgroup_bits) {
    r.fail("subgroup length t = " + std::to_string(t) + " bits; allowed from another party: at " +
           "most " + std::to_string(max_peer_subgroup_bits) + " (dgk::max_peer_subgroup_bits)");
  }
  const std::size_t width = (bits + 7) / 8;
  if (r.remaining() != 3 * width) {
    r.fail(std::to_string(r.remaining()) + " bytes for n, g and h where 3 x " +
           std::to_string(width) + " are needed");
  }
  const Int n = read_fixed<Int>(r, width);
  const Int g = read_fixed<Int>(r, width);
  const Int h = read_fixed<Int>(r, width);
  r.finish();
  if (bits_of(n) != bits) {
    r.fail("n has " + std::to_string(bits_of(n)) + " bits, not the " + std::to_string(bits) +
           " announced");
  }
  try {
    return insecure ? public_key<Int>(n, g, h, u, t, allow_insecure)
                    : public_key<Int>(n, g, h, u, t);
  } catch (const invalid_parameter& e) {
    std::string msg = e.what();
    if (msg.rfind("privet: ", 0) == 0) msg.erase(0, 8);
    throw serialization_error("privet: malformed DGK public key: " + msg);
  }
}
}  // namespace detail

/// The binary encoding of a public key (see the layout above).
template <integer Int>
std::vector<std::uint8_t> serialize(const public_key<Int>& key) {
  privet::detail::wire_writer w;
  w.u8(detail::key_wire_version);
  w.u8(detail::public_key_kind);
  w.u32(static_cast<std::uint32_t>(key.bits()));
  w.u32(static_cast<std::uint32_t>(key.subgroup_bits()));
  w.u32(key.plaintext_modulus());
  const std::size_t width = (key.bits() + 7) / 8;
  detail::write_fixed(w, key.n(), width);
  detail::write_fixed(w, key.g(), width);
  detail::write_fixed(w, key.h(), width);
  return w.take();
}

/// Decodes a public key; serialization_error for anything but an exact
/// encoding of a valid key of the secure sizes (the message names the rule).
/// A key from another party: n of at most max_peer_key_bits (4096) bits
/// and t of at most max_peer_subgroup_bits (512), checked before n, g and h
/// are read; n without a factor below 32768 and no perfect power
/// (crypto/detail/modulus_checks.hpp).
template <integer Int>
public_key<Int> deserialize_public_key(std::span<const std::uint8_t> bytes) {
  return detail::read_public_key<Int>(bytes, false, peer_key_limit{});
}
/// As above, accepting keys below the secure sizes.
template <integer Int>
public_key<Int> deserialize_public_key(std::span<const std::uint8_t> bytes, allow_insecure_t) {
  return detail::read_public_key<Int>(bytes, true, peer_key_limit{});
}
/// As above, with n of up to `limit.bits` bits (in [min_insecure_key_bits,
/// max_key_bits]).
template <integer Int>
public_key<Int> deserialize_public_key(std::span<const std::uint8_t> bytes,
                                       const peer_key_limit& limit) {
  return detail::read_public_key<Int>(bytes, false, limit);
}
/// As above with n of up to `limit.bits` bits, accepting keys below the
/// secure sizes.
template <integer Int>
public_key<Int> deserialize_public_key(std::span<const std::uint8_t> bytes, allow_insecure_t,
                                       const peer_key_limit& limit) {
  return detail::read_public_key<Int>(bytes, true, limit);
}

}  // namespace privet::dgk
