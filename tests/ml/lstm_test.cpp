#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/ml/clipping.hpp>
#include <privet/ml/lstm.hpp>
#include <privet/ml/model.hpp>

#include <doctest/doctest.h>
#include <oneapi/tbb/global_control.h>
#include <support/errors.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

using privet::ml::frame_sequence_batch;
using privet::ml::lstm_classifier;
using privet::ml::lstm_options;
using privet::ml::sequence_batch;
using privet::ml::sequence_pooling;

static_assert(privet::ml::differentiable_model<lstm_classifier<double>>);
static_assert(privet::ml::differentiable_model<lstm_classifier<float>>);
static_assert(
    privet::ml::differentiable_model_for<lstm_classifier<float>, frame_sequence_batch<float>>);
// The frame-label model is the same class with frame_sequence_batch as what
// DP-SGD trains on.
static_assert(privet::ml::differentiable_model<privet::ml::frame_lstm_classifier<float>>);
static_assert(std::is_same_v<privet::ml::frame_lstm_classifier<float>::batch_type,
                             frame_sequence_batch<float>>);
static_assert(privet::ml::indexed_gradient_model<privet::ml::frame_lstm_classifier<double>,
                                                 frame_sequence_batch<double>>);

namespace {

template <class Real>
xt::xtensor<Real, 2> random_frames(privet::testing::seeded_release_generator& gen,
                                   std::size_t frames, std::size_t dim) {
  xt::xtensor<Real, 2> x = xt::xtensor<Real, 2>::from_shape({frames, dim});
  for (auto& v : x) v = static_cast<Real>(2 * privet::uniform_real(gen) - 1);
  return x;
}

template <class Real>
sequence_batch<Real> random_batch(std::uint64_t seed, const std::vector<std::size_t>& lengths,
                                  std::size_t dim, int classes) {
  privet::testing::seeded_release_generator gen(seed);
  sequence_batch<Real> b;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    b.x.push_back(random_frames<Real>(gen, lengths[i], dim));
    b.y.push_back(
        static_cast<int>(privet::uniform_below(gen, static_cast<std::uint64_t>(classes))));
  }
  return b;
}

template <class Real>
frame_sequence_batch<Real> random_frame_batch(std::uint64_t seed,
                                              const std::vector<std::size_t>& lengths,
                                              std::size_t dim, int classes) {
  privet::testing::seeded_release_generator gen(seed);
  frame_sequence_batch<Real> b;
  for (std::size_t len : lengths) {
    b.x.push_back(random_frames<Real>(gen, len, dim));
    std::vector<int> y;
    for (std::size_t t = 0; t < len; ++t) {
      y.push_back(
          static_cast<int>(privet::uniform_below(gen, static_cast<std::uint64_t>(classes))));
    }
    b.y.push_back(y);
  }
  return b;
}

// A tiny model whose parameters are all moved off their initial values
// (biases included), so that no block's gradient is trivially zero.
lstm_classifier<double> tiny_model(sequence_pooling pooling, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  lstm_classifier<double> m({.input_dim = 3, .hidden = 4, .classes = 3, .pooling = pooling}, gen);
  for (auto& p : m.parameters()) p += 0.3 * (2 * privet::uniform_real(gen) - 1);
  return m;
}

// The forward pass written out one sequence and one unit at a time, straight
// from the equations in lstm.hpp's comment, as an independent reference.
struct reference_lstm {
  std::size_t d, h, k;
  std::vector<double> p;
  std::size_t w, u, b, v, c;

  template <class Model>
  explicit reference_lstm(const Model& m)
      : d(m.input_dim()),
        h(m.hidden()),
        k(m.classes()),
        p(m.parameters().begin(), m.parameters().end()) {
    const auto blocks = m.parameter_blocks();
    w = blocks[0].offset;
    u = blocks[1].offset;
    b = blocks[2].offset;
    v = blocks[3].offset;
    c = blocks[4].offset;
  }

  static double sig(double x) { return 1 / (1 + std::exp(-x)); }

  // Hidden states h_0 .. h_{T-1} of one sequence.
  template <class Real>
  std::vector<std::vector<double>> hidden_states(const xt::xtensor<Real, 2>& x) const {
    std::vector<double> hp(h, 0.0), cp(h, 0.0);
    std::vector<std::vector<double>> out;
    for (std::size_t t = 0; t < x.shape(0); ++t) {
      std::vector<double> z(4 * h);
      for (std::size_t r = 0; r < 4 * h; ++r) {
        double s = p[b + r];
        for (std::size_t j = 0; j < d; ++j) s += p[w + r * d + j] * static_cast<double>(x(t, j));
        for (std::size_t j = 0; j < h; ++j) s += p[u + r * h + j] * hp[j];
        z[r] = s;
      }
      std::vector<double> hn(h), cn(h);
      for (std::size_t q = 0; q < h; ++q) {
        cn[q] = sig(z[h + q]) * cp[q] + sig(z[q]) * std::tanh(z[2 * h + q]);
        hn[q] = sig(z[3 * h + q]) * std::tanh(cn[q]);
      }
      hp = hn;
      cp = cn;
      out.push_back(hn);
    }
    return out;
  }

  double nll(const std::vector<double>& r, int y) const {
    std::vector<double> z(k);
    for (std::size_t q = 0; q < k; ++q) {
      z[q] = p[c + q];
      for (std::size_t j = 0; j < h; ++j) z[q] += p[v + q * h + j] * r[j];
    }
    double m = *std::max_element(z.begin(), z.end()), s = 0;
    for (double zq : z) s += std::exp(zq - m);
    return m + std::log(s) - z[static_cast<std::size_t>(y)];
  }

  template <class Real>
  double sequence_loss(const xt::xtensor<Real, 2>& x, int y, sequence_pooling pooling) const {
    const auto hs = hidden_states(x);
    std::vector<double> r(h, 0.0);
    if (pooling == sequence_pooling::last) {
      r = hs.back();
    } else {
      for (const auto& ht : hs)
        for (std::size_t q = 0; q < h; ++q) r[q] += ht[q] / static_cast<double>(hs.size());
    }
    return nll(r, y);
  }

  template <class Real>
  double frame_loss(const xt::xtensor<Real, 2>& x, const std::vector<int>& y) const {
    const auto hs = hidden_states(x);
    double total = 0;
    for (std::size_t t = 0; t < hs.size(); ++t) total += nll(hs[t], y[t]);
    return total / static_cast<double>(hs.size());
  }
};

// Central differences of every example's loss in every parameter against the
// analytic per-example gradients. In double with step 1e-5 the truncation
// error is about 1e-10 and the rounding error about 1e-11; the test allows
// 1e-5 relative to max(|gradient|, 1e-3), i.e. at least 1e-8 absolute, while
// a wrong term in any block's gradient is off by 1e-3 or more.
template <class Batch>
void check_against_finite_differences(lstm_classifier<double> m, const Batch& batch) {
  const auto g = m.per_example_gradients(batch);
  REQUIRE(g.shape(0) == batch.size());
  REQUIRE(g.shape(1) == m.parameter_count());
  const double step = 1e-5;
  for (const auto& blk : m.parameter_blocks()) {
    double worst = 0, largest = 0;
    for (std::size_t i = blk.offset; i < blk.offset + blk.size(); ++i) {
      const double keep = m.parameters()[i];
      m.parameters()[i] = keep + step;
      const auto up = m.losses(batch);
      m.parameters()[i] = keep - step;
      const auto down = m.losses(batch);
      m.parameters()[i] = keep;
      for (std::size_t e = 0; e < batch.size(); ++e) {
        const double fd = (up(e) - down(e)) / (2 * step);
        worst = std::max(worst, std::abs(fd - g(e, i)) / (1e-3 + std::abs(fd)));
        largest = std::max(largest, std::abs(g(e, i)));
      }
    }
    INFO("block " << blk.name);
    CHECK(worst < 1e-5);
    CHECK(largest > 1e-3);  // the block's gradient is really exercised
  }
}

}  // namespace

TEST_CASE("LSTM losses match a reference forward pass written out per sequence") {
  const auto batch = random_batch<double>(11, {5, 2, 4, 1, 3}, 3, 3);
  for (auto pooling : {sequence_pooling::mean, sequence_pooling::last}) {
    const auto m = tiny_model(pooling, 5);
    const reference_lstm ref(m);
    const auto losses = m.losses(batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      CHECK(losses(i) ==
            doctest::Approx(ref.sequence_loss(batch.x[i], batch.y[i], pooling)).epsilon(1e-12));
    }
  }
  const auto frames = random_frame_batch<double>(12, {4, 1, 6}, 3, 3);
  const auto m = tiny_model(sequence_pooling::mean, 6);
  const reference_lstm ref(m);
  const auto losses = m.losses(frames);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    CHECK(losses(i) == doctest::Approx(ref.frame_loss(frames.x[i], frames.y[i])).epsilon(1e-12));
  }
}

TEST_CASE("LSTM per-example gradients match central finite differences in every block") {
  // Lengths differ within the batch, so masking is exercised in the backward pass.
  const auto batch = random_batch<double>(21, {5, 2, 4, 1, 3}, 3, 3);
  SUBCASE("mean pooling") {
    check_against_finite_differences(tiny_model(sequence_pooling::mean, 1), batch);
  }
  SUBCASE("last state") {
    check_against_finite_differences(tiny_model(sequence_pooling::last, 2), batch);
  }
  SUBCASE("frame labels") {
    check_against_finite_differences(tiny_model(sequence_pooling::mean, 3),
                                     random_frame_batch<double>(22, {4, 1, 6, 2}, 3, 3));
  }
}

namespace {

// Every coordinate of mean_gradient against the mean of the per-example rows,
// relative to the largest coordinate (float: 1e-4, double: 1e-12).
template <class Real, class Batch>
void check_mean_of_rows(const lstm_classifier<Real>& m, const Batch& batch) {
  const auto g = m.per_example_gradients(batch);
  const auto mean = m.mean_gradient(batch);
  REQUIRE(mean.size() == m.parameter_count());
  const double tol = std::is_same_v<Real, float> ? 1e-4 : 1e-12;
  double scale = 0;
  for (auto v : mean) scale = std::max(scale, std::abs(static_cast<double>(v)));
  REQUIRE(scale > 0);
  double worst = 0;
  for (std::size_t i = 0; i < m.parameter_count(); ++i) {
    double s = 0;
    for (std::size_t e = 0; e < batch.size(); ++e) s += static_cast<double>(g(e, i));
    s /= static_cast<double>(batch.size());
    worst = std::max(worst, std::abs(s - static_cast<double>(mean(i))));
  }
  CHECK(worst <= tol * scale);
}

}  // namespace

// long double runs the plain-loop products even in a BLAS build.
TEST_CASE_TEMPLATE("LSTM per-example gradients average to the mean gradient", Real, float, double,
                   long double) {
  privet::testing::seeded_release_generator gen(31);
  lstm_classifier<Real> m({.input_dim = 5, .hidden = 7, .classes = 4}, gen);
  // 37 sequences: three blocks of examples_per_task, the last one partial.
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < 37; ++i) lengths.push_back(1 + (i * 7) % 13);
  check_mean_of_rows(m, random_batch<Real>(32, lengths, 5, 4));
  check_mean_of_rows(m, random_frame_batch<Real>(33, lengths, 5, 4));
  lstm_classifier<Real> last(
      {.input_dim = 5, .hidden = 7, .classes = 4, .pooling = sequence_pooling::last}, gen);
  check_mean_of_rows(last, random_batch<Real>(34, lengths, 5, 4));
}

TEST_CASE("LSTM padding changes nothing: each sequence's results as if alone") {
  privet::testing::seeded_release_generator gen(41);
  lstm_classifier<double> m({.input_dim = 4, .hidden = 6, .classes = 3}, gen);
  // 20 sequences, lengths 1..40, so each of the two blocks pads most of its
  // sequences to a much longer one.
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < 20; ++i) lengths.push_back(1 + (i * 17) % 40);
  const auto batch = random_batch<double>(42, lengths, 4, 3);
  const auto g = m.per_example_gradients(batch);
  const auto losses = m.losses(batch);
  const auto logits = m.logits(batch);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const std::size_t one[] = {i};
    const auto alone = batch.select(one);
    const auto ga = m.per_example_gradients(alone);
    CHECK(m.losses(alone)(0) == doctest::Approx(losses(i)).epsilon(1e-13));
    CHECK(m.logits(alone)(0, 1) == doctest::Approx(logits(i, 1)).epsilon(1e-13));
    double worst = 0;
    for (std::size_t p = 0; p < m.parameter_count(); ++p) {
      worst = std::max(worst, std::abs(ga(0, p) - g(i, p)));
    }
    CHECK(worst < 1e-13);
  }
  // Frames: sequence 0 alone against sequence 0 padded beside a long one.
  const auto frames = random_frame_batch<double>(43, {3, 40}, 4, 3);
  const std::size_t first[] = {0};
  const auto ga = m.per_example_gradients(frames.select(first));
  const auto gb = m.per_example_gradients(frames);
  for (std::size_t p = 0; p < m.parameter_count(); ++p)
    CHECK(ga(0, p) == doctest::Approx(gb(0, p)).epsilon(1e-12));
}

TEST_CASE("LSTM results do not depend on the number of threads") {
  privet::testing::seeded_release_generator gen(51);
  lstm_classifier<double> m({.input_dim = 3, .hidden = 5, .classes = 3}, gen);
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < 50; ++i) lengths.push_back(2 + i % 9);
  const auto batch = random_batch<double>(52, lengths, 3, 3);
  const auto many = m.per_example_gradients(batch);
  const auto many_mean = m.mean_gradient(batch);
  oneapi::tbb::global_control one(oneapi::tbb::global_control::max_allowed_parallelism, 1);
  CHECK(m.per_example_gradients(batch) == many);
  CHECK(m.mean_gradient(batch) == many_mean);
}

TEST_CASE("LSTM initialisation: Glorot-uniform W and V, orthogonal U gates, forget bias") {
  privet::testing::seeded_release_generator gen(61);
  const std::size_t d = 13, h = 20, k = 10;
  lstm_classifier<double> m({.input_dim = d, .hidden = h, .classes = k, .forget_bias = 1.5}, gen);
  CHECK(m.parameter_count() == 4 * h * (d + h + 1) + k * (h + 1));
  const auto blocks = m.parameter_blocks();
  const auto p = m.parameters();
  std::size_t expected_offset = 0;
  for (const auto& blk : blocks) {
    CHECK(blk.offset == expected_offset);
    expected_offset += blk.size();
  }
  CHECK(expected_offset == m.parameter_count());
  // W: within the Glorot bound, and using most of it.
  const double aw = std::sqrt(6.0 / (d + h));
  double wmax = 0;
  for (std::size_t i = 0; i < blocks[0].size(); ++i)
    wmax = std::max(wmax, std::abs(p[blocks[0].offset + i]));
  CHECK(wmax <= aw);
  CHECK(wmax > 0.9 * aw);
  // U: each gate's H x H block has orthonormal rows.
  for (std::size_t g = 0; g < 4; ++g) {
    const double* u = p.data() + blocks[1].offset + g * h * h;
    double worst = 0;
    for (std::size_t r = 0; r < h; ++r)
      for (std::size_t s = 0; s < h; ++s) {
        double dot = 0;
        for (std::size_t q = 0; q < h; ++q) dot += u[r * h + q] * u[s * h + q];
        worst = std::max(worst, std::abs(dot - (r == s ? 1.0 : 0.0)));
      }
    CHECK(worst < 1e-12);
  }
  // b: the forget gate's quarter is forget_bias, the rest zero; c zero.
  for (std::size_t i = 0; i < 4 * h; ++i)
    CHECK(p[blocks[2].offset + i] == (i >= h && i < 2 * h ? 1.5 : 0.0));
  for (std::size_t i = 0; i < k; ++i) CHECK(p[blocks[4].offset + i] == 0.0);
  const double av = std::sqrt(6.0 / (h + k));
  for (std::size_t i = 0; i < blocks[3].size(); ++i) CHECK(std::abs(p[blocks[3].offset + i]) <= av);
  // Deterministic for a seed, different across seeds.
  privet::testing::seeded_release_generator same(61), other(62);
  lstm_classifier<double> m2({.input_dim = d, .hidden = h, .classes = k, .forget_bias = 1.5}, same);
  lstm_classifier<double> m3({.input_dim = d, .hidden = h, .classes = k, .forget_bias = 1.5},
                             other);
  CHECK(std::equal(p.begin(), p.end(), m2.parameters().begin()));
  CHECK(!std::equal(p.begin(), p.end(), m3.parameters().begin()));
}

TEST_CASE("LSTM learns which of three frequencies a noisy sequence carries") {
  // Sequences of 15-40 frames: channel 0 is sin(omega t + phase) with omega
  // one of three frequencies, random amplitude and noise; channel 1 is noise.
  // Training is deterministic for the fixed seeds (no false alarms: the test
  // passes or fails identically on every run); the trained model reaches
  // well above the 90 % required on 300 fresh sequences.
  const double omegas[] = {0.3, 0.8, 1.6};
  auto make = [&](std::uint64_t seed, std::size_t count) {
    privet::testing::seeded_release_generator gen(seed);
    sequence_batch<float> b;
    for (std::size_t i = 0; i < count; ++i) {
      const auto label = static_cast<int>(privet::uniform_below(gen, 3));
      const std::size_t len = 15 + privet::uniform_below(gen, 26);
      const double phase = 2 * std::numbers::pi * privet::uniform_real(gen);
      const double amp = 0.5 + privet::uniform_real(gen);
      xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({len, 2});
      for (std::size_t t = 0; t < len; ++t) {
        x(t, 0) =
            static_cast<float>(amp * std::sin(omegas[label] * static_cast<double>(t) + phase) +
                               0.2 * (2 * privet::uniform_real(gen) - 1));
        x(t, 1) = static_cast<float>(2 * privet::uniform_real(gen) - 1);
      }
      b.x.push_back(x);
      b.y.push_back(label);
    }
    return b;
  };
  const auto train = make(71, 600);
  const auto test = make(72, 300);
  privet::testing::seeded_release_generator gen(73);
  lstm_classifier<float> m({.input_dim = 2, .hidden = 16, .classes = 3}, gen);

  // Adam (Kingma & Ba 2015) on the mean loss of batches of 30.
  const std::size_t p = m.parameter_count(), batch = 30;
  std::vector<float> mom(p, 0), vel(p, 0);
  const float lr = 0.02f, b1 = 0.9f, b2 = 0.999f;
  int step = 0;
  std::vector<std::size_t> order(train.size());
  for (std::size_t epoch = 0; epoch < 15; ++epoch) {
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (std::size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[privet::uniform_below(gen, i)]);
    for (std::size_t s = 0; s + batch <= order.size(); s += batch) {
      const auto b = train.select(std::span<const std::size_t>(order.data() + s, batch));
      const auto g = m.mean_gradient(b);
      ++step;
      auto theta = m.parameters();
      for (std::size_t i = 0; i < p; ++i) {
        const float gi = g(i);
        mom[i] = b1 * mom[i] + (1 - b1) * gi;
        vel[i] = b2 * vel[i] + (1 - b2) * gi * gi;
        const float mh = mom[i] / (1 - std::pow(b1, static_cast<float>(step)));
        const float vh = vel[i] / (1 - std::pow(b2, static_cast<float>(step)));
        theta[i] -= lr * mh / (std::sqrt(vh) + 1e-8f);
      }
    }
  }
  const auto predicted = m.predict(test);
  std::size_t right = 0;
  for (std::size_t i = 0; i < test.size(); ++i) right += predicted[i] == test.y[i] ? 1 : 0;
  const double accuracy = static_cast<double>(right) / static_cast<double>(test.size());
  MESSAGE("held-out accuracy " << accuracy);
  CHECK(accuracy > 0.9);
}

TEST_CASE("LSTM rejects bad options and batches with clear messages") {
  privet::testing::seeded_release_generator gen(81);
  using model = lstm_classifier<double>;
  CHECK_THROWS_WITH_AS(model({.input_dim = 0, .classes = 3}, gen),
                       "privet: input_dim = 0 is invalid; allowed: [1, 1048576]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(model({.hidden = 0, .classes = 3}, gen),
                       "privet: hidden = 0 is invalid; allowed: [1, 1048576]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(model({.hidden = 8}, gen),
                       "privet: classes = 0 is invalid; allowed: [2, 1048576]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(model({.hidden = 8, .classes = 2, .forget_bias = NAN}, gen),
                       "privet: forget_bias = nan is invalid; allowed: a finite number",
                       privet::invalid_parameter);

  const model m({.input_dim = 3, .hidden = 4, .classes = 3}, gen);
  // An empty batch (Poisson sampling can draw one) has no losses and no
  // per-example gradients, and no mean gradient.
  CHECK(m.losses(sequence_batch<double>{}).size() == 0);
  CHECK(m.per_example_gradients(sequence_batch<double>{}).shape(0) == 0);
  CHECK(m.per_example_gradients(sequence_batch<double>{}).shape(1) == m.parameter_count());
  CHECK_THROWS_WITH_AS(static_cast<void>(m.mean_gradient(sequence_batch<double>{})),
                       "privet: batch is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(model({.classes = 3, .pooling = static_cast<sequence_pooling>(5)}, gen),
                       "privet: pooling = 5 is invalid; allowed: sequence_pooling::mean (0) or "
                       "sequence_pooling::last (1)",
                       privet::invalid_parameter);
  auto batch = random_batch<double>(82, {3, 2}, 3, 3);
  {
    auto b = batch;
    b.y[1] = 3;
    // Evaluation refuses the label; DP-SGD's per_example_gradients zeroes
    // its row instead (tested with the data rule below).
    CHECK_THROWS_WITH_AS(static_cast<void>(m.losses(b)),
                         "privet: y[1] = 3 is invalid; allowed: a class index in [0, 3)",
                         privet::invalid_parameter);
    b.y[1] = -1;
    CHECK(privet::test::rejected_parameter([&] { (void)m.mean_gradient(b); }) == "y[1]");
  }
  {
    auto b = batch;
    b.y.pop_back();
    CHECK(privet::test::rejected_parameter([&] { (void)m.losses(b); }) == "y.size()");
  }
  {
    auto b = batch;
    b.x[0] = xt::xtensor<double, 2>::from_shape({3, 2});
    CHECK_THROWS_WITH_AS(static_cast<void>(m.losses(b)),
                         "privet: x[0].shape(1) = 2 is invalid; allowed: input_dim = 3",
                         privet::invalid_parameter);
  }
  {
    auto b = batch;
    b.x[1] = xt::xtensor<double, 2>::from_shape({0, 3});
    CHECK_THROWS_WITH_AS(static_cast<void>(m.logits(b)),
                         "privet: x[1].shape(0) = 0 is invalid; allowed: [1, 67108864] frames",
                         privet::invalid_parameter);
  }
  {
    auto b = batch;
    b.x[1](1, 2) = INFINITY;
    CHECK_THROWS_WITH_AS(static_cast<void>(m.logits(b)),
                         "privet: x[1] = inf is invalid; allowed: finite features",
                         privet::invalid_parameter);
  }
  {
    auto f = random_frame_batch<double>(83, {3, 2}, 3, 3);
    f.y[0].pop_back();
    CHECK(privet::test::rejected_parameter([&] { (void)m.losses(f); }) == "y[i].size()");
    f = random_frame_batch<double>(83, {3, 2}, 3, 3);
    f.y[1][1] = 7;
    CHECK_THROWS_WITH_AS(static_cast<void>(m.losses(f)),
                         "privet: y[1][1] = 7 is invalid; allowed: a class index in [0, 3)",
                         privet::invalid_parameter);
  }
}

TEST_CASE("LSTM messages for the remaining refused options and labels") {
  privet::testing::seeded_release_generator gen(84);
  using model = lstm_classifier<double>;
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(model({.input_dim = (std::size_t{1} << 20) + 1, .classes = 3}, gen),
                       "privet: input_dim = 1048577 is invalid; allowed: [1, 1048576]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(model({.hidden = 8, .classes = (std::size_t{1} << 20) + 1}, gen),
                       "privet: classes = 1048577 is invalid; allowed: [2, 1048576]",
                       invalid_parameter);
  const model m({.input_dim = 3, .hidden = 4, .classes = 3}, gen);
  auto b = random_batch<double>(85, {3, 2}, 3, 3);
  b.y[1] = -1;
  CHECK_THROWS_WITH_AS((void)m.mean_gradient(b),
                       "privet: y[1] = -1 is invalid; allowed: a class index in [0, 3)",
                       invalid_parameter);
  b.y.pop_back();
  CHECK_THROWS_WITH_AS((void)m.losses(b),
                       "privet: y.size() = 1 is invalid; allowed: one label per example (2)",
                       invalid_parameter);
  auto f = random_frame_batch<double>(86, {3, 2}, 3, 3);
  f.y[0].pop_back();
  CHECK_THROWS_WITH_AS(
      (void)m.losses(f),
      "privet: y[i].size() = 2 is invalid; allowed: one label per frame of x[i] (3)",
      invalid_parameter);
}

// The data rule (docs/data_rule.md) on DP-SGD's path: per_example_gradients
// never throws because of one sequence. A sequence it cannot read gets the
// zero row, a non-finite feature counts as 0, and every other row is the
// one the sequence has alone (rows depend on their own sequence only).
TEST_CASE("LSTM per-example gradients apply record-wise rules to unreadable sequences") {
  privet::testing::seeded_release_generator gen(87);
  using model = lstm_classifier<double>;
  const model m({.input_dim = 3, .hidden = 4, .classes = 3}, gen);
  const auto clean = random_batch<double>(88, {3, 2, 4, 2}, 3, 3);
  const auto reference = m.per_example_gradients(clean);
  const std::size_t p = m.parameter_count();
  const auto row_is = [&](const xt::xtensor<double, 2>& g, std::size_t i, auto expected) {
    bool same = true;
    for (std::size_t j = 0; j < p; ++j) same = same && g(i, j) == expected(j);
    return same;
  };
  const auto zero = [](std::size_t) { return 0.0; };
  const auto others_unchanged = [&](const xt::xtensor<double, 2>& g, std::size_t bad) {
    bool same = true;
    for (std::size_t i = 0; i < clean.size(); ++i) {
      if (i != bad) same = same && row_is(g, i, [&](std::size_t j) { return reference(i, j); });
    }
    return same;
  };
  // Each bad sequence: a label out of range (both sides), an empty
  // sequence, frames of the wrong width.
  for (int variant = 0; variant < 4; ++variant) {
    auto b = clean;
    if (variant == 0) b.y[1] = 3;
    if (variant == 1) b.y[1] = -1;
    if (variant == 2) b.x[1] = xt::xtensor<double, 2>::from_shape({0, 3});
    if (variant == 3) b.x[1] = xt::zeros<double>({std::size_t{2}, std::size_t{5}});
    CAPTURE(variant);
    xt::xtensor<double, 2> g;
    REQUIRE_NOTHROW(g = m.per_example_gradients(b));
    CHECK(row_is(g, 1, zero));
    CHECK(others_unchanged(g, 1));
  }
  // NaN and infinite features count as 0: the same row as the sequence
  // with zeros there.
  auto b = clean;
  b.x[2](0, 1) = NAN;
  b.x[2](1, 2) = -INFINITY;
  auto zeros = clean;
  zeros.x[2](0, 1) = 0;
  zeros.x[2](1, 2) = 0;
  const auto g = m.per_example_gradients(b);
  const auto expected = m.per_example_gradients(zeros);
  CHECK(row_is(g, 2, [&](std::size_t j) { return expected(2, j); }));
  CHECK(others_unchanged(g, 2));
  // Frame labels: a label out of range, or a label count other than the
  // frame count, zeroes that sequence's row.
  const auto frames = random_frame_batch<double>(89, {3, 2, 2}, 3, 3);
  const auto frame_reference = m.per_example_gradients(frames);
  for (int variant = 0; variant < 2; ++variant) {
    auto f = frames;
    if (variant == 0) f.y[1][1] = 7;
    if (variant == 1) f.y[1].pop_back();
    CAPTURE(variant);
    xt::xtensor<double, 2> gf;
    REQUIRE_NOTHROW(gf = m.per_example_gradients(f));
    CHECK(row_is(gf, 1, zero));
    CHECK(row_is(gf, 0, [&](std::size_t j) { return frame_reference(0, j); }));
    CHECK(row_is(gf, 2, [&](std::size_t j) { return frame_reference(2, j); }));
  }
}

namespace {

// The same model (dimensions, pooling, parameters) with gradient_frames = cap.
template <class Real>
lstm_classifier<Real> with_cap(const lstm_classifier<Real>& m, std::size_t cap) {
  privet::testing::seeded_release_generator gen(1);
  lstm_classifier<Real> out({.input_dim = m.input_dim(),
                             .hidden = m.hidden(),
                             .classes = m.classes(),
                             .pooling = m.pooling(),
                             .gradient_frames = cap},
                            gen);
  std::copy(m.parameters().begin(), m.parameters().end(), out.parameters().begin());
  return out;
}

// Each sequence cut to its first `cap` frames, and its frame labels with it
// when there is one per frame (a label count other than the frame count
// stays a mismatch).
template <class Batch>
Batch cut(Batch b, std::size_t cap) {
  for (std::size_t i = 0; i < b.x.size(); ++i) {
    auto& x = b.x[i];
    if (x.shape(0) <= cap || x.shape(1) == 0) continue;
    if constexpr (std::is_same_v<Batch, frame_sequence_batch<typename Batch::real_type>>) {
      if (b.y[i].size() == x.shape(0)) b.y[i].resize(cap);
    }
    xt::xtensor<typename Batch::real_type, 2> first =
        xt::xtensor<typename Batch::real_type, 2>::from_shape({cap, x.shape(1)});
    std::copy(x.data(), x.data() + cap * x.shape(1), first.data());
    x = first;
  }
  return b;
}

template <class Real>
double max_difference(const xt::xtensor<Real, 2>& a, const xt::xtensor<Real, 2>& b) {
  REQUIRE(a.shape(0) == b.shape(0));
  REQUIRE(a.shape(1) == b.shape(1));
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(a.data()[i] - b.data()[i])));
  }
  return worst;
}

}  // namespace

// The padded pass (gradient_frames = T) against the unpadded one on the
// same sequences cut to T frames: every sequence runs T steps, the steps
// past its length must change nothing (exactly 0 flows back from them), so
// the two agree to the round-off of BLAS products over more rows (1e-13 on
// gradients of order 1 in double, 1e-5 in float).
TEST_CASE("LSTM gradient_frames = T: each row is the unpadded gradient of the first T frames") {
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < 21; ++i) lengths.push_back(1 + (i * 7) % 13);  // 1..13
  const std::size_t cap = 8;
  for (const auto pooling : {sequence_pooling::mean, sequence_pooling::last}) {
    CAPTURE(static_cast<int>(pooling));
    const auto m = tiny_model(pooling, 90);
    const auto padded = with_cap(m, cap);
    auto b = random_batch<double>(91, lengths, 3, 3);
    // Unreadable sequences and non-finite features, before and past the cut.
    b.y[1] = 5;
    b.x[2] = xt::xtensor<double, 2>::from_shape({0, 3});
    b.x[3] = xt::zeros<double>({std::size_t{4}, std::size_t{5}});
    b.x[4](0, 1) = NAN;
    b.x[5](lengths[5] - 1, 0) = INFINITY;  // frame 12, past the cut
    REQUIRE(lengths[5] > cap);
    const auto g = padded.per_example_gradients(b);
    const auto expected = m.per_example_gradients(cut(b, cap));
    CHECK(max_difference(g, expected) < 1e-13);
    // A cap at least the longest sequence: the unpadded gradients themselves.
    CHECK(max_difference(with_cap(m, 13).per_example_gradients(b), m.per_example_gradients(b)) <
          1e-13);
    // The unreadable rows are exactly zero.
    for (const std::size_t bad : {1, 2, 3}) {
      for (std::size_t j = 0; j < m.parameter_count(); ++j) CHECK(g(bad, j) == 0.0);
    }
  }
  // Frames: a label out of range before the cut zeroes the row, one past the
  // cut is never read.
  const auto m = tiny_model(sequence_pooling::mean, 92);
  const auto padded = with_cap(m, cap);
  auto f = random_frame_batch<double>(93, lengths, 3, 3);
  REQUIRE(lengths[3] > cap);
  REQUIRE(lengths[9] > cap);
  f.y[3][2] = 9;
  f.y[9][cap + 1] = -4;
  f.y[7].pop_back();
  const auto gf = padded.per_example_gradients(f);
  CHECK(max_difference(gf, m.per_example_gradients(cut(f, cap))) < 1e-13);
  bool row3_zero = true, row9_zero = true;
  for (std::size_t j = 0; j < m.parameter_count(); ++j) {
    row3_zero = row3_zero && gf(3, j) == 0.0;
    row9_zero = row9_zero && gf(9, j) == 0.0;
  }
  CHECK(row3_zero);
  CHECK_FALSE(row9_zero);
  // float: the features' masks act on 32-bit words.
  privet::testing::seeded_release_generator gen(94);
  const lstm_classifier<float> mf({.input_dim = 3, .hidden = 4, .classes = 3}, gen);
  auto ff = random_frame_batch<float>(95, lengths, 3, 3);
  ff.x[2](1, 1) = NAN;
  CHECK(max_difference(with_cap(mf, cap).per_example_gradients(ff),
                       mf.per_example_gradients(cut(ff, cap))) < 1e-5);
}

TEST_CASE("LSTM per_example_gradients at rows: the selected batch's rows, read in place") {
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < 19; ++i) lengths.push_back(1 + (i * 5) % 11);
  const std::vector<std::size_t> rows = {18, 0, 7,  7,  3, 12, 5, 16, 1,  9,
                                         2,  4, 11, 15, 6, 10, 8, 13, 14, 17};
  for (const std::size_t cap : {std::size_t{0}, std::size_t{6}}) {
    CAPTURE(cap);
    const auto m = with_cap(tiny_model(sequence_pooling::last, 96), cap);
    auto b = random_batch<double>(97, lengths, 3, 3);
    b.y[7] = 3;  // unreadable, selected twice
    CHECK(max_difference(m.per_example_gradients(b, rows),
                         m.per_example_gradients(b.select(rows))) == 0.0);
    const auto f = random_frame_batch<double>(98, lengths, 3, 3);
    CHECK(max_difference(m.per_example_gradients(f, rows),
                         m.per_example_gradients(f.select(rows))) == 0.0);
    const auto none = m.per_example_gradients(b, std::span<const std::size_t>{});
    CHECK(none.shape(0) == 0);
    CHECK(none.shape(1) == m.parameter_count());
    const std::vector<std::size_t> outside = {2, 19};
    CHECK(privet::test::rejected_parameter(
              [&] { static_cast<void>(m.per_example_gradients(b, outside)); }) == "rows");
  }
  privet::testing::seeded_release_generator gen(99);
  CHECK_THROWS_WITH_AS(
      lstm_classifier<double>(
          {.classes = 3, .gradient_frames = lstm_classifier<double>::max_frames + 1}, gen),
      "privet: gradient_frames = 67108865 is invalid; allowed: [0, 67108864] (0: no cap)",
      privet::invalid_parameter);
}
