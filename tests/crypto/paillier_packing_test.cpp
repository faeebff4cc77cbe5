// Tests of packed Paillier plaintexts (privet/crypto/paillier_packing.hpp)
// over every backend: the slot layout against its definition, pack/unpack
// round trips (negatives through the offset, sizes that leave the last
// plaintext partly empty), slot isolation at the layout's stated number of
// additions and scalar bound with extreme values in neighbouring slots,
// negative and fixed-point scalars, the exact boundary where the next
// operation could carry into a neighbour slot (one less passes, it throws),
// and every rejection.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/paillier_packing.hpp>

#include <doctest/doctest.h>
#include <support/errors.hpp>
#include <support/paillier_backends.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace paillier = privet::paillier;
using privet::test::rejected_parameter;
using privet::test::small_keys;

namespace {

using S = paillier::hex_scale<2>;  // C = 256
template <class Int>
using fp = paillier::fixed_point<Int, S>;
template <class Int>
using values_t = std::vector<fp<Int>>;
template <class Int>
using view_t = std::span<const fp<Int>>;

template <class Int>
values_t<Int> random_values(privet::testing::seeded_release_generator& gen, std::size_t count,
                            const Int& bound) {
  values_t<Int> out;
  for (std::size_t i = 0; i < count; ++i) {
    const Int m = privet::uniform_below(gen, Int(2 * bound + 1));
    out.push_back(fp<Int>::from_mantissa(Int(m - bound)));
  }
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("the layout: w = bits(2 B T K), (bits(n) - 1) / w slots", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  const auto keys = small_keys<Int>(256, 101);
  const auto& pk = keys.public_key;
  // B = 10 * 256 = 2560, T = 5, K = 3: 2 B T K = 76800 < 2^17.
  const paillier::packing<Int, S> layout(pk, fp<Int>::encode(10.0), 5, 3);
  CHECK(layout.slot_bits() == 17);
  CHECK(layout.slots() == 255 / 17);
  CHECK(layout.value_bound() == fp<Int>::encode(10.0));
  CHECK(layout.key() == pk);
  // A power of two: 2 B T K = 2^16 needs 17 bits (2^16 itself must fit).
  const paillier::packing<Int, S> pow2(pk, fp<Int>::from_mantissa(Int(1024)), 8, 4);
  CHECK(pow2.slot_bits() == 17);
  const paillier::packing<Int, S> one(pk, fp<Int>::from_mantissa(Int(1)), 1);
  CHECK(one.slot_bits() == 2);
  CHECK(one.slots() == 127);
}

TEST_CASE_TEMPLATE("pack and unpack round trips", Int, PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(102);
  const auto keys = small_keys<Int>(256, 102);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const paillier::packing<Int, S> layout(pk, fp<Int>::encode(10.0), 5, 3);
  const Int bound = layout.value_bound().mantissa();
  for (std::size_t count : {0u, 1u, 14u, 15u, 16u, 47u}) {
    CAPTURE(count);
    auto values = random_values<Int>(gen, count, bound);
    if (count > 2) {
      values[0] = fp<Int>::from_mantissa(bound);  // the extremes
      values[1] = fp<Int>::from_mantissa(Int(-bound));
    }
    const auto packed = layout.pack(view_t<Int>(values), gen);
    CHECK(packed.size() == count);
    CHECK(packed.ciphertexts().size() == (count + 14) / 15);
    CHECK(packed.offset() == bound);
    CHECK(packed.content_bound() == 2 * bound);
    CHECK(paillier::unpack(sk, packed) == values);
  }
}

TEST_CASE_TEMPLATE("slots stay isolated at the stated additions and scalar bound", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(103);
  const auto keys = small_keys<Int>(256, 103);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const std::size_t terms = 5;
  const int max_scalar = 3;
  const paillier::packing<Int, S> layout(pk, fp<Int>::encode(10.0), terms, max_scalar);
  const Int bound = layout.value_bound().mantissa();
  // Alternating +B and -B: every slot at its extreme next to a neighbour at
  // the other extreme, the case where a carry or borrow would show.
  const std::size_t count = 20;
  values_t<Int> alternating;
  for (std::size_t i = 0; i < count; ++i) {
    alternating.push_back(fp<Int>::from_mantissa(i % 2 == 0 ? bound : Int(-bound)));
  }
  std::vector<paillier::packed_vector<Int, S>> vs;
  std::vector<values_t<Int>> plain;
  for (std::size_t t = 0; t < terms; ++t) {
    plain.push_back(t % 2 == 0 ? alternating : random_values<Int>(gen, count, bound));
    vs.push_back(layout.pack(view_t<Int>(plain.back()), gen));
  }
  values_t<Int> expected(count);
  for (const auto& p : plain) {
    for (std::size_t i = 0; i < count; ++i) expected[i] = expected[i] + p[i];
  }
  const auto total = paillier::sum(std::span<const paillier::packed_vector<Int, S>>(vs));
  CHECK(paillier::unpack(sk, total) == expected);
  for (int k : {max_scalar, -max_scalar, 2, -1, 0}) {
    CAPTURE(k);
    values_t<Int> scaled;
    for (const auto& e : expected) scaled.push_back(fp<Int>::from_mantissa(Int(e.mantissa() * k)));
    CHECK(paillier::unpack(sk, total * k) == scaled);
    CHECK(paillier::unpack(sk, k * total) == scaled);
  }
  // Subtraction and negation go through the negative-scalar map.
  values_t<Int> diff;
  for (std::size_t i = 0; i < count; ++i) diff.push_back(plain[0][i] - plain[1][i]);
  CHECK(paillier::unpack(sk, vs[0] - vs[1]) == diff);
  // A fixed-point scalar: the product scale, exactly.
  const auto half = fp<Int>::from_mantissa(Int(1));  // 1/256
  const paillier::packing<Int, S> wide(pk, fp<Int>::encode(10.0), 2, 256);
  const auto pv = wide.pack(view_t<Int>(plain[1]), gen);
  const auto prod = pv * half;
  static_assert(std::same_as<std::remove_cvref_t<decltype(prod)>,
                             paillier::packed_vector<Int, paillier::hex_scale<4>>>);
  const auto got = paillier::unpack(sk, prod);
  for (std::size_t i = 0; i < count; ++i) CHECK(got[i] == plain[1][i] * half);
}

TEST_CASE_TEMPLATE("the next operation that could carry throws; one less passes", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(104);
  const auto keys = small_keys<Int>(256, 104);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const paillier::packing<Int, S> layout(pk, fp<Int>::encode(10.0), 5, 3);
  const Int bound = layout.value_bound().mantissa();  // 2560
  const Int capacity = (Int(1) << 17) - 1;            // 131071
  // A fresh vector's slots hold up to 2B = 5120: floor(131071 / 5120) = 25
  // of them add up without a carry, more than the stated 5 (w is rounded up).
  const std::size_t most = static_cast<std::size_t>(Int(capacity / (2 * bound)));
  REQUIRE(most == 25);
  const values_t<Int> top(7, fp<Int>::from_mantissa(bound));
  const auto x = layout.pack(view_t<Int>(top), gen);
  auto acc = x;
  for (std::size_t t = 2; t <= most; ++t) acc += x;
  CHECK(acc.content_bound() == Int(most) * 2 * bound);
  CHECK(paillier::unpack(sk, acc) == values_t<Int>(7, fp<Int>::from_mantissa(Int(most) * bound)));
  const std::string message =
      "privet: addition of packed vectors could carry into the next slot: the slot content "
      "bound " +
      Int(Int(most) * 2 * bound).str() +
      " + 5120 exceeds 2^17 - 1; allowed: slot "
      "contents up to 2^17 - 1 (make the packing with larger max_terms or max_scalar)";
  CHECK_THROWS_WITH_AS((void)(acc + x), message.c_str(), privet::overflow_error);
  std::vector<paillier::packed_vector<Int, S>> copies(most + 1, x);
  CHECK_THROWS_AS((void)paillier::sum(std::span<const paillier::packed_vector<Int, S>>(copies)),
                  privet::overflow_error);
  // Scalars: 25 * 5120 fits, 26 * 5120 does not; likewise for -26.
  CHECK(paillier::unpack(sk, x * 25) == values_t<Int>(7, fp<Int>::from_mantissa(Int(25) * bound)));
  CHECK(paillier::unpack(sk, x * -25) ==
        values_t<Int>(7, fp<Int>::from_mantissa(Int(-25) * bound)));
  CHECK_THROWS_WITH_AS((void)(x * 26),
                       "privet: multiplication of packed vectors could carry into the next slot: "
                       "the slot content bound 5120 * 26 exceeds 2^17 - 1; allowed: slot "
                       "contents up to 2^17 - 1 (make the packing with larger max_terms or "
                       "max_scalar)",
                       privet::overflow_error);
  CHECK_THROWS_AS((void)(x * -26), privet::overflow_error);
  // After a product by zero, anything may be added again.
  CHECK((acc * 0).content_bound() == 0);
  CHECK(paillier::unpack(sk, acc * 0 + x) == top);
}

TEST_CASE_TEMPLATE("packing rejects bad layouts, values and mixes", Int, PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(105);
  const auto keys = small_keys<Int>(256, 105);
  const auto& pk = keys.public_key;
  const paillier::packing<Int, S> layout(pk, fp<Int>::encode(10.0), 5, 3);
  const values_t<Int> too_big = {fp<Int>::encode(1.0), fp<Int>::encode(-10.5)};
  CHECK_THROWS_WITH_AS((void)layout.pack(view_t<Int>(too_big), gen),
                       "privet: values[1] exceeds the packing's value_bound = 2560 (mantissa at "
                       "scale 16^2); allowed: |x| <= value_bound",
                       privet::overflow_error);
  CHECK(rejected_parameter([&] { paillier::packing<Int, S> p(pk, fp<Int>::encode(0.0), 5); }) ==
        "value_bound");
  CHECK(rejected_parameter([&] { paillier::packing<Int, S> p(pk, fp<Int>::encode(1.0), 0); }) ==
        "max_terms");
  CHECK(rejected_parameter([&] { paillier::packing<Int, S> p(pk, fp<Int>::encode(1.0), 1, 0); }) ==
        "max_scalar");
  // A slot wider than the 255 usable bits of a 256-bit n.
  CHECK_THROWS_WITH_AS(
      (paillier::packing<Int, S>(pk, fp<Int>::from_mantissa(Int(1) << 250), 64)),
      "privet: slot_bits = 258 is invalid; allowed: at most 255 (n - 1 bits): 2 value_bound "
      "max_terms max_scalar needs 258 bits",
      privet::invalid_parameter);

  const values_t<Int> three(3, fp<Int>::encode(1.0));
  const values_t<Int> four(4, fp<Int>::encode(1.0));
  const auto a = layout.pack(view_t<Int>(three), gen);
  CHECK_THROWS_WITH_AS((void)(a + layout.pack(view_t<Int>(four), gen)),
                       "privet: rhs.size() = 4 is invalid; allowed: size() = 3",
                       privet::invalid_parameter);
  const paillier::packing<Int, S> other_layout(pk, fp<Int>::encode(10.0), 50, 3);
  CHECK(rejected_parameter([&] { (void)(a + other_layout.pack(view_t<Int>(three), gen)); }) ==
        "rhs");
  const auto other = small_keys<Int>(256, 106);
  const paillier::packing<Int, S> other_key(other.public_key, fp<Int>::encode(10.0), 5, 3);
  CHECK_THROWS_WITH_AS((void)(a + other_key.pack(view_t<Int>(three), gen)),
                       "privet: rhs is a ciphertext under a different public key; allowed: "
                       "ciphertexts under the same key (the same n)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)paillier::unpack(other.private_key, a); }) == "ciphertext");
  CHECK(rejected_parameter([] {
          (void)paillier::sum(std::span<const paillier::packed_vector<Int, S>>());
        }) == "packed vectors");
}

// ---- packing ciphertexts ------------------------------------------------------

TEST_CASE_TEMPLATE("ciphertext packing: Horner on ciphertexts, sums of terms, every slot exact",
                   Int, PRIVET_PAILLIER_BACKENDS) {
  const auto keys = small_keys<Int>(256, 91);
  const auto& pk = keys.public_key;
  privet::testing::seeded_release_generator gen(92);
  const Int bound(1000);
  const paillier::ciphertext_packing<Int> layout(pk, bound, 4);
  // w = bits(2 * 1000 * 4) = 13; (256 - 1) / 13 = 19 slots.
  CHECK(layout.slot_bits() == 13);
  CHECK(layout.slots() == 19);
  CHECK(layout.packed_count(19) == 1);
  CHECK(layout.packed_count(20) == 2);
  // 45 values: two full plaintexts and a partial one; the extremes included.
  std::vector<Int> xs;
  for (int i = 0; i < 45; ++i) {
    xs.push_back(i == 0 ? -bound : i == 1 ? bound : Int(privet::uniform_below(gen, 2001)) - 1000);
  }
  std::vector<paillier::ciphertext<Int>> cs;
  for (const Int& x : xs) cs.push_back(pk.encrypt_signed(x, gen));
  const auto packed = paillier::pack(layout, cs);
  REQUIRE(packed.size() == 3);
  CHECK(paillier::unpack_signed(keys.private_key, layout, packed, 45) == xs);
  // A value twice as large packs as two terms; sums of packed vectors add
  // their terms, up to max_terms.
  std::vector<Int> doubled;
  std::vector<paillier::ciphertext<Int>> cs2;
  for (const Int& x : xs) {
    doubled.push_back(2 * x);
    cs2.push_back(pk.encrypt_signed(Int(2 * x), gen));
  }
  const auto packed2 = paillier::pack(layout, cs2, 2);
  auto sum = packed;
  for (std::size_t c = 0; c < sum.size(); ++c) sum[c] += packed2[c];
  std::vector<Int> expected;
  for (std::size_t i = 0; i < xs.size(); ++i) expected.push_back(xs[i] + doubled[i]);
  CHECK(paillier::unpack_signed(keys.private_key, layout, sum, 45, 3) == expected);
  // Threads do not change the result.
  CHECK(paillier::pack(layout, cs, 1, paillier::batch_options{1}) ==
        paillier::pack(layout, cs, 1, paillier::batch_options{2}));
}

TEST_CASE_TEMPLATE("ciphertext packing: bad layouts, term counts and lying ciphertexts", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  const auto keys = small_keys<Int>(256, 93);
  const auto& pk = keys.public_key;
  privet::testing::seeded_release_generator gen(94);
  CHECK(rejected_parameter([&] { paillier::ciphertext_packing<Int>(pk, Int(0)); }) == "bound");
  CHECK(rejected_parameter([&] { paillier::ciphertext_packing<Int>(pk, Int(5), 0); }) ==
        "max_terms");
  // Slots wider than the 255 usable bits.
  CHECK(rejected_parameter([&] { paillier::ciphertext_packing<Int>(pk, Int(1) << 254, 2); }) ==
        "bound");
  const paillier::ciphertext_packing<Int> layout(pk, Int(100), 2);
  std::vector<paillier::ciphertext<Int>> none;
  CHECK(rejected_parameter([&] { (void)paillier::pack(layout, none); }) == "ciphertexts");
  std::vector<paillier::ciphertext<Int>> cs{pk.encrypt_signed(Int(5), gen)};
  CHECK(rejected_parameter([&] { (void)paillier::pack(layout, cs, 3); }) == "terms");
  const auto other = small_keys<Int>(256, 95);
  std::vector<paillier::ciphertext<Int>> foreign{other.public_key.encrypt(Int(1), gen)};
  CHECK(rejected_parameter([&] { (void)paillier::pack(layout, foreign); }) == "ciphertexts");
  const auto packed = paillier::pack(layout, cs);
  CHECK(rejected_parameter([&] {
          (void)paillier::unpack_signed(keys.private_key, layout, packed, 1, 3);
        }) == "terms");
  CHECK(rejected_parameter([&] {
          (void)paillier::unpack_signed(keys.private_key, layout, packed, 40);
        }) == "packed.size()");
  // A value outside the promised bound shows as a slot above 2 B T.
  std::vector<paillier::ciphertext<Int>> liar{pk.encrypt_signed(Int(150), gen)};
  const auto bad = paillier::pack(layout, liar);
  CHECK_THROWS_WITH_AS((void)paillier::unpack_signed(keys.private_key, layout, bad, 1),
                       "privet: slot 0 of a packed vector holds more than 2 bound terms = 200; "
                       "allowed: contents within the layout's bound",
                       privet::protocol_error);
  // Bits above the used slots: a ciphertext that is no packed vector.
  std::vector<paillier::ciphertext<Int>> junk{pk.encrypt(Int(1) << 200, gen)};
  CHECK_THROWS_AS((void)paillier::unpack_signed(keys.private_key, layout, junk, 1),
                  privet::protocol_error);
}

TEST_CASE_TEMPLATE("unpack refuses plaintext bits beyond the vector's values", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  // Before: unpack read only the vector's slots and dropped the rest of the
  // plaintext, so a tampered ciphertext decrypted as if whole. No operation
  // makes such a ciphertext (each checks its slot bound), so the test
  // overwrites one in place, as a corrupted or forged one would arrive.
  privet::testing::seeded_release_generator gen(109);
  const auto keys = small_keys<Int>(256, 105);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  // 2 * 2560 * 5 * 3 = 76800: 17-bit slots, 15 per plaintext; 3 values
  // leave 12 padding slots at the offset 2560 (the value 0).
  const paillier::packing<Int, S> layout(pk, fp<Int>::encode(10.0), 5, 3);
  const values_t<Int> three(3, fp<Int>::encode(1.0));
  const Int honest = sk.decrypt(layout.pack(view_t<Int>(three), gen).ciphertexts()[0]);
  const auto tampered = [&](const Int& plaintext) {
    auto v = layout.pack(view_t<Int>(three), gen);
    REQUIRE(plaintext < pk.n());
    // v is not const: writing through the span's const is defined.
    const_cast<paillier::ciphertext<Int>&>(v.ciphertexts()[0]) = pk.encrypt(plaintext, gen);
    return v;
  };
  const char* beyond =
      "privet: packed ciphertext 0 has plaintext bits beyond the vector's 3 values; allowed: "
      "padding slots that hold 0 and nothing above the last slot";
  // A bit above the 15 slots (bit 255 < bits(n) = 256).
  CHECK_THROWS_WITH_AS((void)paillier::unpack(sk, tampered(Int(honest + (Int(1) << 255)))), beyond,
                       privet::protocol_error);
  // Padding slot 5 holding 1 more than 0's content.
  CHECK_THROWS_WITH_AS((void)paillier::unpack(sk, tampered(Int(honest + (Int(1) << 85)))), beyond,
                       privet::protocol_error);
  // A value slot above the content bound 5120 (slot 1 at 2^17 - 1).
  const Int slot1 = (honest >> 17) & Int(0x1ffff);
  CHECK_THROWS_WITH_AS(
      (void)paillier::unpack(sk, tampered(Int(honest + ((Int(0x1ffff) - slot1) << 17)))),
      "privet: a decrypted slot exceeds its packed vector's content bound = 5120; allowed: slots "
      "within the bound the vector was sent with",
      privet::protocol_error);
  // The honest plaintext, and padding after every operation, still unpack.
  CHECK(paillier::unpack(sk, tampered(honest)) == three);
  const auto x = layout.pack(view_t<Int>(three), gen);
  CHECK(paillier::unpack(sk, x + x * -2) == values_t<Int>(3, fp<Int>::encode(-1.0)));
  CHECK(paillier::unpack(sk, x * 0) == values_t<Int>(3, fp<Int>::encode(0.0)));
}

TEST_CASE_TEMPLATE("every packing refusal's full message (docs/error_audit.md)", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  // The rows of the audit that the tests above check by name or type only.
  privet::testing::seeded_release_generator gen(107);
  const auto keys = small_keys<Int>(256, 105);
  const auto& pk = keys.public_key;
  using packing = paillier::packing<Int, S>;
  using packed = paillier::packed_vector<Int, S>;
  CHECK_THROWS_WITH_AS(packing(pk, fp<Int>::encode(0.0), 5),
                       "privet: value_bound is not positive; allowed: a mantissa >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(packing(pk, fp<Int>::encode(1.0), 0),
                       "privet: max_terms = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(packing(pk, fp<Int>::encode(1.0), 1, 0),
                       "privet: max_scalar is below 1; allowed: >= 1", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(packing(pk, fp<Int>::encode(1.0), 1, -3),
                       "privet: max_scalar is below 1; allowed: >= 1", privet::invalid_parameter);
  // 2 * 2560 * 5 * 3 = 76800 needs 17 bits: 255 / 17 = 15 slots.
  const packing layout(pk, fp<Int>::encode(10.0), 5, 3);
  const packing other_layout(pk, fp<Int>::encode(10.0), 50, 3);
  const values_t<Int> three(3, fp<Int>::encode(1.0));
  const auto a = layout.pack(view_t<Int>(three), gen);
  CHECK_THROWS_WITH_AS((void)(a + other_layout.pack(view_t<Int>(three), gen)),
                       "privet: rhs = a packed vector of another layout is invalid; allowed: the "
                       "same layout (17-bit slots, 15 per plaintext)",
                       privet::invalid_parameter);
  const auto other = small_keys<Int>(256, 106);
  CHECK_THROWS_WITH_AS((void)paillier::unpack(other.private_key, a),
                       "privet: ciphertext is under a different public key; allowed: a "
                       "ciphertext under this key (the same n)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)paillier::sum(std::span<const packed>()),
                       "privet: packed vectors is empty; allowed: at least one element",
                       privet::invalid_parameter);
  // sum and a negative scalar carry the messages of + and * (2^17 - 1 holds
  // 25 fresh vectors' 5120 and 25 times 5120, not 26).
  const auto& x = a;
  const std::vector<packed> copies(26, x);
  CHECK_THROWS_WITH_AS((void)paillier::sum(std::span<const packed>(copies)),
                       "privet: addition of packed vectors could carry into the next slot: the "
                       "slot content bound 128000 + 5120 exceeds 2^17 - 1; allowed: slot contents "
                       "up to 2^17 - 1 (make the packing with larger max_terms or max_scalar)",
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)(x * -26),
                       "privet: multiplication of packed vectors could carry into the next slot: "
                       "the slot content bound 5120 * 26 exceeds 2^17 - 1; allowed: slot "
                       "contents up to 2^17 - 1 (make the packing with larger max_terms or "
                       "max_scalar)",
                       privet::overflow_error);

  // Ciphertext packing.
  using cpacking = paillier::ciphertext_packing<Int>;
  CHECK_THROWS_WITH_AS(cpacking(pk, Int(0)), "privet: bound = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(cpacking(pk, Int(-4)), "privet: bound = -4 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(cpacking(pk, Int(5), 0), "privet: max_terms = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(cpacking(pk, Int(1) << 254, 2),
                       "privet: slots for values up to bound = a 255-bit number in sums of 2 "
                       "need 257 bits; allowed: at most 255 (the bits(n) - 1 of this key)",
                       privet::invalid_parameter);
  const cpacking clayout(pk, Int(100), 2);  // bits(400) = 9: 28 slots
  std::vector<paillier::ciphertext<Int>> none;
  CHECK_THROWS_WITH_AS((void)paillier::pack(clayout, none),
                       "privet: ciphertexts is empty; allowed: at least one element",
                       privet::invalid_parameter);
  std::vector<paillier::ciphertext<Int>> cs{pk.encrypt_signed(Int(5), gen)};
  CHECK_THROWS_WITH_AS((void)paillier::pack(clayout, cs, 3),
                       "privet: terms = 3 is invalid; allowed: [1, 2]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)paillier::pack(clayout, cs, 0),
                       "privet: terms = 0 is invalid; allowed: [1, 2]", privet::invalid_parameter);
  std::vector<paillier::ciphertext<Int>> foreign{cs[0], other.public_key.encrypt(Int(1), gen)};
  CHECK_THROWS_WITH_AS((void)paillier::pack(clayout, foreign),
                       "privet: ciphertexts[1] is under another key; allowed: ciphertexts under "
                       "the packing's key",
                       privet::invalid_parameter);
  const auto packed_cs = paillier::pack(clayout, cs);
  CHECK_THROWS_WITH_AS((void)paillier::unpack_signed(keys.private_key, clayout, packed_cs, 1, 3),
                       "privet: terms = 3 is invalid; allowed: [1, 2]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)paillier::unpack_signed(keys.private_key, clayout, packed_cs, 40),
                       "privet: packed.size() = 1 is invalid; allowed: 2 for 40 values",
                       privet::invalid_parameter);
  std::vector<paillier::ciphertext<Int>> junk{pk.encrypt(Int(1) << 200, gen)};
  CHECK_THROWS_WITH_AS((void)paillier::unpack_signed(keys.private_key, clayout, junk, 1),
                       "privet: packed ciphertext 0 has plaintext bits beyond its slots; allowed: "
                       "only the layout's slots",
                       privet::protocol_error);
}
