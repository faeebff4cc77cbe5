// expect: holds only for randomisers in its errata's class
// Feldman, McMillan & Talwar 2023's closed form for subset selection (LDP
// TrieHH's randomiser): its errata restricts the theorem to a class that
// subset selection with d >= 2 is not in, so this must not compile. With
// PRIVET_COMPILE_FAIL_FIXED the randomiser is k-ary randomised response,
// which is in the class, and it compiles.
#include <privet/accounting/shuffle.hpp>
#include <privet/mechanisms/randomized_response.hpp>
#include <privet/mechanisms/subset_selection.hpp>

#ifdef PRIVET_COMPILE_FAIL_FIXED
using randomiser = privet::randomized_response;
#else
using randomiser = privet::subset_selection;
#endif

int main() {
  const auto g = privet::shuffle_amplification_closed_form<randomiser>(1.0, 100'000, 1e-8);
  return g.epsilon() < 1.0 ? 0 : 1;
}
