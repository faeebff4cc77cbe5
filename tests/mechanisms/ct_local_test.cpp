// Unit tests of the padded Poisson batch's pieces (mechanisms/detail/
// ct_local.hpp): the capacity against exact binomial tails (Boost's
// regularized incomplete beta, P[Bin(n, q) >= k] = I_q(k, n - k + 1), a
// second method beside the Chernoff bound the header uses), and the padding:
// its rows, its mask, its count, and the same CSPRNG words for every batch.
#include <privet/core/testing.hpp>
#include <privet/mechanisms/detail/ct_local.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>

#include <boost/math/special_functions/beta.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using privet::detail::ct_pad_batch;
using privet::detail::ct_poisson_capacity;

// P[Bin(n, q) > rows], exactly up to Boost's relative accuracy.
double exact_tail(std::size_t n, double q, std::size_t rows) {
  if (rows >= n) return 0;
  return boost::math::ibeta(static_cast<double>(rows + 1), static_cast<double>(n - rows), q);
}

}  // namespace

TEST_CASE("the padded batch's capacity holds all but 2^-100 of the binomial, and not much more") {
  for (const std::size_t n : {std::size_t{100}, std::size_t{1000}, std::size_t{8192},
                              std::size_t{60000}, std::size_t{1000000}}) {
    for (const double q : {1e-6, 1e-4, 1e-3, 256.0 / 8192, 0.1, 0.5, 0.9}) {
      const auto cap = ct_poisson_capacity(n, q);
      const double mu = static_cast<double>(n) * q;
      CAPTURE(n);
      CAPTURE(q);
      CAPTURE(cap.rows);
      CHECK(cap.rows <= n);
      if (cap.rows == n) {
        CHECK(cap.tail == 0.0);
        continue;
      }
      CHECK(cap.tail == 0x1p-100);
      // The stated bound holds with the exact tail ...
      CHECK(exact_tail(n, q, cap.rows) <= 0x1p-100);
      // ... and the capacity is the size the header states, not a loose
      // multiple: halfway between mu and it, the tail is far above 2^-100.
      CHECK(static_cast<double>(cap.rows) <= mu + std::sqrt(140 * mu) + 70);
      const auto half = static_cast<std::size_t>(std::ceil(mu + (cap.rows - mu) / 2));
      CHECK(exact_tail(n, q, half) > 0x1p-100);
    }
  }
  // The header's figures: 463 rows for q N = 256 at N = 8192, 17 for q N = 0.1.
  CHECK(ct_poisson_capacity(8192, 256.0 / 8192).rows == 463);
  CHECK(ct_poisson_capacity(1000, 1e-4).rows == 17);
  // q = 1 and q = 0 need no padding bound.
  CHECK(ct_poisson_capacity(50, 1.0).rows == 50);
  CHECK(ct_poisson_capacity(50, 0.0).rows == 0);
}

TEST_CASE("a padded batch has the members first, fillers after, and the same words for any count") {
  const std::size_t n = 40, capacity = 12;
  std::vector<std::size_t> members(4000);  // as many slots as the largest capacity below
  for (std::size_t i = 0; i < members.size(); ++i) members[i] = 3 * i % n;
  for (std::size_t count = 0; count <= capacity + 3; ++count) {
    CAPTURE(count);
    privet::test::counting_release_generator gen(7);
    std::vector<std::size_t> rows(capacity, 999);
    std::vector<std::uint8_t> counted(capacity, 9);
    const std::size_t kept =
        ct_pad_batch(gen, members.data(), count, capacity, n, rows.data(), counted.data());
    CHECK(gen.calls() == capacity);  // one word a row, whatever the count
    CHECK(kept == std::min(count, capacity));
    for (std::size_t r = 0; r < capacity; ++r) {
      CHECK(rows[r] < n);
      CHECK(counted[r] == (r < count ? 1 : 0));
      if (r < count) CHECK(rows[r] == members[r]);
    }
  }
  // Fillers are spread over the rows (multiply-shift of uniform words): 4000
  // fillers over 40 rows hit every row.
  privet::testing::seeded_release_generator gen(11);
  std::vector<std::size_t> rows(4000);
  std::vector<std::uint8_t> counted(4000);
  (void)ct_pad_batch(gen, members.data(), 0, 4000, n, rows.data(), counted.data());
  std::vector<int> hits(n, 0);
  for (const auto r : rows) ++hits[r];
  for (const int h : hits) CHECK(h > 0);  // P[a row missed] < 40 (39/40)^4000 < 1e-40
}

TEST_CASE("ct_find_all finds each key's entry by a whole scan") {
  // A table of 37 distinct keys, some sharing a half with another; 21 keys
  // (not a multiple of the block of eight), members and non-members alike,
  // among them keys that match one half of an entry only.
  privet::testing::seeded_release_generator gen(61);
  std::vector<std::uint64_t> hi(37), lo(37);
  for (std::size_t e = 0; e < 37; ++e) {
    hi[e] = gen();
    lo[e] = e % 5 == 0 ? 7 : gen();  // lo repeats across entries
  }
  hi[3] = hi[4];  // hi repeats too; (hi, lo) stays distinct
  std::vector<std::uint64_t> kh, kl, want_hit, want_at;
  for (std::size_t i = 0; i < 21; ++i) {
    const std::size_t e = (i * 7) % 37;
    switch (i % 3) {
      case 0:  // a member
        kh.push_back(hi[e]), kl.push_back(lo[e]), want_hit.push_back(1), want_at.push_back(e);
        break;
      case 1:  // the same hi, another lo
        kh.push_back(hi[e]), kl.push_back(lo[e] ^ 1), want_hit.push_back(0), want_at.push_back(0);
        break;
      default:  // the same lo, another hi
        kh.push_back(hi[e] + 1), kl.push_back(lo[e]), want_hit.push_back(0), want_at.push_back(0);
    }
  }
  std::vector<std::uint64_t> hit(21, 9), at(21, 9);
  privet::detail::ct_find_all(hi.data(), lo.data(), 37, kh.data(), kl.data(), 21, hit.data(),
                              at.data());
  CHECK(hit == want_hit);
  CHECK(at == want_at);
  // An empty table holds nothing.
  privet::detail::ct_find_all(nullptr, nullptr, 0, kh.data(), kl.data(), 21, hit.data(), at.data());
  CHECK(hit == std::vector<std::uint64_t>(21, 0));
  CHECK(at == std::vector<std::uint64_t>(21, 0));
}
