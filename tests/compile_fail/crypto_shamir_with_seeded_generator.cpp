// expect: keys, encryption randomisers, masks, shares and blinding values need a cryptographically
// secure generator Shamir sharing whose coefficients come from a seeded generator: whoever knows
// the seed rebuilds the polynomial from one share. It must not compile. With
// PRIVET_COMPILE_FAIL_FIXED the OS-seeded CSPRNG is used and it compiles.
#include <privet/core/csprng.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/crypto/shamir.hpp>

#include <vector>

int main() {
  using F = privet::shamir::gf61;
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::csprng& gen = privet::secure_generator();
#else
  privet::seeded_generator gen(7);
#endif
  const std::vector<F> secret{F(42)};
  const auto shares = privet::shamir::split(std::span<const F>(secret), 2, std::size_t{3}, gen);
  return shares.size() == 3 ? 0 : 1;
}
