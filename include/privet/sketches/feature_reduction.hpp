// privet/sketches/feature_reduction.hpp — dimensionality reduction for sparse
// binary feature vectors (the spam filter's hashed character 4-grams,
// char_ngrams.hpp), compared in Section 6.4 of Pathak, Sharifi & Raj 2011,
// "Privacy Preserving Spam Filtering", arXiv:1102.4021.
//
// A vector is the ascending list of its present features, distinct indices
// in [0, D). Data-independent reductions, which every party can apply
// without seeing anyone's data, given a shared seed:
//
// - hash_space_reduction: feature i becomes h(i) in [0, d), features that
//   meet OR-ed together, h drawn from a pairwise independent family, so two
//   features merge with probability at most 1/d + 2^-64;
// - simhash: m random hyperplanes, one sign bit each (Charikar 2002,
//   "Similarity estimation techniques from rounding algorithms"), whose
//   Hamming distance estimates the angle between two vectors;
// - uniform_feature_sampling: a uniformly random d-subset of the features.
//
// Data-dependent baselines, fitted on a training set and then applied to
// new vectors: df_pruning (the d features in the most training vectors)
// and multinomial_df_sampling (d features drawn without replacement with
// probability proportional to document frequency). PCA, the paper's other
// baseline, is dense linear algebra and not a sparse-feature operation.
//
// Every reduction validates its input: an unsorted or duplicated index, or
// one >= D, throws invalid_parameter naming `x` (or `training`).
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/detail/hash.hpp>
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/detail/pairwise_hash.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace privet {

namespace detail {

/// Throws invalid_parameter named `name` unless x is strictly ascending with
/// every index below dim. `row`, when given, says which training vector.
/// A data throw (issue 22) left on purpose: no DP release reads these
/// vectors (the only caller outside the tests is the Paillier spam filter
/// example, which releases nothing under DP). A DP path that reduces
/// features must first map each record alone: read it as a set (sort,
/// dedupe) and drop the indices >= D.
inline void validate_sparse(std::span<const std::uint32_t> x, std::uint64_t dim,
                            std::string_view name, std::ptrdiff_t row = -1) {
  auto where = [&](std::size_t i) {
    std::string s(name);
    if (row >= 0) s += "[" + format_value(row) + "]";
    return s + "[" + format_value(i) + "]";
  };
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] >= dim) {
      throw invalid_parameter(std::string(name),
                              "privet: " + where(i) + " = " + format_value(x[i]) +
                                  " is invalid; allowed: [0, D) = [0, " + format_value(dim) + ")");
    }
    if (i > 0 && x[i] <= x[i - 1]) {
      throw invalid_parameter(std::string(name), "privet: " + where(i) + " = " +
                                                     format_value(x[i]) +
                                                     " is invalid; allowed: > " + where(i - 1) +
                                                     " = " + format_value(x[i - 1]) +
                                                     " (indices ascending, without duplicates)");
    }
  }
}

inline std::uint64_t check_input_dim(std::uint64_t dim) {
  if (dim < 1 || dim > (std::uint64_t{1} << 32)) throw_invalid("input_dim", dim, "[1, 2^32]");
  return dim;
}

inline void check_output_dim(std::uint64_t d, std::uint64_t input_dim) {
  if (d < 1 || d > input_dim) {
    throw_invalid("d", d, "[1, D] = [1, " + format_value(input_dim) + "]");
  }
}

/// A counter-based stream of 64-bit words: word t (t = 1, 2, ...) of the
/// stream started at s is mix64(s + t gamma), SplitMix64's construction
/// (Steele, Lea & Flood 2014) with murmur3's finaliser. Any word of any
/// stream costs one mix, so hyperplane coefficients need no stored matrix.
/// Two streams overlap only if their starts differ by a small multiple of
/// gamma: probability about 2^-47 per pair for streams of 2^16 words.
class counter_stream {
 public:
  using result_type = std::uint64_t;
  static constexpr std::uint64_t gamma = 0x9E3779B97F4A7C15ull;

  explicit counter_stream(std::uint64_t start) noexcept : state_(start) {}
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~std::uint64_t{0}; }
  result_type operator()() noexcept { return mix64(state_ += gamma); }

 private:
  std::uint64_t state_;
};

/// The ziggurat of Marsaglia & Tsang (2000, "The ziggurat method for
/// generating random variables") for exp(-x^2 / 2), 128 layers of equal
/// area v with base layer's right edge r.
struct normal_ziggurat {
  static constexpr int layers = 128;
  static constexpr double r = 3.442619855899;  // Marsaglia & Tsang's constants for 128 layers
  static constexpr double v = 9.91256303526217e-3;
  std::array<double, layers + 1> x{};   // layer i spans [0, x[i]]
  std::array<double, layers + 1> fx{};  // f(x[i])

  normal_ziggurat() {
    auto f = [](double t) { return std::exp(-t * t / 2); };
    x[0] = v / f(r);  // the base layer's width, its excess standing for the tail
    x[1] = r;
    for (int i = 1; i < layers - 1; ++i) {
      const auto k = static_cast<std::size_t>(i);
      x[k + 1] = std::sqrt(-2 * std::log(v / x[k] + f(x[k])));
    }
    x[layers] = 0;
    for (std::size_t i = 0; i <= layers; ++i) fx[i] = f(x[i]);
    fx[0] = 0;
  }

  static const normal_ziggurat& get() {
    static const normal_ziggurat z;
    return z;
  }
};

/// A standard normal sample whose first attempt uses the 64-bit word w and
/// which draws any further uniforms from gen. One word gives the layer (7
/// bits), the sign (1 bit) and the abscissa (53 bits, disjoint from the
/// others: Doornik 2005 showed that sharing them correlates the output);
/// about 99% of first attempts are accepted with nothing more.
template <random_bit_source G>
double standard_normal_from(std::uint64_t w, G& gen) {
  const auto& z = normal_ziggurat::get();
  constexpr double unit = 0x1p-53;
  for (;; w = random_u64(gen)) {
    const auto i = static_cast<std::size_t>(w & 127);
    const bool negative = ((w >> 7) & 1) != 0;
    const double t = static_cast<double>(w >> 11) * unit * z.x[i];
    if (t < z.x[i + 1]) return negative ? -t : t;  // inside the layer's core rectangle
    if (i == 0) {
      // The tail beyond r, by Marsaglia's (1964) exponential rejection.
      for (;;) {
        const double a =
            -std::log(static_cast<double>((random_u64(gen) >> 11) + 1) * unit) / normal_ziggurat::r;
        const double b = -std::log(static_cast<double>((random_u64(gen) >> 11) + 1) * unit);
        if (2 * b > a * a) return negative ? -(normal_ziggurat::r + a) : normal_ziggurat::r + a;
      }
    }
    const double y =
        z.fx[i] + static_cast<double>(random_u64(gen) >> 11) * unit * (z.fx[i + 1] - z.fx[i]);
    if (y < std::exp(-t * t / 2)) return negative ? -t : t;
  }
}

/// A standard normal sample from gen (ziggurat).
template <random_bit_source G>
double standard_normal(G& gen) {
  return standard_normal_from(random_u64(gen), gen);
}

/// The rare path of hyperplane_coefficient: further uniforms from a stream
/// started at a mix of the first word.
[[gnu::noinline]] inline double normal_slow_path(std::uint64_t w) {
  counter_stream more(mix64(w ^ 0xD1B54A32D192ED03ull));
  return standard_normal_from(w, more);
}

/// Coefficient j of the hyperplane family for the feature whose stream
/// starts at `start`: a standard normal whose first attempt is word j + 1
/// of that stream. The rare further uniforms (about 1% of coefficients)
/// come from a stream started at a mix of that word, so coefficient j is a
/// function of (start, j) alone: the m coefficients of a feature are
/// computed independently of one another, and the loop over them has no
/// serial dependency.
inline double hyperplane_coefficient(const normal_ziggurat& z, std::uint64_t start,
                                     std::uint32_t j) noexcept {
  const std::uint64_t w = mix64(start + (std::uint64_t{j} + 1) * counter_stream::gamma);
  const auto i = static_cast<std::size_t>(w & 127);
  const double t = static_cast<double>(static_cast<std::int64_t>(w >> 11)) * 0x1p-53 * z.x[i];
  // The sign by flipping the sign bit: a branch on a fair coin would be
  // mispredicted half the time.
  if (t < z.x[i + 1])
    return std::bit_cast<double>(std::bit_cast<std::uint64_t>(t) ^ (w & 128) << 56);
  return normal_slow_path(w);
}

/// A kept subset of features, ascending; feature kept[i] becomes i.
class feature_subset {
 public:
  feature_subset() = default;
  feature_subset(std::uint64_t input_dim, std::vector<std::uint32_t> kept)
      : input_dim_(input_dim), kept_(std::move(kept)) {
    std::sort(kept_.begin(), kept_.end());
  }

  [[nodiscard]] std::vector<std::uint32_t> apply(const std::vector<std::uint32_t>& x) const {
    validate_sparse(x, input_dim_, "x");
    std::vector<std::uint32_t> out;
    // x ascending and ranks monotone: the output is ascending as produced.
    auto from = kept_.begin();
    for (const auto f : x) {
      from = std::lower_bound(from, kept_.end(), f);
      if (from == kept_.end()) break;
      if (*from == f) out.push_back(static_cast<std::uint32_t>(from - kept_.begin()));
    }
    return out;
  }

  [[nodiscard]] const std::vector<std::uint32_t>& kept() const noexcept { return kept_; }
  [[nodiscard]] std::uint64_t input_dim() const noexcept { return input_dim_; }

 private:
  std::uint64_t input_dim_ = 0;
  std::vector<std::uint32_t> kept_;
};

/// (feature, document frequency) for every feature present in some training
/// vector, ascending by feature; validates each vector.
inline std::vector<std::pair<std::uint32_t, std::uint64_t>> document_frequencies(
    std::span<const std::vector<std::uint32_t>> training, std::uint64_t input_dim) {
  std::vector<std::uint32_t> all;
  for (std::size_t i = 0; i < training.size(); ++i) {
    validate_sparse(training[i], input_dim, "training", static_cast<std::ptrdiff_t>(i));
    all.insert(all.end(), training[i].begin(), training[i].end());
  }
  std::sort(all.begin(), all.end());
  std::vector<std::pair<std::uint32_t, std::uint64_t>> df;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    df.emplace_back(all[i], j - i);
    i = j;
  }
  return df;
}

}  // namespace detail

/// Feature i becomes h(i), h a pairwise independent hash into [0, d)
/// (multiply-add-shift, sketches/detail/pairwise_hash.hpp), so any two features share an
/// output with probability at most 1/d + 2^-64 over the seed; features that
/// meet are OR-ed (the output lists each once). The paper's reduction is
/// i mod d of the raw 4-gram; a seeded hash keeps structured indices (say,
/// 4-grams that differ only in their high byte) from colliding by design.
class hash_space_reduction {
 public:
  /// Throws invalid_parameter naming `d` unless d >= 1. Inputs may use the
  /// whole 32-bit index range.
  hash_space_reduction(std::uint32_t d, std::uint64_t seed) : d_(d) {
    if (d < 1) throw_invalid("d", d, "[1, 2^32 - 1]");
    seeded_generator gen(seed);
    hash_ = detail::pairwise_hash::draw(gen);
  }

  /// The reduced vector, ascending and without duplicates: {h(i) : i in x},
  /// in O(k log k) for k = x.size(). Throws invalid_parameter naming `x`
  /// unless x is strictly ascending.
  [[nodiscard]] std::vector<std::uint32_t> operator()(const std::vector<std::uint32_t>& x) const {
    detail::validate_sparse(x, std::uint64_t{1} << 32, "x");
    std::vector<std::uint32_t> out;
    out.reserve(x.size());
    for (const auto f : x) out.push_back(map(f));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  /// Where one feature goes.
  [[nodiscard]] std::uint32_t map(std::uint32_t feature) const noexcept {
    return static_cast<std::uint32_t>(hash_.bucket(feature, d_));
  }

  /// d: outputs are in [0, d).
  [[nodiscard]] std::uint32_t output_dim() const noexcept { return d_; }

 private:
  std::uint32_t d_;
  detail::pairwise_hash hash_;
};

/// m sign bits of a sparse binary vector, bit j of word j / 64 at position
/// j mod 64 (bits past m in the last word are 0).
struct simhash_signature {
  std::vector<std::uint64_t> words;  ///< The bits, 64 a word: ceil(bits / 64) words.
  std::uint32_t bits = 0;            ///< m, the number of bits.

  /// Bit j. Throws invalid_parameter naming `j` unless j < bits.
  [[nodiscard]] bool bit(std::uint32_t j) const {
    if (j >= bits) throw_invalid("j", j, "[0, bits) = [0, " + detail::format_value(bits) + ")");
    return ((words[j / 64] >> (j % 64)) & 1) != 0;
  }
  /// Equal length and equal bits.
  friend bool operator==(const simhash_signature&, const simhash_signature&) = default;
};

/// The number of bits in which a and b differ. Throws invalid_parameter
/// naming `b` unless both have the same length.
inline std::uint32_t hamming(const simhash_signature& a, const simhash_signature& b) {
  if (a.bits != b.bits || a.words.size() != b.words.size()) {
    throw_invalid("b", b.bits, "a signature of a's length, " + detail::format_value(a.bits));
  }
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < a.words.size(); ++i) {
    n += static_cast<std::uint32_t>(std::popcount(a.words[i] ^ b.words[i]));
  }
  return n;
}

/// pi * hamming / m: each bit differs with probability theta / pi, so this
/// estimates the angle theta between the two vectors without bias, with
/// standard deviation pi sqrt(p (1 - p) / m) for p = theta / pi.
inline double angle_estimate(const simhash_signature& a, const simhash_signature& b) {
  return std::numbers::pi * static_cast<double>(hamming(a, b)) / static_cast<double>(a.bits);
}

/// Random-hyperplane LSH (Charikar 2002): bit j of x is [<g_j, x> > 0] for
/// m independent standard Gaussian vectors g_j in R^D. For two nonzero x, y
/// at angle theta, each bit differs with probability exactly theta / pi
/// (Goemans & Williamson 1995: the projection of g_j on the
/// plane of x and y has a uniformly distributed direction), independently
/// over j. Gaussian rather than +-1 coefficients for that exactness: with
/// Rademacher signs the probability is theta / pi only as the number of
/// nonzeros grows, and short vectors (a few features) see sign ties.
///
/// The D x m matrix is never stored: coefficient g_j[f] is a normal sample
/// (ziggurat) drawn from word j + 1 of feature f's counter-based stream,
/// whose start is a seeded mix of f, so a vector with k nonzeros costs
/// O(k m) and every party with the seed gets the same hyperplanes. The empty vector, which
/// has no angle to anything, maps to all zero bits.
class simhash {
 public:
  /// Throws invalid_parameter naming `bits` (1 <= m <= 2^16) or
  /// `input_dim` (1 <= D <= 2^32).
  simhash(std::uint32_t bits, std::uint64_t input_dim, std::uint64_t seed)
      : bits_(bits), input_dim_(detail::check_input_dim(input_dim)) {
    if (bits < 1 || bits > (1u << 16)) throw_invalid("bits", bits, "[1, 2^16]");
    seeded_generator gen(seed);
    key0_ = gen();
    key1_ = gen();
  }

  /// The m-bit signature of x, in O(k m) for k = x.size() (each
  /// coefficient computed on the fly). Throws invalid_parameter naming `x`
  /// unless x is strictly ascending with every index below input_dim().
  [[nodiscard]] simhash_signature operator()(const std::vector<std::uint32_t>& x) const {
    detail::validate_sparse(x, input_dim_, "x");
    thread_local std::vector<double> acc;
    acc.assign(bits_, 0.0);
    const auto& z = detail::normal_ziggurat::get();
    for (const auto f : x) {
      const std::uint64_t start = stream_start(f);
      for (std::uint32_t j = 0; j < bits_; ++j) {
        acc[j] += detail::hyperplane_coefficient(z, start, j);
      }
    }
    simhash_signature out;
    out.bits = bits_;
    out.words.assign((bits_ + 63) / 64, 0);
    for (std::uint32_t j = 0; j < bits_; ++j) {
      if (acc[j] > 0) out.words[j / 64] |= std::uint64_t{1} << (j % 64);
    }
    return out;
  }

  /// g_j[f], the coefficient of feature f in hyperplane j. Throws
  /// invalid_parameter naming `j` unless j < bits().
  [[nodiscard]] double coefficient(std::uint32_t feature, std::uint32_t j) const {
    if (j >= bits_) throw_invalid("j", j, "[0, bits) = [0, " + detail::format_value(bits_) + ")");
    return detail::hyperplane_coefficient(detail::normal_ziggurat::get(), stream_start(feature), j);
  }

  /// m, the number of hyperplanes (signature bits).
  [[nodiscard]] std::uint32_t bits() const noexcept { return bits_; }
  /// D: input indices are in [0, D).
  [[nodiscard]] std::uint64_t input_dim() const noexcept { return input_dim_; }

 private:
  [[nodiscard]] std::uint64_t stream_start(std::uint32_t feature) const noexcept {
    return detail::mix64(detail::mix64(feature ^ key0_) + key1_);
  }

  std::uint32_t bits_;
  std::uint64_t input_dim_;
  std::uint64_t key0_ = 0, key1_ = 0;
};

/// Keeps a uniformly random d-subset of the D features (Floyd's algorithm,
/// uniform_subset.hpp); kept feature number i in ascending order becomes i.
class uniform_feature_sampling {
 public:
  /// Throws invalid_parameter naming `input_dim` (1 <= D <= 2^32) or `d`
  /// (1 <= d <= D).
  uniform_feature_sampling(std::uint64_t input_dim, std::uint64_t d, std::uint64_t seed) {
    detail::check_input_dim(input_dim);
    detail::check_output_dim(d, input_dim);
    seeded_generator gen(seed);
    const auto subset = uniform_subset(gen, input_dim, d);
    subset_ =
        detail::feature_subset(input_dim, std::vector<std::uint32_t>(subset.begin(), subset.end()));
  }

  /// The kept features present in x, each renumbered to its rank among
  /// features() (so the output is ascending, in [0, d)), in O(k log d) for
  /// k = x.size(). Throws invalid_parameter naming `x` unless x is strictly
  /// ascending with every index below D.
  [[nodiscard]] std::vector<std::uint32_t> operator()(const std::vector<std::uint32_t>& x) const {
    return subset_.apply(x);
  }
  /// The kept features, ascending: output index i is input feature features()[i].
  [[nodiscard]] const std::vector<std::uint32_t>& features() const noexcept {
    return subset_.kept();
  }

 private:
  detail::feature_subset subset_;
};

/// Document-frequency pruning: keeps the d features present in the most
/// training vectors, ties (including features never seen, with frequency
/// 0) broken by the smaller index.
class df_pruning {
 public:
  /// Throws invalid_parameter naming `input_dim`, `d` (1 <= d <= D) or
  /// `training` (a vector not ascending, or with an index >= D).
  static df_pruning fit(std::uint64_t input_dim, std::uint64_t d,
                        std::span<const std::vector<std::uint32_t>> training) {
    detail::check_input_dim(input_dim);
    detail::check_output_dim(d, input_dim);
    auto df = detail::document_frequencies(training, input_dim);
    std::sort(df.begin(), df.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    std::vector<std::uint32_t> kept;
    kept.reserve(d);
    for (std::size_t i = 0; i < df.size() && kept.size() < d; ++i) kept.push_back(df[i].first);
    if (kept.size() < d) {
      // Every seen feature is kept; the rest are the smallest unseen indices.
      std::vector<std::uint32_t> seen = kept;
      std::sort(seen.begin(), seen.end());
      auto next_seen = seen.begin();
      for (std::uint64_t f = 0; kept.size() < d; ++f) {
        if (next_seen != seen.end() && *next_seen == f) {
          ++next_seen;
        } else {
          kept.push_back(static_cast<std::uint32_t>(f));
        }
      }
    }
    df_pruning p;
    p.subset_ = detail::feature_subset(input_dim, std::move(kept));
    return p;
  }

  /// The kept features present in x, each renumbered to its rank among
  /// features() (so the output is ascending, in [0, d)), in O(k log d) for
  /// k = x.size(). Throws invalid_parameter naming `x` unless x is strictly
  /// ascending with every index below D.
  [[nodiscard]] std::vector<std::uint32_t> operator()(const std::vector<std::uint32_t>& x) const {
    return subset_.apply(x);
  }
  /// The kept features, ascending: output index i is input feature features()[i].
  [[nodiscard]] const std::vector<std::uint32_t>& features() const noexcept {
    return subset_.kept();
  }

 private:
  df_pruning() = default;
  detail::feature_subset subset_;
};

/// Multinomial sampling by document frequency: d distinct features drawn
/// one after another, each with probability proportional to its document
/// frequency among those not yet drawn (successive sampling without
/// replacement). Drawn with the exponential keys of Efraimidis & Spirakis
/// (2006, "Weighted random sampling with a reservoir"): E_f / df_f with E_f
/// standard exponential, the d smallest kept, which has exactly that law.
class multinomial_df_sampling {
 public:
  /// Throws invalid_parameter naming `input_dim`, `training`, or `d` (1 <=
  /// d <= the number of features present in the training set, since a
  /// feature of frequency 0 has probability 0).
  static multinomial_df_sampling fit(std::uint64_t input_dim, std::uint64_t d,
                                     std::span<const std::vector<std::uint32_t>> training,
                                     std::uint64_t seed) {
    detail::check_input_dim(input_dim);
    detail::check_output_dim(d, input_dim);
    const auto df = detail::document_frequencies(training, input_dim);
    if (d > df.size()) {
      throw_invalid("d", d,
                    "[1, features present in the training set] = [1, " +
                        detail::format_value(df.size()) + "]");
    }
    seeded_generator gen(seed);
    std::vector<std::pair<double, std::uint32_t>> keys;
    keys.reserve(df.size());
    for (const auto& [f, n] : df) {
      // 1 - U lies in (0, 1], so the logarithm is finite.
      const double e = -std::log1p(-uniform_real(gen));
      keys.emplace_back(e / static_cast<double>(n), f);
    }
    const auto mid = keys.begin() + static_cast<std::ptrdiff_t>(d);
    std::nth_element(keys.begin(), mid - 1, keys.end());
    std::vector<std::uint32_t> kept;
    kept.reserve(d);
    for (auto it = keys.begin(); it != mid; ++it) kept.push_back(it->second);
    multinomial_df_sampling m;
    m.subset_ = detail::feature_subset(input_dim, std::move(kept));
    return m;
  }

  /// The kept features present in x, each renumbered to its rank among
  /// features() (so the output is ascending, in [0, d)), in O(k log d) for
  /// k = x.size(). Throws invalid_parameter naming `x` unless x is strictly
  /// ascending with every index below D.
  [[nodiscard]] std::vector<std::uint32_t> operator()(const std::vector<std::uint32_t>& x) const {
    return subset_.apply(x);
  }
  /// The kept features, ascending: output index i is input feature features()[i].
  [[nodiscard]] const std::vector<std::uint32_t>& features() const noexcept {
    return subset_.kept();
  }

 private:
  multinomial_df_sampling() = default;
  detail::feature_subset subset_;
};

}  // namespace privet
