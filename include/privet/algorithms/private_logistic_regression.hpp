// privet/algorithms/private_logistic_regression.hpp — logistic regression
// trained and evaluated under Paillier encryption, after Pathak, Sharifi and
// Raj 2011, "Privacy preserving spam filtering" (arXiv:1102.4021): Bob holds the model and the
// keys, Alice (any number of users, in turn or in a batch) holds labelled
// emails, Carol one unlabelled email. Each party is a type that only
// exchanges messages; composed from crypto/paillier*.hpp and
// crypto/secure_comparison.hpp.
//
// Model and fixed point. P(y | x, w) = 1 / (1 + e^{-y w^T x}) on binary
// features x in {0, 1}^d (sparse: the active indices), y in {-1, +1}, and
// gradient ascent w <- (1 - 2 lambda eta) w + eta sum_i y_i x_i s(-y_i w^T x_i)
// over a block of emails (the L2 term shrinks w, as ml/logistic_regression.hpp
// does). Weights are mantissas wbar = round(C w) at the scale C of S; the
// learning rate and the shrink factor are mantissas at the scale C_R of R.
//
// The sigmoid. The paper's steps 5-9 exponentiate a share of y w^T x that is
// masked by a uniform r: e^(z - r) of a uniformly masked z is not a number a
// plaintext can hold, and a mask small enough to keep it representable hides
// nothing. privet takes the paper's other suggestion, a piecewise-linear
// sigmoid computed under encryption, s(-z) ~ h(z) = clamp(1/2 - z/4, 0, 1),
// exact in fixed point: with t = 2C - z (z = y wbar^T x), 4 C h = g =
// clamp(t, 0, 4C) = t (b1 - b2) + 4C b2, b1 = [t > 0], b2 = [t - 4C > 0].
//   - b1 and b2 come from two secure comparisons of additive shares
//     (comparison::share_client/share_server with output_party::shared):
//     Alice holds r uniform in Z_n, Bob m = t - r (he decrypts E[t - r]),
//     and the comparisons leave each bit XOR-shared, b = alpha xor beta.
//   - t b = alpha t + beta (1 - 2 alpha) t. Alice sends E[u] with u =
//     (1 - 2 alpha) t + 2^l + rho, rho uniform in [0, 2^(l + 1 + kappa)) (u
//     hides t within statistical distance 2^-kappa and is never negative);
//     Bob decrypts u and returns E[beta] and E[beta u]; Alice removes beta
//     (2^l + rho) homomorphically.
//   - g, then y g, then the block gradient G_j = sum_i y_i x_ij g_i, all
//     under encryption; G is packed (crypto/paillier_packing.hpp:
//     ciphertext_packing) and re-randomised, and Bob decrypts G and sets
//     wbar' = round((abar wbar + etabar G) / C_R), abar = round(C_R (1 - 2
//     lambda eta)), etabar = round(C_R eta / 4).
// reference_model runs the same integer arithmetic in the clear: the private
// protocol trains the identical model, bit for bit (tested), which is
// stronger than the paper's "equal AUC to 5 significant digits".
//
// What each party learns (honest but curious). Bob: n - uniform values (m),
// statistically masked u's, the comparison transcripts (which hide their
// inputs), and the block gradient G, which the protocol reveals by design:
// the paper's bound H[x_i | G] <= (K - 1)/K H[x_i] + log K is why blocks
// have at least K = block_size emails (K = 1 only with allow_single_email_blocks),
// and a user's block size is public. Alice: ciphertexts only (Paillier and
// DGK). Carol: [w^T x' > 0]. Every ciphertext Alice sends is fresh or
// re-randomised, so none can be matched to one Bob sent.
//
// Ranges, all public and checked when the parties are made: |wbar_j| <=
// Wbar = floor(C max_weight), and Bob throws overflow_error when an update
// would pass it (never clamps); an email has at most max_active features;
// |t| <= 2C + A Wbar, so the comparisons use l = bits(6C + A Wbar) bits
// and need n >= 2^(l + kappa + 2); |G_j| <= 4C x (emails per update).
// Nothing is ever reduced mod n behind anyone's back.
//
// Costs are counted per party (counters): Paillier encryptions,
// decryptions, ciphertexts sent, and the DGK side of the comparisons.
// Per email: Alice 3 encryptions; Bob 3 decryptions and 4 encryptions; two
// l-bit comparisons. Per update: Bob d encryptions (E[w]) and
// ceil(d / slots) decryptions (packed G). The paper's 3n + 2d counts its own
// protocol (exponential sigmoid, no packing); the example prints both.
#pragma once

#include <privet/core/csprng.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/dgk.hpp>
#include <privet/crypto/fixed_point.hpp>
#include <privet/crypto/paillier.hpp>
#include <privet/crypto/paillier_batch.hpp>
#include <privet/crypto/paillier_packing.hpp>
#include <privet/crypto/secure_comparison.hpp>
#include <privet/ml/model.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace privet::private_lr {

/// An integer type both Paillier and DGK run on (cpp_int types, mpz_int).
template <class Int>
concept integer = paillier::integer<Int> && dgk::integer<Int>;

/// What every party agrees on before training; all public.
struct parameters {
  std::uint32_t dimension = 0;                           ///< d, features in [0, d)
  std::size_t block_size = 100;                          ///< K: least emails per gradient Bob sees
  bool allow_single_email_blocks = false;                ///< K = 1 reveals each email to Bob
  double learning_rate = 0.1;                            ///< eta
  double l2 = 0.0;                                       ///< lambda; 2 lambda eta < 1
  double max_weight = 8.0;                               ///< |w_j| <= max_weight, enforced by Bob
  std::uint32_t max_active = 0;                          ///< most features per email (0: d)
  std::size_t max_update_emails = std::size_t{1} << 20;  ///< emails behind one update
  std::size_t statistical_security = 40;                 ///< kappa
  /// How every party encrypts: textbook Paillier (DCR alone) unless the
  /// parties accept DJN's short-exponent assumption for ~40x faster
  /// encryption (crypto/paillier.hpp).
  paillier::encryption_mode mode = paillier::encryption_mode::textbook;
  paillier::batch_options threads{};  ///< parallelism of the per-email work
};

/// Work done by one party.
struct counters {
  std::uint64_t encryptions = 0;           ///< Paillier
  std::uint64_t decryptions = 0;           ///< Paillier
  std::uint64_t ciphertexts_sent = 0;      ///< Paillier ciphertexts in sent messages
  std::uint64_t dgk_ciphertexts_sent = 0;  ///< DGK ciphertexts sent in the comparisons
  std::uint64_t comparisons = 0;  ///< comparisons joined: 2 per training email, 1 per query
  std::uint64_t emails = 0;       ///< training emails done (Alice: gradient(); Bob: products())
};

// ---- messages -------------------------------------------------------------------

/// Bob -> users: E[w] for one iteration (steps 1 of training and evaluation).
template <class Int>
struct weights_message {
  std::uint64_t iteration = 0;                     ///< Bob's iteration when he encrypted w
  std::vector<paillier::ciphertext<Int>> weights;  ///< E[wbar_j], j in [0, d)
};

/// Alice -> Bob: per email, E[t - r] and the two comparisons' masked shares.
template <class Int>
struct margins_message {
  std::uint64_t iteration = 0;                        ///< the iteration of the weights used
  std::uint64_t user = 0;                             ///< Alice's user id
  std::vector<paillier::ciphertext<Int>> masked;      ///< E[t_i - r_i], one per email
  std::vector<comparison::masked_share<Int>> shares;  ///< 2 per email: [t > 0], [t > 4C]
};

/// Bob -> Alice: the comparisons' encrypted bits, 2 per email.
template <class Int>
struct bits_message {
  std::uint64_t iteration = 0;                        ///< as in the margins answered
  std::uint64_t user = 0;                             ///< as in the margins answered
  std::vector<comparison::encrypted_bits<Int>> bits;  ///< the comparisons' round 1, 2 per email
};

/// Alice -> Bob: the blinded tests (2 per email) and E[u] (2 per email).
template <class Int>
struct tests_message {
  std::uint64_t iteration = 0;                        ///< as in the bits answered
  std::uint64_t user = 0;                             ///< Alice's user id
  std::vector<comparison::blinded_tests<Int>> tests;  ///< the comparisons' round 2, 2 per email
  std::vector<paillier::ciphertext<Int>> masked_products;  ///< E[u], 2 per email
};

/// Bob -> Alice: E[beta] and E[beta u], 2 each per email.
template <class Int>
struct products_message {
  std::uint64_t iteration = 0;                        ///< as in the tests answered
  std::uint64_t user = 0;                             ///< as in the tests answered
  std::vector<paillier::ciphertext<Int>> bit_shares;  ///< E[beta], 2 per email
  std::vector<paillier::ciphertext<Int>> products;    ///< E[beta u], 2 per email
};

/// Alice -> Bob: her block's gradient, packed and re-randomised.
template <class Int>
struct gradient_message {
  std::uint64_t iteration = 0;                    ///< the iteration of the weights used
  std::uint64_t user = 0;                         ///< Alice's user id
  std::size_t emails = 0;                         ///< the emails of the block (public)
  std::vector<paillier::ciphertext<Int>> packed;  ///< E[G] in ciphertext_packing's slots
};

/// Carol -> Bob: E[w^T x' - r] and the comparison's masked share.
template <class Int>
struct query_message {
  std::uint64_t iteration = 0;          ///< the iteration of the weights used
  paillier::ciphertext<Int> masked;     ///< E[w^T x' - r]
  comparison::masked_share<Int> share;  ///< the comparison's masked share of r
};

namespace detail {

[[noreturn]] inline void fail(const char* party, const std::string& why) {
  throw protocol_error(std::string("privet: private logistic regression ") + party + ": " + why);
}

template <class Int>
Int power(std::uint32_t base, std::uint32_t exponent) {
  Int v = 1;
  for (std::uint32_t i = 0; i < exponent; ++i) v *= base;
  return v;
}

// round(x / d) for d > 0, halves away from zero: the same in the clear and
// after decryption.
template <class Int>
Int round_div(const Int& x, const Int& d) {
  const Int half = d / 2;
  if (x >= 0) return Int((x + half) / d);
  return Int(-Int((-x + half) / d));
}

template <class Int>
Int round_to_int(double x) {
  // Exact for the magnitudes parameters allow (checked below 2^62).
  return Int(static_cast<long long>(std::llround(x)));
}

/// Everything derived from the parameters and the scales; computed the same
/// way by every party.
template <class Int>
struct plan {
  parameters p;
  Int c;       // C
  Int c_rate;  // C_R
  Int max_w;   // Wbar
  Int shrink;  // abar
  Int rate;    // etabar
  std::uint32_t active = 0;
  std::size_t train_bits = 0;  // l for training comparisons
  std::size_t eval_bits = 0;   // l for Carol's comparison

  // |G_j| <= 4 C e for e emails behind an update.
  [[nodiscard]] Int gradient_bound(std::size_t emails) const { return Int(4) * c * Int(emails); }
};

template <class Int, class S, class R>
plan<Int> make_plan(const parameters& p) {
  if (p.dimension < 1) throw_invalid("dimension", p.dimension, ">= 1");
  if (p.block_size < 1 || (p.block_size == 1 && !p.allow_single_email_blocks)) {
    throw_invalid("block_size", p.block_size,
                  p.allow_single_email_blocks
                      ? ">= 1"
                      : ">= 2 (a block of one email shows Bob that email's features; set "
                        "allow_single_email_blocks to accept that)");
  }
  if (p.max_update_emails < p.block_size) {
    throw_invalid("max_update_emails", p.max_update_emails,
                  ">= block_size = " + std::to_string(p.block_size));
  }
  if (!(std::isfinite(p.learning_rate) && p.learning_rate > 0 && p.learning_rate <= 1e6)) {
    throw_invalid("learning_rate", p.learning_rate, "(0, 1e6]");
  }
  if (!(std::isfinite(p.l2) && p.l2 >= 0 && 2 * p.l2 * p.learning_rate < 1)) {
    throw_invalid("l2", p.l2, ">= 0 with 2 l2 learning_rate < 1");
  }
  if (!(std::isfinite(p.max_weight) && p.max_weight > 0 && p.max_weight <= 1e9)) {
    throw_invalid("max_weight", p.max_weight, "(0, 1e9]");
  }
  if (p.max_active > p.dimension) {
    throw_invalid("max_active", p.max_active,
                  "[0, dimension = " + std::to_string(p.dimension) + "] (0: dimension)");
  }
  if (p.statistical_security < comparison::min_statistical_security ||
      p.statistical_security > comparison::max_statistical_security) {
    throw_invalid("statistical_security", p.statistical_security,
                  "[" + std::to_string(comparison::min_statistical_security) + ", " +
                      std::to_string(comparison::max_statistical_security) + "]");
  }
  validate_parallel_options(p.threads);
  plan<Int> out;
  out.p = p;
  out.c = power<Int>(S::base, S::digits);
  out.c_rate = power<Int>(R::base, R::digits);
  const double c = static_cast<double>(out.c);
  const double cr = static_cast<double>(out.c_rate);
  if (c * p.max_weight >= 0x1p62) {
    throw_invalid("max_weight", p.max_weight,
                  "C max_weight below 2^62 (a smaller scale S or max_weight)");
  }
  if (cr * p.learning_rate >= 0x1p62) {
    throw_invalid("learning_rate", p.learning_rate,
                  "C_R learning_rate below 2^62 (a smaller scale R or learning_rate)");
  }
  out.max_w = round_to_int<Int>(std::floor(c * p.max_weight));
  if (out.max_w < 1) throw_invalid("max_weight", p.max_weight, ">= 1 / C");
  out.shrink = round_to_int<Int>(cr * (1 - 2 * p.l2 * p.learning_rate));
  out.rate = round_to_int<Int>(cr * p.learning_rate / 4);
  if (out.rate < 1) {
    throw_invalid("learning_rate", p.learning_rate,
                  ">= 2 / C_R (round(C_R learning_rate / 4) must be at least 1)");
  }
  out.active = p.max_active == 0 ? p.dimension : p.max_active;
  const Int spread = Int(out.active) * out.max_w;
  out.train_bits = privet::detail::bits_of(Int(Int(6) * out.c + spread));
  out.eval_bits = privet::detail::bits_of(spread);
  return out;
}

// Mantissas at scale c as reals.
template <class Int>
std::vector<double> values(const std::vector<Int>& mantissas, const Int& c) {
  std::vector<double> out;
  out.reserve(mantissas.size());
  for (const Int& v : mantissas) out.push_back(static_cast<double>(v) / static_cast<double>(c));
  return out;
}

template <class Int>
void check_keys(const plan<Int>& pl, const paillier::public_key<Int>& pk,
                const dgk::public_key<Int>& dk) {
  const std::size_t l = std::max(pl.train_bits, pl.eval_bits);
  if (dk.plaintext_modulus() < l + 2) {
    throw invalid_parameter(
        "comparison_key",
        "privet: the DGK key's plaintext prime u = " + std::to_string(dk.plaintext_modulus()) +
            " is too small for " + std::to_string(l) +
            "-bit comparisons; allowed: u >= l + 2 (a key from "
            "dgk::key_parameters::for_comparison(" +
            std::to_string(l) + "))");
  }
  if (pk.bits() < l + pl.p.statistical_security + 3) {
    throw invalid_parameter(
        "key", "privet: a " + std::to_string(pk.bits()) +
                   "-bit Paillier modulus is too small for " + std::to_string(l) +
                   "-bit comparisons at kappa = " + std::to_string(pl.p.statistical_security) +
                   "; allowed: n >= 2^(l + kappa + 2)");
  }
  // The largest update and every packed gradient must stay below (n-1)/2.
  const Int top = Int(pl.shrink * pl.max_w + pl.rate * pl.gradient_bound(pl.p.max_update_emails));
  if (top > pk.max_signed()) {
    throw invalid_parameter("max_update_emails",
                            "privet: updates over " + std::to_string(pl.p.max_update_emails) +
                                " emails could pass (n-1)/2; allowed: fewer emails per update "
                                "or a larger key");
  }
}

// The plan, with the keys checked against it before any party builds its
// comparisons (whose own checks would name `bits` or `modulus`, not the key).
template <class Int, class S, class R>
plan<Int> make_checked_plan(const parameters& p, const paillier::public_key<Int>& pk,
                            const dgk::public_key<Int>& dk) {
  plan<Int> pl = make_plan<Int, S, R>(p);
  check_keys(pl, pk, dk);
  return pl;
}

// A block whose comparisons failed part-way cannot resume: some of them have
// moved on. The party marks it aborted and says so on every later call.
inline constexpr int aborted_block = 3;

// Enc(k) with r = 1 for a public constant k in [0, n): 1 + k n.
template <class Int>
paillier::ciphertext<Int> constant(const paillier::public_key<Int>& pk, const Int& k) {
  return paillier::ciphertext<Int>(pk, Int((Int(1) + k * pk.n()) % pk.n_squared()));
}

template <class Int>
Int mod_n(const Int& x, const Int& n) {
  Int r = x % n;
  if (r < 0) r += n;
  return r;
}

inline int signed_label(int label) {
  if (label == 1) return 1;
  if (label == -1 || label == 0) return -1;
  throw_invalid("label", label, "1 (spam), or -1 or 0 (ham)");
}

template <class Int>
comparison::share_parameters<Int> share_params(const Int& n, std::size_t bits, std::size_t kappa,
                                               comparison::output_party out,
                                               std::uint64_t session) {
  return comparison::share_parameters<Int>{n, bits, kappa, out, session};
}

// The session of comparison k of email i: distinct within a block.
inline std::uint64_t comparison_session(std::size_t email, int k) {
  return 2 * static_cast<std::uint64_t>(email) + static_cast<std::uint64_t>(k);
}

template <class Int>
void check_email(const std::vector<std::uint32_t>& x, const plan<Int>& pl, std::size_t i) {
  if (x.size() > pl.active) {
    throw invalid_parameter(
        "email",
        "privet: email " + std::to_string(i) + " has " + std::to_string(x.size()) +
            " active features; allowed: at most max_active = " + std::to_string(pl.active));
  }
  std::vector<std::uint32_t> sorted(x);
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    if (sorted[k] >= pl.p.dimension) {
      throw invalid_parameter("email", "privet: email " + std::to_string(i) + " has feature " +
                                           std::to_string(sorted[k]) + "; allowed: [0, " +
                                           std::to_string(pl.p.dimension) + ")");
    }
    if (k > 0 && sorted[k] == sorted[k - 1]) {
      throw invalid_parameter("email", "privet: email " + std::to_string(i) + " lists feature " +
                                           std::to_string(sorted[k]) +
                                           " twice; allowed: each feature once");
    }
  }
}

template <class Int>
void check_weights(const weights_message<Int>& m, const plan<Int>& pl,
                   const paillier::public_key<Int>& pk, const char* party) {
  if (m.weights.size() != pl.p.dimension) {
    fail(party, "received " + std::to_string(m.weights.size()) +
                    " encrypted weights; expected d = " + std::to_string(pl.p.dimension));
  }
  for (std::size_t j = 0; j < m.weights.size(); ++j) {
    if (!(m.weights[j].key() == pk)) {
      fail(party, "encrypted weight " + std::to_string(j) + " is under another key");
    }
  }
}

// E[sum_{j in x} w_j].
template <class Int>
paillier::ciphertext<Int> dot(const paillier::public_key<Int>& pk,
                              const std::vector<paillier::ciphertext<Int>>& w,
                              const std::vector<std::uint32_t>& x) {
  paillier::ciphertext<Int> acc = constant(pk, Int(0));
  for (auto j : x) acc += w[j];
  return acc;
}

}  // namespace detail

/// The bits l of the protocol's comparisons for these parameters: Bob's DGK
/// key needs a plaintext prime u >= l + 2, e.g. from
/// dgk::key_parameters::for_comparison(comparison_bits<Int>(p)).
template <integer Int, paillier::fixed_point_scale S = paillier::binary_scale<16>,
          paillier::fixed_point_scale R = paillier::binary_scale<20>>
std::size_t comparison_bits(const parameters& p) {
  const auto pl = detail::make_plan<Int, S, R>(p);
  return std::max(pl.train_bits, pl.eval_bits);
}

/// The integer arithmetic of the protocol in the clear: what the private
/// protocol computes, bit for bit, for the same blocks.
template <integer Int, paillier::fixed_point_scale S = paillier::binary_scale<16>,
          paillier::fixed_point_scale R = paillier::binary_scale<20>>
class reference_model {
 public:
  /// w = 0 for `p`. Throws invalid_parameter naming the first parameter
  /// out of range (the same checks as every party's; no key is involved).
  explicit reference_model(const parameters& p)
      : plan_(detail::make_plan<Int, S, R>(p)), w_(p.dimension, Int(0)) {}

  /// z = wbar^T x (scale C) for an email's active features.
  /// Throws invalid_parameter naming `email` as Carol's query does.
  [[nodiscard]] Int score(const std::vector<std::uint32_t>& x) const {
    detail::check_email(x, plan_, 0);
    Int z = 0;
    for (auto j : x) z += w_[j];
    return z;
  }
  /// score(x) / C: w^T x as a real. Throws as score.
  [[nodiscard]] double score_value(const std::vector<std::uint32_t>& x) const {
    return static_cast<double>(score(x)) / static_cast<double>(plan_.c);
  }

  /// The block gradient G (scale C, times 4) of a block under the current w.
  /// Throws invalid_parameter naming `email` or `label` for an email outside
  /// the parameters or a label other than 1, 0 or -1.
  [[nodiscard]] std::vector<Int> gradient(const ml::sparse_binary_batch& block) const {
    std::vector<Int> g(plan_.p.dimension, Int(0));
    const Int four_c = Int(4) * plan_.c;
    for (std::size_t i = 0; i < block.size(); ++i) {
      detail::check_email(block.features[i], plan_, i);
      const int y = detail::signed_label(block.y[i]);
      const Int z = y > 0 ? score(block.features[i]) : Int(-score(block.features[i]));
      const Int t = Int(2) * plan_.c - z;
      const Int gi = t <= 0 ? Int(0) : (t > four_c ? four_c : t);
      for (auto j : block.features[i]) g[j] += y > 0 ? gi : Int(-gi);
    }
    return g;
  }

  /// One update from a summed block gradient g (as Bob applies it). Throws
  /// invalid_parameter naming `gradient.size()` unless g has d entries, and
  /// overflow_error (w unchanged) when a weight would pass max_weight.
  void apply(std::span<const Int> g) { w_ = updated(plan_, w_, g); }
  /// gradient + apply for one block; throws as they do.
  void train_block(const ml::sparse_binary_batch& block) {
    const auto g = gradient(block);
    apply(g);
  }

  /// The weights as mantissas wbar_j at scale C.
  [[nodiscard]] const std::vector<Int>& mantissas() const noexcept { return w_; }
  /// The weights as reals, wbar_j / C.
  [[nodiscard]] std::vector<double> weights() const { return detail::values(w_, plan_.c); }
  /// What every party derives from the parameters (scales, bounds,
  /// comparison bits); a detail type, for tests and for updated().
  [[nodiscard]] const detail::plan<Int>& plan() const noexcept { return plan_; }

  /// wbar' = round((abar wbar + etabar G) / C_R), each checked against Wbar.
  static std::vector<Int> updated(const detail::plan<Int>& pl, const std::vector<Int>& w,
                                  std::span<const Int> g) {
    if (g.size() != w.size()) {
      throw_invalid("gradient.size()", g.size(), std::to_string(w.size()) + " (d)");
    }
    std::vector<Int> out(w.size());
    for (std::size_t j = 0; j < w.size(); ++j) {
      out[j] = detail::round_div(Int(pl.shrink * w[j] + pl.rate * g[j]), pl.c_rate);
      if (out[j] > pl.max_w || out[j] < -pl.max_w) {
        throw overflow_error(
            "privet: weight " + std::to_string(j) + " would become " +
            privet::detail::format_value(static_cast<double>(out[j]) / static_cast<double>(pl.c)) +
            "; allowed: |w_j| <= max_weight = " + privet::detail::format_value(pl.p.max_weight) +
            " (raise max_weight, lower the learning rate or add L2)");
      }
    }
    return out;
  }

 private:
  detail::plan<Int> plan_;
  std::vector<Int> w_;
};

/// Bob: the model, the Paillier key pair and the DGK key of the comparisons.
template <integer Int, paillier::fixed_point_scale S = paillier::binary_scale<16>,
          paillier::fixed_point_scale R = paillier::binary_scale<20>>
class bob {
 public:
  /// Throws invalid_parameter for parameters out of range or keys too
  /// small for them (see the file comment).
  bob(paillier::private_key<Int> key, dgk::private_key<Int> comparison_key, const parameters& p)
      : key_(std::move(key)),
        cmp_key_(std::move(comparison_key)),
        plan_(detail::make_plan<Int, S, R>(p)),
        w_(p.dimension, Int(0)),
        enc_key_(key_.public_key().with_mode(p.mode)) {
    detail::check_keys(plan_, key_.public_key(), cmp_key_.public_key());
    layout_.emplace(key_.public_key(), plan_.gradient_bound(p.block_size),
                    (p.max_update_emails + p.block_size - 1) / p.block_size);
  }

  /// The Paillier public key, for Alice and Carol.
  [[nodiscard]] const paillier::public_key<Int>& public_key() const noexcept {
    return key_.public_key();
  }
  /// The DGK public key of the comparisons, for Alice and Carol.
  [[nodiscard]] const dgk::public_key<Int>& comparison_key() const noexcept {
    return cmp_key_.public_key();
  }
  /// The current iteration, counted from 0 (update() and skip() advance it).
  [[nodiscard]] std::uint64_t iteration() const noexcept { return iteration_; }
  /// The weights as mantissas wbar_j at scale C.
  [[nodiscard]] const std::vector<Int>& mantissas() const noexcept { return w_; }
  /// The weights as reals, wbar_j / C.
  [[nodiscard]] std::vector<double> weights() const { return detail::values(w_, plan_.c); }
  /// Bob's work so far, over every block and query (a snapshot).
  [[nodiscard]] counters work() const {
    counters c;
    c.encryptions = enc_.load();
    c.decryptions = dec_.load();
    c.ciphertexts_sent = sent_.load();
    c.dgk_ciphertexts_sent = dgk_sent_.load();
    c.comparisons = cmp_.load();
    c.emails = emails_.load();
    return c;
  }

  /// Step 1: E[w] for the current iteration (d encryptions).
  template <random_bit_source G>
  weights_message<Int> publish(G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    weights_message<Int> m;
    m.iteration = iteration_;
    std::vector<Int> plain(w_.size());
    const Int& n = key_.public_key().n();
    for (std::size_t j = 0; j < w_.size(); ++j) plain[j] = detail::mod_n(w_[j], n);
    m.weights = paillier::encrypt(enc_key_, std::span<const Int>(plain), gen, plan_.p.threads);
    enc_ += w_.size();
    sent_ += w_.size();
    return m;
  }
  /// The same with the thread's CSPRNG (secure_generator()).
  weights_message<Int> publish() { return publish(secure_generator()); }

  /// Bob's side of one user's block in the current iteration.
  class block_server {
   public:
    /// Steps 3-4 and the comparisons' round 1: decrypts E[t - r], keeps the
    /// shares, returns the encrypted bits. Throws protocol_error, changing
    /// nothing, for a block that is aborted or already has its margins,
    /// another iteration or user, fewer than block_size emails, a share
    /// count other than two per email, a ciphertext under another key, or a
    /// refused masked share.
    template <random_bit_source G>
    bits_message<Int> bits(const margins_message<Int>& m, G& gen) {
      PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
      check_not_aborted();
      if (stage_ != 0) detail::fail("Bob", "received margins twice for one block (replayed)");
      check_header(m.iteration, m.user, "margins");
      const std::size_t e = m.masked.size();
      if (e < owner_->plan_.p.block_size) {
        detail::fail("Bob", "a block of " + std::to_string(e) +
                                " emails; allowed: at least block_size = " +
                                std::to_string(owner_->plan_.p.block_size));
      }
      if (m.shares.size() != 2 * e) {
        detail::fail("Bob", "the margins carry " + std::to_string(m.shares.size()) +
                                " masked shares for " + std::to_string(e) +
                                " emails; expected two per email");
      }
      const auto& pk = owner_->key_.public_key();
      for (std::size_t i = 0; i < e; ++i) {
        if (!(m.masked[i].key() == pk)) {
          detail::fail("Bob", "masked margin " + std::to_string(i) + " is under another key");
        }
      }
      const auto& pl = owner_->plan_;
      const Int& n = pk.n();
      servers_.clear();
      servers_.reserve(2 * e);
      for (std::size_t i = 0; i < e; ++i) {
        for (int k = 0; k < 2; ++k) {
          servers_.emplace_back(owner_->cmp_key_,
                                detail::share_params(n, pl.train_bits, pl.p.statistical_security,
                                                     comparison::output_party::shared,
                                                     detail::comparison_session(i, k)));
        }
      }
      std::vector<Int> shares(2 * e);
      bits_message<Int> out;
      out.iteration = m.iteration;
      out.user = m.user;
      out.bits.resize(2 * e);
      const auto streams = streams_from(gen);
      std::vector<std::string> errors(e);
      parallel_for_index(e, pl.p.threads, [&](std::size_t i) {
        auto g = streams.stream(i);
        const Int mi = owner_->key_.decrypt(m.masked[i]);
        // r - s = t for s = -m, and r - (s + 4C) = t - 4C.
        const Int s1 = detail::mod_n(Int(-mi), n);
        const Int s2 = detail::mod_n(Int(s1 + Int(4) * pl.c), n);
        try {
          out.bits[2 * i] = servers_[2 * i].receive(m.shares[2 * i], s1, g);
          out.bits[2 * i + 1] = servers_[2 * i + 1].receive(m.shares[2 * i + 1], s2, g);
        } catch (const protocol_error& err) {
          errors[i] = std::string("email ") + std::to_string(i) + ": " + err.what();
        }
      });
      // Nothing has changed yet: the comparison servers are made afresh by
      // the next call, so a genuine message can follow a refused one.
      for (const auto& err : errors) {
        if (!err.empty()) detail::fail("Bob", err);
      }
      owner_->dec_ += e;
      owner_->cmp_ += 2 * e;
      owner_->dgk_sent_ += 2 * e * pl.train_bits;
      emails_ = e;
      stage_ = 1;
      return out;
    }
    /// The same with the thread's CSPRNG (secure_generator()).
    bits_message<Int> bits(const margins_message<Int>& m) { return bits(m, secure_generator()); }

    /// The comparisons' round 3 (Bob keeps his bit shares beta) and the
    /// multiplications: decrypts each u, returns E[beta] and E[beta u].
    /// Throws protocol_error for a message out of order, replayed, of
    /// another iteration or user, of the wrong length or under another key;
    /// a refused test or a u outside [0, 2^(l + 2 + kappa)) also aborts the
    /// block (its user may send a new block next iteration).
    template <random_bit_source G>
    products_message<Int> products(const tests_message<Int>& m, G& gen) {
      PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
      check_not_aborted();
      if (stage_ != 1) {
        detail::fail("Bob", stage_ == 0 ? "received tests before margins (out of order)"
                                        : "received tests twice for one block (replayed)");
      }
      check_header(m.iteration, m.user, "tests");
      const std::size_t e = emails_;
      if (m.tests.size() != 2 * e || m.masked_products.size() != 2 * e) {
        detail::fail("Bob", "the tests message holds " + std::to_string(m.tests.size()) +
                                " tests and " + std::to_string(m.masked_products.size()) +
                                " masked products; expected " + std::to_string(2 * e) + " each");
      }
      const auto& pk = owner_->key_.public_key();
      for (std::size_t i = 0; i < 2 * e; ++i) {
        if (!(m.masked_products[i].key() == pk)) {
          detail::fail("Bob", "masked product " + std::to_string(i) + " is under another key");
        }
      }
      const auto& pl = owner_->plan_;
      const Int limit =
          Int(1) << static_cast<unsigned>(pl.train_bits + 2 + pl.p.statistical_security);
      products_message<Int> out;
      out.iteration = m.iteration;
      out.user = m.user;
      std::vector<Int> plain(4 * e);
      std::vector<std::string> errors(2 * e);
      parallel_for_index(2 * e, pl.p.threads, [&](std::size_t i) {
        try {
          const bool beta = servers_[i].share(m.tests[i]);
          const Int u = owner_->key_.decrypt(m.masked_products[i]);
          if (u >= limit) {
            errors[i] = "masked product " + std::to_string(i) +
                        " is outside [0, 2^(l + 2 + kappa)): not a masked t";
            return;
          }
          plain[2 * i] = beta ? Int(1) : Int(0);
          plain[2 * i + 1] = beta ? u : Int(0);
        } catch (const protocol_error& err) {
          errors[i] = std::string("comparison ") + std::to_string(i) + ": " + err.what();
        }
      });
      for (const auto& err : errors) {
        if (!err.empty()) abort_block(err);
      }
      auto cts =
          paillier::encrypt(owner_->enc_key_, std::span<const Int>(plain), gen, pl.p.threads);
      out.bit_shares.reserve(2 * e);
      out.products.reserve(2 * e);
      for (std::size_t i = 0; i < 2 * e; ++i) {
        out.bit_shares.push_back(std::move(cts[2 * i]));
        out.products.push_back(std::move(cts[2 * i + 1]));
      }
      owner_->dec_ += 2 * e;
      owner_->enc_ += 4 * e;
      owner_->sent_ += 4 * e;
      owner_->emails_ += e;
      stage_ = 2;
      return out;
    }
    /// The same with the thread's CSPRNG (secure_generator()).
    products_message<Int> products(const tests_message<Int>& m) {
      return products(m, secure_generator());
    }

    /// The user this block is served for.
    [[nodiscard]] std::uint64_t user() const noexcept { return user_; }

   private:
    friend class bob;
    block_server(bob* owner, std::uint64_t user) : owner_(owner), user_(user) {}

    void check_not_aborted() const {
      if (stage_ == detail::aborted_block) {
        detail::fail("Bob", "the block of user " + std::to_string(user_) +
                                " was aborted by an earlier error; its user may send a block "
                                "again in the next iteration");
      }
    }
    [[noreturn]] void abort_block(const std::string& why) {
      stage_ = detail::aborted_block;
      detail::fail("Bob", why + " (the block is aborted)");
    }

    void check_header(std::uint64_t iteration, std::uint64_t user, const char* what) const {
      if (iteration != owner_->iteration_) {
        detail::fail("Bob", std::string("the ") + what + " belong to iteration " +
                                std::to_string(iteration) + ", not " +
                                std::to_string(owner_->iteration_) + " (stale or replayed)");
      }
      if (user != user_) {
        detail::fail("Bob", std::string("the ") + what + " come from user " + std::to_string(user) +
                                ", not " + std::to_string(user_));
      }
    }

    bob* owner_;
    std::uint64_t user_;
    int stage_ = 0;
    std::size_t emails_ = 0;
    std::vector<comparison::share_server<Int>> servers_;
  };

  /// A block server for `user` in the current iteration; each user serves
  /// at most one block per iteration (invalid_parameter otherwise).
  block_server serve(std::uint64_t user) {
    for (auto u : served_) {
      if (u == user) {
        throw invalid_parameter(
            "user", "privet: user " + std::to_string(user) + " already has a block in iteration " +
                        std::to_string(iteration_) + "; allowed: one block per user per iteration");
      }
    }
    served_.push_back(user);
    return block_server(this, user);
  }

  /// Step 12's input: a user's packed gradient, added to the iteration's
  /// sum (protocol_error for a stale, duplicated or malformed one).
  void receive(const gradient_message<Int>& m) {
    if (m.iteration != iteration_) {
      detail::fail("Bob", "a gradient of iteration " + std::to_string(m.iteration) + ", not " +
                              std::to_string(iteration_) + " (stale or replayed)");
    }
    bool known = false;
    for (auto u : served_) known = known || u == m.user;
    if (!known)
      detail::fail("Bob", "a gradient from user " + std::to_string(m.user) + ", who has no block");
    for (auto u : received_) {
      if (u == m.user) {
        detail::fail("Bob", "a second gradient from user " + std::to_string(m.user) +
                                " in iteration " + std::to_string(iteration_) + " (replayed)");
      }
    }
    const auto& pl = plan_;
    if (m.emails < pl.p.block_size) {
      detail::fail(
          "Bob", "a gradient over " + std::to_string(m.emails) +
                     " emails; allowed: at least block_size = " + std::to_string(pl.p.block_size));
    }
    if (emails_in_sum_ + m.emails > pl.p.max_update_emails) {
      detail::fail("Bob", "the iteration's gradients would cover more than max_update_emails = " +
                              std::to_string(pl.p.max_update_emails) + " emails");
    }
    const std::size_t slots_per = layout_->packed_count(pl.p.dimension);
    if (m.packed.size() != slots_per) {
      detail::fail("Bob", "a packed gradient of " + std::to_string(m.packed.size()) +
                              " ciphertexts; expected " + std::to_string(slots_per));
    }
    const auto& pk = key_.public_key();
    for (std::size_t c = 0; c < m.packed.size(); ++c) {
      if (!(m.packed[c].key() == pk)) {
        detail::fail("Bob",
                     "packed gradient ciphertext " + std::to_string(c) + " is under another key");
      }
    }
    // The layout's bound is 4C K per term; a user's block of e emails
    // counts as ceil(e / K) terms of it.
    const std::size_t terms = (m.emails + pl.p.block_size - 1) / pl.p.block_size;
    if (sum_.empty()) {
      sum_ = m.packed;
    } else {
      for (std::size_t c = 0; c < sum_.size(); ++c) sum_[c] += m.packed[c];
    }
    terms_ += terms;
    emails_in_sum_ += m.emails;
    received_.push_back(m.user);
  }

  /// Step 12: decrypts the iteration's summed gradient and updates w;
  /// overflow_error (w unchanged) when a weight would pass max_weight,
  /// protocol_error when a packed slot is out of its range, invalid_parameter
  /// when no gradient arrived. Starts the next iteration.
  void update() {
    if (sum_.empty()) {
      throw invalid_parameter("gradients", "privet: no gradient arrived in iteration " +
                                               std::to_string(iteration_) +
                                               "; allowed: at least one");
    }
    const auto g = paillier::unpack_signed(key_, *layout_, std::span(sum_), plan_.p.dimension,
                                           terms_, plan_.p.threads);
    dec_ += sum_.size();
    w_ = reference_model<Int, S, R>::updated(plan_, w_, g);
    next_iteration();
  }

  /// Ends the iteration without an update (every user dropped out).
  void skip() { next_iteration(); }

  /// The ciphertext packing of gradients (its bound and slots).
  [[nodiscard]] const paillier::ciphertext_packing<Int>& gradient_packing() const {
    return *layout_;
  }

  // ---- evaluation (Carol) -------------------------------------------------------

  /// Bob's side of one evaluation.
  class evaluator {
   public:
    /// Carol's step 3: decrypts E[z - r] and starts the comparison. Throws
    /// protocol_error for a second query, a query against another
    /// iteration's weights or under another key, or a refused masked share
    /// (which aborts this evaluator: Bob has decrypted its E[z - r]).
    template <random_bit_source G>
    comparison::encrypted_bits<Int> bits(const query_message<Int>& m, G& gen) {
      PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
      if (state_ == query_state::aborted) {
        detail::fail("Bob",
                     "the query was aborted by the earlier refusal of its masked share; Carol "
                     "may query again through a new evaluator");
      }
      if (state_ == query_state::answered) {
        detail::fail("Bob", "received a second query (replayed)");
      }
      if (m.iteration != owner_->iteration_) {
        detail::fail("Bob", "a query against iteration " + std::to_string(m.iteration) +
                                "'s weights, not " + std::to_string(owner_->iteration_));
      }
      const auto& pk = owner_->key_.public_key();
      if (!(m.masked.key() == pk)) detail::fail("Bob", "the query is under another key");
      const Int mi = owner_->key_.decrypt(m.masked);
      ++owner_->dec_;
      ++owner_->cmp_;
      owner_->dgk_sent_ += owner_->plan_.eval_bits;
      // Bob has decrypted this query's E[z - r]: a refused masked share ends
      // the evaluation rather than letting a second query (another z - r)
      // through.
      state_ = query_state::aborted;
      comparison::encrypted_bits<Int> out;
      try {
        out = server_.receive(m.share, detail::mod_n(Int(-mi), pk.n()), gen);
      } catch (const protocol_error& err) {
        detail::fail("Bob", std::string(err.what()) + " (the query is aborted)");
      }
      state_ = query_state::answered;
      return out;
    }
    /// The same with the thread's CSPRNG (secure_generator()).
    comparison::encrypted_bits<Int> bits(const query_message<Int>& m) {
      return bits(m, secure_generator());
    }
    /// The comparison's round 3: Bob's share, which tells Carol the label.
    comparison::output_share respond(const comparison::blinded_tests<Int>& m) {
      return server_.respond(m);
    }

   private:
    friend class bob;
    evaluator(bob* owner, std::uint64_t session)
        : owner_(owner),
          server_(owner->cmp_key_,
                  detail::share_params(owner->key_.public_key().n(), owner->plan_.eval_bits,
                                       owner->plan_.p.statistical_security,
                                       comparison::output_party::client, session)) {}
    bob* owner_;
    comparison::share_server<Int> server_;
    enum class query_state { waiting, answered, aborted };
    query_state state_ = query_state::waiting;
  };

  /// A server for one of Carol's queries.
  evaluator evaluate(std::uint64_t session = 0) { return evaluator(this, session); }

 private:
  void next_iteration() {
    ++iteration_;
    served_.clear();
    received_.clear();
    sum_.clear();
    terms_ = 0;
    emails_in_sum_ = 0;
  }

  paillier::private_key<Int> key_;
  dgk::private_key<Int> cmp_key_;
  detail::plan<Int> plan_;
  std::vector<Int> w_;
  paillier::public_key<Int> enc_key_;  // in the parameters' mode
  std::optional<paillier::ciphertext_packing<Int>> layout_;
  std::uint64_t iteration_ = 0;
  std::vector<std::uint64_t> served_;
  std::vector<std::uint64_t> received_;
  std::vector<paillier::ciphertext<Int>> sum_;
  std::size_t terms_ = 0;
  std::size_t emails_in_sum_ = 0;
  std::atomic<std::uint64_t> enc_{0}, dec_{0}, sent_{0}, dgk_sent_{0}, cmp_{0}, emails_{0};
};

/// Alice: a user with labelled emails and Bob's public keys; runs one block
/// at a time.
template <integer Int, paillier::fixed_point_scale S = paillier::binary_scale<16>,
          paillier::fixed_point_scale R = paillier::binary_scale<20>>
class alice {
 public:
  /// User `user` with Bob's public keys, encrypting in p.mode. Throws
  /// invalid_parameter for parameters out of range or keys too small for
  /// them (see the file comment).
  alice(paillier::public_key<Int> key, dgk::public_key<Int> comparison_key, const parameters& p,
        std::uint64_t user)
      : key_(key.with_mode(p.mode)),
        cmp_key_(std::move(comparison_key)),
        plan_(detail::make_plan<Int, S, R>(p)),
        user_(user) {
    detail::check_keys(plan_, key_, cmp_key_);
    layout_.emplace(key_, plan_.gradient_bound(p.block_size),
                    (p.max_update_emails + p.block_size - 1) / p.block_size);
  }

  /// Her user id, which every message she sends carries.
  [[nodiscard]] std::uint64_t user() const noexcept { return user_; }
  /// Her work so far, over every block.
  [[nodiscard]] const counters& work() const noexcept { return work_; }

  /// Steps 2-3 for a block of block_size to max_update_emails emails:
  /// E[t_i - r_i] and the comparisons' masked shares. The block is copied.
  /// Starts a new block after a finished or aborted one.
  /// @throws privet::invalid_parameter for a block of another size, feature
  /// lists not one per label, or an email or label outside the parameters
  /// @throws privet::protocol_error while a block is under way, or for
  /// weights of the wrong length or under another key
  template <random_bit_source G>
  margins_message<Int> margins(const weights_message<Int>& w, const ml::sparse_binary_batch& block,
                               G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    if (stage_ != 0 && stage_ != detail::aborted_block) {
      detail::fail("Alice", "asked for margins while a block is under way");
    }
    detail::check_weights(w, plan_, key_, "Alice");
    const std::size_t e = block.size();
    if (block.features.size() != e) {
      throw_invalid("block.features.size()", block.features.size(),
                    std::to_string(e) + " (one per label)");
    }
    if (e < plan_.p.block_size || e > plan_.p.max_update_emails) {
      throw_invalid("block.size()", e,
                    "[block_size = " + std::to_string(plan_.p.block_size) +
                        ", max_update_emails = " + std::to_string(plan_.p.max_update_emails) + "]");
    }
    for (std::size_t i = 0; i < e; ++i) {
      detail::check_email(block.features[i], plan_, i);
      (void)detail::signed_label(block.y[i]);
    }
    const Int& n = key_.n();
    iteration_ = w.iteration;
    block_ = block;
    t_.assign(e, detail::constant(key_, Int(0)));
    clients_.clear();
    clients_.reserve(2 * e);
    for (std::size_t i = 0; i < e; ++i) {
      for (int k = 0; k < 2; ++k) {
        clients_.emplace_back(
            cmp_key_, detail::share_params(n, plan_.train_bits, plan_.p.statistical_security,
                                           comparison::output_party::shared,
                                           detail::comparison_session(i, k)));
      }
    }
    margins_message<Int> out;
    out.iteration = w.iteration;
    out.user = user_;
    out.masked.assign(e, detail::constant(key_, Int(0)));
    out.shares.resize(2 * e);
    const auto streams = streams_from(gen);
    const Int two_c = Int(2) * plan_.c;
    parallel_for_index(e, plan_.p.threads, [&](std::size_t i) {
      auto g = streams.stream(i);
      const auto sum = detail::dot(key_, w.weights, block.features[i]);
      // t = 2C - y w^T x.
      const auto yz = detail::signed_label(block.y[i]) > 0 ? -sum : sum;
      t_[i] = detail::constant(key_, two_c) + yz;
      // The blinding value r is wiped when it goes out of scope.
      const privet::detail::secret<Int> r(uniform_below(g, n));
      out.masked[i] = t_[i] + key_.encrypt(detail::mod_n(Int(-r.get()), n), g);
      out.shares[2 * i] = clients_[2 * i].mask(r.get(), g);
      out.shares[2 * i + 1] = clients_[2 * i + 1].mask(r.get(), g);
    });
    work_.encryptions += e;
    work_.ciphertexts_sent += e;
    work_.comparisons += 2 * e;
    stage_ = 1;
    return out;
  }
  /// The same with the thread's CSPRNG (secure_generator()).
  margins_message<Int> margins(const weights_message<Int>& w,
                               const ml::sparse_binary_batch& block) {
    return margins(w, block, secure_generator());
  }

  /// The comparisons' round 2 and the masked products E[u]. Throws
  /// protocol_error for bits out of order or replayed, of another iteration
  /// or user, or of the wrong count; a refused comparison message also
  /// aborts the block.
  template <random_bit_source G>
  tests_message<Int> tests(const bits_message<Int>& m, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    check_not_aborted();
    if (stage_ != 1)
      detail::fail("Alice", stage_ == 0 ? "received bits before sending margins"
                                        : "received bits twice (replayed)");
    check_header(m.iteration, m.user, "bits");
    const std::size_t e = t_.size();
    if (m.bits.size() != 2 * e) {
      detail::fail("Alice", "received " + std::to_string(m.bits.size()) +
                                " encrypted-bit messages; expected " + std::to_string(2 * e));
    }
    const std::size_t l = plan_.train_bits;
    const Int offset = Int(1) << static_cast<unsigned>(l);
    tests_message<Int> out;
    out.iteration = m.iteration;
    out.user = user_;
    out.tests.resize(2 * e);
    out.masked_products.assign(2 * e, detail::constant(key_, Int(0)));
    alpha_.assign(2 * e, false);
    rho_.assign(2 * e, privet::detail::secret<Int>());  // the old ones are wiped
    std::vector<std::string> errors(2 * e);
    const auto streams = streams_from(gen);
    parallel_for_index(2 * e, plan_.p.threads, [&](std::size_t i) {
      auto g = streams.stream(i);
      try {
        out.tests[i] = clients_[i].evaluate(m.bits[i], g);
      } catch (const protocol_error& err) {
        errors[i] = std::string("comparison ") + std::to_string(i) + ": " + err.what();
        return;
      }
      alpha_[i] = clients_[i].share();
      // u = (1 - 2 alpha) t + 2^l + rho; t of comparison k = 1 is the same t
      // (its shift by 4C lives in Bob's share, not in t).
      rho_[i] =
          privet::detail::secret<Int>(random_bits<Int>(g, l + 1 + plan_.p.statistical_security));
      const auto& t = t_[i / 2];
      out.masked_products[i] = (alpha_[i] ? -t : t) + key_.encrypt(Int(offset + rho_[i].get()), g);
    });
    for (const auto& err : errors) {
      if (!err.empty()) {
        stage_ = detail::aborted_block;
        detail::fail("Alice", err + " (the block is aborted)");
      }
    }
    work_.encryptions += 2 * e;
    work_.ciphertexts_sent += 2 * e;
    work_.dgk_ciphertexts_sent += 2 * e * (l + 1);
    stage_ = 2;
    return out;
  }
  /// The same with the thread's CSPRNG (secure_generator()).
  tests_message<Int> tests(const bits_message<Int>& m) { return tests(m, secure_generator()); }

  /// Steps 9-11 in the piecewise-linear form: E[g_i], E[y_i g_i], the block
  /// gradient, packed and re-randomised for Bob; ends the block. Throws
  /// protocol_error for products out of order or replayed, of another
  /// iteration or user, of the wrong count or under another key.
  template <random_bit_source G>
  gradient_message<Int> gradient(const products_message<Int>& m, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    check_not_aborted();
    if (stage_ != 2) detail::fail("Alice", "received products out of order or twice");
    check_header(m.iteration, m.user, "products");
    const std::size_t e = t_.size();
    if (m.bit_shares.size() != 2 * e || m.products.size() != 2 * e) {
      detail::fail("Alice", "received " + std::to_string(m.bit_shares.size()) + " bit shares and " +
                                std::to_string(m.products.size()) + " products; expected " +
                                std::to_string(2 * e) + " each");
    }
    for (std::size_t i = 0; i < 2 * e; ++i) {
      if (!(m.bit_shares[i].key() == key_) || !(m.products[i].key() == key_)) {
        detail::fail("Alice", "product " + std::to_string(i) + " is under another key");
      }
    }
    const Int offset = Int(1) << static_cast<unsigned>(plan_.train_bits);
    const Int four_c = Int(4) * plan_.c;
    const auto one = detail::constant(key_, Int(1));
    std::vector<paillier::ciphertext<Int>> yg(e, detail::constant(key_, Int(0)));
    parallel_for_index(e, plan_.p.threads, [&](std::size_t i) {
      // t b_k = alpha_k t + (beta_k u_k - beta_k (2^l + rho_k)).
      paillier::ciphertext<Int> tb[2] = {one, one};
      paillier::ciphertext<Int> b2 = one;
      for (int k = 0; k < 2; ++k) {
        const std::size_t c = 2 * i + static_cast<std::size_t>(k);
        const auto& beta = m.bit_shares[c];
        const auto neg_beta = -beta;
        tb[k] = m.products[c] + neg_beta * Int(offset + rho_[c].get());
        if (alpha_[c]) tb[k] += t_[i];
        if (k == 1) b2 = alpha_[c] ? one + neg_beta : beta;
      }
      // g = t b1 - t b2 + 4C b2; y g for the gradient.
      const auto g = tb[0] - tb[1] + b2 * four_c;
      yg[i] = detail::signed_label(block_.y[i]) > 0 ? g : -g;
    });
    // G_j = sum over the block's emails with feature j of E[y_i g_i].
    const auto zero = detail::constant(key_, Int(0));
    // By feature, in parallel: the emails holding each feature first.
    std::vector<std::vector<std::uint32_t>> holders(plan_.p.dimension);
    for (std::size_t i = 0; i < e; ++i) {
      for (auto j : block_.features[i]) holders[j].push_back(static_cast<std::uint32_t>(i));
    }
    std::vector<paillier::ciphertext<Int>> grad(plan_.p.dimension, zero);
    parallel_for_index(plan_.p.dimension, plan_.p.threads, [&](std::size_t j) {
      for (auto i : holders[j]) grad[j] += yg[i];
    });
    gradient_message<Int> out;
    out.iteration = iteration_;
    out.user = user_;
    out.emails = e;
    // |G_j| <= 4C e <= ceil(e / K) 4C K: the block counts as ceil(e / K)
    // terms of the layout, whose bound is 4C K.
    const std::size_t terms = (e + plan_.p.block_size - 1) / plan_.p.block_size;
    auto packed = paillier::pack(*layout_, std::span<const paillier::ciphertext<Int>>(grad), terms,
                                 plan_.p.threads);
    out.packed = paillier::rerandomize(key_, std::span<const paillier::ciphertext<Int>>(packed),
                                       gen, plan_.p.threads);
    work_.encryptions += out.packed.size();  // the re-randomisers
    work_.ciphertexts_sent += out.packed.size();
    work_.emails += e;
    stage_ = 0;
    block_ = {};
    return out;
  }
  /// The same with the thread's CSPRNG (secure_generator()).
  gradient_message<Int> gradient(const products_message<Int>& m) {
    return gradient(m, secure_generator());
  }

 private:
  void check_not_aborted() const {
    if (stage_ == detail::aborted_block) {
      detail::fail("Alice",
                   "the block was aborted by an earlier error; start a new one with margins()");
    }
  }

  void check_header(std::uint64_t iteration, std::uint64_t user, const char* what) const {
    if (iteration != iteration_ || user != user_) {
      detail::fail("Alice", std::string("the ") + what + " belong to iteration " +
                                std::to_string(iteration) + " and user " + std::to_string(user) +
                                ", not " + std::to_string(iteration_) + " and " +
                                std::to_string(user_));
    }
  }

  paillier::public_key<Int> key_;
  dgk::public_key<Int> cmp_key_;
  detail::plan<Int> plan_;
  std::uint64_t user_;
  std::optional<paillier::ciphertext_packing<Int>> layout_;
  counters work_;
  int stage_ = 0;
  std::uint64_t iteration_ = 0;
  ml::sparse_binary_batch block_;  // a copy: the caller's may change
  std::vector<paillier::ciphertext<Int>> t_;
  std::vector<comparison::share_client<Int>> clients_;
  std::vector<bool> alpha_;
  std::vector<privet::detail::secret<Int>> rho_;  // blinding values, wiped when released
};

/// Carol: one unlabelled email and Bob's public keys; learns only whether
/// w^T x' > 0 (spam).
template <integer Int, paillier::fixed_point_scale S = paillier::binary_scale<16>,
          paillier::fixed_point_scale R = paillier::binary_scale<20>>
class carol {
 public:
  /// Carol with Bob's public keys, encrypting in p.mode; `session` names
  /// her comparison and must match the evaluator's (bob::evaluate). Throws
  /// invalid_parameter for parameters out of range or keys too small for
  /// them (see the file comment).
  carol(paillier::public_key<Int> key, dgk::public_key<Int> comparison_key, const parameters& p,
        std::uint64_t session = 0)
      : key_(key.with_mode(p.mode)),
        plan_(detail::make_checked_plan<Int, S, R>(p, key_, comparison_key)),
        client_(comparison_key,
                detail::share_params(key_.n(), plan_.eval_bits, p.statistical_security,
                                     comparison::output_party::client, session)) {}

  /// Steps 2-3: E[w^T x' - r] and the masked share r. One query per
  /// object: a second throws protocol_error, as do weights of the wrong
  /// length or under another key; an email outside the parameters throws
  /// invalid_parameter naming `email`.
  template <random_bit_source G>
  query_message<Int> query(const weights_message<Int>& w, const std::vector<std::uint32_t>& x,
                           G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    if (asked_) detail::fail("Carol", "asked twice (one query per object)");
    detail::check_weights(w, plan_, key_, "Carol");
    detail::check_email(x, plan_, 0);
    const Int& n = key_.n();
    const privet::detail::secret<Int> r(uniform_below(gen, n));  // the blinding value, wiped
    query_message<Int> out{
        w.iteration,
        detail::dot(key_, w.weights, x) + key_.encrypt(detail::mod_n(Int(-r.get()), n), gen),
        client_.mask(r.get(), gen)};
    ++work_.encryptions;
    ++work_.ciphertexts_sent;
    ++work_.comparisons;
    asked_ = true;
    return out;
  }
  /// The same with the thread's CSPRNG (secure_generator()).
  query_message<Int> query(const weights_message<Int>& w, const std::vector<std::uint32_t>& x) {
    return query(w, x, secure_generator());
  }

  /// The comparison's round 2. Throws protocol_error for a message the
  /// comparison refuses.
  template <random_bit_source G>
  comparison::blinded_tests<Int> tests(const comparison::encrypted_bits<Int>& m, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    work_.dgk_ciphertexts_sent += plan_.eval_bits + 1;
    return client_.evaluate(m, gen);
  }
  /// The same with the thread's CSPRNG (secure_generator()).
  comparison::blinded_tests<Int> tests(const comparison::encrypted_bits<Int>& m) {
    return tests(m, secure_generator());
  }

  /// [w^T x' > 0]: true for spam.
  bool result(const comparison::output_share& m) { return client_.result(m); }

  /// Her work so far.
  [[nodiscard]] const counters& work() const noexcept { return work_; }

 private:
  paillier::public_key<Int> key_;
  detail::plan<Int> plan_;
  comparison::share_client<Int> client_;
  counters work_;
  bool asked_ = false;
};

}  // namespace privet::private_lr
