// privet/accounting/shuffle.hpp — privacy amplification by shuffling: n
// users each apply the same eps0-LDP randomiser and a shuffler hides who
// sent which report; the shuffled multiset is (eps, delta)-DP for a change
// of one user's input.
//
// Which theorem holds depends on the randomiser, so every bound here names
// it: the type R of the randomiser (privet::binary_randomized_response,
// privet::randomized_response, privet::subset_selection, your own type, or
// privet::any_ldp_randomiser when all that is known is eps0-LDP), through
// the trait in_stronger_clone_class<R>.
//
// ---- Two reductions ----------------------------------------------------------
//
// Fix user 1's two inputs x0, x1 and the others' inputs x_2..x_n, and write
// R0 = R(x0), R1 = R(x1), a = e^eps0 / (e^eps0 + 1). Because R is eps0-LDP,
//   Q0 = (e^eps0 R0 - R1) / (e^eps0 - 1)  and  Q1 = (e^eps0 R1 - R0) / (e^eps0 - 1)
// are probability distributions, and R0 = a Q0 + (1 - a) Q1,
// R1 = (1 - a) Q0 + a Q1 (Q0 + Q1 = R0 + R1). If every other user's report
// contains a share q / 2 of Q0 and q / 2 of Q1,
//   R(x) >= (q / 2) (Q0 + Q1) = (q / 2) (R0 + R1)   for every input x,   (*)
// then user i draws from Q0 with probability q / 2, from Q1 with q / 2 and
// otherwise from a leftover distribution that does not depend on user 1.
// Given how many draws came from Q0 and from Q1 in total, the shuffled
// multiset can be sampled without knowing user 1's input (pick which users
// were the C = n0 + n1 - 1 "clones" uniformly, draw the rest from their
// leftovers, shuffle), so it is a post-processing of the pair
//   P = (A + D, C - A + 1 - D)  against  Q = (A + 1 - D, C - A + D),
//   C ~ Bin(n - 1, q), A | C ~ Bin(C, 1/2), D ~ Bern(a),
// and any (eps, delta) of P against Q holds for the shuffled reports.
//  - Any eps0-LDP randomiser meets (*) with q = e^-eps0: R(x) >= e^-eps0 R0
//    and >= e^-eps0 R1. This is Feldman, McMillan & Talwar 2021, "Hiding
//    Among the Clones: A Simple and Nearly Optimal Analysis of Privacy
//    Amplification by Shuffling" (FOCS; arXiv:2012.12803), Theorem 3.2.
//  - q = 2 / (e^eps0 + 1) gives more clones and a smaller eps (q cannot be
//    larger: at x = x0, (*) needs R0 >= (q / 2) (R0 + R1), and R1 may be
//    e^eps0 R0). This is the "stronger clone" reduction of Feldman, McMillan
//    & Talwar 2023, "Stronger Privacy Amplification by Shuffling for Rényi
//    and Approximate Differential Privacy" (SODA; arXiv:2208.04591). Its
//    original version claimed it for every eps0-LDP randomiser; the errata
//    at the head of the later arXiv versions reports an error in the proof
//    of Lemma 3.5 (this reduction) when p < 1 / (e^eps0 + 1), says that
//    Theorems 3.1 and 3.2 (and Corollary 4.3, Theorem 5.2) "hold for a
//    restricted class of local randomizers that contains several important
//    local randomizers", and that Lemma 3.5 holds, with a slightly different
//    decomposition, for any given randomiser. We read the errata's p as q / 2
//    above: a general randomiser meets (*) only with fewer clones. privet
//    takes the class to be the randomisers that meet (*) with
//    q = 2 / (e^eps0 + 1), i.e.
//      R(x) >= (R(x') + R(x'')) / (e^eps0 + 1)   for all inputs x and x' != x'', (**)
//    for which the argument above is complete (the paper's argument, in our
//    words). The errata's own definition of its class was not available to
//    us in full: (**) is the condition privet proves and enforces, not a
//    quotation, and every randomiser admitted below is checked against it.
//
// ---- Which randomisers are in the class (in_stronger_clone_class) --------------
//
//  - binary_randomized_response, and any eps0-LDP randomiser of a
//    two-valued input: x is always x' or x'', and R(x') >= (R(x') + R(x'')) /
//    (e^eps0 + 1) is e^eps0 R(x') >= R(x''), which is eps0-LDP itself.
//  - randomized_response (k-ary, any k >= 2): with r = 1 / (e^eps0 + k - 1),
//    a report y has probability e^eps0 r under input y and r otherwise; the
//    right side of (**) is at most (e^eps0 r + r) / (e^eps0 + 1) = r, and
//    the left side is at least r.
//  - An input outside the domain is reported as a uniform input would be, a
//    mixture of in-domain reports: (**) is linear in R(x), and a mixture on
//    one side of a pair costs no more than its worst component (the
//    hockey-stick divergence is jointly convex), so this changes nothing.
//  Not in the class:
//  - subset_selection with d >= 2 (LDP TrieHH's, whose d is
//    ceil(s / (e^eps0 + 1))): a set O holding x' and x'' but not x has
//    P[O | x] = e^-eps0 P[O | x'] = e^-eps0 P[O | x''], below the
//    2 e^-eps0 P[O | x'] / (1 + e^-eps0) that (**) needs. (With d = 1 it is
//    k-ary randomised response, but the type does not carry d.)
//  - unary encoding / RAPPOR-style bit vectors, for the same reason, and
//    any randomiser privet has not been told about (any_ldp_randomiser).
//  Specialise in_stronger_clone_class for your own randomiser only with a
//  proof that it meets (**) for every input, including those out of domain.
//
// ---- The bounds -----------------------------------------------------------------
//
// Numerical (any R; shuffle_amplification<R>, shuffle_amplification_delta<R>):
// the divergence of P against Q above, evaluated exactly, with q = 2 /
// (e^eps0 + 1) for R in the class (FMT 2023, Theorem 3.2 as restricted by
// the errata) and q = e^-eps0 otherwise (FMT 2021, Theorem 3.2). The
// overloads without R are the latter: they hold for every eps0-LDP
// randomiser. delta(eps) = sum_c Pr[C = c] delta_c, P_c = a B + (1 - a)(B + 1)
// against Q_c = a (B + 1) + (1 - a) B, B ~ Bin(c, 1/2),
// delta_c = sum_x (P_c(x) - e^eps Q_c(x))_+. privet evaluates this exactly:
//  - P_c(x) / Q_c(x) falls with x, so the positive part is the prefix
//    x <= t_c with t_c = floor(rho (c + 1) / (1 + rho)),
//    rho = (a - e^eps (1 - a)) / (e^eps a - (1 - a)), and delta_c is two
//    binomial CDFs; mapping x -> c + 1 - x swaps P_c and Q_c, so both
//    directions of the divergence are equal and one is computed;
//  - every c of a window around the mean of C is summed once (no chunks, so
//    no chunk endpoint can be counted twice), and the mass of C outside the
//    window, bounded by Bernstein's inequality, is *added* to delta
//    (each delta_c <= 1): the tail is cut where it is provably negligible,
//    not summed term by term, so n = 10^7 costs a few hundred terms at
//    eps0 = 10 (the window is about 24 standard deviations of C wide);
//  - a rounding margin is added and nothing is ever subtracted from the
//    total, so delta is never negative and never under-estimated.
// eps(delta) is the smallest eps (bisection, rounded up) with delta(eps) <= delta.
//
// Closed form for the class only (shuffle_amplification_closed_form<R>, which
// does not compile for R outside it): FMT 2023, Theorem 3.1: for
// eps0 <= ln(n / (8 ln(2 / delta)) - 1),
//   eps <= ln(1 + (e^eps0 - 1) (4 sqrt(2 ln(4 / delta)) / sqrt((e^eps0 + 1) n) + 4 / n)).
//
// Closed form for any eps0-LDP randomiser (shuffle_amplification_closed_form_any_ldp):
// FMT 2021, Theorem 3.1,
//   eps <= ln(1 + (e^eps0 - 1) / (e^eps0 + 1) (8 sqrt(e^eps0 ln(4 / delta) / n) + 8 e^eps0 / n)).
// The paper states it for eps0 <= ln(n / (16 ln(2 / delta))); the authors'
// reference code (apple/ml-shuffling-amplification) checks
// eps0 <= ln(n / (16 ln(4 / delta))), and a report on that repository
// (issue 1) argues the paper's 2 should be 4. privet uses the smaller,
// ln(4 / delta) range, which is inside both. (That code's closed form also
// has a slightly larger factor, (1 - e^-eps0) / (1 + e^(-eps0 - e1)) with
// e1 = ln(1 + the bracket), where the statement above has
// (e^eps0 - 1) / (e^eps0 + 1); privet uses the statement, and the tests
// check it against the numerical bound of the same reduction.)
//
// The tests (tests/accounting/shuffle_test.cpp) check each closed form
// against the numerical bound of its own reduction on a grid of (eps0, n,
// delta), the numerical evaluation against a brute-force sum, (**) against
// the randomisers' own probabilities, and, for binary and 3-ary randomised
// response, the class bounds against the exact divergence of shuffled
// reports on neighbouring datasets (lower bounds on the true eps).
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <boost/math/distributions/binomial.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace privet {

// privet's randomisers (mechanisms/randomized_response.hpp,
// mechanisms/subset_selection.hpp); declared here so that the accounting
// layer does not include the mechanisms.
class randomized_response;
class binary_randomized_response;
class subset_selection;

/// A local randomiser known only to be eps0-LDP: the shuffle bounds that
/// hold for every such randomiser.
struct any_ldp_randomiser {};

/// Whether the randomiser type R is in the class for which Feldman,
/// McMillan & Talwar 2023's bounds hold after their errata: R(x) >= (R(x')
/// + R(x'')) / (e^eps0 + 1) for all inputs x and x' != x'' (see the file
/// comment for the argument). True for binary_randomized_response and
/// randomized_response; false for everything else unless specialised, and
/// specialise it only with a proof of that inequality for your randomiser.
template <class R>
struct in_stronger_clone_class : std::false_type {};
template <>
struct in_stronger_clone_class<binary_randomized_response> : std::true_type {};
template <>
struct in_stronger_clone_class<randomized_response> : std::true_type {};

/// in_stronger_clone_class<R>::value for R without cv or reference
/// qualifiers.
template <class R>
inline constexpr bool in_stronger_clone_class_v =
    in_stronger_clone_class<std::remove_cvref_t<R>>::value;

/// A type that names a local randomiser for the shuffle bounds: one of
/// privet's randomisers, any_ldp_randomiser, or your own (class) type.
template <class R>
concept shuffle_randomiser = std::is_class_v<std::remove_cvref_t<R>>;

/// A randomiser in the class of in_stronger_clone_class.
template <class R>
concept stronger_clone_randomiser = shuffle_randomiser<R> && in_stronger_clone_class_v<R>;

namespace detail {

inline void validate_shuffle(double epsilon0, std::uint64_t n) {
  validate_epsilon(epsilon0, "epsilon0");
  validate_at_least<std::uint64_t>(n, 2, "n");
}

// The probability q that another user is a clone (Q0 or Q1 each with
// q / 2), and q / (1 - q) computed without cancellation.
struct clone_rate {
  double q, odds;
};
inline clone_rate clone_rate_any_ldp(double epsilon0) {
  return {std::exp(-epsilon0), 1 / std::expm1(epsilon0)};  // e^-e / (1 - e^-e)
}
inline clone_rate clone_rate_stronger(double epsilon0) {
  return {2 / (std::exp(epsilon0) + 1), 2 / std::expm1(epsilon0)};  // 2 / (e^e + 1) / (1 - q)
}

template <class R>
clone_rate clone_rate_of(double epsilon0) {
  return in_stronger_clone_class_v<R> ? clone_rate_stronger(epsilon0)
                                      : clone_rate_any_ldp(epsilon0);
}

// delta(eps) of P against Q (file comment) with C ~ Bin(n - 1, q).
inline double shuffle_delta(double epsilon0, std::uint64_t n, double epsilon, double clone_p,
                            double clone_odds) {
  if (epsilon >= epsilon0) return 0;               // delta_c = 0 for every c: R <= 0
  const double a = 1 / (1 + std::exp(-epsilon0));  // e^eps0 / (e^eps0 + 1)
  const double ee = std::exp(epsilon);
  const double r = (a - ee * (1 - a)) / (ee * a - (1 - a));
  const double beta = r / (1 + r);
  const double p = clone_p;
  const boost::math::binomial_distribution<double> clones(static_cast<double>(n - 1), p);
  // The window of C around its mean: by Bernstein's inequality each side
  // outside it has mass at most e^-L (here 1e-30), which is added to delta
  // as a whole (each delta_c <= 1) instead of being summed term by term.
  const double mean = static_cast<double>(n - 1) * p;
  const double var = mean * (1 - p);
  constexpr double log_inv_tail = 69.0775527898214;  // ln 1e30
  const double width =
      log_inv_tail / 3 + std::sqrt(log_inv_tail * log_inv_tail / 9 + 2 * log_inv_tail * var);
  const auto lo = static_cast<std::uint64_t>(std::max(0.0, std::floor(mean - width)));
  const auto hi =
      static_cast<std::uint64_t>(std::min(static_cast<double>(n - 1), std::ceil(mean + width)));
  const double outside = (lo > 0 ? 1e-30 : 0.0) + (hi < n - 1 ? 1e-30 : 0.0);
  // Walk c upwards with O(1) recurrences instead of a CDF per c (which, at
  // c in the millions, is what made the reference slow): with B_c ~ Bin(c, 1/2),
  // keep F = P[B_c <= t] and f = P[B_c = t]; B_{c+1} = B_c + a fair bit gives
  // F' = F - f / 2 and f' = (f + P[B_c = t - 1]) / 2, and moving t up by one
  // adds the next pmf term. Weights of C follow their ratio recurrence.
  const double cd_lo = static_cast<double>(lo);
  double t = std::floor(beta * (cd_lo + 1));
  double big_f = 0, small_f = 0;
  if (t >= cd_lo) {
    big_f = 1;
    small_f = t > cd_lo ? 0 : std::ldexp(1.0, -static_cast<int>(std::min(cd_lo, 1100.0)));
  } else {
    const boost::math::binomial_distribution<double> half(cd_lo, 0.5);
    big_f = boost::math::cdf(half, t);
    small_f = boost::math::pdf(half, t);
  }
  double w = boost::math::pdf(clones, cd_lo);
  if (!(w >= std::numeric_limits<double>::min())) {
    // The window starts where C's mass is about 1e-30, far above underflow;
    // a zero here would make the recurrence drop everything.
    throw overflow_error("privet: shuffle_amplification_delta lost C's weights to underflow (n = " +
                         std::to_string(n) + ", epsilon0 = " + detail::format_value(epsilon0) +
                         ")");
  }
  const double odds = clone_odds;
  double delta = 0, magnitude = 0;
  for (std::uint64_t c = lo;; ++c) {
    const double cd = static_cast<double>(c);
    const double f_below = t >= 1 ? small_f * t / (cd - t + 1) : 0;  // P[B_c = t - 1]
    const double cdf_t = std::min(1.0, big_f), cdf_t1 = std::max(0.0, big_f - small_f);
    const double p_mass = a * cdf_t + (1 - a) * cdf_t1;
    const double q_mass = (1 - a) * cdf_t + a * cdf_t1;
    delta += w * std::max(0.0, p_mass - ee * q_mass);  // >= 0 in exact arithmetic
    magnitude += w * (p_mass + ee * q_mass);
    if (c == hi) break;
    // To c + 1.
    if (t <= cd) {
      big_f -= small_f / 2;
      small_f = (small_f + f_below) / 2;
    } else {  // t = c + 1 > c: F stayed 1, f was 0; now P[B_{c+1} = c + 1] = 2^-(c+1)
      small_f = std::ldexp(1.0, -static_cast<int>(std::min(cd + 1, 1100.0)));
    }
    const double t_next = std::floor(beta * (cd + 2));
    if (t_next > t && t_next <= cd + 1) {
      small_f = small_f * (cd + 1 - t) / (t + 1);
      big_f += small_f;
    }
    t = t_next;
    w *= (static_cast<double>(n - 1) - cd) / (cd + 1) * odds;
  }
  // Each recurrence step rounds by a few ulps of numbers <= 1; with
  // (hi - lo + 1) steps, 1e-15 per step and unit of (1 + e^eps) bounds the
  // drift of delta from exact, and 1e-12 of the magnitude covers the rest.
  const double steps = static_cast<double>(hi - lo + 1);
  const double total =
      delta + 1e-12 * magnitude + steps * 1e-15 * (1 + ee) * (magnitude > 0 ? 1 : 0) + outside;
  return std::min(1.0, total);
}

inline approx_dp shuffle_epsilon(double epsilon0, std::uint64_t n, double delta, clone_rate rate) {
  validate_shuffle(epsilon0, n);
  validate_delta_positive(delta);
  const auto d = [&](double e) { return shuffle_delta(epsilon0, n, e, rate.q, rate.odds); };
  double lo = 0, hi = epsilon0;
  if (d(0) <= delta) return approx_dp(0, delta);
  while (hi - lo > 1e-10 * hi) {
    const double mid = (lo + hi) / 2;
    (d(mid) <= delta ? hi : lo) = mid;
  }
  return approx_dp(hi, delta);
}

}  // namespace detail

/// delta(eps) of the numerical bound for randomiser R (see the file
/// comment: the stronger-clone reduction for R in the class, FMT 2021's
/// otherwise), an upper bound on the divergence of the shuffled reports;
/// in [0, 1].
template <shuffle_randomiser R>
double shuffle_amplification_delta(double epsilon0, std::uint64_t n, double epsilon) {
  detail::validate_shuffle(epsilon0, n);
  validate_non_negative(epsilon, "epsilon");
  const detail::clone_rate rate = detail::clone_rate_of<R>(epsilon0);
  return detail::shuffle_delta(epsilon0, n, epsilon, rate.q, rate.odds);
}

/// delta(eps) of FMT 2021's numerical bound, which holds for every eps0-LDP
/// randomiser (the same as shuffle_amplification_delta<any_ldp_randomiser>).
inline double shuffle_amplification_delta(double epsilon0, std::uint64_t n, double epsilon) {
  return shuffle_amplification_delta<any_ldp_randomiser>(epsilon0, n, epsilon);
}

/// The smallest eps (to 1e-10 relative, rounded up) with
/// shuffle_amplification_delta<R>(eps0, n, eps) <= delta; at most eps0.
template <shuffle_randomiser R>
approx_dp shuffle_amplification(double epsilon0, std::uint64_t n, double delta) {
  return detail::shuffle_epsilon(epsilon0, n, delta, detail::clone_rate_of<R>(epsilon0));
}

/// The numerical bound of FMT 2021, for every eps0-LDP randomiser (the
/// same as shuffle_amplification<any_ldp_randomiser>).
inline approx_dp shuffle_amplification(double epsilon0, std::uint64_t n, double delta) {
  return shuffle_amplification<any_ldp_randomiser>(epsilon0, n, delta);
}

/// FMT 2023's closed form (Theorem 3.1), only for a randomiser R in the
/// class its errata restricts it to (in_stronger_clone_class); any other R
/// does not compile. Throws invalid_parameter naming `epsilon0` when
/// eps0 > ln(n / (8 ln(2 / delta)) - 1), outside the theorem's range.
template <shuffle_randomiser R>
approx_dp shuffle_amplification_closed_form(double epsilon0, std::uint64_t n, double delta) {
  static_assert(in_stronger_clone_class_v<R>,
                "privet: the closed form of Feldman, McMillan & Talwar 2023 holds only for "
                "randomisers in its errata's class (binary or k-ary randomised response); for "
                "this randomiser use shuffle_amplification_closed_form_any_ldp or "
                "shuffle_amplification");
  detail::validate_shuffle(epsilon0, n);
  validate_delta_positive(delta);
  const double nd = static_cast<double>(n);
  const double inner = nd / (8 * std::log(2 / delta)) - 1;
  if (!(inner > 1) || epsilon0 > std::log(inner)) {
    throw_invalid("epsilon0", epsilon0,
                  "<= ln(n / (8 ln(2 / delta)) - 1)" +
                      (inner > 1 ? " = " + detail::format_value(std::log(inner))
                                 : std::string(" (no eps0 > 0 qualifies for this n and delta)")));
  }
  const double e0 = std::exp(epsilon0);
  const double factor = 4 * std::sqrt(2 * std::log(4 / delta)) / std::sqrt((e0 + 1) * nd) + 4 / nd;
  return approx_dp(std::log1p(std::expm1(epsilon0) * factor), delta);
}

/// FMT 2021's closed form (Theorem 3.1), for every eps0-LDP randomiser.
/// Throws invalid_parameter naming `epsilon0` when
/// eps0 > ln(n / (16 ln(4 / delta))) (the range; see the file comment).
inline approx_dp shuffle_amplification_closed_form_any_ldp(double epsilon0, std::uint64_t n,
                                                           double delta) {
  detail::validate_shuffle(epsilon0, n);
  validate_delta_positive(delta);
  const double nd = static_cast<double>(n);
  const double inner = nd / (16 * std::log(4 / delta));
  if (!(inner > 1) || epsilon0 > std::log(inner)) {
    throw_invalid("epsilon0", epsilon0,
                  "<= ln(n / (16 ln(4 / delta)))" +
                      (inner > 1 ? " = " + detail::format_value(std::log(inner))
                                 : std::string(" (no eps0 > 0 qualifies for this n and delta)")));
  }
  const double e0 = std::exp(epsilon0);
  const double inside = 8 * std::sqrt(e0 * std::log(4 / delta) / nd) + 8 * e0 / nd;
  return approx_dp(std::log1p(std::expm1(epsilon0) / (e0 + 1) * inside), delta);
}

}  // namespace privet
