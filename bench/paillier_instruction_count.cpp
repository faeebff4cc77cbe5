// A fixed amount of Paillier work for instruction counting under
// `valgrind --tool=callgrind` (bench/README.md, "Wiping secrets"): timings
// on a shared machine scatter too much to resolve a 1 % change, instruction
// counts do not. Compile the same file against two trees' headers to compare
// them. A plain program, not a Google Benchmark.
//
//   paillier_instruction_count <cpp|mpz> <keygen|setup|encrypt|decrypt> <n>
//
// keygen: n 2048-bit key pairs. setup: one key pair and one encryption (the
// set-up of encrypt and decrypt, counted on its own to be subtracted).
// encrypt / decrypt: the set-up, then n public-key encryptions or n CRT
// decryptions. Every draw comes from testing::seeded_release_generator, so
// two builds do the same arithmetic.
#include <privet/core/testing.hpp>
#include <privet/crypto/paillier.hpp>

#include <boost/multiprecision/cpp_int.hpp>
#include <boost/multiprecision/gmp.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

template <class Int>
int run(const std::string& what, int n) {
  privet::testing::seeded_release_generator gen(7);
  unsigned long long sink = 0;  // keeps the results alive
  if (what == "keygen") {
    for (int i = 0; i < n; ++i) {
      const auto kp = privet::paillier::generate_keypair<Int>(2048, gen);
      sink += static_cast<unsigned long long>(kp.public_key.n() & 0xff);
    }
  } else if (what == "setup" || what == "encrypt" || what == "decrypt") {
    privet::testing::seeded_release_generator key_gen(8);
    const auto kp = privet::paillier::generate_keypair<Int>(2048, key_gen);
    auto c = kp.public_key.encrypt(Int(12345), gen);
    for (int i = 0; i < n && what != "setup"; ++i) {
      if (what == "encrypt") {
        c = kp.public_key.encrypt(Int(i), gen);
      } else {
        sink += static_cast<unsigned long long>(kp.private_key.decrypt(c) & 0xff);
      }
    }
    sink += static_cast<unsigned long long>(c.value() & 0xff);
  } else {
    return 2;
  }
  std::printf("%llu\n", sink);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <cpp|mpz> <keygen|setup|encrypt|decrypt> <n>\n", argv[0]);
    return 2;
  }
  const std::string backend = argv[1];
  const int n = std::atoi(argv[3]);
  if (backend == "cpp") return run<boost::multiprecision::cpp_int>(argv[2], n);
  if (backend == "mpz") return run<boost::multiprecision::mpz_int>(argv[2], n);
  return 2;
}
