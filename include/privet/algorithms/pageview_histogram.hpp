// privet/algorithms/pageview_histogram.hpp — the daily DP histogram of page
// views by <page, project, country> (Wikimedia's release, built with Tumult
// Labs: Adeleye, Berghel, Desfontaines, Hay, Johnson, Lemoisson,
// Machanavajjhala, Magerlein, Modena, Pujol, Simmons-Marengo & Triedman 2023,
// "Publishing Wikipedia usage data with strong privacy guarantees",
// arXiv:2308.16298), composed from the lower layers:
//
//   1. bounding (sketches/key_bounding.hpp; with client-side sampling the
//      server still deduplicates and caps, see client_bounded): each actor
//      contributes at most k distinct tuples, each once;
//   2. candidate pages from public, non-deduplicated counts >= t (public
//      data only, so choosing the released keys costs no budget);
//   3. integer noise (mechanisms/integer_noise.hpp) on every candidate page
//      x country, zero counts included, drawn from the page's own keyed
//      stream (core/keyed_streams.hpp) so that any partition of the pages
//      over processes gives the same numbers;
//   4. suppression of noisy counts below tau.
//
// The guarantee is the mechanism's privacy map after the bounding's
// stability map (one actor: partition distance {k, 1}, hence L2 sqrt(k) and
// L1 k); the algorithm does no privacy arithmetic of its own.
//
// Parameters, as Wikimedia published them for the current release (the
// default, then why):
//
//   budget: zCDP rho = 0.015 per day. About eps = 1 at delta = 1e-7 by the
//     CKS conversion (0.85 in fact); zCDP composes additively over days and
//     over other releases.
//   noise: discrete Gaussian. Integer counts need no rounding; Gaussian
//     tails are lighter than Laplace's at this budget, and L2 sensitivity
//     sqrt(k) beats L1's k.
//   k, distinct tuples per actor per day: 10. Most readers view fewer than
//     10 distinct pages a day; a larger k raises the noise (sigma grows as
//     sqrt(k)) for little extra signal.
//   t, candidate filter on public views: 150. Pages below it almost never
//     reach tau after deduplication and noise; skipping them saves the
//     noise draws and the spurious releases.
//   tau, release threshold: 90. With sigma = sqrt(k / (2 rho)) = 18.3, a
//     zero count passes tau with probability about 4e-7, so spurious tuples
//     are rare; counts near tau are the ones with high relative error
//     anyway.
#pragma once

#include <privet/algorithms/release_utility.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/detail/lazy_range.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/integer_noise.hpp>
#include <privet/sketches/contribution_bounding.hpp>
#include <privet/sketches/key_bounding.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace privet::pageview {

/// A <page, project> pair: projects and countries are indices into lists the
/// caller keeps (the public page, project and country lists).
struct page_key {
  std::uint64_t page;     ///< index of the page in the caller's page list
  std::uint32_t project;  ///< index of the project (a wiki) in the caller's list
  /// Equal when page and project are.
  friend bool operator==(const page_key&, const page_key&) = default;
  /// Lexicographic by page, then project.
  friend auto operator<=>(const page_key&, const page_key&) = default;
};

/// A released cell.
struct tuple_key {
  std::uint64_t page;     ///< as in page_key
  std::uint32_t project;  ///< as in page_key
  std::uint16_t country;  ///< index of the country, below histogram::countries() to be released
  /// The page and project of the cell.
  [[nodiscard]] page_key page_of() const noexcept { return {page, project}; }
  /// Equal when page, project and country are.
  friend bool operator==(const tuple_key&, const tuple_key&) = default;
  /// Lexicographic by page, project, then country.
  friend auto operator<=>(const tuple_key&, const tuple_key&) = default;
};

/// One page view of the day: the actor signature (a hash of IP and user
/// agent standing in for the person) and the tuple viewed.
struct view {
  std::uint64_t actor;  ///< the privacy unit's identifier
  tuple_key tuple;      ///< the cell the view counts in
};

}  // namespace privet::pageview

/// Hash of a page_key, for unordered containers and sparse_histogram.
template <>
struct std::hash<privet::pageview::page_key> {
  /// page and project mixed through privet's 64-bit finaliser.
  std::size_t operator()(const privet::pageview::page_key& k) const noexcept {
    return static_cast<std::size_t>(
        privet::detail::mix64(k.page ^ privet::detail::mix64(k.project + 0x51ed27ull)));
  }
};
/// Hash of a tuple_key, for unordered containers and sparse_histogram.
template <>
struct std::hash<privet::pageview::tuple_key> {
  /// page, project and country mixed through privet's 64-bit finaliser.
  std::size_t operator()(const privet::pageview::tuple_key& k) const noexcept {
    const std::uint64_t side = (std::uint64_t{k.project} << 16) | k.country;
    return static_cast<std::size_t>(privet::detail::mix64(k.page ^ privet::detail::mix64(side)));
  }
};

namespace privet::pageview {

/// Counts per released cell (the bounded truth, or a release's input).
using tuple_counts = sparse_histogram<tuple_key, std::int64_t>;
/// Counts per page (the public, non-deduplicated counts that pick the
/// candidate pages).
using page_counts = sparse_histogram<page_key, std::int64_t>;

// ---- bounding policies ----------------------------------------------------------

/// A day's bounding fed one view or one chunk of views at a time (a file
/// read once): each actor's kept tuples are bound_keys' streaming
/// accumulator (sketches/key_bounding.hpp), so memory follows the distinct
/// (actor, kept tuple) pairs, not the rows, and counts() equals the policy's
/// operator() on the same views, in any order, for the same generator state.
class view_bounder {
 public:
  /// bound_keys' streaming accumulator over (actor, tuple).
  using accumulator = bound_keys<std::uint64_t, tuple_key>::accumulator;
  /// Wraps an accumulator; a bounding policy's start(gen) makes one with
  /// the policy's k and its salt drawn from gen.
  explicit view_bounder(accumulator acc) : acc_(std::move(acc)) {}

  /// Adds one view: a new tuple of its actor is kept if it is among the
  /// actor's k of smallest priority so far; a repeated one changes nothing.
  void add(const view& v) { acc_.add(v.actor, v.tuple); }
  /// Adds a chunk of views, as add(v) on each in turn.
  void add(std::span<const view> views) {
    for (const view& v : views) acc_.add(v.actor, v.tuple);
  }
  /// The bounded, deduplicated counts of the views added so far.
  [[nodiscard]] tuple_counts counts() const { return acc_.counts(); }
  /// The accumulator itself (its cap, salt and kept keys per actor), e.g.
  /// for bounded_counts_for_caps.
  [[nodiscard]] const accumulator& state() const noexcept { return acc_; }
  /// The number of distinct actors seen so far.
  [[nodiscard]] std::uint64_t actors() const noexcept { return acc_.units(); }

 private:
  accumulator acc_;
};

namespace detail {
/// The streaming bound's limit on k, named as the caller names it.
inline void validate_streaming_k(std::uint64_t k) {
  if (k > (std::uint64_t{1} << 24) - 1)
    throw_invalid("k", k, "[1, 2^24 - 1] for a streaming bound");
}

/// What bound_per_actor and client_bounded share: bound_keys over (actor,
/// tuple) keeping at most k distinct tuples per actor, each counted once.
/// The two differ in what `actor` stands for and in their stability's
/// overflow check.
class tuples_per_actor : public pipeline_step {
 public:
  using input_metric = unit_distance;
  using output_metric = partition_distance;

  /// The bounded counts of `views` (bound_keys' bottom-k rule, salted by
  /// one draw from gen).
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to < std::ranges::range_reference_t<R>,
  const view& > tuple_counts operator()(const R& views, G& gen) const {
    auto records = privet::detail::transformed(views, [](const view& v) {
      return unit_record<std::uint64_t, tuple_key>{v.actor, v.tuple};
    });
    return bound_(records, gen);
  }

  /// The same bounding, streaming (view_bounder): its salt is the one
  /// draw operator() takes from gen. Throws invalid_parameter naming k if
  /// k > 2^24 - 1 (the streaming bound counts a unit's keys in 24 bits).
  template <random_bit_source G>
  [[nodiscard]] view_bounder start(G& gen) const {
    detail::validate_streaming_k(k());
    return view_bounder(bound_.start(gen));
  }

  /// k, the distinct tuples an actor keeps.
  [[nodiscard]] std::uint64_t k() const noexcept { return bound_.max_keys(); }

 protected:
  explicit tuples_per_actor(std::uint64_t k) : bound_(k, 1) {}
  bound_keys<std::uint64_t, tuple_key> bound_;
};
}  // namespace detail

/// Server-side bounding per actor signature: at most k distinct tuples per
/// actor, a uniformly random subset of the actor's distinct tuples (never
/// favouring any page), each counted once.
class bound_per_actor : public detail::tuples_per_actor {
 public:
  /// k distinct tuples per actor.
  explicit bound_per_actor(std::uint64_t k) : tuples_per_actor(k) {}

  /// d actors: {d k, d}.
  [[nodiscard]] partition_distance::distance_type stability(std::uint64_t d_in) const {
    return bound_.stability(d_in);
  }
};

/// Bounding done by the clients (Wikimedia's client-side option: each
/// client, e.g. a browser install, samples at most k distinct tuples of its
/// day and sends them), enforced again by the server so that the guarantee
/// does not rest on the clients' honesty.
///
/// Contract the client must keep: every row it sends carries its own client
/// identifier in `view::actor`, the same on all its rows of the day and used
/// by no other client. The privacy unit is that identifier: a person whose
/// rows carry m identifiers is protected as m units (group privacy).
///
/// What the server enforces, whatever the rows are: each client's rows are
/// deduplicated to distinct tuples, each counted once, and a client with more
/// than k distinct tuples keeps the k of smallest keyed priority (the
/// bottom-k rule of sketches/key_bounding.hpp, salted by one draw from the
/// bounding's generator: fixed before any row is seen, the same rule for
/// every client, and independent of row order, so a distributed run keeps
/// the same tuples). A client that repeats one tuple k times, or one
/// tuple 10^4 times, moves one cell by 1. Removing a client therefore
/// changes at most k cells by at most 1: partition distance {k, 1}, L2
/// sqrt(k), L1 k. A client that keeps its side of the sampling (at most k
/// distinct tuples, each sent once) loses no row.
///
/// Earlier versions counted rows as sent and claimed {k, 1} on trust; a
/// client sending k rows of one tuple then had L2 sensitivity k, not
/// sqrt(k), so rho was up to k times the stated one (issue 24). The counts
/// equal bound_per_actor's for the same generator; the two policies differ
/// in what `actor` is (a client identifier vs. a server-side signature of
/// IP and user agent) and in the name of the cap in messages.
class client_bounded : public detail::tuples_per_actor {
 public:
  /// Throws invalid_parameter for k = 0.
  explicit client_bounded(std::uint64_t k)
      : tuples_per_actor(validate_at_least<std::uint64_t>(k, 1, "k")) {}

  /// d clients: {d k, d}. Throws overflow_error if d k does not fit 64 bits.
  [[nodiscard]] partition_distance::distance_type stability(std::uint64_t d_in) const {
    if (d_in != 0 && k() > std::numeric_limits<std::uint64_t>::max() / d_in) {
      throw overflow_error("privet: client_bounded stability d_in * k overflows 64 bits");
    }
    return bound_.stability(d_in);
  }
};

/// A server-side bounding of a day's views: its metrics, its bounded counts
/// b(views, gen) and its stability map (d actors to a partition distance),
/// as bound_per_actor and client_bounded provide.
template <class B>
concept bounding_policy = requires(const B& b, const std::vector<view>& v, seeded_generator& g) {
  typename B::input_metric;
  typename B::output_metric;
  { b(v, g) } -> std::same_as<tuple_counts>;
  { b.stability(std::uint64_t{1}) } -> std::same_as<partition_distance::distance_type>;
};

/// A bounding policy that can also bound a day streamed in chunks.
template <class B>
concept streaming_bounding_policy = bounding_policy<B> &&
    requires(const B& b, seeded_generator& g) {
  { b.start(g) } -> std::same_as<view_bounder>;
};

/// A noise mechanism for integer counts whose privacy map takes the metric
/// the bounding's partition distance converts to.
template <class M>
concept count_mechanism = requires(const M& m, std::int64_t c, seeded_generator& g) {
  typename M::input_metric;
  typename M::guarantee_type;
  { m(c, g) } -> std::same_as<std::int64_t>;
}
&&metric_conversion<partition_distance, typename M::input_metric>::exists;

// ---- parameters -------------------------------------------------------------------

/// Defaults: Wikimedia's published parameters (see the table above).
template <class Guarantee = zcdp>
struct parameters {
  Guarantee budget = default_budget();     ///< what one actor's day may cost
  std::uint64_t k = 10;                    ///< distinct tuples kept per actor and day, >= 1
  std::int64_t candidate_threshold = 150;  ///< t: least public count of a candidate page
  std::int64_t release_threshold = 90;     ///< tau: least noisy count released

  /// zCDP rho = 0.015 for zcdp (Wikimedia's); Guarantee(1.0) for any other
  /// type (epsilon = 1 for pure_dp).
  static Guarantee default_budget() {
    if constexpr (std::same_as<Guarantee, zcdp>) {
      return zcdp(0.015);
    } else {
      return Guarantee(1.0);  // pure DP: eps = 1
    }
  }
};

/// A released cell and its noisy count (>= the release threshold), as the
/// utility report (algorithms/release_utility.hpp) takes it.
using release_row = std::pair<tuple_key, std::int64_t>;

/// The candidate pages: public counts >= t, sorted.
inline std::vector<page_key> candidate_pages(const page_counts& public_counts,
                                             std::int64_t threshold) {
  std::vector<page_key> out;
  for (const auto& [k, c] : public_counts.at_least(threshold)) out.push_back(k);
  return out;
}

/// The pipeline, with the bounding and the noise as compile-time policies.
template <bounding_policy Bounding = bound_per_actor,
          count_mechanism Mechanism = discrete_gaussian_mechanism<std::int64_t>>
class histogram {
 public:
  /// The guarantee the mechanism's privacy map returns (within_tv<zcdp>
  /// by default, constant-time noise; zcdp with secure_noise).
  using guarantee_type = typename Mechanism::guarantee_type;
  /// What the parameters' budget is: the exact mechanism's guarantee, zcdp
  /// (with constant_time_noise, the default, guarantee() adds the
  /// samplers' distance to the exact noise).
  using budget_type = exact_guarantee_t<guarantee_type>;

  /// Calibrates the mechanism so one actor's day costs at most p.budget,
  /// for `countries` countries (indices 0 .. countries - 1). Throws
  /// invalid_parameter for k = 0 or a country count outside [1, 65536].
  histogram(const parameters<budget_type>& p, std::uint32_t countries)
      : histogram(p, Bounding(checked_k(p.k)), countries) {}

  /// The same with a bounding policy built by the caller: the mechanism is
  /// calibrated to `bounding`'s own stability, so its cap (not p.k, which
  /// must still be >= 1) is the one that counts. Throws invalid_parameter
  /// as above, and whatever Mechanism::from_guarantee throws for p.budget.
  histogram(const parameters<budget_type>& p, Bounding bounding, std::uint32_t countries)
      : p_(p),
        bounding_(std::move(bounding)),
        countries_(countries),
        mechanism_(Mechanism::from_guarantee(p.budget, sensitivity(bounding_))) {
    validate_at_least<std::uint64_t>(p.k, 1, "k");
    if (countries == 0 || countries > 65536) throw_invalid("countries", countries, "[1, 65536]");
  }

 private:
  // p.k, refused by its own name before a bounding policy is built from it
  // (the policy would name its own parameter, max_keys).
  static std::uint64_t checked_k(std::uint64_t k) {
    return validate_at_least<std::uint64_t>(k, 1, "k");
  }

 public:
  /// Step 1: the bounded, deduplicated counts (the ground truth of the
  /// utility report). Deterministic for a seeded generator.
  template <std::ranges::input_range R, random_bit_source G>
  tuple_counts bounded_counts(const R& views, G& gen) const {
    return bounding_(views, gen);
  }

  /// Step 1 streamed: a view_bounder to add the day's views to, one or a
  /// chunk at a time, in any order; its counts() equal bounded_counts() on
  /// the same views for the same generator state, in memory that follows
  /// the distinct (actor, kept tuple) pairs instead of the rows.
  template <random_bit_source G>
  requires streaming_bounding_policy<Bounding>
  [[nodiscard]] view_bounder bounder(G& gen) const { return bounding_.start(gen); }

  /// Steps 2-5 on bounded counts: noise on candidates x countries from the
  /// pages' keyed streams, rows >= tau, sorted by tuple.
  std::vector<release_row> release(const tuple_counts& counts, const page_counts& public_counts,
                                   const keyed_streams& streams) const {
    return release_pages(counts, candidate_pages(public_counts, p_.candidate_threshold), streams);
  }

  /// Steps 3-5 for a given list of candidate pages (any subset of the
  /// candidates: each page's rows depend only on that page). Only the cells
  /// of the declared domain, candidate pages x countries [0, countries()),
  /// are noised and released. A view whose country index is not below
  /// countries() is data outside that domain: like a view of a page that is
  /// not a candidate, it took one of its actor's k slots and is never
  /// released (issue 22: data never makes a release throw; which cells can
  /// be released is fixed by the parameters alone, so nothing about the
  /// data is revealed by it).
  std::vector<release_row> release_pages(const tuple_counts& counts,
                                         const std::vector<page_key>& pages,
                                         const keyed_streams& streams) const {
    std::vector<release_row> out;
    for (const page_key& page : pages) {
      auto gen = streams.stream(page.page, page.project);
      for (std::uint32_t c = 0; c < countries_; ++c) {
        const tuple_key t{page.page, page.project, static_cast<std::uint16_t>(c)};
        const std::int64_t noisy = mechanism_(counts[t], gen);
        if (noisy >= p_.release_threshold) out.emplace_back(t, noisy);
      }
    }
    std::sort(out.begin(), out.end(),
              [](const release_row& a, const release_row& b) { return a.first < b.first; });
    return out;
  }

  /// The whole day with every random choice from one secret: the bounding's
  /// from the stream bounding_address(), the noise from the pages' streams.
  /// A distributed run with the same secret gives exactly this release.
  template <std::ranges::input_range R>
  std::vector<release_row> operator()(const R& views, const page_counts& public_counts,
                                      const keyed_streams& streams) const {
    auto gen = bounding_stream(streams);
    return release(bounded_counts(views, gen), public_counts, streams);
  }

  /// The bounding's stream: its second address word is above every project
  /// index (32 bits), so it is never a page's stream.
  static keyed_stream bounding_stream(const keyed_streams& streams) {
    return streams.stream(0, std::uint64_t{1} << 40);
  }

  /// The whole day: bounding (randomness from gen), then the release.
  template <std::ranges::input_range R, random_bit_source G>
  std::vector<release_row> operator()(const R& views, const page_counts& public_counts,
                                      const keyed_streams& streams, G& gen) const {
    return release(bounded_counts(views, gen), public_counts, streams);
  }

  /// What one actor's day costs: the mechanism's privacy map after the
  /// bounding's stability map. With constant-time noise (within_tv), the
  /// distance is one sample's times the cells the actors can change (the
  /// stability's partitions): every other cell's noisy count has the same
  /// law on both neighbouring days, so conditioning on those cells leaves a
  /// mechanism on the changed cells alone, within that many samples'
  /// distance of the exact one (a union bound over its samples).
  [[nodiscard]] guarantee_type guarantee(std::uint64_t actors = 1) const {
    const auto d = bounding_.stability(actors);
    if constexpr (std::same_as<guarantee_type, budget_type>) {
      return mechanism_.guarantee(convert(d));
    } else {
      const auto one = mechanism_.guarantee(convert(d));
      const double tau =
          privet::detail::mul_up(static_cast<double>(d.partitions), one.total_variation());
      return guarantee_type(one.base(), tau < 1 ? tau : 1.0);
    }
  }

  /// The calibrated noise mechanism.
  [[nodiscard]] const Mechanism& mechanism() const noexcept { return mechanism_; }
  /// The parameters the histogram was built with.
  [[nodiscard]] const parameters<budget_type>& params() const noexcept { return p_; }
  /// The number of countries: cells have country indices [0, countries()).
  [[nodiscard]] std::uint32_t countries() const noexcept { return countries_; }

 private:
  static auto convert(partition_distance::distance_type d) {
    return metric_conversion<partition_distance, typename Mechanism::input_metric>::convert(d);
  }
  static auto sensitivity(const Bounding& b) { return convert(b.stability(1)); }

  parameters<budget_type> p_;
  Bounding bounding_;
  std::uint32_t countries_;
  Mechanism mechanism_;
};

// ---- parameter selection on public or synthetic data ---------------------------

namespace detail {
/// Adds one actor's kept tuples to out[i] for each cap ks[i]: its ks[i]
/// smallest priorities (a bottom-k keep is nested).
template <class Kept>
void add_for_caps(std::span<const Kept> kept, const std::vector<std::uint64_t>& ks,
                  std::vector<Kept>& by_priority, std::vector<tuple_counts>& out) {
  by_priority.assign(kept.begin(), kept.end());
  std::sort(by_priority.begin(), by_priority.end(),
            [](const auto& x, const auto& y) { return x.priority < y.priority; });
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const auto n = std::min<std::uint64_t>(ks[i], by_priority.size());
    for (std::size_t j = 0; j < n; ++j) out[i].add(by_priority[j].key);
  }
}
inline void validate_caps(const std::vector<std::uint64_t>& ks) {
  validate_non_empty(ks, "ks");
  for (const std::uint64_t k : ks) validate_at_least<std::uint64_t>(k, 1, "ks");
}
}  // namespace detail

/// The bounded counts for every cap of `ks` (each >= 1) in one pass over
/// the views: a bottom-k keep is nested (an actor's k smallest priorities
/// are the first k of its k_max smallest), so element i equals
/// bound_per_actor(ks[i]) on the same views for the same generator state.
/// Throws invalid_parameter for an empty ks or a cap of 0.
template <std::ranges::input_range R, random_bit_source G>
requires std::convertible_to < std::ranges::range_reference_t<R>,
const view& >
    std::vector<tuple_counts> bounded_counts_for_caps(const R& views,
                                                      const std::vector<std::uint64_t>& ks,
                                                      G& gen) {
  detail::validate_caps(ks);
  using bound = bound_keys<std::uint64_t, tuple_key>;
  const bound b(*std::max_element(ks.begin(), ks.end()), 1);
  auto records = privet::detail::transformed(views, [](const view& v) {
    return unit_record<std::uint64_t, tuple_key>{v.actor, v.tuple};
  });
  std::vector<tuple_counts> out(ks.size());
  std::vector<typename bound::kept_key> by_priority;
  // The salt is bound_keys::operator()'s: one draw from gen.
  b.select(records, random_u64(gen),
           [&](const std::uint64_t&, std::span<const typename bound::kept_key> kept) {
             detail::add_for_caps(kept, ks, by_priority, out);
           });
  return out;
}

/// The same from a day already streamed into a view_bounder whose cap is
/// at least every k of ks: equal to bounded_counts_for_caps on its views
/// when its generator was in the same state (the keep depends on the salt,
/// not on the cap). Throws invalid_parameter naming ks for an empty list, a
/// cap of 0 or one above the bounder's.
inline std::vector<tuple_counts> bounded_counts_for_caps(const view_bounder& day,
                                                         const std::vector<std::uint64_t>& ks) {
  detail::validate_caps(ks);
  const std::uint64_t top = day.state().max_keys();
  for (const std::uint64_t k : ks) {
    if (k > top) throw_invalid("ks", k, "[1, " + std::to_string(top) + "] (the bounder's k)");
  }
  using bound = bound_keys<std::uint64_t, tuple_key>;
  std::vector<tuple_counts> out(ks.size());
  std::vector<typename bound::kept_key> by_priority;
  day.state().visit([&](const std::uint64_t&, std::span<const typename bound::kept_key> kept) {
    detail::add_for_caps(kept, ks, by_priority, out);
  });
  return out;
}

/// One (k, tau) of a parameter grid: the utility of the release at that
/// cap and threshold, once per noise secret.
struct grid_point {
  std::uint64_t k = 0;                 ///< the cap of distinct tuples per actor
  std::int64_t tau = 0;                ///< the release threshold
  std::vector<utility_metrics> draws;  ///< one per noise secret
  bool met = false;                    ///< the requirements hold on every draw

  /// The largest median relative error over the draws (+inf if a draw
  /// published nothing: a release of nothing meets no accuracy goal).
  [[nodiscard]] double worst_median() const noexcept {
    double w = 0;
    for (const auto& m : draws)
      w = std::max(w, std::isnan(m.median_relative_error) ? std::numeric_limits<double>::infinity()
                                                          : m.median_relative_error);
    return w;
  }
  /// The smallest share of published cells with relative error < 0.5 (0
  /// if a draw published nothing).
  [[nodiscard]] double worst_share() const noexcept {
    double w = 1;
    for (const auto& m : draws)
      w = std::min(w, std::isnan(m.share_below_half) ? 0.0 : m.share_below_half);
    return w;
  }
};

/// A grid of caps k and release thresholds tau at one budget and candidate
/// threshold, evaluated on data the caller declares public or synthetic.
struct parameter_grid {
  std::vector<std::uint64_t> ks;      ///< ascending
  std::vector<std::int64_t> taus;     ///< ascending
  std::vector<double> bounded_views;  ///< per k: the views kept by the bounding
  std::vector<grid_point> points;     ///< row-major: ks.size() x taus.size()
  std::size_t candidate_cells = 0;    ///< candidate pages x countries

  /// The point of ks[k_index] and taus[tau_index] (row-major). Throws
  /// invalid_parameter naming k_index or tau_index past its axis (a flat
  /// index alone would let tau_index run into the next row), and
  /// std::out_of_range if points is shorter than the axes say.
  [[nodiscard]] const grid_point& at(std::size_t k_index, std::size_t tau_index) const {
    if (k_index >= ks.size()) {
      throw_invalid("k_index", k_index, "[0, " + std::to_string(ks.size()) + ") (ks.size())");
    }
    if (tau_index >= taus.size()) {
      throw_invalid("tau_index", tau_index,
                    "[0, " + std::to_string(taus.size()) + ") (taus.size())");
    }
    return points.at(k_index * taus.size() + tau_index);
  }
  /// The smallest tau of the grid that meets the requirements at cap k, if any.
  [[nodiscard]] std::optional<std::int64_t> smallest_tau(std::uint64_t k) const {
    for (std::size_t i = 0; i < ks.size(); ++i) {
      if (ks[i] != k) continue;
      for (std::size_t j = 0; j < taus.size(); ++j)
        if (at(i, j).met) return taus[j];
    }
    return std::nullopt;
  }
  /// The largest k of the grid that meets the requirements at threshold tau, if any.
  [[nodiscard]] std::optional<std::uint64_t> largest_k(std::int64_t tau) const {
    for (std::size_t j = 0; j < taus.size(); ++j) {
      if (taus[j] != tau) continue;
      for (std::size_t i = ks.size(); i-- > 0;)
        if (at(i, j).met) return ks[i];
    }
    return std::nullopt;
  }
};

namespace detail {
/// The grid on the bounded counts for sorted, distinct ks (one per k).
template <class Mechanism>
parameter_grid grid_on(
    const std::vector<tuple_counts>& truths, const page_counts& public_counts,
    const parameters<exact_guarantee_t<typename Mechanism::guarantee_type>>& base,
    std::uint32_t countries, std::vector<std::uint64_t> ks, std::vector<std::int64_t> taus,
    const std::vector<keyed_streams>& noise_secrets, const utility_requirements& req) {
  using hist = histogram<bound_per_actor, Mechanism>;
  const auto candidates = candidate_pages(public_counts, base.candidate_threshold);

  parameter_grid grid;
  grid.ks = ks;
  grid.taus = taus;
  grid.candidate_cells = candidates.size() * countries;
  grid.points.resize(ks.size() * taus.size());
  for (std::size_t i = 0; i < ks.size(); ++i) {
    double kept = 0;
    for (const auto& [t, c] : truths[i]) kept += static_cast<double>(c);
    grid.bounded_views.push_back(kept);
    parameters<exact_guarantee_t<typename Mechanism::guarantee_type>> p = base;
    p.k = ks[i];
    p.release_threshold = std::numeric_limits<std::int64_t>::min();
    const hist h(p, countries);
    for (std::size_t j = 0; j < taus.size(); ++j) {
      grid.points[i * taus.size() + j].k = ks[i];
      grid.points[i * taus.size() + j].tau = taus[j];
    }
    for (const auto& secret : noise_secrets) {
      const auto cells = h.release_pages(truths[i], candidates, secret);
      const auto by_tau = utility_at_thresholds(truths[i], cells, taus);
      for (std::size_t j = 0; j < taus.size(); ++j)
        grid.points[i * taus.size() + j].draws.push_back(by_tau[j]);
    }
    for (std::size_t j = 0; j < taus.size(); ++j) {
      auto& pt = grid.points[i * taus.size() + j];
      pt.met = std::all_of(pt.draws.begin(), pt.draws.end(),
                           [&](const utility_metrics& m) { return req.met_by(m); });
    }
  }
  return grid;
}

}  // namespace detail

namespace detail {
/// tune_parameters' checks of the grid, then ks and taus sorted and
/// deduplicated (both overloads share them).
inline void prepare_grid(std::vector<std::uint64_t>& ks, std::vector<std::int64_t>& taus,
                         const std::vector<keyed_streams>& noise_secrets,
                         const utility_requirements& req) {
  validate_non_empty(taus, "taus");
  validate_non_empty(noise_secrets, "noise_secrets");
  validate_requirements(req);
  for (const std::int64_t tau : taus) validate_at_least<std::int64_t>(tau, 1, "taus");
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  std::sort(taus.begin(), taus.end());
  taus.erase(std::unique(taus.begin(), taus.end()), taus.end());
}
}  // namespace detail

/// The utility of the release for every k of `ks` and tau of `taus` (both
/// sorted and deduplicated here) at the budget and candidate threshold of
/// `base`, on `views` and `public_counts`, with one noise draw per secret of
/// `noise_secrets` (the bounding's randomness from the first); a point is
/// met when `req` holds on every draw, and its drop rate among large cells
/// counts cells of true count >= tau.
///
/// The truth is read without noise, so the data must be public or
/// synthetic (a previous day already published, or a generated day of the
/// same size): choosing k or tau from the private day's truth would make
/// the parameters, hence the release, depend on private data in a way no
/// privacy map here accounts for. Throws invalid_parameter for empty ks,
/// taus or noise_secrets, a k of 0, a tau below 1, or requirements outside
/// (0, inf] and [0, 1] (and whatever histogram's constructor refuses).
template <class Mechanism = discrete_gaussian_mechanism<std::int64_t>, std::ranges::input_range R>
requires count_mechanism<Mechanism> parameter_grid tune_parameters(
    const R& views, const page_counts& public_counts,
    const parameters<exact_guarantee_t<typename Mechanism::guarantee_type>>& base,
    std::uint32_t countries, std::vector<std::uint64_t> ks, std::vector<std::int64_t> taus,
    const std::vector<keyed_streams>& noise_secrets, const utility_requirements& req = {}) {
  detail::prepare_grid(ks, taus, noise_secrets, req);

  auto gen = histogram<bound_per_actor, Mechanism>::bounding_stream(noise_secrets.front());
  const auto truths = bounded_counts_for_caps(views, ks, gen);
  return detail::grid_on<Mechanism>(truths, public_counts, base, countries, std::move(ks),
                                    std::move(taus), noise_secrets, req);
}

/// The same on a day streamed into `day`, a view_bounder of bound_per_actor
/// with k at least every k of ks, started from
/// histogram::bounding_stream(noise_secrets.front()) (so its keep is
/// tune_parameters' on the same views): the tuning day need not sit in
/// memory. Throws as tune_parameters, and invalid_parameter naming ks for a
/// k above the bounder's.
template <class Mechanism = discrete_gaussian_mechanism<std::int64_t>>
requires count_mechanism<Mechanism> parameter_grid tune_parameters(
    const view_bounder& day, const page_counts& public_counts,
    const parameters<exact_guarantee_t<typename Mechanism::guarantee_type>>& base,
    std::uint32_t countries, std::vector<std::uint64_t> ks, std::vector<std::int64_t> taus,
    const std::vector<keyed_streams>& noise_secrets, const utility_requirements& req = {}) {
  detail::prepare_grid(ks, taus, noise_secrets, req);
  const auto truths = bounded_counts_for_caps(day, ks);
  return detail::grid_on<Mechanism>(truths, public_counts, base, countries, std::move(ks),
                                    std::move(taus), noise_secrets, req);
}

}  // namespace privet::pageview
