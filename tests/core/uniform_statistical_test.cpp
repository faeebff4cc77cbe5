// Chi-square uniformity of the CSPRNG and the seeded generator, through the
// library's own draws. Each test compares against the chi-square quantile at
// p = 1e-6, so a correct generator fails one of these tests with probability
// about 1e-6 per run (the seeded ones are deterministic: they either always
// pass or always fail).
#include <privet/core/csprng.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>

#include <doctest/doctest.h>
#include <boost/math/distributions/chi_squared.hpp>

#include <vector>

namespace {
template <class G>
double chi_square_uniform(G& gen, std::uint64_t bins, std::uint64_t draws) {
  std::vector<std::uint64_t> counts(bins);
  for (std::uint64_t i = 0; i < draws; ++i) ++counts[privet::uniform_below(gen, bins)];
  const double expected = static_cast<double>(draws) / static_cast<double>(bins);
  double chi2 = 0;
  for (auto c : counts)
    chi2 += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  return chi2;
}

double critical(std::uint64_t bins) {
  boost::math::chi_squared dist(static_cast<double>(bins - 1));
  return boost::math::quantile(boost::math::complement(dist, 1e-6));
}

// The low byte of raw words: catches a generator whose low bits are weak.
template <class G>
double chi_square_low_byte(G& gen, std::uint64_t draws) {
  std::vector<std::uint64_t> counts(256);
  for (std::uint64_t i = 0; i < draws; ++i) ++counts[gen() & 0xff];
  const double expected = static_cast<double>(draws) / 256.0;
  double chi2 = 0;
  for (auto c : counts)
    chi2 += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  return chi2;
}
}  // namespace

TEST_CASE("seeded generator passes chi-square uniformity") {
  privet::seeded_generator gen(2024);
  CHECK(chi_square_uniform(gen, 1000, 1'000'000) < critical(1000));
  CHECK(chi_square_uniform(gen, 7, 100'000) < critical(7));  // non power of two: rejection path
  CHECK(chi_square_low_byte(gen, 1'000'000) < critical(256));
}

TEST_CASE("csprng passes chi-square uniformity") {
  privet::csprng gen;
  CHECK(chi_square_uniform(gen, 1000, 1'000'000) < critical(1000));
  CHECK(chi_square_low_byte(gen, 1'000'000) < critical(256));
}

TEST_CASE("the chi-square check can fail: a biased draw is rejected") {
  // Modulo reduction of 7-bit values to 3 bins is biased (43, 43, 42 of 128):
  // the test must notice it, or it proves nothing.
  privet::seeded_generator gen(5);
  std::vector<std::uint64_t> counts(3);
  const std::uint64_t draws = 3'000'000;
  for (std::uint64_t i = 0; i < draws; ++i) ++counts[(gen() & 0x7f) % 3];
  double chi2 = 0;
  for (auto c : counts)
    chi2 += (static_cast<double>(c) - draws / 3.0) * (static_cast<double>(c) - draws / 3.0) /
            (draws / 3.0);
  CHECK(chi2 > critical(3));
}

TEST_CASE("uniform_below_batch: every joint outcome equally likely, digits independent") {
  // 3 x 5 x 7 = 105 joint cells from batches that share one word.
  privet::seeded_generator gen(2025);
  const std::vector<std::uint64_t> small{3, 5, 7};
  std::vector<std::uint64_t> out(3), joint(105);
  const std::uint64_t draws = 210'000;
  for (std::uint64_t i = 0; i < draws; ++i) {
    privet::uniform_below_batch(gen, small, out);
    ++joint[(out[0] * 5 + out[1]) * 7 + out[2]];
  }
  double chi2 = 0;
  const double expected = static_cast<double>(draws) / 105.0;
  for (auto c : joint)
    chi2 += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  CHECK(chi2 < critical(105));

  // Ranges near 10^6, three to a word as in subset selection over 10^6
  // candidates: the parities of the three digits (8 cells, exact
  // probabilities for odd ranges) and the top digit in 100 equal bins.
  const std::vector<std::uint64_t> big{1'000'003, 1'000'033, 1'000'037};
  std::vector<std::uint64_t> parity(8), top(100);
  for (std::uint64_t i = 0; i < draws; ++i) {
    privet::uniform_below_batch(gen, big, out);
    ++parity[(out[0] % 2) * 4 + (out[1] % 2) * 2 + out[2] % 2];
    ++top[out[0] / 10'001];  // bins of 10 001 values; the last holds 9 904
  }
  std::vector<double> pp(8), pt(100, 10'001.0 / 1'000'003.0);
  for (int c = 0; c < 8; ++c) {
    pp[c] = 1;
    for (int k = 0; k < 3; ++k) {
      const double b = static_cast<double>(big[k]);
      pp[c] *= ((c >> (2 - k)) & 1) ? (b - 1) / 2 / b : (b + 1) / 2 / b;
    }
  }
  pt[99] = 9'904.0 / 1'000'003.0;
  auto pearson = [&](const std::vector<std::uint64_t>& obs, const std::vector<double>& p) {
    double x = 0;
    for (std::size_t i = 0; i < obs.size(); ++i) {
      const double e = p[i] * static_cast<double>(draws);
      x += (static_cast<double>(obs[i]) - e) * (static_cast<double>(obs[i]) - e) / e;
    }
    return x;
  };
  CHECK(pearson(parity, pp) < critical(8));
  CHECK(pearson(top, pt) < critical(100));
}
