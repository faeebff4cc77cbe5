// privet/sketches/count_min.hpp — the count-min sketch (Cormode &
// Muthukrishnan 2005, "An improved data stream summary: the count-min sketch
// and its applications"): d rows of w counters, each key added to one counter
// per row, a key's count estimated from its d counters. Memory is w d
// counters whatever the number of distinct keys, and two sketches with the
// same parameters and seed merge by adding counters.
//
// Hashing. Each key is first made a 64-bit fingerprint: an integer key is
// its own fingerprint (injective, so no two keys share one); a string key
// gets SipHash-2-4 (libsodium's crypto_shorthash) under a key derived from
// the seed, so two distinct strings share a fingerprint with probability
// about 2^-64. Row i then maps the fingerprint x to a counter with
// Dietzfelbinger's multiply-add-shift (sketches/detail/pairwise_hash.hpp), u = ((a_i x + b_i) mod
// 2^128) >> 64 with a_i, b_i uniform 128-bit numbers, which is strongly universal (pairwise
// independent) from 64-bit keys to 64-bit values (Dietzfelbinger 1996; Thorup 2015, "High speed
// hashing for integers and strings", Section 3.3), followed by floor(u w / 2^64). Two distinct keys
// then share a counter of a row with probability at most 1/w + 2^-64, and the rows are independent.
// That pairwise bound is all the error guarantee uses.
//
// Guarantee (non-negative weights, total weight N, keys chosen without
// knowledge of the seed): estimate(key) >= true(key) always, and
// estimate(key) <= true(key) + epsilon N with probability >= 1 - delta, for
// epsilon = e / w and delta = e^-d (Cormode & Muthukrishnan, Theorem 1: a
// row's excess has mean at most N / w, so by Markov it exceeds e N / w with
// probability at most 1/e, independently in each row). The 2^-64 above
// makes the true probability at most (1 + w 2^-64)^d delta, a relative
// change below 2^-25 for every permitted w. from_error() picks
// w = ceil(e / epsilon) and d = ceil(ln(1 / delta)).
//
// Privacy. Noise on the w d counters (noisy()) releases the sketch under
// the guarantee of the mechanism at the sensitivity that sensitivity()
// computes. The hash seed need not be secret for the privacy guarantee: the
// sensitivity holds for every hash function; only the error bound assumes
// the data do not depend on the seed.
//
// Keys, weights and counters are data, so none of them makes the sketch
// throw (issue 22: an exception caused by the data is an un-noised output
// that tells neighbours apart). A counter saturates at Count's limits: an
// add or merge whose exact sum leaves Count stores Count's maximum (or
// minimum) instead of wrapping, exact below that. Each counter is updated by
// x -> clamp(x + w), which is 1-Lipschitz, so one unit still moves each
// counter by at most what sensitivity() assumes. noisy() releases each
// counter + noise at infinite precision, saturated at Count's limits: a
// function of the exact noisy value (post-processing), so it keeps the
// mechanism's guarantee and never throws for a counter at its limit.
// total() saturates likewise.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/detail/sodium.hpp>
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/detail/pairwise_hash.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
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

/// Keys a count-min sketch can hash: built-in integers (their own 64-bit
/// fingerprint) and anything viewable as a string (fingerprinted by SipHash).
template <class K>
concept count_min_key = integer_number<K> || std::convertible_to<const K&, std::string_view>;

namespace detail {

/// 64-bit fingerprints of count-min keys (see the header comment).
class key_fingerprint {
 public:
  template <random_bit_source G>
  explicit key_fingerprint(G& gen) {
    for (auto& byte : sip_key_) byte = static_cast<unsigned char>(gen());
  }

  template <count_min_key K>
  [[nodiscard]] std::uint64_t operator()(const K& key) const {
    if constexpr (integer_number<K>) {
      return static_cast<std::uint64_t>(key);
    } else {
      const std::string_view s(key);
      std::array<unsigned char, crypto_shorthash_BYTES> out{};
      crypto_shorthash(out.data(), reinterpret_cast<const unsigned char*>(s.data()), s.size(),
                       sip_key_.data());
      std::uint64_t v = 0;
      for (std::size_t i = 0; i < out.size(); ++i) v |= std::uint64_t{out[i]} << (8 * i);
      return v;
    }
  }

 private:
  std::array<unsigned char, crypto_shorthash_KEYBYTES> sip_key_{};
};

/// The smallest double >= v.
inline double double_up(std::uint64_t v) noexcept {
  const double d = static_cast<double>(v);
  // 2^64 is no uint64; any double at or above it exceeds v.
  if (d < 18446744073709551616.0 && static_cast<std::uint64_t>(d) < v) return next_up(d);
  return d;
}

/// The integer v (of any integer type, int128 included), or Count's nearer
/// limit if v lies outside Count.
template <integer_number Count, class V>
Count saturate_counter(V v) noexcept {
  Count out;
  // Adding 0 at infinite precision: only the check of whether v fits Count.
  if (!__builtin_add_overflow(v, 0, &out)) [[likely]]
    return out;
  return v > 0 ? std::numeric_limits<Count>::max() : std::numeric_limits<Count>::min();
}

/// a + b for counters, any integer types, at infinite precision, then
/// Count's nearer limit if the sum leaves Count (a is in range, so only
/// b > 0 can overflow upwards).
template <integer_number Count, std::integral B>
Count saturating_counter_add(Count a, B b) noexcept {
  Count sum;
  if (!__builtin_add_overflow(a, b, &sum)) [[likely]]
    return sum;
  return b > 0 ? std::numeric_limits<Count>::max() : std::numeric_limits<Count>::min();
}

}  // namespace detail

/// Sensitivities of a count-min sketch's counter vector (w d entries) to
/// adding or removing one privacy unit, rounded up.
struct count_min_sensitivity {
  double l1;  ///< L1 sensitivity: at most d k c (see count_min_sketch::sensitivity).
  double l2;  ///< L2 sensitivity: at most sqrt(d) k c.
};

/// The count-min sketch of Cormode & Muthukrishnan (2005, "An improved data
/// stream summary: the count-min sketch and its applications"): `depth` rows
/// of `width` counters of type Count; each key adds its weight to one counter
/// per row, chosen by a pairwise-independent hash drawn from `seed`, and a
/// key's count is estimated from its d counters (estimate(): the minimum;
/// estimate_median(): the median, for noisy sketches). Memory is w d
/// counters whatever the number of distinct keys; add() and the estimates
/// cost O(d), merge() and noisy() O(w d).
///
/// With non-negative weights of total N and keys chosen independently of the
/// seed, estimate(key) >= true(key) always and estimate(key) <= true(key) +
/// (e / w) N with probability >= 1 - e^-d (Theorem 1 of the paper; the file
/// comment gives the 2^-64 fingerprint term). The sketch is released under
/// differential privacy by noisy() with a mechanism calibrated to
/// sensitivity(). Keys, weights and counters are data: counters saturate at
/// Count's limits and no data-dependent call throws.
///
/// @tparam Key a count_min_key: a built-in integer or a type convertible to
///   std::string_view.
/// @tparam Count a built-in integer type for the counters (signed preferred
///   for noisy sketches; see noisy()).
template <count_min_key Key, integer_number Count = std::int64_t>
class count_min_sketch {
 public:
  using key_type = Key;      ///< The type of keys added.
  using count_type = Count;  ///< The type of counters and weights.

  /// The widest row allowed: 2^32 counters.
  static constexpr std::uint64_t max_width = std::uint64_t{1} << 32;
  /// The most rows allowed: 64 (error delta e^-64).
  static constexpr std::size_t max_depth = 64;
  /// The most counters (width times depth) a sketch may have: 2^30, 8 GiB
  /// of 64-bit counts. A limit on the product, checked before anything is
  /// allocated, so that parameters which would need terabytes are refused
  /// with a message rather than failing in the allocator.
  static constexpr std::uint64_t max_counters = std::uint64_t{1} << 30;

  /// w counters per row, d rows, hash functions drawn from `seed`. Throws
  /// invalid_parameter unless 1 <= width <= 2^32, 1 <= depth <= 64 and
  /// width * depth <= 2^30 (max_counters; named `width`).
  count_min_sketch(std::uint64_t width, std::size_t depth, std::uint64_t seed)
      : width_(check_width(width)),
        depth_(check_depth(depth)),
        seed_(seed),
        fingerprint_(init(seed)) {
    check_counters(width_, depth_);
    counters_.assign(static_cast<std::size_t>(width_) * depth_, Count(0));
  }

  /// The sketch with error at most epsilon N with probability >= 1 - delta:
  /// w = ceil(e / epsilon), d = ceil(ln(1 / delta)) (Cormode & Muthukrishnan
  /// 2005, Section 3). Throws invalid_parameter unless delta is in (0, 1)
  /// and needs d <= 64, and epsilon is finite, > 0 and needs w <= 2^32 and
  /// w d <= 2^30 counters (max_counters; named `epsilon`, the message giving
  /// the smallest epsilon allowed at this delta).
  static count_min_sketch from_error(double epsilon, double delta, std::uint64_t seed) {
    validate_positive(epsilon, "epsilon");
    validate_delta_positive(delta, "delta");
    const double e = std::numbers::e;
    const double w_real = std::ceil(e / epsilon);
    if (!(w_real <= static_cast<double>(max_width))) {
      throw_invalid("epsilon", epsilon,
                    ">= e / 2^32 (the width ceil(e / epsilon) must be <= 2^32)");
    }
    auto w = static_cast<std::uint64_t>(w_real);
    // The division may have rounded down across an integer: make e / w <= epsilon hold.
    while (e / static_cast<double>(w) > epsilon) ++w;
    while (w > 1 && e / static_cast<double>(w - 1) <= epsilon) --w;
    const double d_real = std::ceil(-std::log(delta));
    if (!(d_real <= static_cast<double>(max_depth))) {
      throw_invalid("delta", delta, ">= e^-64 (the depth ceil(ln(1 / delta)) must be <= 64)");
    }
    auto d = static_cast<std::size_t>(std::max(1.0, d_real));
    while (d < max_depth && std::exp(-static_cast<double>(d)) > delta) ++d;
    while (d > 1 && std::exp(-static_cast<double>(d - 1)) <= delta) --d;
    if (w > max_counters / d) {
      // The widest row the limit leaves at this depth, and the smallest
      // epsilon that gets it: the loops above pick w_max exactly when
      // e / w_max, as the double division gives it, is <= epsilon.
      const std::uint64_t w_max = max_counters / d;
      const double smallest = e / static_cast<double>(w_max);
      throw invalid_parameter(
          "epsilon",
          "privet: epsilon = " + detail::format_value(epsilon) + " with delta = " +
              detail::format_value(delta) + " is invalid; allowed: epsilon >= e / " +
              detail::format_value(w_max) + " = " + detail::format_value(smallest) +
              " at this delta (a sketch of width ceil(e / epsilon) = " + detail::format_value(w) +
              " times depth ceil(ln(1 / delta)) = " + detail::format_value(d) +
              " must have at most 2^30 counters)");
    }
    return count_min_sketch(w, d, seed);
  }

  /// Adds `weight` to key's counter in every row, each saturating at
  /// Count's limits (header comment). Never throws for any key or weight.
  void add(const Key& key, Count weight = Count(1)) {
    const std::uint64_t x = fingerprint_(key);
    for (std::size_t r = 0; r < depth_; ++r) {
      Count& c = counters_[index(r, x)];
      c = detail::saturating_counter_add(c, weight);
    }
  }

  /// The smallest of key's d counters: never below the true count for
  /// non-negative weights, and within epsilon N of it with probability
  /// >= 1 - delta (header comment). On a noisy sketch it is biased low:
  /// the minimum of d noisy counters picks the most negative noise.
  [[nodiscard]] Count estimate(const Key& key) const {
    const std::uint64_t x = fingerprint_(key);
    Count best = counters_[index(0, x)];
    for (std::size_t r = 1; r < depth_; ++r) best = std::min(best, counters_[index(r, x)]);
    return best;
  }

  /// The median of key's d counters (the mean of the two middle ones for
  /// even d). Preferred on a noisy sketch: symmetric noise leaves the
  /// median's centre where it was, whereas the minimum drifts down by about
  /// sigma times the expected maximum of d standard normals. Collisions
  /// push a row's counter up with probability at most 1/e, so the median,
  /// taken over independent rows, is within the one-row error of the true
  /// count unless half the rows fail, which has probability exponentially
  /// small in d (the count-median argument, Cormode & Muthukrishnan Section 4.2).
  [[nodiscard]] double estimate_median(const Key& key) const {
    const std::uint64_t x = fingerprint_(key);
    std::array<Count, max_depth> v{};
    for (std::size_t r = 0; r < depth_; ++r) v[r] = counters_[index(r, x)];
    const auto first = v.begin(), last = v.begin() + static_cast<std::ptrdiff_t>(depth_);
    const auto mid = first + static_cast<std::ptrdiff_t>(depth_ / 2);
    std::nth_element(first, mid, last);
    if (depth_ % 2 == 1) return static_cast<double>(*mid);
    const Count lower = *std::max_element(first, mid);
    return static_cast<double>((static_cast<long double>(lower) + *mid) / 2);
  }

  /// Adds another sketch's counters (equal to one pass over both inputs).
  /// Throws invalid_parameter naming `other.width`, `other.depth` or
  /// `other.seed` unless all three equal this sketch's (parameters); each
  /// sum of counters saturates at Count's limits (never throws for data).
  void merge(const count_min_sketch& other) {
    if (other.width_ != width_) {
      throw_invalid("other.width", other.width_,
                    "this sketch's width " + detail::format_value(width_));
    }
    if (other.depth_ != depth_) {
      throw_invalid("other.depth", other.depth_,
                    "this sketch's depth " + detail::format_value(depth_));
    }
    if (other.seed_ != seed_) {
      throw_invalid("other.seed", other.seed_, "this sketch's seed " + detail::format_value(seed_));
    }
    for (std::size_t i = 0; i < counters_.size(); ++i) {
      counters_[i] = detail::saturating_counter_add(counters_[i], other.counters_[i]);
    }
  }

  /// Sensitivity of the w d counters when one privacy unit is added or
  /// removed, the unit adding at most `max_keys` keys (counted with
  /// repetition) each with |weight| <= max_weight. In one row the unit's
  /// counters change by a vector of L1 norm at most k c; its L2 norm is also
  /// at most k c, reached when all k keys fall into one counter (which the
  /// sketch cannot rule out: sqrt(k) c, the bound without collisions, would
  /// under-state it). Over d rows: L1 <= d k c and L2 <= sqrt(d) k c. Both
  /// rounded up. For a unit whose change is bounded by k c in total rather
  /// than per key, pass max_keys = 1 and max_weight = k c. Throws
  /// invalid_parameter naming `max_keys` (must be >= 1) or `max_weight`
  /// (finite and > 0).
  [[nodiscard]] count_min_sensitivity sensitivity(std::uint64_t max_keys, double max_weight) const {
    if (max_keys < 1) throw_invalid("max_keys", max_keys, ">= 1");
    validate_positive(max_weight, "max_weight");
    const double kc = detail::mul_up(detail::double_up(max_keys), max_weight);
    const auto d = static_cast<double>(depth_);  // exact: depth <= 64
    return {detail::mul_up(d, kc), detail::mul_up(detail::sqrt_up(d), kc)};
  }

  /// A copy whose every counter carries independent noise, in row-major
  /// order (a seeded generator gives the same release every run). `noise` is
  /// a mechanism called as noise(counter, gen) (discrete_gaussian_mechanism,
  /// discrete_laplace_mechanism: calibrate it with sensitivity()) or an
  /// integer sampler called as noise(gen) whose sample is added. The exact
  /// counter plus noise (or the mechanism's integer output), at infinite
  /// precision, is released as it is when Count holds it (10 plus -5 in an
  /// unsigned count is 5, whatever the sample's type) and otherwise as
  /// Count's nearer limit (header comment: post-processing, never a throw,
  /// never a wrap). Noise makes small counters negative, so an unsigned
  /// Count clips most noisy counters of a sparse sketch at 0, which biases
  /// the estimates: prefer a signed one.
  template <class Noise, random_bit_source G>
  [[nodiscard]] count_min_sketch noisy(const Noise& noise, G& gen) const {
    count_min_sketch out = *this;
    for (auto& c : out.counters_) c = apply(noise, c, gen);
    return out;
  }

  /// The total weight N added: the sum of row 0, since every add touches
  /// each row once (on a noisy sketch, a noisy total). The exact sum,
  /// saturated at Count's limits (never throws).
  [[nodiscard]] Count total() const {
    // At most 2^32 counters of at most 64 bits: the exact sum fits 97 bits.
    detail::int128 sum = 0;
    for (std::uint64_t i = 0; i < width_; ++i) sum += counters_[static_cast<std::size_t>(i)];
    return detail::saturate_counter<Count>(sum);
  }

  /// e / w: the epsilon of the error guarantee.
  [[nodiscard]] double error_epsilon() const noexcept {
    return std::numbers::e / static_cast<double>(width_);
  }
  /// e^-d: the delta of the error guarantee.
  [[nodiscard]] double error_delta() const noexcept {
    return std::exp(-static_cast<double>(depth_));
  }

  /// w: the number of counters per row.
  [[nodiscard]] std::uint64_t width() const noexcept { return width_; }
  /// d: the number of rows (independent hash functions).
  [[nodiscard]] std::size_t depth() const noexcept { return depth_; }
  /// The seed the hash functions were drawn from (sketches merge only when
  /// their seeds are equal).
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  /// Counter `column` of row `row`. Throws invalid_parameter naming `row`
  /// unless row < depth(), or `column` unless column < width().
  [[nodiscard]] Count counter(std::size_t row, std::uint64_t column) const {
    if (row >= depth_)
      throw_invalid("row", row, "[0, depth) = [0, " + detail::format_value(depth_) + ")");
    if (column >= width_) {
      throw_invalid("column", column, "[0, width) = [0, " + detail::format_value(width_) + ")");
    }
    return counters_[row * static_cast<std::size_t>(width_) + static_cast<std::size_t>(column)];
  }
  /// All counters, row-major (row r at [r w, (r + 1) w)).
  [[nodiscard]] std::span<const Count> counters() const noexcept { return counters_; }
  /// The column `key` hashes to in `row`. Throws invalid_parameter naming
  /// `row` unless row < depth().
  [[nodiscard]] std::uint64_t column(std::size_t row, const Key& key) const {
    if (row >= depth_)
      throw_invalid("row", row, "[0, depth) = [0, " + detail::format_value(depth_) + ")");
    return rows_[row].bucket(fingerprint_(key), width_);
  }

 private:
  static std::uint64_t check_width(std::uint64_t w) {
    if (w < 1 || w > max_width) throw_invalid("width", w, "[1, 2^32]");
    return w;
  }
  static std::size_t check_depth(std::size_t d) {
    if (d < 1 || d > max_depth) throw_invalid("depth", d, "[1, 64]");
    return d;
  }
  // Both factors are in range (<= 2^32 and <= 64), so the product is exact.
  static void check_counters(std::uint64_t w, std::size_t d) {
    if (w * d > max_counters) {
      throw invalid_parameter("width", "privet: width = " + detail::format_value(w) +
                                           " with depth = " + detail::format_value(d) +
                                           " is invalid; allowed: width <= 2^30 / depth = " +
                                           detail::format_value(max_counters / d) +
                                           " (a sketch has at most 2^30 counters)");
    }
  }

  // Draws the row hashes (into rows_) and then the fingerprint key, all
  // from one generator seeded by `seed`, in a fixed order.
  detail::key_fingerprint init(std::uint64_t seed) {
    seeded_generator gen(seed);
    for (std::size_t r = 0; r < depth_; ++r) rows_[r] = detail::pairwise_hash::draw(gen);
    return detail::key_fingerprint(gen);
  }

  [[nodiscard]] std::size_t index(std::size_t row, std::uint64_t x) const noexcept {
    return row * static_cast<std::size_t>(width_) +
           static_cast<std::size_t>(rows_[row].bucket(x, width_));
  }

  template <class Noise, class G>
  static Count apply(const Noise& noise, Count c, G& gen) {
    if constexpr (requires { noise(c, gen); }) {
      return to_count(noise(c, gen));
    } else {
      static_assert(
          requires {
            { noise(gen) } -> std::integral;
          },
          "privet: count_min_sketch::noisy needs a mechanism callable as noise(count, gen) or an "
          "integer sampler callable as noise(gen).");
      PRIVET_REQUIRE_SECURE_GENERATOR(G);  // a mechanism checks its own generator
      // The builtin adds at infinite precision, so a sample outside Count
      // whose sum fits (an unsigned 10 plus -5, or an int32 count plus an
      // int64 sample) is exact, and one that does not saturates.
      return detail::saturating_counter_add(c, noise(gen));
    }
  }

  template <std::integral V>
  static Count to_count(V v) noexcept {
    return detail::saturate_counter<Count>(v);
  }

  std::uint64_t width_;
  std::size_t depth_;
  std::uint64_t seed_;
  std::array<detail::pairwise_hash, max_depth> rows_{};
  detail::key_fingerprint fingerprint_;
  std::vector<Count> counters_;
};

}  // namespace privet
