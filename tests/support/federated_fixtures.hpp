// tests/support/federated_fixtures.hpp — what the in-process and the MPI
// federated DP-SGD tests share: Gaussian-class data, bitwise comparison of
// parameter vectors, and integer RDP orders (fast to calibrate on).
#pragma once

#include <privet/ml/model.hpp>

#include <xtensor/xtensor.hpp>

#include <cstddef>
#include <cstring>
#include <random>
#include <span>
#include <vector>

namespace privet::test {

/// `classes` Gaussian classes in f dimensions, means +-shift on the first
/// axis (and spread along the second for more than two classes).
inline ml::dense_batch<double> blobs(std::size_t n, std::size_t f, double shift, unsigned seed,
                                     int classes) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> nd;
  ml::dense_batch<double> b;
  b.x = xt::xtensor<double, 2>::from_shape({n, f});
  for (std::size_t i = 0; i < n; ++i) {
    const int y = static_cast<int>(i % static_cast<std::size_t>(classes));
    for (std::size_t j = 0; j < f; ++j) b.x(i, j) = nd(gen);
    b.x(i, 0) += (y == 0 ? -shift : shift);
    if (classes > 2 && f > 1) b.x(i, 1) += shift * (y - 1);
    b.y.push_back(y);
  }
  return b;
}

/// Whether a and b hold the same doubles bit for bit.
inline bool same_bits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

/// The RDP orders 2, 3, ..., max.
inline std::vector<double> integer_orders(int max) {
  std::vector<double> orders;
  for (int a = 2; a <= max; ++a) orders.push_back(a);
  return orders;
}

}  // namespace privet::test
