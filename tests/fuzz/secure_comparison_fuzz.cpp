// libFuzzer target: the DGK secure comparison's messages
// (crypto/secure_comparison.hpp) on arbitrary bytes, and the parties that
// receive them. The first byte picks the party and its output mode; the
// rest is read as each of the four message types.
//
// Decoding either succeeds, and then the message re-encodes to the same
// bytes (one encoding per message) and peek_type names its type, or throws
// serialization_error. A decoded message is then handed to a party of a
// fixed 256-bit test key at the stage that takes it (and, for the server,
// once before that stage): the party either accepts it or throws
// protocol_error and is left as it was, which is checked by finishing the
// comparison with the genuine message and comparing the outcome with the
// genuine run's. Any other exception, a crash or a sanitizer report is a
// bug.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/dgk.hpp>
#include <privet/crypto/secure_comparison.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

namespace {

namespace cmp = privet::comparison;
namespace dgk = privet::dgk;
using Int = boost::multiprecision::cpp_int;
using bytes = std::vector<std::uint8_t>;

constexpr std::size_t l = 8;
constexpr std::uint64_t session = 99;
constexpr unsigned x_input = 0x5a;
constexpr unsigned y_input = 0x33;

void check(bool ok) {
  if (!ok) std::abort();
}

constexpr std::array<cmp::output_party, 3> outputs = {
    cmp::output_party::client, cmp::output_party::server, cmp::output_party::shared};

// A genuine run of each kind, made once with fixed seeds.
struct fixture {
  dgk::keypair<Int> keys;
  cmp::encrypted_bits<Int> bits;                 // the server's round 1 (y)
  std::array<cmp::blinded_tests<Int>, 3> tests;  // the client's round 2, per output
  std::array<bool, 3> server_outcome{};          // what the server gets from them
  cmp::output_share share;                       // round 3, output client
  bool client_outcome = false;                   // [x > y] through the share
  cmp::share_parameters<Int> share_params;       // the share wrapper's
  Int r = 0, s = 0;                              // the shares
  cmp::masked_share<Int> masked;                 // its round 0
};

cmp::parameters params_for(cmp::output_party p) {
  return {l, p, session};
}

const fixture& genuine() {
  static const fixture f = [] {
    fixture g{[] {
      privet::testing::seeded_release_generator gen(31);
      return dgk::generate_keypair<Int>(dgk::key_parameters{256, 40, dgk::plaintext_prime_for(l)},
                                        dgk::allow_insecure, gen);
    }()};
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      privet::testing::seeded_release_generator server_gen(41), client_gen(43);
      cmp::server<Int> server(g.keys.private_key, params_for(outputs[i]));
      cmp::client<Int> client(g.keys.public_key, params_for(outputs[i]));
      g.bits = server.encrypt_input(y_input, server_gen);
      g.tests[i] = client.evaluate(g.bits, x_input, client_gen);
      switch (outputs[i]) {
        case cmp::output_party::client:
          g.share = server.respond(g.tests[i]);
          g.server_outcome[i] = g.share.share;
          g.client_outcome = client.result(g.share);
          check(g.client_outcome == (x_input > y_input));
          break;
        case cmp::output_party::server:
          g.server_outcome[i] = server.result(g.tests[i]);
          check(g.server_outcome[i] == (x_input > y_input));
          break;
        case cmp::output_party::shared:
          g.server_outcome[i] = server.share(g.tests[i]);
          check((g.server_outcome[i] != client.share()) == (x_input > y_input));
          break;
      }
    }
    // Shares of v = r - s = 100 modulo the prime 2^127 - 1.
    g.share_params.modulus = (Int(1) << 127) - 1;
    g.share_params.bits = l;
    g.share_params.statistical_security = 40;
    g.share_params.session = session;
    g.r = Int(1) << 100;
    g.s = g.r - 100;
    privet::testing::seeded_release_generator gen(47);
    cmp::share_client<Int> client(g.keys.public_key, g.share_params);
    g.masked = client.mask(g.r, gen);
    return g;
  }();
  return f;
}

template <class M>
std::optional<M> decode(std::span<const std::uint8_t> in) {
  try {
    M m = cmp::deserialize<M>(in);
    const bytes again = cmp::serialize(m);
    check(again.size() == in.size() && std::equal(again.begin(), again.end(), in.begin()));
    check(cmp::peek_type(in) == M::type);
    return m;
  } catch (const privet::serialization_error&) {
    return std::nullopt;
  }
}

// Runs f, which a party may refuse with protocol_error; true if it did.
template <class F>
bool refused(F f) {
  try {
    f();
    return false;
  } catch (const privet::protocol_error&) {
    return true;
  }
}

// Round 2 at a fresh client (output to the client).
void client_evaluates(const fixture& g, const cmp::encrypted_bits<Int>& m) {
  privet::testing::seeded_release_generator gen(43);
  cmp::client<Int> client(g.keys.public_key, params_for(cmp::output_party::client));
  if (!refused([&] { (void)client.evaluate(m, x_input, gen); })) {
    check(client.next() == cmp::stage::receive_output);
    return;
  }
  check(client.next() == cmp::stage::evaluate);
  privet::testing::seeded_release_generator again(43);
  (void)client.evaluate(g.bits, x_input, again);
  check(client.result(g.share) == g.client_outcome);
}

// Round 3 at a fresh server, once out of order and once in order.
void server_finishes(const fixture& g, std::size_t mode, const cmp::blinded_tests<Int>& m) {
  privet::testing::seeded_release_generator gen(41);
  cmp::server<Int> server(g.keys.private_key, params_for(outputs[mode]));
  auto take = [&](const cmp::blinded_tests<Int>& t) {
    switch (outputs[mode]) {
      case cmp::output_party::client:
        return server.respond(t).share;
      case cmp::output_party::server:
        return server.result(t);
      case cmp::output_party::shared:
        break;
    }
    return server.share(t);
  };
  check(refused([&] { (void)take(m); }));
  check(server.next() == cmp::stage::send_bits);
  (void)server.encrypt_input(y_input, gen);
  if (!refused([&] { (void)take(m); })) {
    check(server.next() == cmp::stage::done);
    return;
  }
  check(server.next() == cmp::stage::finish);
  check(take(g.tests[mode]) == g.server_outcome[mode]);
}

// Round 3 at a client waiting for the server's share.
void client_receives_share(const fixture& g, const cmp::output_share& m) {
  privet::testing::seeded_release_generator gen(43);
  cmp::client<Int> client(g.keys.public_key, params_for(cmp::output_party::client));
  check(refused([&] { (void)client.result(m); }));
  (void)client.evaluate(g.bits, x_input, gen);
  if (!refused([&] { (void)client.result(m); })) {
    check(client.next() == cmp::stage::done);
    return;
  }
  check(client.next() == cmp::stage::receive_output);
  check(client.result(g.share) == g.client_outcome);
}

// Round 0 at a share server.
void share_server_receives(const fixture& g, const cmp::masked_share<Int>& m) {
  privet::testing::seeded_release_generator gen(53);
  cmp::share_server<Int> server(g.keys.private_key, g.share_params);
  if (!refused([&] { (void)server.receive(m, g.s, gen); })) {
    check(server.next() == cmp::stage::finish);
    return;
  }
  check(server.next() == cmp::stage::receive_share);
  check(server.receive(g.masked, g.s, gen).bits.size() == l);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const fixture& g = genuine();
  const std::span<const std::uint8_t> in(data + 1, size - 1);
  const unsigned pick = data[0];

  const auto masked = decode<cmp::masked_share<Int>>(in);
  const auto bits = decode<cmp::encrypted_bits<Int>>(in);
  const auto tests = decode<cmp::blinded_tests<Int>>(in);
  const auto share = decode<cmp::output_share>(in);
  try {
    (void)cmp::peek_type(in);
  } catch (const privet::serialization_error&) {
  }

  switch (pick % 4) {
    case 0:
      if (bits) client_evaluates(g, *bits);
      break;
    case 1:
      if (tests) server_finishes(g, (pick / 4) % 3, *tests);
      break;
    case 2:
      if (share) client_receives_share(g, *share);
      break;
    default:
      if (masked) share_server_receives(g, *masked);
      break;
  }
  return 0;
}
