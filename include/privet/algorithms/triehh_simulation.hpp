// privet/algorithms/triehh_simulation.hpp — LDP TrieHH (Sun, Kairouz, Sun,
// Gascón & Suresh 2024, "Private federated discovery of out-of-vocabulary
// words for Gboard", arXiv:2404.11607, Algorithm 2) simulated at the
// paper's scale, and its utility measure.
//
// Two simulation paths, both through the library's own server
// (algorithms/ldp_triehh.hpp):
//
// - The exact per-user path (triehh::run, simulate_layer): every user of a
//   layer runs the client: valid prefixes, local sampling to at most B,
//   gamma padding, B subset-selection reports. Exact in law for any data,
//   any B and any sampling policy; it costs B d random draws per user
//   (about 54 k users per CPU-second at the paper's B = 60, d = 13).
//
// - The distribution path (run_distribution, simulate_layer_distribution):
//   every user still runs the client's local step exactly (valid prefixes
//   and the sampling policy, sampled_items), which gives a_c, the number of
//   the layer's N B reports whose item is candidate c (the others report
//   gamma). Subset selection is then applied in aggregate: a report of item
//   c contains c with probability p and a report of any other item
//   (gamma included) contains c with probability q = (d - p) / (s - 1),
//   s = candidates + 1 (Ye & Barg 2018; mechanisms/subset_selection.hpp),
//   so candidate c's vote count is exactly Bin(a_c, p) + Bin(N B - a_c, q)
//   in law (sample_vote_counts), fed to server::receive_sum. It costs one
//   pass over each user's words and two binomial draws per candidate.
//
// When the distribution path applies: each candidate's count has exactly
// the per-user path's law, whatever B and the sampling policy (the local
// step is run per user, so a binding B is simulated exactly too; when B
// does not bind, a_c is simply the number of the layer's users with a
// valid prefix c). What it does not reproduce is the dependence between
// candidates: each report holds exactly d candidates, so the true counts
// are slightly negatively correlated (covariance about -N B d / s^2 per
// pair of candidates), while the distribution path draws
// them independently. The threshold is the eta_max-th largest of s - 1
// counts, whose law that weak dependence hardly moves; the test "the exact
// and distribution paths agree in distribution" checks the marginals, and
// the example's exact cross-check runs both paths on the same population.
// Use the exact path to simulate the deployed protocol message by message
// (it is the only one that produces votes), and the distribution path for
// utility studies at N B in the tens of millions.
//
// The binomials are drawn with std::binomial_distribution: simulation-only
// randomness from any uniform random bit generator (privet::seeded_generator
// for repeatable runs), not release-grade noise.
//
// Coverage (Sun et al. 2024, Section 5): the share of the target words'
// contributions, counted on a held-out group of users who voted in no
// layer, that belongs to discovered target words.
#pragma once

#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <random>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace privet::triehh {

/// A simulated population: users(i), for i in [0, population), is user i's
/// typed words (a typed_words range, by value or by reference). Called
/// concurrently from several threads, each user once per run.
template <class U>
concept user_source = std::invocable<const U&, std::uint64_t> &&
    typed_words<std::remove_cvref_t<std::invoke_result_t<const U&, std::uint64_t>>>;

namespace detail {

inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > std::numeric_limits<std::uint64_t>::max() - a
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

}  // namespace detail

/// A family of keyed streams: `keyed_streams` (from a secure generator) or
/// `simulation_keyed_streams` (streams_from of a seeded one). The local step
/// only samples prefixes, so either serves; what they draw is as good as the
/// generator their secret came from.
template <class S>
concept stream_family = requires(const S& s, std::uint64_t a) {
  { s.stream(a, a) } -> random_bit_source;
};

/// The local step of `count` users, users(first), ..., users(first + count
/// - 1) (an index >= population is a user with no words, who sends only
/// gamma): each forms its valid prefixes for the layer and keeps at most B
/// of them by `sampling`, exactly as a client does. Returns a_c for each
/// candidate c: how many of the count * B reports have item c. Users run in
/// blocks of simulation_block on TBB's threads, block k drawing from
/// streams.stream(stream, k), so the result does not depend on the thread
/// count. Cost: one pass over each user's words plus the sampling; memory
/// one count vector over the layer's candidates per thread.
/// @param layer the layer's broadcast and parameters (B = contributions)
/// @param users the population (user_source), called once per user
/// @param population users at indices >= population have no words
/// @param first the first user's index
/// @param count how many users, from `first` on
/// @param vocabulary the known words, which vote for nothing (may be null)
/// @param streams the keyed streams the sampling draws from
/// @param stream the first address word of this layer's streams: use one
/// no other layer of the same secret uses
/// @param sampling the local sampling policy
/// @return a vector of the layer's candidate count, a_c at index c
/// @throws privet::protocol_error if the policy keeps more than B prefixes
template <sampling_policy Sampling = random_sampling, user_source Users, stream_family Streams>
std::vector<std::uint64_t> sampled_items(const prepared_layer& layer, const Users& users,
                                         std::uint64_t population, std::uint64_t first,
                                         std::uint64_t count,
                                         const std::unordered_set<word>* vocabulary,
                                         const Streams& streams, std::uint64_t stream,
                                         Sampling sampling = {}) {
  const std::uint64_t s = layer.broadcast().candidates();
  const std::uint64_t b = layer.params().contributions;
  std::vector<std::uint64_t> total(static_cast<std::size_t>(s), 0);
  if (s == 0 || count == 0) return total;
  const std::uint64_t blocks = (count - 1) / simulation_block + 1;
  struct scratch {
    std::vector<std::uint64_t> items_per_candidate;
    std::vector<prefix_count> counts;
    std::vector<std::uint64_t> kept;
  };
  oneapi::tbb::enumerable_thread_specific<scratch> local([&] {
    return scratch{std::vector<std::uint64_t>(static_cast<std::size_t>(s), 0), {}, {}};
  });
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::uint64_t>(0, blocks, 1),
      [&](const oneapi::tbb::blocked_range<std::uint64_t>& r) {
        scratch& mine = local.local();
        for (std::uint64_t k = r.begin(); k != r.end(); ++k) {
          auto gen = streams.stream(stream, k);
          const std::uint64_t end = std::min(count, (k + 1) * simulation_block);
          for (std::uint64_t i = k * simulation_block; i < end; ++i) {
            const std::uint64_t u = first + i;
            if (u < first || u >= population) continue;  // no words: only gamma
            detail::valid_prefixes(users(u), vocabulary, layer.broadcast(), mine.counts);
            mine.kept.clear();
            sampling.sample(mine.counts, b, gen, mine.kept);
            if (mine.kept.size() > b) {
              throw protocol_error("privet: a TrieHH sampling policy kept " +
                                   std::to_string(mine.kept.size()) +
                                   " prefixes; allowed: at most B = " + std::to_string(b));
            }
            for (std::uint64_t c : mine.kept)
              ++mine.items_per_candidate[static_cast<std::size_t>(c)];
          }
        }
      },
      oneapi::tbb::simple_partitioner());
  for (const scratch& part : local) {
    for (std::size_t c = 0; c < total.size(); ++c) total[c] += part.items_per_candidate[c];
  }
  return total;
}

/// A layer's vote counts drawn from their law given the reports' items:
/// `items`[c] of the users * B reports have item c, the rest gamma; count c
/// is Bin(items[c], p) + Bin(users * B - items[c], q), drawn independently
/// per candidate (the header says what that leaves out). At epsilon = inf
/// the counts are the items. Throws invalid_parameter for items of the
/// wrong length, users * B beyond 2^64 - 1, or items totalling more than
/// users * B reports.
template <std::uniform_random_bit_generator G>
std::vector<std::uint64_t> sample_vote_counts(const prepared_layer& layer,
                                              std::span<const std::uint64_t> items,
                                              std::uint64_t users, G& gen) {
  const std::uint64_t s = layer.broadcast().candidates();
  const std::uint64_t b = layer.params().contributions;
  if (items.size() != s) {
    throw_invalid("items.size()", items.size(), "the layer's candidate count " + std::to_string(s));
  }
  if (users > std::numeric_limits<std::uint64_t>::max() / b) {
    throw_invalid("users", users, "with users * B < 2^64 (B = " + std::to_string(b) + ")");
  }
  const std::uint64_t reports = users * b;
  std::uint64_t held = 0;
  for (std::uint64_t a : items) held = detail::saturating_add(held, a);
  if (held > reports) {
    throw_invalid("items", held,
                  "a total of at most users * B = " + std::to_string(reports) + " reports");
  }
  std::vector<std::uint64_t> out(items.begin(), items.end());
  const subset_selection* ss = layer.randomiser();
  if (ss == nullptr) return out;
  const double p = ss->p_true(), q = ss->p_other();
  using binomial = std::binomial_distribution<std::uint64_t>;
  binomial nobody(reports, q);  // the common case a_c = 0, set up once
  for (std::size_t c = 0; c < out.size(); ++c) {
    const std::uint64_t a = items[c];
    out[c] = a == 0 ? nobody(gen) : binomial(a, p)(gen) + binomial(reports - a, q)(gen);
  }
  return out;
}

/// The distribution path for one layer: the local step of users(first),
/// ..., users(first + N - 1) (sampled_items, streams.stream(stream, k) for
/// block k) and their vote counts drawn from `gen` (sample_vote_counts).
/// Hand the result to server::receive_sum(counts, N). Throws as
/// sampled_items and sample_vote_counts do.
template <sampling_policy Sampling = random_sampling, user_source Users, stream_family Streams,
          std::uniform_random_bit_generator G>
std::vector<std::uint64_t> simulate_layer_distribution(const prepared_layer& layer,
                                                       const Users& users, std::uint64_t population,
                                                       std::uint64_t first,
                                                       const std::unordered_set<word>* vocabulary,
                                                       const Streams& streams, std::uint64_t stream,
                                                       G& gen, Sampling sampling = {}) {
  const std::uint64_t n = layer.params().users_per_layer;
  const std::vector<std::uint64_t> items =
      sampled_items(layer, users, population, first, n, vocabulary, streams, stream, sampling);
  return sample_vote_counts(layer, std::span<const std::uint64_t>(items), n, gen);
}

/// run() by the distribution path: `passes` passes over disjoint groups of
/// users, each layer taking the next N users of the source in index order
/// (layer l of the whole run, counting from 0, takes users [l N, (l + 1)
/// N)); indices past `population` are users with no words, so every layer
/// hears N clients, as in run(). Unlike run(), the users are not shuffled:
/// give a source whose order carries no information (users drawn
/// independently, or already shuffled). Words found by a pass join the
/// known vocabulary of later passes. pass_result::groups is left empty
/// (the groups are the index ranges above). The result is a function of
/// `gen` alone, whatever the number of threads. Throws invalid_parameter as
/// parameters::validate does or for passes = 0, and protocol_error if the
/// sampling policy keeps more than B prefixes.
template <sampling_policy Sampling = random_sampling, user_source Users, random_bit_source G>
std::vector<pass_result> run_distribution(const Users& users, std::uint64_t population,
                                          std::unordered_set<word> vocabulary, const word& alphabet,
                                          char32_t end_of_word, const parameters& p,
                                          std::size_t passes, G& gen, Sampling sampling = {}) {
  p.validate();
  validate_at_least<std::size_t>(passes, 1, "passes");
  // Streams as good as gen (keyed_streams for a secure one, plain seeded
  // streams otherwise): this path draws its noise from gen directly.
  const auto streams = streams_from(gen);
  std::uint64_t next = 0;
  return detail::run_passes(
      vocabulary, alphabet, end_of_word, p, passes,
      [&](server& srv, const prepared_layer& layer, pass_result&) {
        // The vocabulary grows only after the pass.
        const std::vector<std::uint64_t> counts = simulate_layer_distribution(
            layer, users, population, next, &vocabulary, streams, next, gen, sampling);
        srv.receive_sum(counts, p.users_per_layer);
        next = next > std::numeric_limits<std::uint64_t>::max() - p.users_per_layer
                   ? std::numeric_limits<std::uint64_t>::max()
                   : next + p.users_per_layer;
      });
}

// ---- coverage ---------------------------------------------------------------------------------

/// Coverage as Sun et al. (2024, Section 5) measure it.
struct coverage_result {
  /// Contributions of discovered target words.
  std::uint64_t discovered = 0;
  /// Contributions of all target words.
  std::uint64_t target = 0;
  /// discovered / target; 0 when the held-out users contributed no target word.
  [[nodiscard]] double value() const noexcept {
    return target == 0 ? 0.0 : static_cast<double>(discovered) / static_cast<double>(target);
  }
};

/// The coverage of `discovered` over the `targets` (the words one wants
/// found, e.g. every out-of-vocabulary word that D layers can spell), with
/// contributions counted on `held_out`: a range of users (each a
/// typed_words range) who voted in no layer, so that coverage is measured
/// out of sample. A contribution is one typing of a word (a (word, n) entry
/// contributes n). Discovered words that are not targets count nowhere.
/// Sums saturate at 2^64 - 1 (never wrap).
template <std::ranges::input_range HeldOut>
requires typed_words<std::remove_cvref_t<std::ranges::range_reference_t<const HeldOut&>>>
    coverage_result coverage(const std::unordered_set<word>& discovered,
                             const std::unordered_set<word>& targets, const HeldOut& held_out) {
  coverage_result r;
  for (auto&& user : held_out) {
    for (auto&& entry : user) {
      const auto& [w, n] = entry;
      if (!targets.contains(w)) continue;
      const auto k = static_cast<std::uint64_t>(n);
      r.target = detail::saturating_add(r.target, k);
      if (discovered.contains(w)) r.discovered = detail::saturating_add(r.discovered, k);
    }
  }
  return r;
}

/// The words discovered over all passes of a run, as a set for coverage().
inline std::unordered_set<word> discovered_words(const std::vector<pass_result>& passes) {
  std::unordered_set<word> out;
  for (const auto& pass : passes) out.insert(pass.discovered.begin(), pass.discovered.end());
  return out;
}

}  // namespace privet::triehh
