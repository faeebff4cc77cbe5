// privet/crypto/paillier_batch.hpp — Paillier (crypto/paillier.hpp) on
// vectors, in parallel over cores with TBB: encryption, CRT decryption,
// re-randomisation, and the elementwise sum and scalar product of ciphertext
// vectors. (Sums and dot products, which reduce a vector to one ciphertext,
// are in paillier.hpp and are parallel too.)
//
// Every function takes a `batch_options` (threads: 0 = every core TBB may
// use, 1 = the calling thread alone, t = at most t threads) and returns the
// same vector for every choice, in every schedule:
//  - element i's randomness comes from stream i of `keyed_streams` keyed by
//    32 bytes drawn from the caller's generator before any task starts
//    (BLAKE2b as PRF, ChaCha20 as PRG: with a CSPRNG the streams are as good
//    as independent fresh randomness; with a seeded generator they are
//    reproducible);
//  - randomisers from a key's pool are taken before the tasks start too,
//    elements 0, 1, ... getting them in the pool's order and the rest fresh
//    ones, so the pool's state after the call does not depend on threads;
//  - inputs are validated serially and in order first, so a bad input is
//    reported as "plaintexts[i]" (or "scalars[i]", ...) with i the first bad
//    index, before any work starts.
// Each task reads the immutable key data and its own input element and
// writes its own output slot: no mutable data is shared between tasks (see
// paillier.hpp's file comment on threads).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/paillier.hpp>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::paillier {

namespace detail {

inline std::string indexed(const char* name, std::size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

// Ciphertexts around values computed under `ctx` (serial: a shared_ptr copy each).
template <class Int, class Tag>
std::vector<ciphertext<Int, Tag>> wrap(const std::shared_ptr<const public_context<Int>>& ctx,
                                       std::vector<Int>&& values) {
  std::vector<ciphertext<Int, Tag>> out;
  out.reserve(values.size());
  for (Int& v : values) out.push_back(access::make<Int, Tag>(ctx, std::move(v)));
  return out;
}

// The randomisers of `count` elements: the key's pooled ones first, then
// fresh ones from per-element streams; passed to `use(i, randomiser)` by
// const reference and wiped afterwards (a secret<Int>). The pooled vector's
// slots are moved from, so its release frees no randomiser's limbs.
template <class Int, class Tag, class G, class Use>
void with_randomizers(const public_key<Int, Tag>& key, std::size_t count, G& gen,
                      const batch_options& options, Use use) {
  const public_context<Int>& ctx = *access::context(key);
  std::vector<Int> pooled;
  if (key.pool()) pooled = key.pool()->take(count);
  const encryption_mode mode = key.mode();
  if (pooled.size() < count && mode == encryption_mode::djn) {
    (void)ctx.djn_table();  // built before the tasks start
  }
  const auto streams = streams_from(gen);
  parallel_for_index(count, options, [&](std::size_t i) {
    if (i < pooled.size()) {
      const privet::detail::secret<Int> rn(std::move(pooled[i]));
      use(i, rn.get());
    } else {
      auto stream = streams.stream(i);
      const privet::detail::secret<Int> rn(fresh_randomizer(ctx, mode, stream));
      use(i, rn.get());
    }
  });
}

template <class Int, class Tag, class G>
std::vector<ciphertext<Int, Tag>> encrypt_encoded(const public_key<Int, Tag>& key,
                                                  std::span<const Int> plaintexts, G& gen,
                                                  const batch_options& options) {
  const auto& ctx = access::context(key);
  std::vector<Int> values(plaintexts.size());
  with_randomizers(key, plaintexts.size(), gen, options, [&](std::size_t i, const Int& rn) {
    values[i] = combine(*ctx, plaintexts[i], rn);
  });
  return wrap<Int, Tag>(ctx, std::move(values));
}

// Throws unless every ciphertext is under `key`'s modulus, naming the first
// that is not.
template <class Int, class Tag>
void check_under(const public_key<Int, Tag>& key, std::span<const ciphertext<Int, Tag>> cs,
                 const char* name) {
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (!(cs[i].key() == key)) {
      throw invalid_parameter(name, "privet: " + indexed(name, i) +
                                        " is under a different public key; allowed: "
                                        "ciphertexts under this key (the same n)");
    }
  }
}

}  // namespace detail

/// Enc(m_i) for every m_i in [0, n), in parallel: randomisers from the key's
/// pool while it lasts, then fresh ones by key.mode() from per-element
/// streams under a secret drawn from `gen`. Throws overflow_error naming the
/// first plaintext out of range.
template <integer Int, key_tag Tag, random_bit_source G>
std::vector<ciphertext<Int, Tag>> encrypt(const public_key<Int, Tag>& key,
                                          std::type_identity_t<std::span<const Int>> plaintexts,
                                          G& gen, batch_options options = {}) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  validate_parallel_options(options);
  const auto& ctx = *detail::access::context(key);
  for (std::size_t i = 0; i < plaintexts.size(); ++i) {
    detail::check_plaintext(ctx, plaintexts[i], detail::indexed("plaintexts", i));
  }
  if (plaintexts.empty()) return {};
  return detail::encrypt_encoded(key, plaintexts, gen, options);
}

/// As above with randomness from this thread's secure generator.
template <integer Int, key_tag Tag>
std::vector<ciphertext<Int, Tag>> encrypt(const public_key<Int, Tag>& key,
                                          std::type_identity_t<std::span<const Int>> plaintexts,
                                          batch_options options = {}) {
  return encrypt(key, plaintexts, secure_generator(), options);
}

/// Enc(x_i) for signed x_i in [-(n-1)/2, (n-1)/2], in parallel.
template <integer Int, key_tag Tag, random_bit_source G>
std::vector<ciphertext<Int, Tag>> encrypt_signed(
    const public_key<Int, Tag>& key, std::type_identity_t<std::span<const Int>> plaintexts, G& gen,
    batch_options options = {}) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  validate_parallel_options(options);
  const auto& ctx = *detail::access::context(key);
  std::vector<Int> encoded;
  encoded.reserve(plaintexts.size());
  for (std::size_t i = 0; i < plaintexts.size(); ++i) {
    encoded.push_back(detail::encode_signed(ctx, plaintexts[i], detail::indexed("plaintexts", i)));
  }
  if (encoded.empty()) return {};
  return detail::encrypt_encoded(key, std::span<const Int>(encoded), gen, options);
}

/// The plaintexts in [0, n) of every ciphertext, by the CRT, in parallel.
/// Throws invalid_parameter naming the first ciphertext under another key.
template <integer Int, key_tag Tag>
std::vector<Int> decrypt(const private_key<Int, Tag>& key,
                         std::type_identity_t<std::span<const ciphertext<Int, Tag>>> cs,
                         batch_options options = {}) {
  validate_parallel_options(options);
  detail::check_under(key.public_key(), cs, "ciphertexts");
  std::vector<Int> out(cs.size());
  parallel_for_index(cs.size(), options, [&](std::size_t i) { out[i] = key.decrypt(cs[i]); });
  return out;
}

/// The signed plaintexts in [-(n-1)/2, (n-1)/2], in parallel.
template <integer Int, key_tag Tag>
std::vector<Int> decrypt_signed(const private_key<Int, Tag>& key,
                                std::type_identity_t<std::span<const ciphertext<Int, Tag>>> cs,
                                batch_options options = {}) {
  validate_parallel_options(options);
  detail::check_under(key.public_key(), cs, "ciphertexts");
  std::vector<Int> out(cs.size());
  parallel_for_index(cs.size(), options,
                     [&](std::size_t i) { out[i] = key.decrypt_signed(cs[i]); });
  return out;
}

/// Every c_i times a fresh encryption of 0, in parallel (randomisers as in
/// encrypt). Throws invalid_parameter naming the first ciphertext under
/// another key.
template <integer Int, key_tag Tag, random_bit_source G>
std::vector<ciphertext<Int, Tag>> rerandomize(
    const public_key<Int, Tag>& key, std::type_identity_t<std::span<const ciphertext<Int, Tag>>> cs,
    G& gen, batch_options options = {}) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  validate_parallel_options(options);
  detail::check_under(key, cs, "ciphertexts");
  if (cs.empty()) return {};
  const auto& ctx = detail::access::context(key);
  std::vector<Int> values(cs.size());
  detail::with_randomizers(key, cs.size(), gen, options, [&](std::size_t i, const Int& rn) {
    values[i] = ctx->mod_n2.mul(cs[i].value(), rn);
  });
  return detail::wrap<Int, Tag>(ctx, std::move(values));
}

/// Enc(a_i + b_i) for every i, in parallel. Throws invalid_parameter when
/// the lengths differ or a ciphertext is under another key than a[0].
template <integer Int, key_tag Tag>
std::vector<ciphertext<Int, Tag>> add(std::span<const ciphertext<Int, Tag>> a,
                                      std::type_identity_t<std::span<const ciphertext<Int, Tag>>> b,
                                      batch_options options = {}) {
  validate_parallel_options(options);
  if (b.size() != a.size()) {
    throw_invalid("b.size()", b.size(), "a.size() = " + std::to_string(a.size()));
  }
  if (a.empty()) return {};
  const paillier::public_key<Int, Tag> key = a[0].key();
  detail::check_under(key, a, "a");
  detail::check_under(key, b, "b");
  const auto& ctx = detail::access::context(a[0]);
  std::vector<Int> values(a.size());
  parallel_for_index(a.size(), options, [&](std::size_t i) {
    values[i] = ctx->mod_n2.mul(a[i].value(), b[i].value());
  });
  return detail::wrap<Int, Tag>(ctx, std::move(values));
}

/// Enc(k_i m_i) for ciphertexts Enc(m_i) and scalars k_i in (-n, n), in
/// parallel. Throws invalid_parameter when the lengths differ or the
/// ciphertexts mix keys, overflow_error naming the first scalar out of range.
template <integer Int, key_tag Tag, scalar<Int> S>
std::vector<ciphertext<Int, Tag>> multiply(std::span<const ciphertext<Int, Tag>> cs,
                                           std::span<const S> scalars, batch_options options = {}) {
  validate_parallel_options(options);
  if (scalars.size() != cs.size()) {
    throw_invalid("scalars.size()", scalars.size(),
                  "ciphertexts.size() = " + std::to_string(cs.size()));
  }
  if (cs.empty()) return {};
  detail::check_same_keys(cs);
  const auto& ctx = detail::access::context(cs[0]);
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    const Int k = detail::scalar_to_int<Int>(scalars[i]);
    if (k >= ctx->n || k <= -ctx->n) {
      throw overflow_error("privet: " + detail::indexed("scalars", i) +
                           " is outside (-n, n) for the " + std::to_string(ctx->bits) +
                           "-bit modulus n; allowed: |k| < n");
    }
  }
  std::vector<Int> values(cs.size());
  parallel_for_index(cs.size(), options, [&](std::size_t i) {
    values[i] = (cs[i] * detail::scalar_to_int<Int>(scalars[i])).value();
  });
  return detail::wrap<Int, Tag>(ctx, std::move(values));
}

/// Enc(k m_i) for every ciphertext Enc(m_i) and one scalar k in (-n, n), in
/// parallel.
template <integer Int, key_tag Tag, scalar<Int> S>
std::vector<ciphertext<Int, Tag>> multiply(std::span<const ciphertext<Int, Tag>> cs, const S& k,
                                           batch_options options = {}) {
  validate_parallel_options(options);
  if (cs.empty()) return {};
  detail::check_same_keys(cs);
  const auto& ctx = detail::access::context(cs[0]);
  const Int scalar_value = detail::scalar_to_int<Int>(k);
  (void)detail::scalar_magnitude(*ctx, scalar_value);
  std::vector<Int> values(cs.size());
  parallel_for_index(cs.size(), options,
                     [&](std::size_t i) { values[i] = (cs[i] * scalar_value).value(); });
  return detail::wrap<Int, Tag>(ctx, std::move(values));
}

}  // namespace privet::paillier
