// examples/support/pageview_generator.hpp — realistic synthetic days of page
// views, since no real row-level pageview data is public (Wikimedia's
// release, Adeleye et al. 2023, "Publishing Wikipedia usage data with strong
// privacy guarantees", arXiv:2308.16298, publishes only noisy counts).
//
// The model, with every parameter in generator_options:
// - countries: 50 countries with their UN M49 continent and subregion and a
//   traffic weight (illustrative, in the order of Wikimedia's published
//   traffic by country: the US first, then Germany, Japan, the UK, India...);
// - projects: ten Wikipedias; readers in a country with a home-language
//   project read it with probability home_share, English otherwise (and
//   readers elsewhere read English, with a small share spread over the rest);
// - page popularity: Zipf with exponent zipf_exponent over each project's
//   pages; each page also has a home country (one of the project's, or any
//   for English), and with probability local_share a reader picks from the
//   pages of their own country (Zipf again), which gives every page its own
//   country mix;
// - actors: views per actor are 1 + a log-normal (heavy-tailed, capped at
//   max_human_views); a share bot_share of actors are crawler-like, with
//   bot_min_views to bot_max_views views spread uniformly over pages.
// Rows come out actor by actor, like a day's log grouped by actor. An actor's
// id is what io::pageview_reader makes of its signature text (signature():
// 16 hexadecimal digits), so a day written as TSV with that text reads back
// as the same views, and gives the same release for the same secret.
#pragma once

#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/core/detail/hash.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/io/pageview_reader.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace privet::examples {

struct country_info {
  const char* code;
  const char* continent;
  const char* subregion;
  double weight;
};

inline const std::vector<country_info>& countries() {
  static const std::vector<country_info> list{
      {"US", "Americas", "Northern America", 22},
      {"CA", "Americas", "Northern America", 2.5},
      {"MX", "Americas", "Latin America and the Caribbean", 2.0},
      {"BR", "Americas", "Latin America and the Caribbean", 2.5},
      {"AR", "Americas", "Latin America and the Caribbean", 0.8},
      {"CO", "Americas", "Latin America and the Caribbean", 0.7},
      {"CL", "Americas", "Latin America and the Caribbean", 0.4},
      {"PE", "Americas", "Latin America and the Caribbean", 0.3},
      {"GB", "Europe", "Northern Europe", 5.0},
      {"IE", "Europe", "Northern Europe", 0.4},
      {"SE", "Europe", "Northern Europe", 0.6},
      {"NO", "Europe", "Northern Europe", 0.3},
      {"FI", "Europe", "Northern Europe", 0.3},
      {"DK", "Europe", "Northern Europe", 0.3},
      {"DE", "Europe", "Western Europe", 7.0},
      {"FR", "Europe", "Western Europe", 4.0},
      {"NL", "Europe", "Western Europe", 1.2},
      {"BE", "Europe", "Western Europe", 0.6},
      {"AT", "Europe", "Western Europe", 0.6},
      {"CH", "Europe", "Western Europe", 0.6},
      {"ES", "Europe", "Southern Europe", 2.5},
      {"IT", "Europe", "Southern Europe", 3.0},
      {"PT", "Europe", "Southern Europe", 0.4},
      {"GR", "Europe", "Southern Europe", 0.3},
      {"RU", "Europe", "Eastern Europe", 4.0},
      {"PL", "Europe", "Eastern Europe", 1.5},
      {"UA", "Europe", "Eastern Europe", 0.8},
      {"CZ", "Europe", "Eastern Europe", 0.4},
      {"RO", "Europe", "Eastern Europe", 0.3},
      {"JP", "Asia", "Eastern Asia", 6.0},
      {"KR", "Asia", "Eastern Asia", 0.6},
      {"TW", "Asia", "Eastern Asia", 0.6},
      {"HK", "Asia", "Eastern Asia", 0.4},
      {"CN", "Asia", "Eastern Asia", 0.5},
      {"IN", "Asia", "Southern Asia", 5.0},
      {"PK", "Asia", "Southern Asia", 0.4},
      {"BD", "Asia", "Southern Asia", 0.3},
      {"IR", "Asia", "Southern Asia", 0.5},
      {"ID", "Asia", "South-eastern Asia", 0.8},
      {"PH", "Asia", "South-eastern Asia", 1.0},
      {"VN", "Asia", "South-eastern Asia", 0.4},
      {"SG", "Asia", "South-eastern Asia", 0.3},
      {"MY", "Asia", "South-eastern Asia", 0.3},
      {"TR", "Asia", "Western Asia", 0.6},
      {"IL", "Asia", "Western Asia", 0.3},
      {"AU", "Oceania", "Australia and New Zealand", 1.5},
      {"NZ", "Oceania", "Australia and New Zealand", 0.3},
      {"EG", "Africa", "Northern Africa", 0.4},
      {"NG", "Africa", "Sub-Saharan Africa", 0.4},
      {"ZA", "Africa", "Sub-Saharan Africa", 0.4},
  };
  return list;
}

struct project_info {
  const char* name;
  std::vector<const char*> home;  // countries whose readers prefer it
  std::uint64_t pages;
};

inline const std::vector<project_info>& projects() {
  static const std::vector<project_info> list{
      {"en.wikipedia", {}, 150'000},
      {"de.wikipedia", {"DE", "AT", "CH"}, 40'000},
      {"fr.wikipedia", {"FR", "BE"}, 40'000},
      {"es.wikipedia", {"ES", "MX", "AR", "CO", "CL", "PE"}, 40'000},
      {"ja.wikipedia", {"JP"}, 40'000},
      {"ru.wikipedia", {"RU", "UA"}, 40'000},
      {"it.wikipedia", {"IT"}, 30'000},
      {"pt.wikipedia", {"BR", "PT"}, 30'000},
      {"pl.wikipedia", {"PL"}, 20'000},
      {"zh.wikipedia", {"TW", "HK", "CN", "SG", "MY"}, 30'000},
  };
  return list;
}

struct generator_options {
  std::uint64_t rows = 10'000'000;  ///< stop after this many rows
  double zipf_exponent = 1.05;      ///< page popularity within a project
  double home_share = 0.65;         ///< readers' share of their home-language project
  double local_share = 0.25;        ///< views drawn from pages of the reader's own country
  double lognormal_mu = 0.3;        ///< human views per actor: 1 + LogNormal(mu, sigma)
  double lognormal_sigma = 1.1;
  std::uint64_t max_human_views = 500;
  double bot_share = 0.003;  ///< crawler-like actors
  std::uint64_t bot_min_views = 200, bot_max_views = 3000;
  std::uint64_t seed = 20261123;
};

/// Draws an index from cumulative weights (binary search).
class discrete_table {
 public:
  discrete_table() = default;
  explicit discrete_table(const std::vector<double>& weights) {
    double s = 0;
    for (double w : weights) cdf_.push_back(s += w);
    for (double& c : cdf_) c /= s;
  }
  template <class G>
  std::size_t operator()(G& gen) const {
    const double u = static_cast<double>(gen() >> 11) * 0x1p-53;
    return static_cast<std::size_t>(std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin()) %
           cdf_.size();
  }
  [[nodiscard]] bool empty() const noexcept { return cdf_.empty(); }

 private:
  std::vector<double> cdf_;
};

class pageview_generator {
 public:
  explicit pageview_generator(generator_options o = {}) : o_(o), gen_(o.seed) {
    const auto& cs = countries();
    const auto& ps = projects();
    std::vector<double> w;
    for (const auto& c : cs) w.push_back(c.weight);
    country_ = discrete_table(w);
    home_project_.assign(cs.size(), 0);
    for (std::size_t p = 1; p < ps.size(); ++p) {
      for (const char* h : ps[p].home) home_project_[index_of(h)] = static_cast<std::uint32_t>(p);
    }
    // Zipf over each project's pages, and per (project, country) the pages
    // whose home country it is.
    for (std::size_t p = 0; p < ps.size(); ++p) {
      std::vector<double> z(ps[p].pages);
      for (std::uint64_t r = 0; r < ps[p].pages; ++r)
        z[r] = std::pow(static_cast<double>(r + 1), -o_.zipf_exponent);
      popular_.emplace_back(z);
      std::vector<std::vector<std::uint64_t>> local(cs.size());
      std::vector<std::vector<double>> local_w(cs.size());
      for (std::uint64_t r = 0; r < ps[p].pages; ++r) {
        const std::size_t home = page_home(p, r);
        local[home].push_back(r);
        local_w[home].push_back(z[r]);
      }
      local_pages_.push_back(std::move(local));
      std::vector<discrete_table> tables;
      for (const auto& lw : local_w) tables.emplace_back(lw);
      local_.push_back(std::move(tables));
    }
  }

  /// Calls emit(view) for every row of the day, actor by actor, until
  /// options.rows rows; the public (non-deduplicated) counts are `emit`'s to
  /// keep. Returns the number of actors.
  template <class Emit>
  std::uint64_t generate(Emit&& emit) {
    std::lognormal_distribution<double> human(o_.lognormal_mu, o_.lognormal_sigma);
    std::uint64_t rows = 0, actor = 0;
    const auto& ps = projects();
    while (rows < o_.rows) {
      const std::uint64_t raw = detail::mix64(o_.seed ^ ++actor);
      static constexpr char digits[] = "0123456789abcdef";
      for (int d = 0; d < 16; ++d) signature_[d] = digits[(raw >> (60 - 4 * d)) & 15];
      const std::uint64_t id = io::actor_signature_hash(signature());
      const auto c = static_cast<std::uint16_t>(country_(gen_));
      const bool bot = uniform() < o_.bot_share;
      std::uint64_t n = bot ? o_.bot_min_views + gen_() % (o_.bot_max_views - o_.bot_min_views + 1)
                            : 1 + std::min<std::uint64_t>(static_cast<std::uint64_t>(human(gen_)),
                                                          o_.max_human_views - 1);
      n = std::min(n, o_.rows - rows);
      for (std::uint64_t i = 0; i < n; ++i) {
        std::uint32_t p = 0;
        const double u = uniform();
        if (home_project_[c] != 0) {
          p = u < o_.home_share ? home_project_[c] : 0;
        } else if (u >= 0.95) {
          p = static_cast<std::uint32_t>(1 + gen_() % (ps.size() - 1));
        }
        std::uint64_t page;
        if (bot) {
          page = gen_() % ps[p].pages;
        } else if (uniform() < o_.local_share && !local_pages_[p][c].empty()) {
          page = local_pages_[p][c][local_[p][c](gen_)];
        } else {
          page = popular_[p](gen_);
        }
        emit(pageview::view{id, {page_id(p, page), p, c}});
      }
      rows += n;
    }
    return actor;
  }

  /// The actor_signature text of the actor whose rows emit() is being
  /// given (valid during generate()): the reader hashes it to view::actor.
  [[nodiscard]] std::string_view signature() const noexcept {
    return {signature_, sizeof signature_};
  }

  /// The page id of rank r in project p (ids are unique across projects).
  static std::uint64_t page_id(std::size_t p, std::uint64_t r) { return p * 1'000'000 + r; }

 private:
  static std::size_t index_of(const char* code) {
    const auto& cs = countries();
    for (std::size_t i = 0; i < cs.size(); ++i)
      if (std::string(cs[i].code) == code) return i;
    return 0;
  }
  // A page's home country: one of its project's home countries, or for
  // English a country drawn by traffic weight (a fixed hash of the page).
  std::size_t page_home(std::size_t p, std::uint64_t r) const {
    const auto& home = projects()[p].home;
    const std::uint64_t h = detail::mix64(p * 0x9e3779b97f4a7c15ull + r);
    if (!home.empty()) return index_of(home[h % home.size()]);
    seeded_generator g(h);
    return country_(g);
  }
  double uniform() { return static_cast<double>(gen_() >> 11) * 0x1p-53; }

  generator_options o_;
  char signature_[16] = {};
  seeded_generator gen_;
  discrete_table country_;
  std::vector<std::uint32_t> home_project_;
  std::vector<discrete_table> popular_;
  std::vector<std::vector<std::vector<std::uint64_t>>> local_pages_;
  std::vector<std::vector<discrete_table>> local_;
};

}  // namespace privet::examples
