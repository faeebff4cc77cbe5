// privet/crypto/paillier_serialization.hpp — Paillier keys, ciphertexts and
// encrypted fixed-point numbers in a compact binary form and in
// python-paillier's JSON layouts.
//
// Binary (privet's own, version 1): the magic bytes "PVPL", a version byte
// (1) and a kind byte, then the fields; every integer is a 4-byte big-endian
// length followed by the minimal big-endian bytes of its magnitude (no
// leading zero byte; zero has length 0), so each value has one encoding.
//   kind 1, public key:       n
//   kind 2, private key:      p, q
//   kind 3, ciphertext:       fingerprint (16 bytes), c
//   kind 4, encrypted number: fingerprint, base (u32), digits (u32), bound, c
// The fingerprint is BLAKE2b-128 of n's big-endian bytes and binds a
// ciphertext to its key: reading it under another key throws.
//
// JSON, as python-paillier (CSIRO's Data61, https://github.com/data61/
// python-paillier) documents it in docs/serialisation.rst and writes it in
// phe/command_line.py and phe/util.py:
//  - public key, "basic" layout: {"g": g, "n": n} with g = n + 1; privet
//    writes decimal strings (Python's int(...) reads them), and reads decimal
//    strings or bare JSON integers of any length;
//  - public key, JWK layout: {"kty": "DAJ", "alg": "PAI-GN1", "key_ops":
//    ["encrypt"], "kid": ..., "n": base64url(n)}, integers as unpadded
//    base64url of their minimal big-endian bytes;
//  - private key, JWK layout, as phe/command_line.py writes and reads it
//    since python-paillier 1.3: {"kty": "DAJ", "key_ops": ["decrypt"], "p",
//    "q" (base64url), "pub": public JWK, "kid"}, p q = n; privet writes this.
//    The older layout of python-paillier's documentation, with "lambda" and
//    "mu" (base64url) in place of "p" and "q", is still read: lambda may be
//    any multiple of Carmichael's lambda(n) (python-paillier's examples carry
//    phi(n)) with mu = lambda^-1 mod n; the primes are recovered from it
//    (Miller 1976: a multiple of lambda(n) factors n with probability >= 1/2
//    per base). A key with both pairs is refused;
//  - encrypted number: {"v": ciphertext as a decimal string, "e": exponent},
//    the command-line tool's layout, value = mantissa * 16^e; a bare
//    ciphertext is written as an encrypted integer, {"v": ..., "e": 0} (the
//    command-line reader requires "e")
//    (EncodedNumber's BASE = 16); a list under one key: {"public_key": {"g",
//    "n"}, "values": [[ciphertext, exponent], ...]}.
// python-paillier's ciphertext of a mantissa m (negatives as n + m) is
// (1 + m n) r^n mod n^2, as privet's; so only hex_scale<D> numbers (exponent
// -D) have a JSON form. A number read with exponent e >= -D is moved to
// scale 16^D by raising its ciphertext to 16^(D + e), 4 (D + e) squarings
// modulo n^2, so e is read only in a band: D + e <= max(max_json_exponent_shift, D)
// (16: at most 64 squarings per number for D <= 16); e < -D would need rounding and
// throws. JSON carries no bound: the reader is given the public
// bound the protocol guarantees (decrypt checks it). python-paillier decodes
// only |mantissa| <= n/3 - 1 (its max_int): keep bounds below that for
// numbers Python will decrypt.
//
// Re-randomisation. A computed ciphertext — a sum, a product by a scalar, a
// dot product — is a deterministic function of its inputs: whoever made the
// inputs can recompute c^k for candidate scalars k and recognise the one that
// was sent, learning a secret weight without any key. So every writer of a
// ciphertext or an encrypted number (to_json, serialize, the list layout)
// multiplies it by a fresh randomiser first (an encryption of 0: r^n mod
// n^2, or h_N^a for a DJN-mode key), taken from the key's pool when the
// writer is given a key that has one (as python-paillier's
// EncryptedNumber.ciphertext(be_secure=True) obfuscates before it writes).
// The result has the same plaintext and is distributed as a fresh encryption
// of it. The writers take a generator (default: privet::secure_generator())
// and, optionally, the public key whose mode and pool serve the randomiser
// (default: the ciphertext's own key, textbook mode, no pool). Writing a
// value exactly as it is must be asked for by name, with
// `paillier::already_randomised`, and is only right for a value that is a
// fresh encryption already (straight from encrypt or rerandomize, never
// combined since).
//
// Every reader checks what it reads — lengths before allocating, versions,
// kinds, types, signs, ranges (0 < c < n^2, gcd(c, n) = 1, key sizes) and
// the key — and throws serialization_error naming the field and the rule,
// never anything else (fuzzed in tests/fuzz/paillier_*_fuzz.cpp).
//
// What a reader costs (issue 32): what is cheap comes first, and the work
// and memory are bounded by the input.
//  - Public keys from another party: n of at most max_peer_key_bits (4096)
//    bits unless the reader is given crypto::peer_key_limit{bits}, checked
//    before any arithmetic; then public_key's checks of n (no factor below
//    32768, no perfect power, not prime: about 1.2 exponentiations mod n).
//  - The list layout is read as a stream (nlohmann::json's SAX interface),
//    never as a document tree: "public_key" is compared with the given key
//    as soon as it closes (no key is made from it, no primality test), every
//    entry's form, ciphertext range and exponent band is checked as it
//    arrives, and only when the whole text has passed are gcd(c, n) and the
//    rescaling computed. Time: O(text) parsing plus, per entry, one gcd and
//    at most 64 squarings modulo n^2. Memory: the text twice (the quoted
//    copy below), one encrypted_number per entry (its ciphertext and bound:
//    two integers and a shared key reference) and two bytes per entry; the
//    output vector's growth may double its part for a moment.
//  - Private keys, read by their owner: layout, n's length, p q = n (or
//    lambda's consistency with mu) first; then, for the primes, trial
//    division and reader_prime_rounds(k) random-base Miller-Rabin rounds
//    (6 at 1024 bits, 3 at 2048, 2 from 4096), not the 64 of from_primes;
//    for lambda, n's form, one square root (lambda = phi(n) / g, as
//    python-paillier writes it), else at most lambda_factoring_bases (40)
//    random bases.
//  - Syntax errors give a byte offset and a field, never the text
//    (detail/paillier_wire.hpp): a private key's base64 never reaches an
//    exception. The decoders' own messages name the field and the rule only.
// bench/readers_bench.cpp measures each on its worst input.
//
// The key
// check needs a key in the encoding: the binary fingerprint or the JSON
// list's "public_key". python-paillier's single JSON ciphertext {"v"} and
// number {"v", "e"} name no key, so one made under another key whose value
// passes the range checks is read as this key's (and decrypts to noise):
// exchange them over a channel bound to the key, or use the list layout.
#pragma once

#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/crypto/detail/paillier_wire.hpp>
#include <privet/crypto/encrypted_number.hpp>
#include <privet/crypto/fixed_point.hpp>
#include <privet/crypto/paillier.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::paillier {

/// Version byte of the binary form written by `serialize`.
inline constexpr std::uint8_t format_version = 1;

using crypto::max_peer_key_bits;
using crypto::peer_key_limit;

/// The wire band of JSON exponents: an encrypted number of exponent e is
/// moved to the reader's scale 16^D by raising its ciphertext to 16^(D + e),
/// 4 (D + e) squarings modulo n^2, so D + e is read only up to max(this, D)
/// (for D <= 16 a factor of at most 2^64: 64 squarings per number).
/// python-paillier writes e = 0 for integers (D + e = D, always in the band)
/// and mostly negative exponents for floats.
inline constexpr std::int64_t max_json_exponent_shift = 16;

/// Random bases tried when a private key in the {lambda, mu} layout is not
/// solved directly (lambda = phi(n) / g, the usual case): a multiple of
/// Carmichael's lambda(n) factors n = p q for at least half of all bases, so
/// a right key is refused with probability <= 2^-40, and a wrong one costs
/// at most 40 exponentiations modulo n.
inline constexpr unsigned lambda_factoring_bases = 40;

/// Miller-Rabin rounds per prime when a private key is read (from_primes
/// takes 64): trial division, then the rounds a random prime of that length
/// needs for error <= 2^-128 (Damgard, Landrock and Pomerance 1993: 6 at
/// 1024 bits, 3 at 2048, 1 from 8192), and never fewer than 2, after the
/// cheap checks (lengths, p q = n). Why fewer than for primes an adversary
/// chose: a private key is read by its owner, from storage it wrote;
/// whoever could forge it knows the key it forged, so a worst-case bound
/// protects no secret. The rounds catch corruption, whose results are not
/// crafted pseudoprimes; the floor of 2 keeps a single base from deciding.
inline unsigned reader_prime_rounds(std::size_t prime_bits) {
  return std::max(2u,
                  privet::detail::miller_rabin_rounds(std::max<std::size_t>(prime_bits, 2), 128));
}

/// Asks a writer to write a ciphertext exactly as it is, without the
/// re-randomisation every writer does by default: only for a value that is
/// a fresh encryption already (from encrypt or rerandomize, not combined
/// since). A sum or a product by a scalar written this way lets whoever made
/// its inputs recover the scalar (see the file comment).
struct already_randomised_t {
  explicit already_randomised_t() = default;
};
/// The value of already_randomised_t that the writers take.
inline constexpr already_randomised_t already_randomised{};

/// A scale with a python-paillier JSON form: 16^D (exponent -D).
template <class S>
concept hex_scale_type = fixed_point_scale<S> && S::base == 16;

namespace detail {

inline constexpr std::array<std::uint8_t, 4> format_magic = {'P', 'V', 'P', 'L'};

enum class wire_kind : std::uint8_t {
  public_key = 1,
  private_key = 2,
  ciphertext = 3,
  encrypted_number = 4
};

inline const char* kind_name(std::uint8_t k) {
  switch (k) {
    case 1:
      return "public key";
    case 2:
      return "private key";
    case 3:
      return "ciphertext";
    case 4:
      return "encrypted number";
    default:
      return nullptr;
  }
}

inline privet::detail::paillier_writer open_writer(wire_kind k) {
  privet::detail::paillier_writer w;
  w.bytes(format_magic);
  w.u8(format_version);
  w.u8(static_cast<std::uint8_t>(k));
  return w;
}

inline privet::detail::paillier_reader open_reader(std::span<const std::uint8_t> bytes,
                                                   wire_kind expected) {
  privet::detail::paillier_reader r(bytes, kind_name(static_cast<std::uint8_t>(expected)));
  std::array<std::uint8_t, 4> magic{};
  r.bytes(magic);
  if (magic != format_magic) r.fail("does not start with the magic bytes \"PVPL\"");
  const std::uint8_t version = r.u8();
  if (version != format_version) {
    r.fail("format version " + std::to_string(version) +
           "; allowed: " + std::to_string(format_version));
  }
  const std::uint8_t k = r.u8();
  if (k != static_cast<std::uint8_t>(expected)) {
    const char* name = kind_name(k);
    r.fail(name ? std::string("holds a ") + name + " (kind " + std::to_string(k) + ")"
                : "unknown kind " + std::to_string(k));
  }
  return r;
}

// A privet error from a constructor, as a serialization_error about `what`.
template <class F>
auto rethrow_as_malformed(const std::string& what, F f) -> decltype(f()) {
  try {
    return f();
  } catch (const invalid_parameter& e) {
    std::string msg = e.what();
    if (msg.rfind("privet: ", 0) == 0) msg.erase(0, 8);
    throw serialization_error("privet: malformed Paillier " + what + ": " + msg);
  } catch (const overflow_error& e) {
    std::string msg = e.what();
    if (msg.rfind("privet: ", 0) == 0) msg.erase(0, 8);
    throw serialization_error("privet: malformed Paillier " + what + ": " + msg);
  }
}

// The longest modulus a key over Int may have: max_key_bits, or half the
// width of a fixed-width Int (which must hold n^2).
template <class Int>
std::size_t modulus_bits_limit() {
  if constexpr (std::numeric_limits<Int>::is_bounded) {
    return std::min<std::size_t>(max_key_bits,
                                 static_cast<std::size_t>(std::numeric_limits<Int>::digits) / 2);
  } else {
    return max_key_bits;
  }
}

template <class Int>
std::size_t max_modulus_bytes() {
  return (modulus_bits_limit<Int>() + 7) / 8;
}

template <class Int, class Tag>
public_key<Int, Tag> make_public_key(const Int& n, bool insecure, const std::string& what) {
  return rethrow_as_malformed(what, [&] {
    return insecure ? public_key<Int, Tag>(n, allow_insecure) : public_key<Int, Tag>(n);
  });
}

// gcd(c, n) != 1 for 0 < c, after one Euclidean step by the smaller of the
// two: Boost's binary gcd of a small c and a large n takes a step per bit of
// n (a list of 10^6 entries "1" took 48 s on cpp_int).
template <class Int>
bool shares_factor(const Int& c, const Int& n) {
  if (c >= n) return boost::multiprecision::gcd(Int(c % n), n) != 1;
  return boost::multiprecision::gcd(c, Int(n % c)) != 1;
}

// The ciphertext value c under `key`, checked: 0 < c < n^2, gcd(c, n) = 1.
template <class Int, class Tag, class Fail>
ciphertext<Int, Tag> checked_ciphertext(const public_key<Int, Tag>& key, const Int& c,
                                        const Fail& fail) {
  if (c == 0) fail("ciphertext is 0; allowed: [1, n^2) coprime to n");
  if (c >= key.n_squared()) fail("ciphertext is not below n^2; allowed: [1, n^2) coprime to n");
  if (shares_factor(c, key.n())) {
    fail("ciphertext shares a factor with n; allowed: [1, n^2) coprime to n");
  }
  return ciphertext<Int, Tag>(key, c);
}

template <class Int, class Tag>
void read_fingerprint(privet::detail::paillier_reader& r, const public_key<Int, Tag>& key) {
  privet::detail::key_fingerprint got{};
  r.bytes(got);
  const auto expected = privet::detail::fingerprint_of(key.n());
  if (got != expected) {
    r.fail("made under a different public key (fingerprint " + privet::detail::hex_text(got) +
           ", the given key's is " + privet::detail::hex_text(expected) + ")");
  }
}

// --- JSON field access ----------------------------------------------------------

class json_fields {
 public:
  explicit json_fields(std::string what) : what_(std::move(what)) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw serialization_error("privet: malformed Paillier " + what_ + " JSON: " + why);
  }
  void expect_object(const nlohmann::json& j, const std::string& name) const {
    if (!j.is_object()) fail(name + " is " + type_of(j) + "; allowed: an object");
  }
  const nlohmann::json& field(const nlohmann::json& obj, const std::string& name) const {
    const auto it = obj.find(name);
    if (it == obj.end()) fail("has no \"" + name + "\" field");
    return *it;
  }
  std::string string(const nlohmann::json& v, const std::string& name) const {
    if (!v.is_string()) fail("\"" + name + "\" is " + type_of(v) + "; allowed: a string");
    return v.get<std::string>();
  }
  // A non-negative integer <= limit: a decimal string or a bare integer.
  template <class Int>
  Int decimal(const nlohmann::json& v, const std::string& name, const Int& limit) const {
    const auto bad = [&](const std::string& why) { fail("\"" + name + "\" " + why); };
    if (v.is_string())
      return privet::detail::parse_decimal(v.get_ref<const std::string&>(), limit, bad);
    if (v.is_number_unsigned()) {
      const Int x(v.get<std::uint64_t>());
      if (x > limit) bad("is too large");
      return x;
    }
    if (v.is_number_integer()) bad("is negative; allowed: a non-negative decimal integer");
    if (v.is_number_float()) bad("is not an integer");
    bad("is " + type_of(v) + "; allowed: a decimal string or an integer");
    return Int(0);
  }
  // A positive integer of at most max_bytes bytes as unpadded base64url.
  template <class Int>
  Int base64(const nlohmann::json& v, const std::string& name, std::size_t max_bytes) const {
    const auto bad = [&](const std::string& why) { fail("\"" + name + "\" " + why); };
    const std::string s = string(v, name);
    if (s.size() > (max_bytes * 4 + 2) / 3)
      bad("is too long (more than " + std::to_string(max_bytes) + " bytes)");
    const auto bytes = privet::detail::base64url_decode(s, bad);
    if (bytes.empty()) bad("is empty; allowed: a positive integer");
    if (bytes[0] == 0) bad("has a leading zero byte (not minimal)");
    return privet::detail::from_be_bytes<Int>(bytes);
  }
  std::int64_t integer(const nlohmann::json& v, const std::string& name) const {
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail("\"" + name + "\" is too large");
      }
      return static_cast<std::int64_t>(u);
    }
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float()) fail("\"" + name + "\" is not an integer");
    if (v.is_string())
      fail("\"" + name + "\" is a string (or an integer beyond 18 digits); allowed: an integer");
    fail("\"" + name + "\" is " + type_of(v) + "; allowed: an integer");
  }

 private:
  static std::string type_of(const nlohmann::json& j) {
    return std::string(j.is_object() || j.is_array() ? "an " : "a ") + j.type_name();
  }
  std::string what_;
};

template <class Int>
Int max_modulus() {
  return Int(Int(1) << static_cast<unsigned>(modulus_bits_limit<Int>())) - 1;
}

// n of a public key in either JSON layout, checked for its form only (no
// key is made: a list compares it with the given key first).
template <class Int>
Int modulus_from(const nlohmann::json& j, const json_fields& f) {
  f.expect_object(j, "the public key");
  if (j.contains("kty")) {
    if (f.string(f.field(j, "kty"), "kty") != "DAJ") f.fail("\"kty\" is not \"DAJ\"");
    if (f.string(f.field(j, "alg"), "alg") != "PAI-GN1") f.fail("\"alg\" is not \"PAI-GN1\"");
    return f.base64<Int>(f.field(j, "n"), "n", max_modulus_bytes<Int>());
  }
  Int n = f.decimal(f.field(j, "n"), "n", max_modulus<Int>());
  if (j.contains("g")) {
    const Int g = f.decimal(j["g"], "g", Int(max_modulus<Int>() + 1));
    if (g != n + 1) f.fail("\"g\" is not n + 1 (privet and python-paillier use g = n + 1)");
  }
  return n;
}

inline void check_peer_limit(const peer_key_limit& limit) {
  if (limit.bits < min_insecure_key_bits || limit.bits > max_key_bits) {
    throw_invalid(
        "peer_key_limit.bits", limit.bits,
        "[" + std::to_string(min_insecure_key_bits) + ", " + std::to_string(max_key_bits) + "]");
  }
}

// A peer's n no longer than the reader's limit, before any arithmetic on it.
template <class Int, class Fail>
void check_peer_bits(const Int& n, const peer_key_limit& limit, const Fail& fail) {
  const std::size_t bits = privet::detail::bits_of(n);
  if (bits > limit.bits) {
    fail("n has " + std::to_string(bits) + " bits; allowed from another party: at most " +
         std::to_string(limit.bits) + " (paillier::max_peer_key_bits = " +
         std::to_string(max_peer_key_bits) + "; pass crypto::peer_key_limit{bits} for more)");
  }
}

template <class Int, class Tag>
public_key<Int, Tag> public_key_from(const nlohmann::json& j, bool insecure, const json_fields& f,
                                     const peer_key_limit& limit) {
  const Int n = modulus_from<Int>(j, f);
  check_peer_bits(n, limit, [&](const std::string& why) { f.fail(why); });
  return make_public_key<Int, Tag>(n, insecure, "public key");
}

template <class Int, class Tag>
nlohmann::json public_jwk(const public_key<Int, Tag>& key, std::string_view kid) {
  nlohmann::json j;
  j["kty"] = "DAJ";
  j["alg"] = "PAI-GN1";
  j["key_ops"] = nlohmann::json::array({"encrypt"});
  j["n"] = privet::detail::base64url_encode(privet::detail::be_bytes(key.n()));
  if (!kid.empty()) j["kid"] = std::string(kid);
  return j;
}

inline void check_kid(std::string_view kid) {
  for (char c : kid) {
    if (c < 0x20 || c > 0x7e) {
      throw invalid_parameter("kid",
                              "privet: kid has a character outside printable ASCII; allowed: "
                              "printable ASCII (python-paillier's \"any ascii string\")");
    }
  }
}

// The primes of n = p q from a multiple M of Carmichael's lambda(n).
// Directly first: python-paillier's lambda is phi(n) or lcm(p - 1, q - 1) =
// phi(n) / g, and then g = floor(n / M) or one more (n / phi(n) = 1 + (p + q -
// 1) / phi(n) exceeds 1 by about 2^(1 - bits/2)), p + q = n - g M + 1 and p,
// q are the roots of x^2 - (p + q) x + n: one square root. Otherwise Miller
// (1976): with M = 2^s t, t odd, some a^(2^i t) is a square root of 1 other
// than +-1 for at least half of all bases a when n has two distinct prime
// factors, and gcd(that root - 1, n) is a factor. Bases uniform in [2, n -
// 2] from the reader's generator (fixed bases would let a crafted key pass
// them all), at most lambda_factoring_bases of them. Not constant time.
template <class Int, class G>
std::pair<Int, Int> factor_with_lambda(const Int& n, const Int& m, G& gen, const json_fields& f) {
  using privet::detail::bits_of;
  const Int g0 = n / m;
  for (Int g = g0; g <= g0 + 1; ++g) {
    if (g == 0) continue;
    const Int phi = m * g;
    if (phi >= n) continue;
    const Int s = n - phi + 1;  // p + q if phi is phi(n)
    if (bits_of(s) > bits_of(n) / 2 + 2) continue;
    const Int s2 = s * s;
    const Int four_n = 4 * n;
    if (s2 < four_n) continue;
    const Int disc = s2 - four_n;  // (p - q)^2
    const Int root = boost::multiprecision::sqrt(disc);
    if (root * root != disc || boost::multiprecision::bit_test(Int(s - root), 0)) continue;
    const Int p = (s - root) / 2;
    if (p > 1 && Int(p * Int(s - p)) == n) return {p, Int(s - p)};
  }
  const privet::detail::modular<Int> mod(n);
  Int t = m;
  std::size_t s = 0;
  while (!boost::multiprecision::bit_test(t, 0)) {
    t >>= 1;
    ++s;
  }
  const std::size_t bits = bits_of(t);
  const Int minus_one = n - 1;
  const Int bases = n - 3;  // [2, n - 2]
  for (unsigned round = 0; round < lambda_factoring_bases; ++round) {
    const Int a = Int(privet::uniform_below(gen, bases) + 2);
    Int x = mod.pow_secret(a, t, bits);
    if (x == 1 || x == minus_one) continue;
    bool met_minus_one = false;
    for (std::size_t i = 0; i < s; ++i) {
      Int y = mod.mul(x, x);
      if (y == 1) {  // x is a square root of 1 other than +-1
        const Int p = boost::multiprecision::gcd(Int(x - 1), n);
        return {p, Int(n / p)};
      }
      if (y == minus_one) {
        met_minus_one = true;
        break;
      }
      x = std::move(y);
    }
    // Neither 1 nor -1 in the chain: a^M != 1, so M is no multiple of lambda(n).
    if (!met_minus_one) f.fail("\"lambda\" is not a multiple of Carmichael's lambda(n) for this n");
  }
  f.fail("\"lambda\" did not factor n in " + std::to_string(lambda_factoring_bases) +
         " random bases (is n a product of two primes?)");
}

// n's sign, parity and length, as the public key constructor checks them
// first, without the rest (a key from primes needs no more).
template <class Int, class Tag>
void check_modulus_size(const Int& n, bool insecure) {
  rethrow_as_malformed("public key", [&] {
    if (n <= 0 || !boost::multiprecision::bit_test(n, 0)) {
      throw invalid_parameter("n",
                              "privet: n is not a positive odd integer; allowed: an odd "
                              "modulus n = p q");
    }
    paillier::detail::check_key_bits<Int>(privet::detail::bits_of(n), insecure);
    return 0;
  });
}

// The private key of checked primes p, q, with the readers' rounds.
template <class Int, class Tag, class G>
private_key<Int, Tag> key_from_read_primes(const Int& p, const Int& q, G& gen, bool insecure) {
  const unsigned rounds = reader_prime_rounds(privet::detail::bits_of(p));
  return rethrow_as_malformed("private key", [&] {
    return paillier::detail::access::from_primes<Int, Tag>(p, q, gen, insecure, rounds);
  });
}

// Cheapest first: the layout, n's length, then p q = n (or lambda's
// consistency), and only then primality or factoring.
template <class Int, class Tag, class G>
private_key<Int, Tag> private_key_from(const nlohmann::json& j, bool insecure, G& gen,
                                       const json_fields& f) {
  f.expect_object(j, "the private key");
  if (f.string(f.field(j, "kty"), "kty") != "DAJ") f.fail("\"kty\" is not \"DAJ\"");
  const auto& ops = f.field(j, "key_ops");
  bool decrypt = false;
  if (!ops.is_array()) f.fail("\"key_ops\" is not an array");
  for (const auto& op : ops) decrypt = decrypt || (op.is_string() && op == "decrypt");
  if (!decrypt) f.fail("\"key_ops\" does not contain \"decrypt\"");
  const bool has_primes = j.contains("p") || j.contains("q");
  const Int n = modulus_from<Int>(f.field(j, "pub"), f);
  check_modulus_size<Int, Tag>(n, insecure);
  if (has_primes && (j.contains("lambda") || j.contains("mu"))) {
    f.fail("has both \"p\"/\"q\" and \"lambda\"/\"mu\"; allowed: one of the two layouts");
  }
  const std::size_t bytes = (privet::detail::bits_of(n) + 7) / 8;
  if (has_primes) {  // python-paillier >= 1.3
    const Int p = f.base64<Int>(f.field(j, "p"), "p", bytes);
    const Int q = f.base64<Int>(f.field(j, "q"), "q", bytes);
    if (Int(p * q) != n) f.fail("\"p\" times \"q\" is not the public key's n");
    return key_from_read_primes<Int, Tag>(p, q, gen, insecure);
  }
  const Int lambda = f.base64<Int>(f.field(j, "lambda"), "lambda", bytes);
  const Int mu = f.base64<Int>(f.field(j, "mu"), "mu", bytes);
  if (lambda >= n) f.fail("\"lambda\" is not below n");
  if (mu >= n) f.fail("\"mu\" is not below n");
  // python-paillier decrypts with L(c^lambda mod n^2) mu, which for g = n + 1
  // is right only when mu = lambda^-1 mod n.
  if (Int(lambda * mu % n) != 1) f.fail("\"mu\" is not lambda^-1 mod n");
  // n's form (small factors, perfect powers, primality to base 2) before the
  // factoring: under a prime or a prime power no base would succeed.
  (void)make_public_key<Int, Tag>(n, insecure, "public key");
  const auto primes = factor_with_lambda(n, lambda, gen, f);
  return key_from_read_primes<Int, Tag>(primes.first, primes.second, gen, insecure);
}

// D + e for an encrypted number of exponent e read at scale 16^D, checked
// to lie in the wire band [0, max(max_json_exponent_shift, D)] (also below n's
// length: 16^(D + e) must stay below n to be a scalar). Cheap: no
// arithmetic on the ciphertext.
template <class S, class Int, class Tag>
unsigned exponent_shift(const public_key<Int, Tag>& key, std::int64_t e, const json_fields& f) {
  const std::int64_t d = S::digits;
  if (e < -d) {
    f.fail("exponent " + std::to_string(e) + " is finer than the scale 16^" + std::to_string(d) +
           "; allowed: exponents >= " + std::to_string(-d));
  }
  // (Compared as e <= limit - D: e may be any 64-bit integer.) Exponents up
  // to 0, python-paillier's integers, are always in the band.
  const auto max_shift = std::min(std::max(max_json_exponent_shift, d),
                                  static_cast<std::int64_t>((key.bits() - 1) / 4));
  if (e > max_shift - d) {
    f.fail("exponent " + std::to_string(e) + " is above the band read at scale 16^" +
           std::to_string(d) + " (a factor 16^(D + e) of at most 16^" + std::to_string(max_shift) +
           ", paillier::max_json_exponent_shift); allowed: " + "exponents <= " +
           std::to_string(max_shift - d));
  }
  return static_cast<unsigned>(e + d);
}

// ct moved up by 16^shift: 4 shift squarings modulo n^2.
template <class Int, class Tag>
ciphertext<Int, Tag> rescaled(const ciphertext<Int, Tag>& ct, unsigned shift) {
  if (shift == 0) return ct;
  return ct * Int(Int(1) << (4 * shift));
}

// The ciphertext of an encrypted number of exponent e, moved to scale 16^D.
template <class Int, class S, class Tag>
encrypted_number<Int, S, Tag> number_from(const public_key<Int, Tag>& key, const Int& c,
                                          std::int64_t e, const fixed_point<Int, S>& bound,
                                          const json_fields& f) {
  const unsigned shift = exponent_shift<S>(key, e, f);
  const auto ct = checked_ciphertext(key, c, [&](const std::string& why) { f.fail(why); });
  return encrypted_number<Int, S, Tag>(rescaled(ct, shift), bound);
}

// The list layout read as a stream (nlohmann::json's SAX interface): no
// document tree is built for "values", whose entries are checked as they
// arrive — their form, ciphertext range and exponent band, all cheap — and
// kept as encrypted numbers. "public_key" (a small object) is built as a tree
// and compared with the given key as soon as it closes, before any entry
// after it is read; no key is made from it. The costly per-entry work, gcd(c,
// n) and the rescaling to 16^D, follows once the whole text has passed.
template <class Int, class S, class Tag>
class list_reader {
 public:
  using json = nlohmann::json;
  using number = encrypted_number<Int, S, Tag>;

  list_reader(const public_key<Int, Tag>& given, const fixed_point<Int, S>& entry_bound,
              const privet::detail::quoted_json& quoted, const json_fields& fields)
      : key_(given),
        bound_(entry_bound),
        q_(quoted),
        f_(fields),
        ctx_(paillier::detail::access::context(given)),
        c_limit_(given.n_squared() - 1) {}

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool v) { return scalar(json(v)); }
  bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return scalar(json(v)); }
  bool string(json::string_t& v) { return scalar(json(std::move(v))); }
  bool binary(json::binary_t&) { return scalar(json::binary({})); }
  bool start_object(std::size_t n) {
    path_.open_object();
    if (pk_dom_) return pk_dom_->start_object(n);
    const std::size_t d = path_.depth();
    if (d == 1) return true;  // the document
    if (d == 2 && member_ == member::public_key) {
      pk_dom_.emplace(pk_, false);
      return pk_dom_->start_object(n);
    }
    if (d == 2 && member_ == member::values) f_.fail("\"values\" is not an array");
    if (d == 3 && member_ == member::values) fail_entry();
    if (d == 4 && member_ == member::values) fail_entry();
    return true;  // inside a member read past
  }
  bool key(json::string_t& k) {
    path_.key(k);
    if (pk_dom_) return pk_dom_->key(k);
    if (path_.depth() == 1) {
      member_ = k == "public_key" ? member::public_key
                : k == "values"   ? member::values
                                  : member::other;
      if (member_ == member::public_key && seen_key_) f_.fail("has two \"public_key\" fields");
      if (member_ == member::values && seen_values_) f_.fail("has two \"values\" fields");
    }
    return true;
  }
  bool end_object() {
    path_.close();
    if (pk_dom_) {
      pk_dom_->end_object();
      if (path_.depth() == 1) key_closed();
      return true;
    }
    return true;
  }
  bool start_array(std::size_t n) {
    path_.open_array();
    if (pk_dom_) return pk_dom_->start_array(n);
    const std::size_t d = path_.depth();
    if (d == 1) f_.expect_object(json::array(), "the document");
    if (d == 2 && member_ == member::public_key) f_.expect_object(json::array(), "the public key");
    if (d == 2 && member_ == member::values) seen_values_ = true;
    if (d == 3 && member_ == member::values) slots_ = 0;  // an entry opens
    if (d == 4 && member_ == member::values) fail_entry();
    return true;
  }
  bool end_array() {
    path_.close();
    if (pk_dom_) {
      pk_dom_->end_array();
      return true;
    }
    if (path_.depth() == 2 && member_ == member::values) entry_closed();
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::json::exception& e) {
    privet::detail::throw_json_syntax("encrypted numbers", q_, position, path_, e);
  }

  std::vector<number> finish() {
    if (!seen_key_) f_.fail("has no \"public_key\" field");
    if (!seen_values_) f_.fail("has no \"values\" field");
    // The costly part, once every entry has passed the cheap checks.
    for (std::size_t i = 0; i < out_.size(); ++i) {
      const auto& c = out_[i].ciphertext().value();
      if (shares_factor(c, key_.n())) {
        f_.fail("ciphertext shares a factor with n; allowed: [1, n^2) coprime to n");
      }
    }
    for (std::size_t i = 0; i < out_.size(); ++i) {
      if (shifts_[i] != 0) {
        out_[i] = paillier::detail::number_access::make<Int, S, Tag>(
            rescaled(out_[i].ciphertext(), shifts_[i]), Int(bound_.mantissa()));
      }
    }
    return std::move(out_);
  }

 private:
  enum class member { none, public_key, values, other };

  static std::string entry_name(std::size_t i) { return "values[" + std::to_string(i) + "]"; }
  [[noreturn]] void fail_entry() const {
    f_.fail(entry_name(out_.size()) + " is not a [ciphertext, exponent] pair");
  }

  bool scalar(json v) {
    if (pk_dom_) {
      path_.next();
      return forward(std::move(v));
    }
    const std::size_t d = path_.depth();
    if (d == 0) f_.expect_object(v, "the document");
    if (d == 1 && member_ == member::public_key) f_.expect_object(v, "the public key");
    if (d == 1 && member_ == member::values) f_.fail("\"values\" is not an array");
    if (d == 2 && member_ == member::values) fail_entry();
    if (d == 3 && member_ == member::values) {
      if (slots_ >= 2) fail_entry();
      slot_[slots_++] = std::move(v);
    }
    path_.next();
    return true;
  }
  bool forward(json v) {
    switch (v.type()) {
      case json::value_t::null:
        return pk_dom_->null();
      case json::value_t::boolean:
        return pk_dom_->boolean(v.get<bool>());
      case json::value_t::number_integer:
        return pk_dom_->number_integer(v.get<json::number_integer_t>());
      case json::value_t::number_unsigned:
        return pk_dom_->number_unsigned(v.get<json::number_unsigned_t>());
      case json::value_t::number_float:
        return pk_dom_->number_float(v.get<json::number_float_t>(), {});
      case json::value_t::string:
        return pk_dom_->string(v.get_ref<json::string_t&>());
      default:
        return true;
    }
  }
  void key_closed() {
    pk_dom_.reset();
    seen_key_ = true;
    // Equality with the given key first: no arithmetic on a peer's n.
    const Int n = modulus_from<Int>(pk_, f_);
    if (n != key_.n()) f_.fail("\"public_key\" is not the given key (n differs)");
    pk_ = json();
  }
  void entry_closed() {
    if (slots_ != 2) fail_entry();
    const std::string name = entry_name(out_.size());
    Int c = f_.decimal(slot_[0], name + "[0]", c_limit_);
    const std::int64_t e = f_.integer(slot_[1], name + "[1]");
    const unsigned shift = exponent_shift<S>(key_, e, f_);
    if (c == 0) f_.fail("ciphertext is 0; allowed: [1, n^2) coprime to n");
    slot_[0] = json();
    slot_[1] = json();
    out_.push_back(paillier::detail::number_access::make<Int, S, Tag>(
        paillier::detail::access::make<Int, Tag>(ctx_, std::move(c)), Int(bound_.mantissa())));
    shifts_.push_back(static_cast<std::uint16_t>(shift));
  }

  const public_key<Int, Tag>& key_;
  const fixed_point<Int, S>& bound_;
  const privet::detail::quoted_json& q_;
  const json_fields& f_;
  std::shared_ptr<const paillier::detail::public_context<Int>> ctx_;
  Int c_limit_;
  privet::detail::json_path path_;
  member member_ = member::none;
  bool seen_key_ = false;
  bool seen_values_ = false;
  json pk_;
  std::optional<nlohmann::detail::json_sax_dom_parser<json>> pk_dom_;
  std::array<json, 2> slot_;
  std::size_t slots_ = 0;
  std::vector<number> out_;
  std::vector<std::uint16_t> shifts_;
};

// --- re-randomisation before writing ------------------------------------------------

// c times a fresh randomiser of `key` (its mode and pool); throws
// invalid_parameter when c is under another key.
template <class Int, class Tag, class G>
Int fresh_value(const ciphertext<Int, Tag>& c, const public_key<Int, Tag>& key, G& gen) {
  return key.rerandomize(c, gen).value();
}
template <class Int, class Tag, class G>
Int fresh_value(const ciphertext<Int, Tag>& c, G& gen) {
  return fresh_value(c, c.key(), gen);
}

// --- dispatch by type -----------------------------------------------------------

template <class T>
struct wire_format {
  static constexpr bool specialized = false;
};

template <integer Int, key_tag Tag>
struct wire_format<public_key<Int, Tag>> {
  static constexpr bool specialized = true;
  static public_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes, bool insecure,
                                          const peer_key_limit& limit) {
    check_peer_limit(limit);
    auto r = open_reader(bytes, wire_kind::public_key);
    const Int n = r.template integer<Int>("n", max_modulus_bytes<Int>());
    r.finish();
    check_peer_bits(n, limit, [&](const std::string& why) { r.fail(why); });
    return make_public_key<Int, Tag>(n, insecure, "public key");
  }
  static public_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes,
                                          bool insecure = false) {
    return from_binary(bytes, insecure, peer_key_limit{});
  }
  static public_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes, allow_insecure_t) {
    return from_binary(bytes, true, peer_key_limit{});
  }
  static public_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes,
                                          const peer_key_limit& limit) {
    return from_binary(bytes, false, limit);
  }
  static public_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes, allow_insecure_t,
                                          const peer_key_limit& limit) {
    return from_binary(bytes, true, limit);
  }
  static public_key<Int, Tag> from_json(std::string_view text, bool insecure,
                                        const peer_key_limit& limit) {
    check_peer_limit(limit);
    const json_fields f("public key");
    return public_key_from<Int, Tag>(privet::detail::parse_json(text, "public key"), insecure, f,
                                     limit);
  }
  static public_key<Int, Tag> from_json(std::string_view text, bool insecure = false) {
    return from_json(text, insecure, peer_key_limit{});
  }
  static public_key<Int, Tag> from_json(std::string_view text, allow_insecure_t) {
    return from_json(text, true, peer_key_limit{});
  }
  static public_key<Int, Tag> from_json(std::string_view text, const peer_key_limit& limit) {
    return from_json(text, false, limit);
  }
  static public_key<Int, Tag> from_json(std::string_view text, allow_insecure_t,
                                        const peer_key_limit& limit) {
    return from_json(text, true, limit);
  }
};

template <integer Int, key_tag Tag>
struct wire_format<private_key<Int, Tag>> {
  static constexpr bool specialized = true;
  template <random_bit_source G>
  static private_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes, G& gen,
                                           bool insecure) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    auto r = open_reader(bytes, wire_kind::private_key);
    const std::size_t half = (modulus_bits_limit<Int>() / 2 + 7) / 8;
    const Int p = r.template integer<Int>("p", half);
    const Int q = r.template integer<Int>("q", half);
    r.finish();
    return key_from_read_primes<Int, Tag>(p, q, gen, insecure);
  }
  static private_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes) {
    return from_binary(bytes, secure_generator(), false);
  }
  static private_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes, allow_insecure_t) {
    return from_binary(bytes, secure_generator(), true);
  }
  template <random_bit_source G>
  static private_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    return from_binary(bytes, gen, false);
  }
  template <random_bit_source G>
  static private_key<Int, Tag> from_binary(std::span<const std::uint8_t> bytes, G& gen,
                                           allow_insecure_t) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    return from_binary(bytes, gen, true);
  }
  template <random_bit_source G>
  static private_key<Int, Tag> from_json(std::string_view text, G& gen, bool insecure) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    const json_fields f("private key");
    return private_key_from<Int, Tag>(privet::detail::parse_json(text, "private key"), insecure,
                                      gen, f);
  }
  static private_key<Int, Tag> from_json(std::string_view text) {
    return from_json(text, secure_generator(), false);
  }
  static private_key<Int, Tag> from_json(std::string_view text, allow_insecure_t) {
    return from_json(text, secure_generator(), true);
  }
  template <random_bit_source G>
  static private_key<Int, Tag> from_json(std::string_view text, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    return from_json(text, gen, false);
  }
  template <random_bit_source G>
  static private_key<Int, Tag> from_json(std::string_view text, G& gen, allow_insecure_t) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    return from_json(text, gen, true);
  }
};

template <integer Int, key_tag Tag>
struct wire_format<ciphertext<Int, Tag>> {
  static constexpr bool specialized = true;
  static ciphertext<Int, Tag> from_binary(std::span<const std::uint8_t> bytes,
                                          const public_key<Int, Tag>& key) {
    auto r = open_reader(bytes, wire_kind::ciphertext);
    read_fingerprint(r, key);
    const Int c = r.template integer<Int>("c", (2 * key.bits() + 7) / 8);
    r.finish();
    return checked_ciphertext(key, c, [&](const std::string& why) { r.fail(why); });
  }
  static ciphertext<Int, Tag> from_json(std::string_view text, const public_key<Int, Tag>& key) {
    const json_fields f("ciphertext");
    const auto j = privet::detail::parse_json(text, "ciphertext");
    f.expect_object(j, "the ciphertext");
    if (j.contains("e") && f.integer(j["e"], "e") != 0) {
      f.fail("\"e\" is not 0 (an encrypted number with an exponent: read it as one)");
    }
    const Int c = f.decimal(f.field(j, "v"), "v", Int(key.n_squared() - 1));
    return checked_ciphertext(key, c, [&](const std::string& why) { f.fail(why); });
  }
};

template <integer Int, fixed_point_scale S, key_tag Tag>
struct wire_format<encrypted_number<Int, S, Tag>> {
  static constexpr bool specialized = true;
  static encrypted_number<Int, S, Tag> from_binary(std::span<const std::uint8_t> bytes,
                                                   const public_key<Int, Tag>& key) {
    auto r = open_reader(bytes, wire_kind::encrypted_number);
    read_fingerprint(r, key);
    const std::uint32_t base = r.u32();
    const std::uint32_t digits = r.u32();
    if (base != S::base || digits != S::digits) {
      r.fail("scale " + std::to_string(base) + "^" + std::to_string(digits) + "; expected " +
             scale_text<S>());
    }
    const Int bound = r.template integer<Int>("bound", (key.bits() + 7) / 8);
    const Int c = r.template integer<Int>("c", (2 * key.bits() + 7) / 8);
    r.finish();
    if (bound > key.max_signed()) r.fail("bound exceeds (n-1)/2");
    auto ct = checked_ciphertext(key, c, [&](const std::string& why) { r.fail(why); });
    return encrypted_number<Int, S, Tag>(std::move(ct), fixed_point<Int, S>::from_mantissa(bound));
  }
  static encrypted_number<Int, S, Tag> from_json(
      std::string_view text, const public_key<Int, Tag>& key,
      const fixed_point<Int, S>& bound) requires hex_scale_type<S> {
    check_bound(bound.mantissa(), bound_limit<Int>(key));  // the caller's, not the input's
    const json_fields f("encrypted number");
    const auto j = privet::detail::parse_json(text, "encrypted number");
    f.expect_object(j, "the encrypted number");
    const Int c = f.decimal(f.field(j, "v"), "v", Int(key.n_squared() - 1));
    const std::int64_t e = f.integer(f.field(j, "e"), "e");
    return number_from(key, c, e, bound, f);
  }
};

template <integer Int, hex_scale_type S, key_tag Tag>
struct wire_format<std::vector<encrypted_number<Int, S, Tag>>> {
  static constexpr bool specialized = true;
  static std::vector<encrypted_number<Int, S, Tag>> from_json(std::string_view text,
                                                              const public_key<Int, Tag>& key,
                                                              const fixed_point<Int, S>& bound) {
    check_bound(bound.mantissa(), bound_limit<Int>(key));  // the caller's, not the input's
    const json_fields f("encrypted numbers");
    const auto q = privet::detail::quote_long_integers(text, "encrypted numbers");
    list_reader<Int, S, Tag> reader(key, bound, q, f);
    nlohmann::json::sax_parse(q.text.begin(), q.text.end(), &reader);
    return reader.finish();
  }
};

}  // namespace detail

/// A type with a serialised form here: public_key, private_key, ciphertext,
/// encrypted_number (and, in JSON, a vector of encrypted numbers).
template <class T>
concept serializable = detail::wire_format<T>::specialized;

// --- binary ----------------------------------------------------------------------

/// The binary form of a public key: n (kind 1; see the file comment).
template <integer Int, key_tag Tag>
std::vector<std::uint8_t> serialize(const public_key<Int, Tag>& key) {
  auto w = detail::open_writer(detail::wire_kind::public_key);
  w.integer(key.n());
  return w.take();
}
/// The primes (everything else is derived from them). Secret: protect it.
template <integer Int, key_tag Tag>
std::vector<std::uint8_t> serialize(const private_key<Int, Tag>& key) {
  auto w = detail::open_writer(detail::wire_kind::private_key);
  w.integer(key.p());
  w.integer(key.q());
  return w.take();
}
namespace detail {

template <class Int, class Tag>
std::vector<std::uint8_t> ciphertext_bytes(const public_key<Int, Tag>& key, const Int& value) {
  auto w = open_writer(wire_kind::ciphertext);
  w.bytes(privet::detail::fingerprint_of(key.n()));
  w.integer(value);
  return w.take();
}
template <class S, class Int, class Tag>
std::vector<std::uint8_t> number_bytes(const public_key<Int, Tag>& key, const Int& bound,
                                       const Int& value) {
  auto w = open_writer(wire_kind::encrypted_number);
  w.bytes(privet::detail::fingerprint_of(key.n()));
  w.u32(S::base);
  w.u32(S::digits);
  w.integer(bound);
  w.integer(value);
  return w.take();
}

}  // namespace detail

/// The ciphertext, re-randomised first (see the file comment) by a fresh
/// randomiser of `key` (its mode and pool; invalid_parameter if c is under
/// another key) with randomness from `gen`.
template <integer Int, key_tag Tag, random_bit_source G>
std::vector<std::uint8_t> serialize(const ciphertext<Int, Tag>& c, const public_key<Int, Tag>& key,
                                    G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return detail::ciphertext_bytes(key, detail::fresh_value(c, key, gen));
}
/// As above, with randomness from this thread's secure generator.
template <integer Int, key_tag Tag>
std::vector<std::uint8_t> serialize(const ciphertext<Int, Tag>& c,
                                    const public_key<Int, Tag>& key) {
  return serialize(c, key, secure_generator());
}
/// Re-randomised by c's own key (textbook mode, no pool).
template <integer Int, key_tag Tag, random_bit_source G>
std::vector<std::uint8_t> serialize(const ciphertext<Int, Tag>& c, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return serialize(c, c.key(), gen);
}
/// Re-randomised by c's own key, with randomness from this thread's secure
/// generator.
template <integer Int, key_tag Tag>
std::vector<std::uint8_t> serialize(const ciphertext<Int, Tag>& c) {
  return serialize(c, c.key(), secure_generator());
}
/// Exactly c, not re-randomised: only for a fresh encryption.
template <integer Int, key_tag Tag>
std::vector<std::uint8_t> serialize(const ciphertext<Int, Tag>& c, already_randomised_t) {
  return detail::ciphertext_bytes(c.key(), c.value());
}

/// The encrypted number (kind 4: key fingerprint, scale, bound and
/// ciphertext), its ciphertext re-randomised first as a ciphertext's (same
/// overloads): by `key` (invalid_parameter if x is under another key) with
/// randomness from `gen`.
template <integer Int, fixed_point_scale S, key_tag Tag, random_bit_source G>
std::vector<std::uint8_t> serialize(const encrypted_number<Int, S, Tag>& x,
                                    const public_key<Int, Tag>& key, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return detail::number_bytes<S>(key, x.bound_mantissa(),
                                 detail::fresh_value(x.ciphertext(), key, gen));
}
/// As above, with randomness from this thread's secure generator.
template <integer Int, fixed_point_scale S, key_tag Tag>
std::vector<std::uint8_t> serialize(const encrypted_number<Int, S, Tag>& x,
                                    const public_key<Int, Tag>& key) {
  return serialize(x, key, secure_generator());
}
/// Re-randomised by x's own key (textbook mode, no pool).
template <integer Int, fixed_point_scale S, key_tag Tag, random_bit_source G>
std::vector<std::uint8_t> serialize(const encrypted_number<Int, S, Tag>& x, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return serialize(x, x.key(), gen);
}
/// Re-randomised by x's own key, with randomness from this thread's secure
/// generator.
template <integer Int, fixed_point_scale S, key_tag Tag>
std::vector<std::uint8_t> serialize(const encrypted_number<Int, S, Tag>& x) {
  return serialize(x, x.key(), secure_generator());
}
/// Exactly x's ciphertext, not re-randomised: only for a fresh encryption.
template <integer Int, fixed_point_scale S, key_tag Tag>
std::vector<std::uint8_t> serialize(const encrypted_number<Int, S, Tag>& x, already_randomised_t) {
  return detail::number_bytes<S>(x.key(), x.bound_mantissa(), x.ciphertext().value());
}

/// Reads the binary form of T:
///  - public_key<Int>: (bytes) or (bytes, allow_insecure);
///  - private_key<Int>: (bytes[, gen][, allow_insecure]) — the primes are
///    checked by Miller–Rabin with bases from gen (default: the CSPRNG);
///  - ciphertext<Int>: (bytes, key);
///  - encrypted_number<Int, S>: (bytes, key).
/// Throws serialization_error for anything but an exact encoding of a valid T
/// (of an allowed key size, under `key`).
template <serializable T, class... Args>
T deserialize(std::span<const std::uint8_t> bytes, Args&&... args) {
  return detail::wire_format<T>::from_binary(bytes, std::forward<Args>(args)...);
}

// --- JSON ------------------------------------------------------------------------

/// python-paillier's basic layout {"g": "...", "n": "..."} (decimal strings).
template <integer Int, key_tag Tag>
std::string to_json(const public_key<Int, Tag>& key) {
  nlohmann::json j;
  j["n"] = key.n().str();
  j["g"] = Int(key.n() + 1).str();
  return j.dump();
}
/// python-paillier's JWK public key (kty "DAJ", alg "PAI-GN1", n in
/// base64url); `kid` printable ASCII (else invalid_parameter).
template <integer Int, key_tag Tag>
std::string to_jwk(const public_key<Int, Tag>& key, std::string_view kid = "") {
  detail::check_kid(kid);
  return detail::public_jwk(key, kid).dump();
}
/// python-paillier's JWK private key as its command line writes it since
/// 1.3: the primes "p" and "q" (base64url) and the public JWK under "pub".
/// Secret: protect it.
template <integer Int, key_tag Tag>
std::string to_jwk(const private_key<Int, Tag>& key, std::string_view kid = "") {
  detail::check_kid(kid);
  nlohmann::json j;
  j["kty"] = "DAJ";
  j["key_ops"] = nlohmann::json::array({"decrypt"});
  j["p"] = privet::detail::base64url_encode(privet::detail::be_bytes(key.p()));
  j["q"] = privet::detail::base64url_encode(privet::detail::be_bytes(key.q()));
  j["pub"] = detail::public_jwk(key.public_key(), kid);
  if (!kid.empty()) j["kid"] = std::string(kid);
  return j.dump();
}
namespace detail {

// {"v": value, "e": exponent}: python-paillier's command-line layout.
template <class Int>
std::string value_json(const Int& value, std::int64_t exponent) {
  nlohmann::json j;
  j["v"] = value.str();
  j["e"] = exponent;
  return j.dump();
}

// The list layout; `value(i)` gives the i-th ciphertext value to write.
template <class Int, class S, class Tag, class Value>
std::string list_json(const public_key<Int, Tag>& key,
                      std::span<const encrypted_number<Int, S, Tag>> xs, Value value) {
  // Every key is checked before any randomiser is drawn (a pool's are not
  // spent on a list that is refused).
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (!(xs[i].key() == key)) {
      throw invalid_parameter("values", "privet: values[" + std::to_string(i) +
                                            "] is under a different public key; allowed: "
                                            "numbers under the given key");
    }
  }
  nlohmann::json j;
  j["public_key"] = nlohmann::json::parse(paillier::to_json(key));
  j["values"] = nlohmann::json::array();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    j["values"].push_back(
        nlohmann::json::array({value(i).str(), -static_cast<std::int64_t>(S::digits)}));
  }
  return j.dump();
}

}  // namespace detail

/// {"e": 0, "v": "<decimal>"}: a ciphertext as python-paillier's encrypted
/// integer (exponent 0), re-randomised first (see the file comment) by a
/// fresh randomiser of `key` (its mode and pool; invalid_parameter if c is
/// under another key) with randomness from `gen`.
template <integer Int, key_tag Tag, random_bit_source G>
std::string to_json(const ciphertext<Int, Tag>& c, const public_key<Int, Tag>& key, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return detail::value_json(detail::fresh_value(c, key, gen), 0);
}
/// As above, with randomness from this thread's secure generator.
template <integer Int, key_tag Tag>
std::string to_json(const ciphertext<Int, Tag>& c, const public_key<Int, Tag>& key) {
  return to_json(c, key, secure_generator());
}
/// Re-randomised by c's own key (textbook mode, no pool).
template <integer Int, key_tag Tag, random_bit_source G>
std::string to_json(const ciphertext<Int, Tag>& c, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return to_json(c, c.key(), gen);
}
/// Re-randomised by c's own key, with randomness from this thread's secure
/// generator.
template <integer Int, key_tag Tag>
std::string to_json(const ciphertext<Int, Tag>& c) {
  return to_json(c, c.key(), secure_generator());
}
/// Exactly c, not re-randomised: only for a fresh encryption.
template <integer Int, key_tag Tag>
std::string to_json(const ciphertext<Int, Tag>& c, already_randomised_t) {
  return detail::value_json(c.value(), 0);
}

/// {"e": -D, "v": "<decimal ciphertext>"}: python-paillier's command-line
/// layout of an EncryptedNumber (value = mantissa * 16^e), the ciphertext
/// re-randomised first as a ciphertext's (same overloads): by `key`
/// (invalid_parameter if x is under another key) with randomness from
/// `gen`. The bound is not written (python-paillier has none).
template <integer Int, hex_scale_type S, key_tag Tag, random_bit_source G>
std::string to_json(const encrypted_number<Int, S, Tag>& x, const public_key<Int, Tag>& key,
                    G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return detail::value_json(detail::fresh_value(x.ciphertext(), key, gen),
                            -static_cast<std::int64_t>(S::digits));
}
/// As above, with randomness from this thread's secure generator.
template <integer Int, hex_scale_type S, key_tag Tag>
std::string to_json(const encrypted_number<Int, S, Tag>& x, const public_key<Int, Tag>& key) {
  return to_json(x, key, secure_generator());
}
/// Re-randomised by x's own key (textbook mode, no pool).
template <integer Int, hex_scale_type S, key_tag Tag, random_bit_source G>
std::string to_json(const encrypted_number<Int, S, Tag>& x, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return to_json(x, x.key(), gen);
}
/// Re-randomised by x's own key, with randomness from this thread's secure
/// generator.
template <integer Int, hex_scale_type S, key_tag Tag>
std::string to_json(const encrypted_number<Int, S, Tag>& x) {
  return to_json(x, x.key(), secure_generator());
}
/// Exactly x's ciphertext, not re-randomised: only for a fresh encryption.
template <integer Int, hex_scale_type S, key_tag Tag>
std::string to_json(const encrypted_number<Int, S, Tag>& x, already_randomised_t) {
  return detail::value_json(x.ciphertext().value(), -static_cast<std::int64_t>(S::digits));
}

/// python-paillier's documented list layout: {"public_key": {"g", "n"},
/// "values": [["<ciphertext>", -D], ...]}, each ciphertext re-randomised
/// first by a fresh randomiser of `key` (its mode and pool) with randomness
/// from `gen`; invalid_parameter if a number is under another key.
template <integer Int, hex_scale_type S, key_tag Tag, random_bit_source G>
std::string to_json(const public_key<Int, Tag>& key,
                    std::span<const encrypted_number<Int, S, Tag>> xs, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  return detail::list_json(
      key, xs, [&](std::size_t i) { return key.rerandomize(xs[i].ciphertext(), gen).value(); });
}
/// As above, with randomness from this thread's secure generator.
template <integer Int, hex_scale_type S, key_tag Tag>
std::string to_json(const public_key<Int, Tag>& key,
                    std::span<const encrypted_number<Int, S, Tag>> xs) {
  return to_json(key, xs, secure_generator());
}
/// Exactly the ciphertexts, not re-randomised: only for fresh encryptions.
template <integer Int, hex_scale_type S, key_tag Tag>
std::string to_json(const public_key<Int, Tag>& key,
                    std::span<const encrypted_number<Int, S, Tag>> xs, already_randomised_t) {
  return detail::list_json(key, xs, [&](std::size_t i) { return xs[i].ciphertext().value(); });
}

/// Reads the JSON form of T:
///  - public_key<Int>: (text) or (text, allow_insecure), basic or JWK layout;
///  - private_key<Int>: (text[, gen][, allow_insecure]), JWK layout with
///    "p" and "q" or with "lambda" and "mu";
///  - ciphertext<Int>: (text, key);
///  - encrypted_number<Int, S> (S = hex_scale<D>): (text, key, bound), the
///    bound being the public bound the protocol guarantees;
///  - std::vector<encrypted_number<Int, S>>: (text, key, bound), the list
///    layout, whose "public_key" must be `key`.
/// Throws serialization_error naming what is wrong.
template <serializable T, class... Args>
T from_json(std::string_view text, Args&&... args) {
  return detail::wire_format<T>::from_json(text, std::forward<Args>(args)...);
}

}  // namespace privet::paillier
