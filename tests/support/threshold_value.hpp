// tests/support/threshold_value.hpp — a 128-bit coin threshold T as the
// exact number T / 2^128, in Boost's cpp_bin_float at 300 bits: the second
// computation the constant-time local randomisers' keep probabilities are
// checked against (randomized_response_test, subset_selection_test).
#pragma once

#include <privet/mechanisms/detail/constant_time.hpp>

#include <boost/multiprecision/cpp_bin_float.hpp>

namespace privet::test {

/// 300-bit binary floating point: T / 2^128 and the probabilities it is
/// compared with are exact or far below 2^-128 off.
using real300 = boost::multiprecision::number<boost::multiprecision::cpp_bin_float<300>>;

/// T / 2^128 exactly.
inline real300 threshold_value(const privet::detail::ct_threshold& t) {
  return ldexp(real300(t.hi), -64) + ldexp(real300(t.lo), -128);
}

}  // namespace privet::test
