// A downstream program: includes privet's umbrella header, runs a pipeline
// and checks the guarantee it reports. Built by both consumer projects.
#include <privet/privet.hpp>

#include <cstdio>
#include <vector>

int main() {
  privet::csprng& gen = privet::secure_generator();  // release noise: the OS-seeded CSPRNG
  const std::vector<double> data{0.5, 1.5, 2.5};
  auto pipeline = privet::clamp(0.0, 2.0) | privet::bounded_sum(0.0, 2.0) |
                  privet::laplace_mechanism<double>::from_scale(4.0);
  const double released = pipeline(data, gen);
  // Constant-time noise (the default): epsilon-DP within the samplers'
  // total variation, below 2^-100.
  const privet::within_tv<privet::pure_dp> spent = pipeline.guarantee(1);
  std::printf("privet %s: released %.3f with %s\n", privet::version_string, released,
              privet::to_string(spent).c_str());
  return spent.epsilon() > 0.5 && spent.epsilon() < 0.5001 && spent.total_variation() < 0x1p-100
             ? 0
             : 1;
}
