// The blinding of the DGK comparison and the masking of the share
// comparison, as the server sees them (decrypted with its own key):
//  - the nonzero test plaintexts are uniform on Z*_u, for x < y, x = y and
//    x > y alike (the multiplicative blinding by r_i in Z*_u);
//  - the position of the zero, when there is one, is uniform over the l + 1
//    slots (the shuffle; without it the position would be the highest
//    differing bit);
//  - whether a zero appears at all (the server's share d_B) is a fair coin
//    for every input order (the client's random d_A);
//  - d = z + rho, the share wrapper's unmasked value, has uniform top and
//    low bits at both ends of the range of v.
// Chi-square at alpha = 1e-6 per check: a correct implementation fails a
// check with that probability; the seeds are fixed, so a build always passes
// or always fails. An unblinded test (r_i = 1), a missing shuffle, a fixed
// d_A or a short mask each fails its check.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/dgk.hpp>
#include <privet/crypto/secure_comparison.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <support/statistics.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

namespace dgk = privet::dgk;
namespace cmp = privet::comparison;

#ifdef PRIVET_HAS_GMP
using Int = boost::multiprecision::mpz_int;
#else
using Int = boost::multiprecision::cpp_int;
#endif

constexpr double alpha = 1e-6;
constexpr std::size_t l = 8;
constexpr std::uint32_t u = 11;  // dgk::plaintext_prime_for(8)

const dgk::keypair<Int>& keys() {
  static const dgk::keypair<Int> k = [] {
    privet::testing::seeded_release_generator gen(40);
    return dgk::generate_keypair<Int>(dgk::key_parameters{256, 40, u}, dgk::allow_insecure, gen);
  }();
  return k;
}

// The plaintexts of the tests the server receives in one run, in order.
std::vector<std::uint32_t> server_view(std::uint64_t x, std::uint64_t y,
                                       privet::testing::seeded_release_generator& cg,
                                       privet::testing::seeded_release_generator& sg) {
  const cmp::parameters params{l, cmp::output_party::client, 0};
  cmp::server<Int> server(keys().private_key, params);
  cmp::client<Int> client(keys().public_key, params);
  const auto tests = client.evaluate(server.encrypt_input(y, sg), x, cg);
  std::vector<std::uint32_t> out;
  for (const Int& t : tests.tests) {
    out.push_back(keys().private_key.decrypt(dgk::ciphertext<Int>(keys().public_key, t)));
  }
  return out;
}

void check_uniform(const std::vector<std::uint64_t>& counts) {
  const auto r = privet::test::chi_square_cells(
      counts, std::vector<double>(counts.size(), 1.0 / static_cast<double>(counts.size())), alpha);
  CAPTURE(r.statistic);
  CAPTURE(r.critical);
  CHECK(r.passes());
}

}  // namespace

TEST_CASE("the server's tests: uniform nonzero values, a uniform slot for the zero, a fair d_B") {
  privet::testing::seeded_release_generator cg(41), sg(42);
  constexpr int runs = 3000;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> inputs = {
      {37, 200}, {129, 129}, {200, 37}, {255, 0}};
  for (const auto& input : inputs) {
    const std::uint64_t x = input.first, y = input.second;  // named: for clang 14's CAPTURE
    CAPTURE(x);
    CAPTURE(y);
    std::vector<std::uint64_t> values(u - 1, 0), slots(l + 1, 0), zeros(2, 0);
    for (int i = 0; i < runs; ++i) {
      const auto view = server_view(x, y, cg, sg);
      REQUIRE(view.size() == l + 1);
      int found = 0;
      for (std::size_t k = 0; k < view.size(); ++k) {
        if (view[k] == 0) {
          ++found;
          ++slots[k];
        } else {
          ++values[view[k] - 1];
        }
      }
      REQUIRE(found <= 1);
      ++zeros[static_cast<std::size_t>(found)];
    }
    check_uniform(values);
    check_uniform(slots);
    check_uniform(zeros);
  }
}

TEST_CASE("the unmasked value d = z + rho has uniform top and low bits at both ends of v") {
  privet::testing::seeded_release_generator cg(43), gen(44);
  constexpr std::size_t kappa = 40;
  const Int n = (Int(1) << 64) - 59;
  const cmp::share_parameters<Int> params{n, l, kappa, cmp::output_party::client, 0};
  const Int top = (Int(1) << l) - 1;
  constexpr int samples = 20'000;
  // rho < 2^(l + 1 + kappa): its top four bits are d's, but for a carry of
  // probability below 2^(l + 1) / 2^(l + 1 + kappa - 4) = 2^-36.
  const unsigned shift = l + 1 + kappa - 4;
  for (const Int& v : {Int(-top), top}) {
    CAPTURE(v.str());
    std::vector<std::uint64_t> high(16, 0), low(16, 0);
    for (int i = 0; i < samples; ++i) {
      cmp::share_client<Int> client(keys().public_key, params);
      const Int r = privet::uniform_below(gen, n);
      Int s = (r - v) % n;
      if (s < 0) s += n;
      const Int a = client.mask(r, cg).value;
      const Int d = a >= s ? Int(a - s) : Int(a + n - s);  // what the server computes
      const auto h = static_cast<std::size_t>(Int(d >> shift).convert_to<unsigned long>());
      REQUIRE(h < 16);
      ++high[h];
      ++low[static_cast<std::size_t>(Int(d & 15).convert_to<unsigned long>())];
    }
    check_uniform(high);
    check_uniform(low);
  }
}
