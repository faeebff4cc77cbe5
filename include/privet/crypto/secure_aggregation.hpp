// privet/crypto/secure_aggregation.hpp — secure aggregation of integer
// vectors (Bonawitz, Ivanov, Kreuter, Marcedone, McMahan, Patel, Ramage,
// Segal and Seth, "Practical Secure Aggregation for Privacy-Preserving
// Machine Learning", CCS 2017): a server learns the sum of the clients'
// vectors in Z_R^m (R = 2^k, k <= 64, or a prime) and nothing else, even
// when up to n - t clients drop out.
//
// The protocol is the paper's semi-honest variant (its detailed protocol
// without the signatures and the ConsistencyCheck round, so that the
// paper's round 4, Unmasking, is round 3 here), in four rounds:
//   0 AdvertiseKeys          each client sends two X25519 public keys: one
//                            for encrypted channels to the other clients,
//                            one for pairwise masks; the server broadcasts
//                            the roster U1 (>= t clients).
//   1 ShareKeys              each client draws a self-mask seed b_u, Shamir
//                            shares b_u and its mask secret key (threshold
//                            t, over F_{2^61-1}) among U1 and sends every
//                            other client its two shares, encrypted under
//                            their channel key; the server forwards them to
//                            the clients of U2 (>= t senders).
//   2 MaskedInputCollection  each client sends y_u = x_u + PRG(b_u) +
//                            sum_{v in U2} sign(u - v) PRG(s_uv) mod R,
//                            s_uv agreed with v; the server announces U3.
//   3 Unmasking              each client of U3 reveals its shares of b_v for
//                            the clients v of U3 and of the mask secret key
//                            for those of U2 \ U3 (never both for the same
//                            client); with >= t responses the server
//                            rebuilds them, strips the self masks and the
//                            masks shared with the clients that dropped, and
//                            outputs sum_{u in U3} x_u mod R.
// Beyond the paper, each client commits to b_u in round 1 (a hash sent to
// the server) and the server checks every rebuilt seed against its
// commitment and every rebuilt key against its public key, and checks the
// shares beyond the t-th for consistency: wrong shares abort the protocol
// with protocol_error instead of producing a wrong sum. Nothing here
// authenticates clients to the server or detects a server that lies about
// the sets U1..U3 to different clients: that is the active variant's job.
//
// Parties exchange only the message structs below, which have a compact
// binary encoding (`serialize`, `deserialize<M>`). A party rejects a
// message that is malformed, replayed, from another session, addressed to
// someone else or for another round with protocol_error and is left exactly
// as before (it can take the right message next). A server that ends a
// round with fewer than t clients aborts for good (protocol_error).
//
// The threshold t trades privacy for dropout tolerance: an honest client
// reveals, for each other client, shares of its seed or of its mask key but
// never both, so a server with fewer than t colluding clients cannot unmask
// anyone; and the run completes while at least t clients remain (up to
// n - t dropouts). The sum is taken mod R: choose R larger than any
// possible true sum.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/detail/field_arith.hpp>
#include <privet/crypto/detail/secagg_keys.hpp>
#include <privet/crypto/detail/secagg_prg.hpp>
#include <privet/crypto/detail/wire.hpp>
#include <privet/crypto/shamir.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace privet::secagg {

/// Z_R, the ring of the inputs and of the sum: R = 2^k or R = p prime.
class ring {
 public:
  /// R = 2^bits, bits in [1, 64].
  static ring power_of_two(unsigned bits) {
    if (bits < 1 || bits > 64) throw_invalid("bits", bits, "[1, 64]");
    ring r;
    r.r_.power_of_two = true;
    r.r_.max = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
    return r;
  }
  /// R = p, a prime below 2^64.
  static ring prime(std::uint64_t p) {
    if (!detail::field_is_prime(p)) throw_invalid("prime", p, "a prime number < 2^64");
    ring r;
    r.r_.power_of_two = false;
    r.r_.max = p - 1;
    return r;
  }

  /// Whether R = 2^k (else R is a prime).
  [[nodiscard]] bool is_power_of_two() const noexcept { return r_.power_of_two; }
  /// R - 1, the largest input value.
  [[nodiscard]] std::uint64_t max_value() const noexcept { return r_.max; }
  /// a + b mod R, for a and b in [0, R).
  [[nodiscard]] std::uint64_t add(std::uint64_t a, std::uint64_t b) const noexcept {
    return r_.add(a, b);
  }
  /// a - b mod R, for a and b in [0, R).
  [[nodiscard]] std::uint64_t sub(std::uint64_t a, std::uint64_t b) const noexcept {
    return r_.sub(a, b);
  }
  /// The representation the mask generator works on (an implementation
  /// detail, exposed for the protocol's own code).
  [[nodiscard]] const detail::secagg_ring& raw() const noexcept { return r_; }

  /// The same R.
  friend bool operator==(const ring& a, const ring& b) noexcept {
    return a.r_.max == b.r_.max && a.r_.power_of_two == b.r_.power_of_two;
  }

 private:
  ring() = default;
  detail::secagg_ring r_;
};

/// What every party of one run agrees on beforehand.
struct parameters {
  std::uint32_t clients = 0;              ///< n; clients are numbered 1..n
  std::uint32_t threshold = 0;            ///< t in [2, n]: shares needed to rebuild a secret
  std::size_t length = 0;                 ///< m, the length of every input vector
  ring modulus = ring::power_of_two(32);  ///< Z_R of the inputs and the sum (R = 2^32 unless set)
  std::uint64_t session = 0;              ///< distinguishes runs; every message carries it
};

/// Throws invalid_parameter naming the offending field.
inline void validate(const parameters& p) {
  if (p.clients < 2) throw_invalid("clients", p.clients, ">= 2");
  if (p.threshold < 2 || p.threshold > p.clients) {
    throw_invalid("threshold", p.threshold, "[2, clients = " + std::to_string(p.clients) + "]");
  }
  if (p.length < 1 || p.length > UINT32_MAX) throw_invalid("length", p.length, "[1, 2^32 - 1]");
}

/// An X25519 public key (32 bytes).
using public_key = std::array<std::uint8_t, 32>;
/// A BLAKE2b-256 digest: the commitment to a self-mask seed.
using digest = std::array<std::uint8_t, 32>;
/// A sealed pair of shares: XChaCha20-Poly1305 nonce, the two 5-element
/// shares (80 bytes) and the tag, bound to the session, sender and
/// recipient.
using ciphertext = detail::secagg_ciphertext;

/// A 32-byte secret packed into F_{2^61-1}, 7 bytes per element.
inline constexpr std::size_t share_elements = 5;
/// One party's Shamir share of a 32-byte secret: its values at the party's
/// point of the share_elements polynomials.
using key_share = std::array<shamir::gf61, share_elements>;
static_assert(share_elements * shamir::bytes_per_element<shamir::gf61> >= 32);

/// Where a party stands: the round whose message it takes next.
enum class stage : std::uint8_t {
  advertise_keys = 0,
  share_keys = 1,
  masked_input_collection = 2,
  unmasking = 3,
  done = 4,
  aborted = 5,
};

/// The type byte of an encoded message (see peek_type).
enum class message_type : std::uint8_t {
  key_advertisement = 1,   ///< a key_advertisement
  key_roster = 2,          ///< a key_roster
  share_bundle = 3,        ///< a share_bundle
  share_inbox = 4,         ///< a share_inbox
  masked_input = 5,        ///< a masked_input
  survivor_list = 6,       ///< a survivor_list
  unmasking_response = 7,  ///< an unmasking_response
};

/// Round 0, client -> server.
struct key_advertisement {
  static constexpr message_type type = message_type::key_advertisement;  ///< The type byte.
  std::uint64_t session = 0;  ///< The session of the parameters.
  std::uint32_t sender = 0;   ///< u, the advertising client's id
  public_key channel_key{};   ///< c_u^PK: encrypts the shares sent to this client
  public_key mask_key{};      ///< s_u^PK: agrees the pairwise masks
  /// Field-wise equality.
  friend bool operator==(const key_advertisement&, const key_advertisement&) = default;
};

/// One client of U1 in a key_roster: its id and the two keys it advertised.
struct roster_entry {
  std::uint32_t id = 0;      ///< The client's id, in [1, n].
  public_key channel_key{};  ///< Its c_u^PK.
  public_key mask_key{};     ///< Its s_u^PK.
  /// Field-wise equality.
  friend bool operator==(const roster_entry&, const roster_entry&) = default;
};

/// End of round 0, server -> every client of U1: U1 and its keys, by id.
struct key_roster {
  static constexpr message_type type = message_type::key_roster;  ///< The type byte.
  std::uint64_t session = 0;          ///< The session of the parameters.
  std::vector<roster_entry> clients;  ///< U1, ascending by id, at least t of them
  /// Field-wise equality.
  friend bool operator==(const key_roster&, const key_roster&) = default;
};

/// A client's two shares (of a mask secret key and of a self-mask seed),
/// encrypted for one other client; `peer` is the recipient in a bundle and
/// the sender in an inbox.
struct sealed_share {
  std::uint32_t peer = 0;  ///< The recipient (in a bundle) or the sender (in an inbox).
  ciphertext data{};       ///< The two shares, sealed under the pair's channel key.
  /// Field-wise equality.
  friend bool operator==(const sealed_share&, const sealed_share&) = default;
};

/// Round 1, client -> server: one sealed share per other client of U1, by id.
struct share_bundle {
  static constexpr message_type type = message_type::share_bundle;  ///< The type byte.
  std::uint64_t session = 0;         ///< The session of the parameters.
  std::uint32_t sender = 0;          ///< u, the sharing client's id
  digest seed_commitment{};          ///< The commitment to b_u the server checks at the end
  std::vector<sealed_share> shares;  ///< One per other client of U1, ascending by recipient
  /// Field-wise equality.
  friend bool operator==(const share_bundle&, const share_bundle&) = default;
};

/// End of round 1, server -> each client of U2: the shares other clients of
/// U2 sealed for it, by sender id.
struct share_inbox {
  static constexpr message_type type = message_type::share_inbox;  ///< The type byte.
  std::uint64_t session = 0;         ///< The session of the parameters.
  std::uint32_t recipient = 0;       ///< The client this inbox is for
  std::vector<sealed_share> shares;  ///< One per other client of U2, ascending by sender
  /// Field-wise equality.
  friend bool operator==(const share_inbox&, const share_inbox&) = default;
};

/// Round 2, client -> server: y_u in Z_R^m.
struct masked_input {
  static constexpr message_type type = message_type::masked_input;  ///< The type byte.
  std::uint64_t session = 0;          ///< The session of the parameters.
  std::uint32_t sender = 0;           ///< u, the masking client's id
  std::vector<std::uint64_t> values;  ///< y_u: m values in [0, R)
  /// Field-wise equality.
  friend bool operator==(const masked_input&, const masked_input&) = default;
};

/// End of round 2, server -> every client of U3: U3, ascending.
struct survivor_list {
  static constexpr message_type type = message_type::survivor_list;  ///< The type byte.
  std::uint64_t session = 0;           ///< The session of the parameters.
  std::vector<std::uint32_t> clients;  ///< U3, ascending, at least t ids
  /// Field-wise equality.
  friend bool operator==(const survivor_list&, const survivor_list&) = default;
};

/// A share of one client's secret, revealed in round 3.
struct owned_share {
  std::uint32_t owner = 0;  ///< the client whose secret this is a share of
  key_share y{};            ///< the share's values at the sender's point
  /// Field-wise equality.
  friend bool operator==(const owned_share&, const owned_share&) = default;
};

/// Round 3, client -> server: shares of the seeds of U3 and of the mask
/// secret keys of U2 \ U3, each list ascending by owner.
struct unmasking_response {
  static constexpr message_type type = message_type::unmasking_response;  ///< The type byte.
  std::uint64_t session = 0;             ///< The session of the parameters.
  std::uint32_t sender = 0;              ///< the responding client's id
  std::vector<owned_share> seed_shares;  ///< shares of b_v for every v in U3
  std::vector<owned_share> key_shares;   ///< shares of s_v^SK for every v in U2 \ U3
  /// Field-wise equality.
  friend bool operator==(const unmasking_response&, const unmasking_response&) = default;
};

/// One of the seven message types.
template <class M>
concept message = std::same_as<M, key_advertisement> || std::same_as<M, key_roster> ||
    std::same_as<M, share_bundle> || std::same_as<M, share_inbox> ||
    std::same_as<M, masked_input> || std::same_as<M, survivor_list> ||
    std::same_as<M, unmasking_response>;

namespace detail {

using privet::detail::secagg_key;
using privet::detail::secagg_plaintext;
using privet::detail::wire_reader;
using privet::detail::wire_writer;

inline constexpr std::uint8_t wire_version = 1;
inline constexpr std::string_view channel_label = "privet.secagg.v1.channel";
inline constexpr std::string_view mask_label = "privet.secagg.v1.mask";

inline const char* name_of(message_type t) noexcept {
  switch (t) {
    case message_type::key_advertisement:
      return "key advertisement";
    case message_type::key_roster:
      return "key roster";
    case message_type::share_bundle:
      return "share bundle";
    case message_type::share_inbox:
      return "share inbox";
    case message_type::masked_input:
      return "masked input";
    case message_type::survivor_list:
      return "survivor list";
    case message_type::unmasking_response:
      return "unmasking response";
  }
  return "message";
}

// The message's name with its indefinite article, for "received a ..." and
// "sent a ..." (only "unmasking response" takes "an").
inline std::string with_article(message_type t) {
  const std::string name = name_of(t);
  return (name.front() == 'u' ? "an " : "a ") + name;
}

inline const char* name_of(stage s) noexcept {
  switch (s) {
    case stage::advertise_keys:
      return "AdvertiseKeys (0)";
    case stage::share_keys:
      return "ShareKeys (1)";
    case stage::masked_input_collection:
      return "MaskedInputCollection (2)";
    case stage::unmasking:
      return "Unmasking (3)";
    case stage::done:
      return "done";
    case stage::aborted:
      return "aborted";
  }
  return "unknown";
}

[[noreturn]] inline void fail(const std::string& party, const std::string& why) {
  throw protocol_error("privet: secure aggregation " + party + ": " + why);
}

inline void write_header(wire_writer& w, message_type t, std::uint64_t session) {
  privet::detail::write_message_header(w, wire_version, static_cast<std::uint8_t>(t), session);
}

inline std::uint64_t read_header(wire_reader& r, message_type t) {
  return privet::detail::read_message_header(r, wire_version, static_cast<std::uint8_t>(t),
                                             name_of(t));
}

inline void write_key(wire_writer& w, const public_key& k) {
  w.bytes(k);
}
inline public_key read_key(wire_reader& r) {
  public_key k{};
  r.bytes(k);
  return k;
}

inline constexpr std::size_t key_share_bytes = 8 * share_elements;

inline void write_share(wire_writer& w, const key_share& s) {
  for (const auto& e : s) w.u64(e.value());
}
inline key_share read_share(wire_reader& r) {
  key_share s{};
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint64_t v = r.u64();
    // The value is not quoted: a share's bits are secret even when one
    // element is out of range (issue 32).
    if (v >= shamir::gf61::modulus) {
      r.fail("share element " + std::to_string(i) +
             " is not below 2^61 - 1 (its value is not shown: shares are secret)");
    }
    s[i] = shamir::gf61(v);
  }
  return s;
}

inline void write_sealed(wire_writer& w, const std::vector<sealed_share>& v) {
  w.count(v.size());
  for (const auto& s : v) {
    w.u32(s.peer);
    w.bytes(s.data);
  }
}
inline std::vector<sealed_share> read_sealed(wire_reader& r) {
  std::vector<sealed_share> v(r.count(4 + std::tuple_size_v<ciphertext>));
  for (auto& s : v) {
    s.peer = r.u32();
    r.bytes(s.data);
  }
  return v;
}

inline void write_owned(wire_writer& w, const std::vector<owned_share>& v) {
  w.count(v.size());
  for (const auto& s : v) {
    w.u32(s.owner);
    write_share(w, s.y);
  }
}
inline std::vector<owned_share> read_owned(wire_reader& r) {
  std::vector<owned_share> v(r.count(4 + key_share_bytes));
  for (auto& s : v) {
    s.owner = r.u32();
    s.y = read_share(r);
  }
  return v;
}

inline void put_share(std::uint8_t* out, const key_share& s) {
  for (std::size_t e = 0; e < share_elements; ++e) {
    privet::detail::secagg_put_u64(out + 8 * e, s[e].value());
  }
}
// False when an element is not below 2^61 - 1.
inline bool get_share(const std::uint8_t* in, key_share& s) {
  for (std::size_t e = 0; e < share_elements; ++e) {
    std::uint64_t v = 0;
    for (std::size_t i = 8; i-- > 0;) v = (v << 8) | in[8 * e + i];
    if (v >= shamir::gf61::modulus) return false;
    s[e] = shamir::gf61(v);
  }
  return true;
}

inline key_share to_share(const shamir::share<shamir::gf61>& s) {
  key_share k{};
  std::copy(s.y.begin(), s.y.end(), k.begin());
  return k;
}

// Ascending and unique.
template <class T, class Key>
bool strictly_increasing(const std::vector<T>& v, Key key) {
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (!(key(v[i - 1]) < key(v[i]))) return false;
  }
  return true;
}

// Index of `id` in an ascending list, or npos.
inline constexpr std::size_t npos = static_cast<std::size_t>(-1);
inline std::size_t index_of(const std::vector<std::uint32_t>& ids, std::uint32_t id) {
  const auto it = std::lower_bound(ids.begin(), ids.end(), id);
  return it != ids.end() && *it == id ? static_cast<std::size_t>(it - ids.begin()) : npos;
}

// The seed of the pairwise mask (or the channel key) of clients a and b,
// seen from the side holding `secret`.
inline bool agree(secagg_key& out, std::string_view label, std::uint64_t session,
                  const secagg_key& secret, std::uint32_t a, const public_key& key_a,
                  std::uint32_t b, const public_key& key_b, const public_key& peer) {
  return a < b ? privet::detail::secagg_agree(out, label, session, secret, peer, key_a, key_b)
               : privet::detail::secagg_agree(out, label, session, secret, peer, key_b, key_a);
}

inline void wipe(void* p, std::size_t n) noexcept {
  sodium_memzero(p, n);
}

/// A key wiped when it leaves scope, whichever way: a refusal thrown
/// between rebuilding a secret and using it must not leave it behind.
struct wiped_key {
  secagg_key key{};
  wiped_key() = default;
  explicit wiped_key(const secagg_key& k) noexcept : key(k) {}
  wiped_key(const wiped_key&) = delete;
  wiped_key& operator=(const wiped_key&) = delete;
  ~wiped_key() { sodium_memzero(key.data(), key.size()); }
};
template <class T>
void wipe(std::vector<T>& v) noexcept {
  if (!v.empty()) sodium_memzero(v.data(), v.size() * sizeof(T));
  v.clear();
}

}  // namespace detail

// ---- encoding ---------------------------------------------------------------
// Every message: version (1 byte), type (1 byte), session (8 bytes LE),
// then its fields; integers little-endian, counts as 4 bytes, a masked
// vector as its element width in bytes (1..8) followed by the elements.

/// The binary encoding of a message (see the encoding comment above);
/// serialization_error when a list has more than 2^32 - 1 entries.
///@{
inline std::vector<std::uint8_t> serialize(const key_advertisement& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  w.u32(m.sender);
  detail::write_key(w, m.channel_key);
  detail::write_key(w, m.mask_key);
  return w.take();
}

inline std::vector<std::uint8_t> serialize(const key_roster& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  w.count(m.clients.size());
  for (const auto& e : m.clients) {
    w.u32(e.id);
    detail::write_key(w, e.channel_key);
    detail::write_key(w, e.mask_key);
  }
  return w.take();
}

inline std::vector<std::uint8_t> serialize(const share_bundle& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  w.u32(m.sender);
  w.bytes(m.seed_commitment);
  detail::write_sealed(w, m.shares);
  return w.take();
}

inline std::vector<std::uint8_t> serialize(const share_inbox& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  w.u32(m.recipient);
  detail::write_sealed(w, m.shares);
  return w.take();
}

inline std::vector<std::uint8_t> serialize(const masked_input& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  w.u32(m.sender);
  std::uint64_t largest = 0;
  for (auto v : m.values) largest = std::max(largest, v);
  std::size_t width = 1;
  while (width < 8 && (largest >> (8 * width)) != 0) ++width;
  w.count(m.values.size());
  w.u8(static_cast<std::uint8_t>(width));
  for (auto v : m.values) w.uint(v, width);
  return w.take();
}

inline std::vector<std::uint8_t> serialize(const survivor_list& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  w.count(m.clients.size());
  for (auto id : m.clients) w.u32(id);
  return w.take();
}

inline std::vector<std::uint8_t> serialize(const unmasking_response& m) {
  detail::wire_writer w;
  detail::write_header(w, m.type, m.session);
  w.u32(m.sender);
  detail::write_owned(w, m.seed_shares);
  detail::write_owned(w, m.key_shares);
  return w.take();
}
///@}

/// The type of an encoded message (serialization_error if it is none).
inline message_type peek_type(std::span<const std::uint8_t> bytes) {
  return static_cast<message_type>(privet::detail::peek_message_type(
      bytes, "secure aggregation message", detail::wire_version, 7));
}

/// Decodes a message of type M; serialization_error for anything but an
/// exact encoding of one (wrong type, truncated, trailing bytes, counts
/// that do not fit, share values outside the field, widths outside 1..8).
template <message M>
M deserialize(std::span<const std::uint8_t> bytes) {
  detail::wire_reader r(bytes, detail::name_of(M::type));
  M m;
  m.session = detail::read_header(r, M::type);
  if constexpr (std::same_as<M, key_advertisement>) {
    m.sender = r.u32();
    m.channel_key = detail::read_key(r);
    m.mask_key = detail::read_key(r);
  } else if constexpr (std::same_as<M, key_roster>) {
    m.clients.resize(r.count(4 + 2 * 32));
    for (auto& e : m.clients) {
      e.id = r.u32();
      e.channel_key = detail::read_key(r);
      e.mask_key = detail::read_key(r);
    }
  } else if constexpr (std::same_as<M, share_bundle>) {
    m.sender = r.u32();
    r.bytes(m.seed_commitment);
    m.shares = detail::read_sealed(r);
  } else if constexpr (std::same_as<M, share_inbox>) {
    m.recipient = r.u32();
    m.shares = detail::read_sealed(r);
  } else if constexpr (std::same_as<M, masked_input>) {
    m.sender = r.u32();
    const std::uint32_t n = r.u32();
    const std::uint8_t width = r.u8();
    if (width < 1 || width > 8) r.fail("element width " + std::to_string(width) + " not in 1..8");
    if (n > r.remaining() / width) {
      r.fail(std::to_string(n) + " elements of " + std::to_string(width) + " bytes exceed the " +
             std::to_string(r.remaining()) + " bytes left");
    }
    m.values.resize(n);
    std::uint64_t largest = 0;
    for (auto& v : m.values) {
      v = r.uint(width);
      largest = std::max(largest, v);
    }
    // One encoding per message: the width must be the least that holds the
    // largest element, as serialize() writes it.
    std::size_t least = 1;
    while (least < 8 && (largest >> (8 * least)) != 0) ++least;
    if (width != least) {
      r.fail("element width " + std::to_string(width) + " is not the least (" +
             std::to_string(least) + ") that holds the largest element");
    }
  } else if constexpr (std::same_as<M, survivor_list>) {
    m.clients.resize(r.count(4));
    for (auto& id : m.clients) id = r.u32();
  } else {
    m.sender = r.u32();
    m.seed_shares = detail::read_owned(r);
    m.key_shares = detail::read_owned(r);
  }
  r.finish();
  return m;
}

// ---- client -----------------------------------------------------------------

/// One client u. Its secrets (key pairs, seed, shares) never leave it but
/// inside the messages the protocol sends, and are wiped when it finishes.
class client {
 public:
  /// Client `id` of a run with `params`. Throws invalid_parameter when the
  /// parameters fail validate() or id is outside [1, params.clients].
  client(const parameters& params, std::uint32_t id) : params_(params), id_(id) {
    validate(params);
    if (id < 1 || id > params.clients) {
      throw_invalid("id", id, "[1, clients = " + std::to_string(params.clients) + "]");
    }
    privet::detail::ensure_sodium();
  }
  /// Movable, not copyable: a copy would hold the client's secrets twice.
  ///@{
  client(const client&) = delete;
  client& operator=(const client&) = delete;
  client(client&&) noexcept = default;
  client& operator=(client&&) noexcept = default;
  ///@}
  /// Wipes the client's secrets.
  ~client() { wipe(); }

  /// u, this client's id.
  [[nodiscard]] std::uint32_t id() const noexcept { return id_; }
  /// The round whose message it takes next.
  [[nodiscard]] stage next() const noexcept { return next_; }

  /// Round 0: fresh key pairs (secret keys drawn from `gen`);
  /// protocol_error when called out of order.
  template <random_bit_source G>
  key_advertisement advertise_keys(G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    require(stage::advertise_keys, "a request to advertise keys");
    privet::detail::secagg_keypair(gen, channel_secret_, channel_public_);
    privet::detail::secagg_keypair(gen, mask_secret_, mask_public_);
    next_ = stage::share_keys;
    return {params_.session, id_, channel_public_, mask_public_};
  }
  /// As above, with randomness from this thread's secure generator.
  key_advertisement advertise_keys() { return advertise_keys(secure_generator()); }

  /// Round 1: checks the roster, shares the mask secret key and a fresh
  /// self-mask seed among it, and seals each client's shares for it.
  /// protocol_error, the client unchanged, when the roster is out of order,
  /// of another session, lists fewer than t clients, has ids not ascending
  /// or outside [1, n], leaves out this client or its keys, repeats a key or
  /// carries a low-order key. O(|U1| t) field operations and |U1| key
  /// agreements.
  template <random_bit_source G>
  share_bundle share_keys(const key_roster& roster, G& gen) {
    PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
    require(stage::share_keys, "a key roster");
    check_session(roster.session, "key roster");
    const auto& list = roster.clients;
    if (list.size() < params_.threshold) {
      fail("the key roster lists " + std::to_string(list.size()) +
           " clients, fewer than the threshold " + std::to_string(params_.threshold));
    }
    if (!detail::strictly_increasing(list, [](const roster_entry& e) { return e.id; }) ||
        list.front().id < 1 || list.back().id > params_.clients) {
      fail("the key roster's ids are not ascending, distinct and in [1, " +
           std::to_string(params_.clients) + "]");
    }
    std::vector<std::uint32_t> ids(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) ids[i] = list[i].id;
    const std::size_t self = detail::index_of(ids, id_);
    if (self == detail::npos) fail("the key roster does not list this client");
    if (list[self].channel_key != channel_public_ || list[self].mask_key != mask_public_) {
      fail("the key roster does not carry this client's own keys");
    }
    std::vector<public_key> all;
    all.reserve(2 * list.size());
    for (const auto& e : list) {
      all.push_back(e.channel_key);
      all.push_back(e.mask_key);
    }
    std::sort(all.begin(), all.end());
    if (std::adjacent_find(all.begin(), all.end()) != all.end()) {
      fail("the key roster repeats a public key");
    }

    std::vector<detail::secagg_key> channel(list.size()), mask(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i == self) continue;
      const auto& e = list[i];
      const bool ok_c =
          detail::agree(channel[i], detail::channel_label, params_.session, channel_secret_, id_,
                        channel_public_, e.id, e.channel_key, e.channel_key);
      const bool ok_m = detail::agree(mask[i], detail::mask_label, params_.session, mask_secret_,
                                      id_, mask_public_, e.id, e.mask_key, e.mask_key);
      if (!ok_c || !ok_m) {
        detail::wipe(channel);
        detail::wipe(mask);
        fail("client " + std::to_string(e.id) + " advertised a low-order public key");
      }
    }

    detail::secagg_key seed{};
    privet::detail::secagg_random(gen, seed);
    auto key_elems = shamir::pack_bytes<shamir::gf61>(mask_secret_);
    auto seed_elems = shamir::pack_bytes<shamir::gf61>(seed);
    const std::vector<std::uint64_t> points(ids.begin(), ids.end());
    auto key_shares = shamir::split<shamir::gf61>(key_elems, params_.threshold, points, gen);
    auto seed_shares = shamir::split<shamir::gf61>(seed_elems, params_.threshold, points, gen);

    share_bundle out;
    out.session = params_.session;
    out.sender = id_;
    out.seed_commitment = privet::detail::secagg_commit(params_.session, id_, seed);
    out.shares.reserve(list.size() - 1);
    detail::secagg_plaintext plain{};
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i == self) continue;
      detail::put_share(plain.data(), detail::to_share(key_shares[i]));
      detail::put_share(plain.data() + detail::key_share_bytes, detail::to_share(seed_shares[i]));
      out.shares.push_back(
          {list[i].id,
           privet::detail::secagg_seal(channel[i], plain, params_.session, id_, list[i].id, gen)});
    }
    detail::wipe(plain.data(), plain.size());

    ids_ = std::move(ids);
    channel_keys_ = std::move(channel);
    mask_seeds_ = std::move(mask);
    seed_ = seed;
    detail::wipe(seed.data(), seed.size());
    own_key_share_ = detail::to_share(key_shares[self]);
    own_seed_share_ = detail::to_share(seed_shares[self]);
    // key_shares and seed_shares wipe themselves (shamir::share_values).
    detail::wipe(key_elems);
    detail::wipe(seed_elems);
    next_ = stage::masked_input_collection;
    return out;
  }
  /// As above, with randomness from this thread's secure generator.
  share_bundle share_keys(const key_roster& roster) {
    return share_keys(roster, secure_generator());
  }

  /// Round 2: opens the shares sealed for this client (which fixes U2) and
  /// masks `input` (length m, values < R; else invalid_parameter).
  /// protocol_error, the client unchanged, when the inbox is out of order,
  /// of another session or addressed to another client, comes from fewer
  /// than t clients (this one included), lists its senders out of ascending
  /// order, or holds a share that is not from another client of U1, does
  /// not authenticate or does not decode. Cost:
  /// |U2| keystreams of m words.
  masked_input mask_input(const share_inbox& inbox, std::span<const std::uint64_t> input) {
    if (input.size() != params_.length) {
      throw_invalid("input.size()", input.size(),
                    std::to_string(params_.length) + " (the session's vector length)");
    }
    for (auto v : input) {
      if (v > params_.modulus.max_value()) {
        throw_invalid("input", v,
                      "values <= " + std::to_string(params_.modulus.max_value()) + " (R - 1)");
      }
    }
    require(stage::masked_input_collection, "a share inbox");
    check_session(inbox.session, "share inbox");
    if (inbox.recipient != id_) {
      fail("the share inbox is addressed to client " + std::to_string(inbox.recipient));
    }
    const auto& list = inbox.shares;
    if (list.size() + 1 < params_.threshold) {
      fail("the share inbox comes from " + std::to_string(list.size() + 1) +
           " clients, fewer than the threshold " + std::to_string(params_.threshold));
    }
    if (!detail::strictly_increasing(list, [](const sealed_share& s) { return s.peer; })) {
      fail("the share inbox's senders are not ascending and distinct");
    }
    std::vector<std::uint32_t> u2;
    std::vector<key_share> key_shares, seed_shares;
    u2.reserve(list.size() + 1);
    key_shares.reserve(list.size() + 1);
    seed_shares.reserve(list.size() + 1);
    detail::secagg_plaintext plain{};
    auto add_self = [&] {
      u2.push_back(id_);
      key_shares.push_back(own_key_share_);
      seed_shares.push_back(own_seed_share_);
    };
    auto reject = [&](const std::string& why) {
      detail::wipe(plain.data(), plain.size());
      detail::wipe(key_shares);
      detail::wipe(seed_shares);
      fail(why);
    };
    for (const auto& s : list) {
      const std::size_t i = detail::index_of(ids_, s.peer);
      if (i == detail::npos || s.peer == id_) {
        reject("the share inbox holds a share from client " + std::to_string(s.peer) +
               ", who is not another client of the roster");
      }
      if (s.peer > id_ && (u2.empty() || u2.back() < id_)) add_self();
      if (!privet::detail::secagg_open(plain, channel_keys_[i], s.data, params_.session, s.peer,
                                       id_)) {
        reject("the share from client " + std::to_string(s.peer) + " does not authenticate");
      }
      key_share k{}, b{};
      if (!detail::get_share(plain.data(), k) ||
          !detail::get_share(plain.data() + detail::key_share_bytes, b)) {
        reject("the share from client " + std::to_string(s.peer) + " holds no field elements");
      }
      u2.push_back(s.peer);
      key_shares.push_back(k);
      seed_shares.push_back(b);
    }
    if (u2.empty() || u2.back() < id_) add_self();
    detail::wipe(plain.data(), plain.size());

    masked_input out;
    out.session = params_.session;
    out.sender = id_;
    out.values.assign(input.begin(), input.end());
    const auto& ring = params_.modulus.raw();
    privet::detail::secagg_add_mask(out.values, seed_, privet::detail::secagg_self_nonce, false,
                                    ring);
    for (auto v : u2) {
      if (v == id_) continue;
      // p_uv = +PRG(s_uv) when u > v and -PRG(s_uv) when u < v: they cancel in a sum.
      privet::detail::secagg_add_mask(out.values, mask_seeds_[detail::index_of(ids_, v)],
                                      privet::detail::secagg_pair_nonce, id_ < v, ring);
    }
    u2_ = std::move(u2);
    received_key_shares_ = std::move(key_shares);
    received_seed_shares_ = std::move(seed_shares);
    next_ = stage::unmasking;
    return out;
  }

  /// Round 3: for each client of U2, its seed share if it is in U3 and its
  /// key share otherwise. The client is done afterwards and wipes its secrets.
  /// protocol_error, the client unchanged, when the list is out of order, of
  /// another session, names fewer than t clients, is not ascending, names a
  /// client outside U2 or leaves this client out.
  unmasking_response unmask(const survivor_list& survivors) {
    require(stage::unmasking, "a survivor list");
    check_session(survivors.session, "survivor list");
    const auto& u3 = survivors.clients;
    if (u3.size() < params_.threshold) {
      fail("the survivor list names " + std::to_string(u3.size()) +
           " clients, fewer than the threshold " + std::to_string(params_.threshold));
    }
    if (!detail::strictly_increasing(u3, [](std::uint32_t x) { return x; })) {
      fail("the survivor list is not ascending and distinct");
    }
    for (auto v : u3) {
      if (detail::index_of(u2_, v) == detail::npos) {
        fail("the survivor list names client " + std::to_string(v) +
             ", who sent this client no shares");
      }
    }
    if (detail::index_of(u3, id_) == detail::npos) {
      fail("the survivor list leaves out this client, which sent its masked input");
    }
    unmasking_response out;
    out.session = params_.session;
    out.sender = id_;
    for (std::size_t i = 0; i < u2_.size(); ++i) {
      if (detail::index_of(u3, u2_[i]) != detail::npos) {
        out.seed_shares.push_back({u2_[i], received_seed_shares_[i]});
      } else {
        out.key_shares.push_back({u2_[i], received_key_shares_[i]});
      }
    }
    wipe();
    next_ = stage::done;
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    detail::fail("client " + std::to_string(id_), why);
  }
  void require(stage expected, const char* what) const {
    if (next_ != expected) {
      fail(std::string("received ") + what + " for round " + detail::name_of(expected) +
           ", but its next round is " + detail::name_of(next_));
    }
  }
  void check_session(std::uint64_t session, const char* what) const {
    if (session != params_.session) {
      fail(std::string("the ") + what + " belongs to session " + std::to_string(session) +
           ", not " + std::to_string(params_.session));
    }
  }
  void wipe() noexcept {
    detail::wipe(channel_secret_.data(), channel_secret_.size());
    detail::wipe(mask_secret_.data(), mask_secret_.size());
    detail::wipe(seed_.data(), seed_.size());
    detail::wipe(own_key_share_.data(), sizeof own_key_share_);
    detail::wipe(own_seed_share_.data(), sizeof own_seed_share_);
    detail::wipe(channel_keys_);
    detail::wipe(mask_seeds_);
    detail::wipe(received_key_shares_);
    detail::wipe(received_seed_shares_);
  }

  parameters params_;
  std::uint32_t id_;
  stage next_ = stage::advertise_keys;
  detail::secagg_key channel_secret_{}, mask_secret_{}, seed_{};
  public_key channel_public_{}, mask_public_{};
  std::vector<std::uint32_t> ids_;                // U1, ascending
  std::vector<detail::secagg_key> channel_keys_;  // by index in ids_
  std::vector<detail::secagg_key> mask_seeds_;    // by index in ids_
  key_share own_key_share_{}, own_seed_share_{};  // this client's shares of its own secrets
  std::vector<std::uint32_t> u2_;                 // U2, ascending
  std::vector<key_share> received_key_shares_;    // by index in u2_
  std::vector<key_share> received_seed_shares_;   // by index in u2_
};

// ---- server -----------------------------------------------------------------

/// The server: relays the clients' messages round by round and, at the end,
/// outputs the sum of the inputs of U3. Each `receive` takes one client's
/// message of the current round; each `finish_*` closes the round (when
/// the caller stops waiting) and returns what to send to the clients.
class server {
 public:
  /// The server of a run with `params`; throws invalid_parameter when they
  /// fail validate(). O(n) memory for the clients' slots.
  explicit server(const parameters& params) : params_(params) {
    validate(params);
    privet::detail::ensure_sodium();
    slots_.resize(static_cast<std::size_t>(params.clients) + 1);
  }
  /// Movable, not copyable: the shares the clients revealed in round 3 stay
  /// in one place, and a server assigned over wipes the ones it held (a
  /// copy, or an assignment that freed them as they were, would leave
  /// copies of secret shares in freed memory).
  ///@{
  server(const server&) = delete;
  server& operator=(const server&) = delete;
  server(server&&) noexcept = default;
  server& operator=(server&& other) noexcept {
    if (this != &other) {
      wipe_responses();
      params_ = std::move(other.params_);
      next_ = other.next_;
      slots_ = std::move(other.slots_);
      keys_ = std::move(other.keys_);
      u1_ = std::move(other.u1_);
      u2_ = std::move(other.u2_);
      u3_ = std::move(other.u3_);
      dropped_ = std::move(other.dropped_);
      sum_ = std::move(other.sum_);
    }
    return *this;
  }
  ///@}
  /// Wipes the shares the clients revealed in round 3.
  ~server() { wipe_responses(); }

  /// The round whose messages it takes next.
  [[nodiscard]] stage next() const noexcept { return next_; }

  /// Round 0: records client m.sender's keys. protocol_error, the server
  /// unchanged, when out of round, of another session, from an id outside
  /// [1, n], replayed, or with a key equal to the other or already
  /// advertised.
  void receive(const key_advertisement& m) {
    require(stage::advertise_keys, m.type);
    check_sender(m.session, m.sender, m.type);
    auto& s = slots_[m.sender];
    if (s.advertised) fail_replay(m.sender, m.type);
    if (m.channel_key == m.mask_key || keys_.contains(m.channel_key) ||
        keys_.contains(m.mask_key)) {
      fail("client " + std::to_string(m.sender) + " advertised a public key already in use");
    }
    keys_.insert(m.channel_key);
    keys_.insert(m.mask_key);
    s.advertised = true;
    s.channel_key = m.channel_key;
    s.mask_key = m.mask_key;
  }

  /// Ends round 0: the roster U1 to broadcast (aborts below t clients).
  key_roster finish_advertise_keys() {
    require_finish(stage::advertise_keys);
    for (std::uint32_t id = 1; id <= params_.clients; ++id) {
      if (slots_[id].advertised) u1_.push_back(id);
    }
    check_threshold(u1_.size(), "advertised keys");
    key_roster out;
    out.session = params_.session;
    for (auto id : u1_) out.clients.push_back({id, slots_[id].channel_key, slots_[id].mask_key});
    next_ = stage::share_keys;
    return out;
  }

  /// Round 1: records client m.sender's sealed shares and seed commitment.
  /// protocol_error, the server unchanged, when out of round, of another
  /// session, from a client outside U1, replayed, or without exactly one
  /// share per other client of U1 in ascending order.
  void receive(const share_bundle& m) {
    require(stage::share_keys, m.type);
    check_sender(m.session, m.sender, m.type);
    auto& s = slots_[m.sender];
    if (!s.advertised) fail_outsider(m.sender, m.type, "U1");
    if (s.shared) fail_replay(m.sender, m.type);
    if (m.shares.size() + 1 != u1_.size()) {
      fail("client " + std::to_string(m.sender) + "'s share bundle has " +
           std::to_string(m.shares.size()) + " shares, not one per other client of U1 (" +
           std::to_string(u1_.size() - 1) + ")");
    }
    for (std::size_t i = 0, j = 0; i < u1_.size(); ++i) {
      if (u1_[i] == m.sender) continue;
      if (m.shares[j++].peer != u1_[i]) {
        fail("client " + std::to_string(m.sender) +
             "'s share bundle is not addressed to the other clients of U1 in ascending order");
      }
    }
    s.shared = true;
    s.commitment = m.seed_commitment;
    s.bundle = m.shares;
  }

  /// Ends round 1: one inbox per client of U2 (aborts below t clients).
  std::vector<share_inbox> finish_share_keys() {
    require_finish(stage::share_keys);
    for (auto id : u1_) {
      if (slots_[id].shared) u2_.push_back(id);
    }
    check_threshold(u2_.size(), "shared their keys");
    std::vector<share_inbox> out(u2_.size());
    for (std::size_t k = 0; k < u2_.size(); ++k) {
      const std::uint32_t u = u2_[k];
      const std::size_t iu = detail::index_of(u1_, u);
      out[k].session = params_.session;
      out[k].recipient = u;
      out[k].shares.reserve(u2_.size() - 1);
      for (auto v : u2_) {
        if (v == u) continue;
        // v's bundle lists U1 \ {v} in order: u sits at u's index in U1,
        // one earlier when v comes before u.
        const std::size_t iv = detail::index_of(u1_, v);
        const auto& sealed = slots_[v].bundle[iu - (iv < iu ? 1 : 0)];
        out[k].shares.push_back({v, sealed.data});
      }
    }
    for (auto id : u1_) std::vector<sealed_share>().swap(slots_[id].bundle);
    sum_.assign(params_.length, 0);
    next_ = stage::masked_input_collection;
    return out;
  }

  /// Round 2: adds client m.sender's masked input to the running sum.
  /// protocol_error, the server unchanged, when out of round, of another
  /// session, from a client outside U2, replayed, of the wrong length or
  /// with a value outside Z_R.
  void receive(const masked_input& m) {
    require(stage::masked_input_collection, m.type);
    check_sender(m.session, m.sender, m.type);
    auto& s = slots_[m.sender];
    if (!s.shared) fail_outsider(m.sender, m.type, "U2");
    if (s.masked) fail_replay(m.sender, m.type);
    if (m.values.size() != params_.length) {
      fail("client " + std::to_string(m.sender) + "'s masked input has length " +
           std::to_string(m.values.size()) + ", not " + std::to_string(params_.length));
    }
    const auto& ring = params_.modulus;
    for (auto v : m.values) {
      if (v > ring.max_value()) {
        fail("client " + std::to_string(m.sender) + "'s masked input holds " + std::to_string(v) +
             ", outside Z_R (R - 1 = " + std::to_string(ring.max_value()) + ")");
      }
    }
    for (std::size_t i = 0; i < sum_.size(); ++i) sum_[i] = ring.add(sum_[i], m.values[i]);
    s.masked = true;
  }

  /// Ends round 2: the survivor list U3 to broadcast (aborts below t).
  survivor_list finish_masked_input_collection() {
    require_finish(stage::masked_input_collection);
    for (auto id : u2_) {
      if (slots_[id].masked) u3_.push_back(id);
    }
    check_threshold(u3_.size(), "sent masked inputs");
    for (auto id : u2_) {
      if (!slots_[id].masked) dropped_.push_back(id);
    }
    next_ = stage::unmasking;
    return {params_.session, u3_};
  }

  /// Round 3: records client m.sender's revealed shares. protocol_error,
  /// the server unchanged, when out of round, of another session, from a
  /// client outside U3, replayed, or without seed shares of exactly U3 and
  /// key shares of exactly U2 \ U3 (each ascending).
  void receive(const unmasking_response& m) {
    require(stage::unmasking, m.type);
    check_sender(m.session, m.sender, m.type);
    auto& s = slots_[m.sender];
    if (!s.masked) fail_outsider(m.sender, m.type, "U3");
    if (s.responded) fail_replay(m.sender, m.type);
    auto owners_match = [](const std::vector<owned_share>& got,
                           const std::vector<std::uint32_t>& want) {
      if (got.size() != want.size()) return false;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i].owner != want[i]) return false;
      }
      return true;
    };
    if (!owners_match(m.seed_shares, u3_)) {
      fail("client " + std::to_string(m.sender) +
           "'s unmasking response does not hold seed shares of exactly U3");
    }
    if (!owners_match(m.key_shares, dropped_)) {
      fail("client " + std::to_string(m.sender) +
           "'s unmasking response does not hold key shares of exactly U2 \\ U3");
    }
    s.responded = true;
    s.response = m;
  }

  /// Ends round 3: sum_{u in U3} x_u mod R. Aborts (protocol_error) below
  /// t responses or when a rebuilt secret fails its check.
  std::vector<std::uint64_t> finish_unmasking() {
    require_finish(stage::unmasking);
    std::vector<std::uint32_t> u5;
    for (auto id : u3_) {
      if (slots_[id].responded) u5.push_back(id);
    }
    check_threshold(u5.size(), "sent unmasking responses");
    try {
      const std::vector<std::uint64_t> points(u5.begin(), u5.end());
      const shamir::reconstructor<shamir::gf61> rec(points, params_.threshold);
      auto rebuild = [&](std::size_t index, bool seed_share, detail::secagg_key& k) {
        std::vector<shamir::gf61> elems(share_elements), ys(u5.size());
        for (std::size_t e = 0; e < share_elements; ++e) {
          for (std::size_t i = 0; i < u5.size(); ++i) {
            const auto& r = slots_[u5[i]].response;
            ys[i] = (seed_share ? r.seed_shares : r.key_shares)[index].y[e];
          }
          elems[e] = rec.secret(ys);
        }
        auto bytes = shamir::unpack_bytes<shamir::gf61>(elems, 32);
        std::copy(bytes.begin(), bytes.end(), k.begin());
        // The rebuilt secret and the shares it came from, in every form.
        detail::wipe(bytes);
        detail::wipe(elems);
        detail::wipe(ys);
      };
      const auto& ring = params_.modulus.raw();
      // Every rebuilt seed, mask key and pairwise key is a wiped_key, wiped
      // on the refusals below as well as after use.
      for (std::size_t j = 0; j < u3_.size(); ++j) {
        detail::wiped_key seed;
        rebuild(j, true, seed.key);
        if (privet::detail::secagg_commit(params_.session, u3_[j], seed.key) !=
            slots_[u3_[j]].commitment) {
          fail("the seed rebuilt for client " + std::to_string(u3_[j]) +
               " does not match its commitment: some shares are wrong");
        }
        privet::detail::secagg_add_mask(sum_, seed.key, privet::detail::secagg_self_nonce, true,
                                        ring);
      }
      for (std::size_t j = 0; j < dropped_.size(); ++j) {
        const std::uint32_t v = dropped_[j];
        detail::wiped_key secret;
        rebuild(j, false, secret.key);
        if (privet::detail::secagg_public_of(secret.key) != slots_[v].mask_key) {
          fail("the mask key rebuilt for client " + std::to_string(v) +
               " does not match its public key: some shares are wrong");
        }
        detail::wiped_key pair;
        for (auto u : u3_) {
          if (!detail::agree(pair.key, detail::mask_label, params_.session, secret.key, u,
                             slots_[u].mask_key, v, slots_[v].mask_key, slots_[u].mask_key)) {
            fail("client " + std::to_string(u) + "'s mask key is a low-order point");
          }
          // y_u holds +PRG(s_uv) when u > v: take it out.
          privet::detail::secagg_add_mask(sum_, pair.key, privet::detail::secagg_pair_nonce, u > v,
                                          ring);
        }
      }
    } catch (const protocol_error&) {
      next_ = stage::aborted;
      throw;
    }
    next_ = stage::done;
    return sum_;
  }

 private:
  struct slot {
    bool advertised = false, shared = false, masked = false, responded = false;
    public_key channel_key{}, mask_key{};
    digest commitment{};
    std::vector<sealed_share> bundle;
    unmasking_response response;
  };

  [[noreturn]] static void fail(const std::string& why) { detail::fail("server", why); }
  void wipe_responses() noexcept {
    for (auto& s : slots_) {
      detail::wipe(s.response.seed_shares);
      detail::wipe(s.response.key_shares);
    }
  }
  void require(stage expected, message_type t) const {
    if (next_ != expected) {
      fail("received " + detail::with_article(t) + " (round " + detail::name_of(expected) +
           ") during " + detail::name_of(next_));
    }
  }
  void require_finish(stage expected) const {
    if (next_ != expected) {
      fail(std::string("cannot end round ") + detail::name_of(expected) + " during " +
           detail::name_of(next_));
    }
  }
  void check_sender(std::uint64_t session, std::uint32_t sender, message_type t) const {
    if (session != params_.session) {
      fail(detail::with_article(t) + " belongs to session " + std::to_string(session) + ", not " +
           std::to_string(params_.session));
    }
    if (sender < 1 || sender > params_.clients) {
      fail(detail::with_article(t) + " comes from client " + std::to_string(sender) +
           ", outside [1, " + std::to_string(params_.clients) + "]");
    }
  }
  [[noreturn]] static void fail_replay(std::uint32_t sender, message_type t) {
    fail(std::string("client ") + std::to_string(sender) + " already sent its " +
         detail::name_of(t) + " (replayed message)");
  }
  [[noreturn]] static void fail_outsider(std::uint32_t sender, message_type t, const char* set) {
    fail(std::string("client ") + std::to_string(sender) + " sent " + detail::with_article(t) +
         " but is not in " + set);
  }
  void check_threshold(std::size_t count, const char* what) {
    if (count < params_.threshold) {
      next_ = stage::aborted;
      fail("only " + std::to_string(count) + " clients " + what + ", fewer than the threshold " +
           std::to_string(params_.threshold) + ": protocol aborted");
    }
  }

  parameters params_;
  stage next_ = stage::advertise_keys;
  std::vector<slot> slots_;  // by client id; slot 0 unused
  std::set<public_key> keys_;
  std::vector<std::uint32_t> u1_, u2_, u3_, dropped_;  // dropped_ = U2 \ U3
  std::vector<std::uint64_t> sum_;
};

}  // namespace privet::secagg
