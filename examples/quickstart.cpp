// privet quick start: two private statistics over a small embedded data set.
// One header per piece used (<privet/privet.hpp> has everything, at about
// twice the compile time).
#include <privet/core/core.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/sketches/contribution_bounding.hpp>

#include "support/command_line.hpp"  // the examples' --help and option checks

#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  privet::examples::command_line cli("quickstart",
                                     "Two private statistics over a small embedded data set.");
  if (auto exit_code = cli.parse(argc, argv)) return *exit_code;

  // Embedded data: (user id, session minutes); some users have many sessions.
  std::vector<privet::unit_record<int, double>> sessions;
  for (int user = 0; user < 200; ++user)
    for (int s = 0; s <= user % 7; ++s) sessions.push_back({user, 5.0 + (user * 37 + s * 11) % 90});
  std::cout << "data: embedded sample, " << sessions.size() << " sessions of 200 users\n";

  privet::csprng& gen = privet::secure_generator();  // release-grade randomness

  // Total minutes: clamp each session to [0, 60], sum (of at most 10^6
  // sessions, which bounds the rounding error), Laplace noise for eps = 1.
  std::vector<double> minutes;
  for (const auto& s : sessions) minutes.push_back(s.value);
  auto sum = privet::clamp(0.0, 60.0) | privet::bounded_sum(0.0, 60.0, 1'000'000);
  auto total =
      sum | privet::laplace_mechanism<>::from_guarantee(privet::pure_dp(1.0), sum.stability(1));
  std::cout << "total minutes (per session): " << total(minutes, gen)
            << "  spent: " << total.guarantee(1) << '\n';

  // Sessions, private per user: keep at most 3 per user, count, Gaussian noise.
  auto per_user = privet::bound_contributions<int, double>(3) | privet::count{};
  auto count = per_user | privet::gaussian_mechanism<>::from_guarantee(privet::zcdp(0.05),
                                                                       per_user.stability(1));
  std::cout << "sessions (per user):         " << count(sessions, gen)
            << "  spent: " << count.guarantee(1) << '\n';
}
