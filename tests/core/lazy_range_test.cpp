// detail::generated and detail::transformed: lazy forward ranges that model
// std::ranges::forward_range, yield f(i) / f(x) in order, can be walked more
// than once, and stay valid when copied; what privet uses where clang 14
// cannot build std::views::iota | transform.
#include <privet/core/detail/lazy_range.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <string>
#include <utility>
#include <vector>

namespace {
auto squares(std::size_t n) {
  return privet::detail::generated(n, [](std::size_t i) { return i * i; });
}
using squares_range = decltype(squares(0));
static_assert(std::ranges::forward_range<squares_range>);
static_assert(std::forward_iterator<squares_range::iterator>);
static_assert(std::same_as<std::ranges::range_value_t<squares_range>, std::size_t>);
}  // namespace

TEST_CASE("generated yields f(0), ..., f(n - 1), lazily and more than once") {
  const auto r = squares(5);
  CHECK(r.size() == 5);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::size_t> seen(r.begin(), r.end());
    CHECK(seen == std::vector<std::size_t>{0, 1, 4, 9, 16});
  }
  // Calls happen on dereference only: a range of 10^18 costs nothing.
  int calls = 0;
  const auto counted = privet::detail::generated(std::size_t{1} << 60, [&calls](std::size_t i) {
    ++calls;
    return i;
  });
  auto it = counted.begin();
  ++it;
  CHECK(calls == 0);
  CHECK(*it == 1);
  CHECK(calls == 1);
  CHECK(squares(0).begin() == squares(0).end());
}

TEST_CASE("a copy of a generated range, and its iterators, outlive the original") {
  std::vector<std::string> out;
  {
    auto copy = [] {
      const std::string prefix = "w";
      const auto r = privet::detail::generated(
          3, [prefix](std::size_t i) { return prefix + std::to_string(i); });
      return r;  // the function object lives on in the copy
    }();
    auto it = copy.begin();
    const auto moved = std::move(copy);
    for (; it != moved.end(); ++it) out.push_back(*it);
  }
  CHECK(out == std::vector<std::string>{"w0", "w1", "w2"});
}

TEST_CASE("transformed yields f(x) for each element, in order, through ranges algorithms") {
  const std::vector<std::pair<int, char>> base{{3, 'a'}, {1, 'b'}, {2, 'c'}};
  const auto firsts =
      privet::detail::transformed(base, [](const std::pair<int, char>& p) { return p.first; });
  static_assert(std::ranges::forward_range<decltype(firsts)>);
  std::vector<int> seen;
  for (int v : firsts) seen.push_back(v);
  CHECK(seen == std::vector<int>{3, 1, 2});
  CHECK(std::ranges::distance(firsts) == 3);
  CHECK(*std::ranges::max_element(firsts) == 3);
  const std::vector<int> none;
  const auto empty = privet::detail::transformed(none, [](int v) { return v; });
  CHECK(empty.begin() == empty.end());
}

namespace {
// A single-pass source whose end is a sentinel of another type.
class countdown {
 public:
  explicit countdown(int from) : from_(from) {}
  class iterator {
   public:
    using value_type = int;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(int* left) : left_(left) {}
    int operator*() const { return *left_; }
    iterator& operator++() {
      --*left_;
      return *this;
    }
    void operator++(int) { --*left_; }
    friend bool operator==(const iterator& i, std::default_sentinel_t) { return *i.left_ == 0; }

   private:
    int* left_ = nullptr;
  };
  [[nodiscard]] iterator begin() const { return iterator(&left_); }
  [[nodiscard]] std::default_sentinel_t end() const { return {}; }

 private:
  int from_;
  mutable int left_ = from_;
};
static_assert(std::ranges::input_range<const countdown&>);
}  // namespace

TEST_CASE("transformed passes a single-pass range with a sentinel through once") {
  const countdown source(4);
  const auto doubled = privet::detail::transformed(source, [](int v) { return 2 * v; });
  static_assert(std::ranges::input_range<decltype(doubled)>);
  static_assert(!std::ranges::forward_range<decltype(doubled)>);
  std::vector<int> seen;
  for (int v : doubled) seen.push_back(v);
  CHECK(seen == std::vector<int>{8, 6, 4, 2});
}
