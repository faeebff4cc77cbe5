// privet/algorithms/dpne.hpp — differentially private n-gram extraction (Kim,
// Gopi, Kulkarni & Yekhanin 2021, "Differentially Private n-gram Extraction",
// NeurIPS, Algorithms 1 and 2, Theorem 2.1): release sets S_1..S_T of k-grams
// of the users' texts under user-level (eps, delta)-DP, as large as possible
// and with at most an eta share of k-grams nobody wrote.
//
// S_1 is DPSU over words (algorithms/dpsu.hpp: weighted Gaussian, Delta_0
// words per user, threshold rho_1 at delta / 2). For k >= 2 only the valid
// k-grams V_k count: w = x.y.z with x.y and y.z in S_{k-1} (both-side
// pruning) or x.y in S_{k-1} and z in S_1 (single-side). Each user keeps at
// most Delta_0 of its distinct valid k-grams, each weighted 1 / sqrt(m), and
// S_k is every member of V_k whose weight plus N(0, sigma_k^2) exceeds
// rho_k = sigma_k Phi^-1(1 - eta min(1, |S_{k-1}| / |V_k|)). V_k is a
// function of earlier releases, so level k is a Gaussian mechanism on a
// public domain and its threshold only limits the spurious output.
//
// The scalable version (the paper's Algorithm 2) never builds V_k:
//  - a user's valid k-grams come from one array of the ids of the released
//    (k-1)-grams starting at each token (x.y at i, y.z at i + 1), updated
//    after each level: memory is the corpus plus the released grams;
//  - noise goes only on the support of H_k; the members of V_k with weight 0
//    would pass independently with p_k = P[noise > rho_k], so their number
//    is B_k ~ Binomial(|V_k| - |supp H_k|, p_k), sampled exactly
//    (mechanisms/binomial.hpp), and that many distinct members of
//    V_k \ supp H_k are drawn uniformly by rejection. The draw picks the
//    middle (k-2)-gram y with probability |L(y)| |R(y)| / |V_k| (L(y): the
//    released (k-1)-grams ending with y, R(y): those starting with it), then
//    a uniform pair, and rejects members of the support and repeats. This is
//    the uniform law the paper's draw (x in S_1, w in S_{k-1}, accept if valid
//    and new) has, in O(1) expected draws each however sparse V_k is in
//    S_1 x S_{k-1}, with O(|S_{k-1}|) memory;
//  - |V_k| = sum over y of |L(y)| |R(y)| is counted exactly from the same
//    groups, or, as in the paper, estimated from ceil(p |S_1| |S_{k-1}|)
//    sampled pairs checked for validity (candidate_count::sampled; the
//    spurious draw is then capped at the exact count, so it ends).
// The output has the same distribution as the explicit Algorithm 1
// (tests/algorithms/dpne_statistical_test.cpp compares them).
//
// Privacy (Theorem 2.1): the T Gaussian steps, each of L2 sensitivity 1
// after the weighting, compose to one Gaussian with 1 / sigma*^2 = sum
// 1 / sigma_k^2; sigma* is calibrated at (eps, delta / 2) and spread equally
// or geometrically (sigma_k = c sigma_{k-1}) by accounting/gdp.hpp's
// spread_sigma; the other delta / 2 pays for rho_1. Every number comes from
// the accounting layer (dpsu::gaussian_sigma: the analytic Gaussian for
// simulation_only_noise, zCDP of the discrete Gaussian for secure_noise),
// and the spent guarantee is recomputed from the privacy maps of the
// samplers actually built (their variances are rounded up).
//
// The paper's baselines are here too: DPSU-all (one DPSU over the n-grams
// of every length, Delta = T Delta_0), DPSU-even (one DPSU per length, the
// budget split by the same Gaussian composition, the threshold's delta / 2
// split T ways) and DPSU-single (the whole budget on one length).
//
// User passes run on `threads` threads; a seeded generator gives the same
// release for any number of threads (integer sums, noise in key order).
//
// Constant-time noise (Noise = constant_time_noise, issue 36): every noise
// draw on a k-gram (or word) with a weight comes from the constant-time
// discrete Gaussian (algorithms/dpsu.hpp's fixed_point_noise), within total
// variation tau of the exact one. Each level's noised items have no bound of
// their own, so each level's guarantee is stated for dpsu::max_noised_items
// = 2^64 of them, and the T levels' output law is within TV = sum_k 2^64
// tau_k of the exact-noise run's for every corpus (a hybrid argument, one
// draw at a time; the levels compose in zCDP and their distances add,
// accounting/zcdp.hpp). The spent guarantee is the exact run's (eps, delta)
// raised to (eps, delta + (1 + e^eps) TV) by add_total_variation
// (core/guarantee.hpp); the calibration first sets aside a share of delta of
// at least that much (detail::plan_within), so the spent guarantee stays
// within the target.
//
// The zero entries of V_k under constant_time_noise: the exact sampler's
// count (a walk from success to success) and its draws by rejection take
// time that grows with how many grams are spurious, which with |S_k| tells
// how many are real. Instead, a Poisson sample of all of V_k's indices is
// drawn with the same work whatever it holds (mechanisms/
// constant_time_binomial.hpp: a binomial count from a scanned table, a
// uniform subset from sorted independent draws, selection sampling), and
// the members of the support are dropped from it: the zero entries that
// pass have exactly their law in the exact run (each member of V_k outside
// the support passes independently with p_k), up to the sample's distance,
// at most constant_time_poisson_sample::max_total_variation = 2^-98 per
// level, which the plan adds to each level's TV. That covers a count window
// up to 2^20 (a mean of about 10^6 spurious grams); beyond it, or for a pass
// probability above 1 - e^-16, the level falls back to the variable-time
// draws and says so (level_report::spurious_constant_time).
// The pass probability (either path, any noise). p_k is an irrational
// tail; the grams are drawn with p = 1 - e^-rate for a double rate, which
// cannot equal it. Both are bounded with certified error
// (discrete_gaussian_upper_tail_bounds: Euler-Maclaurin with a bounded
// remainder above sigma = 2048 units, a term-by-term sum below, over the
// Poisson-summation normaliser; success_probability_bounds: exp(-rate) in
// 128-bit fixed point), and the level's threshold is raised, by a rule on
// public numbers, until |p - p_k| <= tol = 2^-48 eta + 2^-70
// (pass_probability_tolerance; at DPNE's thresholds it already is, the
// bounds being a few times 2^-52 p_k apart). What that costs: for
// neighbouring corpora D, D' let U be the union of their supports at level
// k. The members of V_k outside U pass with p under both, independently of
// the rest, so they cannot tell D from D'. On U the run differs from
// Algorithm 1 (which gives U's zero entries p_k) only on U's members
// outside supp H_k(D), at most Delta_0 grams (one user's), so its law is
// within TV Delta_0 tol of Algorithm 1's on U, for D and for D' alike. The
// plan adds Delta_0 tol per level k >= 2 to the total variation (for exact
// noise too), and the spent guarantee pays (1 + e^eps) times it in delta
// (plan_within sets the share aside). Each level reports its certified
// |p - p_k| (level_report::pass_probability_error). With
// candidate_count::sampled the constant-time path draws over the counted
// |V_k| (the law of Algorithm 1), the variable-time path over the
// estimate, as the paper does.
// With either path S_k is released in key order, which says nothing about
// which grams are spurious. What stays variable time: the user passes and
// the number of noised items, |supp H_k| (docs/security_model.md).
#pragma once

#include <privet/accounting/composition.hpp>
#include <privet/accounting/gdp.hpp>
#include <privet/accounting/zcdp.hpp>
#include <privet/algorithms/dpsu.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/binomial.hpp>
#include <privet/mechanisms/constant_time_binomial.hpp>
#include <privet/mechanisms/detail/ct_local.hpp>
#include <privet/mechanisms/noise.hpp>
#include <privet/mechanisms/tail_threshold.hpp>
#include <privet/sketches/ngrams.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <tsl/robin_map.h>
#include <tsl/robin_set.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::dpne {

/// The id of an n-gram (a word when its length is 1) in an ngram_table.
using gram_id = ngram_table::id;

/// How V_k is pruned.
enum class pruning {
  both_sides,  ///< x.y and y.z in S_{k-1} (the paper's choice)
  single_side  ///< x.y in S_{k-1} and z in S_1
};

/// How |V_k| (for rho_k and the spurious count) is obtained.
enum class candidate_count {
  counted,  ///< exactly, sum over middles y of |L(y)| |R(y)|
  sampled   ///< estimated from sampled pairs, as in the paper
};

/// A DPNE run's parameters (Kim et al. 2021's notation): the user-level
/// target for the whole release, the lengths, the contribution bound and
/// the spurious share; validate() gives each field's range.
struct parameters {
  double epsilon = 4;          ///< the run's epsilon, finite and > 0
  double delta = 1e-7;         ///< the run's delta, in (0, 1): half for the noise, half for rho_1
  std::size_t max_length = 9;  ///< T
  std::uint64_t max_ngrams = 100;  ///< Delta_0: distinct k-grams (words) kept per user and length
  double eta = 0.01;               ///< the spurious share rho_k aims at
  double decay = 1;                ///< c: sigma_k = c sigma_{k-1}; 1 spreads sigma* equally
  pruning prune = pruning::both_sides;               ///< which k-grams are valid (V_k)
  candidate_count count = candidate_count::counted;  ///< how |V_k| is obtained
  double sample_fraction = 0.01;                     ///< p of the sampled |V_k| estimate
  unsigned threads = 1;  ///< threads of the user passes (the release does not depend on it)

  /// Throws invalid_parameter naming the first field out of range: epsilon
  /// (finite, > 0), delta (in (0, 1)), max_length (>= 1, <= 64), max_ngrams
  /// (>= 1), eta (in (0, 1)), decay (in (0, 1]), sample_fraction (in (0, 1])
  /// or threads (>= 1).
  void validate() const {
    validate_epsilon(epsilon);
    validate_delta_positive(delta);
    validate_at_least<std::size_t>(max_length, 1, "max_length");
    if (max_length > 64) throw_invalid("max_length", max_length, "[1, 64]");
    validate_at_least<std::uint64_t>(max_ngrams, 1, "max_ngrams");
    if (!(eta > 0 && eta < 1)) throw_invalid("eta", eta, "(0, 1)");
    if (!(decay > 0 && decay <= 1)) throw_invalid("decay", decay, "(0, 1]");
    if (!(sample_fraction > 0 && sample_fraction <= 1))
      throw_invalid("sample_fraction", sample_fraction, "(0, 1]");
    validate_at_least<unsigned>(threads, 1, "threads");
  }
};

/// The users' texts: user u owns sequences (sentences, posts) of word ids of
/// a vocabulary ngram_table; n-grams never cross a sequence boundary.
///
/// A token that is not a word id of the vocabulary the corpus is read with
/// (not a 1-gram id below vocabulary.size()) is data outside the domain and
/// never makes a release throw (issue 22): it is not a word, so it is never
/// released or counted, and it ends the sentence there, like a sequence
/// boundary, so no n-gram contains it or spans it. The rule reads one token
/// of one user's own text, so it maps each user's text alone and user-level
/// neighbours stay neighbours (docs/data_rule.md).
class corpus {
 public:
  /// Starts the next user; users are numbered 0, 1, ... in order.
  void add_user() { user_begin_.push_back(sequences()); }

  /// Appends a sequence to the last user. Throws invalid_parameter naming
  /// `corpus` when no user was started.
  void add_sequence(std::span<const gram_id> words) {
    if (user_begin_.empty()) throw_invalid("corpus", "no user", "add_user() before add_sequence()");
    tokens_.insert(tokens_.end(), words.begin(), words.end());
    sequence_begin_.push_back(tokens_.size());
  }

  /// The number of users started.
  [[nodiscard]] std::size_t users() const noexcept { return user_begin_.size(); }
  /// The number of sequences of all users.
  [[nodiscard]] std::size_t sequences() const noexcept { return sequence_begin_.size() - 1; }
  /// The number of tokens of all sequences.
  [[nodiscard]] std::size_t tokens() const noexcept { return tokens_.size(); }
  /// User u's sequences are [first_sequence(u), end_sequence(u)). Throws
  /// invalid_parameter naming `u` and [0, users()) past the last user.
  ///@{
  [[nodiscard]] std::size_t first_sequence(std::size_t u) const {
    check_user(u);
    return user_begin_[u];
  }
  [[nodiscard]] std::size_t end_sequence(std::size_t u) const {
    check_user(u);
    return u + 1 < user_begin_.size() ? user_begin_[u + 1] : sequences();
  }
  ///@}
  /// The token range [begin, end) of sequence s, as indices into
  /// token_data(). Throws invalid_parameter naming `s` and [0, sequences())
  /// past the last sequence.
  ///@{
  [[nodiscard]] std::size_t sequence_begin(std::size_t s) const {
    check_sequence(s);
    return sequence_begin_[s];
  }
  [[nodiscard]] std::size_t sequence_end(std::size_t s) const {
    check_sequence(s);
    return sequence_begin_[s + 1];
  }
  ///@}
  /// The tokens of sequence s. Throws as sequence_begin.
  [[nodiscard]] std::span<const gram_id> sequence(std::size_t s) const {
    return std::span<const gram_id>(tokens_).subspan(sequence_begin(s),
                                                     sequence_end(s) - sequence_begin(s));
  }
  /// Every token, the sequences one after another.
  [[nodiscard]] std::span<const gram_id> token_data() const noexcept { return tokens_; }

  /// Calls f(begin, end) with the token range of each of user u's
  /// sequences, in order. Throws as end_sequence.
  template <class F>
  void for_each_sequence(std::size_t u, F&& f) const {
    const std::size_t end = end_sequence(u);
    for (std::size_t s = user_begin_[u]; s < end; ++s)
      f(static_cast<std::size_t>(sequence_begin_[s]),
        static_cast<std::size_t>(sequence_begin_[s + 1]));
  }

 private:
  void check_user(std::size_t u) const {
    if (u >= users()) throw_invalid("u", u, "[0, users()) = [0, " + std::to_string(users()) + ")");
  }
  void check_sequence(std::size_t s) const {
    if (s >= sequences())
      throw_invalid("s", s, "[0, sequences()) = [0, " + std::to_string(sequences()) + ")");
  }

  std::vector<gram_id> tokens_;
  std::vector<std::size_t> sequence_begin_{0};
  std::vector<std::size_t> user_begin_;  // first sequence of each user
};

/// What one length's pass did.
struct level_report {
  std::size_t length = 0;         ///< k; 0 for a baseline group of several lengths
  double sigma = 0;               ///< the noise asked for (weight units): sigma_k of the schedule
  double sigma_sampled = 0;       ///< the sampler's own, rounded up
  double threshold = 0;           ///< rho_k (weight units); rho_1 for k = 1
  std::size_t support = 0;        ///< |supp H_k|: valid k-grams some user kept
  std::uint64_t occurrences = 0;  ///< valid k-gram occurrences in the texts
  double candidates = 0;          ///< |V_k| as used (counted or estimated)
  std::uint64_t candidates_exact = 0;   ///< |V_k| counted
  std::uint64_t candidate_samples = 0;  ///< pairs drawn for the estimate (sampled only)
  double pass_probability = 0;          ///< P[noise > rho_k]: a zero count passes
  /// A certified bound on |p - p_k|: the probability p the spurious grams
  /// are drawn with against the exact tail p_k, at most
  /// detail::pass_probability_tolerance(eta) (see the file comment).
  double pass_probability_error = 0;
  std::uint64_t spurious_trials = 0;  ///< |V_k| - |supp H_k| (as used)
  std::uint64_t spurious = 0;         ///< B_k: members of V_k outside the support released
  /// Whether B_k and its members were drawn in constant time
  /// (constant_time_noise when constant_time_poisson_sample::supports |V_k|
  /// and the pass probability; see the file comment).
  bool spurious_constant_time = false;
  std::size_t released = 0;  ///< |S_k|
};

/// The privacy spent, from the accounting layer.
struct privacy_report {
  approx_dp target{0, 0};      ///< the (eps, delta) asked for
  approx_dp spent{0, 0};       ///< the samplers' privacy maps, composed
  double sigma_star = 0;       ///< the single Gaussian the schedule composes to (calibrated)
  std::vector<double> sigmas;  ///< sigma_1..sigma_T asked for
  std::string method;          ///< how spent was computed
  /// The total variation TV that spent includes: constant_time_noise's
  /// 2^64 tau per noised histogram and 2^-98 per spurious sample, and for
  /// every noise Delta_0 detail::pass_probability_tolerance(eta) per level
  /// k >= 2 (the pass probability's rounding, see the file comment), summed;
  /// 0 for the baselines with exact noise.
  double total_variation = 0;
};

class extraction;
namespace detail {
struct extraction_builder;
}  // namespace detail

/// A DPNE (or baseline) release: the sets S_1..S_T, the table that names
/// their grams, and what each level did and spent. Made by extractor,
/// extract, dpsu_all, dpsu_even and dpsu_single. A default-constructed one
/// (a place to assign a release to) has no table: max_length(), total(),
/// levels() and privacy() are empty, and grams(), released() and
/// vocabulary_words() throw invalid_parameter naming `extraction`.
class extraction {
 public:
  /// The released grams: words interned by their spelling, k-grams as
  /// (prefix, last word) (sketches/ngrams.hpp). For the baselines: the
  /// caller's table. Throws invalid_parameter on a default-constructed one.
  [[nodiscard]] const ngram_table& grams() const {
    check_made();
    return *grams_;
  }
  /// S_k as ids of grams(), k = 1..max_length(). Throws invalid_parameter
  /// naming `k` outside that range, or as grams() does.
  [[nodiscard]] std::span<const gram_id> released(std::size_t k) const {
    check_made();
    if (k < 1 || k > sets_.size()) {
      throw_invalid("k", k, "[1, " + std::to_string(sets_.size()) + "]");
    }
    return sets_[k - 1];
  }
  /// T: the longest length released (some S_k may be empty).
  [[nodiscard]] std::size_t max_length() const noexcept { return sets_.size(); }
  /// |S_1| + ... + |S_T|.
  [[nodiscard]] std::size_t total() const noexcept {
    std::size_t n = 0;
    for (const auto& s : sets_) n += s.size();
    return n;
  }
  /// The words of gram g (an id of grams()) as ids of the vocabulary the
  /// corpus used; for the baselines, ids of their table. Throws as grams()
  /// does, or as ngram_table::words_of for an id not of grams().
  [[nodiscard]] std::vector<gram_id> vocabulary_words(gram_id g) const {
    check_made();
    std::vector<gram_id> w = grams_->words_of(g);
    if (!vocabulary_of_.empty()) {
      for (auto& x : w) x = vocabulary_of_.at(x);
    }
    return w;
  }
  /// One report per length (DPNE) or per DPSU run (baselines), in order.
  [[nodiscard]] const std::vector<level_report>& levels() const noexcept { return levels_; }
  /// The target and the guarantee spent, from the accounting layer.
  [[nodiscard]] const privacy_report& privacy() const noexcept { return privacy_; }

 private:
  friend struct detail::extraction_builder;

  // Every algorithm sets grams_; only a default-constructed one lacks it.
  void check_made() const {
    if (grams_ == nullptr) {
      throw_invalid("extraction", "default-constructed",
                    "an extraction made by extract, extractor, dpsu_all, dpsu_even or "
                    "dpsu_single (it has no gram table)");
    }
  }

  std::unique_ptr<ngram_table> owned_;
  const ngram_table* grams_ = nullptr;
  std::vector<gram_id> vocabulary_of_;  // released word id -> vocabulary id (DPNE only)
  std::vector<std::vector<gram_id>> sets_;
  std::vector<level_report> levels_;
  privacy_report privacy_;
};

namespace detail {

inline constexpr gram_id none = ~gram_id{0};

/// The algorithms below fill an extraction through this.
struct extraction_builder {
  static std::unique_ptr<ngram_table>& owned(extraction& e) { return e.owned_; }
  static const ngram_table*& grams(extraction& e) { return e.grams_; }
  static std::vector<gram_id>& vocabulary_of(extraction& e) { return e.vocabulary_of_; }
  static std::vector<std::vector<gram_id>>& sets(extraction& e) { return e.sets_; }
  static std::vector<level_report>& levels(extraction& e) { return e.levels_; }
  static privacy_report& privacy(extraction& e) { return e.privacy_; }
};

/// f(first_user, last_user) over chunks of users on `threads` threads.
template <class F>
void parallel_users(std::size_t users, unsigned threads, F&& f) {
  const std::size_t chunk = dpsu::chunk_users;
  const std::size_t chunks = (users + chunk - 1) / chunk;
  auto body = [&](std::size_t c) { f(c * chunk, std::min(users, (c + 1) * chunk)); };
  if (threads <= 1 || chunks <= 1) {
    for (std::size_t c = 0; c < chunks; ++c) body(c);
    return;
  }
  const unsigned n = static_cast<unsigned>(std::min<std::size_t>(threads, chunks));
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> workers;
  workers.reserve(n);
  for (unsigned t = 0; t < n; ++t) {
    workers.emplace_back([&, t] {
      try {
        for (std::size_t c = next++; c < chunks; c = next++) body(c);
      } catch (...) {
        errors[t] = std::current_exception();
        next = chunks;
      }
    });
  }
  for (auto& w : workers) w.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

inline std::uint64_t pack(gram_id prefix, gram_id last) {
  return (static_cast<std::uint64_t>(prefix) << 32) | last;
}
inline gram_id prefix_of(std::uint64_t key) {
  return static_cast<gram_id>(key >> 32);
}
inline gram_id last_of(std::uint64_t key) {
  return static_cast<gram_id>(key & 0xffffffffu);
}

/// Whether a corpus token is a word of the vocabulary (a 1-gram id). A
/// token that is not is read as a sentence boundary (see corpus), never
/// refused: the corpus is the private data of the release.
inline bool is_word(const ngram_table& vocabulary, gram_id w) {
  return w < vocabulary.size() && vocabulary.length(w) == 1;
}

/// How far the probability a level draws its spurious grams with may be
/// from the exact tail p_k: 2^-48 eta + 2^-70. The certified bounds of both
/// (discrete_gaussian_upper_tail_bounds, success_probability_bounds) are a
/// few times 2^-52 p_k apart where p_k <= eta, so a level meets it at its
/// eta-based threshold; the plan adds Delta_0 times it per level k >= 2 to
/// the total variation (see the file comment).
inline double pass_probability_tolerance(double eta) {
  return std::ldexp(eta, -48) + 0x1p-70;
}

/// The spurious grams' pass probability at a level: tau (in units), the
/// double p drawn with as binomial.hpp's rate = -log1p(-p) (0 when p is 0:
/// nothing is drawn), and the certified bound on |1 - e^-rate - p_k|.
struct certified_pass {
  std::int64_t tau = 0;
  double probability = 0;
  double rate = 0;
  double error = 0;
};

/// certified_pass at threshold tau, the threshold raised (tau += max(1,
/// |tau|), a rule on public numbers alone) until the bound is within
/// `tolerance`: every raise lowers p_k, and with it the bounds' width, so
/// this ends (at the latest where the tail is below the smallest long
/// double); it does not happen at DPNE's thresholds (see
/// pass_probability_tolerance).
template <class LevelNoise>
certified_pass certify_pass(const LevelNoise& noise, std::int64_t tau, double tolerance) {
  for (;;) {
    const probability_bounds exact = noise.pass_probability_bounds(0, tau);
    certified_pass c;
    c.tau = tau;
    c.probability = static_cast<double>(exact.estimate);
    long double error = exact.upper;  // p = 0: nothing passes
    if (c.probability > 0 && c.probability < 1) {
      c.rate = -std::log1p(-c.probability);
      error = max_distance(exact, success_probability_bounds(c.rate));
    }
    if (c.probability < 1 && error <= tolerance) {
      c.error = static_cast<double>(privet::detail::step_up(error));
      return c;
    }
    const std::int64_t step = std::max<std::int64_t>(1, tau < 0 ? -tau : tau);
    tau = tau > std::numeric_limits<std::int64_t>::max() - step
              ? std::numeric_limits<std::int64_t>::max()
              : tau + step;
  }
}

/// sigma_1..sigma_T for the target: sigma* at (eps, half), half = delta / 2
/// (less the share for the total variation, see plan_within), spread.
template <mechanism_noise_policy Noise>
std::pair<double, std::vector<double>> schedule(const parameters& p, double half, double inflate) {
  const double star = dpsu::gaussian_sigma<Noise>(approx_dp(p.epsilon, half)) * inflate;
  return {star, spread_sigma(star, p.max_length, p.decay)};
}

/// The (eps, delta) of Gaussian steps with these guarantees plus the
/// thresholds' delta, by the accounting layer: the steps composed, then
/// dpsu::run_guarantee (for constant-time steps, within_tv<zcdp>, the exact
/// run's (eps, delta) raised by (1 + e^eps) times the steps' summed
/// distance).
template <class Guarantee>
approx_dp spent(const std::vector<Guarantee>& steps, double noise_delta, double threshold_delta) {
  return dpsu::run_guarantee(compose(steps), noise_delta, threshold_delta);
}

/// The total variation of steps' guarantees: their composition's for
/// within_tv (constant-time noise), 0 for exact noise.
template <class Guarantee>
double total_variation_of(const std::vector<Guarantee>& steps) {
  if constexpr (std::same_as<Guarantee, exact_guarantee_t<Guarantee>>) {
    return 0;
  } else {
    return compose(steps).total_variation();
  }
}

/// The half of delta the noise and the thresholds each get, and the plan
/// made for it by plan_at(half) (a privacy_report whose spent is the run's
/// guarantee): delta / 2 when the plan made for it fits the target (the
/// baselines with exact noise), else (delta - share) / 2, the share at
/// least twice what the total variation (the constant-time samplers', the
/// pass probabilities') adds to the plan made at delta / 2, doubled until
/// the spent delta fits the target (plan_at keeps epsilon within it).
/// Throws invalid_parameter (`delta`) when delta is below twice that share.
template <mechanism_noise_policy Noise, class PlanAt>
std::pair<privacy_report, double> plan_within(const parameters& p, PlanAt&& plan_at) {
  privacy_report whole = plan_at(p.delta / 2);
  if (whole.spent.delta() <= p.delta) return {std::move(whole), p.delta / 2};
  const double extra = whole.spent.delta() - p.delta;
  for (double share = std::max(2 * extra, std::ldexp(p.delta, -48)); share < p.delta / 2;
       share *= 2) {
    const double half = (p.delta - share) / 2;
    privacy_report r = plan_at(half);
    if (r.spent.delta() <= p.delta) return {std::move(r), half};
  }
  throw_invalid(
      "delta", p.delta,
      "(0, 1) and above twice the share (1 + e^eps) TV = " + privet::detail::format_value(extra) +
          " of the samplers' total variation (constant-time noise, pass probabilities)");
}

template <mechanism_noise_policy Noise>
std::string method_text();

/// The plan whose noise, sigmas_at(inflate) = (sigma*, sigma_1..T) at the
/// least inflate = (1 + 1e-9)^i, spends at most p.epsilon with the delta
/// share `half` for the noise and the thresholds each (spent(), by the
/// accounting layer); NoiseType(sigma).guarantee() is a step's guarantee.
/// Every step after the first adds later_steps_tv to the total variation:
/// to its within_tv guarantee (constant-time noise), or for exact noise to
/// the run's (eps, delta) by add_total_variation.
template <class NoiseType, mechanism_noise_policy Noise, class SigmasAt>
privacy_report plan_inflated(const parameters& p, double half, SigmasAt&& sigmas_at,
                             double later_steps_tv = 0) {
  using step_guarantee = typename NoiseType::guarantee_type;
  constexpr bool exact = std::same_as<step_guarantee, exact_guarantee_t<step_guarantee>>;
  double inflate = 1;
  for (;;) {
    auto [star, sigmas] = sigmas_at(inflate);
    std::vector<step_guarantee> steps;
    double exact_tv = 0;
    for (double s : sigmas) {
      step_guarantee g = NoiseType(s).guarantee();
      if (!steps.empty() && later_steps_tv > 0) {
        if constexpr (exact) {
          exact_tv = privet::detail::add_up(exact_tv, later_steps_tv);
        } else {
          g = step_guarantee(
              g.base(), std::min(1.0, privet::detail::add_up(g.total_variation(), later_steps_tv)));
        }
      }
      steps.push_back(g);
    }
    exact_tv = std::min(1.0, exact_tv);
    const approx_dp used = add_total_variation(spent(steps, half, half), exact_tv);
    if (used.epsilon() <= p.epsilon) {
      return privacy_report{approx_dp(p.epsilon, p.delta),
                            used,
                            star,
                            std::move(sigmas),
                            method_text<Noise>(),
                            privet::detail::add_up(total_variation_of(steps), exact_tv)};
    }
    inflate *= 1 + 1e-9;
  }
}

template <mechanism_noise_policy Noise>
std::string method_text() {
  if constexpr (std::same_as<Noise, constant_time_noise>) {
    return "discrete Gaussian steps drawn by constant-time samplers: the exact steps composed in "
           "zCDP (Canonne, Kamath & Steinke 2020, Thm 14), converted at the noise's half of delta "
           "by their Corollary 13, plus the thresholds' half (basic composition), both halves "
           "(delta - share) / 2, then raised by (1 + e^eps) TV for the samplers' total variation "
           "TV = sum over steps of 2^64 tau, plus 2^-98 a level k >= 2 for the spurious grams' "
           "Poisson sample and Delta_0 (2^-48 eta + 2^-70) a level k >= 2 for their pass "
           "probability's rounding (add_total_variation)";
  } else if constexpr (std::same_as<Noise, secure_noise>) {
    return "discrete Gaussian steps composed in zCDP (Canonne, Kamath & Steinke 2020, Thm 14), "
           "converted at the noise's half of delta by their Corollary 13, plus the thresholds' "
           "half (basic composition), both halves (delta - share) / 2, then raised by (1 + e^eps) "
           "TV for the spurious grams' pass probability's rounding, TV = Delta_0 (2^-48 eta + "
           "2^-70) a level k >= 2 (add_total_variation)";
  } else {
    return "continuous Gaussian steps composed in GDP (Dong, Roth & Su 2022), converted at the "
           "noise's half of delta exactly (analytic Gaussian), plus the thresholds' half (basic "
           "composition), both halves (delta - share) / 2, then raised by (1 + e^eps) TV for the "
           "spurious grams' pass probability's rounding, TV = Delta_0 (2^-48 eta + 2^-70) a "
           "level k >= 2 (add_total_variation)";
  }
}

/// Level k's released keys with constant_time_noise, in key order: the
/// support's grams that pass (each noised, written to the output whatever
/// its coin while the count advances by it), then the zero entries of V_k
/// that pass, drawn by constant_time_poisson_sample over V_k's indices (a
/// uniform subset of |V_k| with a binomial count, the support's members
/// then dropped: the exact law of the zero entries' passes), each index
/// mapped to its gram without a branch (the middle by ct_upper_bound, the
/// pair by ct_divider) and looked up in the sorted support by ct_contains,
/// then the whole set sorted by Batcher's network, whose work depends on
/// |S_k| alone. The work depends on |V_k|, the pass probability and
/// |supp H_k|, never on which grams pass or how many of them are spurious.
template <class Support, class LevelNoise, class Middles, random_bit_source G>
std::vector<std::uint64_t> constant_time_level(const Support& support, const LevelNoise& noise,
                                               std::int64_t tau, double rate,
                                               const Middles& middles,
                                               const std::vector<std::uint64_t>& cumulative,
                                               std::uint64_t exact, level_report& r, G& gen) {
  PRIVET_REQUIRE_SECURE_GENERATOR(G);  // the spurious grams are release noise
  const constant_time_poisson_sample sample(exact, rate);
  const std::size_t cap = sample.capacity();
  std::vector<std::uint64_t> keys(support.size());
  for (std::size_t i = 0; i < support.size(); ++i) keys[i] = support[i].first;
  std::vector<std::uint64_t> out(support.size() + cap);  // every slot written up front
  std::size_t count = 0;
  for (std::size_t i = 0; i < support.size(); ++i) {
    const auto pass = static_cast<std::size_t>(noise.passes(support[i].second, tau, gen));
    out[count] = keys[i];
    count += pass;
  }
  std::vector<std::uint64_t> picks(cap);
  const std::size_t drawn = sample(gen, picks.data());  // picks[0, drawn): the passes
  std::vector<std::uint64_t> start(middles.size());
  std::vector<privet::detail::ct_divider> by_right(middles.size());
  for (std::size_t m = 0; m < middles.size(); ++m) {
    start[m] = m == 0 ? 0 : cumulative[m - 1];
    by_right[m] = privet::detail::ct_divider(middles[m].right.size());
  }
  std::size_t spurious = 0;
  for (std::size_t j = 0; j < cap; ++j) {
    const std::uint64_t v = picks[j];  // below |V_k| in every slot
    const std::size_t m = privet::detail::ct_upper_bound(cumulative.data(), cumulative.size(), v);
    const auto [left, right] = by_right[m].divide(v - start[m]);
    const std::uint64_t key = pack(middles[m].left[left], middles[m].right[right]);
    const std::uint64_t keep = privet::detail::ct_lt(j, drawn) &
                               (privet::detail::ct_contains(keys.data(), keys.size(), key) ^ 1);
    out[count] = key;
    count += static_cast<std::size_t>(keep);
    spurious += static_cast<std::size_t>(keep);
  }
  out.resize(count);  // |S_k|: public
  privet::detail::ct_sort(out.data(), out.size());
  r.spurious = spurious;
  r.spurious_trials = exact - std::min<std::uint64_t>(support.size(), exact);
  r.spurious_constant_time = true;
  return out;
}

}  // namespace detail

/// DPNE (the scalable Algorithm 2), calibrated once for its parameters and
/// run on any number of corpora: the schedule sigma_1..sigma_T, the
/// samplers and rho_1 do not depend on the data. With constant_time_noise
/// every noise draw on an item with a weight takes the same work, and the
/// spent guarantee includes the samplers' total variation (file comment).
template <mechanism_noise_policy Noise = constant_time_noise>
class extractor {
 public:
  /// The Gaussian noise of levels 2..T (level 1's is DPSU's).
  using noise_type = dpsu::fixed_point_noise<dpsu::update_norm::l2, Noise>;
  /// zcdp for secure_noise's discrete Gaussian, gdp for the continuous one,
  /// within_tv<zcdp> for constant_time_noise.
  using guarantee_type = typename noise_type::guarantee_type;

  /// Calibrates sigma_1..sigma_T to (p.epsilon, p.delta) and builds the
  /// samplers (see the file comment). Throws invalid_parameter as
  /// parameters::validate does, and with constant_time_noise (`delta`) for
  /// a delta below twice the samplers' share (detail::plan_within).
  explicit extractor(const parameters& p) : extractor(p, plan(validated(p))) {}

  /// Runs on `text`, whose tokens are word ids of `vocabulary` (grams of
  /// other lengths in it are ignored). A token that is not a word of the
  /// vocabulary ends its sentence there (see corpus); data never throws.
  /// Cost per level: one pass over the tokens and the users' valid k-grams,
  /// one noise draw per k-gram with a weight, and O(1) expected draws per
  /// spurious k-gram. Throws overflow_error only if |V_k| exceeds 2^64 - 1
  /// (the released sets, not the data, fix it).
  template <random_bit_source G>
  extraction operator()(const corpus& text, const ngram_table& vocabulary, G& gen) const {
    const parameters& p = p_;
    const std::size_t T = p.max_length;
    const unsigned threads = p.threads;
    const auto& first = first_;
    using access = detail::extraction_builder;
    extraction out;
    access::owned(out) = std::make_unique<ngram_table>();
    ngram_table& grams = *access::owned(out);
    access::grams(out) = &grams;
    auto& sets = access::sets(out);
    auto& levels = access::levels(out);
    auto& vocabulary_of = access::vocabulary_of(out);
    sets.assign(T, {});
    access::privacy(out) = privacy_;

    // ---- k = 1: DPSU over words -------------------------------------------------------
    std::atomic<std::uint64_t> seen{0};
    const auto words = first.template run<gram_id>(
        text.users(),
        [&](std::size_t u, dpsu::item_sink<gram_id>& items) {
          // Streamed into the bounding: a user's words are never copied whole.
          std::uint64_t n = 0;
          text.for_each_sequence(u, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
              const gram_id w = text.token_data()[i];
              if (!detail::is_word(vocabulary, w)) continue;  // a boundary, not a word
              items.push_back(w);
              ++n;
            }
          });
          seen += n;
        },
        gen);
    // Released word of a vocabulary word, none for the rest: a token that is
    // not a word of the vocabulary (even one beyond it) is never released,
    // which makes every k-gram through it invalid, as at a sequence end.
    std::vector<gram_id> to_released(vocabulary.size(), detail::none);
    const auto released_word = [&](gram_id t) {
      return t < to_released.size() ? to_released[t] : detail::none;
    };
    for (const gram_id v : words.items) {
      const gram_id w = grams.word(vocabulary.text(v));
      to_released[v] = w;
      vocabulary_of.resize(std::max<std::size_t>(vocabulary_of.size(), w + std::size_t{1}),
                           detail::none);
      vocabulary_of[w] = v;
      sets[0].push_back(w);
    }
    {
      level_report r;
      r.length = 1;
      r.sigma = privacy_.sigmas[0];
      r.sigma_sampled = first.noise().scale();
      r.threshold = first.threshold();
      r.support = words.support;
      r.occurrences = seen.load();
      r.released = sets[0].size();
      levels.push_back(r);
    }

    // at[i]: the released (k-1)-gram starting at token i, or none.
    const auto tokens = text.token_data();
    std::vector<gram_id> at(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) at[i] = released_word(tokens[i]);
    const bool both = p.prune == pruning::both_sides;

    for (std::size_t k = 2; k <= T; ++k) {
      const auto& prev = sets[k - 2];
      const auto& singles = sets[0];
      const noise_type& noise = noises_[k - 2];
      level_report r;
      r.length = k;
      r.sigma = privacy_.sigmas[k - 1];
      r.sigma_sampled = noise.scale();
      if (prev.empty() || singles.empty()) {
        levels.push_back(r);
        continue;  // V_k is empty: nothing to release, nothing to draw
      }

      // |V_k| counted through the middles y, which also drive the spurious draw.
      struct middle {
        std::vector<gram_id> left;   // released (k-1)-grams ending with y: the prefixes x.y
        std::vector<gram_id> right;  // last words z of released (k-1)-grams starting with y
      };
      std::vector<middle> middles;
      std::vector<std::uint64_t> cumulative;  // running |L| |R|
      if (both && k >= 3) {
        tsl::robin_map<gram_id, std::size_t> index;
        auto slot = [&](gram_id y) {
          auto [it, fresh] = index.try_emplace(y, middles.size());
          if (fresh) middles.emplace_back();
          return it->second;
        };
        for (const gram_id g : prev) {
          middles[slot(grams.prefix(g))].right.push_back(grams.last_word(g));
          if (const auto y = grams.suffix(g)) middles[slot(*y)].left.push_back(g);
        }
      } else {
        // k = 2 (y empty) or single-side pruning: one group, S_{k-1} x S_1.
        middles.push_back({prev, singles});
      }
      std::uint64_t exact = 0;
      for (const auto& m : middles) {
        const auto add = static_cast<privet::detail::uint128>(m.left.size()) * m.right.size();
        if (add > std::numeric_limits<std::uint64_t>::max() - exact) {
          throw overflow_error("privet: |V_" + std::to_string(k) + "| exceeds 2^64");
        }
        exact += static_cast<std::uint64_t>(add);
        cumulative.push_back(exact);
      }
      r.candidates_exact = exact;
      r.candidates = static_cast<double>(exact);
      if (p.count == candidate_count::sampled) {
        // The paper's estimate: pairs (x in S_1, w in S_{k-1}), valid when x.y
        // is released (y = w without its last word; always for k = 2 or
        // single-side pruning).
        const double pairs = static_cast<double>(singles.size()) * static_cast<double>(prev.size());
        const auto draws = static_cast<std::uint64_t>(std::ceil(p.sample_fraction * pairs));
        std::uint64_t valid = 0;
        for (std::uint64_t d = 0; d < draws; ++d) {
          const gram_id x = singles[uniform_below(gen, singles.size())];
          const gram_id w = prev[uniform_below(gen, prev.size())];
          bool ok = true;
          if (both && k >= 3) {
            gram_id g = x;
            const auto ws = grams.words_of(w);
            for (std::size_t j = 0; ok && j + 1 < ws.size(); ++j) {
              const auto next = grams.find_extension(g, ws[j]);
              ok = next.has_value();
              if (ok) g = *next;
            }
          }
          if (ok) ++valid;
        }
        r.candidate_samples = draws;
        r.candidates =
            draws > 0 ? static_cast<double>(valid) / static_cast<double>(draws) * pairs : 0;
      }

      // H_k over the users' valid k-grams.
      std::atomic<std::uint64_t> occurrences{0};
      const auto h = dpsu::accumulate<std::uint64_t>(
          dpsu::weighted_gaussian{}, text.users(),
          [&](std::size_t u, dpsu::item_sink<std::uint64_t>& items) {
            std::uint64_t n = 0;
            text.for_each_sequence(u, [&](std::size_t b, std::size_t e) {
              for (std::size_t i = b; i + k <= e; ++i) {
                const gram_id prefix = at[i];
                if (prefix == detail::none) continue;
                const gram_id z = released_word(tokens[i + k - 1]);
                if (z == detail::none) continue;
                if (both && at[i + 1] == detail::none) continue;
                items.push_back(detail::pack(prefix, z));
                ++n;
              }
            });
            occurrences += n;
          },
          p.max_ngrams, dpsu::update_context{noise.scale_bits(), 0}, random_u64(gen), threads);
      r.occurrences = occurrences.load();
      r.support = h.size();

      // rho_k from eta (a utility threshold: V_k is public).
      const double share =
          std::min(1.0, static_cast<double>(prev.size()) / std::max(1.0, r.candidates));
      r.threshold = noise.scale() * normal_upper_quantile(p.eta * share);
      const detail::certified_pass pass = detail::certify_pass(
          noise, noise.to_units(r.threshold), detail::pass_probability_tolerance(p.eta));
      const std::int64_t tau = pass.tau;
      if (tau != noise.to_units(r.threshold)) {
        r.threshold = std::ldexp(static_cast<double>(tau), -static_cast<int>(noise.scale_bits()));
      }
      r.pass_probability = pass.probability;
      r.pass_probability_error = pass.error;

      // The support's grams that pass, then the zero entries of V_k that
      // pass (how many, then which), then all of them in key order: the
      // order of S_k must not tell a spurious gram from a written one.
      const auto support = h.sorted_by_key();
      const std::uint64_t in_support = std::min<std::uint64_t>(h.size(), exact);
      std::vector<std::uint64_t> kept;
      if constexpr (std::same_as<Noise, constant_time_noise>) {
        if (pass.rate > 0 && constant_time_poisson_sample::supports(exact, pass.rate)) {
          kept = detail::constant_time_level(support, noise, tau, pass.rate, middles, cumulative,
                                             exact, r, gen);
        }
      }
      if (!r.spurious_constant_time) {
        for (const auto& [key, w] : support)
          if (noise.passes(w, tau, gen)) kept.push_back(key);
        const double used = std::max(0.0, std::round(r.candidates) - static_cast<double>(h.size()));
        r.spurious_trials = static_cast<std::uint64_t>(std::min(used, 0x1p64 - 2048));
        std::uint64_t spurious = 0;
        if (r.spurious_trials > 0 && pass.rate > 0) {
          spurious = binomial_distribution(r.spurious_trials, pass.rate)(gen);
        }
        spurious = std::min(spurious, exact - in_support);  // only the estimate can exceed it
        r.spurious = spurious;
        if (spurious > 0) {
          tsl::robin_set<std::uint64_t> drawn;
          while (drawn.size() < spurious) {
            const std::uint64_t pick = uniform_below(gen, exact);
            const auto m = static_cast<std::size_t>(
                std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin());
            const auto& mid = middles[m];
            const gram_id left = mid.left[uniform_below(gen, mid.left.size())];
            const gram_id right = mid.right[uniform_below(gen, mid.right.size())];
            const std::uint64_t key = detail::pack(left, right);
            if (h.contains(key)) continue;
            drawn.insert(key);
          }
          kept.insert(kept.end(), drawn.begin(), drawn.end());
        }
        std::sort(kept.begin(), kept.end());
      }

      // S_k into the table, then the starts of the released k-grams.
      auto& current = sets[k - 1];
      for (const std::uint64_t key : kept)
        current.push_back(grams.extend(detail::prefix_of(key), detail::last_of(key)));
      r.released = current.size();
      levels.push_back(r);
      if (k < T) {
        detail::parallel_users(text.users(), threads, [&](std::size_t u0, std::size_t u1) {
          for (std::size_t u = u0; u < u1; ++u) {
            text.for_each_sequence(u, [&](std::size_t b, std::size_t e) {
              for (std::size_t i = b; i < e; ++i) {
                gram_id next = detail::none;
                if (at[i] != detail::none && i + k <= e) {
                  const gram_id z = released_word(tokens[i + k - 1]);
                  if (z != detail::none) {
                    if (const auto g = grams.find_extension(at[i], z)) next = *g;
                  }
                }
                at[i] = next;
              }
            });
          }
        });
      }
    }
    return out;
  }

  /// The parameters, as validated.
  [[nodiscard]] const parameters& params() const noexcept { return p_; }
  /// The target, sigma* and sigma_1..sigma_T, and the guarantee spent by one
  /// run (from the samplers' privacy maps).
  [[nodiscard]] const privacy_report& privacy() const noexcept { return privacy_; }
  /// The delta rho_1 is set for, and the delta the noise's zCDP is
  /// converted at: delta / 2, or (delta - share) / 2 with
  /// constant_time_noise (detail::plan_within).
  [[nodiscard]] double threshold_delta() const noexcept { return threshold_delta_; }

 private:
  // rho_1 at the thresholds' half of delta (delta / 2 for exact noise).
  extractor(const parameters& p, std::pair<privacy_report, double> planned)
      : p_(p),
        privacy_(std::move(planned.first)),
        threshold_delta_(planned.second),
        first_(dpsu::set_union<dpsu::weighted_gaussian, Noise>::with_noise(
            privacy_.sigmas[0], threshold_delta_, p_.max_ngrams, p_.threads)) {
    for (std::size_t k = 2; k <= p_.max_length; ++k) noises_.emplace_back(privacy_.sigmas[k - 1]);
  }

  static const parameters& validated(const parameters& p) {
    p.validate();
    return p;
  }

  // The schedule, confirmed on the samplers' own privacy maps (rounding can
  // only add noise, but the maps round up too), at the half of delta
  // plan_within gives the noise and the thresholds each.
  static std::pair<privacy_report, double> plan(const parameters& p) {
    // Levels 2..T draw their spurious grams at a pass probability within
    // pass_probability_tolerance of the exact tail, which a user's Delta_0
    // grams can tell apart (file comment); with constant_time_noise also by
    // a Poisson sample within max_total_variation of the exact one.
    double later = static_cast<double>(p.max_ngrams) * detail::pass_probability_tolerance(p.eta);
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      later = privet::detail::add_up(later, constant_time_poisson_sample::max_total_variation);
    }
    return detail::plan_within<Noise>(p, [&p, later](double half) {
      return detail::plan_inflated<noise_type, Noise>(
          p, half, [&](double inflate) { return detail::schedule<Noise>(p, half, inflate); },
          later);
    });
  }

  parameters p_;
  privacy_report privacy_;
  double threshold_delta_;
  dpsu::set_union<dpsu::weighted_gaussian, Noise> first_;
  std::vector<noise_type> noises_;  // levels 2..T
};

/// DPNE on `text` in one call: extractor<Noise>(p)(text, vocabulary, gen).
/// Throws invalid_parameter as parameters::validate does; a token that is
/// not a word of the vocabulary ends its sentence (see corpus).
template <mechanism_noise_policy Noise = constant_time_noise, random_bit_source G>
extraction extract(const corpus& text, const ngram_table& vocabulary, const parameters& p, G& gen) {
  return extractor<Noise>(p)(text, vocabulary, gen);
}

/// Every n-gram of a corpus up to max_length interned in a table, with the
/// id of the k-gram starting at each token: the baselines' items, and the
/// truth a release is compared with. Memory: the table (every distinct
/// n-gram of the text) plus max_length ids per token; the baselines need
/// it, DPNE does not.
class ngram_index {
 public:
  /// The id at() gives where no n-gram starts.
  static constexpr gram_id none = ~gram_id{0};

  /// Interns the n-grams of `text` into `table`, whose words the corpus's
  /// tokens are. Throws invalid_parameter naming `max_length` (>= 1). A
  /// token that is not a word of the table (as it was before this call) ends
  /// its sentence there (see corpus): no n-gram holds it.
  ngram_index(const corpus& text, ngram_table& table, std::size_t max_length)
      : table_(&table),
        max_length_(validate_at_least<std::size_t>(max_length, 1, "max_length")),
        tokens_(text.tokens()) {
    ids_.assign(max_length_ * tokens_, none);
    const auto tokens = text.token_data();
    // Decided against the table as given: the grams interned below are
    // never words, but an id beyond the table could become one of them.
    std::vector<bool> word(tokens_);
    for (std::size_t i = 0; i < tokens_; ++i) word[i] = detail::is_word(table, tokens[i]);
    for (std::size_t s = 0; s < text.sequences(); ++s) {
      const std::size_t b = text.sequence_begin(s), e = text.sequence_end(s);
      for (std::size_t i = b; i < e; ++i) {
        if (!word[i]) continue;
        gram_id g = tokens[i];
        ids_[i] = g;
        for (std::size_t k = 2; k <= max_length_ && i + k <= e && word[i + k - 1]; ++k) {
          g = table.extend(g, tokens[i + k - 1]);
          ids_[(k - 1) * tokens_ + i] = g;
        }
      }
    }
  }

  /// The id of the k-gram starting at token i, or none where it would cross
  /// the end of its sequence or hold a token that is not a word.
  [[nodiscard]] gram_id at(std::size_t k, std::size_t i) const {
    if (k < 1 || k > max_length_) throw_invalid("k", k, "[1, " + std::to_string(max_length_) + "]");
    if (i >= tokens_)
      throw_invalid("i", i, "< " + std::to_string(tokens_) + " (the corpus's tokens)");
    return ids_[(k - 1) * tokens_ + i];
  }
  /// The table the n-grams were interned in (the caller's).
  [[nodiscard]] const ngram_table& table() const noexcept { return *table_; }
  /// The longest n-gram indexed.
  [[nodiscard]] std::size_t max_length() const noexcept { return max_length_; }
  /// The corpus's token count when the index was built.
  [[nodiscard]] std::size_t tokens() const noexcept { return tokens_; }

  /// Appends user u's k-grams, shortest <= k <= longest (with repeats).
  /// `text` must be the corpus the index was built from: only its token
  /// count is checked here, O(1) (the baselines check every token once,
  /// check_index). Throws invalid_parameter, before reading anything,
  /// naming `shortest` unless it is in [1, max_length()], `longest` unless
  /// it is in [shortest, max_length()], `text` for a corpus of another
  /// token count, or as corpus::end_sequence for u.
  void user_ngrams(const corpus& text, std::size_t u, std::size_t shortest, std::size_t longest,
                   std::vector<gram_id>& out) const {
    // The rows are read at k - 1 and up to the corpus's last token: a length
    // outside the index, or a longer corpus, would read outside ids_.
    // (The messages are built only on failure: this runs once per user.)
    const auto top = [&] { return "max_length() = " + std::to_string(max_length_) + "]"; };
    if (shortest < 1 || shortest > max_length_) throw_invalid("shortest", shortest, "[1, " + top());
    if (longest < shortest || longest > max_length_) {
      throw_invalid("longest", longest, "[shortest = " + std::to_string(shortest) + ", " + top());
    }
    if (text.tokens() != tokens_) {
      throw_invalid("text", text.tokens(),
                    "the corpus the index was built from (" + std::to_string(tokens_) + " tokens)");
    }
    text.for_each_sequence(u, [&](std::size_t b, std::size_t e) {
      for (std::size_t k = shortest; k <= longest; ++k) {
        const gram_id* row = ids_.data() + (k - 1) * tokens_;
        for (std::size_t i = b; i + k <= e; ++i)
          if (row[i] != none) out.push_back(row[i]);
      }
    });
  }

 private:
  const ngram_table* table_;
  std::size_t max_length_;
  std::size_t tokens_;
  std::vector<gram_id> ids_;  // ids_[(k - 1) tokens + i]
};

namespace detail {

/// One set union per group of lengths [lo, hi]; the releases are sorted by
/// length into an extraction over the index's table, and the noises'
/// guarantees collected for the caller's composition.
template <class SetUnion, random_bit_source G, class Guarantee>
extraction run_groups(const corpus& text, const ngram_index& index, std::size_t max_length,
                      const std::vector<std::pair<std::size_t, std::size_t>>& groups,
                      const std::vector<SetUnion>& runs, G& gen, std::vector<Guarantee>& steps,
                      double& threshold_delta) {
  using access = extraction_builder;
  extraction out;
  access::grams(out) = &index.table();
  auto& sets = access::sets(out);
  sets.assign(max_length, {});
  for (std::size_t j = 0; j < groups.size(); ++j) {
    // Not a structured binding: clang 14 cannot capture one in a lambda.
    const std::size_t lo = groups[j].first, hi = groups[j].second;
    const auto& su = runs[j];
    std::atomic<std::uint64_t> seen{0};
    const auto rel = su.template run<gram_id>(
        text.users(),
        [&](std::size_t u, std::vector<gram_id>& items) {
          const std::size_t before = items.size();
          index.user_ngrams(text, u, lo, hi, items);
          seen += items.size() - before;
        },
        gen);
    for (const gram_id g : rel.items) sets[index.table().length(g) - 1].push_back(g);
    level_report r;
    r.length = lo == hi ? lo : 0;
    r.sigma = su.noise().scale();
    r.sigma_sampled = su.noise().scale();
    r.threshold = su.threshold();
    r.support = rel.support;
    r.occurrences = seen.load();
    r.released = rel.items.size();
    access::levels(out).push_back(r);
    steps.push_back(su.noise_guarantee());
    threshold_delta += su.threshold_delta();
  }
  return out;
}

/// The baselines read a user's n-grams from the index by token position, so
/// the index must be of this very corpus: the same token count, the same
/// word at every token (the 1-gram ids are the tokens, none where a token is
/// not a word) and the same sequence ends (where the 2-gram id is none, as
/// next to a token that is not a word), which fixes every longer id as well.
/// O(tokens); the message names the first token that differs.
inline void check_index(const corpus& text, const ngram_index& index, const parameters& p) {
  p.validate();
  if (index.tokens() != text.tokens()) {
    throw_invalid("index", index.tokens(),
                  "an index of this corpus (" + std::to_string(text.tokens()) + " tokens)");
  }
  const auto tokens = text.token_data();
  const auto differs = [](std::size_t i, const std::string& what) {
    throw_invalid("index", "an index of another corpus",
                  "an index of this corpus (token " + std::to_string(i) + " " + what + ")");
  };
  // The index's 1-grams say which tokens it read as words; a token it read
  // as a boundary must not be a word of its table (tables only grow).
  const ngram_table& table = index.table();
  const auto word = [&](std::size_t i) { return index.at(1, i) != ngram_index::none; };
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const gram_id w = index.at(1, i);
    if (w != ngram_index::none ? w != tokens[i] : is_word(table, tokens[i])) {
      differs(i, "is word " + std::to_string(tokens[i]) + " in the corpus but " +
                     (w == ngram_index::none ? std::string("not a word")
                                             : "word " + std::to_string(w)) +
                     " in the index");
    }
  }
  if (index.max_length() >= 2) {
    for (std::size_t s = 0; s < text.sequences(); ++s) {
      const std::size_t b = text.sequence_begin(s), e = text.sequence_end(s);
      for (std::size_t i = b; i < e; ++i) {
        // A token that is not a word ends its sentence as a sequence end does.
        const bool ends_here = i + 1 == e || !word(i) || !word(i + 1);
        if ((index.at(2, i) == ngram_index::none) != ends_here) {
          differs(i, ends_here ? "ends a sequence in the corpus but not in the index"
                               : "ends a sequence in the index but not in the corpus");
        }
      }
    }
  }
  if (index.max_length() < p.max_length) {
    throw_invalid("max_length", p.max_length,
                  "<= the index's max_length = " + std::to_string(index.max_length()));
  }
}

}  // namespace detail

/// DPSU-all: one weighted-Gaussian DPSU over the n-grams of every length
/// 1..T, each user keeping T Delta_0 of them, calibrated to (eps, delta).
/// `index` holds every n-gram of the corpus up to T; the release's ids are
/// ids of its table. Throws invalid_parameter as parameters::validate
/// does, naming `index` for an index of another corpus (an O(tokens)
/// check), `max_length` for a T above the index's, or `max_ngrams` when
/// T Delta_0 exceeds 2^64 - 1.
template <mechanism_noise_policy Noise = constant_time_noise, random_bit_source G>
extraction dpsu_all(const corpus& text, const ngram_index& index, const parameters& p, G& gen) {
  detail::check_index(text, index, p);
  using su_t = dpsu::set_union<dpsu::weighted_gaussian, Noise>;
  const std::uint64_t budget = p.max_ngrams * p.max_length;
  if (budget / p.max_length != p.max_ngrams)
    throw_invalid("max_ngrams", p.max_ngrams, "T max_ngrams < 2^64");
  const std::vector<su_t> runs{su_t(dpsu::parameters{p.epsilon, p.delta, budget, p.threads})};
  std::vector<typename su_t::guarantee_type> steps;
  double threshold_delta = 0;
  extraction out = detail::run_groups(text, index, p.max_length, {{1, p.max_length}}, runs, gen,
                                      steps, threshold_delta);
  auto& pr = detail::extraction_builder::privacy(out);
  pr = {approx_dp(p.epsilon, p.delta), runs[0].guarantee(),
        runs[0].noise().scale(),       {runs[0].noise().scale()},
        detail::method_text<Noise>(),  detail::total_variation_of(steps)};
  return out;
}

/// DPSU-even: one DPSU per length k = 1..T, each with Delta_0, the Gaussian
/// budget split evenly (sigma* at (eps, delta / 2) spread equally over T,
/// the composition DPNE uses; the Gaussian counterpart of eps / sqrt(T) per
/// length by advanced composition) and each threshold at delta / (2 T)
/// (with constant_time_noise, at the half (delta - share) / 2 of
/// detail::plan_within over T). Throws invalid_parameter as
/// parameters::validate does, or naming `index` or `max_length` as dpsu_all
/// does, or `delta` as extractor does.
template <mechanism_noise_policy Noise = constant_time_noise, random_bit_source G>
extraction dpsu_even(const corpus& text, const ngram_index& index, const parameters& p, G& gen) {
  detail::check_index(text, index, p);
  using su_t = dpsu::set_union<dpsu::weighted_gaussian, Noise>;
  using noise_t = typename su_t::noise_type;
  const std::size_t T = p.max_length;
  const std::pair<privacy_report, double> planned = detail::plan_within<Noise>(p, [&](double h) {
    return detail::plan_inflated<noise_t, Noise>(p, h, [&](double inflate) {
      const double star = dpsu::gaussian_sigma<Noise>(approx_dp(p.epsilon, h)) * inflate;
      return std::pair<double, std::vector<double>>{star, spread_sigma(star, T, 1)};
    });
  });
  const privacy_report& plan = planned.first;
  const double half = planned.second;
  // The thresholds' shares, rounded down so that T of them stay <= half.
  const double share = half / static_cast<double>(T) * (1 - 1e-15);
  std::vector<su_t> runs;
  std::vector<std::pair<std::size_t, std::size_t>> groups;
  for (std::size_t k = 1; k <= T; ++k) {
    runs.push_back(su_t::with_noise(plan.sigmas[k - 1], share, p.max_ngrams, p.threads));
    groups.emplace_back(k, k);
  }
  std::vector<typename su_t::guarantee_type> steps;
  double threshold_delta = 0;
  extraction out = detail::run_groups(text, index, T, groups, runs, gen, steps, threshold_delta);
  detail::extraction_builder::privacy(out) = {approx_dp(p.epsilon, p.delta),
                                              detail::spent(steps, half, threshold_delta),
                                              plan.sigma_star,
                                              plan.sigmas,
                                              detail::method_text<Noise>(),
                                              detail::total_variation_of(steps)};
  return out;
}

/// DPSU-single: the whole (eps, delta) on the k-grams of one length. Throws
/// invalid_parameter as dpsu_even does, or naming `length` unless it is in
/// [1, max_length].
template <mechanism_noise_policy Noise = constant_time_noise, random_bit_source G>
extraction dpsu_single(const corpus& text, const ngram_index& index, const parameters& p,
                       std::size_t length, G& gen) {
  detail::check_index(text, index, p);
  if (length < 1 || length > p.max_length) {
    throw_invalid("length", length, "[1, max_length = " + std::to_string(p.max_length) + "]");
  }
  using su_t = dpsu::set_union<dpsu::weighted_gaussian, Noise>;
  const std::vector<su_t> runs{su_t(dpsu::parameters{p.epsilon, p.delta, p.max_ngrams, p.threads})};
  std::vector<typename su_t::guarantee_type> steps;
  double threshold_delta = 0;
  extraction out = detail::run_groups(text, index, p.max_length, {{length, length}}, runs, gen,
                                      steps, threshold_delta);
  detail::extraction_builder::privacy(out) = {
      approx_dp(p.epsilon, p.delta), runs[0].guarantee(),
      runs[0].noise().scale(),       {runs[0].noise().scale()},
      detail::method_text<Noise>(),  detail::total_variation_of(steps)};
  return out;
}

}  // namespace privet::dpne
