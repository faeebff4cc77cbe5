// privacy_units: a partition of examples into users lists each user's
// examples in order, covers every example once, and refuses an empty list
// or an id with no example, naming it.
#include <privet/ml/privacy_units.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

using privet::ml::privacy_units;

TEST_CASE("the default partition is example-level") {
  const privacy_units u;
  CHECK(u.example_level());
  CHECK(u.unit_count() == 0);
  CHECK(u.example_count() == 0);
  CHECK_THROWS_AS((void)u.examples_of(0), privet::invalid_parameter);
}

TEST_CASE("each unit lists its examples in increasing order") {
  const std::vector<std::size_t> unit_of{2, 0, 2, 1, 0, 2, 2};
  const privacy_units u(unit_of);
  CHECK_FALSE(u.example_level());
  CHECK(u.unit_count() == 3);
  CHECK(u.example_count() == 7);
  auto as_vector = [](std::span<const std::size_t> s) {
    return std::vector<std::size_t>(s.begin(), s.end());
  };
  CHECK(as_vector(u.examples_of(0)) == std::vector<std::size_t>{1, 4});
  CHECK(as_vector(u.examples_of(1)) == std::vector<std::size_t>{3});
  CHECK(as_vector(u.examples_of(2)) == std::vector<std::size_t>{0, 2, 5, 6});
  // Every example is in exactly the unit it was given.
  std::vector<int> seen(unit_of.size(), 0);
  for (std::size_t k = 0; k < u.unit_count(); ++k) {
    for (std::size_t i : u.examples_of(k)) {
      CHECK(unit_of[i] == k);
      ++seen[i];
    }
  }
  for (int s : seen) CHECK(s == 1);
  CHECK(u == privacy_units(unit_of));
  CHECK_FALSE(u == privacy_units());
}

TEST_CASE("privacy_units refuses an empty list, an unused id and a unit out of range") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(privacy_units(std::vector<std::size_t>{}),
                       "privet: unit_of is empty; allowed: at least one element",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privacy_units(std::vector<std::size_t>{0, 2, 2}),
                       "privet: unit_of = ids up to 2 with none equal to 1 is invalid; allowed: "
                       "ids 0 .. U - 1 that each name at least one example",
                       invalid_parameter);
  // Ids at or above the example count cannot all be used; the largest one
  // (whose + 1 would wrap to 0) and a huge one are refused before any
  // allocation.
  CHECK_THROWS_WITH_AS(privacy_units(std::vector<std::size_t>{0, 3, 1}),
                       "privet: unit_of[1] = 3 is invalid; allowed: a unit id < unit_of.size() = "
                       "3 (ids 0 .. U - 1, each naming at least one example)",
                       invalid_parameter);
  CHECK_THROWS_AS(privacy_units(std::vector<std::size_t>{0, SIZE_MAX}), invalid_parameter);
  CHECK_THROWS_AS(privacy_units(std::vector<std::size_t>{0, std::size_t{1} << 40}),
                  invalid_parameter);
  const privacy_units u(std::vector<std::size_t>{0, 1});
  CHECK_THROWS_WITH_AS((void)u.examples_of(2),
                       "privet: u = 2 is invalid; allowed: a unit < unit_count() = 2",
                       invalid_parameter);
}
