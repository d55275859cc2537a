// Parses JSON text from a file: nesting and size bounded, control characters in its strings
// escaped, and every error told in gpuprobe's words with the line and column.
#include <algorithm>
#include <cstddef>
#include <string>

#include <fmt/format.h>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

using ojson = nlohmann::ordered_json;
using DomParser = nlohmann::detail::json_sax_dom_parser<ojson>;

// nlohmann's DOM builder, with limits and escaping added (sax_parse calls these by name).
class BoundedParser : public DomParser {
 public:
  explicit BoundedParser(ojson& document) : DomParser(document, /*allow_exceptions=*/false) {}

  bool null() { return count() && DomParser::null(); }
  bool boolean(bool v) { return count() && DomParser::boolean(v); }
  bool number_integer(ojson::number_integer_t v) { return count() && DomParser::number_integer(v); }
  bool number_unsigned(ojson::number_unsigned_t v) {
    return count() && DomParser::number_unsigned(v);
  }
  bool number_float(ojson::number_float_t v, const std::string& s) {
    return count() && DomParser::number_float(v, s);
  }
  bool string(std::string& v) {
    v = printable(v);
    return count() && DomParser::string(v);
  }
  bool key(std::string& v) {
    v = printable(v);
    return DomParser::key(v);
  }
  bool start_object(std::size_t n) { return enter() && DomParser::start_object(n); }
  bool start_array(std::size_t n) { return enter() && DomParser::start_array(n); }
  bool end_object() {
    --depth_;
    return DomParser::end_object();
  }
  bool end_array() {
    --depth_;
    return DomParser::end_array();
  }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    failure = {position, token, e.id, e.what()};
    return false;
  }

  // Where and why the text is not JSON (position: nlohmann's, one past the failing character).
  struct Failure {
    std::size_t position = 0;
    std::string token;
    int id = 0;
    std::string message;
  };
  Failure failure;
  std::string problem;  // set when a limit stopped the parse

 private:
  bool count() {
    if (++values_ <= kMaxJsonValues) return true;
    problem = fmt::format("it holds more than {} values", kMaxJsonValues);
    return false;
  }
  bool enter() {
    if (++depth_ <= kMaxJsonDepth) return count();
    problem = fmt::format("it is nested deeper than {} levels", kMaxJsonDepth);
    return false;
  }
  std::size_t depth_ = 0;
  std::size_t values_ = 0;
};

// What went wrong at byte `at` of `text`, in gpuprobe's words (the library's text is never shown).
std::string reason(const BoundedParser::Failure& f, std::string_view text, std::size_t at) {
  if (f.id == 406)
    return fmt::format("the number '{}' is out of range", printable(f.token.substr(0, 24)));
  if (at >= text.size()) return "the text ends early (a truncated file?)";
  if (text[at] == '\0') return "a NUL byte (a binary file?)";
  if (f.message.find("expected end of input") != std::string::npos)
    return "more text after the end of the JSON document";
  if (f.message.find("UTF-8") != std::string::npos) return "bytes that are not UTF-8 text";
  if (f.message.find("control character") != std::string::npos)
    return "a control character that is not escaped, inside a string";
  if (f.message.find("surrogate") != std::string::npos ||
      f.message.find("\\u") != std::string::npos)
    return "a bad \\u escape inside a string";
  // The text from there up to the next space or line end, as the reader sees it.
  std::size_t end = at;
  while (end < text.size() && end - at < 16 && text[end] != '\n' && text[end] != ' ')
    ++end;
  const std::string_view word = text.substr(at, end - at);
  if (word.starts_with("NaN") || word.starts_with("Infinity") || word.starts_with("-Infinity"))
    return fmt::format("unexpected '{}' (NaN and Infinity are not JSON numbers)", printable(word));
  return fmt::format("unexpected '{}'", printable(word));
}

}  // namespace

ojson parse_json_text(std::string_view text, const std::string& origin) {
  ojson root;
  BoundedParser parser(root);
  const bool ok = ojson::sax_parse(text.begin(), text.end(), &parser, ojson::input_format_t::json,
                                   /*strict=*/true);
  if (ok) return root;
  if (!parser.problem.empty())
    throw UsageError(
        fmt::format("'{}' is not a gpuprobe result file: {}", printable(origin), parser.problem));
  const auto& failure = parser.failure;
  // nlohmann's position is one past the character that failed; a number out of range is
  // named where it starts.
  const std::size_t past = failure.id == 406 ? failure.token.size() : 1;
  const std::size_t at =
      std::min(failure.position >= past ? failure.position - past : 0, text.size());
  const std::string_view before = text.substr(0, at);
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t last_newline = before.rfind('\n');
  const std::size_t column =
      at - (last_newline == std::string_view::npos ? 0 : last_newline + 1) + 1;
  throw UsageError(fmt::format("'{}' is not valid JSON: line {}, column {}: {}", printable(origin),
                               line, column, reason(failure, text, at)));
}

}  // namespace gpuprobe
