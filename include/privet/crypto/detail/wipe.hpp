// privet/crypto/detail/wipe.hpp — zeroing the storage of secret integers and
// limb buffers before it goes back to the allocator.
//
// A secret (a prime, a private exponent, a randomiser, a share) held in a
// Boost.Multiprecision integer lives in heap limbs that the integer's
// destructor hands back to malloc (or GMP's free function) as they are: the
// next owner of the block, a core dump or a swap file sees the secret. The
// tools here overwrite those limbs with zeros first:
//  - secure_zero(p, n): libsodium's sodium_memzero, a write the compiler may
//    not remove as dead (the storage is about to be freed, which is exactly
//    the case an optimiser deletes a plain memset in);
//  - wipe_secret(x): zeroes every limb x owns, up to its allocated capacity
//    (not only the limbs of its current value: a number that shrank keeps
//    the old high limbs), then leaves x equal to 0, valid for reuse:
//      GMP backend (mpz_int): the _mp_alloc limbs at _mp_d;
//      cpp_int, dynamic: capacity() limbs at limbs(), heap or inline (a
//        moved-from cpp_int has its inline storage back, holding the stolen
//        pointer, which is not secret, and is zeroed all the same);
//      cpp_int, fixed precision (checked or not): the whole inline array;
//      cpp_int, single-limb ("trivial") types: the one value;
//  - secret<Int>: an Int that wipes itself when destroyed, when assigned
//    over and when moved from (the moved-from object's storage is zeroed
//    after the move, whatever Boost's move left in it: GMP's move
//    constructor steals the block, its move assignment swaps blocks, and
//    cpp_int's copies the limbs of a small value and steals a large one);
//  - wiping_allocator / wiping_vector: a std::allocator that zeroes every
//    block at deallocation, for limb scratch (Montgomery forms, exponent
//    copies) that holds secrets.
//
// What cannot be reached from here (said plainly, the security model lists
// it too):
//  - temporaries inside Boost's and GMP's arithmetic: an expression such as
//    (p - 1) * (q - 1) builds intermediate numbers that Boost or GMP free
//    without zeroing; GMP's mpz functions take scratch space from the stack
//    (alloca) or, above a size threshold, from its allocation functions, and
//    free it as is;
//  - growth: when an integer outgrows its capacity, Boost (cpp_int's resize)
//    and GMP (_mpz_realloc through the realloc function) copy the limbs to a
//    larger block and free the old one without zeroing it. Only a program
//    that installs its own GMP allocation functions (mp_set_memory_functions)
//    or gives cpp_int_backend a zeroing allocator (wiping_allocator is one)
//    closes that for every number;
//  - copies the caller makes (a key's p() returns a reference; copying it
//    into an Int of one's own makes a copy this library does not track),
//    strings and JSON texts of serialised keys, and stack frames (registers
//    and spilled limbs of the arithmetic above);
//  - a cpp_int that aliases another's limbs (Boost makes those only inside
//    its own operators): wipe_secret must not be given one;
//  - OpenSSL's per-thread BN_CTX scratch (montgomery.hpp) keeps the values of
//    the last exponentiation of its thread until the thread ends (BN_CTX_free
//    clears them then); BIGNUMs themselves are freed with BN_clear_free.
#pragma once

#include <privet/crypto/detail/wipe_memory.hpp>

#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::detail {

namespace wipe_impl {

template <class B>
struct cpp_int_backend_info {
  static constexpr bool is_cpp_int = false;
};
template <unsigned MinBits, unsigned MaxBits, boost::multiprecision::cpp_integer_type Sign,
          boost::multiprecision::cpp_int_check_type Checked, class Alloc>
struct cpp_int_backend_info<
    boost::multiprecision::cpp_int_backend<MinBits, MaxBits, Sign, Checked, Alloc>> {
  using backend = boost::multiprecision::cpp_int_backend<MinBits, MaxBits, Sign, Checked, Alloc>;
  static constexpr bool is_cpp_int = true;
  static constexpr bool trivial =
      boost::multiprecision::backends::is_trivial_cpp_int<backend>::value;
  // Fixed precision: no allocator, every limb inline.
  static constexpr bool fixed = std::is_void_v<Alloc>;
};

template <class Int>
using backend_of = typename Int::backend_type;

}  // namespace wipe_impl

/// Whether wipe_secret knows how to reach every limb of `Int`.
template <class Int>
concept wipeable_integer = requires {
  typename Int::backend_type;
}
&&(wipe_impl::cpp_int_backend_info<wipe_impl::backend_of<Int>>::is_cpp_int
#ifdef PRIVET_HAS_GMP
   || std::is_same_v<wipe_impl::backend_of<Int>, boost::multiprecision::gmp_int>
#endif
);

/// Zeroes every limb `x` owns (up to its capacity) and leaves x == 0. Safe on
/// a moved-from integer. See the file comment for what it cannot reach.
template <wipeable_integer Int>
void wipe_secret(Int& x) noexcept {
  using backend = wipe_impl::backend_of<Int>;
  using info = wipe_impl::cpp_int_backend_info<backend>;
  auto& b = x.backend();
  if constexpr (info::is_cpp_int) {
    if constexpr (info::trivial) {
      // One limb or double limb, inline: limbs() points at the value itself.
      secure_zero(b.limbs(), sizeof(*b.limbs()));
      b.sign(false);
    } else if constexpr (info::fixed) {
      secure_zero(b.limbs(), backend::internal_limb_count * sizeof(*b.limbs()));
      b.resize(1, 1);
      b.sign(false);
    } else {
      // capacity() is the heap block's length, or the inline array's when
      // the value is small or x was moved from.
      secure_zero(b.limbs(), std::size_t{b.capacity()} * sizeof(*b.limbs()));
      b.resize(1, 1);  // within capacity: no allocation
      b.limbs()[0] = 0;
      b.sign(false);
    }
  }
#ifdef PRIVET_HAS_GMP
  else {
    // gmp_int holds exactly one mpz_t and nothing else, so the backend's
    // address is its mpz's: reading it this way (not through data(), which
    // asserts that the integer was not moved from) is defined.
    static_assert(std::is_standard_layout_v<backend> && sizeof(backend) == sizeof(mpz_t),
                  "privet: wipe_secret assumes Boost's gmp_int is exactly one mpz_t");
    auto* z = reinterpret_cast<__mpz_struct*>(&b);
    if (z->_mp_d != nullptr) {
      // _mp_alloc is 0 for GMP 6.2's lazily allocated zero (whose _mp_d
      // points at a shared constant limb, which must not be written).
      secure_zero(z->_mp_d, static_cast<std::size_t>(z->_mp_alloc) * sizeof(mp_limb_t));
      z->_mp_size = 0;
    }
  }
#endif
}

/// Zeroes every integer of a range (see wipe_secret).
template <class Range>
void wipe_secrets(Range& r) noexcept {
  for (auto& x : r) wipe_secret(x);
}

/// An integer that is wiped (wipe_secret) when it is destroyed, assigned over
/// or moved from. Copies are independent integers, each wiped in its turn.
template <wipeable_integer Int>
class secret {
 public:
  secret() = default;
  explicit secret(const Int& v) : v_(v) {}
  explicit secret(Int&& v) noexcept : v_(std::move(v)) { wipe_secret(v); }
  secret(const secret& o) : v_(o.v_) {}
  secret(secret&& o) noexcept : v_(std::move(o.v_)) { wipe_secret(o.v_); }
  secret& operator=(const secret& o) {
    if (this != &o) {
      // Boost reuses the block when it is large enough and frees it
      // otherwise: zero first, either way.
      wipe_secret(v_);
      v_ = o.v_;
    }
    return *this;
  }
  secret& operator=(secret&& o) noexcept {
    if (this != &o) {
      wipe_secret(v_);  // cpp_int's move assignment frees our block as is
      v_ = std::move(o.v_);
      wipe_secret(o.v_);  // GMP's swaps our (zeroed) block into o
    }
    return *this;
  }
  ~secret() { wipe_secret(v_); }

  [[nodiscard]] const Int& get() const noexcept { return v_; }
  [[nodiscard]] Int& get() noexcept { return v_; }
  operator const Int&() const noexcept { return v_; }  // NOLINT: reads as an Int

 private:
  Int v_;
};

}  // namespace privet::detail
