// Empirical privacy audits (tests/support/privacy_audit.hpp): for each
// mechanism, neighbouring inputs at its sensitivity, many seeded runs, and a
// lower bound on epsilon that must not exceed the epsilon the mechanism's
// own privacy map claims. Each audit is wrong with probability at most
// alpha = 1e-6 (its confidence), so a correct mechanism fails a CHECK with
// probability <= 1e-6; seeds are fixed, so a build passes or fails
// deterministically. A deliberately broken Laplace mechanism (half the
// noise its claim needs) is caught, which shows the audit can fail.
#include <privet/core/guarantee.hpp>
#include <privet/mechanisms/exponential.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/mechanisms/randomized_response.hpp>
#include <privet/mechanisms/subset_selection.hpp>

#include <doctest/doctest.h>
#include <support/privacy_audit.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {
constexpr double alpha = 1e-6;
}

TEST_CASE("audit: secure Laplace stays within its claim, and a halved scale is caught") {
  const auto m = privet::laplace_mechanism<double>::from_guarantee(privet::pure_dp(1.0), 1.0);
  const double claimed = m.guarantee(1.0).epsilon();
  const auto events = privet::test::threshold_events<double>(-2, 3, 0.5);
  const auto r = privet::test::audit<double>([&](double x, auto& g) { return m(x, g); }, 0.0, 1.0,
                                             events, 300'000, 0.0, alpha, 1);
  CAPTURE(r.event);
  CAPTURE(r.epsilon_lower);
  CHECK(r.epsilon_lower <= claimed);
  CHECK(r.epsilon_lower > 0.85 * claimed);  // the audit is informative, not vacuous
  // Broken: claims m's epsilon but adds Lap(scale / 2), which is 2 eps-DP.
  const auto broken = privet::laplace_mechanism<double>::from_scale(m.scale() / 2);
  const auto b = privet::test::audit<double>([&](double x, auto& g) { return broken(x, g); }, 0.0,
                                             1.0, events, 300'000, 0.0, alpha, 2);
  CAPTURE(b.epsilon_lower);
  CHECK(b.epsilon_lower > claimed);
}

TEST_CASE("audit: randomised response, k = 2 and k = 5") {
  for (std::uint64_t k : {2u, 5u}) {
    const privet::randomized_response rr(1.0, k);
    const auto r = privet::test::audit<std::uint64_t>(
        [&](std::uint64_t v, auto& g) { return rr(v, g); }, std::uint64_t{0}, std::uint64_t{1},
        privet::test::value_events<std::uint64_t>(k), 200'000, 0.0, alpha, 3 + k);
    CAPTURE(k);
    CAPTURE(r.epsilon_lower);
    CHECK(r.epsilon_lower <= rr.guarantee().epsilon());
    CHECK(r.epsilon_lower > 0.8);
  }
}

TEST_CASE("audit: subset selection, event 'item j is reported'") {
  const privet::subset_selection ss(1.0, 10);  // d = 3
  std::vector<privet::test::audit_event<std::vector<std::uint64_t>>> events;
  for (std::uint64_t j = 0; j < 10; ++j) {
    events.push_back({"reports " + std::to_string(j), [j](const std::vector<std::uint64_t>& out) {
                        return std::find(out.begin(), out.end(), j) != out.end();
                      }});
  }
  const auto r = privet::test::audit<std::vector<std::uint64_t>>(
      [&](std::uint64_t item, auto& g) { return ss(item, g); }, std::uint64_t{0}, std::uint64_t{1},
      events, 200'000, 0.0, alpha, 11);
  CAPTURE(r.epsilon_lower);
  CHECK(r.epsilon_lower <= ss.guarantee().epsilon());
  CHECK(r.epsilon_lower > 0.5);  // single-item events see part of the e^eps ratio
}

TEST_CASE("audit: exponential mechanism and permute-and-flip") {
  // Neighbouring score vectors at sensitivity 1.
  const std::vector<double> q0{0, 0, 0}, q1{1, 0, 0};
  const privet::exponential_mechanism em(1.0, 1.0);
  const privet::permute_and_flip pf(1.0, 1.0);
  const auto events = privet::test::value_events<std::size_t>(3);
  const auto r1 = privet::test::audit<std::size_t>(
      [&](const std::vector<double>& q, auto& g) { return em(q, g); }, q0, q1, events, 200'000, 0.0,
      alpha, 21);
  const auto r2 = privet::test::audit<std::size_t>(
      [&](const std::vector<double>& q, auto& g) { return pf(q, g); }, q0, q1, events, 200'000, 0.0,
      alpha, 22);
  CAPTURE(r1.epsilon_lower);
  CAPTURE(r2.epsilon_lower);
  CHECK(r1.epsilon_lower <= em.guarantee().epsilon());
  CHECK(r2.epsilon_lower <= pf.guarantee().epsilon());
  CHECK(r1.epsilon_lower > 0.2);  // its true loss here is about 0.31 (output 0)
  CHECK(r2.epsilon_lower > 0.3);
}

TEST_CASE("audit: secure Gaussian against its (eps, delta) claim") {
  const auto m =
      privet::gaussian_mechanism<double>::from_guarantee(privet::approx_dp(1.0, 1e-5), 1.0);
  const auto claim = m.approx_guarantee(1.0, 1e-5);
  const double s = m.sigma();
  const auto r =
      privet::test::audit<double>([&](double x, auto& g) { return m(x, g); }, 0.0, 1.0,
                                  privet::test::threshold_events<double>(-2 * s, 3 * s, s / 4),
                                  300'000, claim.delta(), alpha, 31);
  CAPTURE(r.epsilon_lower);
  CHECK(r.epsilon_lower <= claim.epsilon());
}
