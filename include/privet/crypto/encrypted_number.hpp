// privet/crypto/encrypted_number.hpp — `encrypted_number<Int, S, Tag>`: a Paillier
// ciphertext of a fixed-point value of scale S (crypto/fixed_point.hpp), with
// a public bound on the magnitude of the mantissa it encrypts. Every
// homomorphic operation (add, subtract, negate, add a plaintext, multiply by
// an integer or by a fixed-point plaintext, upscale, sums, dense and sparse
// dot products) computes the bound of its result first, with Int arithmetic
// that cannot itself overflow, and throws overflow_error when that bound
// would pass (n - 1) / 2 — before touching the ciphertext.
//
// Why a bound and not a guard band: python-paillier (EncodedNumber.decode)
// reserves (n/3, 2n/3) and reports an overflow when a decrypted value lands
// there; a sum that wraps past n lands back in the valid range and decodes
// to a wrong value silently (three values of n/3 - 1, its max_int, add up to
// n - 3, which decodes as -3). Tracking
// |m| <= bound with bound <= (n - 1) / 2 makes wrapping impossible: the
// signed value in [-(n-1)/2, (n-1)/2] is the true integer result (Pathak,
// Sharifi & Raj's usable range [0, (N-1)/(2C)] in value units).
//
// The bound is public metadata that travels with the ciphertext: it must
// not depend on the data (state the range the protocol allows, not the
// value's own magnitude). Product scales are types (product_scale_t), so a
// product cannot be added to a value of the original scale without an
// explicit `upscale`. Like paillier::ciphertext, an encrypted number has the
// key type Tag of its key: numbers of two key types do not combine.
#pragma once

#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/fixed_point.hpp>
#include <privet/crypto/paillier.hpp>

#include <concepts>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace privet::paillier {

template <integer Int, fixed_point_scale S, key_tag Tag = runtime_key>
class encrypted_number;

/// A fixed_point<Int, S> for some scale S.
template <class K, class Int>
concept fixed_point_of = requires {
  typename K::scale_type;
}
&&std::same_as<K, fixed_point<Int, typename K::scale_type>>;

/// A plaintext weight of a dot product: an integer (scalar<Int>) or a
/// fixed-point value.
template <class K, class Int>
concept weight = scalar<K, Int> || fixed_point_of<K, Int>;

namespace detail {

// A bound as error messages show it: in full when short, else its length.
template <class Int>
std::string int_text(const Int& x) {
  if (bits_of(abs_int(x)) <= 128) return x.str();
  return "a " + std::to_string(bits_of(abs_int(x))) + "-bit number";
}

// What bound checks need of a key: (n - 1) / 2 and the length of n.
template <class Int>
struct bound_limit {
  Int half;
  std::size_t bits;
  template <class Key>
  explicit bound_limit(const Key& key) : half(key.max_signed()), bits(key.bits()) {}
};

template <class Int>
[[noreturn]] void throw_bound(const std::string& operation, const std::string& expression,
                              const bound_limit<Int>& limit) {
  throw overflow_error("privet: " + operation + " could overflow the plaintext range: the bound " +
                       expression + " of its result exceeds (n-1)/2 = " + int_text(limit.half) +
                       " for the " + std::to_string(limit.bits) +
                       "-bit modulus n; allowed: results bounded by (n-1)/2");
}

// a + b, both in [0, (n-1)/2]; throws when the sum passes (n-1)/2. The sum
// is at most n - 1, which any Int holding n^2 holds.
template <class Int>
Int add_bounds(const Int& a, const Int& b, const bound_limit<Int>& limit, const char* operation) {
  Int s = a + b;
  if (s > limit.half) throw_bound(operation, int_text(a) + " + " + int_text(b), limit);
  return s;
}

// bound * k for bound in [0, (n-1)/2] and k >= 0, decided by a division so
// that no product beyond (n-1)/2 is ever formed.
template <class Int>
Int mul_bound(const Int& bound, const Int& k, const bound_limit<Int>& limit,
              const char* operation) {
  if (bound == 0 || k == 0) return Int(0);
  if (k > limit.half / bound) throw_bound(operation, int_text(bound) + " * " + int_text(k), limit);
  return Int(bound * k);
}

template <class Int>
void check_bound(const Int& bound, const bound_limit<Int>& limit) {
  if (bound < 0) {
    throw invalid_parameter("bound", "privet: bound is negative; allowed: a magnitude >= 0");
  }
  if (bound > limit.half) {
    throw overflow_error("privet: bound = " + int_text(bound) +
                         " exceeds (n-1)/2 = " + int_text(limit.half) + " for the " +
                         std::to_string(limit.bits) + "-bit modulus n; allowed: [0, (n-1)/2]");
  }
}

[[noreturn]] inline void throw_other_key(const char* name) {
  throw invalid_parameter(name, std::string("privet: ") + name +
                                    " is a ciphertext under a different public key; "
                                    "allowed: ciphertexts under the same key (the same n)");
}

// The door to encrypted_number's unchecked constructor (a bound already
// checked), for the free functions below.
struct number_access {
  template <class Int, class S, class Tag>
  static encrypted_number<Int, S, Tag> make(ciphertext<Int, Tag> c, Int bound) {
    return encrypted_number<Int, S, Tag>(std::move(c), std::move(bound));
  }
};

}  // namespace detail

/// A Paillier encryption of a fixed-point value of scale S together with a
/// public bound B on its mantissa (|round(C x)| <= B <= (n - 1) / 2), under a
/// key of key type Tag. Operations propagate the bound and throw
/// overflow_error before a result could leave [-(n-1)/2, (n-1)/2]. Cheap to
/// copy (the key data are shared).
template <integer Int, fixed_point_scale S, key_tag Tag>
class encrypted_number {
 public:
  using int_type = Int;                    ///< The integer type of the key.
  using scale_type = S;                    ///< The fixed-point scale C as a type.
  using tag_type = Tag;                    ///< The key type.
  using value_type = fixed_point<Int, S>;  ///< What decrypt returns.

  /// Wraps `c`, which must encrypt to_plaintext(x) for some x with |x| <=
  /// `bound` (the caller vouches; `decrypt` checks it). overflow_error if
  /// the bound exceeds (n - 1) / 2, invalid_parameter if it is negative.
  encrypted_number(paillier::ciphertext<Int, Tag> c, const value_type& bound)
      : c_(std::move(c)), bound_(bound.mantissa()) {
    detail::check_bound(bound_, limit());
  }

  /// The Paillier ciphertext of to_plaintext(x).
  [[nodiscard]] const paillier::ciphertext<Int, Tag>& ciphertext() const noexcept { return c_; }
  /// The public bound on |x|.
  [[nodiscard]] value_type bound() const { return value_type::from_mantissa(bound_); }
  /// The bound as a mantissa (|round(C x)| <= bound_mantissa()).
  [[nodiscard]] const Int& bound_mantissa() const noexcept { return bound_; }
  /// The public key of the ciphertext (as paillier::ciphertext::key).
  [[nodiscard]] paillier::public_key<Int, Tag> key() const { return c_.key(); }

  /// Enc(-x), same bound: the inverse modulo n^2.
  friend encrypted_number operator-(const encrypted_number& a) {
    return encrypted_number(-a.c_, a.bound_);
  }
  /// Enc(a + b), bound B_a + B_b. Another scale or key type does not
  /// compile; throws invalid_parameter when b is under another key, and
  /// overflow_error when B_a + B_b > (n - 1) / 2.
  template <fixed_point_scale S2, key_tag T2>
  friend encrypted_number operator+(const encrypted_number& a,
                                    const encrypted_number<Int, S2, T2>& b) {
    check_mix<S2, T2>();
    a.check_key(b.ciphertext());
    Int bound = detail::add_bounds(a.bound_, b.bound_mantissa(), a.limit(), "addition");
    return encrypted_number(a.c_ + b.ciphertext(), std::move(bound));
  }
  /// Enc(a - b), bound B_a + B_b; the same conditions as +.
  template <fixed_point_scale S2, key_tag T2>
  friend encrypted_number operator-(const encrypted_number& a,
                                    const encrypted_number<Int, S2, T2>& b) {
    check_mix<S2, T2>();
    a.check_key(b.ciphertext());
    Int bound = detail::add_bounds(a.bound_, b.bound_mantissa(), a.limit(), "subtraction");
    return encrypted_number(a.c_ - b.ciphertext(), std::move(bound));
  }
  /// Enc(x + k) for a plaintext k: c (1 + m_k n) mod n^2, deterministic (the
  /// randomness of c carries over). Bound B + |m_k|; overflow_error when it
  /// passes (n - 1) / 2. k must have scale S (else it does not compile).
  template <fixed_point_scale S2>
  friend encrypted_number operator+(const encrypted_number& a, const fixed_point<Int, S2>& k) {
    check_mix<S2, Tag>();
    return a.add_plain(k.mantissa(), "addition of a plaintext");
  }
  /// Enc(k + x), as a + k.
  template <fixed_point_scale S2>
  friend encrypted_number operator+(const fixed_point<Int, S2>& k, const encrypted_number& a) {
    return a + k;
  }
  /// Enc(x - k), as a + (-k).
  template <fixed_point_scale S2>
  friend encrypted_number operator-(const encrypted_number& a, const fixed_point<Int, S2>& k) {
    check_mix<S2, Tag>();
    return a.add_plain(Int(-k.mantissa()), "subtraction of a plaintext");
  }
  /// Enc(k x) for an integer k (the scale is unchanged), bound |k| B;
  /// overflow_error when that passes (n - 1) / 2 or |k| >= n.
  template <scalar<Int> K>
  friend encrypted_number operator*(const encrypted_number& a, const K& k) {
    return a.times(Int(k));
  }
  /// Enc(k x), as a * k.
  template <scalar<Int> K>
  friend encrypted_number operator*(const K& k, const encrypted_number& a) {
    return a.times(Int(k));
  }
  /// Enc(k x) for a fixed-point plaintext k, of scale product_scale_t<S, S2>
  /// (S2 of S's base, else it does not compile), bound |m_k| B;
  /// overflow_error as for an integer k.
  template <fixed_point_scale S2>
  friend encrypted_number<Int, product_scale_t<S, S2>, Tag> operator*(
      const encrypted_number& a, const fixed_point<Int, S2>& k) {
    encrypted_number scaled = a.times(k.mantissa());
    return detail::number_access::make<Int, product_scale_t<S, S2>, Tag>(std::move(scaled.c_),
                                                                         std::move(scaled.bound_));
  }
  /// Enc(k x), as a * k.
  template <fixed_point_scale S2>
  friend encrypted_number<Int, product_scale_t<S, S2>, Tag> operator*(const fixed_point<Int, S2>& k,
                                                                      const encrypted_number& a) {
    return a * k;
  }
  /// In-place forms of +, - and integer * (same conditions and exceptions;
  /// on a throw *this is unchanged).
  ///@{
  encrypted_number& operator+=(const encrypted_number& b) { return *this = *this + b; }
  encrypted_number& operator-=(const encrypted_number& b) { return *this = *this - b; }
  template <scalar<Int> K>
  encrypted_number& operator*=(const K& k) {
    return *this = *this * k;
  }
  ///@}

 private:
  friend struct detail::number_access;

  // Internal: the bound is already checked.
  encrypted_number(paillier::ciphertext<Int, Tag> c, Int bound)
      : c_(std::move(c)), bound_(std::move(bound)) {}

  template <class S2, class T2>
  static constexpr void check_mix() {
    static_assert(std::same_as<Tag, T2>,
                  "privet: encrypted numbers under two different key types (the Tag of "
                  "paillier::public_key<Int, Tag>) cannot be combined.");
    static_assert(std::same_as<S, S2>,
                  "privet: encrypted numbers of different scales cannot be added; upscale "
                  "one to the other's scale first.");
  }
  [[nodiscard]] detail::bound_limit<Int> limit() const {
    return detail::bound_limit<Int>(c_.key());
  }
  void check_key(const paillier::ciphertext<Int, Tag>& other) const {
    if (!c_.same_key(other)) detail::throw_other_key("rhs");
  }
  [[nodiscard]] encrypted_number times(const Int& k) const {
    Int bound = detail::mul_bound(bound_, detail::abs_int(k), limit(), "multiplication");
    return encrypted_number(c_ * k, std::move(bound));
  }
  [[nodiscard]] encrypted_number add_plain(const Int& k, const char* operation) const {
    const auto key = c_.key();
    const detail::bound_limit<Int> lim(key);
    const Int mag = detail::abs_int(k);
    if (mag > lim.half) detail::throw_bound<Int>(operation, "|k| = " + detail::int_text(mag), lim);
    Int bound = detail::add_bounds(bound_, mag, lim, operation);
    const Int m = k < 0 ? Int(key.n() + k) : k;
    // 1 + m n < n^2 for m < n, and is coprime to n: g^m with r = 1.
    const paillier::ciphertext<Int, Tag> plain(key, Int(1 + m * key.n()));
    return encrypted_number(c_ + plain, std::move(bound));
  }

  paillier::ciphertext<Int, Tag> c_;
  Int bound_;
};

namespace detail {

template <class Int, class S, class Key>
Int checked_mantissa_bound(const Key& key, const fixed_point<Int, S>& x,
                           const fixed_point<Int, S>& bound) {
  check_bound(bound.mantissa(), bound_limit<Int>(key));
  if (abs_int(x.mantissa()) > bound.mantissa()) {
    throw overflow_error(
        "privet: x exceeds its bound: |mantissa| = " + int_text(abs_int(x.mantissa())) +
        " > bound = " + int_text(bound.mantissa()) + " (at scale " + scale_text<S>() +
        "); allowed: |x| <= bound");
  }
  return bound.mantissa();
}

template <class Int, class S, class Tag>
std::vector<ciphertext<Int, Tag>> ciphertexts_of(
    std::span<const encrypted_number<Int, S, Tag>> xs) {
  std::vector<ciphertext<Int, Tag>> cs;
  cs.reserve(xs.size());
  for (const auto& x : xs) cs.push_back(x.ciphertext());
  return cs;
}

template <class Int, class S, class Tag>
void check_same_number_keys(std::span<const encrypted_number<Int, S, Tag>> xs) {
  for (std::size_t i = 1; i < xs.size(); ++i) {
    if (!xs[0].ciphertext().same_key(xs[i].ciphertext())) {
      throw invalid_parameter("ciphertexts", "privet: ciphertexts[" + std::to_string(i) +
                                                 "] is under a different public key than "
                                                 "ciphertexts[0]; allowed: ciphertexts under "
                                                 "the same key (the same n)");
    }
  }
}

// sum_i |k_i| B_i over `count` terms (x, k) = term(i), checked term by term.
template <class Int, class S, class Tag, class Terms>
Int bound_of_dot(std::span<const encrypted_number<Int, S, Tag>> xs, std::size_t count, Terms term) {
  const bound_limit<Int> limit(xs[0].key());
  Int acc = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto& [x, k] = term(i);
    acc = add_bounds(acc, mul_bound(x.bound_mantissa(), abs_int(k), limit, "dot product"), limit,
                     "dot product");
  }
  return acc;
}

template <class K, class Int>
Int weight_mantissa(const K& k) {
  if constexpr (fixed_point_of<K, Int>) {
    return k.mantissa();
  } else {
    return Int(k);
  }
}

template <class Int, class S, class Tag, class K>
auto weighted_number(ciphertext<Int, Tag> c, Int bound) {
  if constexpr (scalar<K, Int>) {
    return number_access::make<Int, S, Tag>(std::move(c), std::move(bound));
  } else {
    return number_access::make<Int, product_scale_t<S, typename K::scale_type>, Tag>(
        std::move(c), std::move(bound));
  }
}

}  // namespace detail

/// Enc(x) under `key` (its encryption mode and pool, if any; r from `gen`),
/// carrying the public `bound` >= |x| (overflow_error if |x| > bound or
/// bound > (n - 1) / 2; invalid_parameter if bound < 0). The bound must not
/// depend on the data: it travels in the clear.
template <integer Int, key_tag Tag, fixed_point_scale S, random_bit_source G>
encrypted_number<Int, S, Tag> encrypt(const public_key<Int, Tag>& key, const fixed_point<Int, S>& x,
                                      const fixed_point<Int, S>& bound, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  Int b = detail::checked_mantissa_bound(key, x, bound);
  return detail::number_access::make<Int, S, Tag>(key.encrypt(to_plaintext(key, x), gen),
                                                  std::move(b));
}
/// As above, with randomness from this thread's secure generator.
template <integer Int, key_tag Tag, fixed_point_scale S>
encrypted_number<Int, S, Tag> encrypt(const public_key<Int, Tag>& key, const fixed_point<Int, S>& x,
                                      const fixed_point<Int, S>& bound) {
  return encrypt(key, x, bound, secure_generator());
}
/// Enc(x) in `band`: for plaintext_band::python_paillier the bound (and so
/// |x|) must be at most floor(n/3) - 1, python-paillier's max_int, so that
/// phe decodes what it receives (overflow_error otherwise).
template <integer Int, key_tag Tag, fixed_point_scale S, random_bit_source G>
encrypted_number<Int, S, Tag> encrypt(const public_key<Int, Tag>& key, const fixed_point<Int, S>& x,
                                      const fixed_point<Int, S>& bound, G& gen,
                                      plaintext_band band) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  Int b = detail::checked_mantissa_bound(key, x, bound);
  if (b > key.max_signed(band)) {
    throw overflow_error("privet: bound = " + detail::int_text(b) +
                         " exceeds python-paillier's max_int = floor(n/3) - 1 = " +
                         detail::int_text(key.max_signed(band)) + " for the " +
                         std::to_string(key.bits()) +
                         "-bit modulus n; allowed: [0, max_int] (plaintext_band::python_paillier)");
  }
  return detail::number_access::make<Int, S, Tag>(key.encrypt(to_plaintext(key, x, band), gen),
                                                  std::move(b));
}
/// As above, with randomness from this thread's secure generator.
template <integer Int, key_tag Tag, fixed_point_scale S>
encrypted_number<Int, S, Tag> encrypt(const public_key<Int, Tag>& key, const fixed_point<Int, S>& x,
                                      const fixed_point<Int, S>& bound, plaintext_band band) {
  return encrypt(key, x, bound, secure_generator(), band);
}
/// Enc(x) in the privet band with the caller's r (in [1, n), coprime to n;
/// else invalid_parameter), whatever the key's mode and pool; the bound
/// checked as by encrypt.
template <integer Int, key_tag Tag, fixed_point_scale S>
encrypted_number<Int, S, Tag> encrypt_with(const public_key<Int, Tag>& key,
                                           const fixed_point<Int, S>& x,
                                           const fixed_point<Int, S>& bound, const Int& r) {
  Int b = detail::checked_mantissa_bound(key, x, bound);
  return detail::number_access::make<Int, S, Tag>(key.encrypt_with(to_plaintext(key, x), r),
                                                  std::move(b));
}
/// Enc(x) by the key owner (r^n through the CRT, no pool), the bound
/// checked as by the public-key encrypt.
template <integer Int, key_tag Tag, fixed_point_scale S, random_bit_source G>
encrypted_number<Int, S, Tag> encrypt(const private_key<Int, Tag>& key,
                                      const fixed_point<Int, S>& x,
                                      const fixed_point<Int, S>& bound, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  const auto& pk = key.public_key();
  Int b = detail::checked_mantissa_bound(pk, x, bound);
  return detail::number_access::make<Int, S, Tag>(key.encrypt(to_plaintext(pk, x), gen),
                                                  std::move(b));
}

/// The fixed-point value. Throws protocol_error when the decrypted mantissa
/// exceeds the number's bound (the bound's promise was broken: a wrong
/// bound given on receipt, or a ciphertext that was not what it claimed).
template <integer Int, key_tag Tag, fixed_point_scale S>
fixed_point<Int, S> decrypt(const private_key<Int, Tag>& key,
                            const encrypted_number<Int, S, Tag>& x) {
  const auto v = from_plaintext<S>(key.public_key(), key.decrypt(x.ciphertext()));
  if (detail::abs_int(v.mantissa()) > x.bound_mantissa()) {
    throw protocol_error("privet: a decrypted mantissa exceeds its encrypted number's bound = " +
                         detail::int_text(x.bound_mantissa()) +
                         "; allowed: values within the bound the ciphertext was sent with");
  }
  return v;
}

/// The fixed-point value decoded in `band`: for
/// plaintext_band::python_paillier, overflow_error when the plaintext lies
/// in python-paillier's overflow band (max_int, n - max_int) (a value phe's
/// arithmetic overflowed), then the bound check above.
template <integer Int, key_tag Tag, fixed_point_scale S>
fixed_point<Int, S> decrypt(const private_key<Int, Tag>& key,
                            const encrypted_number<Int, S, Tag>& x, plaintext_band band) {
  if (band == plaintext_band::privet) return decrypt(key, x);
  (void)key.public_key().max_signed(band);  // refuses a bad band before decrypting
  const auto v = from_plaintext<S>(key.public_key(), key.decrypt(x.ciphertext()), band);
  if (detail::abs_int(v.mantissa()) > x.bound_mantissa()) {
    throw protocol_error("privet: a decrypted mantissa exceeds its encrypted number's bound = " +
                         detail::int_text(x.bound_mantissa()) +
                         "; allowed: values within the bound the ciphertext was sent with");
  }
  return v;
}

/// The same value with fresh randomness from `key` (its mode and pool):
/// times an encryption of 0. The bound is kept. Throws invalid_parameter
/// when x is under another key.
template <integer Int, key_tag Tag, fixed_point_scale S, random_bit_source G>
encrypted_number<Int, S, Tag> rerandomize(const public_key<Int, Tag>& key,
                                          const encrypted_number<Int, S, Tag>& x, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return detail::number_access::make<Int, S, Tag>(key.rerandomize(x.ciphertext(), gen),
                                                  x.bound_mantissa());
}

/// The same value at the finer scale To (times Base^k), bound scaled alike;
/// overflow_error when the scaled bound passes (n - 1) / 2. A coarser scale
/// or another base does not compile.
template <fixed_point_scale To, integer Int, fixed_point_scale From, key_tag Tag>
encrypted_number<Int, To, Tag> upscale(const encrypted_number<Int, From, Tag>& x) {
  static_assert(To::base == From::base && To::digits >= From::digits,
                "privet: upscale goes to a scale of the same base with at least as many "
                "digits; a coarser scale would need rounding.");
  const Int& factor = detail::scale_value<Int, scale<From::base, To::digits - From::digits>>();
  const auto scaled = x * factor;
  return detail::number_access::make<Int, To, Tag>(scaled.ciphertext(), scaled.bound_mantissa());
}

/// Enc(sum of the values), bound the sum of the bounds, on options.threads
/// threads; invalid_parameter when `xs` is empty or mixes keys,
/// overflow_error before a sum whose bound passes (n - 1) / 2.
template <integer Int, fixed_point_scale S, key_tag Tag>
encrypted_number<Int, S, Tag> sum(std::span<const encrypted_number<Int, S, Tag>> xs,
                                  batch_options options = {}) {
  if (xs.empty()) throw_empty("ciphertexts");
  detail::check_same_number_keys(xs);
  const detail::bound_limit<Int> limit(xs[0].key());
  Int bound = 0;
  for (const auto& x : xs) bound = detail::add_bounds(bound, x.bound_mantissa(), limit, "sum");
  const auto cs = detail::ciphertexts_of(xs);
  return detail::number_access::make<Int, S, Tag>(
      paillier::sum(std::span<const ciphertext<Int, Tag>>(cs), options), std::move(bound));
}

/// Enc(sum_i k_i x_i) for plaintext weights: integers (scalar<Int>; the scale
/// stays S) or fixed-point values of scale S2 (the result has scale
/// product_scale_t<S, S2>), on options.threads threads. Bound: sum_i |k_i|
/// B_i, checked term by term before any ciphertext is touched
/// (overflow_error when it passes (n - 1) / 2). Throws invalid_parameter
/// when `xs` is empty, the lengths differ or the keys mix.
template <integer Int, fixed_point_scale S, key_tag Tag, weight<Int> K>
auto dot(std::span<const encrypted_number<Int, S, Tag>> xs, std::span<const K> ks,
         batch_options options = {}) {
  if (xs.empty()) throw_empty("ciphertexts");
  if (ks.size() != xs.size()) {
    throw_invalid("scalars.size()", ks.size(), "ciphertexts.size() = " + std::to_string(xs.size()));
  }
  detail::check_same_number_keys(xs);
  std::vector<Int> weights;
  weights.reserve(ks.size());
  for (const auto& k : ks) weights.push_back(detail::weight_mantissa<K, Int>(k));
  Int bound = detail::bound_of_dot(xs, xs.size(), [&](std::size_t i) {
    return std::pair<const encrypted_number<Int, S, Tag>&, const Int&>(xs[i], weights[i]);
  });
  const auto cs = detail::ciphertexts_of(xs);
  auto c = paillier::dot(std::span<const ciphertext<Int, Tag>>(cs), std::span<const Int>(weights),
                         options);
  return detail::weighted_number<Int, S, Tag, K>(std::move(c), std::move(bound));
}

/// Sparse weights (index, value): as the dense dot product; a repeated index
/// adds its weights (and their bounds). No entries gives Enc(0) with bound 0
/// (the deterministic ciphertext 1: re-randomise before revealing it).
template <integer Int, fixed_point_scale S, key_tag Tag, weight<Int> K>
auto dot(std::span<const encrypted_number<Int, S, Tag>> xs,
         std::span<const sparse_entry<K>> entries, batch_options options = {}) {
  if (xs.empty()) throw_empty("ciphertexts");
  for (const auto& e : entries) {
    if (e.index >= xs.size()) {
      throw_invalid("index", e.index, "< ciphertexts.size() = " + std::to_string(xs.size()));
    }
  }
  detail::check_same_number_keys(xs);
  std::vector<sparse_entry<Int>> weights;
  weights.reserve(entries.size());
  for (const auto& e : entries) {
    weights.push_back({e.index, detail::weight_mantissa<K, Int>(e.value)});
  }
  Int bound = detail::bound_of_dot(xs, weights.size(), [&](std::size_t j) {
    return std::pair<const encrypted_number<Int, S, Tag>&, const Int&>(xs[weights[j].index],
                                                                       weights[j].value);
  });
  const auto cs = detail::ciphertexts_of(xs);
  auto c = paillier::dot(std::span<const ciphertext<Int, Tag>>(cs),
                         std::span<const sparse_entry<Int>>(weights), options);
  return detail::weighted_number<Int, S, Tag, K>(std::move(c), std::move(bound));
}

}  // namespace privet::paillier
