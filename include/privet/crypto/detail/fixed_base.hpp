// privet/crypto/detail/fixed_base.hpp — fixed-base modular exponentiation
// with a precomputed table, for the Damgård–Jurik–Nielsen randomiser
// h_N^a mod n^2 (a short and secret, h_N fixed per key).
//
// The table keeps, for every window position i < ceil(e / w) of an e-bit
// exponent and every w-bit digit d, the power base^(d 2^(w i)) mod m. Then
// base^a is the product over i of the entries of a's digits: ceil(e / w) - 1
// multiplications and no squaring at all. This is the memory-for-time end of
// the fixed-base methods of Brickell, Gordon, McCurley and Wilson (1992, "Fast
// exponentiation with precomputation", EUROCRYPT; Menezes, van Oorschot and
// Vanstone, Handbook of Applied Cryptography, section 14.6.3): a 224-bit
// exponent costs 44 products modulo n^2 (w = 5) where square-and-multiply
// methods need 224 squarings besides their multiplications.
//
// Side channels. The exponent a is the encryption randomness: whoever learns
// it learns the plaintext. Every lookup therefore reads the whole row of its
// window and keeps the wanted entry by masks (as montgomery.hpp's `pow`
// does), so which memory is read does not depend on a; the digits are cut
// from an exponent padded to its public length. On cpp_int types the
// products are montgomery.hpp's constant-time CIOS multiplications, so the
// whole evaluation has the same guarantees (and limits) as its `pow`. On the
// GMP backend the products are mpz_mul and mpz_tdiv_r, whose running time
// GMP does not promise to be independent of the operands' values (a product
// with leading zero limbs is shorter): the lookups are oblivious, the
// arithmetic is not guaranteed to be.
//
// The table is immutable after construction: any number of threads may call
// `pow` at once (each call allocates its own scratch).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/detail/montgomery.hpp>
#include <privet/crypto/detail/wipe.hpp>

#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace privet::detail {

/// Largest window width of a fixed-base table: 64 entries per row.
inline constexpr unsigned max_fixed_base_window = 6;
/// Tables are kept below this many bytes (window narrowed if needed), so
/// that one key's table stays in the last-level cache of a common CPU.
inline constexpr std::size_t max_fixed_base_table_bytes = std::size_t{8} << 20;

/// The window width for `exp_bits`-bit exponents modulo a `limbs`-limb
/// modulus: the w in [1, max_fixed_base_window] minimising the cost of one
/// evaluation, ceil(e / w) products plus ceil(e / w) masked scans of 2^w
/// entries, among the widths whose table fits max_fixed_base_table_bytes
/// (w = 1 always qualifies). Measured at 2048 and 3072 bits, a product modulo
/// a k-limb modulus costs about as much as scanning 1.7 k entries on GMP and
/// more on the CIOS code (its products are slower); the model takes 2 k, so
/// that it picks w = 5 for 2048-bit keys (on GMP 4 % faster than w = 6, on
/// CIOS 2 % slower) and w = 6 for 3072-bit keys.
inline unsigned fixed_base_window_bits(std::size_t exp_bits, std::size_t limbs) {
  unsigned best = 1;
  std::size_t best_cost = std::numeric_limits<std::size_t>::max();
  for (unsigned w = 1; w <= max_fixed_base_window; ++w) {
    const std::size_t windows = std::max<std::size_t>(1, (exp_bits + w - 1) / w);
    const std::size_t entries = std::size_t{1} << w;
    const std::size_t bytes = windows * entries * limbs * sizeof(limb);
    if (w > 1 && bytes > max_fixed_base_table_bytes) continue;
    const std::size_t cost = windows * (2 * limbs + entries);
    if (cost < best_cost) {
      best_cost = cost;
      best = w;
    }
  }
  return best;
}

// All ones when x == y, zero otherwise, without a branch (any unsigned limb
// type: GMP's mp_limb_t need not be Boost's limb_type).
template <class L>
L ct_equal_mask(L x, L y) noexcept {
  const L d = x ^ y;
  const L nonzero = (d | (L{0} - d)) >> (sizeof(L) * CHAR_BIT - 1);
  return nonzero - 1;
}

// out = row[digit] for rows of k limbs, reading all `entries` rows.
template <class L>
void select_entry(const L* rows, std::size_t entries, std::size_t k, L digit, L* out) noexcept {
  std::fill(out, out + k, L{0});
  for (std::size_t e = 0; e < entries; ++e) {
    const L mask = ct_equal_mask(static_cast<L>(e), digit);
    const L* row = rows + e * k;
    for (std::size_t j = 0; j < k; ++j) out[j] |= row[j] & mask;
  }
}

// The w-bit digit of the little-endian limbs `exp` at bit `pos` (w <= 8;
// bits beyond the vector read as zero). Indices depend on public values only.
template <class L>
L digit_at(std::span<const L> exp, std::size_t pos, unsigned w) noexcept {
  constexpr std::size_t bits = sizeof(L) * CHAR_BIT;
  const std::size_t idx = pos / bits;
  const std::size_t off = pos % bits;
  L v = idx < exp.size() ? static_cast<L>(exp[idx] >> off) : L{0};
  if (off + w > bits && idx + 1 < exp.size()) v |= static_cast<L>(exp[idx + 1] << (bits - off));
  return v & static_cast<L>((L{1} << w) - 1);
}

// Throws unless 1 <= exp_bits (a table for no exponent bits is a caller's bug).
inline void check_table_exponent_bits(std::size_t exp_bits) {
  if (exp_bits == 0) throw_invalid("exp_bits", exp_bits, ">= 1");
}

/// base^exp mod m for a fixed base and exponents below 2^exp_bits, from a
/// precomputed table (see the file comment). One specialisation per backend.
template <class Int>
class fixed_base_pow;

template <cpp_int_number Int>
class fixed_base_pow<Int> {
 public:
  /// The table of `base` (any value >= 0) modulo the odd `modulus`.
  fixed_base_pow(const Int& modulus, const Int& base, std::size_t exp_bits)
      : mont_(modulus), exp_bits_(exp_bits) {
    check_table_exponent_bits(exp_bits);
    const std::size_t k = mont_.size();
    window_ = fixed_base_window_bits(exp_bits, k);
    windows_ = (exp_bits + window_ - 1) / window_;
    const std::size_t entries = std::size_t{1} << window_;
    table_.assign(windows_ * entries * k, limb{0});
    std::vector<limb> g(k), t(mont_.scratch_size()), one(k);
    const std::vector<limb> unit(1, limb{1});
    mont_.to_montgomery(unit, one.data());
    mont_.to_montgomery(montgomery::limbs_of(base), g.data());
    for (std::size_t i = 0; i < windows_; ++i) {
      limb* row = table_.data() + i * entries * k;
      std::copy(one.begin(), one.end(), row);
      std::copy(g.begin(), g.end(), row + k);
      for (std::size_t d = 2; d < entries; ++d) {
        mont_.mul(row + (d - 1) * k, g.data(), row + d * k, t.data());
      }
      // base^(2^(w (i + 1))) = base^((2^w - 1) 2^(w i)) base^(2^(w i)).
      mont_.mul(row + (entries - 1) * k, g.data(), g.data(), t.data());
    }
  }

  [[nodiscard]] std::size_t exponent_bits() const noexcept { return exp_bits_; }
  [[nodiscard]] unsigned window_bits() const noexcept { return window_; }
  [[nodiscard]] std::size_t table_bytes() const noexcept { return table_.size() * sizeof(limb); }

  /// base^exp mod m, 0 <= exp < 2^exponent_bits() (else invalid_parameter).
  [[nodiscard]] Int pow(const Int& exp) const {
    check_exponent(exp, exp_bits_);
    const std::size_t k = mont_.size();
    const std::size_t entries = std::size_t{1} << window_;
    // The exponent is the encryption randomness, and the partial products
    // are powers of it: every buffer is zeroed when released.
    wiping_vector<limb> e = montgomery::limbs_of(exp);
    e.resize(std::max(e.size(), (exp_bits_ + limb_bits - 1) / limb_bits), limb{0});
    wiping_vector<limb> acc(k), sel(k), t(mont_.scratch_size()), out(k);
    const std::span<const limb> digits(e);
    select_entry(table_.data(), entries, k, digit_at(digits, 0, window_), acc.data());
    for (std::size_t i = 1; i < windows_; ++i) {
      select_entry(table_.data() + i * entries * k, entries, k,
                   digit_at(digits, i * window_, window_), sel.data());
      mont_.mul(acc.data(), sel.data(), acc.data(), t.data());
    }
    mont_.from_montgomery(acc.data(), out.data());
    return montgomery::from_limbs<Int>(out.data(), k);
  }

 private:
  montgomery mont_;
  std::size_t exp_bits_;
  unsigned window_ = 1;
  std::size_t windows_ = 1;
  std::vector<limb> table_;  // Montgomery forms, row-major by window then digit
};

#ifdef PRIVET_HAS_GMP
template <gmp_number Int>
class fixed_base_pow<Int> {
 public:
  fixed_base_pow(const Int& modulus, const Int& base, std::size_t exp_bits)
      : m_(modulus), exp_bits_(exp_bits) {
    check_table_exponent_bits(exp_bits);
    if (modulus <= 1 || !boost::multiprecision::bit_test(modulus, 0)) {
      throw invalid_parameter("modulus",
                              "privet: modulus is even or below 3; allowed: an odd modulus > 1");
    }
    if (base < 0) {
      throw invalid_parameter("base", "privet: base is negative; allowed: an integer >= 0");
    }
    k_ = mpz_size(m_.backend().data());
    window_ = fixed_base_window_bits(exp_bits, k_);
    windows_ = (exp_bits + window_ - 1) / window_;
    const std::size_t entries = std::size_t{1} << window_;
    table_.assign(windows_ * entries * k_, mp_limb_t{0});
    Int g = base % m_;
    Int entry;
    for (std::size_t i = 0; i < windows_; ++i) {
      mp_limb_t* row = table_.data() + i * entries * k_;
      entry = 1;
      store(entry, row);
      for (std::size_t d = 1; d < entries; ++d) {
        mul_mod(entry, g);
        store(entry, row + d * k_);
      }
      mul_mod(entry, g);
      g = entry;
    }
  }

  [[nodiscard]] std::size_t exponent_bits() const noexcept { return exp_bits_; }
  [[nodiscard]] unsigned window_bits() const noexcept { return window_; }
  [[nodiscard]] std::size_t table_bytes() const noexcept {
    return table_.size() * sizeof(mp_limb_t);
  }

  [[nodiscard]] Int pow(const Int& exp) const {
    check_exponent(exp, exp_bits_);
    const std::size_t entries = std::size_t{1} << window_;
    const mpz_srcptr ez = exp.backend().data();
    // The exponent is the encryption randomness and the partial products
    // are powers of it: the copies are zeroed when released, and acc and
    // prod are allocated to their final size up front, so that GMP never
    // reallocates (and frees un-zeroed) a block holding one.
    wiping_vector<mp_limb_t> e((exp_bits_ + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS, mp_limb_t{0});
    const std::size_t used = mpz_size(ez);
    if (used > 0) std::memcpy(e.data(), mpz_limbs_read(ez), used * sizeof(mp_limb_t));
    const std::span<const mp_limb_t> digits(e);
    wiping_vector<mp_limb_t> sel(k_);
    select_entry(table_.data(), entries, k_, digit_at(digits, 0, window_), sel.data());
    Int acc;
    secret<Int> prod;
    mpz_realloc2(acc.backend().data(), (k_ + 1) * GMP_NUMB_BITS);
    mpz_realloc2(prod.get().backend().data(), (2 * k_ + 1) * GMP_NUMB_BITS);
    mpz_t view;
    mpz_set(acc.backend().data(), mpz_roinit_n(view, sel.data(), static_cast<mp_size_t>(k_)));
    for (std::size_t i = 1; i < windows_; ++i) {
      select_entry(table_.data() + i * entries * k_, entries, k_,
                   digit_at(digits, i * window_, window_), sel.data());
      mpz_mul(prod.get().backend().data(), acc.backend().data(),
              mpz_roinit_n(view, sel.data(), static_cast<mp_size_t>(k_)));
      mpz_tdiv_r(acc.backend().data(), prod.get().backend().data(), m_.backend().data());
    }
    return acc;
  }

 private:
  void mul_mod(Int& x, const Int& y) const {
    mpz_mul(x.backend().data(), x.backend().data(), y.backend().data());
    mpz_tdiv_r(x.backend().data(), x.backend().data(), m_.backend().data());
  }
  // The k limbs of x < m, zero-padded.
  void store(const Int& x, mp_limb_t* out) const {
    const mpz_srcptr z = x.backend().data();
    const std::size_t used = mpz_size(z);
    std::fill(out, out + k_, mp_limb_t{0});
    if (used > 0) std::memcpy(out, mpz_limbs_read(z), used * sizeof(mp_limb_t));
  }

  Int m_;
  std::size_t exp_bits_;
  std::size_t k_ = 0;
  unsigned window_ = 1;
  std::size_t windows_ = 1;
  std::vector<mp_limb_t> table_;  // plain residues, row-major by window then digit
};
#endif

}  // namespace privet::detail
