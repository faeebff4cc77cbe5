// privet/crypto/paillier_packing.hpp — several small fixed-point values in
// one Paillier plaintext: `packing<Int, S>` (the slot layout) and
// `packed_vector<Int, S>` (a vector of values packed into as few ciphertexts
// as the layout allows), with addition, subtraction and multiplication by a
// plaintext scalar on the packed ciphertexts, and `unpack` after decryption.
//
// Plaintext packing of additively homomorphic ciphertexts (as in Ge & Zdonik
// 2007, "Answering aggregation queries in a secure system model", and the
// slot layouts of later packed-Paillier aggregation schemes): slot i holds
// the non-negative integer c_i = x_i + o at bits [w i, w (i + 1)) of the
// plaintext, with o a public offset that makes negatives non-negative. Sums
// add slot by slot and a scalar k >= 0 scales every slot, so long as no slot
// reaches 2^w (a carry into its neighbour) and the whole plaintext stays
// below n. The layout chooses w from the values' bound B, the number of
// packed vectors a sum may add (T) and the largest scalar magnitude (K):
// w = bits(2 B T K), the smallest width whose slots hold 2 B T K; the w -
// bits(2B) bits above the values are the guard bits. k slots per plaintext
// with k w <= bits(n) - 1 keep every plaintext below n.
//
// Every packed vector carries its public offset o and a bound u on every
// slot's content (0 <= c_i <= u; x_i = c_i - o). Each operation computes
// the u of its result first and throws overflow_error when it would pass
// 2^w - 1, so carries are impossible, not merely unlikely; the stated T and
// K are guaranteed to fit. A negative scalar k maps c to |k| (u - c) (an
// encryption of |k| u in every slot times Enc(c)^-|k|), which keeps slots
// non-negative, with offset |k| (u - o).
#pragma once

#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/encrypted_number.hpp>
#include <privet/crypto/fixed_point.hpp>
#include <privet/crypto/paillier.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::paillier {

template <integer Int, fixed_point_scale S, key_tag Tag = runtime_key>
class packed_vector;

namespace detail {

template <class Int, class Tag>
struct packing_layout {
  public_key<Int, Tag> key;  // the packer's key object (its mode and pool)
  std::size_t slot_bits;     // w
  std::size_t slots;         // per plaintext
  Int capacity;              // 2^w - 1
  Int spread;                // sum of 2^(w i) over the slots: 1 in every slot
};

template <class Int, class Tag>
[[noreturn]] void throw_slot_overflow(const std::string& operation, const std::string& expression,
                                      const packing_layout<Int, Tag>& layout) {
  throw overflow_error("privet: " + operation +
                       " of packed vectors could carry into the next "
                       "slot: the slot content bound " +
                       expression + " exceeds 2^" + std::to_string(layout.slot_bits) +
                       " - 1; allowed: slot contents up to 2^" + std::to_string(layout.slot_bits) +
                       " - 1 (make the packing with larger max_terms or max_scalar)");
}

// The door to packed_vector's internals for the functions below.
struct packed_access {
  template <class Int, class S, class Tag>
  static const std::shared_ptr<const packing_layout<Int, Tag>>& layout(
      const packed_vector<Int, S, Tag>& v) {
    return v.layout_;
  }
  // The same packed data relabelled with scale To (after a product).
  template <class To, class Int, class S, class Tag>
  static packed_vector<Int, To, Tag> relabel(packed_vector<Int, S, Tag>&& v) {
    packed_vector<Int, To, Tag> out;
    out.layout_ = std::move(v.layout_);
    out.cts_ = std::move(v.cts_);
    out.size_ = v.size_;
    out.offset_ = std::move(v.offset_);
    out.top_ = std::move(v.top_);
    return out;
  }
};

}  // namespace detail

/// The layout of packed plaintexts for values of scale S under one key:
/// slots wide enough for values |x| <= value_bound summed over up to
/// max_terms packed vectors and multiplied by scalars |k| <= max_scalar.
template <integer Int, fixed_point_scale S, key_tag Tag = runtime_key>
class packing {
 public:
  /// Throws invalid_parameter for max_terms or max_scalar < 1, a negative
  /// or zero value bound, or a slot wider than the n - 1 usable bits.
  template <scalar<Int> K = int>
  packing(const public_key<Int, Tag>& key, const fixed_point<Int, S>& value_bound,
          std::size_t max_terms, const K& max_scalar = 1)
      : bound_(value_bound.mantissa()) {
    if (!(bound_ > 0)) {
      throw invalid_parameter("value_bound",
                              "privet: value_bound is not positive; allowed: a mantissa >= 1");
    }
    validate_at_least<std::size_t>(max_terms, 1, "max_terms");
    const Int k(max_scalar);
    if (!(k >= 1)) {
      throw invalid_parameter("max_scalar", "privet: max_scalar is below 1; allowed: >= 1");
    }
    const Int need = Int(2) * bound_ * Int(max_terms) * k;
    const std::size_t w = detail::bits_of(need);
    const std::size_t usable = key.bits() - 1;
    if (w > usable) {
      throw_invalid("slot_bits", w,
                    "at most " + std::to_string(usable) +
                        " (n - 1 bits): 2 value_bound max_terms max_scalar needs " +
                        std::to_string(w) + " bits");
    }
    auto layout = std::make_shared<detail::packing_layout<Int, Tag>>(
        detail::packing_layout<Int, Tag>{key, w, usable / w, Int(0), Int(0)});
    layout->capacity = Int(Int(1) << static_cast<unsigned>(w)) - 1;
    layout->spread = 0;
    for (std::size_t i = 0; i < layout->slots; ++i) {
      layout->spread |= Int(1) << static_cast<unsigned>(w * i);
    }
    layout_ = std::move(layout);
  }

  /// Slot width w in bits.
  [[nodiscard]] std::size_t slot_bits() const noexcept { return layout_->slot_bits; }
  /// Values per plaintext.
  [[nodiscard]] std::size_t slots() const noexcept { return layout_->slots; }
  /// The values' bound B (|x| <= B).
  [[nodiscard]] fixed_point<Int, S> value_bound() const {
    return fixed_point<Int, S>::from_mantissa(bound_);
  }
  /// The key the packed vectors are encrypted under (its mode and pool).
  [[nodiscard]] const public_key<Int, Tag>& key() const noexcept { return layout_->key; }

  /// Enc of the values packed slots() per plaintext (the last plaintext
  /// padded with zeros), r from `gen`; offset o = B and content bound u = 2B.
  /// overflow_error if some |x| > value_bound. One encryption per
  /// ceil(values.size() / slots()) plaintexts.
  template <random_bit_source G>
  [[nodiscard]] packed_vector<Int, S, Tag> pack(std::span<const fixed_point<Int, S>> values,
                                                G& gen) const;
  /// As above, with randomness from this thread's secure generator.
  [[nodiscard]] packed_vector<Int, S, Tag> pack(std::span<const fixed_point<Int, S>> values) const {
    return pack(values, secure_generator());
  }

 private:
  std::shared_ptr<const detail::packing_layout<Int, Tag>> layout_;
  Int bound_;
};

/// Values of scale S packed into ciphertexts by a `packing`, with the public
/// offset o and slot content bound u of every slot.
template <integer Int, fixed_point_scale S, key_tag Tag>
class packed_vector {
 public:
  using scale_type = S;  ///< The values' fixed-point scale.

  /// Number of values.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// The packed ciphertexts, ceil(size() / slots()) of them.
  [[nodiscard]] std::span<const ciphertext<Int, Tag>> ciphertexts() const noexcept { return cts_; }
  /// Slot width and values per plaintext of the layout.
  ///@{
  [[nodiscard]] std::size_t slot_bits() const noexcept { return layout_->slot_bits; }
  [[nodiscard]] std::size_t slots() const noexcept { return layout_->slots; }
  ///@}
  /// The public offset o (value = slot content - o) and the bound u on a
  /// slot's content, as mantissas.
  ///@{
  [[nodiscard]] const Int& offset() const noexcept { return offset_; }
  [[nodiscard]] const Int& content_bound() const noexcept { return top_; }
  ///@}
  /// The key of the packing that made this vector.
  [[nodiscard]] const public_key<Int, Tag>& key() const noexcept { return layout_->key; }

  /// Slot-wise sum: offsets and content bounds add. invalid_parameter unless
  /// both are under the same key, with the same layout and size;
  /// overflow_error before a slot could carry (u_a + u_b > 2^w - 1). Another
  /// scale or key type does not compile.
  template <fixed_point_scale S2, key_tag T2>
  friend packed_vector operator+(const packed_vector& a, const packed_vector<Int, S2, T2>& b) {
    check_mix<S2, T2>();
    a.check_compatible(b, "rhs");
    const Int top = a.top_ + b.top_;
    if (top > a.layout_->capacity) {
      detail::throw_slot_overflow(
          "addition", detail::int_text(a.top_) + " + " + detail::int_text(b.top_), *a.layout_);
    }
    packed_vector out = a;
    for (std::size_t i = 0; i < out.cts_.size(); ++i) out.cts_[i] += b.cts_[i];
    out.offset_ = a.offset_ + b.offset_;
    out.top_ = top;
    return out;
  }
  /// a + (-1) b (see the file comment for negative scalars); the same
  /// conditions as +.
  template <fixed_point_scale S2, key_tag T2>
  friend packed_vector operator-(const packed_vector& a, const packed_vector<Int, S2, T2>& b) {
    check_mix<S2, T2>();
    a.check_compatible(b, "rhs");
    return a + b * -1;
  }
  /// Every value times the integer k, content bound |k| u; overflow_error
  /// when that passes 2^w - 1. k = 0 gives the deterministic encryption of
  /// 0 in every slot.
  template <scalar<Int> K>
  friend packed_vector operator*(const packed_vector& a, const K& k) {
    return a.times(Int(k));
  }
  /// Every value times k, as a * k.
  template <scalar<Int> K>
  friend packed_vector operator*(const K& k, const packed_vector& a) {
    return a.times(Int(k));
  }
  /// Every value times the fixed-point k: scale product_scale_t<S, S2>, slots
  /// as for the integer mantissa of k.
  template <fixed_point_scale S2>
  friend packed_vector<Int, product_scale_t<S, S2>, Tag> operator*(const packed_vector& a,
                                                                   const fixed_point<Int, S2>& k) {
    return detail::packed_access::relabel<product_scale_t<S, S2>>(a.times(k.mantissa()));
  }
  /// *this = *this + b.
  packed_vector& operator+=(const packed_vector& b) { return *this = *this + b; }

 private:
  template <integer, fixed_point_scale, key_tag>
  friend class packing;
  friend struct detail::packed_access;

  packed_vector() = default;

  template <class S2, class T2>
  static constexpr void check_mix() {
    static_assert(std::same_as<Tag, T2>,
                  "privet: packed vectors under two different key types (the Tag of "
                  "paillier::public_key<Int, Tag>) cannot be combined.");
    static_assert(std::same_as<S, S2>,
                  "privet: packed vectors of different scales cannot be added.");
  }
  void check_compatible(const packed_vector& b, const char* name) const {
    if (!(layout_->key == b.layout_->key)) detail::throw_other_key(name);
    if (layout_->slot_bits != b.layout_->slot_bits || layout_->slots != b.layout_->slots) {
      throw_invalid(name, std::string_view("a packed vector of another layout"),
                    "the same layout (" + std::to_string(layout_->slot_bits) + "-bit slots, " +
                        std::to_string(layout_->slots) + " per plaintext)");
    }
    if (size_ != b.size_) {
      throw_invalid(std::string(name) + ".size()", b.size_, "size() = " + std::to_string(size_));
    }
  }

  [[nodiscard]] packed_vector times(const Int& k) const {
    const auto& layout = *layout_;
    const Int mag = detail::abs_int(k);
    packed_vector out = *this;
    if (mag == 0) {
      for (auto& c : out.cts_) c = ciphertext<Int, Tag>(layout.key, Int(1));
      out.offset_ = 0;
      out.top_ = 0;
      return out;
    }
    if (top_ != 0 && mag > layout.capacity / top_) {
      detail::throw_slot_overflow("multiplication",
                                  detail::int_text(top_) + " * " + detail::int_text(mag), layout);
    }
    const Int top = top_ * mag;
    if (k > 0) {
      for (auto& c : out.cts_) c = c * mag;
      out.offset_ = offset_ * mag;
    } else {
      // c -> |k| (u - c): Enc(|k| u in every slot) * Enc(c)^-|k|. The
      // constant is below 2^(w slots) <= 2^(bits(n) - 1) < n.
      const Int fill = Int(top * layout.spread);
      const ciphertext<Int, Tag> plain(layout.key, Int(1 + fill * layout.key.n()));
      for (auto& c : out.cts_) c = c * Int(-mag) + plain;
      out.offset_ = Int(mag * Int(top_ - offset_));
    }
    out.top_ = top;
    return out;
  }

  std::shared_ptr<const detail::packing_layout<Int, Tag>> layout_;
  std::vector<ciphertext<Int, Tag>> cts_;
  std::size_t size_ = 0;
  Int offset_;
  Int top_;
};

template <integer Int, fixed_point_scale S, key_tag Tag>
template <random_bit_source G>
packed_vector<Int, S, Tag> packing<Int, S, Tag>::pack(std::span<const fixed_point<Int, S>> values,
                                                      G& gen) const {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  const auto& layout = *layout_;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (detail::abs_int(values[i].mantissa()) > bound_) {
      throw overflow_error("privet: values[" + std::to_string(i) +
                           "] exceeds the packing's value_bound = " + detail::int_text(bound_) +
                           " (mantissa at scale " + detail::scale_text<S>() +
                           "); allowed: |x| <= value_bound");
    }
  }
  const public_key<Int, Tag>& pk = layout.key;
  packed_vector<Int, S, Tag> out;
  out.layout_ = layout_;
  out.size_ = values.size();
  out.offset_ = bound_;
  out.top_ = Int(2) * bound_;
  const std::size_t count = (values.size() + layout.slots - 1) / layout.slots;
  out.cts_.reserve(count);
  for (std::size_t c = 0; c < count; ++c) {
    Int m = 0;
    // Highest slot first, so each step is one shift and one add.
    for (std::size_t s = layout.slots; s-- > 0;) {
      const std::size_t i = c * layout.slots + s;
      const Int content = i < values.size() ? Int(values[i].mantissa() + bound_) : bound_;
      m <<= static_cast<unsigned>(layout.slot_bits);
      m += content;
    }
    out.cts_.push_back(pk.encrypt(m, gen));
  }
  return out;
}

/// The values, from one decryption per plaintext. Throws protocol_error
/// when a slot's content exceeds the vector's content bound, or when a
/// plaintext has bits beyond the vector's values: a padding slot of the
/// last plaintext that does not hold 0 (content = offset, as pack pads and
/// every operation keeps it) or any bit above the last slot (the ciphertext
/// is not what the vector claims); invalid_parameter for another key.
template <integer Int, fixed_point_scale S, key_tag Tag>
std::vector<fixed_point<Int, S>> unpack(const private_key<Int, Tag>& key,
                                        const packed_vector<Int, S, Tag>& v) {
  const auto& layout = *detail::packed_access::layout(v);
  std::vector<fixed_point<Int, S>> out;
  out.reserve(v.size());
  const auto cts = v.ciphertexts();
  for (std::size_t c = 0; c < cts.size(); ++c) {
    Int m = key.decrypt(cts[c]);
    bool beyond = false;  // a padding slot that is not 0
    for (std::size_t s = 0; s < layout.slots; ++s) {
      const Int content = m & layout.capacity;
      m >>= static_cast<unsigned>(layout.slot_bits);
      if (out.size() == v.size()) {
        beyond = beyond || content != v.offset();
        continue;
      }
      if (content > v.content_bound()) {
        throw protocol_error(
            "privet: a decrypted slot exceeds its packed vector's content bound = " +
            detail::int_text(v.content_bound()) +
            "; allowed: slots within the bound the vector was sent with");
      }
      out.push_back(fixed_point<Int, S>::from_mantissa(Int(content - v.offset())));
    }
    // Dropping these bits would decrypt a tampered ciphertext as if whole.
    if (beyond || m != 0) {
      throw protocol_error("privet: packed ciphertext " + std::to_string(c) +
                           " has plaintext bits beyond the vector's " + std::to_string(v.size()) +
                           " values; allowed: padding slots that hold 0 and nothing above the "
                           "last slot");
    }
  }
  return out;
}

/// The slot-wise sum of packed vectors of one layout and size; invalid_parameter
/// for an empty span, overflow_error before a slot could carry.
template <integer Int, fixed_point_scale S, key_tag Tag>
packed_vector<Int, S, Tag> sum(std::span<const packed_vector<Int, S, Tag>> vs) {
  if (vs.empty()) throw_empty("packed vectors");
  packed_vector<Int, S, Tag> acc = vs[0];
  for (std::size_t i = 1; i < vs.size(); ++i) acc += vs[i];
  return acc;
}

// ---- packing ciphertexts -----------------------------------------------------
// `packing` above packs plaintexts before encryption. A protocol that ends
// with many ciphertexts under someone else's key (the spam filter's
// gradient, one ciphertext per feature) packs the ciphertexts themselves, by
// Horner's rule on the homomorphism: with slot content c_i = x_i + B,
//   P = (((c_{k-1}) 2^w + c_{k-2}) 2^w + ...) 2^w + c_0,
// each step one exponentiation by 2^w (w squarings modulo n^2) and one
// product, so packing k values costs about k w squarings, as much as one
// full-size exponentiation per bits(n) / w values, while the key owner
// decrypts k times fewer ciphertexts. Sums of up to `max_terms` packed
// vectors stay slot by slot when w = bits(2 B max_terms): every content lies
// in [0, 2 B T] for a sum of T <= max_terms vectors.
// The caller states B from a proven bound on the encrypted values (no one
// can check a ciphertext's content); a value outside [-B, B] would carry into
// its neighbour. The key owner's unpack_signed refuses slot contents above
// 2 B T (protocol_error), which catches most such lies, not all.

/// The slot layout for packing ciphertexts of integers |x| <= bound, sums of
/// up to max_terms of them included.
template <integer Int, key_tag Tag = runtime_key>
class ciphertext_packing {
 public:
  /// Throws invalid_parameter for bound < 1, max_terms < 1, or slots wider
  /// than the bits(n) - 1 bits a plaintext below n holds.
  ciphertext_packing(const public_key<Int, Tag>& key, const Int& bound, std::size_t max_terms = 1)
      : key_(key), bound_(bound), max_terms_(max_terms) {
    if (bound < 1) throw_invalid("bound", detail::int_text(bound), ">= 1");
    if (max_terms < 1) throw_invalid("max_terms", max_terms, ">= 1");
    const Int top = Int(2) * bound * Int(max_terms);
    slot_bits_ = privet::detail::bits_of(top);
    const std::size_t usable = key.bits() - 1;
    if (slot_bits_ > usable) {
      throw invalid_parameter("bound",
                              "privet: slots for values up to bound = " + detail::int_text(bound) +
                                  " in sums of " + std::to_string(max_terms) + " need " +
                                  std::to_string(slot_bits_) + " bits; allowed: at most " +
                                  std::to_string(usable) + " (the bits(n) - 1 of this key)");
    }
    slots_ = usable / slot_bits_;
  }

  /// The key of the ciphertexts to pack.
  [[nodiscard]] const public_key<Int, Tag>& key() const noexcept { return key_; }
  /// B: the packed integers satisfy |x| <= B.
  [[nodiscard]] const Int& bound() const noexcept { return bound_; }
  /// The most packed vectors a sum may add.
  [[nodiscard]] std::size_t max_terms() const noexcept { return max_terms_; }
  /// Slot width w = bits(2 B max_terms).
  [[nodiscard]] std::size_t slot_bits() const noexcept { return slot_bits_; }
  /// Values per packed ciphertext: floor((bits(n) - 1) / w).
  [[nodiscard]] std::size_t slots() const noexcept { return slots_; }
  /// Ciphertexts that `count` values pack into.
  [[nodiscard]] std::size_t packed_count(std::size_t count) const noexcept {
    return (count + slots_ - 1) / slots_;
  }

 private:
  public_key<Int, Tag> key_;
  Int bound_;
  std::size_t max_terms_;
  std::size_t slot_bits_ = 0;
  std::size_t slots_ = 0;
};

/// The ciphertexts Enc(x_i), |x_i| <= terms layout.bound() (a value that
/// counts as `terms` terms of the layout), packed slots() per ciphertext
/// (value i in slot i mod slots() of ciphertext i / slots()), in parallel
/// over the packed ciphertexts. Not re-randomised: the result is a function
/// of the inputs, so re-randomise before sending it to the key owner if the
/// inputs' randomness must not be linkable. invalid_parameter for an empty
/// input, terms outside [1, max_terms] or a ciphertext under another key.
template <integer Int, key_tag Tag>
std::vector<ciphertext<Int, Tag>> pack(
    const ciphertext_packing<Int, Tag>& layout,
    std::type_identity_t<std::span<const ciphertext<Int, Tag>>> cs, std::size_t terms = 1,
    batch_options options = {}) {
  if (cs.empty()) throw_empty("ciphertexts");
  if (terms < 1 || terms > layout.max_terms()) {
    throw_invalid("terms", terms, "[1, " + std::to_string(layout.max_terms()) + "]");
  }
  const public_key<Int, Tag>& key = layout.key();
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (!(cs[i].key() == key)) {
      throw invalid_parameter("ciphertexts", "privet: ciphertexts[" + std::to_string(i) +
                                                 "] is under another key; allowed: ciphertexts "
                                                 "under the packing's key");
    }
  }
  const Int& n = key.n();
  // Enc(T B) with r = 1: 1 + T B n. Deterministic, and harmless: it only
  // shifts a ciphertext whose randomness comes from elsewhere.
  const ciphertext<Int, Tag> offset(
      key, Int((Int(1) + layout.bound() * Int(terms) * n) % key.n_squared()));
  const Int shift = Int(1) << static_cast<unsigned>(layout.slot_bits());
  const std::size_t k = layout.slots();
  std::vector<ciphertext<Int, Tag>> out(layout.packed_count(cs.size()), offset);
  parallel_for_index(out.size(), options, [&](std::size_t c) {
    const std::size_t lo = c * k;
    const std::size_t hi = std::min(cs.size(), lo + k);
    ciphertext<Int, Tag> acc = cs[hi - 1] + offset;
    for (std::size_t i = hi - 1; i-- > lo;) acc = acc * shift + (cs[i] + offset);
    out[c] = std::move(acc);
  });
  return out;
}

/// The `count` signed values of packed ciphertexts that hold `terms` terms
/// of `layout` (the sum of the packed vectors' terms; 1: one vector), one decryption per packed
/// ciphertext, in parallel. invalid_parameter when terms is outside [1,
/// max_terms] or `packed` has not packed_count(count) ciphertexts;
/// protocol_error when a slot's content exceeds 2 bound terms or a plaintext
/// has bits beyond its slots (the ciphertexts are not what the layout
/// promises).
template <integer Int, key_tag Tag>
std::vector<Int> unpack_signed(const private_key<Int, Tag>& key,
                               const ciphertext_packing<Int, Tag>& layout,
                               std::type_identity_t<std::span<const ciphertext<Int, Tag>>> packed,
                               std::size_t count, std::size_t terms = 1,
                               batch_options options = {}) {
  if (terms < 1 || terms > layout.max_terms()) {
    throw_invalid("terms", terms, "[1, " + std::to_string(layout.max_terms()) + "]");
  }
  if (packed.size() != layout.packed_count(count)) {
    throw_invalid(
        "packed.size()", packed.size(),
        std::to_string(layout.packed_count(count)) + " for " + std::to_string(count) + " values");
  }
  const std::size_t k = layout.slots();
  const std::size_t w = layout.slot_bits();
  const Int offset = layout.bound() * Int(terms);
  const Int largest = Int(2) * offset;
  const Int mask = (Int(1) << static_cast<unsigned>(w)) - 1;
  std::vector<Int> out(count);
  std::vector<std::string> errors(packed.size());
  parallel_for_index(packed.size(), options, [&](std::size_t c) {
    Int m = key.decrypt(packed[c]);
    const std::size_t lo = c * k;
    const std::size_t hi = std::min(count, lo + k);
    for (std::size_t i = lo; i < hi; ++i) {
      const Int content = m & mask;
      m >>= static_cast<unsigned>(w);
      if (content > largest) {
        errors[c] = "privet: slot " + std::to_string(i) + " of a packed vector holds more than " +
                    "2 bound terms = " + detail::int_text(largest) +
                    "; allowed: contents within the layout's bound";
        return;
      }
      out[i] = content - offset;
    }
    if (m != 0) {
      errors[c] = "privet: packed ciphertext " + std::to_string(c) +
                  " has plaintext bits beyond its slots; allowed: only the layout's slots";
    }
  });
  for (const auto& e : errors) {
    if (!e.empty()) throw protocol_error(e);
  }
  return out;
}

}  // namespace privet::paillier
