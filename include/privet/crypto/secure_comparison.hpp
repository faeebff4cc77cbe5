// privet/crypto/secure_comparison.hpp — two-party comparison of private
// integers by the DGK protocol (Damgård, Geisler and Krøigaard 2007,
// "Efficient and secure comparison for on-line auctions", ACISP, and the 2009
// correction; the cryptosystem is crypto/dgk.hpp), and a wrapper comparing
// additive shares modulo N (a Paillier n, say) by statistical masking, as
// Erkin et al. ("Privacy-preserving face recognition", PETS 2009) and Veugen
// ("Comparing encrypted data") reduce the comparison of encrypted values to DGK's.
//
// Core protocol. The client holds x, the server y and the DGK private key,
// both l-bit integers (in [0, 2^l)); the designated party learns [x > y],
// the other nothing.
//   1 server -> client  E(y_i) for the l bits of y (encrypted_bits).
//   2 client -> server  with a secret random bit d_A and s = 1 - 2 d_A, the
//                       l + 1 values
//                         c_i    = 1 + s (x_i - y_i) + sum_{j > i} (x_j xor y_j)
//                         c_{-1} = d_A + sum_j (x_j xor y_j)
//                       computed under encryption (x_j xor y_j is E(y_j) or
//                       E(1) E(y_j)^-1 by x_j), each raised to a uniform
//                       nonzero r_i in Z_u, re-randomised, and sent in a
//                       uniformly random order (blinded_tests).
//   3 server            d_B = 1 when one of them decrypts to 0.
// Every c lies in [0, l + 1] (the sum of the x_j xor y_j is at least 1 when
// a higher bit differs, which keeps c_i > 0), so with u > l + 1 a c is 0 mod
// u only when it is 0: c_i = 0 exactly at the highest differing bit i when
// x_i - y_i = -s, i.e. x < y for d_A = 0 and x > y for d_A = 1; c_{-1} = 0
// exactly when x = y and d_A = 0. So d_A xor d_B = [x <= y] whatever d_A.
// (c_{-1} is the equality term also used by Joye and Salehi, DBSec 2018;
// without it the output would be [x < y] or [x <= y] depending on d_A.)
// The output bits are XOR shares: the server sends d_B (output_share) when
// the client is to learn the result; the client attaches its own share to
// the tests when the server is. One zero or none among values that are
// otherwise uniform in Z*_u, in uniform order: the server's view tells it d_B,
// a uniform bit independent of the inputs; the client sees DGK ciphertexts
// only. Each party draws its randomness from the generator it is given
// (secure_generator() unless a test injects one).
//
// Share comparison. The parties hold r (client) and s (server) in Z_N with
// v = r - s mod N read as a signed integer; the range assumption is
// |v| <= 2^l - 1, and the output is [v > 0] ("r > s" for shares). With
// z = v + 2^l - 1 in [0, 2^(l+1) - 2], [v > 0] is bit l of z.
//   0 client -> server  a = r + 2^l - 1 + rho mod N, rho uniform in
//                       [0, 2^(l + 1 + kappa)) (masked_share).
//   server              d = a - s mod N = z + rho: no wrap when N >=
//                       2^(l + kappa + 2), which is checked. d hides z
//                       within statistical distance 2^-kappa.
//   then the core protocol on alpha = d mod 2^l (server) and beta = rho mod
//   2^l (client): floor(z / 2^l) = floor(d / 2^l) - floor(rho / 2^l) -
//   [alpha < beta], so [v > 0] = d_l xor rho_l xor [beta > alpha], d_l and
//   rho_l the bits l of d and rho; each party folds its bit into its share.
// The wrapper relies on the range assumption: for |v| >= 2^l the output is
// meaningless. The server detects such a v (protocol_error) whenever d lands
// outside [0, 2^(l+1+kappa) + 2^(l+1) - 2], not always; choose l from a
// proven bound on |v| (the fixed-point bound of a dot product, say).
// For the private spam filter: Carol (client) draws r uniform in Z_n and
// sends E[w^T x' - r]; Bob (server) decrypts m = w^T x' - r and takes s = -m
// mod n; then r - s = w^T x', and the share comparison tells Carol
// [w^T x' > 0] and Bob nothing.
//
// Messages (masked_share, encrypted_bits, blinded_tests, output_share) have
// a binary encoding (`serialize`, `deserialize<M>`; serialization_error for
// anything but an exact encoding). A party rejects a message that is
// malformed for its key, from another session, out of order or replayed
// with protocol_error and is left exactly as before; an input outside its
// range is an invalid_parameter. One party object runs one comparison.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/detail/wipe.hpp>
#include <privet/crypto/detail/wire.hpp>
#include <privet/crypto/dgk.hpp>

#include <boost/multiprecision/integer.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::comparison {

/// Which party learns the comparison's result.
enum class output_party : std::uint8_t {
  client = 1,  ///< the server sends its share (output_share)
  server = 2,  ///< the client attaches its share to the blinded tests
  shared = 3,  ///< neither: each party keeps its XOR share (`share()`), for a
               ///< protocol that goes on computing on the result
};

/// What both parties of one core comparison agree on.
struct parameters {
  std::size_t bits = 0;  ///< l: both inputs lie in [0, 2^l); the DGK key needs u >= l + 2
  output_party output = output_party::client;  ///< who learns [x > y]
  std::uint64_t session = 0;                   ///< distinguishes runs; every message carries it
};

/// Bounds of the statistical security parameter kappa of the share wrapper.
///@{
inline constexpr std::size_t min_statistical_security = 40;
inline constexpr std::size_t max_statistical_security = 1024;
///@}
/// Largest element width of an encoded message: a 16384-bit modulus.
inline constexpr std::uint32_t max_element_bytes = dgk::max_key_bits / 8;
/// Smallest width of a list of DGK ciphertexts (encrypted bits, blinded
/// tests): the smallest DGK modulus, dgk::min_insecure_key_bits = 128 bits.
/// Each element becomes an Int of sizeof(Int) bytes plus its limbs, so a
/// floor on the width bounds what a list costs in memory to a small multiple
/// of its bytes (1-byte elements made 10 MB 482 MB).
inline constexpr std::uint32_t min_ciphertext_bytes = dgk::min_insecure_key_bits / 8;
/// Most elements in one list: l or l + 1 for l-bit inputs, and l + 2 <= u <=
/// dgk::max_plaintext_prime.
inline constexpr std::uint32_t max_message_elements = dgk::max_plaintext_prime - 1;

/// What both parties of one share comparison agree on.
template <dgk::integer Int>
struct share_parameters {
  Int modulus = 0;       ///< N: the shares live in Z_N; N >= 2^(bits + kappa + 2)
  std::size_t bits = 0;  ///< l: v = r - s mod N, read signed, satisfies |v| <= 2^l - 1
  std::size_t statistical_security = 80;       ///< kappa: d hides v within 2^-kappa
  output_party output = output_party::client;  ///< who learns [v > 0]
  std::uint64_t session = 0;                   ///< distinguishes runs; every message carries it
};

/// Where a party stands: the call it takes next.
enum class stage : std::uint8_t {
  mask_share = 0,      ///< share client: mask()
  receive_share = 1,   ///< share server: receive()
  send_bits = 2,       ///< core server: encrypt_input()
  evaluate = 3,        ///< client: evaluate()
  finish = 4,          ///< server: respond() or result()
  receive_output = 5,  ///< client: result()
  done = 6,
};

/// The type byte of an encoded message (see peek_type).
enum class message_type : std::uint8_t {
  masked_share = 1,    ///< a masked_share
  encrypted_bits = 2,  ///< an encrypted_bits
  blinded_tests = 3,   ///< a blinded_tests
  output_share = 4,    ///< an output_share
};

/// Share wrapper, client -> server: a = r + 2^l - 1 + rho mod N.
template <dgk::integer Int>
struct masked_share {
  static constexpr message_type type = message_type::masked_share;  ///< The type byte.
  std::uint64_t session = 0;  ///< The session of the parameters.
  std::uint32_t width = 0;    ///< bytes of N
  Int value = 0;              ///< a, in [0, N)
  /// Field-wise equality.
  friend bool operator==(const masked_share&, const masked_share&) = default;
};

/// Round 1, server -> client: E(y_0), ..., E(y_{l-1}), least significant first.
template <dgk::integer Int>
struct encrypted_bits {
  static constexpr message_type type = message_type::encrypted_bits;  ///< The type byte.
  std::uint64_t session = 0;  ///< The session of the parameters.
  std::uint32_t width = 0;    ///< bytes of the DGK modulus n
  std::vector<Int> bits;      ///< l DGK ciphertext values, bit i at index i
  /// Field-wise equality.
  friend bool operator==(const encrypted_bits&, const encrypted_bits&) = default;
};

/// Round 2, client -> server: the l + 1 blinded tests in random order, and
/// the client's output share when the server is to learn the result.
template <dgk::integer Int>
struct blinded_tests {
  static constexpr message_type type = message_type::blinded_tests;  ///< The type byte.
  std::uint64_t session = 0;  ///< The session of the parameters.
  std::uint32_t width = 0;    ///< bytes of the DGK modulus n
  std::vector<Int> tests;     ///< l + 1 DGK ciphertext values, shuffled
  /// The client's XOR share of the result, present exactly when
  /// output_party::server.
  std::optional<bool> client_share;
  /// Field-wise equality.
  friend bool operator==(const blinded_tests&, const blinded_tests&) = default;
};

/// Round 3, server -> client (when the client learns the result).
struct output_share {
  static constexpr message_type type = message_type::output_share;  ///< The type byte.
  std::uint64_t session = 0;  ///< The session of the parameters.
  bool share = false;         ///< The server's XOR share of the result.
  /// Field-wise equality.
  friend bool operator==(const output_share&, const output_share&) = default;
};

namespace detail {

template <class M>
struct is_message : std::false_type {};
template <class Int>
struct is_message<masked_share<Int>> : std::true_type {};
template <class Int>
struct is_message<encrypted_bits<Int>> : std::true_type {};
template <class Int>
struct is_message<blinded_tests<Int>> : std::true_type {};
template <>
struct is_message<output_share> : std::true_type {};

// The big-integer type of a message's elements.
template <class M>
struct message_integer {};
template <template <class> class Message, class Int>
struct message_integer<Message<Int>> {
  using type = Int;
};

}  // namespace detail

/// One of the four message types.
template <class M>
concept message = detail::is_message<M>::value;

namespace detail {

using privet::detail::bits_of;
using privet::detail::wire_reader;
using privet::detail::wire_writer;

inline constexpr std::uint8_t wire_version = 1;

inline const char* name_of(message_type t) noexcept {
  switch (t) {
    case message_type::masked_share:
      return "masked share";
    case message_type::encrypted_bits:
      return "encrypted bits";
    case message_type::blinded_tests:
      return "blinded tests";
    case message_type::output_share:
      return "output share";
  }
  return "message";
}

inline const char* name_of(stage s) noexcept {
  switch (s) {
    case stage::mask_share:
      return "masking its share";
    case stage::receive_share:
      return "waiting for the masked share";
    case stage::send_bits:
      return "encrypting its input";
    case stage::evaluate:
      return "waiting for the encrypted bits";
    case stage::finish:
      return "waiting for the blinded tests";
    case stage::receive_output:
      return "waiting for the output share";
    case stage::done:
      return "done";
  }
  return "unknown";
}

[[noreturn]] inline void fail(const char* party, const std::string& why) {
  throw protocol_error(std::string("privet: secure comparison ") + party + ": " + why);
}

// Where the parameters send the result, and the call that gets it there on
// `party`'s side, for the messages of a call the parameters do not allow.
inline std::string result_goes(output_party p, const char* party) {
  const bool server = std::string_view(party) == "server";
  switch (p) {
    case output_party::client:
      return server ? "give it to the client (call respond())" : "give it to the client";
    case output_party::server:
      return server ? "give it to the server (call result())" : "give it to the server";
    case output_party::shared:
      return "keep it shared (call share())";
  }
  return "give it to no known party";
}

// l in [1, u - 2]: every test value lies in [0, l + 1] and must not reach u.
template <class Int>
void check_bits(std::size_t bits, const dgk::public_key<Int>& key) {
  const std::uint32_t u = key.plaintext_modulus();
  if (bits < 1 || bits + 2 > u) {
    throw_invalid("bits", bits,
                  "[1, " + std::to_string(u - 2) + "] for a DGK key with u = " + std::to_string(u) +
                      " (u must exceed l + 1: a key from dgk::key_parameters::for_comparison(l))");
  }
}

inline void check_output(output_party p) {
  if (p != output_party::client && p != output_party::server && p != output_party::shared) {
    throw_invalid("output", static_cast<int>(p),
                  "output_party::client, output_party::server or output_party::shared");
  }
}

template <class Int>
void check_input(const char* name, const Int& v, std::size_t bits) {
  if (v < 0 || bits_of(v) > bits) {
    throw invalid_parameter(name, std::string("privet: comparison input ") + name +
                                      " is outside its range; allowed: [0, 2^" +
                                      std::to_string(bits) + ")");
  }
}

template <class Int, class I>
Int to_input(const char* name, I v) {
  if constexpr (std::is_signed_v<I>) {
    if (v < 0) {
      throw invalid_parameter(name, std::string("privet: comparison input ") + name +
                                        " is negative; allowed: an integer >= 0");
    }
  }
  return Int(static_cast<unsigned long long>(v));
}

template <class Int>
std::size_t width_of(const dgk::public_key<Int>& key) {
  return (key.bits() + 7) / 8;
}

// The received values as ciphertexts of `key`, or protocol_error naming the
// first fault (nothing else is touched).
template <class Int>
std::vector<dgk::ciphertext<Int>> read_ciphertexts(const dgk::public_key<Int>& key,
                                                   std::uint32_t width,
                                                   const std::vector<Int>& values,
                                                   std::size_t expected, const char* what,
                                                   const char* party) {
  const auto& ctx = dgk::detail::access::context(key);
  if (width != width_of(key)) {
    fail(party, std::string("the ") + what + " have elements of " + std::to_string(width) +
                    " bytes, not the " + std::to_string(width_of(key)) + " of the DGK modulus");
  }
  if (values.size() != expected) {
    fail(party, std::string("the ") + what + " hold " + std::to_string(values.size()) +
                    " ciphertexts, not " + std::to_string(expected));
  }
  std::vector<dgk::ciphertext<Int>> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!dgk::detail::is_unit(*ctx, values[i])) {
      fail(party, std::string("element ") + std::to_string(i) + " of the " + what +
                      " is not in Z*_n (a DGK ciphertext lies in [1, n) and is coprime to n)");
    }
    out.push_back(dgk::detail::access::make(ctx, values[i]));
  }
  return out;
}

}  // namespace detail

// ---- encoding ---------------------------------------------------------------
// Every message: version (1 byte), type (1 byte), session (8 bytes LE), then
// its fields. Big integers are big-endian on a fixed width (the modulus'
// byte length) given once per message as 4 bytes LE; counts are 4 bytes LE;
// an optional share is a presence byte (0 or 1) followed, when present, by
// the bit as one byte (0 or 1).

namespace detail {

inline void write_header(wire_writer& w, message_type t, std::uint64_t session) {
  privet::detail::write_message_header(w, wire_version, static_cast<std::uint8_t>(t), session);
}

inline std::uint64_t read_header(wire_reader& r, message_type t) {
  return privet::detail::read_message_header(r, wire_version, static_cast<std::uint8_t>(t),
                                             name_of(t));
}

inline void write_width(wire_writer& w, std::uint32_t width, const char* what) {
  if (width < 1 || width > max_element_bytes) {
    throw serialization_error(std::string("privet: cannot encode a ") + what + ": width " +
                              std::to_string(width) + " outside [1, " +
                              std::to_string(max_element_bytes) + "] bytes");
  }
  w.u32(width);
}

inline std::uint32_t read_width(wire_reader& r) {
  const std::uint32_t width = r.u32();
  if (width < 1 || width > max_element_bytes) {
    r.fail("element width " + std::to_string(width) + " outside [1, " +
           std::to_string(max_element_bytes) + "] bytes");
  }
  return width;
}

// v on `width` bytes; a value that does not fit is not cut short.
template <class Int>
void write_element(wire_writer& w, const Int& v, std::uint32_t width, const char* what) {
  if (v < 0 || bits_of(v) > 8 * static_cast<std::size_t>(width)) {
    throw serialization_error(std::string("privet: cannot encode a ") + what +
                              ": an element does not fit its width of " + std::to_string(width) +
                              " bytes");
  }
  dgk::detail::write_fixed(w, v, width);
}

template <class Int>
void write_elements(wire_writer& w, const std::vector<Int>& vs, std::uint32_t width,
                    const char* what) {
  if (width < min_ciphertext_bytes) {
    throw serialization_error(std::string("privet: cannot encode a ") + what + ": width " +
                              std::to_string(width) + " below the " +
                              std::to_string(min_ciphertext_bytes) +
                              " bytes of the smallest DGK modulus");
  }
  if (vs.size() > max_message_elements) {
    throw serialization_error(std::string("privet: cannot encode a ") + what + ": " +
                              std::to_string(vs.size()) + " elements, more than the " +
                              std::to_string(max_message_elements) + " of any comparison");
  }
  write_width(w, width, what);
  w.count(vs.size());
  for (const auto& v : vs) write_element(w, v, width, what);
}

// The width and the count are checked before any Int is made: memory is at
// most count (sizeof(Int) + width + limb rounding), within a small multiple
// of the message's length since width >= min_ciphertext_bytes.
template <class Int>
std::vector<Int> read_elements(wire_reader& r, std::uint32_t width) {
  if (width < min_ciphertext_bytes) {
    r.fail("element width " + std::to_string(width) + " below the " +
           std::to_string(min_ciphertext_bytes) + " bytes of the smallest DGK modulus");
  }
  const std::size_t count = r.count(width);
  if (count > max_message_elements) {
    r.fail("a count of " + std::to_string(count) + " elements exceeds the " +
           std::to_string(max_message_elements) +
           " of any comparison (l + 1 < u <= " + std::to_string(dgk::max_plaintext_prime) + ")");
  }
  std::vector<Int> vs(count);
  for (auto& v : vs) v = dgk::detail::read_fixed<Int>(r, width);
  return vs;
}

inline bool read_bit(wire_reader& r, const char* what) {
  const std::uint8_t b = r.u8();
  if (b > 1) r.fail(std::string(what) + " byte " + std::to_string(b) + " is neither 0 nor 1");
  return b == 1;
}

}  // namespace detail

/// The binary encoding of a message: version, type, session (8 bytes LE),
/// then its fields (see the encoding comment above). serialization_error
/// when a width is outside [1, max_element_bytes] (for a list of
/// ciphertexts, below min_ciphertext_bytes), an element does not fit its
/// width, or a list exceeds max_message_elements.
///@{
template <dgk::integer Int>
std::vector<std::uint8_t> serialize(const masked_share<Int>& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  detail::write_width(w, m.width, "masked share");
  detail::write_element(w, m.value, m.width, "masked share");
  return w.take();
}

template <dgk::integer Int>
std::vector<std::uint8_t> serialize(const encrypted_bits<Int>& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  detail::write_elements(w, m.bits, m.width, "encrypted bits message");
  return w.take();
}

template <dgk::integer Int>
std::vector<std::uint8_t> serialize(const blinded_tests<Int>& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  detail::write_elements(w, m.tests, m.width, "blinded tests message");
  w.u8(m.client_share ? 1 : 0);
  if (m.client_share) w.u8(*m.client_share ? 1 : 0);
  return w.take();
}

inline std::vector<std::uint8_t> serialize(const output_share& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  w.u8(m.share ? 1 : 0);
  return w.take();
}
///@}

/// The type of an encoded message (serialization_error if it is none).
inline message_type peek_type(std::span<const std::uint8_t> bytes) {
  return static_cast<message_type>(privet::detail::peek_message_type(
      bytes, "secure comparison message", detail::wire_version, 4));
}

namespace detail {
template <message M>
M read_message(std::span<const std::uint8_t> bytes, std::size_t expected_width) {
  detail::wire_reader r(bytes, detail::name_of(M::type));
  M m;
  m.session = detail::read_header(r, M::type);
  if constexpr (std::same_as<M, output_share>) {
    m.share = detail::read_bit(r, "share");
  } else {
    using Int = typename detail::message_integer<M>::type;
    m.width = detail::read_width(r);
    if (expected_width != 0 && m.width != expected_width) {
      r.fail("element width " + std::to_string(m.width) + " bytes, not the " +
             std::to_string(expected_width) + " of the DGK modulus");
    }
    if constexpr (std::same_as<M, masked_share<Int>>) {
      m.value = dgk::detail::read_fixed<Int>(r, m.width);
    } else if constexpr (std::same_as<M, encrypted_bits<Int>>) {
      m.bits = detail::read_elements<Int>(r, m.width);
    } else {
      m.tests = detail::read_elements<Int>(r, m.width);
      if (detail::read_bit(r, "share presence")) m.client_share = detail::read_bit(r, "share");
    }
  }
  r.finish();
  return m;
}
}  // namespace detail

/// Decodes a message of type M; serialization_error for anything but an
/// exact encoding of one (wrong type or version, truncated, trailing bytes,
/// widths outside [1, max_element_bytes] or, for a list of ciphertexts,
/// below min_ciphertext_bytes, counts that do not fit or exceed
/// max_message_elements, bits other than 0 and 1). Everything is checked
/// before a big integer is made; memory is within a small multiple of the
/// message's length (bench/secure_comparison_bench.cpp).
template <message M>
M deserialize(std::span<const std::uint8_t> bytes) {
  return detail::read_message<M>(bytes, 0);
}

/// As above for a list of ciphertexts under `key`, whose width (the bytes
/// of its modulus) the message must have: checked before any element is
/// read.
template <message M, dgk::integer Int>
requires(!std::same_as<M, output_share> && !std::same_as<M, masked_share<Int>>) M
    deserialize(std::span<const std::uint8_t> bytes, const dgk::public_key<Int>& key) {
  return detail::read_message<M>(bytes, detail::width_of(key));
}

// ---- the core protocol ----------------------------------------------------------

template <dgk::integer Int>
class share_client;
template <dgk::integer Int>
class share_server;

/// The party holding the DGK private key and y.
template <dgk::integer Int>
class server {
 public:
  /// Throws invalid_parameter when params.bits is outside [1, u - 2] or
  /// params.output is not a party.
  server(dgk::private_key<Int> key, const parameters& params)
      : key_(std::move(key)), params_(params) {
    detail::check_bits(params.bits, key_.public_key());
    detail::check_output(params.output);
  }
  /// Movable, not copyable: one party object runs one comparison.
  ///@{
  server(const server&) = delete;
  server& operator=(const server&) = delete;
  server(server&&) noexcept = default;
  server& operator=(server&&) noexcept = default;
  ///@}

  /// The call this party takes next.
  [[nodiscard]] stage next() const noexcept { return next_; }
  /// The parameters it was made with.
  [[nodiscard]] const parameters& params() const noexcept { return params_; }

  /// Round 1: the DGK encryptions of y's bits, y in [0, 2^l) (else
  /// invalid_parameter), randomness from `gen`; protocol_error when called
  /// out of order. l encryptions.
  template <random_bit_source G>
  encrypted_bits<Int> encrypt_input(const Int& y, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    detail::check_input("y", y, params_.bits);
    require(stage::send_bits, "a request to encrypt its input");
    const auto& pk = key_.public_key();
    encrypted_bits<Int> out;
    out.session = params_.session;
    out.width = static_cast<std::uint32_t>(detail::width_of(pk));
    out.bits.reserve(params_.bits);
    for (std::size_t i = 0; i < params_.bits; ++i) {
      const bool bit = boost::multiprecision::bit_test(y, static_cast<unsigned>(i));
      out.bits.push_back(pk.encrypt(bit ? 1 : 0, gen).value());
    }
    next_ = stage::finish;
    return out;
  }
  /// As above, with randomness from this thread's secure generator.
  encrypted_bits<Int> encrypt_input(const Int& y) { return encrypt_input(y, secure_generator()); }
  /// As above for a built-in integer y (invalid_parameter when negative).
  template <integer_number I, random_bit_source G>
  encrypted_bits<Int> encrypt_input(I y, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    return encrypt_input(detail::to_input<Int>("y", y), gen);
  }
  /// As above, with randomness from this thread's secure generator.
  template <integer_number I>
  encrypted_bits<Int> encrypt_input(I y) {
    return encrypt_input(detail::to_input<Int>("y", y), secure_generator());
  }

  /// Round 3 when the client learns the result: the server's share.
  output_share respond(const blinded_tests<Int>& m) {
    require(stage::finish, "blinded tests");
    if (params_.output != output_party::client) {
      fail("respond() sends the client the result, but the parameters " +
           detail::result_goes(params_.output, "server"));
    }
    const bool zero = any_zero(m);
    next_ = stage::done;
    return {params_.session, zero != mask_};
  }

  /// Round 3 when neither party learns the result: the server's XOR share
  /// of [x > y] (the client's is client::share()).
  bool share(const blinded_tests<Int>& m) {
    require(stage::finish, "blinded tests");
    if (params_.output != output_party::shared) {
      fail("share() keeps the result shared, but the parameters " +
           detail::result_goes(params_.output, "server"));
    }
    const bool zero = any_zero(m);
    next_ = stage::done;
    return zero != mask_;
  }

  /// Round 3 when the server learns the result: [x > y] (for the share
  /// wrapper, [v > 0]).
  bool result(const blinded_tests<Int>& m) {
    require(stage::finish, "blinded tests");
    if (params_.output != output_party::server) {
      fail("result() gives the server the result, but the parameters " +
           detail::result_goes(params_.output, "server"));
    }
    const bool zero = any_zero(m);
    next_ = stage::done;
    return (*m.client_share != zero) != mask_;
  }

 private:
  friend class share_server<Int>;

  [[noreturn]] static void fail(const std::string& why) { detail::fail("server", why); }

  void require(stage expected, const char* what) const {
    if (next_ != expected) {
      fail(std::string("received ") + what + " while " + detail::name_of(next_) +
           " (out of order or replayed)");
    }
  }

  // Whether one test decrypts to 0, after every check (no state changes).
  bool any_zero(const blinded_tests<Int>& m) const {
    if (m.session != params_.session) {
      fail("the blinded tests belong to session " + std::to_string(m.session) + ", not " +
           std::to_string(params_.session));
    }
    const bool want_share = params_.output == output_party::server;
    if (m.client_share.has_value() != want_share) {
      fail(want_share ? "the blinded tests lack the client's output share"
                      : "the blinded tests carry a client output share the parameters do not "
                        "ask for");
    }
    const auto cs = detail::read_ciphertexts(key_.public_key(), m.width, m.tests, params_.bits + 1,
                                             "blinded tests", "server");
    // All l + 1 are tested whatever the outcome, so that the time taken
    // does not depend on where the zero is.
    bool zero = false;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      bool z = false;
      try {
        z = key_.is_zero(cs[i]);
      } catch (const invalid_parameter&) {
        fail("element " + std::to_string(i) +
             " of the blinded tests is no DGK ciphertext of this key");
      }
      zero = zero || z;
    }
    return zero;
  }

  dgk::private_key<Int> key_;
  parameters params_;
  stage next_ = stage::send_bits;
  bool mask_ = false;  // the share wrapper's bit l of d, folded into the share
};

/// The party holding x and the DGK public key.
template <dgk::integer Int>
class client {
 public:
  /// Throws invalid_parameter when params.bits is outside [1, u - 2] or
  /// params.output is not a party.
  client(dgk::public_key<Int> key, const parameters& params)
      : key_(std::move(key)), params_(params) {
    detail::check_bits(params.bits, key_);
    detail::check_output(params.output);
  }
  /// Movable, not copyable: one party object runs one comparison.
  ///@{
  client(const client&) = delete;
  client& operator=(const client&) = delete;
  client(client&&) noexcept = default;
  client& operator=(client&&) noexcept = default;
  ///@}

  /// The call this party takes next.
  [[nodiscard]] stage next() const noexcept { return next_; }
  /// The parameters it was made with.
  [[nodiscard]] const parameters& params() const noexcept { return params_; }

  /// Round 2: the blinded tests for x in [0, 2^l) (else invalid_parameter)
  /// against the server's encrypted bits, randomness from `gen`.
  /// protocol_error, the party unchanged, when `m` is out of order, of
  /// another session, of the wrong width or count, or holds a value outside
  /// Z*_n. Cost: 2l + 1 exponentiations modulo n with exponents below u
  /// (l negations, l + 1 blindings), up to 2l + 1 fixed-base powers of g and
  /// l + 1 re-randomisations.
  template <random_bit_source G>
  blinded_tests<Int> evaluate(const encrypted_bits<Int>& m, const Int& x, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    detail::check_input("x", x, params_.bits);
    require(stage::evaluate, "encrypted bits");
    if (m.session != params_.session) {
      fail("the encrypted bits belong to session " + std::to_string(m.session) + ", not " +
           std::to_string(params_.session));
    }
    const auto ys =
        detail::read_ciphertexts(key_, m.width, m.bits, params_.bits, "encrypted bits", "client");
    return tests_for(ys, x, gen);
  }
  /// As above, with randomness from this thread's secure generator.
  blinded_tests<Int> evaluate(const encrypted_bits<Int>& m, const Int& x) {
    return evaluate(m, x, secure_generator());
  }
  /// As above for a built-in integer x (invalid_parameter when negative).
  template <integer_number I, random_bit_source G>
  blinded_tests<Int> evaluate(const encrypted_bits<Int>& m, I x, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    return evaluate(m, detail::to_input<Int>("x", x), gen);
  }
  /// As above, with randomness from this thread's secure generator.
  template <integer_number I>
  blinded_tests<Int> evaluate(const encrypted_bits<Int>& m, I x) {
    return evaluate(m, detail::to_input<Int>("x", x), secure_generator());
  }

  /// When neither party learns the result, after round 2: the client's XOR
  /// share of [x > y] (the server's is server::share()).
  [[nodiscard]] bool share() const {
    if (params_.output != output_party::shared) {
      fail("share() keeps the result shared, but the parameters " +
           detail::result_goes(params_.output, "client"));
    }
    if (next_ != stage::done) {
      fail(std::string("asked for its share while ") + detail::name_of(next_));
    }
    return own_;
  }

  /// Round 3 when the client learns the result: [x > y] (for the share
  /// wrapper, [v > 0]).
  bool result(const output_share& m) {
    if (params_.output != output_party::client) {
      fail("result() gives the client the result, but the parameters " +
           detail::result_goes(params_.output, "client"));
    }
    require(stage::receive_output, "an output share");
    if (m.session != params_.session) {
      fail("the output share belongs to session " + std::to_string(m.session) + ", not " +
           std::to_string(params_.session));
    }
    next_ = stage::done;
    return m.share != own_;
  }

 private:
  friend class share_client<Int>;

  [[noreturn]] static void fail(const std::string& why) { detail::fail("client", why); }

  void require(stage expected, const char* what) const {
    if (next_ != expected) {
      fail(std::string("received ") + what + " while " + detail::name_of(next_) +
           " (out of order or replayed)");
    }
  }

  template <class G>
  blinded_tests<Int> tests_for(const std::vector<dgk::ciphertext<Int>>& ys, const Int& x, G& gen) {
    const std::size_t l = params_.bits;
    const std::uint32_t u = key_.plaintext_modulus();
    const bool d_a = random_bit(gen);
    // E(0) as the empty product: every test is re-randomised below.
    const dgk::ciphertext<Int> zero(key_, Int(1));
    std::vector<dgk::ciphertext<Int>> cs;
    cs.reserve(l + 1);
    dgk::ciphertext<Int> suffix = zero;  // E(sum_{j > i} x_j xor y_j)
    for (std::size_t k = l; k-- > 0;) {
      const bool x_i = boost::multiprecision::bit_test(x, static_cast<unsigned>(k));
      const dgk::ciphertext<Int>& y_i = ys[k];
      const dgk::ciphertext<Int> neg = -y_i;  // E(-y_i)
      // c_i = 1 + s (x_i - y_i) + suffix: s = +1 gives (1 + x_i) + E(-y_i),
      // s = -1 gives (1 - x_i) + E(y_i).
      const std::uint64_t constant = d_a ? (x_i ? 0 : 1) : (x_i ? 2 : 1);
      cs.push_back((d_a ? y_i : neg).plus(constant) + suffix);
      // x_i xor y_i: E(1 - y_i) when x_i = 1, E(y_i) when x_i = 0.
      suffix += x_i ? neg.plus(1) : y_i;
    }
    cs.push_back(suffix.plus(d_a ? 1 : 0));  // c_{-1} = d_A + sum_j x_j xor y_j
    blinded_tests<Int> out;
    out.session = params_.session;
    out.width = static_cast<std::uint32_t>(detail::width_of(key_));
    out.tests.reserve(cs.size());
    for (const auto& c : cs) {
      const std::uint64_t r = uniform_below(gen, std::uint64_t{u} - 1) + 1;  // Z*_u
      out.tests.push_back(key_.rerandomize(c * r, gen).value());
    }
    // Fisher-Yates: the position of a zero would give away the highest
    // differing bit.
    for (std::size_t i = out.tests.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(uniform_below(gen, std::uint64_t{i}));
      std::swap(out.tests[i - 1], out.tests[j]);
    }
    // The client's share of [x > y] = 1 xor [x <= y] = 1 xor d_A xor d_B.
    own_ = !d_a != mask_;
    if (params_.output == output_party::server) {
      out.client_share = own_;
      next_ = stage::done;
    } else if (params_.output == output_party::shared) {
      next_ = stage::done;
    } else {
      next_ = stage::receive_output;
    }
    return out;
  }

  dgk::public_key<Int> key_;
  parameters params_;
  stage next_ = stage::evaluate;
  bool mask_ = false;  // the share wrapper's bit l of rho
  bool own_ = false;   // this party's share of the result
};

// ---- comparison of additive shares modulo N ---------------------------------------

namespace detail {

template <class Int>
void check_share_parameters(const share_parameters<Int>& p, const dgk::public_key<Int>& key) {
  check_bits(p.bits, key);
  check_output(p.output);
  if (p.statistical_security < min_statistical_security ||
      p.statistical_security > max_statistical_security) {
    throw_invalid("statistical_security", p.statistical_security,
                  "[" + std::to_string(min_statistical_security) + ", " +
                      std::to_string(max_statistical_security) + "]");
  }
  const std::size_t need = p.bits + p.statistical_security + 3;
  if (p.modulus <= 0 || bits_of(p.modulus) < need) {
    throw invalid_parameter("modulus", "privet: modulus N of " +
                                           std::to_string(bits_of(p.modulus)) +
                                           " bits is too small; allowed: N >= 2^(bits + "
                                           "statistical_security + 2), at least " +
                                           std::to_string(need) + " bits, so that z + rho < N");
  }
  if (bits_of(p.modulus) > 8 * static_cast<std::size_t>(max_element_bytes)) {
    throw invalid_parameter("modulus", "privet: modulus N of " +
                                           std::to_string(bits_of(p.modulus)) +
                                           " bits is too large; allowed: at most " +
                                           std::to_string(8 * max_element_bytes) + " bits");
  }
}

template <class Int>
parameters core_parameters(const share_parameters<Int>& p) {
  return {p.bits, p.output, p.session};
}

template <class Int>
void check_share(const char* name, const Int& v, const Int& modulus) {
  if (v < 0 || v >= modulus) {
    throw invalid_parameter(name, std::string("privet: share ") + name +
                                      " is outside Z_N; allowed: [0, N) with N of " +
                                      std::to_string(bits_of(modulus)) + " bits");
  }
}

}  // namespace detail

/// The client of a share comparison: holds r and learns [r - s > 0] (when
/// params.output is the client).
template <dgk::integer Int>
class share_client {
 public:
  /// Throws invalid_parameter for parameters outside their ranges (see
  /// share_parameters) or a DGK key whose u is below bits + 2.
  share_client(dgk::public_key<Int> key, share_parameters<Int> params)
      : params_((detail::check_share_parameters(params, key), std::move(params))),
        core_(std::move(key), detail::core_parameters(params_)) {}

  /// The call this party takes next.
  [[nodiscard]] stage next() const noexcept { return masked_ ? core_.next() : stage::mask_share; }
  /// The parameters it was made with.
  [[nodiscard]] const share_parameters<Int>& params() const noexcept { return params_; }

  /// Round 0: a = r + 2^l - 1 + rho mod N for the share r in [0, N) (else
  /// invalid_parameter), rho from `gen`.
  template <random_bit_source G>
  masked_share<Int> mask(const Int& r, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    detail::check_share("r", r, params_.modulus);
    if (masked_) {
      detail::fail("client", std::string("asked to mask its share while ") +
                                 detail::name_of(core_.next()) + " (out of order or replayed)");
    }
    const std::size_t l = params_.bits;
    // The blinding value rho and its low bits beta are wiped (a secret<Int>
    // each) when they go out of scope or the party is destroyed.
    const privet::detail::secret<Int> rho(
        random_bits<Int>(gen, l + 1 + params_.statistical_security));
    const Int offset = (Int(1) << static_cast<unsigned>(l)) - 1;
    masked_share<Int> out;
    out.session = params_.session;
    out.width = static_cast<std::uint32_t>(dgk::detail::byte_width(params_.modulus));
    out.value = Int(r + offset + rho.get()) % params_.modulus;
    beta_ =
        privet::detail::secret<Int>(Int(rho.get() & Int((Int(1) << static_cast<unsigned>(l)) - 1)));
    core_.mask_ = boost::multiprecision::bit_test(rho.get(), static_cast<unsigned>(l));
    masked_ = true;
    return out;
  }
  /// As above, with randomness from this thread's secure generator.
  masked_share<Int> mask(const Int& r) { return mask(r, secure_generator()); }

  /// Round 2: the blinded tests of rho mod 2^l against the server's bits
  /// (protocol_error as client::evaluate, and before mask()).
  template <random_bit_source G>
  blinded_tests<Int> evaluate(const encrypted_bits<Int>& m, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    if (!masked_) {
      detail::fail("client", "received encrypted bits while masking its share (out of order)");
    }
    return core_.evaluate(m, beta_.get(), gen);
  }
  /// As above, with randomness from this thread's secure generator.
  blinded_tests<Int> evaluate(const encrypted_bits<Int>& m) {
    return evaluate(m, secure_generator());
  }

  /// Round 3: [v > 0] for v = r - s mod N read signed.
  bool result(const output_share& m) {
    if (!masked_) {
      detail::fail("client", "received an output share while masking its share (out of order)");
    }
    return core_.result(m);
  }
  /// With output_party::shared, after round 2: the client's XOR share of
  /// [v > 0].
  [[nodiscard]] bool share() const {
    if (!masked_) detail::fail("client", "asked for its share while masking its share");
    return core_.share();
  }

 private:
  share_parameters<Int> params_;
  client<Int> core_;
  privet::detail::secret<Int> beta_;  // rho mod 2^l, the core input (wiped)
  bool masked_ = false;
};

/// The server of a share comparison: holds s and the DGK private key.
template <dgk::integer Int>
class share_server {
 public:
  /// Throws as share_client's constructor.
  share_server(dgk::private_key<Int> key, share_parameters<Int> params)
      : params_((detail::check_share_parameters(params, key.public_key()), std::move(params))),
        core_(std::move(key), detail::core_parameters(params_)) {}

  /// The call this party takes next.
  [[nodiscard]] stage next() const noexcept {
    return received_ ? core_.next() : stage::receive_share;
  }
  /// The parameters it was made with.
  [[nodiscard]] const share_parameters<Int>& params() const noexcept { return params_; }

  /// Round 1: unmasks d = a - s mod N for the share s in [0, N) (else
  /// invalid_parameter) and returns the encryptions of d mod 2^l's bits.
  /// protocol_error when the message is malformed, out of order, or when d
  /// shows that |r - s mod N| exceeds 2^l - 1 (the range assumption).
  template <random_bit_source G>
  encrypted_bits<Int> receive(const masked_share<Int>& m, const Int& s, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    detail::check_share("s", s, params_.modulus);
    if (received_) {
      detail::fail("server", std::string("received a masked share while ") +
                                 detail::name_of(core_.next()) + " (out of order or replayed)");
    }
    if (m.session != params_.session) {
      detail::fail("server", "the masked share belongs to session " + std::to_string(m.session) +
                                 ", not " + std::to_string(params_.session));
    }
    const auto width = static_cast<std::uint32_t>(dgk::detail::byte_width(params_.modulus));
    if (m.width != width || m.value < 0 || m.value >= params_.modulus) {
      detail::fail("server", "the masked share is not an element of Z_N on " +
                                 std::to_string(width) + " bytes");
    }
    const Int& n = params_.modulus;
    // d = z + rho and its low bits: the server's view of the blinded
    // difference, wiped on the way out.
    const privet::detail::secret<Int> d(m.value >= s ? Int(m.value - s) : Int(m.value + n - s));
    const std::size_t l = params_.bits;
    const std::size_t k = params_.statistical_security;
    // d = z + rho <= 2^(l+1) - 2 + 2^(l+1+k) - 1 for every v in range.
    const Int largest =
        (Int(1) << static_cast<unsigned>(l + 1 + k)) + (Int(1) << static_cast<unsigned>(l + 1)) - 3;
    if (d.get() > largest) {
      detail::fail("server",
                   "the unmasked value exceeds 2^(l+1+kappa) + 2^(l+1) - 3: the shared value "
                   "r - s mod N is outside its range [-(2^l - 1), 2^l - 1] (l = " +
                       std::to_string(l) + ")");
    }
    const privet::detail::secret<Int> alpha(
        Int(d.get() & Int((Int(1) << static_cast<unsigned>(l)) - 1)));
    const bool d_l = boost::multiprecision::bit_test(d.get(), static_cast<unsigned>(l));
    encrypted_bits<Int> out = core_.encrypt_input(alpha.get(), gen);
    core_.mask_ = d_l;
    received_ = true;
    return out;
  }
  /// As above, with randomness from this thread's secure generator.
  encrypted_bits<Int> receive(const masked_share<Int>& m, const Int& s) {
    return receive(m, s, secure_generator());
  }

  /// Round 3 when the client learns the result: the server's share.
  output_share respond(const blinded_tests<Int>& m) {
    if (!received_) {
      detail::fail("server",
                   "received blinded tests while waiting for the masked share "
                   "(out of order)");
    }
    return core_.respond(m);
  }
  /// Round 3 when the server learns the result: [v > 0].
  bool result(const blinded_tests<Int>& m) {
    if (!received_) {
      detail::fail("server",
                   "received blinded tests while waiting for the masked share "
                   "(out of order)");
    }
    return core_.result(m);
  }
  /// Round 3 with output_party::shared: the server's XOR share of [v > 0].
  bool share(const blinded_tests<Int>& m) {
    if (!received_) {
      detail::fail("server",
                   "received blinded tests while waiting for the masked share "
                   "(out of order)");
    }
    return core_.share(m);
  }

 private:
  share_parameters<Int> params_;
  server<Int> core_;
  bool received_ = false;
};

}  // namespace privet::comparison
