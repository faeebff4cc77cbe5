// privet/crypto/shamir.hpp — Shamir secret sharing (Shamir 1979, "How to
// share a secret") over a prime field F_P, P < 2^63.
//
// A secret is a vector of field elements; each element gets its own random
// polynomial of degree t - 1 and every share holds the values of all of them
// at the share's point x. Any t shares determine the secret by Lagrange
// interpolation at 0; any t - 1 shares are uniformly distributed whatever the
// secret (for every element the map from the t - 1 random coefficients to the
// t - 1 values is a bijection, and the elements' polynomials are independent).
//
// The default field is F_p with p = 2^61 - 1. Secure aggregation shares
// 32-byte keys and seeds: packed 7 bytes (56 bits < 61) to an element, one
// such secret is 5 elements (shares of 40 bytes). A Mersenne prime makes a
// product one 64x64 -> 128-bit multiplication and a division-free reduction,
// where a field holding 256 bits at once needs multi-word big-integer
// arithmetic, and 2^127 - 1 would still need 3 elements (15 bytes each) with
// 256-bit products. Splitting a secret over several elements costs no
// security: each element is shared perfectly and independently.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/detail/field_arith.hpp>
#include <privet/crypto/detail/wipe_memory.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace privet::shamir {

/// A prime below 2^63 (so that a sum of two elements never overflows).
template <std::uint64_t P>
concept prime_modulus = P >= 2 && P < (std::uint64_t{1} << 63) && detail::field_is_prime(P);

/// An element of F_P. Construction from an integer >= P throws: reducing
/// silently would hide a caller's mistake (use `reduce` when meant).
template <std::uint64_t P>
requires prime_modulus<P>
class element {
 public:
  /// The field's prime P.
  static constexpr std::uint64_t modulus = P;

  /// Zero.
  constexpr element() noexcept = default;
  /// The element v; throws invalid_parameter ("value") when v >= P.
  constexpr explicit element(std::uint64_t v) : v_(v) {
    if (v >= P) throw_invalid("value", v, "< the field modulus " + std::to_string(P));
  }
  /// v mod P.
  static constexpr element reduce(std::uint64_t v) noexcept { return from_reduced(v % P); }

  /// The representative in [0, P).
  [[nodiscard]] constexpr std::uint64_t value() const noexcept { return v_; }

  /// Field addition, subtraction, negation and multiplication mod P (for
  /// P = 2^61 - 1 the product is reduced without a division).
  ///@{
  friend constexpr element operator+(element a, element b) noexcept {
    return from_reduced(detail::field_add_mod(a.v_, b.v_, P));
  }
  friend constexpr element operator-(element a, element b) noexcept {
    return from_reduced(detail::field_sub_mod(a.v_, b.v_, P));
  }
  friend constexpr element operator-(element a) noexcept { return element{} - a; }
  friend constexpr element operator*(element a, element b) noexcept {
    if constexpr (P == detail::mersenne61) {
      return from_reduced(detail::field_mul_mersenne61(a.v_, b.v_));
    } else {
      return from_reduced(detail::field_mul_mod(a.v_, b.v_, P));
    }
  }
  ///@}
  /// a / b; throws invalid_parameter when b = 0.
  friend constexpr element operator/(element a, element b) { return a * b.inverse(); }
  /// In-place forms of +, - and *.
  ///@{
  constexpr element& operator+=(element b) noexcept { return *this = *this + b; }
  constexpr element& operator-=(element b) noexcept { return *this = *this - b; }
  constexpr element& operator*=(element b) noexcept { return *this = *this * b; }
  ///@}

  /// This element to the power e (square and multiply, O(log e)
  /// multiplications); 0^0 = 1.
  [[nodiscard]] constexpr element pow(std::uint64_t e) const noexcept {
    element r = from_reduced(1 % P);
    element b = *this;
    for (; e != 0; e >>= 1) {
      if ((e & 1) != 0) r *= b;
      b *= b;
    }
    return r;
  }
  /// The multiplicative inverse (Fermat: a^(P-2)); throws for 0.
  [[nodiscard]] constexpr element inverse() const {
    if (v_ == 0) throw_invalid("divisor", 0, "a nonzero field element");
    return pow(P - 2);
  }

  /// Equal representatives.
  friend constexpr bool operator==(element a, element b) noexcept = default;

 private:
  static constexpr element from_reduced(std::uint64_t v) noexcept {
    element e;
    e.v_ = v;
    return e;
  }
  std::uint64_t v_ = 0;
};

/// F_p, p = 2^61 - 1: the field secure aggregation shares its keys in.
using gf61 = element<detail::mersenne61>;

namespace detail {
template <class T>
struct is_element : std::false_type {};
template <std::uint64_t P>
struct is_element<element<P>> : std::true_type {};
}  // namespace detail

/// One of the `element<P>` types.
template <class F>
concept prime_field = detail::is_element<std::remove_cv_t<F>>::value;

/// A field large enough to hold at least one byte per element.
template <class F>
concept byte_field = prime_field<F> &&(F::modulus > 256);

/// The values of a share: a vector whose storage is zeroed when it is
/// released (destruction, and the old block when it grows). A moved-from
/// share_values is empty (its block moved with it). Copies are wiped in
/// their turn.
template <class F>
using share_values = std::vector<F, privet::detail::wiping_allocator<F>>;

/// The share of party `x`: the values at x of the polynomial of every
/// element of the secret (zeroed when released, see share_values).
template <prime_field F>
struct share {
  /// The party's point: nonzero and < F::modulus.
  std::uint64_t x = 0;
  /// y[j] is the value at x of element j's polynomial.
  share_values<F> y;
  /// Same point and same values.
  friend bool operator==(const share&, const share&) = default;
};

namespace detail {
// Points must be distinct, nonzero (0 is where the secret sits) and < P.
template <prime_field F>
void validate_points(std::span<const std::uint64_t> points, std::string_view name) {
  if (points.empty()) throw_empty(name);
  std::vector<std::uint64_t> sorted(points.begin(), points.end());
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() == 0) throw_invalid(name, 0, "nonzero points (0 holds the secret)");
  if (sorted.back() >= F::modulus) {
    throw_invalid(name, sorted.back(), "points < the field modulus " + std::to_string(F::modulus));
  }
  if (auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end()) {
    throw_invalid(name, *d, "distinct points (this one repeats)");
  }
}
}  // namespace detail

/// Splits `secret` into one share per point of `points` (distinct, nonzero,
/// < P) so that any `threshold` shares reconstruct it and fewer reveal
/// nothing. Coefficients are uniform draws from `gen`, which must be a
/// secure generator. Throws invalid_parameter when `secret` or `points` is
/// empty, a point is 0, >= P or repeated, or threshold is outside [1,
/// points.size()]. O(points.size() * secret.size() * threshold) field
/// operations.
template <prime_field F, random_bit_source G>
std::vector<share<F>> split(std::span<const F> secret, std::size_t threshold,
                            std::span<const std::uint64_t> points, G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  validate_non_empty(secret, "secret");
  detail::validate_points<F>(points, "points");
  if (threshold < 1 || threshold > points.size()) {
    throw_invalid("threshold", threshold,
                  "[1, number of points = " + std::to_string(points.size()) + "]");
  }
  const std::size_t m = secret.size();
  // coefficients[j * threshold + d] is the degree-d coefficient for element j.
  std::vector<F> coefficients(m * threshold);
  for (std::size_t j = 0; j < m; ++j) {
    coefficients[j * threshold] = secret[j];
    for (std::size_t d = 1; d < threshold; ++d) {
      coefficients[j * threshold + d] = F(uniform_below(gen, F::modulus));
    }
  }
  std::vector<share<F>> shares(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const F x(points[i]);
    shares[i].x = points[i];
    shares[i].y.resize(m);
    for (std::size_t j = 0; j < m; ++j) {
      F acc;
      for (std::size_t d = threshold; d-- > 0;) acc = acc * x + coefficients[j * threshold + d];
      shares[i].y[j] = acc;
    }
  }
  // The coefficients (the secret among them) are zeroed before the vector
  // frees them: a plain fill before a free is a dead store the compiler
  // may drop.
  privet::detail::secure_zero(coefficients.data(), coefficients.size() * sizeof(F));
  return shares;
}

/// Splits `secret` among parties 1, 2, ..., `parties` (the share of party i
/// is at x = i). Throws invalid_parameter unless parties is in [1, P - 1],
/// and as the overload above.
template <prime_field F, random_bit_source G>
std::vector<share<F>> split(std::span<const F> secret, std::size_t threshold, std::size_t parties,
                            G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  if (parties < 1 || parties >= F::modulus) {
    throw_invalid("parties", parties, "[1, field modulus - 1]");
  }
  std::vector<std::uint64_t> points(parties);
  for (std::size_t i = 0; i < parties; ++i) points[i] = i + 1;
  return split(secret, threshold, std::span<const std::uint64_t>(points), gen);
}

/// The value at `at` of the unique polynomial of degree < xs.size() through
/// the points (xs[i], ys[i]) (Lagrange's formula; xs distinct). Throws
/// invalid_parameter when xs is empty, ys.size() != xs.size() or a point
/// repeats. O(n^2) field operations and n inversions, n = xs.size().
template <prime_field F>
F interpolate(std::span<const F> xs, std::span<const F> ys, F at) {
  validate_non_empty(xs, "xs");
  if (ys.size() != xs.size()) {
    throw_invalid("ys", ys.size(), "as many values as xs.size() = " + std::to_string(xs.size()));
  }
  F result;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    F num = F::reduce(1), den = F::reduce(1);
    for (std::size_t k = 0; k < xs.size(); ++k) {
      if (k == i) continue;
      if (xs[k] == xs[i]) throw_invalid("xs", xs[i].value(), "distinct points (this one repeats)");
      num *= at - xs[k];
      den *= xs[i] - xs[k];
    }
    result += ys[i] * num / den;
  }
  return result;
}

/// Reconstruction from the shares of a fixed set of parties, for many
/// secrets at once: the Lagrange weights are computed once per point set.
/// The first `threshold` points determine the polynomial; every further
/// point is checked to lie on it, so that inconsistent (corrupted or mixed
/// up) shares raise protocol_error instead of yielding a wrong secret.
template <prime_field F>
class reconstructor {
 public:
  /// Precomputes the Lagrange weights for `points` (distinct, nonzero,
  /// < F::modulus) and `threshold` in [1, points.size()]; throws
  /// invalid_parameter otherwise. O(t^2 + (points.size() - t) t) field
  /// operations, t = threshold, and t inversions.
  reconstructor(std::span<const std::uint64_t> points, std::size_t threshold)
      : points_(points.begin(), points.end()), threshold_(threshold) {
    detail::validate_points<F>(points, "points");
    if (threshold < 1 || threshold > points.size()) {
      throw_invalid("threshold", threshold,
                    "[1, number of points = " + std::to_string(points.size()) + "]");
    }
    const std::size_t t = threshold;
    std::vector<F> x(t);
    for (std::size_t i = 0; i < t; ++i) x[i] = F(points[i]);
    // Basis polynomial i at z: prod_{k != i} (z - x_k) / (x_i - x_k). The
    // denominators are shared by every z and inverted once.
    std::vector<F> inv_den(t);
    for (std::size_t i = 0; i < t; ++i) {
      F den = F::reduce(1);
      for (std::size_t k = 0; k < t; ++k) {
        if (k != i) den *= x[i] - x[k];
      }
      inv_den[i] = den.inverse();
    }
    const std::size_t rows = 1 + points.size() - t;  // z = 0, then each extra point
    weights_.resize(rows * t);
    std::vector<F> prefix(t + 1), suffix(t + 1);
    for (std::size_t r = 0; r < rows; ++r) {
      const F z = r == 0 ? F{} : F(points[t + r - 1]);
      prefix[0] = suffix[t] = F::reduce(1);
      for (std::size_t k = 0; k < t; ++k) prefix[k + 1] = prefix[k] * (z - x[k]);
      for (std::size_t k = t; k-- > 0;) suffix[k] = suffix[k + 1] * (z - x[k]);
      for (std::size_t i = 0; i < t; ++i) {
        weights_[r * t + i] = prefix[i] * suffix[i + 1] * inv_den[i];
      }
    }
  }

  /// The parties' points, in the order secret() expects their values.
  [[nodiscard]] std::span<const std::uint64_t> points() const noexcept { return points_; }
  /// The number of shares that determine the polynomial.
  [[nodiscard]] std::size_t threshold() const noexcept { return threshold_; }

  /// The secret from ys[i], the value at points()[i]; throws protocol_error
  /// when a value past the first `threshold` disagrees with them, and
  /// invalid_parameter when ys.size() != points().size(). O(points().size()
  /// * threshold()) field operations.
  [[nodiscard]] F secret(std::span<const F> ys) const {
    if (ys.size() != points_.size()) {
      throw_invalid("ys", ys.size(),
                    "one value per point (" + std::to_string(points_.size()) + ")");
    }
    const std::size_t t = threshold_;
    for (std::size_t r = 1; r + t - 1 < points_.size(); ++r) {
      if (combine(r, ys) != ys[t + r - 1]) {
        throw protocol_error("privet: Shamir shares are inconsistent: the share at x = " +
                             std::to_string(points_[t + r - 1]) +
                             " is not on the polynomial through the first " + std::to_string(t) +
                             " shares");
      }
    }
    return combine(0, ys);
  }

 private:
  F combine(std::size_t row, std::span<const F> ys) const {
    F acc;
    for (std::size_t i = 0; i < threshold_; ++i) acc += weights_[row * threshold_ + i] * ys[i];
    return acc;
  }

  std::vector<std::uint64_t> points_;
  std::size_t threshold_;
  std::vector<F> weights_;  // row 0: weights at 0; row r: at points_[threshold + r - 1]
};

/// The secret from `shares` (at least `threshold`, distinct points, equal
/// lengths). Shares beyond the first `threshold` are checked for
/// consistency (protocol_error when one is off the polynomial). Throws
/// invalid_parameter when threshold < 1, there are fewer shares than that,
/// the shares' lengths differ or are 0, or their points are not distinct,
/// nonzero and < P.
template <prime_field F>
std::vector<F> reconstruct(std::span<const share<F>> shares, std::size_t threshold) {
  if (threshold < 1) throw_invalid("threshold", threshold, ">= 1");
  if (shares.size() < threshold) {
    throw_invalid("shares", shares.size(),
                  "at least threshold = " + std::to_string(threshold) + " shares");
  }
  const std::size_t m = shares.front().y.size();
  std::vector<std::uint64_t> points(shares.size());
  for (std::size_t i = 0; i < shares.size(); ++i) {
    if (shares[i].y.size() != m) {
      throw_invalid("shares", shares[i].y.size(),
                    "shares of equal length (" + std::to_string(m) + " elements)");
    }
    points[i] = shares[i].x;
  }
  if (m == 0) throw_empty("shares");
  const reconstructor<F> rec(points, threshold);
  std::vector<F> secret(m), ys(shares.size());
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t i = 0; i < shares.size(); ++i) ys[i] = shares[i].y[j];
    secret[j] = rec.secret(ys);
  }
  privet::detail::secure_zero(ys.data(), ys.size() * sizeof(F));  // share values
  return secret;
}

/// Bytes carried by one element of F: the most whole bytes below P.
template <byte_field F>
inline constexpr std::size_t bytes_per_element = [] {
  std::size_t k = 0;
  while (k < 7 && (std::uint64_t{1} << (8 * (k + 1))) <= F::modulus) ++k;
  return k;
}();

/// `bytes` as field elements, `bytes_per_element<F>` little-endian bytes per
/// element (the last one holds the remainder): an injective packing, so a
/// uniformly random byte string stays uniformly random among its images.
template <byte_field F>
std::vector<F> pack_bytes(std::span<const std::uint8_t> bytes) {
  validate_non_empty(bytes, "bytes");
  constexpr std::size_t k = bytes_per_element<F>;
  std::vector<F> out((bytes.size() + k - 1) / k);
  for (std::size_t e = 0; e < out.size(); ++e) {
    std::uint64_t v = 0;
    const std::size_t begin = e * k, end = std::min(bytes.size(), begin + k);
    for (std::size_t i = end; i-- > begin;) v = (v << 8) | bytes[i];
    out[e] = F(v);
  }
  return out;
}

/// The inverse of pack_bytes for a byte string of `size` bytes. An element
/// too large for the bytes it stands for cannot come from pack_bytes: it
/// means the shares it was reconstructed from were wrong (protocol_error).
template <byte_field F>
std::vector<std::uint8_t> unpack_bytes(std::span<const F> elements, std::size_t size) {
  constexpr std::size_t k = bytes_per_element<F>;
  if (size == 0) throw_invalid("size", size, ">= 1");
  if (elements.size() != (size + k - 1) / k) {
    throw_invalid(
        "elements", elements.size(),
        std::to_string((size + k - 1) / k) + " elements for " + std::to_string(size) + " bytes");
  }
  std::vector<std::uint8_t> out(size);
  for (std::size_t e = 0; e < elements.size(); ++e) {
    std::uint64_t v = elements[e].value();
    const std::size_t begin = e * k, end = std::min(size, begin + k);
    for (std::size_t i = begin; i < end; ++i, v >>= 8) out[i] = static_cast<std::uint8_t>(v);
    if (v != 0) {
      throw protocol_error("privet: field element " + std::to_string(e) +
                           " does not encode bytes: the shares it came from are inconsistent");
    }
  }
  return out;
}

}  // namespace privet::shamir
