// A timing-independence check of Paillier CRT decryption, after dudect
// (Reparaz, Balasch and Verbauwhede 2017, "Dude, is my code constant time?",
// DATE): measurements of two classes of inputs, the class of each
// measurement drawn at random so that drift and other processes hit both
// alike, compared by Welch's t-statistic; |t| above 4.5 (dudect's threshold)
// says the two timing distributions differ. Like dudect it also tests the
// measurements below pooled percentiles (the upper tail is mostly
// interference), and reports the largest |t|. This is a benchmark, not a
// test: it needs a quiet machine and seconds to minutes, and timing never
// goes into the test suite.
//
// Checks (privet::paillier on the GMP backend; with PRIVET_HAS_OPENSSL the
// secret-exponent powers are OpenSSL's BN_mod_exp_mont_consttime):
//  1. decrypt: one fixed ciphertext against fresh random ones (random
//     plaintext and randomiser), the classes dudect prescribes;
//  2. pow_secret modulo p^2: a sparse exponent (2^(k-1) + 1) against random
//     k-bit exponents, the secret itself varying;
//  3. the same classes through GMP's variable-time mpz_powm, the
//     exponentiation python-paillier's decryption uses: a positive control
//     that shows the harness detects a leak (sliding windows skip zeros).
//
// Usage: paillier_dudect [bits=2048] [samples=20000]
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/detail/montgomery.hpp>
#include <privet/crypto/paillier.hpp>

#include <boost/multiprecision/gmp.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace {

namespace mp = boost::multiprecision;
namespace paillier = privet::paillier;
using mp::mpz_int;

// This thread's CPU time in microseconds (CLOCK_THREAD_CPUTIME_ID): time
// other processes hold the core is left out, which on a shared machine
// removes most of the noise without touching the operation's own time.
double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

struct welch {
  double n[2] = {0, 0};
  double mean[2] = {0, 0};
  double m2[2] = {0, 0};
  void push(int cls, double x) {
    n[cls] += 1;
    const double d = x - mean[cls];
    mean[cls] += d / n[cls];
    m2[cls] += d * (x - mean[cls]);
  }
  [[nodiscard]] double t() const {
    if (n[0] < 2 || n[1] < 2) return 0;
    const double v0 = m2[0] / (n[0] - 1);
    const double v1 = m2[1] / (n[1] - 1);
    return (mean[0] - mean[1]) / std::sqrt(v0 / n[0] + v1 / n[1]);
  }
};

struct verdict {
  double max_abs_t;
  double t_all;
  double mean_us[2];
  std::size_t samples;
};

// Runs `op(cls, i)` for `samples` measurements, class of each drawn at
// random, then tests all measurements and those below the pooled 50th,
// 75th and 90th percentiles.
verdict measure(std::size_t samples, privet::testing::seeded_release_generator& gen,
                const std::function<void(int, std::size_t)>& op) {
  std::vector<int> cls(samples);
  for (auto& c : cls) c = static_cast<int>(gen() & 1);
  std::vector<double> t_us(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    const double a = thread_cpu_us();
    op(cls[i], i);
    t_us[i] = thread_cpu_us() - a;
  }
  std::vector<double> sorted = t_us;
  std::sort(sorted.begin(), sorted.end());
  verdict v{0, 0, {0, 0}, samples};
  for (double pct : {1.0, 0.9, 0.75, 0.5}) {
    const double cut = sorted[std::min(samples - 1, static_cast<std::size_t>(pct * samples))];
    welch w;
    for (std::size_t i = 0; i < samples; ++i) {
      if (pct == 1.0 || t_us[i] <= cut) w.push(cls[i], t_us[i]);
    }
    if (pct == 1.0) {
      v.t_all = w.t();
      v.mean_us[0] = w.mean[0];
      v.mean_us[1] = w.mean[1];
    }
    v.max_abs_t = std::max(v.max_abs_t, std::abs(w.t()));
  }
  return v;
}

void report(const char* name, std::size_t bits, const verdict& v) {
  std::printf(
      "%-44s %4zu bits  N = %6zu  mean %.1f / %.1f us  t(all) = %+6.2f  max|t| = %5.2f  %s\n", name,
      bits, v.samples, v.mean_us[0], v.mean_us[1], v.t_all, v.max_abs_t,
      v.max_abs_t < 4.5 ? "no leak detected (|t| < 4.5)" : "LEAK (|t| >= 4.5)");
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t bits = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2048;
  const std::size_t samples = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 20000;
#ifdef PRIVET_HAS_OPENSSL
  std::printf("backend: GMP with OpenSSL BN_mod_exp_mont_consttime\n");
#else
  std::printf("backend: GMP mpz_powm_sec\n");
#endif
  privet::testing::seeded_release_generator gen(bits);
  const auto keys = paillier::generate_keypair<mpz_int>(bits, gen);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;

  // 1. Decryption, fixed against random ciphertexts (inputs made before
  // timing starts).
  {
    const auto fixed = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
    std::vector<paillier::ciphertext<mpz_int>> random;
    random.reserve(samples);
    for (std::size_t i = 0; i < samples; ++i) {
      random.push_back(pk.with_mode(paillier::encryption_mode::djn)
                           .encrypt(privet::uniform_below(gen, pk.n()), gen));
    }
    mpz_int sink;
    const verdict v = measure(samples, gen, [&](int cls, std::size_t i) {
      sink += sk.decrypt(cls == 0 ? fixed : random[i]);
    });
    report("decrypt: fixed c vs random c", bits, v);
  }

  // 2 and 3. Exponentiation modulo p^2, sparse against random exponents of
  // the prime's length.
  const mpz_int& p = sk.p();
  const mpz_int p2 = p * p;
  const std::size_t k = privet::detail::bits_of(p);
  const privet::detail::modular<mpz_int> mod_p2(p2);
  const mpz_int sparse = (mpz_int(1) << static_cast<unsigned>(k - 1)) + 1;
  const std::size_t pow_samples = samples;
  std::vector<mpz_int> exps(pow_samples), bases(pow_samples);
  for (std::size_t i = 0; i < pow_samples; ++i) {
    exps[i] = privet::random_bits<mpz_int>(gen, k) | (mpz_int(1) << static_cast<unsigned>(k - 1));
    bases[i] = privet::uniform_below(gen, p2);
  }
  {
    mpz_int sink;
    const verdict v = measure(pow_samples, gen, [&](int cls, std::size_t i) {
      sink += mod_p2.pow_secret(bases[i], cls == 0 ? sparse : exps[i], k);
    });
    report("pow_secret mod p^2: sparse vs random exp", bits, v);
  }
  {
    mpz_int out;
    const verdict v = measure(pow_samples, gen, [&](int cls, std::size_t i) {
      const mpz_int& e = cls == 0 ? sparse : exps[i];
      mpz_powm(out.backend().data(), bases[i].backend().data(), e.backend().data(),
               p2.backend().data());
    });
    report("control, mpz_powm: sparse vs random exp", bits, v);
  }
  return 0;
}
