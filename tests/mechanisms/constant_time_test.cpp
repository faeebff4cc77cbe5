// Unit tests of the constant-time coins (mechanisms/detail/constant_time.hpp)
// and of the samplers built on them (mechanisms/constant_time_noise.hpp):
// the branch-free word arithmetic against plain 128-bit arithmetic, the
// thresholds against a second computation (Boost's cpp_bin_float at 300
// bits, a different algorithm from the certified big_uint series), the
// digit-independence identity behind the geometric, the table's cumulative
// probabilities against long-double sums, and the CSPRNG words per draw:
// the same for every draw, whatever it returns; and the branch-free grid
// release (detail/grid.hpp) against release_on_grid.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>
#include <privet/mechanisms/detail/grid.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>
#include <support/errors.hpp>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace {

namespace mp = boost::multiprecision;
using privet::detail::big_uint;
using privet::detail::ct_threshold;
using privet::detail::uint128;
using real300 = mp::number<mp::cpp_bin_float<300>>;

// Counts the 64-bit words a sampler draws.
using counting_generator = privet::test::counting_release_generator;

// The exact threshold T / 2^128 as a 300-bit real.
real300 value(const ct_threshold& t) {
  return ldexp(real300(t.hi), -64) + ldexp(real300(t.lo), -128);
}

// |T / 2^128 - p| in units of 2^-128.
double error_units(const ct_threshold& t, const real300& p) {
  return static_cast<double>(abs(value(t) - p) * ldexp(real300(1), 128));
}

std::vector<std::uint64_t> edge_words() {
  return {0,
          1,
          2,
          0x7fffffffffffffffULL,
          0x8000000000000000ULL,
          0xfffffffffffffffeULL,
          0xffffffffffffffffULL,
          0x123456789abcdef0ULL};
}

}  // namespace

TEST_CASE("branch-free comparisons and the 256-bit square agree with plain arithmetic") {
  namespace d = privet::detail;
  std::vector<std::uint64_t> words = edge_words();
  privet::seeded_generator gen(1);
  for (int i = 0; i < 24; ++i) words.push_back(gen());
  for (std::uint64_t a : words) {
    CHECK(d::ct_is_zero(a) == (a == 0 ? 1u : 0u));
    CHECK(d::ct_mask(a & 1) == (a & 1 ? ~std::uint64_t{0} : 0));
    for (std::uint64_t b : words) {
      CHECK(d::ct_lt(a, b) == (a < b ? 1u : 0u));
      CHECK(d::ct_select(d::ct_mask(1), a, b) == a);
      CHECK(d::ct_select(d::ct_mask(0), a, b) == b);
      for (std::uint64_t c : {a, b, std::uint64_t{0}}) {
        const uint128 x = (static_cast<uint128>(a) << 64) | b;
        const uint128 y = (static_cast<uint128>(c) << 64) | a;
        CHECK(d::ct_lt_128(a, b, c, a) == (x < y ? 1u : 0u));
      }
      const d::ct_u256 sq = d::ct_square_128(a, b);
      const mp::cpp_int k = (mp::cpp_int(a) << 64) | b;
      const mp::cpp_int k2 = k * k;
      for (unsigned w = 0; w < 4; ++w) {
        CHECK(sq[w] == static_cast<std::uint64_t>((k2 >> (64 * w)) & 0xffffffffffffffffULL));
      }
    }
  }
}

TEST_CASE("thresholds are within 2^-128 of exp(-x) and of the geometric digits' probabilities") {
  // Second method: Boost's cpp_bin_float exp at 300 bits (accurate to far
  // below 2^-200 here), against the certified big_uint bounds rounded to
  // nearest. The bound is 2^-129 plus the bounds' width.
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> ratios{
      {1, 1},    {2, 1},  {64, 1},         {3, 7},      {1, 1000},
      {1000, 3}, {88, 1}, {1, 1ULL << 40}, {123457, 89}};
  for (const auto& ratio : ratios) {
    // Named copies: clang 14 cannot capture a structured binding in CAPTURE.
    const std::uint64_t num = ratio.first, den = ratio.second;
    const real300 x = real300(num) / real300(den);
    const real300 e = exp(-x);
    CAPTURE(num);
    CAPTURE(den);
    const ct_threshold t = privet::detail::exp_neg_threshold(big_uint(num), big_uint(den));
    CHECK(error_units(t, e) <= 0.5 + 1e-9);
    const ct_threshold l = privet::detail::logistic_threshold(big_uint(num), big_uint(den));
    CHECK(error_units(l, e / (1 + e)) <= 0.5 + 1e-9);
  }
  // Rounded to nearest, so exp(-x) below 2^-129 becomes 0, and exp(0) is
  // clamped to 2^128 - 1.
  const ct_threshold tiny = privet::detail::exp_neg_threshold(big_uint(90), big_uint(1));
  CHECK(tiny.hi == 0);
  CHECK(tiny.lo == 0);
  const ct_threshold one = privet::detail::exp_neg_threshold(big_uint(0), big_uint(1));
  CHECK(one.hi == ~std::uint64_t{0});
  CHECK(one.lo == ~std::uint64_t{0});
}

TEST_CASE("the rational exp bounds agree with exp_neg_bounds on dyadic arguments") {
  for (double x : {0.5, 1.0, 3.25, 17.0, 0.0078125, 100.0}) {
    const auto [m, e] = privet::detail::exact_binary_value(x);
    const big_uint num = e >= 0 ? big_uint(m) << e : big_uint(m);
    const big_uint den = e >= 0 ? big_uint(1) : big_uint(1) << -e;
    const auto a = privet::detail::exp_neg_ratio_bounds(num, den, 200);
    const auto b = privet::detail::exp_neg_bounds(x, 200);
    CAPTURE(x);
    // Both are certified, so each lower bound is below the other's upper one.
    CHECK(a.lo <= b.hi);
    CHECK(b.lo <= a.hi);
    CHECK(big_uint(a.hi - a.lo) <= big_uint(16));
  }
}

TEST_CASE("the digit coins' product is the geometric conditioned on G < 2^B") {
  // The identity behind ct_geometric, checked exactly for every g < 2^B:
  // prod_i p_i^(g_i) (1 - p_i)^(1 - g_i) with p_i = q^(2^i) / (1 + q^(2^i))
  // equals (1 - q) q^g / (1 - q^(2^B)). Computed with the exact digit
  // probabilities in 300-bit reals, then with the rounded thresholds.
  for (const auto& st :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{1, 1}, {2, 7}, {1, 3}}) {
    const std::uint64_t s = st.first, t = st.second;  // CAPTURE-able names (clang 14)
    const privet::detail::ct_geometric geo(s, t, 63);
    const int b = geo.digits();
    REQUIRE(b <= 10);
    const real300 q = exp(-real300(s) / real300(t));
    const real300 norm = (1 - q) / (1 - pow(q, real300(std::uint64_t{1} << b)));
    real300 worst = 0, worst_thresholds = 0;
    for (std::uint64_t g = 0; g < (std::uint64_t{1} << b); ++g) {
      real300 prod = 1, prod_t = 1;
      for (int i = 0; i < b; ++i) {
        const real300 qi = pow(q, real300(std::uint64_t{1} << i));
        const real300 p = qi / (1 + qi);
        const real300 pt = value(geo.thresholds()[static_cast<std::size_t>(i)]);
        const bool bit = ((g >> i) & 1) != 0;
        prod *= bit ? p : 1 - p;
        prod_t *= bit ? pt : 1 - pt;
      }
      const real300 want = norm * pow(q, real300(g));
      worst = std::max(worst, real300(abs(prod - want)));
      worst_thresholds = std::max(worst_thresholds, real300(abs(prod_t - want)));
    }
    CAPTURE(t);
    CHECK(worst < real300(1e-80));
    // The rounded coins move each probability by at most B 2^-128.
    CHECK(worst_thresholds <= ldexp(real300(b), -128));
  }
}

TEST_CASE("the digit count holds all but 2^-128 of the geometric and stops at 63 digits") {
  // 2^B >= 89 t: B = 7 at t = 1, 47 at t = 2^40; 89 t > 2^63 is refused.
  CHECK(privet::constant_time_discrete_laplace(1, 1).digits() == 7);
  CHECK(privet::constant_time_discrete_laplace(std::ldexp(1.0, 40)).digits() == 47);
  CHECK(privet::constant_time_discrete_laplace(std::ldexp(1.0, 56)).digits() == 63);
  CHECK(privet::test::rejected_parameter(
            [] { privet::constant_time_discrete_laplace(std::ldexp(1.0, 57)); }) == "scale");
  const privet::constant_time_discrete_laplace l(1, 1);
  CHECK(l.words_per_sample() == 28);
  CHECK(l.total_variation_bound() == std::ldexp(16.0, -128));
}

TEST_CASE("the exp coin's probability is exp(-n / d) within its stated error, for any n") {
  // P[coin] = prod over set bits j of n of T_j / 2^128 (the high cut
  // aside); compared with exp(-n / d) in 300-bit reals.
  for (uint128 d : {uint128{1}, uint128{7}, uint128{233928}, uint128{1} << 100}) {
    const privet::detail::ct_exp_coin coin(d, 200);
    CAPTURE(static_cast<double>(d));
    CHECK(coin.coins() >= 1);
    CHECK(coin.coins() <= 136);
    // Recompute the thresholds independently of the coin's storage: the
    // product over the bits of n, for a few n including ones past the cut.
    const big_uint den = (big_uint(static_cast<std::uint64_t>(d >> 64)) << 64) |
                         big_uint(static_cast<std::uint64_t>(d));
    for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5},
                            std::uint64_t{1000}, std::uint64_t{123456789}}) {
      const real300 want =
          exp(-real300(n) / (ldexp(real300(static_cast<std::uint64_t>(d >> 64)), 64) +
                             real300(static_cast<std::uint64_t>(d))));
      real300 got = 1;
      for (int j = 0; j < 64; ++j) {
        if (((n >> j) & 1) != 0)
          got *= value(privet::detail::exp_neg_threshold(big_uint(1) << j, den));
      }
      CAPTURE(n);
      CHECK(static_cast<double>(abs(got - want) * ldexp(real300(1), 128)) <= 64);
    }
  }
}

TEST_CASE("every draw uses the same number of words, whatever it returns") {
  // The CSPRNG words are an exact stand-in for the work: count them per
  // draw over outputs of every size, including 0 and the extremes.
  counting_generator gen(7);
  for (double scale : {0.25, 1.0, 100.0, std::ldexp(1.0, 40)}) {
    const privet::constant_time_discrete_laplace l(scale);
    std::set<std::uint64_t> per_draw;
    std::set<std::int64_t> outputs;
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t before = gen.calls();
      outputs.insert(l(gen));
      per_draw.insert(gen.calls() - before);
    }
    CAPTURE(scale);
    CHECK(per_draw.size() == 1);
    CHECK(*per_draw.begin() == static_cast<std::uint64_t>(l.words_per_sample()));
    CHECK(outputs.size() > 1);
  }
  for (double sigma : {0.5, 18.26, 1000.0, 1e6}) {
    for (std::uint64_t table :
         {privet::constant_time_discrete_gaussian::default_max_table, std::uint64_t{0}}) {
      const privet::constant_time_discrete_gaussian g(privet::discrete_gaussian_distribution(sigma),
                                                      table);
      std::set<std::uint64_t> per_draw;
      std::set<std::int64_t> outputs;
      for (int i = 0; i < 300; ++i) {
        const std::uint64_t before = gen.calls();
        outputs.insert(g(gen));
        per_draw.insert(gen.calls() - before);
      }
      CAPTURE(sigma);
      CAPTURE(table);
      CHECK(per_draw.size() == 1);
      CHECK(*per_draw.begin() == static_cast<std::uint64_t>(g.words_per_sample()));
      CHECK(outputs.size() > 1);
    }
  }
}

TEST_CASE("the Gaussian uses its table up to sigma about 307 and states its error") {
  const privet::constant_time_discrete_gaussian small(18.26);
  CHECK(small.uses_table());
  // M = ceil(sqrt(178) sigma) for sigma^2 = 18.26^2 (rounded up to a / 2^k).
  CHECK(small.table_entries() == static_cast<std::uint64_t>(std::ceil(std::sqrt(178.0) * 18.26)));
  CHECK(small.words_per_sample() == 3);
  CHECK(small.total_variation_bound() ==
        std::ldexp(static_cast<double>(small.table_entries()) + 1, -128));
  CHECK(privet::constant_time_discrete_gaussian(300.0).uses_table());
  const privet::constant_time_discrete_gaussian big(privet::discrete_gaussian_distribution(310.0),
                                                    0);
  CHECK_FALSE(big.uses_table());
  CHECK_FALSE(big.uses_convolution());
  // Rejection: (1 - p_lo)^R <= 2^-128 with R minimal, and tau below 2^-100.
  CHECK(big.failure_bound() <= std::ldexp(1.0, -128) * (1 + 1e-8));
  CHECK(std::pow(1 - big.acceptance_lower_bound(), big.proposals() - 1) > std::ldexp(1.0, -128));
  CHECK(big.acceptance_lower_bound() > 0.75);  // about sqrt(pi / 2) e^(-1/2) for large sigma
  CHECK(big.total_variation_bound() < std::ldexp(1.0, -100));
  CHECK(privet::test::rejected_parameter([] {
          privet::constant_time_discrete_gaussian(privet::discrete_gaussian_distribution(1.0),
                                                  70000);
        }) == "max_table");
}

TEST_CASE("beyond the table, the Gaussian is a sum of small tables, within 2^-100") {
  // By default past sigma 307: levels of sigma_i in [12, 12.65], multipliers
  // at most 4, a base table of sigma <= 16; the levels' sigma_i^2 and
  // multipliers rebuild sigma^2 exactly (T^2 = sigma_i^2 + c_i^2 T'^2).
  for (const double sigma : {310.0, 1000.0, 12345.678, 1e6, std::ldexp(1.0, 30)}) {
    const privet::discrete_gaussian_distribution e(sigma);
    const privet::constant_time_discrete_gaussian g(e);
    CAPTURE(sigma);
    REQUIRE(g.uses_convolution());
    CHECK_FALSE(g.uses_table());
    const auto& conv = g.convolution();
    // Each level divides sigma by about 4.
    CHECK(conv.levels() >=
          static_cast<std::size_t>(std::floor(std::log(sigma / 16) / std::log(4.0))));
    CHECK(conv.levels() <=
          static_cast<std::size_t>(std::ceil(std::log(sigma / 12) / std::log(3.0))));
    CHECK(g.words_per_sample() == 3 * static_cast<int>(conv.levels() + 1));
    CHECK(conv.base().entries() <= static_cast<std::uint64_t>(std::ceil(std::sqrt(178.0) * 16)));
    for (std::size_t i = 0; i < conv.levels(); ++i) {
      CHECK(conv.multiplier(i) >= 1);
      CHECK(conv.multiplier(i) <= 4);
      // sigma_i in [12, sqrt(144 + c^2)]: M = ceil(sqrt(178) sigma_i).
      CHECK(conv.table(i).entries() >= static_cast<std::uint64_t>(std::sqrt(178.0) * 12));
      CHECK(conv.table(i).entries() <=
            static_cast<std::uint64_t>(std::ceil(std::sqrt(178.0 * 160))));
    }
    CHECK(g.total_variation_bound() > 0);
    CHECK(g.total_variation_bound() < std::ldexp(1.0, -100));
  }
  // Without a table budget (max_table = 0) the rejection sampler stays.
  CHECK_FALSE(
      privet::constant_time_discrete_gaussian(privet::discrete_gaussian_distribution(1000.0), 0)
          .uses_convolution());
}

TEST_CASE("a sum X + c X' of discrete Gaussians is within eps / (1 - eps) of one") {
  // The bound detail::ct_gaussian_convolution rests on, checked against the
  // exact law of the sum at widths where it is visible in long double: the
  // total variation to D(s1^2 + c^2 s2^2) is at most eps / (1 - eps) and,
  // for a bound that says something, at least a tenth of it (about eps / pi
  // is expected: the cosine's mean absolute value).
  struct setup {
    double s1, s2;
    int c;
  };
  for (const setup& st : {setup{1.3, 1.1, 2}, setup{1.0, 0.9, 1}, setup{2.0, 0.8, 3}}) {
    const long double s1 = st.s1, s2 = st.s2, c = st.c;
    const long double big2 = s1 * s1 + c * c * s2 * s2;
    const double tau2 = static_cast<double>(s1 * s1 * s2 * s2 / big2);
    const double eps = privet::detail::convolution_epsilon(tau2);
    const int range = 80;
    auto rho = [](long double x, long double s) { return std::exp(-x * x / (2 * s * s)); };
    std::vector<long double> p(2 * range * st.c + 1, 0.0L), q(p.size(), 0.0L);
    long double z1 = 0, z2 = 0;
    for (int k = -range; k <= range; ++k) z1 += rho(k, s1), z2 += rho(k, s2);
    for (int x1 = -range; x1 <= range; ++x1) {
      for (int k = -range / st.c; k <= range / st.c; ++k) {
        const int y = x1 + st.c * k;
        if (std::abs(y) <= range * st.c)
          p[static_cast<std::size_t>(y + range * st.c)] += rho(x1, s1) * rho(k, s2) / (z1 * z2);
      }
    }
    long double zq = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
      q[i] = rho(static_cast<long double>(i) - range * st.c, std::sqrt(big2));
      zq += q[i];
    }
    long double tv = 0;
    for (std::size_t i = 0; i < q.size(); ++i) tv += std::fabs(p[i] - q[i] / zq) / 2;
    CAPTURE(st.s1);
    CAPTURE(eps);
    CAPTURE(static_cast<double>(tv));
    CHECK(eps > 1e-6);  // visible
    CHECK(static_cast<double>(tv) <= eps / (1 - eps));
    CHECK(static_cast<double>(tv) >= eps / 10);
  }
  // The widths the sampler builds (tau >= 2): below 2^-112.
  CHECK(privet::detail::convolution_epsilon(4.0) < std::ldexp(1.0, -112));
}

TEST_CASE("the table's thresholds are the cumulative probabilities of |X|") {
  // Against long-double sums of exp(-m^2 / (2 sigma^2)) over the cut
  // support: the thresholds round the same numbers to 128 bits.
  for (const auto& ab :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{1, 1}, {1, 4}, {1000, 3}}) {
    const std::uint64_t a = ab.first, b = ab.second;  // CAPTURE-able names (clang 14)
    const privet::detail::ct_gaussian_table table(a, b, 4096);
    const auto m = table.entries();
    REQUIRE(m > 0);
    const long double s2 = static_cast<long double>(a) / static_cast<long double>(b);
    std::vector<long double> cum;
    long double sum = 0;
    for (std::uint64_t k = 0; k <= m; ++k) {
      const long double w = std::exp(-static_cast<long double>(k * k) / (2 * s2));
      sum += k == 0 ? w : 2 * w;
      cum.push_back(sum);
    }
    long double worst = 0;
    for (std::uint64_t k = 0; k < m; ++k) {
      const long double want = cum[k] / sum;
      const auto& t = table.thresholds()[k];
      const long double got = std::ldexp(static_cast<long double>(t.hi), -64) +
                              std::ldexp(static_cast<long double>(t.lo), -128);
      worst = std::max(worst, std::fabs(got - want));
    }
    CAPTURE(a);
    CAPTURE(b);
    CHECK(worst < 1e-17L);
    // Monotone, and the cut sits at sqrt(178) sigma: the mass beyond it is
    // below e^-89.
    for (std::uint64_t k = 1; k < m; ++k) {
      const auto& p = table.thresholds()[k - 1];
      const auto& q = table.thresholds()[k];
      CHECK((p.hi < q.hi || (p.hi == q.hi && p.lo <= q.lo)));
    }
    CHECK(static_cast<long double>(m * m) * b >= 178.0L * a);
    CHECK(static_cast<long double>((m - 1) * (m - 1)) * b < 178.0L * a);
  }
}

TEST_CASE("the samplers are a deterministic function of the generator's stream") {
  const privet::constant_time_discrete_laplace l(3.5);
  const privet::constant_time_discrete_gaussian g(2.5), big(1000.0);
  privet::testing::seeded_release_generator a(9), b(9);
  for (int i = 0; i < 50; ++i) {
    CHECK(l(a) == l(b));
    CHECK(g(a) == g(b));
    CHECK(big(a) == big(b));
  }
}

TEST_CASE("the branch-free grid release equals release_on_grid bit for bit") {
  // Second method: release_on_grid, the exact path's function, on special
  // inputs (NaN, infinities, extremes, subnormals, the 2^(53 + 64) g
  // regime) and random bit patterns, grids and noises, for double and float.
  namespace d = privet::detail;
  std::vector<double> xs{0.0,
                         -0.0,
                         1.0,
                         -1.0,
                         1e6,
                         -1e6,
                         INFINITY,
                         -INFINITY,
                         NAN,
                         1e308,
                         -1.7976931348623157e308,
                         5e-324,
                         0x1p53,
                         0x1p100,
                         -0x1p117,
                         3.4e38,
                         -3.5e38};
  std::vector<double> grids{0x1p-40, 0x1p-20, 1.0,      0x1p-1074,
                            0x1p100, 0x1p900, 0x1p1000, 0x1p-1000};
  std::vector<std::int64_t> noises{0,
                                   1,
                                   -1,
                                   INT64_MAX,
                                   INT64_MIN + 1,
                                   1234567,
                                   -(std::int64_t{1} << 53),
                                   (std::int64_t{1} << 54) + 1};
  privet::seeded_generator gen(21);
  std::uint64_t differ = 0, total = 0;
  auto check = [&](double x, double g, std::int64_t noise) {
    const double a = d::release_on_grid<double>(x, g, noise);
    const double b = d::release_on_grid_constant_time<double>(x, g, noise);
    const float fa = d::release_on_grid<float>(static_cast<float>(x), g, noise);
    const float fb = d::release_on_grid_constant_time<float>(static_cast<float>(x), g, noise);
    ++total;
    if (std::bit_cast<std::uint64_t>(a) != std::bit_cast<std::uint64_t>(b) ||
        std::bit_cast<std::uint32_t>(fa) != std::bit_cast<std::uint32_t>(fb)) {
      ++differ;
    }
  };
  for (double x : xs) {
    for (double g : grids) {
      for (std::int64_t noise : noises) check(x, g, noise);
    }
  }
  for (int i = 0; i < 200'000; ++i) {
    const double x = std::bit_cast<double>(static_cast<std::uint64_t>(gen()));
    const double g = std::ldexp(1.0, static_cast<int>(gen() % 2098) - 1074);
    check(x, g, static_cast<std::int64_t>(gen()) >> (gen() % 64));
    const double near = std::ldexp(static_cast<double>(static_cast<std::int64_t>(gen())),
                                   static_cast<int>(gen() % 200) - 150);
    check(near, std::ldexp(1.0, static_cast<int>(gen() % 120) - 60),
          static_cast<std::int64_t>(gen()) >> (gen() % 64));
  }
  CHECK(total > 400'000);
  CHECK(differ == 0);
}

TEST_CASE("tables built with the same parameters are shared, and equal a fresh computation") {
  // The cache (cached_ct_table) must hand out the table its key names: the
  // same copy for the same parameters, from any thread, a different one for
  // different parameters, and entry for entry what the builder computes.
  using privet::detail::ct_gaussian_table;
  using privet::detail::ct_geometric;
  const ct_geometric a(3, 1000, 63);
  const ct_geometric b(3, 1000, 63);
  const ct_geometric c(3, 1001, 63);
  CHECK(a.thresholds().data() == b.thresholds().data());
  CHECK(a.thresholds().data() != c.thresholds().data());
  REQUIRE(a.thresholds().size() == static_cast<std::size_t>(a.digits()));
  for (int i = 0; i < a.digits(); ++i) {
    const ct_threshold want = privet::detail::logistic_threshold(big_uint(3) << i, big_uint(1000));
    const ct_threshold& got = a.thresholds()[static_cast<std::size_t>(i)];
    CHECK(got.hi == want.hi);
    CHECK(got.lo == want.lo);
  }
  std::vector<const ct_threshold*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&seen, i] {
      const ct_gaussian_table table(7919, 13, 4096);  // a key no other test uses
      seen[i] = table.thresholds().data();
    });
  }
  for (auto& t : threads) t.join();
  const ct_gaussian_table again(7919, 13, 4096);
  for (const ct_threshold* p : seen) CHECK(p == again.thresholds().data());
  // The same sigma^2 as a different fraction builds its own, equal, table.
  const ct_gaussian_table scaled(2 * 7919, 26, 4096);
  CHECK(scaled.thresholds().data() != again.thresholds().data());
  REQUIRE(scaled.entries() == again.entries());
  for (std::size_t k = 0; k < scaled.entries(); ++k) {
    CHECK(scaled.thresholds()[k].hi == again.thresholds()[k].hi);
    CHECK(scaled.thresholds()[k].lo == again.thresholds()[k].lo);
  }
}
