// Parses JSON text from a file: nesting and size bounded, control characters in its strings
// escaped, and every error told in gpuprobe's words with the line and column.
#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/input_file.hpp"
#include "gpuprobe/core/json_io.hpp"

namespace gpuprobe {
namespace {

using ojson = nlohmann::ordered_json;

// Builds the document from the library's SAX events (its public json_sax interface), as its own
// parser would, with limits and escaping added: at most kMaxJsonDepth levels of arrays and
// objects and limits.values values (keys are not values), strings and keys made printable. A
// key given twice keeps its first place and takes the later value, as nlohmann's parse does.
class BoundedBuilder final : public nlohmann::json_sax<ojson> {
 public:
  BoundedBuilder(ojson& root, JsonLimits limits) : root_(root), limits_(limits) {}

  bool null() override { return add(nullptr); }
  bool boolean(bool v) override { return add(v); }
  bool number_integer(number_integer_t v) override { return add(v); }
  bool number_unsigned(number_unsigned_t v) override { return add(v); }
  bool number_float(number_float_t v, const string_t& /*text*/) override { return add(v); }
  bool string(string_t& v) override { return add(printable(v)); }
  bool binary(binary_t& v) override { return add(std::move(v)); }  // never from JSON text
  bool start_object(std::size_t /*elements*/) override { return open(ojson::value_t::object); }
  bool start_array(std::size_t /*elements*/) override { return open(ojson::value_t::array); }
  bool key(string_t& v) override {
    member_ = &(*open_.back())[printable(v)];
    return true;
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string& token,
                   const ojson::exception& e) override {
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
  // A value: counted, then made the root, an array's next element or the member just keyed.
  template <typename Value>
  bool add(Value&& v) {
    if (!count()) return false;
    place(ojson(std::forward<Value>(v)));
    return true;
  }
  ojson* place(ojson value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    ojson& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    *member_ = std::move(value);
    return member_;
  }
  bool open(ojson::value_t kind) {
    if (open_.size() >= limits_.depth) {
      problem = fmt::format("it is nested deeper than {} levels", limits_.depth);
      return false;
    }
    if (!count()) return false;
    open_.push_back(place(ojson(kind)));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }
  bool count() {
    if (++values_ <= limits_.values) return true;
    problem = fmt::format("it holds more than {} values", limits_.values);
    return false;
  }

  ojson& root_;
  JsonLimits limits_;
  std::vector<ojson*> open_;  // the arrays and objects being filled, outermost first
  ojson* member_ = nullptr;   // the object member the last key named
  std::size_t values_ = 0;
};

// What went wrong at byte `at` of `text`, in gpuprobe's words (the library's text is never shown).
std::string reason(const BoundedBuilder::Failure& f, std::string_view text, std::size_t at) {
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

ojson parse_json_text(std::string_view text, const std::string& origin, JsonLimits limits) {
  ojson root;
  BoundedBuilder builder(root, limits);
  const bool ok = ojson::sax_parse(text.begin(), text.end(), &builder, ojson::input_format_t::json,
                                   /*strict=*/true);
  if (ok) return root;
  if (!builder.problem.empty())
    throw UsageError(
        fmt::format("'{}' is not a gpuprobe result file: {}", printable(origin), builder.problem));
  const auto& failure = builder.failure;
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
