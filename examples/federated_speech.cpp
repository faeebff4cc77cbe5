// Federated DP-SGD on a speech task (Sotto Voce: Shoemate, Jett, Cowan,
// Colbath, Honaker & Muthukumar 2022, "Sotto Voce: Federated Speech
// Recognition with Differential Privacy Guarantees", arXiv:2207.07816):
// organisations that each hold private recordings train one LSTM together,
// exchanging only privatised gradients
// (privet/algorithms/federated_dpsgd.hpp).
//
//   federated_speech [--quick] [--embedded] [--sample FILE] [--cache DIR]
//                    [--seeds N] [--rounds R] [--warm-epochs E] [--hidden H]
//                    [--labels frame|word] [--snr DB] [--public-speakers N]
//                    [--epsilon E] [--outlier-epsilon E] [--lr LR] [--q Q] [--clip-all]
//                    [--last-iterate]
//                    [--aggregation mean|batch] [--jobs N] [--svg FILE]
//                    (--help lists every option with its default)
//
// Data: the espeak-ng keyword corpus of examples/support/speech_corpus.hpp
// (ten keywords, 23 speakers in four organisations: public, clinic and
// callcentre (private), and an outlier whisper voice), 13 MFCCs per 10 ms,
// synthesised once into the build tree's cache, or the embedded sample
// (--embedded or --sample FILE, or when espeak-ng is missing). Features are standardised per
// coefficient with the public training data's mean and deviation (public
// statistics, so no budget is spent on them).
//
// Making the table mean something. Word classification is easy here (a
// nearest-neighbour classifier gets 96 % from public data alone), so the
// defaults were measured and chosen to leave room between the rows:
// - frame labels (senone-like): every frame is labelled with its keyword
//   and the LSTM (privet/ml/lstm.hpp, a softmax per frame) must name the
//   word from the frames heard so far; accuracy is over frames
//   (--labels word for utterance labels from mean-pooled states);
// - the public organisation keeps its first 2 of 6 speakers
//   (--public-speakers), so public data alone reaches about 70 %;
// - white noise at 10 dB SNR instead of the corpus's 30 dB (--snr), so that
//   repetitions differ and a model can memorise its training set, without
//   which the membership-inference attack has nothing to find;
// - 32 LSTM units instead of the paper's 200 (--hidden): DP noise grows
//   with the parameter count, and 13 x 200 x 10 on 2 cores is minutes per
//   epoch.
// Per seed: a warm start (20 epochs of plain SGD on the public data), then
// the same number of rounds (140, i.e. 14 epochs at q = 0.1, the paper's
// 14 epochs of federated training) of:
//   public only      the public organisation alone;
//   pooled, no DP    one party holding every organisation's training data,
//                    plain SGD (no clipping unless --clip-all);
//   federated DP     public (declares its data public: no noise), clinic
//                    and callcentre, each (eps = 3, 1e-5)-DP for the whole
//                    run per utterance, and the outlier organisation,
//                    (eps = 3, 1e-5)-DP for the whole run per speaker
//                    (--outlier-epsilon gives it its own budget); clip bound
//                    1, Poisson rate q = 0.1 (over utterances, or over the
//                    outlier's one speaker), noise calibrated by the PLD
//                    accountant, batch-weighted aggregation, replicas kept
//                    identical;
//   federated DP, outlier per utterance
//                    the same with the outlier organisation private per
//                    utterance, like the others, to compare;
// and, as the world in which the outlier did not take part, pooled and
// federated DP without the outlier organisation. The table gives main
// (public, clinic and callcentre speakers) and outlier test accuracy, mean
// and standard deviation over the seeds; then a loss-threshold
// membership-inference attack (Yeom et al. 2018: "member" when the
// utterance's loss is below a threshold; advantage = max over thresholds of
// TPR - FPR) on training against test utterances of the private
// organisations, and of the outlier alone; the public-only model, which
// never saw them, gives the attack's sampling floor; and the same attack on
// the outlier speaker's participation (its test utterances scored by the
// models with and without the outlier organisation). Then the privacy each
// organisation spent (RDP, PLD and PRV accountants, with the privacy unit)
// and Sotto Voce's per-step calibration (eps = 100, delta = 1e-6 per step,
// clip bound 1).
//
// Why the outlier organisation protects its speaker. Its data are one
// person's 70 utterances. Private per utterance, it sends 7 clipped
// examples a round, and per-utterance DP does not hide the speaker as a
// whole (group privacy gives about 70 eps): over 10 seeds the whisper voice
// gets through (outlier 30.8 +- 6.2 % against 23.7 +- 6.2 % public only;
// participation attack AUC 0.69). Private per speaker (user-level DP-SGD,
// ml/privacy_units.hpp), its one speaker is one record: sampled in a tenth
// of the rounds, the speaker's mean gradient clipped to norm 1, with the
// same noise multiplier, so (eps = 3, 1e-5) holds for the speaker. Its
// weight in the batch-weighted mean is its expected batch, q U = 0.1 record
// against about 126 for the others (it was 7 per utterance): one clipped
// record is all that user-level DP lets a one-person organisation put in,
// and that is what hides the person. The outlier then stays at the level
// of a model that never saw it (21.3 +- 4.6 %), the attacker cannot tell
// it took part (AUC 0.507 +- 0.046), and the main speakers still gain 12
// points (80.3 %), as in the paper (main 38.0 -> 38.6 %, outlier 23.1 ->
// 22.0 %). (With --aggregation mean every organisation weighs 1 / 4, and
// the outlier's noise, sigma over q U = 0.1, would swamp the update.)
//
// Noise and sampling come from seeded ChaCha20 streams
// (privet::testing::seeded_release_generator, the explicit test-only marker
// that release paths accept) so that this experiment can be repeated; a
// deployment calls federation::run_round() without generators and draws from
// the OS CSPRNG.
// The organisations run in one process here; with one organisation per MPI
// rank, privet::dist::mpi_federation (privet/dist/federated_dpsgd.hpp, the
// optional privet::mpi target) takes each rank's members and runs the same
// rounds, with the same update bit for bit for the same seeds.
// --quick (the ctest) runs a small configuration with RDP calibration;
// progress goes to stderr.
#include <privet/algorithms/federated_dpsgd.hpp>
#include <privet/core/analytic_gaussian.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/ml/lstm.hpp>
#include <privet/ml/metrics.hpp>

#include "support/command_line.hpp"
#include "support/progress.hpp"
#include "support/speech_corpus.hpp"
#include "support/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// OpenBLAS's thread control, when the BLAS in use is OpenBLAS: the LSTM
// already runs blocks of sequences as TBB tasks.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace sp = privet::examples::speech;
namespace fed = privet::federated;
namespace ml = privet::ml;

namespace {

struct config {
  bool quick = false;
  bool frame_labels = true;
  std::size_t hidden = 32;
  std::size_t public_speakers = 2;  // of the public organisation's 6
  std::size_t seeds = 3;
  std::size_t warm_epochs = 20;
  std::uint64_t rounds = 140;
  double warm_learning_rate = 0.3;  // the warm start's
  double learning_rate = 0.3;       // every continuation's (--lr)
  double clip_norm = 1.0;           // C of the private organisations' DP-SGD
  // The non-private trainings' clip norm (the warm start, public only,
  // pooled): +inf, plain SGD, unless --clip-all.
  double public_clip_norm = std::numeric_limits<double>::infinity();
  double epsilon = 3;  // each private organisation's budget for the run
  // The outlier organisation's budget when it picks its own
  // (--outlier-epsilon; each organisation may): by default the same.
  std::optional<double> outlier_epsilon;
  double delta = 1e-5;
  // How the private organisations' noise is calibrated: the PLD accountant,
  // or (--quick) RDP on integer orders, 30 times faster to invert.
  privet::calibration_options calibration = {};
  // Every organisation samples its examples at the same Poisson rate q, so
  // its expected batch b = q n is its share of a pooled batch, and
  // batch-weighted aggregation is DP-SGD on the pooled data with noise
  // from each organisation.
  double sampling_rate = 0.1;
  fed::aggregation rule = fed::aggregation::batch_weighted;
  // Evaluate the mean of the parameters over the second half of the rounds
  // (--last-iterate: the final model instead).
  bool tail_average = true;
  std::string svg;
};

// ---- models -----------------------------------------------------------------

/// The LSTM with one label per frame, and the one with a label per word.
using frame_lstm = ml::frame_lstm_classifier<float>;
static_assert(ml::differentiable_model<frame_lstm>);
static_assert(ml::indexed_gradient_model<frame_lstm, frame_lstm::batch_type>);
using word_lstm = ml::lstm_classifier<float>;

/// (correct, total): frames for the frame model, utterances for the word model.
std::pair<std::size_t, std::size_t> hits(const frame_lstm& m, const frame_lstm::batch_type& b) {
  const auto z = m.frame_logits(b);
  std::size_t right = 0, total = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const std::size_t k = z[i].shape(1);
    for (std::size_t t = 0; t < z[i].shape(0); ++t) {
      const float* row = z[i].data() + t * k;
      right += static_cast<int>(std::max_element(row, row + k) - row) == b.y[i][t];
      ++total;
    }
  }
  return {right, total};
}
std::pair<std::size_t, std::size_t> hits(const word_lstm& m, const word_lstm::batch_type& b) {
  const auto p = m.predict(b);
  std::size_t right = 0;
  for (std::size_t i = 0; i < p.size(); ++i) right += p[i] == b.y[i];
  return {right, p.size()};
}

template <class Model>
double accuracy(const Model& m, const typename Model::batch_type& b) {
  const auto [right, total] = hits(m, b);
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(right) / static_cast<double>(total);
}

template <class Model>
Model make_model(const config& c, std::size_t classes, privet::seeded_generator& gen) {
  const ml::lstm_options o{.input_dim = 13, .hidden = c.hidden, .classes = classes};
  return Model(o, gen);
}

// ---- data -------------------------------------------------------------------

/// The expected batch size q n of an organisation with n examples (at least 1).
std::size_t batch_for(const config& c, std::size_t n) {
  const auto b = static_cast<std::size_t>(std::lround(c.sampling_rate * static_cast<double>(n)));
  return std::clamp<std::size_t>(b, 1, n);
}

/// Per-coefficient standardisation from the public training frames.
struct standardiser {
  std::vector<double> mean, scale;
  explicit standardiser(const std::vector<const sp::utterance*>& from) {
    if (from.empty()) throw std::invalid_argument("no public training data to standardise with");
    const std::size_t k = from.front()->mfcc.shape(1);
    mean.assign(k, 0.0);
    scale.assign(k, 0.0);
    std::size_t n = 0;
    for (const auto* u : from)
      for (std::size_t t = 0; t < u->mfcc.shape(0); ++t, ++n)
        for (std::size_t j = 0; j < k; ++j) mean[j] += u->mfcc(t, j);
    for (auto& v : mean) v /= static_cast<double>(n);
    for (const auto* u : from)
      for (std::size_t t = 0; t < u->mfcc.shape(0); ++t)
        for (std::size_t j = 0; j < k; ++j) scale[j] += std::pow(u->mfcc(t, j) - mean[j], 2);
    for (auto& v : scale) v = std::sqrt(v / static_cast<double>(n)) + 1e-6;
  }
  [[nodiscard]] xt::xtensor<float, 2> operator()(const xt::xtensor<float, 2>& x) const {
    xt::xtensor<float, 2> y = x;
    for (std::size_t t = 0; t < y.shape(0); ++t)
      for (std::size_t j = 0; j < y.shape(1); ++j)
        y(t, j) = static_cast<float>((y(t, j) - mean[j]) / scale[j]);
    return y;
  }
};

template <class Batch>
Batch to_batch(const std::vector<const sp::utterance*>& us, const standardiser& z) {
  Batch b;
  for (const auto* u : us) {
    b.x.push_back(z(u->mfcc));
    if constexpr (std::is_same_v<Batch, ml::frame_sequence_batch<float>>) {
      b.y.emplace_back(u->mfcc.shape(0), static_cast<int>(u->label));
    } else {
      b.y.push_back(static_cast<int>(u->label));
    }
  }
  return b;
}

template <class Batch>
Batch concat(std::initializer_list<const Batch*> parts) {
  Batch out;
  for (const auto* p : parts) {
    out.x.insert(out.x.end(), p->x.begin(), p->x.end());
    out.y.insert(out.y.end(), p->y.begin(), p->y.end());
  }
  return out;
}

std::size_t frames(const std::vector<const sp::utterance*>& us) {
  std::size_t n = 0;
  for (const auto* u : us) n += u->mfcc.shape(0);
  return n;
}

// Each organisation's utterances, the public one cut to its first
// `public_speakers` speakers.
struct split_data {
  std::vector<std::string> names;
  std::vector<sp::org_kind> kinds;
  std::vector<std::vector<const sp::utterance*>> train, test;
  std::vector<std::size_t> speakers;
  // Per organisation, each training utterance's speaker as an id 0 .. k - 1
  // among the organisation's k speakers: its privacy units per speaker.
  std::vector<std::vector<std::size_t>> train_speaker;
};

split_data split(const sp::corpus& c, std::size_t public_speakers) {
  split_data s;
  for (std::size_t oi = 0; oi < c.organisations.size(); ++oi) {
    const auto& o = c.organisations[oi];
    std::vector<std::uint16_t> kept;
    for (std::size_t i = 0; i < c.speakers.size(); ++i) {
      if (c.speakers[i].organisation != oi) continue;
      if (o.kind == sp::org_kind::public_data && public_speakers > 0 &&
          kept.size() >= public_speakers)
        continue;
      kept.push_back(static_cast<std::uint16_t>(i));
    }
    auto keep = [&](const std::vector<sp::utterance>& from) {
      std::vector<const sp::utterance*> out;
      for (const auto& u : from)
        if (std::find(kept.begin(), kept.end(), u.speaker) != kept.end()) out.push_back(&u);
      return out;
    };
    s.names.push_back(o.name);
    s.kinds.push_back(o.kind);
    s.train.push_back(keep(o.train));
    s.test.push_back(keep(o.test));
    s.speakers.push_back(kept.size());
    std::vector<std::size_t> ids;
    std::vector<std::uint16_t> seen;
    for (const auto* u : s.train.back()) {
      auto it = std::find(seen.begin(), seen.end(), u->speaker);
      if (it == seen.end()) it = seen.insert(seen.end(), u->speaker);
      ids.push_back(static_cast<std::size_t>(it - seen.begin()));
    }
    s.train_speaker.push_back(std::move(ids));
  }
  return s;
}

// ---- membership inference ----------------------------------------------------

/// max over thresholds t of P[loss <= t | member] - P[loss <= t | non-member].
double mi_advantage(const std::vector<double>& members, const std::vector<double>& others) {
  if (members.empty() || others.empty()) return 0;
  std::vector<std::pair<double, int>> all;
  for (double v : members) all.push_back({v, 1});
  for (double v : others) all.push_back({v, 0});
  std::sort(all.begin(), all.end());
  double best = 0, tpr = 0, fpr = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    (all[i].second ? tpr : fpr) +=
        1.0 / static_cast<double>(all[i].second ? members.size() : others.size());
    if (i + 1 == all.size() || all[i + 1].first != all[i].first) best = std::max(best, tpr - fpr);
  }
  return best;
}

// The same attack scored by the area under its ROC curve (score = -loss,
// members positive): 0.5 means no better than guessing. Unlike the best
// threshold's TPR - FPR, which a maximum over thresholds biases upward on
// small samples, the AUC is unbiased at 0.5 when losses carry no
// membership signal, so it separates a small effect from sampling noise.
double mi_auc(const std::vector<double>& members, const std::vector<double>& others) {
  if (members.empty() || others.empty()) return 0.5;
  std::vector<double> scores;
  std::vector<int> labels;
  for (double v : members) {
    scores.push_back(-v);
    labels.push_back(1);
  }
  for (double v : others) {
    scores.push_back(-v);
    labels.push_back(0);
  }
  return ml::roc_auc(scores, labels);
}

template <class Model>
std::vector<double> losses_of(const Model& m, const typename Model::batch_type& b) {
  const auto l = m.losses(b);
  return {l.begin(), l.end()};
}

// ---- one seed ---------------------------------------------------------------

struct result {
  double main = 0, outlier = 0;                 // test accuracy, %
  double mi_private = 0, mi_outlier = 0;        // attack advantage, utterances
  double auc_private = 0.5, auc_outlier = 0.5;  // the attack's ROC AUC
};

struct curve {
  std::vector<double> round, main, outlier;
};

/// The attack on a speaker's participation, scored both ways.
struct attack {
  double advantage = 0, auc = 0.5;
};

struct seed_result {
  // federated: the outlier organisation's privacy unit is its speaker;
  // federated_utterance: each of its utterances (as the other organisations').
  result public_only, pooled, federated, federated_utterance, pooled_without, federated_without;
  attack speaker_pooled, speaker_federated,
      speaker_federated_utterance;  // did the outlier take part?
  curve public_curve, pooled_curve, federated_curve, federated_utterance_curve;
  std::vector<fed::worker_privacy> privacy, privacy_utterance;
  double seconds = 0;
};

template <class Model>
struct experiment {
  using batch = typename Model::batch_type;
  const config& cfg;
  std::size_t classes;
  std::vector<batch> train, test;  // per organisation
  std::vector<std::string> names;
  std::vector<sp::org_kind> kinds;
  std::vector<std::vector<std::size_t>> train_speaker;
  batch main_test, outlier_test, private_train, private_test, outlier_train;
  std::size_t public_index = 0, outlier_index = 0;

  experiment(const config& c, const sp::corpus& corpus, const split_data& s)
      : cfg(c),
        classes(corpus.words.size()),
        names(s.names),
        kinds(s.kinds),
        train_speaker(s.train_speaker) {
    std::size_t pub = 0;
    while (s.kinds[pub] != sp::org_kind::public_data) ++pub;
    public_index = pub;
    const standardiser z(s.train[pub]);
    for (std::size_t o = 0; o < s.names.size(); ++o) {
      train.push_back(to_batch<batch>(s.train[o], z));
      test.push_back(to_batch<batch>(s.test[o], z));
      if (s.kinds[o] == sp::org_kind::outlier) outlier_index = o;
    }
    for (std::size_t o = 0; o < s.names.size(); ++o) {
      if (s.kinds[o] == sp::org_kind::outlier) continue;
      main_test = concat<batch>({&main_test, &test[o]});
      if (s.kinds[o] == sp::org_kind::private_data) {
        private_train = concat<batch>({&private_train, &train[o]});
        private_test = concat<batch>({&private_test, &test[o]});
      }
    }
    outlier_test = test[outlier_index];
    outlier_train = train[outlier_index];
  }

  std::size_t batch_size(std::size_t o) const { return batch_for(cfg, train[o].size()); }

  // Organisation o's options. per_speaker: its privacy unit is the speaker
  // (user-level DP-SGD): speakers are sampled at the same rate q, each
  // sampled speaker's mean gradient is clipped as one record, and the
  // expected batch is q k for k speakers (0.1 for the outlier's one).
  fed::worker_options worker(std::size_t o, bool private_data, bool per_speaker = false) const {
    fed::worker_options w;
    w.name = names[o];
    w.clip_norm = private_data ? cfg.clip_norm : cfg.public_clip_norm;
    if (per_speaker) {
      w.sampling_rate = cfg.sampling_rate;
      w.units = ml::privacy_units(train_speaker[o]);
    } else {
      w.batch_size = batch_size(o);
    }
    if (private_data) {
      const double eps =
          o == outlier_index ? cfg.outlier_epsilon.value_or(cfg.epsilon) : cfg.epsilon;
      w.privacy = fed::total_budget{privet::approx_dp(eps, cfg.delta)};
      w.calibration = cfg.calibration;
    } else {
      w.privacy = fed::public_data{};
    }
    return w;
  }

  result evaluate(const Model& m) const {
    result r;
    r.main = accuracy(m, main_test);
    r.outlier = accuracy(m, outlier_test);
    const auto members = losses_of(m, private_train), others = losses_of(m, private_test);
    auto all_members = members, all_others = others;
    const auto om = losses_of(m, outlier_train), oo = losses_of(m, outlier_test);
    all_members.insert(all_members.end(), om.begin(), om.end());
    all_others.insert(all_others.end(), oo.begin(), oo.end());
    r.mi_private = mi_advantage(all_members, all_others);
    r.mi_outlier = mi_advantage(om, oo);
    r.auc_private = mi_auc(all_members, all_others);
    r.auc_outlier = mi_auc(om, oo);
    return r;
  }

  // Runs `rounds` rounds of a federation, recording test accuracy 10 times,
  // and returns the model to evaluate: the last iterate, or (the default)
  // the mean of the iterates' parameters over the second half of the
  // rounds (tail averaging, Polyak-Ruppert). Averaging is post-processing
  // of models that are themselves post-processing of the released
  // gradients, so it costs no privacy; it damps the last steps' noise,
  // which otherwise makes a DP run's final accuracy swing from seed to
  // seed. Every row of the table gets the same treatment.
  // Did the outlier speaker take part? The attacker holds the model and
  // fresh recordings of the speaker (the outlier's test utterances, in
  // neither world's training data) and says "took part" when an
  // utterance's loss is below a threshold. Positives are the utterances'
  // losses under the model trained with the outlier organisation,
  // negatives the same utterances' losses under the model of the world
  // without it: the distinction the paper's claim is about, and the one
  // per-utterance DP does not bound (the speaker is 70 utterances).
  attack speaker_attack(const Model& with, const Model& without) const {
    const auto in = losses_of(with, outlier_test), out = losses_of(without, outlier_test);
    return {mi_advantage(in, out), mi_auc(in, out)};
  }

  template <class Fed>
  Model run(Fed& f, std::vector<privet::testing::seeded_release_generator>& gens, curve& c,
            privet::examples::progress& bar, std::uint64_t& done) {
    const std::uint64_t every = std::max<std::uint64_t>(1, cfg.rounds / 10);
    const std::uint64_t from = cfg.rounds / 2 + 1;  // first round averaged
    std::vector<double> mean(f.model().parameter_count(), 0.0);
    std::uint64_t averaged = 0;
    auto record = [&](std::uint64_t r) {
      c.round.push_back(static_cast<double>(r));
      c.main.push_back(accuracy(f.model(), main_test));
      c.outlier.push_back(accuracy(f.model(), outlier_test));
    };
    record(0);
    for (std::uint64_t r = 1; r <= cfg.rounds; ++r) {
      f.run_round(std::span<privet::testing::seeded_release_generator>(gens));
      bar.update(++done);
      if (r % every == 0 || r == cfg.rounds) record(r);
      if (cfg.tail_average && r >= from) {
        const auto w = f.model().parameters();
        ++averaged;
        const double k = static_cast<double>(averaged);
        for (std::size_t j = 0; j < mean.size(); ++j)
          mean[j] += (static_cast<double>(w[j]) - mean[j]) / k;
      }
    }
    Model out = f.model();
    if (cfg.tail_average) {
      auto w = out.parameters();
      for (std::size_t j = 0; j < mean.size(); ++j)
        w[j] = static_cast<typename Model::real_type>(mean[j]);
    }
    return out;
  }

  // federated_speaker: the outlier organisation protects its speaker
  // (user-level DP-SGD); federated: per utterance, like the others.
  enum class setting { public_only, pooled, federated, federated_speaker };

  // One continuation of the warm start: `rounds` rounds of the setting's
  // federation, with or without the outlier organisation.
  Model train_one(setting st, bool with_outlier, const Model& start, std::uint64_t seed, curve* c,
                  seed_result& out, privet::examples::progress& bar, std::uint64_t& done) {
    const fed::federation_options fo{
        .learning_rate = cfg.learning_rate, .rounds = cfg.rounds, .rule = cfg.rule};
    using federation = fed::federation<Model>;
    std::vector<typename federation::member> m;
    std::vector<privet::testing::seeded_release_generator> gens;
    const std::uint64_t stream = 10 * (static_cast<std::uint64_t>(st) + 1) + (with_outlier ? 0 : 5);
    if (st == setting::public_only) {
      m.push_back({worker(public_index, false), train[public_index]});
      gens.emplace_back(seed, stream);
    } else if (st == setting::pooled) {
      // One party with every organisation's data, the sum of their batches.
      batch all;
      std::size_t b = 0;
      for (std::size_t o = 0; o < train.size(); ++o) {
        if (o == outlier_index && !with_outlier) continue;
        all = concat<batch>({&all, &train[o]});
        b += batch_size(o);
      }
      fed::worker_options w = worker(public_index, false);
      w.name = "pooled";
      w.batch_size = b;
      m.push_back({w, std::move(all)});
      gens.emplace_back(seed, stream);
    } else {
      for (std::size_t o = 0; o < train.size(); ++o) {
        if (o == outlier_index && !with_outlier) continue;
        const bool per_speaker = st == setting::federated_speaker && o == outlier_index;
        m.push_back({worker(o, kinds[o] != sp::org_kind::public_data, per_speaker), train[o]});
        gens.emplace_back(seed, stream * 100 + o);
      }
    }
    federation f(start, std::move(m), fo);
    curve ignored;
    Model result = run(f, gens, c ? *c : ignored, bar, done);
    if (st != setting::public_only && st != setting::pooled && with_outlier) {
      // Every replica is the same model.
      for (const auto& w : f.workers()) {
        const auto a = w.replica().parameters(), b = f.model().parameters();
        if (!std::equal(a.begin(), a.end(), b.begin()))
          throw std::logic_error("replicas differ after the run");
      }
      (st == setting::federated_speaker ? out.privacy : out.privacy_utterance) = f.privacy_report();
    }
    return result;
  }

  seed_result run_seed(std::uint64_t seed, privet::examples::progress& bar, std::uint64_t& done) {
    const auto t0 = std::chrono::steady_clock::now();
    seed_result out;
    privet::seeded_generator init(seed, 0);
    Model model = make_model<Model>(cfg, classes, init);

    // Warm start: non-private SGD on the public organisation's data.
    {
      const auto& data = train[public_index];
      const std::size_t b = batch_size(public_index);
      auto opt = ml::dpsgd<Model>::non_private(model.parameter_count(), data.size(),
                                               {.learning_rate = cfg.warm_learning_rate,
                                                .clip_norm = cfg.public_clip_norm,
                                                .batch_size = b,
                                                .sampling = ml::batch_sampling::fixed_size});
      privet::testing::seeded_release_generator gen(seed, 1);
      const std::size_t steps = cfg.warm_epochs * ((data.size() + b - 1) / b);
      for (std::size_t s = 0; s < steps; ++s) (void)opt.step(model, data, gen);
    }
    const Model pub =
        train_one(setting::public_only, false, model, seed, &out.public_curve, out, bar, done);
    const Model pooled =
        train_one(setting::pooled, true, model, seed, &out.pooled_curve, out, bar, done);
    const Model federated = train_one(setting::federated_speaker, true, model, seed,
                                      &out.federated_curve, out, bar, done);
    const Model federated_utterance = train_one(setting::federated, true, model, seed,
                                                &out.federated_utterance_curve, out, bar, done);
    out.public_only = evaluate(pub);
    out.pooled = evaluate(pooled);
    out.federated = evaluate(federated);
    out.federated_utterance = evaluate(federated_utterance);
    // The same trainings without the outlier organisation: what the model
    // would know of the whisper voice had it not taken part.
    const Model pooled_without =
        train_one(setting::pooled, false, model, seed, nullptr, out, bar, done);
    const Model federated_without =
        train_one(setting::federated, false, model, seed, nullptr, out, bar, done);
    out.pooled_without = evaluate(pooled_without);
    out.federated_without = evaluate(federated_without);
    out.speaker_pooled = speaker_attack(pooled, pooled_without);
    out.speaker_federated = speaker_attack(federated, federated_without);
    out.speaker_federated_utterance = speaker_attack(federated_utterance, federated_without);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  }
};

// ---- printing ---------------------------------------------------------------

struct stat {
  double mean = 0, sd = 0;
};
stat summarise(const std::vector<double>& v) {
  stat s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(s.sd / static_cast<double>(v.size() - 1)) : 0.0;
  return s;
}

void print_calibration(const config& cfg, const std::vector<std::size_t>& sizes,
                       const std::vector<std::size_t>& batches,
                       const std::vector<std::string>& names) {
  const privet::approx_dp per_step(100, 1e-6);
  const double c = 1.0;
  std::printf(
      "\nSotto Voce's per-step calibration: eps = 100, delta = 1e-6 per step, clip bound "
      "C = %g\n",
      c);
  // One step's release is the Gaussian mechanism on the sum of clipped
  // gradients, L2 sensitivity C (add/remove one example).
  const double analytic = privet::analytic_gaussian_sigma(per_step, c);
  std::printf(
      "  the Gaussian mechanism alone (no credit for sampling), by the analytic Gaussian "
      "(Balle & Wang 2018, core/analytic_gaussian.hpp):\n    sigma = %.6f on the sum "
      "(noise multiplier %.6f)\n",
      analytic, analytic / c);
  const double pld_full =
      privet::dpsgd_noise_multiplier(1.0, 1, per_step);  // q = 1: the plain Gaussian
  std::printf(
      "  the same by DP-SGD's calibration with q = 1 (accounting/calibration.hpp, PLD "
      "accountant, pessimistic grid):\n    sigma = %.6f\n",
      pld_full * c);
  std::printf(
      "  with Poisson sampling at each organisation's rate (amplification by "
      "subsampling; PLD accountant):\n");
  for (std::size_t o = 0; o < sizes.size(); ++o) {
    const double q = static_cast<double>(batches[o]) / static_cast<double>(sizes[o]);
    const double z = privet::dpsgd_noise_multiplier(q, 1, per_step);
    std::printf(
        "    %-11s q = %3zu / %4zu = %.4f: sigma = %.6f on the sum, %.3g on the mean "
        "gradient\n",
        names[o].c_str(), batches[o], sizes[o], q, z * c, z * c / static_cast<double>(batches[o]));
  }
  // What that per-step setting composes to over this run's schedule, by RDP
  // (the PLD of hundreds of such steps spans losses in the tens of thousands, too
  // wide a grid to be worth it for a figure this large).
  const double q = static_cast<double>(batches[1]) / static_cast<double>(sizes[1]);
  const double z = privet::dpsgd_noise_multiplier(q, 1, per_step);
  const privet::odometer_options odo;
  const double total =
      privet::accountant_epsilon(privet::subsampled_gaussian_event{q, z}, cfg.rounds, 1e-6,
                                 privet::accountant_kind::rdp, odo.orders, odo.pld);
  std::printf(
      "  over this run's %llu rounds, %s's per-step setting would compose to eps = %.0f at delta "
      "= 1e-6 (RDP accountant)\n",
      static_cast<unsigned long long>(cfg.rounds), names[1].c_str(), total);
  std::printf(
      "  the run below calibrates each private organisation's noise to its budget for the whole "
      "run instead: (eps = %g, delta = %g), by the %s accountant\n",
      cfg.epsilon, cfg.delta, privet::to_string(cfg.calibration.accountant));
}

}  // namespace

int main(int argc, char** argv) try {
  config cfg;
  sp::options opts;
  opts.progress = true;
  // White noise at 10 dB SNR (the corpus's default is 30 dB): utterances of
  // a speaker differ enough that a model can memorise its training set,
  // which the membership-inference attack needs in order to show anything.
  opts.snr_db = 10;
  std::filesystem::path cache = "speech_cache";
#ifdef PRIVET_SPEECH_CACHE_DIR
  cache = PRIVET_SPEECH_CACHE_DIR;
#endif
#ifdef PRIVET_EXAMPLES_DATA_DIR
  opts.sample = std::filesystem::path(PRIVET_EXAMPLES_DATA_DIR) / "speech_sample.bin";
#endif
  std::optional<std::uint64_t> rounds, warm;
  std::optional<std::size_t> seeds, hidden, public_speakers;
  std::optional<double> outlier_epsilon;
  std::string labels = "frame", aggregation = "batch";
  privet::examples::command_line cli(
      "federated_speech",
      "Federated DP-SGD on a keyword-spotting task (Sotto Voce: Shoemate et al. 2022): "
      "organisations train one LSTM together, exchanging only privatised gradients.");
  cli.flag("--quick", cfg.quick,
           "a small configuration: 8 units, 20 rounds, 5 warm epochs, RDP calibration");
  cli.flag("--embedded", opts.use_sample, "read the embedded sample even if espeak-ng is there");
  cli.input_file("--sample", opts.sample, "the embedded sample; given, it is read (as --embedded)");
  cli.output_directory("--cache", cache, "where synthesised audio and features are kept");
  cli.count("--jobs", opts.jobs, "espeak-ng processes at a time", 1, 64);
  cli.count("--seeds", seeds, "seeds each configuration runs with", 1, 1000,
            std::to_string(cfg.seeds));
  cli.count("--rounds", rounds, "federated rounds after the warm start", 1, 1'000'000,
            std::to_string(cfg.rounds) + ", 20 with --quick");
  cli.count("--warm-epochs", warm, "epochs of plain SGD on the public data first", 0, 100'000,
            std::to_string(cfg.warm_epochs) + ", 5 with --quick");
  cli.count("--hidden", hidden, "LSTM units", 1, 1024,
            std::to_string(cfg.hidden) + ", 8 with --quick");
  cli.choice("--labels", labels, "a label per frame, or per utterance", {"frame", "word"});
  cli.real("--snr", opts.snr_db, "white noise added before the MFCCs, in dB SNR",
           privet::examples::any_real);
  cli.count("--public-speakers", public_speakers, "speakers the public organisation keeps (0: all)",
            0, 1000, std::to_string(cfg.public_speakers));
  cli.real("--epsilon", cfg.epsilon, "each private organisation's budget for the run",
           privet::examples::positive);
  cli.real("--outlier-epsilon", outlier_epsilon, "the outlier organisation's own budget",
           privet::examples::positive, "--epsilon");
  cli.real("--q", cfg.sampling_rate, "Poisson sampling rate", privet::examples::unit_fraction);
  cli.flag(
      "--last-iterate", [&cfg] { cfg.tail_average = false; },
      "evaluate the final model, not the mean over the second half of the rounds");
  cli.flag(
      "--clip-all", [&cfg] { cfg.public_clip_norm = cfg.clip_norm; },
      "clip the non-private trainings' gradients too");
  cli.real("--lr", cfg.learning_rate, "learning rate of every continuation",
           privet::examples::positive);
  cli.real("--warm-lr", cfg.warm_learning_rate, "learning rate of the warm start",
           privet::examples::positive);
  cli.choice("--aggregation", aggregation,
             "batch-weighted mean of the organisations' updates, or plain mean", {"batch", "mean"});
  cli.output_file("--svg", cfg.svg, "plot of accuracy during training (and its .csv beside it)", "",
                  privet::examples::with_csv_beside);
  if (auto exit_code = cli.parse(argc, argv)) return *exit_code;
  // A sample file named on the command line is what the user wants read.
  if (cli.given("--sample")) opts.use_sample = true;
  cfg.frame_labels = labels == "frame";
  cfg.rule = aggregation == "mean" ? fed::aggregation::mean : fed::aggregation::batch_weighted;
  if (outlier_epsilon) cfg.outlier_epsilon = *outlier_epsilon;
  if (cfg.quick) {
    cfg.hidden = 8;
    cfg.rounds = 20;
    cfg.warm_epochs = 5;
    cfg.seeds = 3;
    cfg.calibration.accountant = privet::accountant_kind::rdp;
    cfg.calibration.orders.clear();
    for (int a = 2; a <= 128; ++a) cfg.calibration.orders.push_back(a);
  }
  if (rounds) cfg.rounds = *rounds;
  if (warm) cfg.warm_epochs = *warm;
  if (seeds) cfg.seeds = *seeds;
  if (hidden) cfg.hidden = *hidden;
  if (public_speakers) cfg.public_speakers = *public_speakers;
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);

  const sp::corpus corpus = sp::load_or_synthesise(cache, opts);
  const split_data s = split(corpus, corpus.embedded ? 0 : cfg.public_speakers);
  std::printf("data: %s\n", corpus.source.c_str());
  if (corpus.embedded && opts.snr_db != sp::options{}.snr_db)
    std::printf("(--snr has no effect on the embedded sample's features)\n");
  std::printf(
      "features: %zu MFCCs per %.0f ms frame, standardised with the public training "
      "frames' statistics; %s labels\n",
      corpus.coefficients, corpus.frame_shift_ms, cfg.frame_labels ? "frame" : "word");
  std::printf("\n%-11s %-8s %8s %6s %6s %8s %6s\n", "organisation", "kind", "speakers", "train",
              "test", "frames", "batch");
  std::vector<std::size_t> sizes, batches;
  for (std::size_t o = 0; o < s.names.size(); ++o) {
    const std::size_t b = batch_for(cfg, s.train[o].size());
    sizes.push_back(s.train[o].size());
    batches.push_back(b);
    std::printf("%-12s %-8s %8zu %6zu %6zu %8zu %6zu\n", s.names[o].c_str(),
                sp::kind_name(s.kinds[o]), s.speakers[o], s.train[o].size(), s.test[o].size(),
                frames(s.train[o]) + frames(s.test[o]), b);
  }
  std::printf(
      "\nmodel: LSTM 13 x %zu, softmax over %zu keywords (%s); SGD, learning rate %g, clip "
      "bound %g, %s aggregation\n",
      cfg.hidden, corpus.words.size(), cfg.frame_labels ? "per frame" : "mean-pooled",
      cfg.learning_rate, cfg.clip_norm,
      cfg.rule == fed::aggregation::mean ? "mean" : "batch-weighted");
  std::printf(
      "schedule: warm start %zu epochs on public data, then %llu rounds (one DP-SGD step "
      "per organisation per round); %zu seeds\n",
      cfg.warm_epochs, static_cast<unsigned long long>(cfg.rounds), cfg.seeds);
  std::printf(
      "privacy: clinic and callcentre each (eps = %g, delta = %g)-DP for the whole run per "
      "utterance, the outlier (eps = %g, delta = %g)-DP for the whole run per speaker (and, "
      "to compare, per utterance); public declares its data public (no noise)\n",
      cfg.epsilon, cfg.delta, cfg.outlier_epsilon.value_or(cfg.epsilon), cfg.delta);
  print_calibration(cfg, sizes, batches, s.names);
  std::fflush(stdout);

  auto run_all = [&](auto tag) {
    using Model = typename decltype(tag)::type;
    experiment<Model> e(cfg, corpus, s);
    std::vector<seed_result> out;
    privet::examples::progress bar("training", 6 * cfg.rounds * cfg.seeds, "rounds");
    std::uint64_t done = 0;
    for (std::size_t k = 0; k < cfg.seeds; ++k) out.push_back(e.run_seed(1000 + k, bar, done));
    return out;
  };
  const std::vector<seed_result> results = cfg.frame_labels
                                               ? run_all(std::type_identity<frame_lstm>{})
                                               : run_all(std::type_identity<word_lstm>{});

  // ---- the table ----
  auto column = [&](auto pick) {
    std::vector<double> v;
    for (const auto& r : results) v.push_back(pick(r));
    return summarise(v);
  };
  const char* unit = cfg.frame_labels ? "frame" : "word";
  std::printf(
      "\n%s accuracy, %%, mean +- sd over %zu seeds (test utterances of the same "
      "speakers; %s):\n\n",
      unit, cfg.seeds,
      cfg.tail_average ? "each model is the mean of its parameters over the last half of the rounds"
                       : "each model is the last iterate");
  std::printf("| training data | test: main speakers | test: outlier speaker |\n");
  std::printf("| --- | --- | --- |\n");
  const auto row = [&](const char* name, auto get) {
    const auto m = column([&](const seed_result& r) { return get(r).main; });
    const auto o = column([&](const seed_result& r) { return get(r).outlier; });
    std::printf("| %s | %.1f +- %.1f | %.1f +- %.1f |\n", name, m.mean, m.sd, o.mean, o.sd);
  };
  row("public only", [](const seed_result& r) { return r.public_only; });
  row("public + private, pooled without DP", [](const seed_result& r) { return r.pooled; });
  row("public + private, federated DP-SGD (outlier private per speaker)",
      [](const seed_result& r) { return r.federated; });
  row("public + private, federated DP-SGD (outlier private per utterance)",
      [](const seed_result& r) { return r.federated_utterance; });
  std::printf(
      "\nthe same without the outlier organisation (the world in which it did not take "
      "part):\n\n| training data | test: main speakers | test: outlier speaker |\n| --- "
      "| --- | --- |\n");
  row("public + private but outlier, pooled without DP",
      [](const seed_result& r) { return r.pooled_without; });
  row("public + private but outlier, federated DP-SGD",
      [](const seed_result& r) { return r.federated_without; });
  std::printf("\nper seed (main / outlier):\n");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto& r = results[k];
    std::printf(
        "  seed %zu: public %.1f / %.1f, pooled %.1f / %.1f, federated DP %.1f / %.1f "
        "(outlier per utterance: %.1f / %.1f) (%.0f s)\n",
        k, r.public_only.main, r.public_only.outlier, r.pooled.main, r.pooled.outlier,
        r.federated.main, r.federated.outlier, r.federated_utterance.main,
        r.federated_utterance.outlier, r.seconds);
  }

  // ---- membership inference ----
  std::printf(
      "\nloss-threshold membership inference: advantage = max over thresholds of TPR - "
      "FPR,\nmembers = training utterances, non-members = test utterances of the same "
      "speakers (0 = no better than guessing); and the attack's ROC AUC (0.5 = guessing)\n\n");
  std::printf(
      "| model | advantage, private organisations | advantage, outlier | AUC, private "
      "organisations | AUC, outlier |\n| --- | --- | --- | --- | --- |\n");
  const auto mi_row = [&](const char* name, auto get) {
    const auto p = column([&](const seed_result& r) { return get(r).mi_private; });
    const auto o = column([&](const seed_result& r) { return get(r).mi_outlier; });
    const auto ap = column([&](const seed_result& r) { return get(r).auc_private; });
    const auto ao = column([&](const seed_result& r) { return get(r).auc_outlier; });
    std::printf("| %s | %.3f +- %.3f | %.3f +- %.3f | %.3f +- %.3f | %.3f +- %.3f |\n", name,
                p.mean, p.sd, o.mean, o.sd, ap.mean, ap.sd, ao.mean, ao.sd);
  };
  mi_row("public only (never saw them: the sampling floor)",
         [](const seed_result& r) { return r.public_only; });
  mi_row("pooled without DP", [](const seed_result& r) { return r.pooled; });
  mi_row("federated DP-SGD (outlier per speaker)",
         [](const seed_result& r) { return r.federated; });
  mi_row("federated DP-SGD (outlier per utterance)",
         [](const seed_result& r) { return r.federated_utterance; });

  std::printf(
      "\ndid the outlier speaker take part? the same loss-threshold attack on the outlier's "
      "test utterances (recordings\nin neither training set), members = their losses under "
      "the model trained with the outlier organisation,\nnon-members = under the model of the "
      "world without it (advantage 0 and AUC 0.5 = cannot tell):\n\n| model | advantage | "
      "AUC |\n| --- | --- | --- |\n");
  const auto speaker_row = [&](const char* name, auto get) {
    const auto a = column([&](const seed_result& r) { return get(r).advantage; });
    const auto u = column([&](const seed_result& r) { return get(r).auc; });
    std::printf("| %s | %.3f +- %.3f | %.3f +- %.3f |\n", name, a.mean, a.sd, u.mean, u.sd);
  };
  speaker_row("pooled without DP", [](const seed_result& r) { return r.speaker_pooled; });
  speaker_row("federated DP-SGD (outlier private per speaker)",
              [](const seed_result& r) { return r.speaker_federated; });
  speaker_row("federated DP-SGD (outlier private per utterance)",
              [](const seed_result& r) { return r.speaker_federated_utterance; });

  // ---- privacy spent ----
  const auto& last = results.back();
  std::printf(
      "\nprivacy spent by each organisation (last seed; every seed spends the same), "
      "from its accountant:\n");
  std::printf(
      "\n| organisation | privacy unit | noise std per coordinate of its mean gradient | noise "
      "multiplier | rounds | RDP eps | PLD eps | PRV eps (upper) | delta |\n| --- | --- | --- "
      "| --- | --- | --- | --- | --- | --- |\n");
  const auto privacy_row = [](const fed::worker_privacy& w, const std::string& name) {
    if (!w.spent) {
      std::printf("| %s | - | 0 (public data) | - | %llu | - | - | - | - |\n", name.c_str(),
                  static_cast<unsigned long long>(w.rounds));
      return;
    }
    const auto& a = w.spent->accountants;
    auto eps = [](const std::optional<privet::approx_dp>& g) {
      return g ? std::to_string(g->epsilon()).substr(0, 6) : std::string("n/a");
    };
    const std::string privacy_unit = w.spent->users == 0
                                         ? std::string("utterance")
                                         : "speaker (" + std::to_string(w.spent->users) + ")";
    std::printf("| %s | %s | %.4g | %.4f | %llu | %s | %s | %s | %g |\n", name.c_str(),
                privacy_unit.c_str(), w.noise_stddev, w.spent->noise_multiplier,
                static_cast<unsigned long long>(w.spent->steps), eps(a.rdp).c_str(),
                eps(a.pld).c_str(), eps(a.prv).c_str(), a.tightest.delta());
  };
  for (const auto& w : last.privacy) privacy_row(w, w.name);
  for (const auto& w : last.privacy_utterance) {
    for (std::size_t o = 0; o < s.names.size(); ++o) {
      if (s.kinds[o] == sp::org_kind::outlier && w.name == s.names[o])
        privacy_row(w, w.name + " (the per-utterance run)");
    }
  }

  if (!cfg.svg.empty()) {
    privet::examples::svg_plot p(std::string(unit) + " accuracy during training (mean over " +
                                     std::to_string(cfg.seeds) + " seeds)",
                                 "round after the warm start", "test accuracy (%)");
    const auto add = [&](const std::string& name, auto get, bool outlier, const char* colour) {
      privet::examples::svg_plot::series sr{name, {}, {}, true, colour};
      const curve& c0 = get(results.front());
      for (std::size_t i = 0; i < c0.round.size(); ++i) {
        double m = 0;
        for (const auto& r : results) m += outlier ? get(r).outlier[i] : get(r).main[i];
        sr.x.push_back(c0.round[i]);
        sr.y.push_back(m / static_cast<double>(results.size()));
      }
      p.add(std::move(sr));
    };
    add(
        "public, main", [](const seed_result& r) -> const curve& { return r.public_curve; }, false,
        "#1f77b4");
    add(
        "pooled, main", [](const seed_result& r) -> const curve& { return r.pooled_curve; }, false,
        "#2ca02c");
    add(
        "fed. DP, main", [](const seed_result& r) -> const curve& { return r.federated_curve; },
        false, "#d62728");
    add(
        "public, outlier", [](const seed_result& r) -> const curve& { return r.public_curve; },
        true, "#aec7e8");
    add(
        "pooled, outlier", [](const seed_result& r) -> const curve& { return r.pooled_curve; },
        true, "#98df8a");
    add(
        "fed. DP, outlier", [](const seed_result& r) -> const curve& { return r.federated_curve; },
        true, "#ff9896");
    add(
        "fed. DP (outlier per utterance), outlier",
        [](const seed_result& r) -> const curve& { return r.federated_utterance_curve; }, true,
        "#9467bd");
    p.write(cfg.svg);
    std::printf("\nplot: %s (numbers: %s)\n", cfg.svg.c_str(),
                privet::examples::csv_beside(cfg.svg).c_str());
  }
} catch (const std::exception& e) {
  std::fprintf(stderr, "federated_speech: %s\n", e.what());
  return 1;
}
