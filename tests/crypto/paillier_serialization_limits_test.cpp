// Hostile input to the Paillier readers (privet/crypto/paillier_serialization.hpp)
// and weak moduli (privet/crypto/detail/modulus_checks.hpp), issue 32 items 4
// and 5: the cheap checks come first and name what they refuse (a list's
// embedded key is compared before it is tested, a bad entry is refused before
// any entry is rescaled, a peer's key is measured before it is used), weak
// moduli (n = P^2, n = 3 m, n = a^3, a factor just below the trial-division
// bound) are refused naming the check, and no syntax error in a private key's
// JSON quotes the key. Timing and memory of the same inputs at full size are
// in bench/paillier_readers_bench.cpp, not here.
#include <privet/core/error.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/detail/modulus_checks.hpp>
#include <privet/crypto/detail/primes.hpp>
#include <privet/crypto/paillier_serialization.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <nlohmann/json.hpp>
#include <support/paillier_backends.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mp = boost::multiprecision;
namespace paillier = privet::paillier;
using mp::cpp_int;

namespace {

using S = paillier::hex_scale<4>;

using privet::test::malformed;

using privet::test::invalid;

template <class Int>
std::string b64(const Int& x) {
  return privet::detail::base64url_encode(privet::detail::be_bytes(x));
}

// Whether some `window`-character piece of `secret` appears in `text`.
bool leaks(const std::string& text, const std::string& secret, std::size_t window = 8) {
  if (secret.size() < window) return text.find(secret) != std::string::npos;
  for (std::size_t i = 0; i + window <= secret.size(); ++i) {
    if (text.find(secret.substr(i, window)) != std::string::npos) return true;
  }
  return false;
}

// A random odd number of `bits` bits (top bit set) without a prime factor
// below the trial-division bound: a composite with overwhelming probability,
// and the cheapest n the public key constructor accepts.
template <class Int, class G>
Int rough_odd(std::size_t bits, G& gen) {
  for (;;) {
    Int x = privet::random_bits<Int>(gen, bits);
    mp::bit_set(x, static_cast<unsigned>(bits - 1));
    mp::bit_set(x, 0);
    if (privet::detail::small_factor_of(x) == 0) return x;
  }
}

}  // namespace

TEST_CASE_TEMPLATE("weak moduli are refused by the public key, naming the check", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(3201);
  const Int p = privet::detail::random_prime<Int>(128, gen);
  const Int q = privet::detail::random_prime<Int>(128, gen);
  const std::string pre = "privet: ";
  // n = P^2: every ciphertext gives its plaintext to anyone.
  CHECK(invalid([&] { (void)paillier::public_key<Int>(Int(p * p), paillier::allow_insecure); }) ==
        pre + "n is a perfect power (n = a^2); allowed: n = p q, a product of two distinct primes");
  // n = a^3 (a = a 86-bit prime).
  const Int a = privet::detail::random_prime<Int>(86, gen);
  CHECK(
      invalid([&] { (void)paillier::public_key<Int>(Int(a * a * a), paillier::allow_insecure); }) ==
      pre + "n is a perfect power (n = a^3); allowed: n = p q, a product of two distinct primes");
  // n = 3 m: every ciphertext tells its plaintext mod 3.
  CHECK(
      invalid([&] { (void)paillier::public_key<Int>(Int(3 * p * q), paillier::allow_insecure); }) ==
      pre +
          "n has the prime factor 3 (trial division by the primes below 32768); allowed: n = p "
          "q, a product of two large primes");
  // The largest prime below the bound, 32749, is found; a product of two
  // primes above it is not a false alarm.
  CHECK(invalid([&] {
          (void)paillier::public_key<Int>(Int(32749 * p * q), paillier::allow_insecure);
        }) ==
        pre +
            "n has the prime factor 32749 (trial division by the primes below 32768); allowed: n "
            "= p q, a product of two large primes");
  CHECK(invalid([&] {
          (void)paillier::public_key<Int>(Int(p * q), paillier::allow_insecure);
        }).empty());
  CHECK(privet::detail::perfect_power_exponent(Int(p * q)) == 0);
  CHECK(privet::detail::small_factor_of(Int(32771) * p) == 0);  // 32771 is prime, above the bound

  // The same through each public key reader, as serialization_error.
  const Int square = p * p;
  const std::string jpre = "privet: malformed Paillier public key: ";
  CHECK(malformed([&] {
          (void)paillier::from_json<paillier::public_key<Int>>(R"({"n": ")" + square.str() + "\"}",
                                                               paillier::allow_insecure);
        }) == jpre +
                  "n is a perfect power (n = a^2); allowed: n = p q, a product of two "
                  "distinct primes");
  privet::detail::paillier_writer w;
  w.bytes(std::vector<std::uint8_t>{'P', 'V', 'P', 'L', 1, 1});
  w.integer(Int(3 * p * q));
  const auto b = w.take();
  CHECK(malformed([&] {
          (void)paillier::deserialize<paillier::public_key<Int>>(b, paillier::allow_insecure);
        }) == jpre +
                  "n has the prime factor 3 (trial division by the primes below 32768); allowed: "
                  "n = p q, a product of two large primes");
  // A private key in the {lambda, mu} layout under n = P^2 (lambda = P - 1,
  // mu its inverse): refused by n's form before any factoring is tried.
  const Int lam = p - 1;
  const Int mu = paillier::detail::inverse_public(Int(lam % square), square);
  const std::string jwk =
      R"({"kty": "DAJ", "key_ops": ["decrypt"], "lambda": ")" + b64(lam) + R"(", "mu": ")" +
      b64(mu) + R"(", "pub": {"kty": "DAJ", "alg": "PAI-GN1", "n": ")" + b64(square) + "\"}}";
  CHECK(malformed([&] {
          (void)paillier::from_json<paillier::private_key<Int>>(jwk, gen, paillier::allow_insecure);
        }) == jpre +
                  "n is a perfect power (n = a^2); allowed: n = p q, a product of two "
                  "distinct primes");
}

TEST_CASE_TEMPLATE("a peer's public key is measured before it is used", Int,
                   boost::multiprecision::cpp_int) {
  privet::testing::seeded_release_generator gen(3202);
  // A 4200-bit n: above max_peer_key_bits, refused before any arithmetic.
  const Int n = rough_odd<Int>(4200, gen);
  const std::string jpre = "privet: malformed Paillier public key JSON: ";
  const std::string refusal =
      "n has 4200 bits; allowed from another party: at most 4096 "
      "(paillier::max_peer_key_bits = 4096; pass crypto::peer_key_limit{bits} for more)";
  CHECK(malformed([&] {
          (void)paillier::from_json<paillier::public_key<Int>>(R"({"n": ")" + n.str() + "\"}");
        }) == jpre + refusal);
  privet::detail::paillier_writer w;
  w.bytes(std::vector<std::uint8_t>{'P', 'V', 'P', 'L', 1, 1});
  w.integer(n);
  const auto b = w.take();
  CHECK(malformed([&] { (void)paillier::deserialize<paillier::public_key<Int>>(b); }) ==
        "privet: malformed Paillier public key: " + refusal);
  // Accepted when the reader asks for it.
  const auto k =
      paillier::deserialize<paillier::public_key<Int>>(b, privet::crypto::peer_key_limit{8192});
  CHECK(k.n() == n);
  CHECK(paillier::from_json<paillier::public_key<Int>>(R"({"n": ")" + n.str() + "\"}",
                                                       privet::crypto::peer_key_limit{4200})
            .n() == n);
  CHECK(invalid([&] {
          (void)paillier::deserialize<paillier::public_key<Int>>(
              b, privet::crypto::peer_key_limit{20000});
        }) == "privet: peer_key_limit.bits = 20000 is invalid; allowed: [128, 16384]");
}

TEST_CASE_TEMPLATE("a list is checked cheaply in full before any entry costs an exponentiation",
                   Int, PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(3203);
  const auto keys = privet::test::small_keys<Int>(256, 3203);
  const auto& pk = keys.public_key;
  const auto bound = privet::paillier::fixed_point<Int, S>::from_mantissa(Int(1000));
  const auto read = [&](const std::string& text) {
    return malformed([&] {
      (void)paillier::from_json<std::vector<paillier::encrypted_number<Int, S>>>(text, pk, bound);
    });
  };
  const std::string pre = "privet: malformed Paillier encrypted numbers JSON: ";
  const std::string key = paillier::to_json(pk);
  const std::string c = pk.encrypt(Int(5), gen).value().str();
  // The widest exponent of the wire band, then one above it.
  std::string ok =
      R"({"public_key": )" + key + R"(, "values": [[")" + c + R"(", 12], [")" + c + R"(", -4]]})";
  const auto xs =
      paillier::from_json<std::vector<paillier::encrypted_number<Int, S>>>(ok, pk, bound);
  REQUIRE(xs.size() == 2);
  CHECK(keys.private_key.decrypt(xs[0].ciphertext()) == Int(5) * (Int(1) << 64));
  CHECK(keys.private_key.decrypt(xs[1].ciphertext()) == 5);
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [[")" + c + R"(", 13]]})") ==
        pre +
            "exponent 13 is above the band read at scale 16^4 (a factor 16^(D + e) of at most "
            "16^16, paillier::max_json_exponent_shift); allowed: exponents <= 12");
  // A bad last entry: refused by its own check (the earlier entries shared
  // a factor with n would be found only later).
  const std::string p_text = keys.private_key.p().str();
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [[")" + p_text + R"(", 12], [")" + c +
             R"(", -4], ["0", -4]]})") == pre + "ciphertext is 0; allowed: [1, n^2) coprime to n");
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [[")" + p_text + R"(", 12]]})") ==
        pre + "ciphertext shares a factor with n; allowed: [1, n^2) coprime to n");
  // The embedded key is compared with the given key before anything else:
  // a 16384-bit composite, or a prime, is "not the given key", never tested.
  const Int big =
      (Int(1) << static_cast<unsigned>(paillier::detail::modulus_bits_limit<Int>() - 1)) + 1;
  CHECK(read(R"({"public_key": {"n": ")" + big.str() + R"("}, "values": []})") ==
        pre + "\"public_key\" is not the given key (n differs)");
  CHECK(read(R"({"public_key": {"n": ")" + keys.private_key.p().str() +
             R"("}, "values": [["1", -4]]})") ==
        pre + "\"public_key\" is not the given key (n differs)");
  // The layout's form.
  CHECK(read("[]") == pre + "the document is an array; allowed: an object");
  CHECK(read(R"({"values": []})") == pre + "has no \"public_key\" field");
  CHECK(read(R"({"public_key": )" + key + "}") == pre + "has no \"values\" field");
  CHECK(read(R"({"public_key": )" + key + R"(, "values": {}})") ==
        pre + "\"values\" is not an array");
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [["1"]]})") ==
        pre + "values[0] is not a [ciphertext, exponent] pair");
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [["1", -4], ["1", -4, 0]]})") ==
        pre + "values[1] is not a [ciphertext, exponent] pair");
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [["1", [-4]]]})") ==
        pre + "values[0] is not a [ciphertext, exponent] pair");
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [["1", -4]], "values": []})") ==
        pre + "has two \"values\" fields");
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [["-1", -4]]})") ==
        pre + "\"values[0][0]\" is negative; allowed: a non-negative decimal integer");
  CHECK(read(R"({"public_key": )" + key + R"(, "values": [["1", "x"]]})") ==
        pre + "\"values[0][1]\" is a string (or an integer beyond 18 digits); allowed: an integer");
  // Unknown members are read past; the key may come after the values.
  CHECK(paillier::from_json<std::vector<paillier::encrypted_number<Int, S>>>(
            R"({"values": [[")" + c + R"(", -4]], "note": {"a": [1, {"b": 2}]}, "public_key": )" +
                key + "}",
            pk, bound)
            .size() == 1);
  // A syntax error names its byte and place, not the text.
  const std::string cut = R"({"public_key": )" + key + R"(, "values": [["1", -4], ["12345678)";
  CHECK(read(cut) == pre + "syntax error at byte " + std::to_string(cut.size()) +
                         " in \"values[1][0]\" (nlohmann::json error 101)");
}

TEST_CASE_TEMPLATE("syntax errors in a private key never quote it", Int, PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(3204);
  const auto keys = privet::test::small_keys<Int>(256, 3204);
  const auto& sk = keys.private_key;
  const std::string jwk = paillier::to_jwk(sk);
  const std::string p = b64(sk.p());
  const std::string q = b64(sk.q());
  const auto read = [&](const std::string& text) {
    return malformed([&] {
      (void)paillier::from_json<paillier::private_key<Int>>(text, gen, paillier::allow_insecure);
    });
  };
  REQUIRE(read(jwk).empty());
  const std::string pre = "privet: malformed Paillier private key JSON: syntax error at byte ";
  // A stray control character, an invalid escape and the end of the text,
  // each in the middle of "p", then of "q".
  for (const auto& [field, secret] : {std::pair{"p", p}, std::pair{"q", q}}) {
    const std::size_t at = jwk.find(secret) + secret.size() / 2;
    for (const std::string& fault : {std::string("\x01"), std::string("\\x"), std::string()}) {
      std::string bad = jwk.substr(0, at) + fault;
      if (!fault.empty()) bad += jwk.substr(at);
      const std::string e = read(bad);
      INFO(e);
      CHECK(e.rfind(pre, 0) == 0);
      CHECK(e.find(std::string("in \"") + field + "\"") != std::string::npos);
      CHECK(!leaks(e, secret));
    }
  }
  // The {lambda, mu} layout: a control character inside "lambda".
  const std::string lam = b64(sk.lambda());
  const std::string mu = b64(sk.mu());
  const std::string pub = nlohmann::json::parse(jwk).at("pub").dump();
  const std::string old = R"({"kty": "DAJ", "key_ops": ["decrypt"], "lambda": ")" +
                          lam.substr(0, 10) + "\x02" + lam.substr(10) + R"(", "mu": ")" + mu +
                          R"(", "pub": )" + pub + "}";
  const std::string e = read(old);
  CHECK(e.rfind(pre, 0) == 0);
  CHECK(e.find("in \"lambda\"") != std::string::npos);
  CHECK(!leaks(e, lam));
  CHECK(!leaks(e, mu));
  // The binary private key: a corrupted prime is named, never printed.
  auto bin = paillier::serialize(sk);
  bin.back() ^= 1;
  const std::string eb = malformed([&] {
    (void)paillier::deserialize<paillier::private_key<Int>>(bin, gen, paillier::allow_insecure);
  });
  CHECK(eb == "privet: malformed Paillier private key: q is not prime; allowed: a prime");
}

TEST_CASE_TEMPLATE("a private key in the lambda/mu layout is solved directly or by random bases",
                   Int, PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(3205);
  // A key with 4 | gcd(p - 1, q - 1) and 3 not dividing it, so that 3
  // lcm(p - 1, q - 1) is a multiple of lambda(n) below n that divides no
  // phi(n) / g: the direct solution fails and the random bases factor n.
  std::uint64_t seed = 3205;
  auto keys = privet::test::small_keys<Int>(256, seed);
  for (;;) {
    const Int g = mp::gcd(Int(keys.private_key.p() - 1), Int(keys.private_key.q() - 1));
    if (g % 4 == 0 && g % 3 != 0) break;
    keys = privet::test::small_keys<Int>(256, ++seed);
  }
  const auto& sk = keys.private_key;
  const Int n = sk.public_key().n();
  const std::string pub = nlohmann::json::parse(paillier::to_jwk(sk)).at("pub").dump();
  const auto jwk = [&](const Int& lam) {
    const Int mu = paillier::detail::inverse_public(Int(lam % n), n);
    return R"({"kty": "DAJ", "key_ops": ["decrypt"], "lambda": ")" + b64(lam) + R"(", "mu": ")" +
           b64(mu) + R"(", "pub": )" + pub + "}";
  };
  const Int phi = (sk.p() - 1) * (sk.q() - 1);
  // phi(n), lcm(p - 1, q - 1) (solved by one square root), and 3 lcm (a
  // multiple no divisor of phi: by random bases).
  for (const Int& lam : {phi, sk.lambda(), Int(3 * sk.lambda())}) {
    REQUIRE(lam < n);
    const auto read =
        paillier::from_json<paillier::private_key<Int>>(jwk(lam), gen, paillier::allow_insecure);
    // The same primes, in either order.
    CHECK(
        ((read.p() == sk.p() && read.q() == sk.q()) || (read.p() == sk.q() && read.q() == sk.p())));
  }
}
