// The exact coins' frequencies against their exact probabilities: a
// two-cell chi-square test per coin at alpha = 1e-6, so each CHECK of
// passes() fails a correct coin with probability 1e-6. Seeds are fixed, so a
// given build either always passes or always fails.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace {

constexpr double alpha = 1e-6;
constexpr int draws = 200'000;

privet::test::chi_square_result coin_fit(const std::function<bool()>& coin, double p) {
  std::vector<std::uint64_t> counts(2);
  for (int i = 0; i < draws; ++i) ++counts[coin() ? 1 : 0];
  return privet::test::chi_square_cells(counts, {1 - p, p}, alpha);
}

struct fraction {
  std::uint64_t num, den;
};

}  // namespace

TEST_CASE("Bernoulli(num / den) has probability num / den") {
  privet::testing::seeded_release_generator gen(101);
  const std::uint64_t big = UINT64_MAX;
  for (const fraction f : {fraction{1, 2}, fraction{1, 3}, fraction{2, 7}, fraction{999, 1000},
                           fraction{big / 3, big}, fraction{(big >> 1) + 1, big}}) {
    const std::uint64_t num = f.num, den = f.den;  // named: clang 14 cannot capture a binding
    const double p = static_cast<double>(num) / static_cast<double>(den);
    const auto r = coin_fit([&] { return privet::bernoulli_rational(gen, num, den); }, p);
    CAPTURE(num);
    CAPTURE(den);
    CAPTURE(r.statistic);
    CHECK(r.passes());
  }
}

TEST_CASE("Bernoulli(exp(-num / den)) has probability exp(-num / den)") {
  // Exponents below 1 (Algorithm 1 alone), exactly 1, above 1 (exp(-1)
  // coins and a fraction), and 64-bit fractions near 2^63.
  privet::testing::seeded_release_generator gen(102);
  const std::uint64_t top = std::uint64_t{1} << 63;
  for (const fraction f :
       {fraction{1, 1000}, fraction{1, 3}, fraction{1, 1}, fraction{5, 2}, fraction{15, 2},
        fraction{top + 12345, top - 1}, fraction{top / 5 * 4, top}}) {
    const std::uint64_t num = f.num, den = f.den;  // named: clang 14 cannot capture a binding
    const double p = std::exp(-static_cast<double>(num) / static_cast<double>(den));
    const auto r = coin_fit([&] { return privet::bernoulli_exp(gen, num, den); }, p);
    CAPTURE(num);
    CAPTURE(den);
    CAPTURE(r.statistic);
    CHECK(r.passes());
  }
}

TEST_CASE("big-integer Bernoulli(exp(-x)) matches exp(-x) for exponents beyond 64 bits") {
  using boost::multiprecision::cpp_int;
  privet::testing::seeded_release_generator gen(103);
  const cpp_int scale = cpp_int(1) << 150;
  for (const fraction f : {fraction{3, 7}, fraction{13, 4}}) {
    const std::uint64_t num = f.num, den = f.den;  // named: clang 14 cannot capture a binding
    const cpp_int n = scale * num + 1, d = scale * den;
    const double p = std::exp(-static_cast<double>(num) / static_cast<double>(den));
    const auto r = coin_fit([&] { return privet::bernoulli_exp(gen, n, d); }, p);
    CAPTURE(num);
    CAPTURE(r.statistic);
    CHECK(r.passes());
  }
}

TEST_CASE("Bernoulli(exp(-k^2 / d)) is exact when k^2 needs 256 bits") {
  // The discrete Gaussian's acceptance coin: k >= 2^64, so k^2 spans both
  // 128-bit halves and the exp(-1) rounds subtract d across them.
  using privet::detail::uint128;
  privet::testing::seeded_release_generator gen(104);
  const uint128 one = 1;
  struct square_case {
    uint128 k, d;
  };
  const uint128 top = ~uint128{0};
  for (const square_case c : {square_case{(one << 64) / 5 * 6 + 977, top - 158},  // k^2 / d ~ 1.44
                              square_case{(one << 63) * 3 + 5, top - 12},         // ~ 2.25
                              square_case{(one << 65) + 5, (one << 127) / 5 * 8 + 1},  // ~ 5
                              square_case{(one << 62) + 1, (one << 126) - 3},          // ~ 0.25
                              square_case{7, 30}}) {
    const uint128 k = c.k, d = c.d;  // named: clang 14 cannot capture a binding
    const long double kk = static_cast<long double>(k), dd = static_cast<long double>(d);
    const double p = static_cast<double>(std::exp(-(kk * kk) / dd));
    const auto r = coin_fit([&] { return privet::detail::bernoulli_exp_square(gen, k, d); }, p);
    CAPTURE(static_cast<double>(kk * kk / dd));
    CAPTURE(r.statistic);
    CHECK(r.passes());
  }
}

TEST_CASE("the two-cell chi-square test notices a 3.5% error in a probability") {
  // A correct Bernoulli(1/3) judged against p = 0.345: the expected statistic
  // is about 120, far above the 1e-6 critical value of 23.9.
  privet::testing::seeded_release_generator gen(105);
  const auto r = coin_fit([&] { return privet::bernoulli_rational(gen, 1, 3); }, 0.345);
  CAPTURE(r.statistic);
  CHECK_FALSE(r.passes());
}

TEST_CASE("logistic_bernoulli has probability a / (a + b e^-x)") {
  privet::testing::seeded_release_generator gen(107);
  struct odds {
    std::uint64_t a, b;
    double x;
  };
  // The subset-selection coin of LDP TrieHH at s = 10^6, eps = 10 (d = 46)
  // and eps = 1; randomised response's coin for k = 2 and k = 1000.
  for (const odds o :
       {odds{46, 999'954, 10.0}, odds{268'942, 731'058, 1.0}, odds{1, 1, 0.5}, odds{1, 999, 4.0}}) {
    const auto a = o.a, b = o.b;  // named: clang 14 cannot capture a binding
    const double x = o.x;
    const double p =
        static_cast<double>(a) / (static_cast<double>(a) + static_cast<double>(b) * std::exp(-x));
    const privet::logistic_bernoulli coin(a, b, x);
    const auto r = coin_fit([&] { return coin(gen); }, p);
    CAPTURE(a);
    CAPTURE(x);
    CAPTURE(r.statistic);
    CHECK(r.passes());
  }
}
