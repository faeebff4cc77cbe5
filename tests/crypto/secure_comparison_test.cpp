// Tests of the DGK comparison protocol and of the share comparison over
// every supported backend: exhaustive correctness for l = 4 (all 256 pairs,
// the result given to either party) and l = 5, random 32- and 64-bit pairs,
// equal inputs and the boundary values 0 and 2^l - 1; shares modulo odd,
// even and power-of-two moduli including wrapping shares and the range
// boundaries +-(2^l - 1); what each party sees (exactly the protocol's
// messages, of the stated sizes, never the other's input in the clear, at
// most one zero among the server's tests); a key of the recommended size;
// and every rejection: malformed, foreign-session, out-of-order and
// replayed messages (the party left usable), inputs and parameters out of
// range, and malformed encodings. Every message travels through its binary
// encoding.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/dgk.hpp>
#include <privet/crypto/secure_comparison.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <support/errors.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mp = boost::multiprecision;
namespace dgk = privet::dgk;
namespace cmp = privet::comparison;
using mp::cpp_int;

using fixed1024 =
    mp::number<mp::cpp_int_backend<1024, 1024, mp::signed_magnitude, mp::checked, void>>;

#ifdef PRIVET_HAS_GMP
#define PRIVET_CMP_TYPES cpp_int, fixed1024, mp::mpz_int
#else
#define PRIVET_CMP_TYPES cpp_int, fixed1024
#endif

namespace {

using bytes = std::vector<std::uint8_t>;
using privet::test::rejected_parameter;

// One 256-bit test key per (backend, u), made once.
template <class Int>
const dgk::keypair<Int>& keys_for(std::uint32_t u) {
  static std::map<std::uint32_t, dgk::keypair<Int>> cache;
  auto it = cache.find(u);
  if (it == cache.end()) {
    privet::testing::seeded_release_generator gen(1000 + u);
    it = cache
             .emplace(u, dgk::generate_keypair<Int>(dgk::key_parameters{256, 40, u},
                                                    dgk::allow_insecure, gen))
             .first;
  }
  return it->second;
}

// What one run produced: the output and the encoded messages each party
// received, in order.
struct run_record {
  bool output = false;
  std::vector<bytes> client_view;
  std::vector<bytes> server_view;
};

template <class Int>
run_record run_core(const dgk::keypair<Int>& keys, const cmp::parameters& params, const Int& x,
                    const Int& y, privet::testing::seeded_release_generator& client_gen,
                    privet::testing::seeded_release_generator& server_gen) {
  cmp::server<Int> server(keys.private_key, params);
  cmp::client<Int> client(keys.public_key, params);
  run_record rec;
  rec.client_view.push_back(cmp::serialize(server.encrypt_input(y, server_gen)));
  rec.server_view.push_back(cmp::serialize(client.evaluate(
      cmp::deserialize<cmp::encrypted_bits<Int>>(rec.client_view.back()), x, client_gen)));
  const auto tests = cmp::deserialize<cmp::blinded_tests<Int>>(rec.server_view.back());
  if (params.output == cmp::output_party::client) {
    rec.client_view.push_back(cmp::serialize(server.respond(tests)));
    rec.output = client.result(cmp::deserialize<cmp::output_share>(rec.client_view.back()));
    CHECK(client.next() == cmp::stage::done);
  } else if (params.output == cmp::output_party::shared) {
    // Neither learns it; the XOR of the two shares is the result.
    CHECK_THROWS_AS((void)server.result(tests), privet::protocol_error);
    rec.output = server.share(tests) != client.share();
  } else {
    rec.output = server.result(tests);
    CHECK(client.next() == cmp::stage::done);
  }
  CHECK(server.next() == cmp::stage::done);
  return rec;
}

template <class Int>
run_record run_shares(const dgk::keypair<Int>& keys, const cmp::share_parameters<Int>& params,
                      const Int& r, const Int& s,
                      privet::testing::seeded_release_generator& client_gen,
                      privet::testing::seeded_release_generator& server_gen) {
  cmp::share_server<Int> server(keys.private_key, params);
  cmp::share_client<Int> client(keys.public_key, params);
  CHECK(client.next() == cmp::stage::mask_share);
  CHECK(server.next() == cmp::stage::receive_share);
  run_record rec;
  rec.server_view.push_back(cmp::serialize(client.mask(r, client_gen)));
  rec.client_view.push_back(cmp::serialize(server.receive(
      cmp::deserialize<cmp::masked_share<Int>>(rec.server_view.back()), s, server_gen)));
  rec.server_view.push_back(cmp::serialize(client.evaluate(
      cmp::deserialize<cmp::encrypted_bits<Int>>(rec.client_view.back()), client_gen)));
  const auto tests = cmp::deserialize<cmp::blinded_tests<Int>>(rec.server_view.back());
  if (params.output == cmp::output_party::client) {
    rec.client_view.push_back(cmp::serialize(server.respond(tests)));
    rec.output = client.result(cmp::deserialize<cmp::output_share>(rec.client_view.back()));
  } else if (params.output == cmp::output_party::shared) {
    rec.output = server.share(tests) != client.share();
  } else {
    rec.output = server.result(tests);
  }
  CHECK(client.next() == cmp::stage::done);
  CHECK(server.next() == cmp::stage::done);
  return rec;
}

// Whether `needle` occurs in any message of `view`.
bool occurs(const std::vector<bytes>& view, const bytes& needle) {
  for (const auto& m : view) {
    if (std::search(m.begin(), m.end(), needle.begin(), needle.end()) != m.end()) return true;
  }
  return false;
}

bytes le_bytes(std::uint64_t v) {
  bytes b(8);
  for (auto& x : b) {
    x = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
  return b;
}
bytes be_bytes(std::uint64_t v) {
  bytes b = le_bytes(v);
  std::reverse(b.begin(), b.end());
  return b;
}

// x mod n in [0, n) for any sign.
template <class Int>
Int mod_n(const Int& x, const Int& n) {
  Int r = x % n;
  if (r < 0) r += n;
  return r;
}

}  // namespace

TEST_CASE_TEMPLATE("exhaustive: every pair of 4-bit inputs, the result to either party", Int,
                   PRIVET_CMP_TYPES) {
  const auto& keys = keys_for<Int>(dgk::plaintext_prime_for(4));
  privet::testing::seeded_release_generator cg(1), sg(2);
  for (auto output :
       {cmp::output_party::client, cmp::output_party::server, cmp::output_party::shared}) {
    const cmp::parameters params{4, output, 77};
    for (std::uint64_t x = 0; x < 16; ++x) {
      for (std::uint64_t y = 0; y < 16; ++y) {
        CAPTURE(x);
        CAPTURE(y);
        CHECK(run_core(keys, params, Int(x), Int(y), cg, sg).output == (x > y));
      }
    }
  }
}

TEST_CASE_TEMPLATE("exhaustive: every pair of 5-bit inputs", Int, PRIVET_CMP_TYPES) {
  // u = 7 = l + 2 is the smallest plaintext prime 5-bit inputs allow.
  const auto& keys = keys_for<Int>(7);
  privet::testing::seeded_release_generator cg(3), sg(4);
  const cmp::parameters params{5, cmp::output_party::client, 1};
  for (std::uint64_t x = 0; x < 32; ++x) {
    for (std::uint64_t y = 0; y < 32; ++y) {
      CAPTURE(x);
      CAPTURE(y);
      CHECK(run_core(keys, params, Int(x), Int(y), cg, sg).output == (x > y));
    }
  }
}

TEST_CASE_TEMPLATE("random 32- and 64-bit pairs, equal values and the boundaries", Int,
                   PRIVET_CMP_TYPES) {
  privet::testing::seeded_release_generator gen(5), cg(6), sg(7);
  for (std::size_t l : {32u, 64u}) {
    CAPTURE(l);
    const auto& keys = keys_for<Int>(dgk::plaintext_prime_for(l));
    const std::uint64_t top = l == 64 ? UINT64_MAX : (std::uint64_t{1} << l) - 1;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs = {{0, 0},
                                                                  {top, top},
                                                                  {0, top},
                                                                  {top, 0},
                                                                  {top - 1, top},
                                                                  {top, top - 1},
                                                                  {1, 0},
                                                                  {0, 1},
                                                                  {top / 2, top / 2 + 1},
                                                                  {top / 2 + 1, top / 2},
                                                                  {12345, 12345}};
    for (int i = 0; i < 16; ++i) {
      const std::uint64_t x = privet::random_u64(gen) & top;
      const std::uint64_t y = i % 4 == 0 ? x : (privet::random_u64(gen) & top);
      pairs.emplace_back(x, y);
      // Inputs that differ in the lowest bit only.
      pairs.emplace_back(x | 1, x & ~std::uint64_t{1});
    }
    for (auto output :
         {cmp::output_party::client, cmp::output_party::server, cmp::output_party::shared}) {
      const cmp::parameters params{l, output, 9};
      for (const auto& pair : pairs) {
        const std::uint64_t x = pair.first, y = pair.second;
        CAPTURE(x);
        CAPTURE(y);
        CHECK(run_core(keys, params, Int(x), Int(y), cg, sg).output == (x > y));
      }
    }
    // The built-in integer overloads give the same answers.
    const cmp::parameters params{l, cmp::output_party::client, 10};
    cmp::server<Int> server(keys.private_key, params);
    cmp::client<Int> client(keys.public_key, params);
    const auto bits_msg = server.encrypt_input(top - 5, sg);
    const auto tests = client.evaluate(bits_msg, top, cg);
    CHECK(client.result(server.respond(tests)));
  }
}

TEST_CASE_TEMPLATE("what each party sees: the messages of the protocol and nothing else", Int,
                   PRIVET_CMP_TYPES) {
  const auto& keys = keys_for<Int>(67);
  const auto& sk = keys.private_key;
  privet::testing::seeded_release_generator gen(8), cg(9), sg(10);
  const std::size_t width = 32;  // a 256-bit modulus
  for (int i = 0; i < 12; ++i) {
    const std::uint64_t x = privet::random_u64(gen);
    const std::uint64_t y = i % 3 == 0 ? x : privet::random_u64(gen);
    for (auto output :
         {cmp::output_party::client, cmp::output_party::server, cmp::output_party::shared}) {
      const cmp::parameters params{64, output, 11};
      const run_record rec = run_core(keys, params, Int(x), Int(y), cg, sg);
      CHECK(rec.output == (x > y));
      // The client receives the encrypted bits (header 10, width 4, count 4,
      // 64 ciphertexts) and, when it learns the result, the 11-byte output
      // share; the server receives the 65 blinded tests and the share flag,
      // followed by the client's share when the server learns the result.
      const bool to_client = output == cmp::output_party::client;
      const bool to_server = output == cmp::output_party::server;
      REQUIRE(rec.client_view.size() == (to_client ? 2u : 1u));
      CHECK(rec.client_view[0].size() == 18 + 64 * width);
      if (to_client) CHECK(rec.client_view[1].size() == 11);
      REQUIRE(rec.server_view.size() == 1);
      CHECK(rec.server_view[0].size() == 18 + 65 * width + (to_server ? 2 : 1));
      // Neither input appears in the clear in the other party's view.
      CHECK(!occurs(rec.client_view, le_bytes(y)));
      CHECK(!occurs(rec.client_view, be_bytes(y)));
      CHECK(!occurs(rec.server_view, le_bytes(x)));
      CHECK(!occurs(rec.server_view, be_bytes(x)));
      // Decrypted with the server's key, the tests hold at most one zero,
      // and no test value is a plaintext bit of x: all are ciphertexts.
      const auto tests = cmp::deserialize<cmp::blinded_tests<Int>>(rec.server_view[0]);
      int zeros = 0;
      for (const Int& t : tests.tests) {
        CHECK(t > 1);
        zeros += sk.is_zero(dgk::ciphertext<Int>(keys.public_key, t)) ? 1 : 0;
      }
      CHECK(zeros <= 1);
      // The encrypted bits are y's bits under the server's key.
      const auto bits_msg = cmp::deserialize<cmp::encrypted_bits<Int>>(rec.client_view[0]);
      for (std::size_t b = 0; b < 64; ++b) {
        CHECK(sk.decrypt(dgk::ciphertext<Int>(keys.public_key, bits_msg.bits[b])) ==
              ((y >> b) & 1));
      }
    }
  }
}

TEST_CASE_TEMPLATE("shares modulo N: [r - s > 0] for every v in range, wrapping shares included",
                   Int, PRIVET_CMP_TYPES) {
  privet::testing::seeded_release_generator gen(12), cg(13), sg(14);
  const auto& keys = keys_for<Int>(dgk::plaintext_prime_for(4));
  // An odd modulus (a Paillier n, say), an even one and a power of two.
  const Int odd_n = (Int(1) << 300) - 153;
  const std::vector<Int> moduli = {odd_n, Int(odd_n + 1), Int(1) << 256, Int(1) << 47};
  for (const Int& n : moduli) {
    CAPTURE(n.str());
    for (auto output :
         {cmp::output_party::client, cmp::output_party::server, cmp::output_party::shared}) {
      const cmp::share_parameters<Int> params{n, 4, 40, output, 21};
      for (int v = -15; v <= 15; ++v) {
        CAPTURE(v);
        // r = 0, r = N - 1 and random r: the shares wrap around N.
        for (int k = 0; k < 3; ++k) {
          const Int r = k == 0 ? Int(0) : k == 1 ? Int(n - 1) : privet::uniform_below(gen, n);
          const Int s = mod_n(Int(r - v), n);
          CHECK(run_shares(keys, params, r, s, cg, sg).output == (v > 0));
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("shares of 64-bit values modulo a 512-bit N, at the range boundaries", Int,
                   PRIVET_CMP_TYPES) {
  privet::testing::seeded_release_generator gen(15), cg(16), sg(17);
  const auto& keys = keys_for<Int>(67);
  const Int n = (Int(1) << 512) - 569;
  const cmp::share_parameters<Int> params{n, 64, 80, cmp::output_party::client, 22};
  const Int top = (Int(1) << 64) - 1;
  std::vector<Int> vs = {Int(0), Int(1), Int(-1), top, Int(-top), Int(top - 1), Int(1 - top)};
  for (int i = 0; i < 8; ++i) {
    Int v = privet::uniform_below(gen, Int(2 * top + 1)) - top;
    vs.push_back(v);
  }
  for (const Int& v : vs) {
    CAPTURE(v.str());
    const Int r = privet::uniform_below(gen, n);
    const Int s = mod_n(Int(r - v), n);
    const run_record rec = run_shares(keys, params, r, s, cg, sg);
    CHECK(rec.output == (v > 0));
    // The server's view: the masked share (10 + 4 + 64 bytes) and the tests.
    REQUIRE(rec.server_view.size() == 2);
    CHECK(rec.server_view[0].size() == 14 + 64);
  }
}

TEST_CASE_TEMPLATE("the server detects a shared value far outside its range", Int,
                   PRIVET_CMP_TYPES) {
  privet::testing::seeded_release_generator cg(18), sg(19);
  const auto& keys = keys_for<Int>(67);
  const Int n = (Int(1) << 512) - 569;
  const cmp::share_parameters<Int> params{n, 64, 80, cmp::output_party::client, 23};
  cmp::share_server<Int> server(keys.private_key, params);
  cmp::share_client<Int> client(keys.public_key, params);
  const Int v = Int(1) << 200;  // |v| >> 2^l: d = z + rho exceeds its bound
  const Int r = 12345;
  const Int s = mod_n(Int(r - v), n);
  const auto masked = client.mask(r, cg);
  CHECK_THROWS_WITH_AS(server.receive(masked, s, sg),
                       "privet: secure comparison server: the unmasked value exceeds "
                       "2^(l+1+kappa) + 2^(l+1) - 3: the shared value r - s mod N is outside its "
                       "range [-(2^l - 1), 2^l - 1] (l = 64)",
                       privet::protocol_error);
  CHECK(server.next() == cmp::stage::receive_share);
  // A share in range goes through afterwards (the server is left usable).
  const Int s_ok = mod_n(Int(r - 5), n);
  const auto bits_msg = server.receive(masked, s_ok, sg);
  CHECK(client.result(server.respond(client.evaluate(bits_msg, cg))));
}

TEST_CASE_TEMPLATE("out-of-order, replayed and foreign messages leave the parties usable", Int,
                   PRIVET_CMP_TYPES) {
  const auto& keys = keys_for<Int>(67);
  privet::testing::seeded_release_generator cg(20), sg(21);
  const cmp::parameters params{64, cmp::output_party::client, 5};
  cmp::server<Int> server(keys.private_key, params);
  cmp::client<Int> client(keys.public_key, params);
  const std::uint64_t x = 0x8000'0000'0000'0001, y = 0x7fff'ffff'ffff'ffff;

  // The client has nothing to finish before the bits arrive.
  CHECK_THROWS_WITH_AS((void)client.result(cmp::output_share{5, false}),
                       "privet: secure comparison client: received an output share while "
                       "waiting for the encrypted bits (out of order or replayed)",
                       privet::protocol_error);
  CHECK(client.next() == cmp::stage::evaluate);
  const cmp::blinded_tests<Int> early{5, 32, std::vector<Int>(65, Int(1)), std::nullopt};
  CHECK_THROWS_WITH_AS((void)server.respond(early),
                       "privet: secure comparison server: received blinded tests while "
                       "encrypting its input (out of order or replayed)",
                       privet::protocol_error);

  const auto bits_msg = server.encrypt_input(y, sg);
  CHECK(server.next() == cmp::stage::finish);
  CHECK_THROWS_AS((void)server.encrypt_input(y, sg), privet::protocol_error);  // replayed round

  // Malformed encrypted bits: each rejected, the client left as it was.
  auto other_session = bits_msg;
  other_session.session = 6;
  CHECK_THROWS_WITH_AS((void)client.evaluate(other_session, x, cg),
                       "privet: secure comparison client: the encrypted bits belong to session "
                       "6, not 5",
                       privet::protocol_error);
  auto short_msg = bits_msg;
  short_msg.bits.pop_back();
  CHECK_THROWS_WITH_AS((void)client.evaluate(short_msg, x, cg),
                       "privet: secure comparison client: the encrypted bits hold 63 "
                       "ciphertexts, not 64",
                       privet::protocol_error);
  auto wide = bits_msg;
  wide.width = 33;
  CHECK_THROWS_WITH_AS((void)client.evaluate(wide, x, cg),
                       "privet: secure comparison client: the encrypted bits have elements of "
                       "33 bytes, not the 32 of the DGK modulus",
                       privet::protocol_error);
  for (const Int& bad : {Int(0), keys.public_key.n(), keys.private_key.p()}) {
    auto tampered = bits_msg;
    tampered.bits[17] = bad;
    CHECK_THROWS_WITH_AS((void)client.evaluate(tampered, x, cg),
                         "privet: secure comparison client: element 17 of the encrypted bits is "
                         "not in Z*_n (a DGK ciphertext lies in [1, n) and is coprime to n)",
                         privet::protocol_error);
  }
  CHECK(client.next() == cmp::stage::evaluate);
  CHECK(rejected_parameter([&] { (void)client.evaluate(bits_msg, -1, cg); }) == "x");

  const auto tests = client.evaluate(bits_msg, x, cg);
  CHECK(client.next() == cmp::stage::receive_output);
  CHECK_THROWS_AS((void)client.evaluate(bits_msg, x, cg), privet::protocol_error);  // replay

  // Malformed blinded tests: each rejected, the server left as it was.
  auto t_session = tests;
  t_session.session = 4;
  CHECK_THROWS_AS((void)server.respond(t_session), privet::protocol_error);
  auto t_short = tests;
  t_short.tests.pop_back();
  CHECK_THROWS_WITH_AS((void)server.respond(t_short),
                       "privet: secure comparison server: the blinded tests hold 64 "
                       "ciphertexts, not 65",
                       privet::protocol_error);
  auto t_share = tests;
  t_share.client_share = true;
  CHECK_THROWS_WITH_AS((void)server.respond(t_share),
                       "privet: secure comparison server: the blinded tests carry a client "
                       "output share the parameters do not ask for",
                       privet::protocol_error);
  auto t_stray = tests;
  t_stray.tests[3] = Int(2);  // a unit of Z*_n, but no DGK ciphertext of this key
  CHECK_THROWS_WITH_AS((void)server.respond(t_stray),
                       "privet: secure comparison server: element 3 of the blinded tests is no "
                       "DGK ciphertext of this key",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS((void)server.result(tests),
                       "privet: secure comparison server: result() gives the server the "
                       "result, but the parameters give it to the client (call respond())",
                       privet::protocol_error);
  CHECK(server.next() == cmp::stage::finish);

  const auto share = server.respond(tests);
  CHECK(server.next() == cmp::stage::done);
  CHECK_THROWS_AS((void)server.respond(tests), privet::protocol_error);  // replay
  auto s_session = share;
  s_session.session = 99;
  CHECK_THROWS_AS((void)client.result(s_session), privet::protocol_error);
  CHECK(client.result(share) == (x > y));
  CHECK_THROWS_AS((void)client.result(share), privet::protocol_error);  // replay
}

TEST_CASE_TEMPLATE("the result to the server: the client's share rides on the tests", Int,
                   PRIVET_CMP_TYPES) {
  const auto& keys = keys_for<Int>(67);
  privet::testing::seeded_release_generator cg(22), sg(23);
  const cmp::parameters params{64, cmp::output_party::server, 8};
  cmp::server<Int> server(keys.private_key, params);
  cmp::client<Int> client(keys.public_key, params);
  const auto tests = client.evaluate(server.encrypt_input(40, sg), 41, cg);
  CHECK(tests.client_share.has_value());
  CHECK(client.next() == cmp::stage::done);
  CHECK_THROWS_WITH_AS((void)client.result(cmp::output_share{8, true}),
                       "privet: secure comparison client: result() gives the client the result, "
                       "but the parameters give it to the server",
                       privet::protocol_error);
  auto missing = tests;
  missing.client_share.reset();
  CHECK_THROWS_WITH_AS((void)server.result(missing),
                       "privet: secure comparison server: the blinded tests lack the client's "
                       "output share",
                       privet::protocol_error);
  CHECK_THROWS_AS((void)server.respond(tests), privet::protocol_error);
  CHECK(server.result(tests));
}

TEST_CASE_TEMPLATE("share comparison: out-of-order messages and inputs out of range", Int,
                   PRIVET_CMP_TYPES) {
  const auto& keys = keys_for<Int>(67);
  privet::testing::seeded_release_generator cg(24), sg(25);
  const Int n = (Int(1) << 256) + 297;
  const cmp::share_parameters<Int> params{n, 64, 80, cmp::output_party::client, 30};
  cmp::share_server<Int> server(keys.private_key, params);
  cmp::share_client<Int> client(keys.public_key, params);
  const cmp::encrypted_bits<Int> early_bits{30, 32, {}};
  CHECK_THROWS_WITH_AS((void)client.evaluate(early_bits, cg),
                       "privet: secure comparison client: received encrypted bits while masking "
                       "its share (out of order)",
                       privet::protocol_error);
  CHECK_THROWS_AS((void)client.result(cmp::output_share{30, false}), privet::protocol_error);
  CHECK_THROWS_AS((void)server.respond(cmp::blinded_tests<Int>{}), privet::protocol_error);
  CHECK(rejected_parameter([&] { (void)client.mask(n, cg); }) == "r");
  CHECK(rejected_parameter([&] { (void)client.mask(Int(-1), cg); }) == "r");
  const Int r = 777;
  const auto masked = client.mask(r, cg);
  CHECK(client.next() == cmp::stage::evaluate);
  CHECK_THROWS_AS((void)client.mask(r, cg), privet::protocol_error);  // replay
  CHECK_THROWS_WITH_AS((void)server.receive(masked, n, sg),
                       "privet: share s is outside Z_N; allowed: [0, N) with N of 257 bits",
                       privet::invalid_parameter);
  auto m_session = masked;
  m_session.session = 31;
  CHECK_THROWS_AS((void)server.receive(m_session, Int(700), sg), privet::protocol_error);
  auto m_wide = masked;
  m_wide.width = 64;
  CHECK_THROWS_WITH_AS((void)server.receive(m_wide, Int(700), sg),
                       "privet: secure comparison server: the masked share is not an element of "
                       "Z_N on 33 bytes",
                       privet::protocol_error);
  auto m_big = masked;
  m_big.value = n;
  CHECK_THROWS_AS((void)server.receive(m_big, Int(700), sg), privet::protocol_error);
  CHECK(server.next() == cmp::stage::receive_share);
  const auto bits_msg = server.receive(masked, Int(700), sg);  // v = 77
  CHECK(server.next() == cmp::stage::finish);
  CHECK_THROWS_AS((void)server.receive(masked, Int(700), sg), privet::protocol_error);  // replay
  const auto tests = client.evaluate(bits_msg, cg);
  CHECK(client.result(server.respond(tests)));
}

TEST_CASE_TEMPLATE("parameters are checked against the key", Int, PRIVET_CMP_TYPES) {
  const auto& keys = keys_for<Int>(67);
  const auto& pk = keys.public_key;
  CHECK_THROWS_WITH_AS((cmp::client<Int>(pk, {66, cmp::output_party::client, 0})),
                       "privet: bits = 66 is invalid; allowed: [1, 65] for a DGK key with u = 67 "
                       "(u must exceed l + 1: a key from dgk::key_parameters::for_comparison(l))",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] {
          cmp::client<Int>(pk, {0, cmp::output_party::client, 0});
        }) == "bits");
  CHECK(rejected_parameter([&] {
          cmp::server<Int>(keys.private_key, {66, cmp::output_party::client, 0});
        }) == "bits");
  CHECK(rejected_parameter([&] {
          cmp::client<Int>(pk, {8, static_cast<cmp::output_party>(0), 0});
        }) == "output");
  CHECK_NOTHROW(cmp::client<Int>(pk, {65, cmp::output_party::client, 0}));
  // The server checks its input's range.
  cmp::server<Int> server(keys.private_key, {8, cmp::output_party::client, 0});
  privet::testing::seeded_release_generator gen(26);
  CHECK_THROWS_WITH_AS((void)server.encrypt_input(256, gen),
                       "privet: comparison input y is outside its range; allowed: [0, 2^8)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)server.encrypt_input(-3, gen); }) == "y");
  CHECK(server.next() == cmp::stage::send_bits);

  const Int n = (Int(1) << 200) + 235;
  using sp = cmp::share_parameters<Int>;
  CHECK_NOTHROW(cmp::share_client<Int>(pk, sp{n, 64, 134, cmp::output_party::client, 0}));
  CHECK_THROWS_WITH_AS(
      (cmp::share_client<Int>(pk, sp{n, 64, 135, cmp::output_party::client, 0})),
      "privet: modulus N of 201 bits is too small; allowed: N >= 2^(bits + statistical_security "
      "+ 2), at least 202 bits, so that z + rho < N",
      privet::invalid_parameter);
  CHECK(rejected_parameter([&] {
          cmp::share_server<Int>(keys.private_key, sp{n, 64, 39, cmp::output_party::client, 0});
        }) == "statistical_security");
  CHECK(rejected_parameter([&] {
          cmp::share_client<Int>(pk, sp{Int(0), 8, 40, cmp::output_party::client, 0});
        }) == "modulus");
  CHECK(rejected_parameter([&] {
          cmp::share_client<Int>(pk, sp{n, 70, 40, cmp::output_party::client, 0});
        }) == "bits");
}

TEST_CASE_TEMPLATE("encodings: exact round trips, and every malformation refused", Int,
                   PRIVET_CMP_TYPES) {
  const auto& keys = keys_for<Int>(67);
  privet::testing::seeded_release_generator cg(27), sg(28);
  const cmp::parameters params{64, cmp::output_party::server, 0x0102030405060708};
  cmp::server<Int> server(keys.private_key, params);
  cmp::client<Int> client(keys.public_key, params);
  const auto bits_msg = server.encrypt_input(9, sg);
  const auto tests = client.evaluate(bits_msg, 10, cg);
  const cmp::output_share share{3, true};
  const cmp::masked_share<Int> masked{4, 3, Int(0x0a0b0c)};

  const bytes b_bits = cmp::serialize(bits_msg), b_tests = cmp::serialize(tests),
              b_share = cmp::serialize(share), b_masked = cmp::serialize(masked);
  CHECK(cmp::deserialize<cmp::encrypted_bits<Int>>(b_bits) == bits_msg);
  CHECK(cmp::deserialize<cmp::blinded_tests<Int>>(b_tests) == tests);
  CHECK(cmp::deserialize<cmp::output_share>(b_share) == share);
  CHECK(cmp::deserialize<cmp::masked_share<Int>>(b_masked) == masked);
  CHECK(cmp::peek_type(b_bits) == cmp::message_type::encrypted_bits);
  CHECK(cmp::peek_type(b_tests) == cmp::message_type::blinded_tests);
  CHECK(cmp::peek_type(b_share) == cmp::message_type::output_share);
  CHECK(cmp::peek_type(b_masked) == cmp::message_type::masked_share);
  // The layout: version, type, session (LE), width, value (big-endian).
  CHECK(b_masked == bytes{1, 1, 4, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0x0a, 0x0b, 0x0c});
  CHECK(b_share == bytes{1, 4, 3, 0, 0, 0, 0, 0, 0, 0, 1});

  using cmp::deserialize;
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::output_share>(b_bits),
                       "privet: malformed output share: message type 2 where a output share "
                       "(type 4) was expected",
                       privet::serialization_error);
  bytes v2 = b_share;
  v2[0] = 2;
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::output_share>(v2),
                       "privet: malformed output share: format version 2 (this build reads "
                       "version 1)",
                       privet::serialization_error);
  bytes bit2 = b_share;
  bit2[10] = 2;
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::output_share>(bit2),
                       "privet: malformed output share: share byte 2 is neither 0 nor 1",
                       privet::serialization_error);
  bytes trailing = b_share;
  trailing.push_back(0);
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::output_share>(trailing),
                       "privet: malformed output share: 1 trailing bytes",
                       privet::serialization_error);
  for (std::size_t cut = 0; cut < b_tests.size(); cut += 97) {
    const bytes part(b_tests.begin(), b_tests.begin() + static_cast<std::ptrdiff_t>(cut));
    CHECK_THROWS_AS((void)deserialize<cmp::blinded_tests<Int>>(part), privet::serialization_error);
  }
  bytes no_flag(b_tests.begin(), b_tests.end() - 2);
  CHECK_THROWS_AS((void)deserialize<cmp::blinded_tests<Int>>(no_flag), privet::serialization_error);
  bytes flag2 = b_tests;
  flag2[flag2.size() - 2] = 2;
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::blinded_tests<Int>>(flag2),
                       "privet: malformed blinded tests: share presence byte 2 is neither 0 nor 1",
                       privet::serialization_error);
  bytes width0 = b_bits;
  width0[10] = width0[11] = width0[12] = width0[13] = 0;
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::encrypted_bits<Int>>(width0),
                       "privet: malformed encrypted bits: element width 0 outside [1, 2048] bytes",
                       privet::serialization_error);
  bytes count_big = b_bits;
  count_big[17] = 0x7f;  // 2^30-odd ciphertexts announced
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::encrypted_bits<Int>>(count_big),
                       doctest::Contains("entries exceeds the"), privet::serialization_error);
  CHECK_THROWS_WITH_AS((void)cmp::peek_type(bytes{1, 9}),
                       "privet: malformed secure comparison message: unknown message type 9",
                       privet::serialization_error);
  CHECK_THROWS_AS((void)cmp::peek_type(bytes{}), privet::serialization_error);
  // A value that does not fit its declared width is not cut short.
  const cmp::masked_share<Int> overfull{4, 1, Int(256)};
  CHECK_THROWS_WITH_AS((void)cmp::serialize(overfull),
                       "privet: cannot encode a masked share: an element does not fit its width "
                       "of 1 bytes",
                       privet::serialization_error);
  CHECK_THROWS_AS((void)cmp::serialize(cmp::masked_share<Int>{4, 0, Int(0)}),
                  privet::serialization_error);
  // The decoded tests still work.
  CHECK(server.result(deserialize<cmp::blinded_tests<Int>>(b_tests)));
}

TEST_CASE_TEMPLATE("a comparison at the recommended size: n of 2048 bits, t = 224", Int,
                   PRIVET_CMP_TYPES) {
  if constexpr (std::is_same_v<Int, fixed1024>) return;  // holds 1022-bit moduli at most
  privet::testing::seeded_release_generator gen(29), cg(30), sg(31);
  const auto keys = dgk::generate_keypair<Int>(dgk::key_parameters::for_comparison(64, 2048), gen);
  const cmp::parameters params{64, cmp::output_party::client, 1};
  const std::uint64_t a = 0xfedc'ba98'7654'3210, b = 0xfedc'ba98'7654'3211;
  CHECK(!run_core(keys, params, Int(a), Int(b), cg, sg).output);
  CHECK(run_core(keys, params, Int(b), Int(a), cg, sg).output);
  const cmp::share_parameters<Int> sp{(Int(1) << 2047) + 1, 64, 80, cmp::output_party::client, 2};
  CHECK(run_shares(keys, sp, Int(100), Int(99), cg, sg).output);
  CHECK(!run_shares(keys, sp, Int(99), Int(100), cg, sg).output);
}

// The error-path audit's rows for this header (docs/error_audit.md, crypto
// (protocols)): every refusal the tests above check by type or name only,
// checked by text here, each party left where it was.
TEST_CASE_TEMPLATE("every refused message, call and input is named by its full message", Int,
                   PRIVET_CMP_TYPES) {
  using privet::invalid_parameter;
  using privet::protocol_error;
  const auto& keys = keys_for<Int>(67);
  privet::testing::seeded_release_generator cg(40), sg(41);
  const std::string srv = "privet: secure comparison server: ";
  const std::string cli = "privet: secure comparison client: ";

  // The result to the client (session 5).
  {
    const cmp::parameters params{64, cmp::output_party::client, 5};
    cmp::server<Int> server(keys.private_key, params);
    cmp::client<Int> client(keys.public_key, params);
    CHECK_THROWS_WITH_AS((void)server.encrypt_input(-3, sg),
                         "privet: comparison input y is negative; allowed: an integer >= 0",
                         invalid_parameter);
    const auto bits_msg = server.encrypt_input(9, sg);
    CHECK_THROWS_WITH_AS((void)server.encrypt_input(9, sg),
                         (srv + "received a request to encrypt its input while waiting for the "
                                "blinded tests (out of order or replayed)")
                             .c_str(),
                         protocol_error);
    CHECK_THROWS_WITH_AS((void)client.evaluate(bits_msg, Int(1) << 64, cg),
                         "privet: comparison input x is outside its range; allowed: [0, 2^64)",
                         invalid_parameter);
    CHECK_THROWS_WITH_AS((void)client.evaluate(bits_msg, -1, cg),
                         "privet: comparison input x is negative; allowed: an integer >= 0",
                         invalid_parameter);
    CHECK_THROWS_WITH_AS(
        (void)client.share(),
        (cli + "share() keeps the result shared, but the parameters give it to the client").c_str(),
        protocol_error);
    const auto tests = client.evaluate(bits_msg, 10, cg);
    CHECK_THROWS_WITH_AS((void)client.evaluate(bits_msg, 10, cg),
                         (cli + "received encrypted bits while waiting for the output share (out "
                                "of order or replayed)")
                             .c_str(),
                         protocol_error);
    auto t_session = tests;
    t_session.session = 4;
    CHECK_THROWS_WITH_AS((void)server.respond(t_session),
                         (srv + "the blinded tests belong to session 4, not 5").c_str(),
                         protocol_error);
    auto t_wide = tests;
    t_wide.width = 33;
    CHECK_THROWS_WITH_AS((void)server.respond(t_wide),
                         (srv + "the blinded tests have elements of 33 bytes, not the 32 of the "
                                "DGK modulus")
                             .c_str(),
                         protocol_error);
    auto t_zero = tests;
    t_zero.tests[0] = Int(0);
    CHECK_THROWS_WITH_AS((void)server.respond(t_zero),
                         (srv + "element 0 of the blinded tests is not in Z*_n (a DGK ciphertext "
                                "lies in [1, n) and is coprime to n)")
                             .c_str(),
                         protocol_error);
    CHECK_THROWS_WITH_AS((void)server.share(tests),
                         (srv + "share() keeps the result shared, but the parameters give it to "
                                "the client (call respond())")
                             .c_str(),
                         protocol_error);
    CHECK(server.next() == cmp::stage::finish);
    const auto share = server.respond(tests);
    CHECK_THROWS_WITH_AS(
        (void)server.respond(tests),
        (srv + "received blinded tests while done (out of order or replayed)").c_str(),
        protocol_error);
    auto s_session = share;
    s_session.session = 99;
    CHECK_THROWS_WITH_AS((void)client.result(s_session),
                         (cli + "the output share belongs to session 99, not 5").c_str(),
                         protocol_error);
    CHECK(client.result(share));
    CHECK_THROWS_WITH_AS(
        (void)client.result(share),
        (cli + "received an output share while done (out of order or replayed)").c_str(),
        protocol_error);
  }
  // The result to the server (session 8).
  {
    const cmp::parameters params{64, cmp::output_party::server, 8};
    cmp::server<Int> server(keys.private_key, params);
    cmp::client<Int> client(keys.public_key, params);
    const auto tests = client.evaluate(server.encrypt_input(40, sg), 41, cg);
    CHECK_THROWS_WITH_AS((void)server.respond(tests),
                         (srv + "respond() sends the client the result, but the parameters give "
                                "it to the server (call result())")
                             .c_str(),
                         protocol_error);
    CHECK_THROWS_WITH_AS(
        (void)client.share(),
        (cli + "share() keeps the result shared, but the parameters give it to the server").c_str(),
        protocol_error);
    CHECK(server.result(tests));
  }
  // The result kept shared (session 9): the messages name the share() call
  // (they said the result went to the client before the audit, finding 30).
  {
    const cmp::parameters params{64, cmp::output_party::shared, 9};
    cmp::server<Int> server(keys.private_key, params);
    cmp::client<Int> client(keys.public_key, params);
    CHECK_THROWS_WITH_AS((void)client.share(),
                         (cli + "asked for its share while waiting for the encrypted bits").c_str(),
                         protocol_error);
    CHECK_THROWS_WITH_AS((void)client.result(cmp::output_share{9, false}),
                         (cli + "result() gives the client the result, but the parameters keep "
                                "it shared (call share())")
                             .c_str(),
                         protocol_error);
    const auto tests = client.evaluate(server.encrypt_input(3, sg), 5, cg);
    CHECK_THROWS_WITH_AS((void)server.result(tests),
                         (srv + "result() gives the server the result, but the parameters keep "
                                "it shared (call share())")
                             .c_str(),
                         protocol_error);
    CHECK_THROWS_WITH_AS((void)server.respond(tests),
                         (srv + "respond() sends the client the result, but the parameters keep "
                                "it shared (call share())")
                             .c_str(),
                         protocol_error);
    CHECK(server.next() == cmp::stage::finish);
    CHECK((server.share(tests) != client.share()) == (5 > 3));
  }
  // The share comparison (session 30).
  {
    const Int n = (Int(1) << 256) + 297;
    const cmp::share_parameters<Int> params{n, 64, 80, cmp::output_party::client, 30};
    cmp::share_server<Int> server(keys.private_key, params);
    cmp::share_client<Int> client(keys.public_key, params);
    CHECK_THROWS_WITH_AS(
        (void)client.result(cmp::output_share{30, false}),
        (cli + "received an output share while masking its share (out of order)").c_str(),
        protocol_error);
    CHECK_THROWS_WITH_AS((void)client.share(),
                         (cli + "asked for its share while masking its share").c_str(),
                         protocol_error);
    const std::string early =
        srv + "received blinded tests while waiting for the masked share (out of order)";
    CHECK_THROWS_WITH_AS((void)server.respond(cmp::blinded_tests<Int>{}), early.c_str(),
                         protocol_error);
    CHECK_THROWS_WITH_AS((void)server.result(cmp::blinded_tests<Int>{}), early.c_str(),
                         protocol_error);
    CHECK_THROWS_WITH_AS((void)server.share(cmp::blinded_tests<Int>{}), early.c_str(),
                         protocol_error);
    for (const Int& bad : {n, Int(-1)}) {
      CHECK_THROWS_WITH_AS((void)client.mask(bad, cg),
                           "privet: share r is outside Z_N; allowed: [0, N) with N of 257 bits",
                           invalid_parameter);
    }
    const auto masked = client.mask(Int(777), cg);
    CHECK_THROWS_WITH_AS((void)client.mask(Int(777), cg),
                         (cli + "asked to mask its share while waiting for the encrypted bits "
                                "(out of order or replayed)")
                             .c_str(),
                         protocol_error);
    auto m_session = masked;
    m_session.session = 31;
    CHECK_THROWS_WITH_AS((void)server.receive(m_session, Int(700), sg),
                         (srv + "the masked share belongs to session 31, not 30").c_str(),
                         protocol_error);
    auto m_big = masked;
    m_big.value = n;
    CHECK_THROWS_WITH_AS((void)server.receive(m_big, Int(700), sg),
                         (srv + "the masked share is not an element of Z_N on 33 bytes").c_str(),
                         protocol_error);
    CHECK(server.next() == cmp::stage::receive_share);
    const auto bits_msg = server.receive(masked, Int(700), sg);
    CHECK_THROWS_WITH_AS((void)server.receive(masked, Int(700), sg),
                         (srv + "received a masked share while waiting for the blinded tests (out "
                                "of order or replayed)")
                             .c_str(),
                         protocol_error);
    CHECK(client.result(server.respond(client.evaluate(bits_msg, cg))));
  }
  // Parameters.
  const auto& pk = keys.public_key;
  CHECK_THROWS_WITH_AS((cmp::client<Int>(pk, {0, cmp::output_party::client, 0})),
                       "privet: bits = 0 is invalid; allowed: [1, 65] for a DGK key with u = 67 "
                       "(u must exceed l + 1: a key from dgk::key_parameters::for_comparison(l))",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((cmp::server<Int>(keys.private_key, {66, cmp::output_party::client, 0})),
                       "privet: bits = 66 is invalid; allowed: [1, 65] for a DGK key with u = 67 "
                       "(u must exceed l + 1: a key from dgk::key_parameters::for_comparison(l))",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((cmp::client<Int>(pk, {8, static_cast<cmp::output_party>(0), 0})),
                       "privet: output = 0 is invalid; allowed: output_party::client, "
                       "output_party::server or output_party::shared",
                       invalid_parameter);
  using sp = cmp::share_parameters<Int>;
  const Int n = (Int(1) << 200) + 235;
  CHECK_THROWS_WITH_AS(
      (cmp::share_server<Int>(keys.private_key, sp{n, 64, 39, cmp::output_party::client, 0})),
      "privet: statistical_security = 39 is invalid; allowed: [40, 1024]", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (cmp::share_client<Int>(pk, sp{Int(0), 8, 40, cmp::output_party::client, 0})),
      "privet: modulus N of 0 bits is too small; allowed: N >= 2^(bits + statistical_security + "
      "2), at least 51 bits, so that z + rho < N",
      invalid_parameter);
  CHECK_THROWS_WITH_AS((cmp::share_client<Int>(pk, sp{n, 70, 40, cmp::output_party::client, 0})),
                       "privet: bits = 70 is invalid; allowed: [1, 65] for a DGK key with u = 67 "
                       "(u must exceed l + 1: a key from dgk::key_parameters::for_comparison(l))",
                       invalid_parameter);
  if constexpr (!std::is_same_v<Int, fixed1024>) {  // 2^16384 does not fit 1024 bits
    const Int huge = (Int(1) << 16384) + 1;
    CHECK_THROWS_WITH_AS(
        (cmp::share_client<Int>(pk, sp{huge, 8, 40, cmp::output_party::client, 0})),
        "privet: modulus N of 16385 bits is too large; allowed: at most 16384 bits",
        invalid_parameter);
  }
  // Encodings.
  using cmp::deserialize;
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::output_share>(bytes{1, 4, 3}),
                       "privet: malformed output share: truncated at byte 2 (8 more needed, 1 "
                       "left)",
                       privet::serialization_error);
  CHECK_THROWS_WITH_AS((void)cmp::peek_type(bytes{}),
                       "privet: malformed secure comparison message: truncated at byte 0 (1 more "
                       "needed, 0 left)",
                       privet::serialization_error);
  CHECK_THROWS_WITH_AS((void)cmp::peek_type(bytes{2, 1}),
                       "privet: malformed secure comparison message: format version 2",
                       privet::serialization_error);
  CHECK_THROWS_WITH_AS((void)cmp::serialize(cmp::masked_share<Int>{4, 0, Int(0)}),
                       "privet: cannot encode a masked share: width 0 outside [1, 2048] bytes",
                       privet::serialization_error);
  // A blinded-tests message whose count promises more than its bytes hold
  // (elements of 16 bytes, the least width of a list since issue 32).
  const bytes few{1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 5, 0, 0, 0, 7, 0};
  CHECK_THROWS_WITH_AS((void)deserialize<cmp::blinded_tests<Int>>(few),
                       "privet: malformed blinded tests: a count of 5 entries exceeds the 2 "
                       "bytes left",
                       privet::serialization_error);
}
