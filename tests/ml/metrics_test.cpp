// Metrics: known answers from scikit-learn's documentation and from hand
// computations, ties by midranks, and every documented error.
#include <privet/ml/metrics.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using privet::ml::roc_auc;

TEST_CASE("roc_auc: scikit-learn's documented example") {
  // sklearn.metrics.roc_auc_score docs:
  // roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75.
  CHECK(roc_auc(std::vector<double>{0.1, 0.4, 0.35, 0.8}, std::vector<int>{0, 0, 1, 1}) == 0.75);
  // The same with {-1, +1} labels.
  CHECK(roc_auc(std::vector<double>{0.1, 0.4, 0.35, 0.8}, std::vector<int>{-1, -1, 1, 1}) == 0.75);
}

TEST_CASE("roc_auc: hand-computed values with ties") {
  // Positives scored {0.5, 0.9, 0.5}, negatives {0.5, 0.1}. Pairs (pos, neg):
  // 0.5 vs 0.5 tie (1/2) and > 0.1 (1): twice; 0.9 beats both (2).
  // U = 2 (1/2 + 1) + 2 = 5, AUC = 5 / 6.
  const std::vector<double> s{0.5, 0.9, 0.5, 0.5, 0.1};
  const std::vector<int> y{1, 1, 1, 0, 0};
  CHECK(roc_auc(s, y) == doctest::Approx(5.0 / 6.0).epsilon(1e-15));
  // All scores tied: 1/2.
  CHECK(roc_auc(std::vector<float>{2, 2, 2}, std::vector<int>{1, 0, 1}) == 0.5);
  // Perfect and reversed orders.
  CHECK(roc_auc(std::vector<double>{1, 2, 3, 4}, std::vector<int>{0, 0, 1, 1}) == 1.0);
  CHECK(roc_auc(std::vector<double>{4, 3, 2, 1}, std::vector<int>{0, 0, 1, 1}) == 0.0);
  // bool labels, infinite scores are ordered like any other.
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(roc_auc(std::vector<double>{-inf, inf}, std::vector<bool>{false, true}) == 1.0);
}

TEST_CASE("roc_auc agrees with the pairwise definition on random data") {
  std::vector<double> s;
  std::vector<int> y;
  unsigned x = 12345;
  for (int i = 0; i < 300; ++i) {
    x = x * 1103515245u + 12345u;
    s.push_back(static_cast<double>((x >> 16) % 50));  // many ties
    y.push_back(((x >> 8) % 3) == 0 ? 1 : 0);
  }
  double u = 0, pos = 0, neg = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    (y[i] == 1 ? pos : neg) += 1;
    if (y[i] != 1) continue;
    for (std::size_t j = 0; j < s.size(); ++j)
      if (y[j] == 0) u += s[i] > s[j] ? 1.0 : (s[i] == s[j] ? 0.5 : 0.0);
  }
  CHECK(roc_auc(s, y) == doctest::Approx(u / (pos * neg)).epsilon(1e-15));
}

TEST_CASE("accuracy and binary_accuracy") {
  // sklearn.metrics.accuracy_score docs: accuracy_score([0, 1, 2, 3], [0, 2, 1, 3]) == 0.5.
  CHECK(privet::ml::accuracy(std::vector<int>{0, 2, 1, 3}, std::vector<int>{0, 1, 2, 3}) == 0.5);
  CHECK(privet::ml::binary_accuracy(std::vector<double>{-1, 2, 0, 3},
                                    std::vector<int>{0, 1, 1, -1}) == 0.5);
  CHECK(privet::ml::binary_accuracy(std::vector<double>{0.2, 0.7}, std::vector<int>{0, 1}, 0.5) ==
        1.0);
}

TEST_CASE("log_loss: scikit-learn's documented example") {
  // sklearn.metrics.log_loss docs: log_loss(["spam", "ham", "ham", "spam"],
  // [[.1, .9], [.9, .1], [.8, .2], [.35, .65]]) = 0.21616..., i.e.
  // -(log .9 + log .9 + log .8 + log .65) / 4 with spam the positive class.
  const double expected = -(std::log(0.9) + std::log(0.9) + std::log(0.8) + std::log(0.65)) / 4;
  CHECK(expected == doctest::Approx(0.21616).epsilon(1e-4));
  CHECK(privet::ml::log_loss(std::vector<double>{0.9, 0.1, 0.2, 0.65},
                             std::vector<int>{1, 0, 0, 1}) ==
        doctest::Approx(expected).epsilon(1e-14));
  const xt::xtensor<double, 2> p{{.1, .9}, {.9, .1}, {.8, .2}, {.35, .65}};
  CHECK(privet::ml::log_loss(p, std::vector<int>{1, 0, 0, 1}) ==
        doctest::Approx(expected).epsilon(1e-14));
  // A certain wrong prediction costs +inf, never a clipped finite value.
  CHECK(std::isinf(privet::ml::log_loss(std::vector<double>{0.0}, std::vector<int>{1})));
}

TEST_CASE("metrics reject empty, mismatched, single-class and NaN input") {
  using privet::test::rejected_parameter;
  const std::vector<double> none;
  const std::vector<int> no_labels;
  try {
    (void)roc_auc(none, no_labels);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) == "privet: scores is empty; allowed: at least one element");
  }
  try {
    (void)roc_auc(std::vector<double>{1, 2}, std::vector<int>{1, 1});
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: labels = all positive is invalid; allowed: both classes present (the AUC is "
          "undefined for one class)");
  }
  CHECK(rejected_parameter([] {
          (void)roc_auc(std::vector<double>{1, 2}, std::vector<int>{0, 0});
        }) == "labels");
  CHECK(rejected_parameter([] {
          (void)roc_auc(std::vector<double>{1, 2}, std::vector<int>{0});
        }) == "labels.size()");
  CHECK(rejected_parameter([] {
          (void)roc_auc(std::vector<double>{1, 2}, std::vector<int>{0, 3});
        }) == "label");
  CHECK(rejected_parameter([] {
          (void)roc_auc(std::vector<double>{1, std::nan("")}, std::vector<int>{0, 1});
        }) == "score");
  CHECK(rejected_parameter([] {
          (void)privet::ml::accuracy(std::vector<int>{}, std::vector<int>{});
        }) == "predictions");
  CHECK(rejected_parameter([] {
          (void)privet::ml::log_loss(std::vector<double>{1.5}, std::vector<int>{1});
        }) == "probability");
  const xt::xtensor<double, 2> p{{0.5, 0.6}};
  CHECK(rejected_parameter([&] { (void)privet::ml::log_loss(p, std::vector<int>{0}); }) ==
        "probabilities row sum");
}

TEST_CASE("metrics messages name the argument, its value and the allowed range") {
  using privet::invalid_parameter;
  using privet::ml::accuracy;
  using privet::ml::binary_accuracy;
  using privet::ml::log_loss;
  const std::vector<double> two{1, 2};
  CHECK_THROWS_WITH_AS((void)roc_auc(two, std::vector<int>{0}),
                       "privet: labels.size() = 1 is invalid; allowed: the number of scores (2)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)roc_auc(two, std::vector<int>{0, 3}),
                       "privet: label = 3 is invalid; allowed: 1 (positive), or -1 or 0 (negative)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)roc_auc(std::vector<double>{1, std::nan("")}, std::vector<int>{0, 1}),
                       "privet: score = nan is invalid; allowed: a number (not NaN)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)roc_auc(two, std::vector<int>{0, -1}),
                       "privet: labels = all negative is invalid; allowed: both classes present "
                       "(the AUC is undefined for one class)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)accuracy(std::vector<int>{}, std::vector<int>{}),
                       "privet: predictions is empty; allowed: at least one element",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)accuracy(std::vector<int>{1, 2}, std::vector<int>{1}),
      "privet: labels.size() = 1 is invalid; allowed: the number of predictions (2)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS((void)binary_accuracy(std::vector<double>{}, std::vector<int>{}),
                       "privet: scores is empty; allowed: at least one element", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)binary_accuracy(two, std::vector<int>{1}),
                       "privet: labels.size() = 1 is invalid; allowed: the number of scores (2)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)log_loss(std::vector<double>{0.5, 0.5}, std::vector<int>{1}),
      "privet: labels.size() = 1 is invalid; allowed: the number of probabilities (2)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS((void)binary_accuracy(two, std::vector<int>{0, 1}, std::nan("")),
                       "privet: threshold = nan is invalid; allowed: a finite number",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)binary_accuracy(std::vector<double>{std::nan(""), 1}, std::vector<int>{0, 1}),
      "privet: score = nan is invalid; allowed: a number (not NaN)", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)binary_accuracy(two, std::vector<int>{2, 1}),
                       "privet: label = 2 is invalid; allowed: 1 (positive), or -1 or 0 (negative)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)log_loss(std::vector<double>{}, std::vector<int>{}),
                       "privet: probabilities is empty; allowed: at least one element",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)log_loss(std::vector<double>{1.5}, std::vector<int>{1}),
                       "privet: probability = 1.5 is invalid; allowed: [0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)log_loss(std::vector<double>{0.5}, std::vector<int>{-2}),
      "privet: label = -2 is invalid; allowed: 1 (positive), or -1 or 0 (negative)",
      invalid_parameter);
  // Multi-class: rows, then each row's probabilities, its sum, its label.
  const xt::xtensor<double, 2> none = xt::zeros<double>({std::size_t{0}, std::size_t{2}});
  CHECK_THROWS_WITH_AS((void)log_loss(none, std::vector<int>{}),
                       "privet: probabilities is empty; allowed: at least one element",
                       invalid_parameter);
  const xt::xtensor<double, 2> p{{0.25, 0.75}};
  CHECK_THROWS_WITH_AS(
      (void)log_loss(p, std::vector<int>{0, 1}),
      "privet: labels.size() = 2 is invalid; allowed: the number of rows of probabilities (1)",
      invalid_parameter);
  const xt::xtensor<double, 2> negative{{-0.5, 1.5}};
  CHECK_THROWS_WITH_AS((void)log_loss(negative, std::vector<int>{0}),
                       "privet: probability = -0.5 is invalid; allowed: [0, 1]", invalid_parameter);
  const xt::xtensor<double, 2> over{{0.5, 0.75}};
  CHECK_THROWS_WITH_AS((void)log_loss(over, std::vector<int>{0}),
                       "privet: probabilities row sum = 1.25 is invalid; allowed: 1 (within 1e-6)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)log_loss(p, std::vector<int>{2}),
                       "privet: label = 2 is invalid; allowed: a class index in [0, 2)",
                       invalid_parameter);
}

TEST_CASE("a 64-bit unsigned label 2^64 - 1 is not read as -1") {
  // Before: labels went through static_cast<long long>, so 2^64 - 1 was the
  // negative label -1, and accuracy() counted it equal to a true -1.
  using privet::invalid_parameter;
  constexpr auto top = std::numeric_limits<std::uint64_t>::max();
  const std::vector<double> two{1, 2};
  CHECK_THROWS_WITH_AS((void)roc_auc(two, std::vector<std::uint64_t>{top, 1}),
                       "privet: label = 18446744073709551615 is invalid; allowed: 1 (positive), "
                       "or -1 or 0 (negative)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)privet::ml::binary_accuracy(two, std::vector<std::uint64_t>{top, 1}),
      "privet: label = 18446744073709551615 is invalid; allowed: 1 (positive), or -1 or 0 "
      "(negative)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)privet::ml::log_loss(std::vector<double>{0.5}, std::vector<std::uint64_t>{top}),
      "privet: label = 18446744073709551615 is invalid; allowed: 1 (positive), or -1 or 0 "
      "(negative)",
      invalid_parameter);
  CHECK(privet::ml::accuracy(std::vector<std::uint64_t>{top, 1}, std::vector<int>{-1, 1}) == 0.5);
  const xt::xtensor<double, 2> p{{0.25, 0.75}};
  CHECK_THROWS_WITH_AS((void)privet::ml::log_loss(p, std::vector<std::uint64_t>{top}),
                       "privet: label = 18446744073709551615 is invalid; allowed: a class index "
                       "in [0, 2)",
                       invalid_parameter);
  // Narrow and boolean labels keep their meaning.
  CHECK(roc_auc(two, std::vector<bool>{false, true}) == 1.0);
  CHECK(roc_auc(two, std::vector<std::uint8_t>{0, 1}) == 1.0);
  CHECK(privet::ml::accuracy(std::vector<std::int8_t>{-1, 2}, std::vector<long>{-1, 2}) == 1.0);
}
