// privet/core/detail/lazy_range.hpp — two lazy forward ranges:
// `generated(n, f)` yields f(0), ..., f(n - 1), and `transformed(r, f)`
// yields f(x) for each x of the range r, each computed when dereferenced.
//
// Why not std::views::iota / std::views::transform: clang 14 (Debian 12's)
// cannot instantiate libstdc++ 12's range adaptors (their pipe operators and
// iota_view's iterator fail its concept checks), and privet's headers must
// build with both compilers. These ranges model std::ranges::forward_range,
// so the algorithms that take a forward or input range accept them.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

namespace privet::detail {

/// f(0), ..., f(n - 1), lazily.
template <class F>
class generated_range {
 public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, std::size_t>>;

  class iterator {
   public:
    using value_type = generated_range::value_type;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::input_iterator_tag;  // operator* returns by value

    iterator() = default;
    iterator(const F* f, std::size_t i) : f_(f), i_(i) {}
    value_type operator*() const { return std::invoke(*f_, i_); }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++i_;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }

   private:
    const F* f_ = nullptr;
    std::size_t i_ = 0;
  };

  generated_range(std::size_t n, F f) : n_(n), f_(std::make_shared<const F>(std::move(f))) {}
  [[nodiscard]] iterator begin() const { return iterator(f_.get(), 0); }
  [[nodiscard]] iterator end() const { return iterator(f_.get(), n_); }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

 private:
  std::size_t n_;
  // Shared, so copies of the range (and iterators into a copy) stay valid.
  std::shared_ptr<const F> f_;
};

template <class F>
generated_range<F> generated(std::size_t n, F f) {
  return generated_range<F>(n, std::move(f));
}

/// f(x) for each x of `base` (which must outlive the range), lazily. A
/// forward range over a forward range, else a single-pass input range; a
/// base whose end is a sentinel of another type gives a sentinel too.
template <class R, class F>
class transformed_range {
  using base_iterator = decltype(std::begin(std::declval<const R&>()));
  using base_sentinel = decltype(std::end(std::declval<const R&>()));
  static constexpr bool forward = std::forward_iterator<base_iterator>;

 public:
  using value_type =
      std::remove_cvref_t<std::invoke_result_t<const F&, decltype(*std::declval<base_iterator>())>>;

  class iterator {
   public:
    using value_type = transformed_range::value_type;
    using difference_type = std::ptrdiff_t;
    using iterator_concept =
        std::conditional_t<forward, std::forward_iterator_tag, std::input_iterator_tag>;
    using iterator_category = std::input_iterator_tag;  // operator* returns by value

    iterator() = default;
    iterator(const F* f, base_iterator it) : f_(f), it_(std::move(it)) {}
    value_type operator*() const { return std::invoke(*f_, *it_); }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    iterator operator++(int) requires forward {
      iterator old = *this;
      ++it_;
      return old;
    }
    void operator++(int) requires(!forward) { ++it_; }
    friend bool operator==(const iterator& a, const iterator& b) requires forward {
      return a.it_ == b.it_;
    }
    [[nodiscard]] const base_iterator& base() const noexcept { return it_; }

   private:
    const F* f_ = nullptr;
    base_iterator it_{};
  };

  class sentinel {
   public:
    sentinel() = default;
    explicit sentinel(base_sentinel s) : s_(std::move(s)) {}
    friend bool operator==(const iterator& i, const sentinel& s) { return i.base() == s.s_; }

   private:
    base_sentinel s_{};
  };

  transformed_range(const R& base, F f)
      : base_(&base), f_(std::make_shared<const F>(std::move(f))) {}
  [[nodiscard]] iterator begin() const { return iterator(f_.get(), std::begin(*base_)); }
  [[nodiscard]] auto end() const {
    if constexpr (std::is_same_v<base_iterator, base_sentinel>) {
      return iterator(f_.get(), std::end(*base_));
    } else {
      return sentinel(std::end(*base_));
    }
  }

 private:
  const R* base_;
  std::shared_ptr<const F> f_;
};

template <class R, class F>
transformed_range<R, F> transformed(const R& base, F f) {
  return transformed_range<R, F>(base, std::move(f));
}

}  // namespace privet::detail
