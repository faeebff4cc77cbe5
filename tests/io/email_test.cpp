// The email reader: the header structure of well-formed messages (envelope,
// folded fields, CRLF, 8-bit values, no body), the 35 KB prefix rule with the
// cut counted exactly, a serialization_error naming the offset for every
// malformed header, errors naming the path for files, and the sorted corpus
// listing.
#include <privet/io/email.hpp>

#include "support/errors.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <istream>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

namespace {

using privet::io::email_message;
using privet::io::parse_email_header;
using privet::io::read_email;

email_message read_string(const std::string& bytes,
                          std::size_t max_bytes = privet::io::email_prefix_bytes) {
  std::istringstream in(bytes);
  return read_email(in, max_bytes);
}

// A fresh, empty directory under the system's temporary directory, removed
// when the test ends.
struct scratch_dir {
  std::filesystem::path path;
  explicit scratch_dir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path write(const std::string& name, const std::string& bytes) const {
    const auto p = path / name;
    std::ofstream out(p, std::ios::binary);
    out << bytes;
    return p;
  }
};

const std::string simple =
    "From alice@example.org  Thu Aug 22 13:17:22 2002\n"
    "Return-Path: <alice@example.org>\n"
    "Received: from a.example.org\n"
    "\tby b.example.org; Thu, 22 Aug 2002\n"
    "Subject: hello\n"
    "\n"
    "Body line one.\n"
    "\n"
    "Body: not a header\n";

}  // namespace

TEST_CASE("a message with an envelope, folded fields and a body") {
  const email_message m = read_string(simple);
  CHECK(m.raw == simple);
  CHECK(m.original_bytes == simple.size());
  CHECK(m.truncated_bytes == 0);
  CHECK_FALSE(m.truncated());
  CHECK(m.body() == "Body line one.\n\nBody: not a header\n");
  CHECK(m.header_text() == simple.substr(0, simple.find("Body line")));
  const auto h = m.header();
  CHECK(h.envelope == "From alice@example.org  Thu Aug 22 13:17:22 2002");
  REQUIRE(h.fields.size() == 3);
  CHECK(h.fields[0].name == "Return-Path");
  CHECK(h.fields[0].value == "<alice@example.org>");
  CHECK(h.fields[0].offset == simple.find("Return-Path"));
  CHECK(h.fields[1].name == "Received");
  CHECK(h.fields[1].value == "from a.example.org\n\tby b.example.org; Thu, 22 Aug 2002");
  CHECK(h.fields[2].value == "hello");
  CHECK(h.body_offset == simple.find("Body line"));
  CHECK(h.find("subject") == std::optional<std::string_view>("hello"));
  CHECK(h.find("SUBJECT") == std::optional<std::string_view>("hello"));
  CHECK_FALSE(h.find("Subjec").has_value());
  CHECK_FALSE(h.find("Body").has_value());
}

TEST_CASE("CRLF line ends, obsolete space before the colon, 8-bit values, no envelope") {
  const std::string text =
      "Subject : caf\xc3\xa9 \xff\r\n"
      "X-Empty:\r\n"
      "X-Late:\r\n"
      " \t late value\r\n"
      "To: bob@example.org\r\n"
      "\r\n"
      "body\r\n";
  const email_message m = read_string(text);
  CHECK(m.raw == text);  // bytes unchanged, CRs kept
  const auto h = m.header();
  CHECK(h.envelope.empty());
  REQUIRE(h.fields.size() == 4);
  CHECK(h.fields[0].name == "Subject");
  CHECK(h.fields[0].value == "caf\xc3\xa9 \xff");
  CHECK(h.fields[1].value.empty());
  CHECK(h.fields[2].name == "X-Late");
  CHECK(h.fields[2].value == "late value");
  CHECK(h.fields[3].value == "bob@example.org");
  CHECK(m.body() == "body\r\n");
}

TEST_CASE("a message without body: header-only, with or without a final line end") {
  for (const std::string text : {"Subject: x\nTo: y\n", "Subject: x\nTo: y", "Subject: x\n\n"}) {
    CAPTURE(text);
    const email_message m = read_string(text);
    CHECK(m.body().empty());
    CHECK(m.body_offset == text.size());
    CHECK(m.header().fields.size() == (text.find("To") != std::string::npos ? 2u : 1u));
  }
}

TEST_CASE("the 35 KB prefix: kept exactly, the rest counted") {
  CHECK(privet::io::email_prefix_bytes == 35u * 1024u);
  const std::string header = "Subject: long\n\n";
  SUBCASE("longer than the prefix") {
    std::string text = header + std::string(50000, 'a');
    text[40000] = 'Z';  // beyond the prefix: must not be kept
    const email_message m = read_string(text);
    CHECK(m.raw.size() == 35u * 1024u);
    CHECK(m.raw == text.substr(0, 35 * 1024));
    CHECK(m.original_bytes == text.size());
    CHECK(m.truncated_bytes == text.size() - 35 * 1024);
    CHECK(m.truncated());
    CHECK(m.header().fields.size() == 1);
  }
  SUBCASE("exactly the prefix") {
    const std::string text = header + std::string(35 * 1024 - header.size(), 'b');
    const email_message m = read_string(text);
    CHECK(m.raw == text);
    CHECK(m.truncated_bytes == 0);
  }
  SUBCASE("a prefix chosen by the caller, larger than one read block") {
    const std::string text = header + std::string(200000, 'c');
    const email_message m = read_string(text, 150000);
    CHECK(m.raw == text.substr(0, 150000));
    CHECK(m.truncated_bytes == text.size() - 150000);
    const email_message all = read_string(text, privet::io::email_max_prefix_bytes);
    CHECK(all.raw == text);
    CHECK(all.truncated_bytes == 0);
  }
  SUBCASE("a header cut by the prefix is an error, a complete header-only message is not") {
    const std::string text = "Subject: x\nX-Long: " + std::string(100, 'd') + "\n";
    CHECK_THROWS_WITH_AS((void)read_string(text, 30),
                         "privet: email: the header does not end (no empty line) within the 30 "
                         "bytes kept; allowed: a header shorter than the prefix read (raise "
                         "max_bytes to read more)",
                         privet::serialization_error);
    CHECK_THROWS_AS((void)read_string(text, text.size() - 1), privet::serialization_error);
    CHECK(read_string(text, text.size()).body().empty());
  }
}

TEST_CASE("malformed headers throw serialization_error naming the offset") {
  struct bad_case {
    std::string text, message;
  };
  const std::vector<bad_case> cases = {
      {"\tfolded first\nSubject: x\n\n",
       "a folded continuation line at byte 0 before any header field; allowed: a field `name: "
       "value` first"},
      {"Subject: x\nnot a field\n\n",
       "the header line at byte 11 is neither a field nor a folded continuation; allowed: `name: "
       "value` with a name of printable US-ASCII other than ':', or a line starting with a space "
       "or tab"},
      {": no name\n\n", "the header line at byte 0 is neither a field"},
      {"Sub ject: x\n\n", "the header line at byte 0 is neither a field"},
      {"Subj\x80"
       "ct: x\n\n",
       "the header line at byte 0 is neither a field"},
      {"Subject: a\rb\n\n",
       "a bare CR in the header at byte 10; allowed: CR only as part of a CRLF line end"},
      {"Subject: x\n\rX: y\n\n", "a bare CR in the header at byte 11"},
      {std::string("Subject: a\0b\n\n", 14),
       "a NUL byte in the header at byte 10; allowed: no NUL before the body"},
      {"From someone", "the mbox envelope line at byte 0 has no line end"},
      {"From someone\n\nbody\n",
       "the header has no field (the first line after the envelope is "
       "at byte 13); allowed: >= 1 field `name: value`"},
      {"\nbody\n", "the header has no field"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK_THROWS_WITH_AS((void)read_string(c.text),
                         doctest::Contains(("privet: email: " + c.message).c_str()),
                         privet::serialization_error);
    CHECK_THROWS_AS((void)parse_email_header(c.text), privet::serialization_error);
  }
  // A NUL or CR in the body is the body's business.
  CHECK(read_string(std::string("Subject: x\n\nbo\0dy\r", 18)).body().size() == 6);
}

TEST_CASE("an empty stream and a bad max_bytes are refused") {
  CHECK_THROWS_WITH_AS((void)read_string(""),
                       "privet: email: the message is empty (0 bytes); allowed: a header of >= 1 "
                       "field",
                       privet::serialization_error);
  CHECK_THROWS_WITH_AS((void)parse_email_header(""), doctest::Contains("the message is empty"),
                       privet::serialization_error);
  CHECK(privet::test::rejected_parameter([] { (void)read_string(simple, 0); }) == "max_bytes");
  CHECK(privet::test::rejected_parameter([] {
          (void)read_string(simple, privet::io::email_max_prefix_bytes + 1);
        }) == "max_bytes");
  CHECK_THROWS_WITH_AS((void)read_string(simple, 0),
                       "privet: max_bytes = 0 is invalid; allowed: [1, 2^30]",
                       privet::invalid_parameter);
}

TEST_CASE("files: read, and errors name the path") {
  const scratch_dir dir("privet_email_test_files");
  const auto good = dir.write("00001.abc.txt", simple);
  const email_message m = privet::io::read_email_file(good);
  CHECK(m.raw == simple);
  const std::size_t kept = simple.find("Body") + 3;
  CHECK(privet::io::read_email_file(good, kept).truncated_bytes == simple.size() - kept);
  CHECK_THROWS_WITH_AS((void)privet::io::read_email_file(good, 20),
                       doctest::Contains("the header does not end (no empty line) within the 20 "
                                         "bytes kept"),
                       privet::serialization_error);

  const auto missing = dir.path / "missing.txt";
  CHECK_THROWS_WITH_AS((void)privet::io::read_email_file(missing),
                       ("privet: email: cannot open " + missing.string()).c_str(), privet::error);
  CHECK_THROWS_WITH_AS(
      (void)privet::io::read_email_file(dir.path),
      ("privet: email: cannot read " + dir.path.string() + ": it is a directory").c_str(),
      privet::error);
  const auto empty = dir.write("empty.txt", "");
  CHECK_THROWS_WITH_AS((void)privet::io::read_email_file(empty),
                       ("privet: email: the message is empty (0 bytes); allowed: a header of >= 1 "
                        "field (file " +
                        empty.string() + ")")
                           .c_str(),
                       privet::serialization_error);
  const auto bad = dir.write("bad.txt", "no header here\n\n");
  CHECK_THROWS_WITH_AS((void)privet::io::read_email_file(bad),
                       doctest::Contains("is neither a field nor a folded continuation"),
                       privet::serialization_error);
  CHECK_THROWS_WITH_AS((void)privet::io::read_email_file(bad),
                       doctest::Contains(("(file " + bad.string() + ")").c_str()),
                       privet::serialization_error);
  CHECK(privet::test::rejected_parameter([&] { (void)privet::io::read_email_file(good, 0); }) ==
        "max_bytes");
}

TEST_CASE(
    "list_email_files: sorted by name, filtered by extension, hidden files and folders "
    "skipped") {
  const scratch_dir dir("privet_email_test_list");
  for (const char* name : {"00010.b.txt", "00002.c.txt", "00002.c.json", "00001.z.txt",
                           ".hidden.txt", "cmds", "B.txt", "a.txt"}) {
    dir.write(name, simple);
  }
  std::filesystem::create_directories(dir.path / "sub.txt");
  std::vector<std::string> names;
  for (const auto& p : privet::io::list_email_files(dir.path)) {
    CHECK(p.parent_path() == dir.path);
    names.push_back(p.filename().string());
  }
  CHECK(names ==
        std::vector<std::string>{"00001.z.txt", "00002.c.txt", "00010.b.txt", "B.txt", "a.txt"});
  names.clear();
  for (const auto& p : privet::io::list_email_files(dir.path, "")) {
    names.push_back(p.filename().string());
  }
  CHECK(names == std::vector<std::string>{"00001.z.txt", "00002.c.json", "00002.c.txt",
                                          "00010.b.txt", "B.txt", "a.txt", "cmds"});
  CHECK(privet::io::list_email_files(dir.path, ".eml").empty());

  const auto missing = dir.path / "missing";
  CHECK_THROWS_WITH_AS(
      (void)privet::io::list_email_files(missing),
      doctest::Contains(("privet: email: " + missing.string() + " is not a directory").c_str()),
      privet::error);
  CHECK_THROWS_WITH_AS((void)privet::io::list_email_files(dir.path / "cmds"),
                       doctest::Contains("is not a directory"), privet::error);
}

namespace {
// A device that fails on the first read: the exception becomes badbit.
struct failing_buffer : std::streambuf {
  int_type underflow() override { throw std::runtime_error("device gone"); }
};

// A device that delivers `good` bytes of a header line, 1000 at a time, then
// fails.
struct failing_after : std::streambuf {
  explicit failing_after(std::size_t good) : left(good) {}
  int_type underflow() override {
    if (left == 0) throw std::runtime_error("device gone");
    const std::size_t n = std::min<std::size_t>(left, sizeof chunk);
    std::fill_n(chunk, n, 'x');
    left -= n;
    setg(chunk, chunk, chunk + n);
    return traits_type::to_int_type(chunk[0]);
  }
  std::size_t left;
  char chunk[1000];
};
}  // namespace

TEST_CASE("a stream that fails, rather than ends, is reported as such") {
  failing_buffer buf;
  std::istream in(&buf);
  CHECK_THROWS_WITH_AS((void)read_email(in),
                       "privet: email: the stream failed after at least 0 bytes", privet::error);
  // 70000 bytes, then a failure: the first 64 KiB block is counted, the
  // bytes of the failing read are not, and the message says it is a bound.
  failing_after late(70'000);
  std::istream late_in(&late);
  CHECK_THROWS_WITH_AS((void)read_email(late_in, 1 << 20),
                       "privet: email: the stream failed after at least 65536 bytes",
                       privet::error);
  std::istringstream ok("Subject: x\n\nbody");
  CHECK_THROWS_WITH_AS((void)read_email(ok, privet::io::email_max_prefix_bytes + 1),
                       "privet: max_bytes = 1073741825 is invalid; allowed: [1, 2^30]",
                       privet::invalid_parameter);
}
