// The data side of the federated speech example (Sotto Voce: Shoemate et al.
// 2022, "Sotto Voce: Federated Speech Recognition with Differential Privacy
// Guarantees", arXiv:2207.07816): a keyword-spotting corpus synthesised
// with espeak-ng and turned into 13 MFCCs per 10 ms frame
// (examples/support/speech_corpus.hpp, privet/ml/mfcc.hpp).
//
//   speech_features [--quick] [--cache DIR] [--embedded] [--sample FILE]
//                   [--jobs N] [--svg FILE] [--write-sample FILE]
//                   (--help lists every option with its default)
//
// Prints where the corpus came from (synthesised now, the build tree's
// cache, or the embedded sample when espeak-ng is missing or --embedded is
// given, or --sample FILE), the keywords, each organisation's speakers, utterances and frames
// per utterance, and the time taken; writes an SVG of MFCC c_1 over time for
// one utterance of each keyword. --quick synthesises a smaller corpus (2
// speakers per organisation, 4 repetitions). --write-sample regenerates the
// embedded sample, examples/data/speech_sample.bin, from the full corpus:
//
//   speech_features --write-sample examples/data/speech_sample.bin
#include "support/command_line.hpp"
#include "support/speech_corpus.hpp"
#include "support/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace sp = privet::examples::speech;

namespace {

struct frame_stats {
  std::size_t utterances = 0, frames = 0, min = SIZE_MAX, max = 0;
  void add(const sp::utterance& u) {
    const std::size_t f = u.mfcc.shape()[0];
    ++utterances, frames += f, min = std::min(min, f), max = std::max(max, f);
  }
};

void print(const sp::corpus& c) {
  std::printf("data: %s\n", c.source.c_str());
  std::printf("features: %zu MFCCs per %.0f ms frame\n", c.coefficients, c.frame_shift_ms);
  std::printf("keywords (%zu):", c.words.size());
  for (const auto& w : c.words) std::printf(" %s", w.c_str());
  std::printf("\n\n%-11s %-8s %8s %6s %6s %8s  %s\n", "organisation", "kind", "speakers", "train",
              "test", "frames", "frames per utterance (min / mean / max)");
  frame_stats all;
  for (std::size_t oi = 0; oi < c.organisations.size(); ++oi) {
    const auto& o = c.organisations[oi];
    frame_stats st;
    for (const auto& u : o.train) st.add(u), all.add(u);
    for (const auto& u : o.test) st.add(u), all.add(u);
    const auto speakers = std::count_if(c.speakers.begin(), c.speakers.end(),
                                        [&](const sp::speaker& s) { return s.organisation == oi; });
    std::printf(
        "%-12s %-8s %8td %6zu %6zu %8zu  %zu / %.1f / %zu\n", o.name.c_str(), sp::kind_name(o.kind),
        speakers, o.train.size(), o.test.size(), st.frames, st.utterances ? st.min : 0,
        st.utterances ? static_cast<double>(st.frames) / static_cast<double>(st.utterances) : 0.0,
        st.max);
  }
  std::printf(
      "%-12s %-8s %8zu %6s %6s %8zu  %zu / %.1f / %zu utterances: %zu\n", "all", "",
      c.speakers.size(), "", "", all.frames, all.utterances ? all.min : 0,
      all.utterances ? static_cast<double>(all.frames) / static_cast<double>(all.utterances) : 0.0,
      all.max, all.utterances);
  std::printf("\nspeakers:\n");
  for (std::size_t oi = 0; oi < c.organisations.size(); ++oi) {
    std::printf("  %s:", c.organisations[oi].name.c_str());
    bool first = true;
    for (const auto& s : c.speakers) {
      if (s.organisation != oi) continue;
      std::printf("%s %s", first ? "" : ";", s.name().c_str());
      first = false;
    }
    std::printf("\n");
  }
  std::printf("\nprovenance: %s\n", c.provenance.c_str());
  std::printf("\ntime: %.2f s", c.seconds);
  if (c.synthesised > 0) {
    std::printf(" (%zu utterances synthesised, %.1f utterances/s including MFCCs)", c.synthesised,
                static_cast<double>(c.synthesised) / c.seconds);
  }
  std::printf("\n");
}

void plot(const sp::corpus& c, const std::string& path) {
  static const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  privet::examples::svg_plot p(
      "MFCC c1 of one utterance per keyword (" + c.organisations.front().name + " speakers)",
      "time (ms)", "c1");
  for (std::size_t w = 0; w < c.words.size(); ++w) {
    const sp::utterance* pick = nullptr;
    for (const auto& o : c.organisations) {
      for (const auto& u : o.train) {
        if (u.label == w) {
          pick = &u;
          break;
        }
      }
      if (pick) break;
    }
    if (!pick) continue;
    privet::examples::svg_plot::series s{c.words[w], {}, {}, true, colours[w % 10]};
    for (std::size_t t = 0; t < pick->mfcc.shape()[0]; ++t) {
      s.x.push_back(static_cast<double>(t) * c.frame_shift_ms);
      s.y.push_back(pick->mfcc(t, 1));
    }
    p.add(std::move(s));
  }
  p.write(path);
  std::printf("plot: %s (numbers: %s)\n", path.c_str(), privet::examples::csv_beside(path).c_str());
}

}  // namespace

int main(int argc, char** argv) try {
  sp::options opts;
  std::filesystem::path cache = "speech_cache";
#ifdef PRIVET_SPEECH_CACHE_DIR
  cache = PRIVET_SPEECH_CACHE_DIR;
#endif
#ifdef PRIVET_EXAMPLES_DATA_DIR
  opts.sample = std::filesystem::path(PRIVET_EXAMPLES_DATA_DIR) / "speech_sample.bin";
#endif
  std::string svg, write_sample;
  privet::examples::command_line cli(
      "speech_features",
      "The federated speech example's data: ten keywords synthesised by espeak-ng into 13 "
      "MFCCs per 10 ms frame, or the embedded sample.");
  cli.flag(
      "--quick",
      [&opts] {
        opts.speakers_per_organisation = 2;
        opts.repetitions = 4;
        opts.test_repetitions = 1;
      },
      "a smaller corpus: 2 speakers per organisation, 4 repetitions");
  cli.output_directory("--cache", cache, "where synthesised audio and features are kept");
  cli.flag("--embedded", opts.use_sample, "read the embedded sample even if espeak-ng is there");
  cli.input_file("--sample", opts.sample, "the embedded sample; given, it is read (as --embedded)");
  cli.count("--jobs", opts.jobs, "espeak-ng processes at a time", 1, 64);
  cli.output_file("--svg", svg, "plot of MFCC c1 over time (and its .csv beside it)", "",
                  privet::examples::with_csv_beside);
  cli.output_file("--write-sample", write_sample,
                  "regenerate the embedded sample from the synthesised corpus into FILE");
  if (auto exit_code = cli.parse(argc, argv)) return *exit_code;
  // A sample file named on the command line is what the user wants read.
  if (cli.given("--sample")) opts.use_sample = true;
  const sp::corpus c = sp::load_or_synthesise(cache, opts);
  print(c);
  if (!svg.empty()) plot(c, svg);
  if (!write_sample.empty()) {
    if (c.embedded)
      throw std::runtime_error(
          "--write-sample needs espeak-ng: the sample is made from a synthesised corpus");
    const sp::corpus sample = sp::make_sample(c, 3, 2);
    sp::write_features(write_sample, sample, true);
    // Read it back: same utterances, each value within its 8-bit step.
    const sp::corpus back = sp::read_features(write_sample);
    // The quantiser's step per coefficient: its range over the sample / 254.
    std::vector<float> lo(c.coefficients, INFINITY), hi(c.coefficients, -INFINITY);
    for (const auto& o : sample.organisations)
      for (const auto* set : {&o.train, &o.test})
        for (const auto& u : *set)
          for (std::size_t t = 0; t < u.mfcc.shape()[0]; ++t)
            for (std::size_t j = 0; j < c.coefficients; ++j)
              lo[j] = std::min(lo[j], u.mfcc(t, j)), hi[j] = std::max(hi[j], u.mfcc(t, j));
    double worst = 0;  // largest error in steps
    for (std::size_t oi = 0; oi < sample.organisations.size(); ++oi) {
      for (int split = 0; split < 2; ++split) {
        const auto& a = split ? sample.organisations[oi].test : sample.organisations[oi].train;
        const auto& b = split ? back.organisations[oi].test : back.organisations[oi].train;
        if (a.size() != b.size()) throw std::runtime_error("sample read back differs in size");
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (a[i].label != b[i].label || a[i].speaker != b[i].speaker ||
              a[i].mfcc.shape() != b[i].mfcc.shape())
            throw std::runtime_error("sample read back differs");
          for (std::size_t t = 0; t < a[i].mfcc.shape()[0]; ++t) {
            for (std::size_t j = 0; j < c.coefficients; ++j) {
              const double step = hi[j] > lo[j] ? (hi[j] - lo[j]) / 254.0 : 1.0;
              worst = std::max(worst, std::abs(a[i].mfcc(t, j) - b[i].mfcc(t, j)) / step);
            }
          }
        }
      }
    }
    if (worst > 0.5001) throw std::runtime_error("sample quantisation error above half a step");
    std::printf("sample: %s (%ju bytes), read back: quantisation error <= %.3f step\n",
                write_sample.c_str(),
                static_cast<std::uintmax_t>(std::filesystem::file_size(write_sample)), worst);
  }
} catch (const std::exception& e) {
  std::fprintf(stderr, "speech_features: %s\n", e.what());
  return 1;
}
