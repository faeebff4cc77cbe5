// examples/support/svg_plot.hpp — a small SVG chart writer for the examples:
// scatter points and poly-lines on linear or log-10 axes, with ticks at
// round numbers (1, 2 or 5 times a power of ten), axis labels, a marker on
// every measured point and a legend sized to its longest entry. write()
// also writes the plotted numbers as CSV beside the SVG (same name, .csv),
// so that a reader can re-plot them with any tool; csv_table writes an
// example's printed tables the same way. Files are written whole or not at
// all, never over an input (output_files.hpp, in privet_examples_cli).
#pragma once

#include "output_files.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace privet::examples {

/// Axis ticks: positions and the axis range they span.
struct axis_ticks {
  double lo = 0, hi = 1;       ///< the axis range (in the axis's own scale)
  std::vector<double> values;  ///< tick values, in data units, increasing
};

namespace plot_detail {

/// The round step (1, 2 or 5 x 10^k) nearest above span / target.
inline double round_step(double span, int target) {
  const double raw = span / std::max(1, target);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0})
    if (m * p >= raw * (1 - 1e-9)) return m * p;
  return 10 * p;
}

}  // namespace plot_detail

/// Linear ticks for data in [lo, hi]: a round step (1, 2 or 5 x 10^k) giving
/// about `target` intervals, and the axis widened to the ticks around the
/// data unless `fixed` (then the axis is [lo, hi] and the ticks fall inside).
inline axis_ticks linear_ticks(double lo, double hi, int target = 5, bool fixed = false) {
  if (!(hi > lo)) {
    const double pad = lo != 0 ? std::abs(lo) * 0.5 : 1.0;
    lo -= pad, hi += pad;
  }
  const double step = plot_detail::round_step(hi - lo, target);
  axis_ticks t;
  const double first = fixed ? std::ceil(lo / step - 1e-9) : std::floor(lo / step + 1e-9);
  const double last = fixed ? std::floor(hi / step + 1e-9) : std::ceil(hi / step - 1e-9);
  for (double i = first; i <= last; ++i) {
    double v = i * step;
    if (std::abs(v) < step * 1e-9) v = 0;  // no "-0" or 1e-17
    t.values.push_back(v);
  }
  t.lo = fixed ? lo : first * step;
  t.hi = fixed ? hi : last * step;
  return t;
}

/// Log-10 ticks for positive data in [lo, hi]: every power of ten the axis
/// spans (every second or fifth one over many decades), with 2 and 5 times
/// them when the data span less than two decades; the axis runs from the
/// tick below the data to the tick above unless `fixed`. lo and hi are data
/// values (not logarithms); the returned range is in log10 units.
inline axis_ticks log_ticks(double lo, double hi, bool fixed = false) {
  if (!(lo > 0)) lo = hi > 0 ? hi / 10 : 1;
  if (!(hi > lo)) hi = lo * 10;
  const double a = std::log10(lo), b = std::log10(hi);
  const int d0 = static_cast<int>(std::floor(a + 1e-9)), d1 = static_cast<int>(std::ceil(b - 1e-9));
  const int decades = std::max(1, d1 - d0);
  std::vector<double> mantissas{1.0};
  if (decades <= 2) mantissas = {1.0, 2.0, 5.0};
  const int stride = decades > 20 ? 5 : decades > 8 ? 2 : 1;
  std::vector<double> candidates;
  for (int d = d0; d <= d1; ++d) {
    if ((d - d0) % stride != 0) continue;
    for (const double m : mantissas) candidates.push_back(m * std::pow(10.0, d));
  }
  axis_ticks t;
  if (fixed) {
    t.lo = a, t.hi = b;
    for (const double v : candidates)
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.values.push_back(v);
    return t;
  }
  // The tightest ticks around the data.
  double below = candidates.front(), above = candidates.back();
  for (const double v : candidates)
    if (v <= lo * (1 + 1e-9)) below = v;
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it)
    if (*it >= hi * (1 - 1e-9)) above = *it;
  for (const double v : candidates)
    if (v >= below && v <= above) t.values.push_back(v);
  t.lo = std::log10(below), t.hi = std::log10(above);
  return t;
}

/// A tick's label: plain decimals for round values of moderate size (0.05,
/// 20, 5000), else m·10^k with a superscript exponent (2·10⁶, 10⁻⁴).
inline std::string tick_label(double v) {
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e-3 && a < 1e5) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
  }
  int k = static_cast<int>(std::floor(std::log10(a) + 1e-9));
  double m = v / std::pow(10.0, k);
  if (std::abs(std::abs(m) - 10) < 1e-6) m /= 10, ++k;
  static const char* const sup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string e = k < 0 ? "⁻" : "";
  for (const char c : std::to_string(std::abs(k))) e += sup[c - '0'];
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", m);
  const std::string ms = b;
  if (ms == "1") return "10" + e;
  if (ms == "-1") return "-10" + e;
  return ms + "·10" + e;
}

/// A table written as CSV (RFC 4180 quoting), for an example's printed
/// tables: csv_table t({"k", "DPNE"}); t.row({"1", "523"}); t.write(path).
class csv_table {
 public:
  explicit csv_table(std::vector<std::string> header) : header_(std::move(header)) {}
  csv_table& row(std::vector<std::string> cells) {
    rows_.push_back(std::move(cells));
    return *this;
  }
  [[nodiscard]] std::string render() const {
    std::string out;
    line(out, header_);
    for (const auto& r : rows_) line(out, r);
    return out;
  }
  /// Writes the table; throws std::runtime_error if the file cannot be written.
  void write(const std::string& path) const { write_file(path, render()); }
  /// Adds the table to `files`, which commits it with the run's other files.
  void write(const std::string& path, output_set& files) const { files.write(path, render()); }
  /// A number as CSV text: shortest form that reads back the same double.
  static std::string number(double v) {
    if (std::isnan(v)) return "";
    char b[32];
    if (v == std::floor(v) && std::abs(v) < 1e15) {  // 10, not 1e+01
      std::snprintf(b, sizeof b, "%.0f", v);
      return b;
    }
    std::snprintf(b, sizeof b, "%.17g", v);
    for (int p = 1; p <= 17; ++p) {
      char c[32];
      std::snprintf(c, sizeof c, "%.*g", p, v);
      if (std::strtod(c, nullptr) == v) return c;
    }
    return b;
  }

 private:
  static void line(std::string& out, const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out += ',';
      const std::string& c = cells[i];
      if (c.find_first_of(",\"\n\r") == std::string::npos) {
        out += c;
      } else {
        out += '"';
        for (const char ch : c) {
          if (ch == '"') out += '"';
          out += ch;
        }
        out += '"';
      }
    }
    out += '\n';
  }
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// `path` with its extension replaced: csv_beside("a/plot.svg") is a/plot.csv,
/// csv_beside("a/plot.svg", "table3") is a/plot_table3.csv.
inline std::string csv_beside(const std::string& path, const std::string& suffix = "") {
  std::filesystem::path p(path);
  const std::string stem = p.stem().string() + (suffix.empty() ? "" : "_" + suffix);
  return (p.parent_path() / (stem + ".csv")).string();
}

/// For command_line::output_file: a plot option also writes its CSV.
inline std::vector<std::string> with_csv_beside(const std::string& path) {
  return {csv_beside(path)};
}

class svg_plot {
 public:
  struct series {
    std::string name;
    std::vector<double> x, y;
    bool line;  // poly-line, else dots
    std::string colour;
  };

  svg_plot(std::string title, std::string x_label, std::string y_label)
      : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}

  svg_plot& log_x(bool on = true) {
    log_x_ = on;
    return *this;
  }
  svg_plot& log_y(bool on = true) {
    log_y_ = on;
    return *this;
  }
  svg_plot& y_range(double lo, double hi) {
    y_lo_ = lo;
    y_hi_ = hi;
    return *this;
  }
  svg_plot& add(series s) {
    series_.push_back(std::move(s));
    return *this;
  }

  /// Writes the chart to `path` and its numbers to csv_beside(path) (columns
  /// series, x, y; one row per plotted point), both or neither
  /// (output_set); throws std::runtime_error if either cannot be written.
  void write(const std::string& path) const {
    output_set files;
    write(path, files);
    files.commit();
  }
  /// Adds the chart and its numbers to `files` (both appear at its commit,
  /// or neither).
  void write(const std::string& path, output_set& files) const {
    files.write(path, render());
    data().write(csv_beside(path), files);
  }

  /// The plotted numbers as a table: series, x, y.
  [[nodiscard]] csv_table data() const {
    csv_table t({"series", x_label_, y_label_});
    for (const auto& s : series_)
      for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
        t.row({s.name, csv_table::number(s.x[i]), csv_table::number(s.y[i])});
    return t;
  }

  [[nodiscard]] std::string render() const {
    // Layout: the plot area is fixed; the right margin holds the legend and
    // grows with its longest entry (about 7 px per character at 12 px
    // sans-serif, a safe upper bound for Latin text), so no name is clipped.
    constexpr double plot_w = 560, plot_h = 380, L = 80, T = 40, B = 60;
    std::size_t longest = 0;
    for (const auto& s : series_) longest = std::max(longest, glyphs(s.name));
    const double R = series_.empty() ? 20 : 60 + 7.0 * static_cast<double>(longest);
    const double title_w = 8.5 * static_cast<double>(glyphs(title_)) + 40;
    const double W = std::max(L + plot_w + R, title_w), H = T + plot_h + B;

    double dx0 = inf, dx1 = -inf, dy0 = inf, dy1 = -inf;  // data bounds
    for (const auto& s : series_) {
      for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
        if (!std::isfinite(tx(s.x[i])) || !std::isfinite(ty(s.y[i]))) continue;
        dx0 = std::min(dx0, s.x[i]), dx1 = std::max(dx1, s.x[i]);
        dy0 = std::min(dy0, s.y[i]), dy1 = std::max(dy1, s.y[i]);
      }
    }
    if (!std::isfinite(dx0)) dx0 = log_x_ ? 1 : 0, dx1 = log_x_ ? 10 : 1;
    if (!std::isfinite(dy0)) dy0 = log_y_ ? 1 : 0, dy1 = log_y_ ? 10 : 1;
    const bool fixed_y = std::isfinite(y_lo_) && std::isfinite(y_hi_) && y_hi_ > y_lo_;
    if (fixed_y) dy0 = y_lo_, dy1 = y_hi_;
    const axis_ticks xt = log_x_ ? log_ticks(dx0, dx1) : linear_ticks(dx0, dx1);
    const axis_ticks yt =
        log_y_ ? log_ticks(dy0, dy1, fixed_y) : linear_ticks(dy0, dy1, 5, fixed_y);

    auto px = [&](double x) { return L + (tx(x) - xt.lo) / (xt.hi - xt.lo) * plot_w; };
    auto py = [&](double y) {
      const double v = std::clamp(ty(y), yt.lo, yt.hi);
      return T + plot_h - (v - yt.lo) / (yt.hi - yt.lo) * plot_h;
    };
    auto visible = [&](double x, double y) { return std::isfinite(tx(x)) && std::isfinite(ty(y)); };
    std::ostringstream o;
    o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' "
         "fill='white'/>\n";
    o << "<text x='" << W / 2 << "' y='22' text-anchor='middle' font-size='15'>" << esc(title_)
      << "</text>\n";
    for (const double v : xt.values) {
      const double sx = px(v);
      o << "<line x1='" << sx << "' y1='" << T << "' x2='" << sx << "' y2='" << T + plot_h
        << "' stroke='#e5e5e5'/><line x1='" << sx << "' y1='" << T + plot_h << "' x2='" << sx
        << "' y2='" << T + plot_h + 5 << "' stroke='#444'/><text x='" << sx << "' y='"
        << T + plot_h + 18 << "' text-anchor='middle'>" << tick_label(v) << "</text>\n";
    }
    for (const double v : yt.values) {
      const double sy = py(v);
      o << "<line x1='" << L << "' y1='" << sy << "' x2='" << L + plot_w << "' y2='" << sy
        << "' stroke='#e5e5e5'/><line x1='" << L - 5 << "' y1='" << sy << "' x2='" << L << "' y2='"
        << sy << "' stroke='#444'/><text x='" << L - 8 << "' y='" << sy + 4
        << "' text-anchor='end'>" << tick_label(v) << "</text>\n";
    }
    o << "<rect x='" << L << "' y='" << T << "' width='" << plot_w << "' height='" << plot_h
      << "' fill='none' stroke='#444'/>\n";
    o << "<text x='" << L + plot_w / 2 << "' y='" << H - 15 << "' text-anchor='middle'>"
      << esc(x_label_) << "</text>\n";
    o << "<text transform='translate(18," << T + plot_h / 2
      << ") rotate(-90)' text-anchor='middle'>" << esc(y_label_) << "</text>\n";
    int legend = 0;
    for (const auto& s : series_) {
      const std::size_t n = std::min(s.x.size(), s.y.size());
      if (s.line) {
        o << "<polyline fill='none' stroke='" << s.colour << "' stroke-width='2' points='";
        for (std::size_t i = 0; i < n; ++i)
          if (visible(s.x[i], s.y[i])) o << px(s.x[i]) << ',' << py(s.y[i]) << ' ';
        o << "'/>\n";
        // A marker on every measured point, smaller on dense curves.
        const double r = n > 60 ? 1.8 : 3.5;
        for (std::size_t i = 0; i < n; ++i) {
          if (!visible(s.x[i], s.y[i])) continue;
          o << "<circle cx='" << px(s.x[i]) << "' cy='" << py(s.y[i]) << "' r='" << r << "' fill='"
            << s.colour << "' stroke='white' stroke-width='0.8'/>\n";
        }
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          if (!visible(s.x[i], s.y[i])) continue;
          o << "<circle cx='" << px(s.x[i]) << "' cy='" << py(s.y[i]) << "' r='1.6' fill='"
            << s.colour << "' fill-opacity='0.45'/>\n";
        }
      }
      const double lx = L + plot_w + 14, ly = T + 14 + 18 * legend++;
      if (s.line) {
        o << "<line x1='" << lx << "' y1='" << ly - 4 << "' x2='" << lx + 22 << "' y2='" << ly - 4
          << "' stroke='" << s.colour << "' stroke-width='2'/><circle cx='" << lx + 11 << "' cy='"
          << ly - 4 << "' r='3.5' fill='" << s.colour << "'/>";
      } else {
        o << "<circle cx='" << lx + 11 << "' cy='" << ly - 4 << "' r='3' fill='" << s.colour
          << "'/>";
      }
      o << "<text x='" << lx + 30 << "' y='" << ly << "'>" << esc(s.name) << "</text>\n";
    }
    o << "</svg>\n";
    return o.str();
  }

 private:
  static constexpr double inf = std::numeric_limits<double>::infinity();
  [[nodiscard]] double tx(double x) const { return log_x_ ? (x > 0 ? std::log10(x) : -inf) : x; }
  [[nodiscard]] double ty(double y) const { return log_y_ ? (y > 0 ? std::log10(y) : -inf) : y; }
  /// Characters as drawn: UTF-8 continuation bytes do not count.
  static std::size_t glyphs(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  }
  static std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '<')
        out += "&lt;";
      else if (c == '>')
        out += "&gt;";
      else if (c == '&')
        out += "&amp;";
      else
        out += c;
    }
    return out;
  }

  std::string title_, x_label_, y_label_;
  bool log_x_ = false, log_y_ = false;
  double y_lo_ = std::numeric_limits<double>::quiet_NaN(), y_hi_ = y_lo_;
  std::vector<series> series_;
};

}  // namespace privet::examples
