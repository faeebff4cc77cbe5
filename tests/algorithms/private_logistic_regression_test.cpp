// Tests for privet/algorithms/private_logistic_regression.hpp: the private
// protocol trains the model reference_model computes in the clear, bit for
// bit; each party's view holds what the protocol allows and nothing else;
// Carol learns the label; every misuse is refused by name.
#include <privet/algorithms/private_logistic_regression.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>
#include <support/errors.hpp>
#include <support/paillier_backends.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lr = privet::private_lr;
namespace paillier = privet::paillier;
namespace dgk = privet::dgk;
using privet::test::rejected_parameter;

#ifdef PRIVET_HAS_GMP
#define PRIVET_PLR_TYPES boost::multiprecision::cpp_int, boost::multiprecision::mpz_int
#else
#define PRIVET_PLR_TYPES boost::multiprecision::cpp_int
#endif

namespace {

using S = paillier::binary_scale<8>;   // C = 256
using R = paillier::binary_scale<12>;  // C_R = 4096

lr::parameters small_parameters() {
  lr::parameters p;
  p.dimension = 40;
  p.block_size = 6;
  p.learning_rate = 2.0;
  p.l2 = 0.05;
  p.max_weight = 16;
  p.max_active = 8;
  p.max_update_emails = 64;
  p.threads = paillier::batch_options{2};
  return p;
}

// Keys of 256 bits (insecure: tests only), cached per backend.
template <class Int>
struct keys {
  paillier::keypair<Int> paillier_keys;
  dgk::keypair<Int> comparison_keys;
};

template <class Int>
const keys<Int>& test_keys() {
  static const keys<Int> k = [] {
    privet::testing::seeded_release_generator gen(2024);
    const std::size_t l = lr::comparison_bits<Int, S, R>(small_parameters());
    return keys<Int>{
        privet::test::small_keys<Int>(256, 7),
        dgk::generate_keypair<Int>(dgk::key_parameters{256, 40, dgk::plaintext_prime_for(l)},
                                   dgk::allow_insecure, gen)};
  }();
  return k;
}

// Emails labelled by a hidden linear rule: 3 to 8 distinct features each.
privet::ml::sparse_binary_batch make_emails(std::size_t count, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  std::vector<double> truth(40);
  for (std::size_t j = 0; j < truth.size(); ++j) truth[j] = (j % 3 == 0 ? 1.0 : -0.6) * (1 + j % 4);
  privet::ml::sparse_binary_batch b;
  b.dimension = 40;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t k = 3 + privet::uniform_below(gen, std::uint64_t{6});
    std::vector<std::uint32_t> x;
    while (x.size() < k) {
      const auto j = static_cast<std::uint32_t>(privet::uniform_below(gen, std::uint64_t{40}));
      if (std::find(x.begin(), x.end(), j) == x.end()) x.push_back(j);
    }
    double score = 0;
    for (auto j : x) score += truth[j];
    b.features.push_back(x);
    b.y.push_back(score > 0 ? 1 : -1);
  }
  return b;
}

privet::ml::sparse_binary_batch slice(const privet::ml::sparse_binary_batch& b, std::size_t lo,
                                      std::size_t hi) {
  privet::ml::sparse_binary_batch out;
  out.dimension = b.dimension;
  out.features.assign(b.features.begin() + static_cast<std::ptrdiff_t>(lo),
                      b.features.begin() + static_cast<std::ptrdiff_t>(hi));
  out.y.assign(b.y.begin() + static_cast<std::ptrdiff_t>(lo),
               b.y.begin() + static_cast<std::ptrdiff_t>(hi));
  return out;
}

// Every message of one block, as the parties exchanged them.
template <class Int>
struct block_transcript {
  lr::margins_message<Int> margins;
  lr::bits_message<Int> bits;
  lr::tests_message<Int> tests;
  lr::products_message<Int> products;
  lr::gradient_message<Int> gradient;
};

template <class Int, class Bob>
block_transcript<Int> run_block(Bob& bob, lr::alice<Int, S, R>& alice,
                                const lr::weights_message<Int>& w,
                                const privet::ml::sparse_binary_batch& block,
                                privet::testing::seeded_release_generator& gen) {
  auto server = bob.serve(alice.user());
  block_transcript<Int> t;
  t.margins = alice.margins(w, block, gen);
  t.bits = server.bits(t.margins, gen);
  t.tests = alice.tests(t.bits, gen);
  t.products = server.products(t.tests, gen);
  t.gradient = alice.gradient(t.products, gen);
  bob.receive(t.gradient);
  return t;
}

}  // namespace

TEST_CASE_TEMPLATE(
    "online training: the private protocol computes reference_model's weights "
    "exactly",
    Int, PRIVET_PLR_TYPES) {
  const auto& k = test_keys<Int>();
  const auto p = small_parameters();
  lr::bob<Int, S, R> bob(k.paillier_keys.private_key, k.comparison_keys.private_key, p);
  lr::alice<Int, S, R> alice0(k.paillier_keys.public_key, k.comparison_keys.public_key, p, 0);
  lr::alice<Int, S, R> alice1(k.paillier_keys.public_key, k.comparison_keys.public_key, p, 1);
  lr::reference_model<Int, S, R> ref(p);
  const auto emails = make_emails(40, 5);
  privet::testing::seeded_release_generator gen(11);
  std::size_t clamped_low = 0, clamped_high = 0, linear = 0;
  const Int c(256);
  for (std::size_t it = 0; it < 5; ++it) {
    const auto block = slice(emails, 8 * it, 8 * it + 8);
    for (std::size_t i = 0; i < block.size(); ++i) {
      const Int z =
          block.y[i] > 0 ? ref.score(block.features[i]) : Int(-ref.score(block.features[i]));
      const Int t = Int(2) * c - z;
      (t <= 0 ? clamped_low : t > 4 * c ? clamped_high : linear) += 1;
    }
    const auto w = bob.publish(gen);
    (void)run_block(bob, it % 2 == 0 ? alice0 : alice1, w, block, gen);
    bob.update();
    ref.train_block(block);
    CAPTURE(it);
    REQUIRE(bob.mantissas() == ref.mantissas());
  }
  // Not a vacuous equality: the model moved, and the blocks met all three
  // pieces of the sigmoid.
  CHECK(std::count(ref.mantissas().begin(), ref.mantissas().end(), Int(0)) < 20);
  CHECK(clamped_low > 0);
  CHECK(clamped_high > 0);
  CHECK(linear > 0);
  CHECK(bob.iteration() == 5);
  // The trained weights separate the training emails better than chance.
  std::size_t right = 0;
  for (std::size_t i = 0; i < emails.size(); ++i) {
    right += (ref.score(emails.features[i]) > 0) == (emails.y[i] > 0) ? 1 : 0;
  }
  CHECK(right >= 30);
}

TEST_CASE_TEMPLATE("batch training: two users' gradients summed by Bob equal the reference sum",
                   Int, PRIVET_PLR_TYPES) {
  const auto& k = test_keys<Int>();
  auto p = small_parameters();
  p.mode = paillier::encryption_mode::djn;  // every party encrypts by DJN
  lr::bob<Int, S, R> bob(k.paillier_keys.private_key, k.comparison_keys.private_key, p);
  lr::alice<Int, S, R> a(k.paillier_keys.public_key, k.comparison_keys.public_key, p, 7);
  lr::alice<Int, S, R> b(k.paillier_keys.public_key, k.comparison_keys.public_key, p, 9);
  lr::reference_model<Int, S, R> ref(p);
  const auto emails = make_emails(34, 6);
  privet::testing::seeded_release_generator gen(12);
  for (int it = 0; it < 2; ++it) {
    // Blocks of 6 and 11 emails: the second counts as two terms of 4C K.
    const auto ba = slice(emails, 17 * it, 17 * it + 6);
    const auto bb = slice(emails, 17 * it + 6, 17 * it + 17);
    const auto w = bob.publish(gen);
    (void)run_block(bob, a, w, ba, gen);
    (void)run_block(bob, b, w, bb, gen);
    bob.update();
    auto g = ref.gradient(ba);
    const auto gb = ref.gradient(bb);
    for (std::size_t j = 0; j < g.size(); ++j) g[j] += gb[j];
    ref.apply(g);
    REQUIRE(bob.mantissas() == ref.mantissas());
  }
}

TEST_CASE_TEMPLATE("views: Bob sees masked values only, Alice ciphertexts only, all re-randomised",
                   Int, PRIVET_PLR_TYPES) {
  const auto& k = test_keys<Int>();
  const auto p = small_parameters();
  const auto& sk = k.paillier_keys.private_key;
  const Int& n = sk.public_key().n();
  lr::bob<Int, S, R> bob(sk, k.comparison_keys.private_key, p);
  lr::alice<Int, S, R> alice(k.paillier_keys.public_key, k.comparison_keys.public_key, p, 3);
  lr::reference_model<Int, S, R> ref(p);
  const auto emails = make_emails(16, 8);
  privet::testing::seeded_release_generator gen(13);
  // A first iteration so that w is not zero.
  (void)run_block(bob, alice, bob.publish(gen), slice(emails, 0, 8), gen);
  bob.update();
  ref.train_block(slice(emails, 0, 8));
  const auto block = slice(emails, 8, 16);
  const auto w = bob.publish(gen);
  const auto t = run_block(bob, alice, w, block, gen);

  // Bob decrypts E[t - r]: with r uniform in Z_n, a value in a window of
  // 2^100 around 0 has probability 2^-155 per value at 256 bits.
  const Int window = Int(1) << 100;
  for (const auto& c : t.margins.masked) {
    const Int m = sk.decrypt(c);
    CHECK(m > window);
    CHECK(m < n - window);
  }
  // The masked products hide t under rho of l + 1 + kappa bits: every one
  // is larger than any |t| by far, and none equals 2^l +- t (rho = 0).
  const std::size_t l = lr::comparison_bits<Int, S, R>(p);
  const Int two_l = Int(1) << static_cast<unsigned>(l);
  for (std::size_t i = 0; i < t.tests.masked_products.size(); ++i) {
    const Int u = sk.decrypt(t.tests.masked_products[i]);
    const auto& x = block.features[i / 2];
    const Int z = block.y[i / 2] > 0 ? ref.score(x) : Int(-ref.score(x));
    const Int tt = Int(2 * 256) - z;
    CHECK(u != two_l + tt);
    CHECK(u != two_l - tt);
    CHECK(u > (Int(1) << 40));
  }
  // Alice never sees a weight: every value she receives is a ciphertext
  // (a unit mod n^2 far above any weight mantissa), and E[w] decrypts to w.
  for (std::size_t j = 0; j < w.weights.size(); ++j) {
    CHECK(w.weights[j].value() > (Int(1) << 64));
    CHECK(sk.decrypt_signed(w.weights[j]) == ref.mantissas()[j]);
  }
  for (const auto& c : t.products.products) CHECK(c.value() > (Int(1) << 64));
  // Re-randomised: no ciphertext Alice sends equals one Bob sent.
  std::vector<Int> from_bob;
  for (const auto& c : w.weights) from_bob.push_back(c.value());
  for (const auto& c : t.products.bit_shares) from_bob.push_back(c.value());
  for (const auto& c : t.products.products) from_bob.push_back(c.value());
  std::sort(from_bob.begin(), from_bob.end());
  auto sent_back = [&](const paillier::ciphertext<Int>& c) {
    return std::binary_search(from_bob.begin(), from_bob.end(), c.value());
  };
  for (const auto& c : t.margins.masked) CHECK(!sent_back(c));
  for (const auto& c : t.tests.masked_products) CHECK(!sent_back(c));
  for (const auto& c : t.gradient.packed) CHECK(!sent_back(c));
  // The packed gradient is what the reference computes, and nothing else.
  bob.update();
  ref.train_block(block);
  CHECK(bob.mantissas() == ref.mantissas());
}

TEST_CASE_TEMPLATE("Carol learns [w^T x > 0], as the reference model scores it", Int,
                   PRIVET_PLR_TYPES) {
  const auto& k = test_keys<Int>();
  const auto p = small_parameters();
  lr::bob<Int, S, R> bob(k.paillier_keys.private_key, k.comparison_keys.private_key, p);
  lr::alice<Int, S, R> alice(k.paillier_keys.public_key, k.comparison_keys.public_key, p, 1);
  lr::reference_model<Int, S, R> ref(p);
  const auto emails = make_emails(40, 9);
  privet::testing::seeded_release_generator gen(14);
  for (std::size_t it = 0; it < 2; ++it) {
    const auto block = slice(emails, 8 * it, 8 * it + 8);
    (void)run_block(bob, alice, bob.publish(gen), block, gen);
    bob.update();
    ref.train_block(block);
  }
  const auto w = bob.publish(gen);
  int spam = 0;
  for (std::size_t i = 16; i < 40; ++i) {
    lr::carol<Int, S, R> carol(k.paillier_keys.public_key, k.comparison_keys.public_key, p, i);
    auto eval = bob.evaluate(i);
    const auto q = carol.query(w, emails.features[i], gen);
    const auto bits = eval.bits(q, gen);
    const auto tests = carol.tests(bits, gen);
    const bool label = carol.result(eval.respond(tests));
    CAPTURE(i);
    CHECK(label == (ref.score(emails.features[i]) > 0));
    spam += label ? 1 : 0;
    CHECK(carol.work().encryptions == 1);
    CHECK(carol.work().ciphertexts_sent == 1);
  }
  CHECK(spam > 0);
  CHECK(spam < 24);
}

TEST_CASE_TEMPLATE(
    "counters: 3 encryptions per email for Alice, 3 decryptions and 4 "
    "encryptions for Bob",
    Int, PRIVET_PLR_TYPES) {
  const auto& k = test_keys<Int>();
  const auto p = small_parameters();
  lr::bob<Int, S, R> bob(k.paillier_keys.private_key, k.comparison_keys.private_key, p);
  lr::alice<Int, S, R> alice(k.paillier_keys.public_key, k.comparison_keys.public_key, p, 1);
  privet::testing::seeded_release_generator gen(15);
  const auto block = make_emails(8, 10);
  const auto t = run_block(bob, alice, bob.publish(gen), block, gen);
  bob.update();
  const std::size_t packed = bob.gradient_packing().packed_count(40);
  CHECK(t.gradient.packed.size() == packed);
  CHECK(alice.work().encryptions == 3 * 8 + packed);
  CHECK(alice.work().ciphertexts_sent == 3 * 8 + packed);
  CHECK(alice.work().comparisons == 16);
  const auto b = bob.work();
  CHECK(b.encryptions == 40 + 4 * 8);
  CHECK(b.decryptions == 3 * 8 + packed);
  CHECK(b.ciphertexts_sent == 40 + 4 * 8);
  CHECK(b.comparisons == 16);
  CHECK(b.emails == 8);
}

TEST_CASE_TEMPLATE("misuse: parameters, blocks, emails and messages out of place are refused", Int,
                   PRIVET_PLR_TYPES) {
  const auto& k = test_keys<Int>();
  const auto& pk = k.paillier_keys.public_key;
  const auto& dk = k.comparison_keys.public_key;
  auto p = small_parameters();
  SUBCASE("parameters") {
    auto q = p;
    q.block_size = 1;
    CHECK(rejected_parameter([&] { lr::alice<Int, S, R>(pk, dk, q, 0); }) == "block_size");
    q.allow_single_email_blocks = true;
    CHECK_NOTHROW(lr::alice<Int, S, R>(pk, dk, q, 0));
    q = p;
    q.dimension = 0;
    CHECK(rejected_parameter([&] { lr::alice<Int, S, R>(pk, dk, q, 0); }) == "dimension");
    q = p;
    q.l2 = 0.25;  // 2 l2 eta = 1
    CHECK(rejected_parameter([&] { lr::alice<Int, S, R>(pk, dk, q, 0); }) == "l2");
    q = p;
    q.learning_rate = 1e-4;  // round(C_R eta / 4) = 0
    CHECK(rejected_parameter([&] { lr::alice<Int, S, R>(pk, dk, q, 0); }) == "learning_rate");
    q = p;
    q.max_active = 41;
    CHECK(rejected_parameter([&] { lr::alice<Int, S, R>(pk, dk, q, 0); }) == "max_active");
    q = p;
    q.max_weight = 1e6;  // comparisons wider than the DGK key's u allows
    CHECK(rejected_parameter([&] { lr::alice<Int, S, R>(pk, dk, q, 0); }) == "comparison_key");
  }
  lr::bob<Int, S, R> bob(k.paillier_keys.private_key, k.comparison_keys.private_key, p);
  lr::alice<Int, S, R> alice(pk, dk, p, 4);
  privet::testing::seeded_release_generator gen(16);
  const auto emails = make_emails(16, 11);
  const auto w = bob.publish(gen);
  SUBCASE("blocks and emails") {
    CHECK_THROWS_WITH_AS((void)alice.margins(w, slice(emails, 0, 5), gen),
                         "privet: block.size() = 5 is invalid; allowed: [block_size = 6, "
                         "max_update_emails = 64]",
                         privet::invalid_parameter);
    auto bad = slice(emails, 0, 8);
    bad.features[3] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK_THROWS_WITH_AS((void)alice.margins(w, bad, gen),
                         "privet: email 3 has 9 active features; allowed: at most max_active = 8",
                         privet::invalid_parameter);
    bad = slice(emails, 0, 8);
    bad.features[2] = {4, 40};
    CHECK(rejected_parameter([&] { (void)alice.margins(w, bad, gen); }) == "email");
    bad = slice(emails, 0, 8);
    bad.y[0] = 2;
    CHECK(rejected_parameter([&] { (void)alice.margins(w, bad, gen); }) == "label");
    // Alice is left usable.
    auto server = bob.serve(alice.user());
    const auto m = alice.margins(w, slice(emails, 0, 8), gen);
    CHECK_NOTHROW((void)server.bits(m, gen));
  }
  SUBCASE("replayed, out-of-order and stale messages") {
    auto server = bob.serve(alice.user());
    const auto block = slice(emails, 0, 8);
    const auto m = alice.margins(w, block, gen);
    CHECK_THROWS_AS((void)alice.margins(w, block, gen), privet::protocol_error);
    lr::tests_message<Int> early{m.iteration, m.user, {}, {}};
    CHECK_THROWS_WITH_AS((void)server.products(early, gen),
                         "privet: private logistic regression Bob: received tests before margins "
                         "(out of order)",
                         privet::protocol_error);
    auto wrong_user = m;
    wrong_user.user = 5;
    CHECK_THROWS_AS((void)server.bits(wrong_user, gen), privet::protocol_error);
    const auto bits = server.bits(m, gen);
    CHECK_THROWS_WITH_AS((void)server.bits(m, gen),
                         "privet: private logistic regression Bob: received margins twice for "
                         "one block (replayed)",
                         privet::protocol_error);
    const auto tests = alice.tests(bits, gen);
    CHECK_THROWS_AS((void)alice.tests(bits, gen), privet::protocol_error);
    const auto products = server.products(tests, gen);
    const auto g = alice.gradient(products, gen);
    CHECK_THROWS_WITH_AS(bob.serve(alice.user()),
                         "privet: user 4 already has a block in iteration 0; allowed: one block "
                         "per user per iteration",
                         privet::invalid_parameter);
    bob.receive(g);
    CHECK_THROWS_WITH_AS(bob.receive(g),
                         "privet: private logistic regression Bob: a second gradient from user 4 "
                         "in iteration 0 (replayed)",
                         privet::protocol_error);
    bob.update();
    CHECK_THROWS_AS(bob.receive(g), privet::protocol_error);  // stale
    CHECK_THROWS_WITH_AS(bob.update(),
                         "privet: no gradient arrived in iteration 1; allowed: at least one",
                         privet::invalid_parameter);
  }
  SUBCASE("a block below K cannot reach Bob, even forged") {
    auto server = bob.serve(alice.user());
    auto m = alice.margins(w, slice(emails, 0, 6), gen);
    m.masked.pop_back();
    m.shares.resize(10);
    CHECK_THROWS_WITH_AS((void)server.bits(m, gen),
                         "privet: private logistic regression Bob: a block of 5 emails; allowed: "
                         "at least block_size = 6",
                         privet::protocol_error);
  }
}

TEST_CASE_TEMPLATE("a weight past max_weight is an overflow_error and leaves w unchanged", Int,
                   PRIVET_PLR_TYPES) {
  const auto& k = test_keys<Int>();
  auto p = small_parameters();
  p.max_weight = 0.5;
  p.l2 = 0;
  lr::bob<Int, S, R> bob(k.paillier_keys.private_key, k.comparison_keys.private_key, p);
  lr::alice<Int, S, R> alice(k.paillier_keys.public_key, k.comparison_keys.public_key, p, 0);
  privet::testing::seeded_release_generator gen(17);
  auto block = make_emails(8, 12);
  for (auto& x : block.features) x = {3, 5};  // every email votes on features 3 and 5
  for (auto& y : block.y) y = 1;
  (void)run_block(bob, alice, bob.publish(gen), block, gen);
  const auto before = bob.mantissas();
  CHECK_THROWS_WITH_AS(bob.update(),
                       doctest::Contains("; allowed: |w_j| <= max_weight = 0.5 (raise max_weight, "
                                         "lower the learning rate or add L2)"),
                       privet::overflow_error);
  CHECK(bob.mantissas() == before);
  lr::reference_model<Int, S, R> ref(p);
  CHECK_THROWS_WITH_AS(ref.train_block(block),
                       doctest::Contains("allowed: |w_j| <= max_weight = 0.5"),
                       privet::overflow_error);
}

// The error-path audit's rows for this header (docs/error_audit.md,
// algorithms: private_logistic_regression.hpp): every refusal, by its full
// message, and each party left usable or clearly aborted.
TEST_CASE_TEMPLATE("every refusal of the spam filter's parties is named by its full message", Int,
                   PRIVET_PLR_TYPES) {
  using privet::invalid_parameter;
  using privet::protocol_error;
  const auto& k = test_keys<Int>();
  const auto& pk = k.paillier_keys.public_key;
  const auto& dk = k.comparison_keys.public_key;
  const auto p = small_parameters();
  const std::string bob_says = "privet: private logistic regression Bob: ";
  const std::string alice_says = "privet: private logistic regression Alice: ";
  const std::string carol_says = "privet: private logistic regression Carol: ";

  // Parameters (the plan every party makes; no keys needed).
  const auto refused = [&](auto set, const std::string& message) {
    auto q = p;
    set(q);
    CHECK_THROWS_WITH_AS((void)(lr::comparison_bits<Int, S, R>(q)), message.c_str(),
                         invalid_parameter);
  };
  const std::string single =
      " is invalid; allowed: >= 2 (a block of one email shows Bob that email's features; set "
      "allow_single_email_blocks to accept that)";
  refused([](auto& q) { q.dimension = 0; }, "privet: dimension = 0 is invalid; allowed: >= 1");
  refused([](auto& q) { q.block_size = 1; }, "privet: block_size = 1" + single);
  refused(
      [](auto& q) {
        q.block_size = 0;
        q.allow_single_email_blocks = true;
      },
      "privet: block_size = 0 is invalid; allowed: >= 1");
  refused([](auto& q) { q.max_update_emails = 5; },
          "privet: max_update_emails = 5 is invalid; allowed: >= block_size = 6");
  refused([](auto& q) { q.learning_rate = 2e6; },
          "privet: learning_rate = 2e+06 is invalid; allowed: (0, 1e6]");
  refused([](auto& q) { q.learning_rate = std::nan(""); },
          "privet: learning_rate = nan is invalid; allowed: (0, 1e6]");
  refused([](auto& q) { q.l2 = 0.25; },
          "privet: l2 = 0.25 is invalid; allowed: >= 0 with 2 l2 learning_rate < 1");
  refused([](auto& q) { q.l2 = -1; },
          "privet: l2 = -1 is invalid; allowed: >= 0 with 2 l2 learning_rate < 1");
  refused([](auto& q) { q.max_weight = 0; },
          "privet: max_weight = 0 is invalid; allowed: (0, 1e9]");
  refused([](auto& q) { q.max_active = 41; },
          "privet: max_active = 41 is invalid; allowed: [0, dimension = 40] (0: dimension)");
  refused([](auto& q) { q.statistical_security = 39; },
          "privet: statistical_security = 39 is invalid; allowed: [40, 1024]");
  refused([](auto& q) { q.threads = paillier::batch_options{5000}; },
          "privet: threads = 5000 is invalid; allowed: [0, 4096] (0: every core TBB may use, 1: "
          "the calling thread only)");
  refused([](auto& q) { q.max_weight = 0.001; },
          "privet: max_weight = 0.001 is invalid; allowed: >= 1 / C");
  refused([](auto& q) { q.learning_rate = 1e-4; },
          "privet: learning_rate = 1e-04 is invalid; allowed: >= 2 / C_R (round(C_R "
          "learning_rate / 4) must be at least 1)");
  {
    auto q = p;
    q.max_weight = 1e6;  // C = 2^50: C max_weight passes 2^62
    CHECK_THROWS_WITH_AS((void)(lr::comparison_bits<Int, paillier::binary_scale<50>, R>(q)),
                         "privet: max_weight = 1e+06 is invalid; allowed: C max_weight below "
                         "2^62 (a smaller scale S or max_weight)",
                         invalid_parameter);
    // C_R learning_rate past 2^62 names the learning rate (it named
    // max_weight = 16 before the audit).
    q = p;
    q.learning_rate = 1e6;
    q.l2 = 0;
    CHECK_THROWS_WITH_AS((void)(lr::comparison_bits<Int, S, paillier::binary_scale<50>>(q)),
                         "privet: learning_rate = 1e+06 is invalid; allowed: C_R learning_rate "
                         "below 2^62 (a smaller scale R or learning_rate)",
                         invalid_parameter);
  }

  // Keys too small for the parameters: Carol names the key as Alice and Bob
  // do (she named the comparison's `bits` or `modulus` before the audit).
  {
    auto q = p;
    q.max_weight = 1e6;
    const std::string l = std::to_string(lr::comparison_bits<Int, S, R>(q));
    const std::string message =
        "privet: the DGK key's plaintext prime u = " + std::to_string(dk.plaintext_modulus()) +
        " is too small for " + l +
        "-bit comparisons; allowed: u >= l + 2 (a key from "
        "dgk::key_parameters::for_comparison(" +
        l + "))";
    CHECK_THROWS_WITH_AS((lr::alice<Int, S, R>(pk, dk, q, 0)), message.c_str(), invalid_parameter);
    CHECK_THROWS_WITH_AS((lr::carol<Int, S, R>(pk, dk, q)), message.c_str(), invalid_parameter);
    CHECK_THROWS_WITH_AS(
        (lr::bob<Int, S, R>(k.paillier_keys.private_key, k.comparison_keys.private_key, q)),
        message.c_str(), invalid_parameter);
    q = p;
    q.statistical_security = 240;
    const std::string small = "privet: a " + std::to_string(pk.bits()) +
                              "-bit Paillier modulus is too small for " +
                              std::to_string(lr::comparison_bits<Int, S, R>(q)) +
                              "-bit comparisons at kappa = 240; allowed: n >= 2^(l + kappa + 2)";
    CHECK_THROWS_WITH_AS((lr::alice<Int, S, R>(pk, dk, q, 0)), small.c_str(), invalid_parameter);
    CHECK_THROWS_WITH_AS((lr::carol<Int, S, R>(pk, dk, q)), small.c_str(), invalid_parameter);
  }

  lr::bob<Int, S, R> bob(k.paillier_keys.private_key, k.comparison_keys.private_key, p);
  lr::alice<Int, S, R> alice(pk, dk, p, 4);
  privet::testing::seeded_release_generator gen(40);
  const auto other = privet::test::small_keys<Int>(256, 8);
  const auto foreign = [&] { return other.public_key.encrypt(Int(1), gen); };
  const auto emails = make_emails(80, 13);
  const auto block = slice(emails, 0, 8);
  const auto w = bob.publish(gen);

  // Emails, blocks and weights (Alice refuses before anything changes).
  auto bad = block;
  bad.features[2] = {4, 40};
  CHECK_THROWS_WITH_AS((void)alice.margins(w, bad, gen),
                       "privet: email 2 has feature 40; allowed: [0, 40)", invalid_parameter);
  bad = block;
  bad.features[2] = {4, 4};
  CHECK_THROWS_WITH_AS((void)alice.margins(w, bad, gen),
                       "privet: email 2 lists feature 4 twice; allowed: each feature once",
                       invalid_parameter);
  bad = block;
  bad.y[0] = 2;
  CHECK_THROWS_WITH_AS((void)alice.margins(w, bad, gen),
                       "privet: label = 2 is invalid; allowed: 1 (spam), or -1 or 0 (ham)",
                       invalid_parameter);
  bad = block;
  bad.features.pop_back();
  CHECK_THROWS_WITH_AS((void)alice.margins(w, bad, gen),
                       "privet: block.features.size() = 7 is invalid; allowed: 8 (one per label)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)alice.margins(w, slice(emails, 0, 65), gen),
                       "privet: block.size() = 65 is invalid; allowed: [block_size = 6, "
                       "max_update_emails = 64]",
                       invalid_parameter);
  auto w_short = w;
  w_short.weights.pop_back();
  CHECK_THROWS_WITH_AS((void)alice.margins(w_short, block, gen),
                       (alice_says + "received 39 encrypted weights; expected d = 40").c_str(),
                       protocol_error);
  auto w_key = w;
  w_key.weights[0] = foreign();
  CHECK_THROWS_WITH_AS((void)alice.margins(w_key, block, gen),
                       (alice_says + "encrypted weight 0 is under another key").c_str(),
                       protocol_error);
  lr::reference_model<Int, S, R> ref(p);
  CHECK_THROWS_WITH_AS((void)ref.score({40}), "privet: email 0 has feature 40; allowed: [0, 40)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(ref.apply(std::vector<Int>(3)),
                       "privet: gradient.size() = 3 is invalid; allowed: 40 (d)",
                       invalid_parameter);

  // One block, every message refused out of place, each party left usable.
  CHECK_THROWS_WITH_AS((void)alice.tests(lr::bits_message<Int>{}, gen),
                       (alice_says + "received bits before sending margins").c_str(),
                       protocol_error);
  CHECK_THROWS_WITH_AS((void)alice.gradient(lr::products_message<Int>{}, gen),
                       (alice_says + "received products out of order or twice").c_str(),
                       protocol_error);
  auto server = bob.serve(alice.user());
  const auto m = alice.margins(w, block, gen);
  CHECK_THROWS_WITH_AS((void)alice.margins(w, block, gen),
                       (alice_says + "asked for margins while a block is under way").c_str(),
                       protocol_error);
  auto m_bad = m;
  m_bad.iteration = 7;
  CHECK_THROWS_WITH_AS(
      (void)server.bits(m_bad, gen),
      (bob_says + "the margins belong to iteration 7, not 0 (stale or replayed)").c_str(),
      protocol_error);
  m_bad = m;
  m_bad.user = 5;
  CHECK_THROWS_WITH_AS((void)server.bits(m_bad, gen),
                       (bob_says + "the margins come from user 5, not 4").c_str(), protocol_error);
  m_bad = m;
  m_bad.shares.pop_back();
  CHECK_THROWS_WITH_AS(
      (void)server.bits(m_bad, gen),
      (bob_says + "the margins carry 15 masked shares for 8 emails; expected two per email")
          .c_str(),
      protocol_error);
  m_bad = m;
  m_bad.masked[0] = foreign();
  CHECK_THROWS_WITH_AS((void)server.bits(m_bad, gen),
                       (bob_says + "masked margin 0 is under another key").c_str(), protocol_error);
  const auto bits = server.bits(m, gen);
  auto b_bad = bits;
  b_bad.user = 5;
  CHECK_THROWS_WITH_AS(
      (void)alice.tests(b_bad, gen),
      (alice_says + "the bits belong to iteration 0 and user 5, not 0 and 4").c_str(),
      protocol_error);
  b_bad = bits;
  b_bad.bits.pop_back();
  CHECK_THROWS_WITH_AS((void)alice.tests(b_bad, gen),
                       (alice_says + "received 15 encrypted-bit messages; expected 16").c_str(),
                       protocol_error);
  const auto tests = alice.tests(bits, gen);
  CHECK_THROWS_WITH_AS((void)alice.tests(bits, gen),
                       (alice_says + "received bits twice (replayed)").c_str(), protocol_error);
  auto t_bad = tests;
  t_bad.tests.pop_back();
  CHECK_THROWS_WITH_AS(
      (void)server.products(t_bad, gen),
      (bob_says + "the tests message holds 15 tests and 16 masked products; expected 16 each")
          .c_str(),
      protocol_error);
  t_bad = tests;
  t_bad.masked_products[0] = foreign();
  CHECK_THROWS_WITH_AS((void)server.products(t_bad, gen),
                       (bob_says + "masked product 0 is under another key").c_str(),
                       protocol_error);
  const auto products = server.products(tests, gen);
  CHECK_THROWS_WITH_AS((void)server.products(tests, gen),
                       (bob_says + "received tests twice for one block (replayed)").c_str(),
                       protocol_error);
  auto p_bad = products;
  p_bad.iteration = 7;
  CHECK_THROWS_WITH_AS(
      (void)alice.gradient(p_bad, gen),
      (alice_says + "the products belong to iteration 7 and user 4, not 0 and 4").c_str(),
      protocol_error);
  p_bad = products;
  p_bad.bit_shares.pop_back();
  CHECK_THROWS_WITH_AS(
      (void)alice.gradient(p_bad, gen),
      (alice_says + "received 15 bit shares and 16 products; expected 16 each").c_str(),
      protocol_error);
  p_bad = products;
  p_bad.products[0] = foreign();
  CHECK_THROWS_WITH_AS((void)alice.gradient(p_bad, gen),
                       (alice_says + "product 0 is under another key").c_str(), protocol_error);
  const auto g = alice.gradient(products, gen);
  CHECK_THROWS_WITH_AS((void)alice.gradient(products, gen),
                       (alice_says + "received products out of order or twice").c_str(),
                       protocol_error);
  auto g_bad = g;
  g_bad.iteration = 3;
  CHECK_THROWS_WITH_AS(bob.receive(g_bad),
                       (bob_says + "a gradient of iteration 3, not 0 (stale or replayed)").c_str(),
                       protocol_error);
  g_bad = g;
  g_bad.user = 9;
  CHECK_THROWS_WITH_AS(bob.receive(g_bad),
                       (bob_says + "a gradient from user 9, who has no block").c_str(),
                       protocol_error);
  g_bad = g;
  g_bad.emails = 5;
  CHECK_THROWS_WITH_AS(
      bob.receive(g_bad),
      (bob_says + "a gradient over 5 emails; allowed: at least block_size = 6").c_str(),
      protocol_error);
  g_bad = g;
  g_bad.emails = 65;
  CHECK_THROWS_WITH_AS(
      bob.receive(g_bad),
      (bob_says + "the iteration's gradients would cover more than max_update_emails = 64 "
                  "emails")
          .c_str(),
      protocol_error);
  g_bad = g;
  g_bad.packed.pop_back();
  CHECK_THROWS_WITH_AS(bob.receive(g_bad),
                       (bob_says + "a packed gradient of " + std::to_string(g.packed.size() - 1) +
                        " ciphertexts; expected " + std::to_string(g.packed.size()))
                           .c_str(),
                       protocol_error);
  g_bad = g;
  g_bad.packed[0] = foreign();
  CHECK_THROWS_WITH_AS(bob.receive(g_bad),
                       (bob_says + "packed gradient ciphertext 0 is under another key").c_str(),
                       protocol_error);
  bob.receive(g);
  bob.update();

  // Carol and Bob's evaluator (iteration 1).
  const auto w1 = bob.publish(gen);
  {
    lr::carol<Int, S, R> carol(pk, dk, p);
    auto w_bad = w1;
    w_bad.weights.pop_back();
    CHECK_THROWS_WITH_AS((void)carol.query(w_bad, {1, 2}, gen),
                         (carol_says + "received 39 encrypted weights; expected d = 40").c_str(),
                         protocol_error);
    CHECK_THROWS_WITH_AS((void)carol.query(w1, {1, 40}, gen),
                         "privet: email 0 has feature 40; allowed: [0, 40)", invalid_parameter);
    const auto q = carol.query(w1, {1, 2, 3}, gen);
    CHECK_THROWS_WITH_AS((void)carol.query(w1, {1, 2, 3}, gen),
                         (carol_says + "asked twice (one query per object)").c_str(),
                         protocol_error);
    auto ev = bob.evaluate(0);
    auto q_bad = q;
    q_bad.iteration = 0;
    CHECK_THROWS_WITH_AS((void)ev.bits(q_bad, gen),
                         (bob_says + "a query against iteration 0's weights, not 1").c_str(),
                         protocol_error);
    q_bad = q;
    q_bad.masked = foreign();
    CHECK_THROWS_WITH_AS((void)ev.bits(q_bad, gen),
                         (bob_says + "the query is under another key").c_str(), protocol_error);
    // A refused masked share aborts the evaluation (Bob has decrypted the
    // query), and a retry says so rather than calling itself a replay
    // (finding 37).
    q_bad = q;
    q_bad.share.session = 99;
    CHECK_THROWS_WITH_AS(
        (void)ev.bits(q_bad, gen),
        (bob_says + "privet: secure comparison server: the masked share belongs to "
                    "session 99, not 0 (the query is aborted)")
            .c_str(),
        protocol_error);
    CHECK_THROWS_WITH_AS(
        (void)ev.bits(q, gen),
        (bob_says + "the query was aborted by the earlier refusal of its masked share; "
                    "Carol may query again through a new evaluator")
            .c_str(),
        protocol_error);
    auto ev2 = bob.evaluate(0);
    const auto eb = ev2.bits(q, gen);
    CHECK_THROWS_WITH_AS((void)ev2.bits(q, gen),
                         (bob_says + "received a second query (replayed)").c_str(), protocol_error);
    CHECK_NOTHROW((void)carol.result(ev2.respond(carol.tests(eb, gen))));
  }

  // A block whose comparisons fail part-way after some of them moved on is
  // aborted, and says so (before the audit a retry failed inside those
  // comparisons, and Alice could never start another block).
  {
    lr::alice<Int, S, R> a6(pk, dk, p, 6);
    auto s6 = bob.serve(6);
    const auto m6 = a6.margins(w1, block, gen);
    auto m6_bad = m6;
    m6_bad.shares[3].session = 99;  // email 1, comparison 1: session 3
    CHECK_THROWS_WITH_AS(
        (void)s6.bits(m6_bad, gen),
        (bob_says + "email 1: privet: secure comparison server: the masked share belongs "
                    "to session 99, not 3")
            .c_str(),
        protocol_error);
    // Bob makes the block's comparison servers afresh: the genuine margins
    // still go through.
    CHECK_NOTHROW((void)s6.bits(m6, gen));
  }
  {
    lr::alice<Int, S, R> a7(pk, dk, p, 7);
    auto s7 = bob.serve(7);
    const auto b7 = s7.bits(a7.margins(w1, block, gen), gen);
    auto b7_bad = b7;
    b7_bad.bits[1].session = 99;
    CHECK_THROWS_WITH_AS(
        (void)a7.tests(b7_bad, gen),
        (alice_says + "comparison 1: privet: secure comparison client: the encrypted bits "
                      "belong to session 99, not 1 (the block is aborted)")
            .c_str(),
        protocol_error);
    CHECK_THROWS_WITH_AS(
        (void)a7.tests(b7, gen),
        (alice_says + "the block was aborted by an earlier error; start a new one with margins()")
            .c_str(),
        protocol_error);
    CHECK_NOTHROW((void)a7.margins(w1, block, gen));  // Alice may start again
  }
  {
    lr::alice<Int, S, R> a8(pk, dk, p, 8);
    auto s8 = bob.serve(8);
    const auto t8 = a8.tests(s8.bits(a8.margins(w1, block, gen), gen), gen);
    auto t8_bad = t8;
    const std::size_t l = lr::comparison_bits<Int, S, R>(p);
    t8_bad.masked_products[0] = pk.encrypt(Int(Int(1) << static_cast<unsigned>(l + 2 + 40)), gen);
    CHECK_THROWS_WITH_AS(
        (void)s8.products(t8_bad, gen),
        (bob_says + "masked product 0 is outside [0, 2^(l + 2 + kappa)): not a masked t "
                    "(the block is aborted)")
            .c_str(),
        protocol_error);
    CHECK_THROWS_WITH_AS(
        (void)s8.products(t8, gen),
        (bob_says + "the block of user 8 was aborted by an earlier error; its user may "
                    "send a block again in the next iteration")
            .c_str(),
        protocol_error);
  }
}
