// Parses comma-separated lists of sizes or counts, with arithmetic and geometric ranges.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"
#include "units_tokens.hpp"

namespace gpuprobe {
namespace {

using units_detail::kU64Max;
using units_detail::Problem;
using units_detail::trim;
using units_detail::try_parse_int;
using units_detail::try_parse_size;

struct ListContext {
  std::string_view text;  // the whole list, for messages
  const ListOptions& options;

  std::string_view noun() const {
    if (!options.noun.empty()) return options.noun;
    return options.kind == ListKind::kSize ? "size" : "count";
  }

  // " in list '...'" when the bad token is only part of the list.
  std::string where(std::string_view token) const {
    if (trim(token) == trim(text)) return {};
    return fmt::format(" in list '{}'", trim(text));
  }

  [[noreturn]] void fail_value(std::string_view token, const Problem& problem) const {
    throw UsageError(fmt::format("invalid {} '{}'{}: {} ({})", noun(), trim(token), where(token),
                                 problem.what, problem.hint));
  }

  [[noreturn]] void fail_range(std::string_view item, std::string_view what,
                               std::string_view hint) const {
    throw UsageError(
        fmt::format("invalid range '{}'{}: {} ({})", trim(item), where(item), what, hint));
  }

  [[noreturn]] void fail_list(std::string_view what, std::string_view hint) const {
    throw UsageError(fmt::format("invalid {} list '{}': {} ({})", noun(), text, what, hint));
  }

  std::uint64_t value(std::string_view token) const {
    Problem problem;
    if (options.kind == ListKind::kSize) {
      if (auto v = try_parse_size(token, problem)) return *v;
    } else {
      if (auto v = try_parse_int(token, problem)) return static_cast<std::uint64_t>(*v);
    }
    fail_value(token, problem);
  }

  void validate_zero(std::string_view token, std::uint64_t v) const {
    if (v == 0 && !options.allow_zero) {
      fail_value(token, {"zero is not allowed here", "use a value of at least 1"});
    }
  }

  void validate_range_length(std::string_view item, std::uint64_t count) const {
    if (count > options.max_items) {
      fail_range(
          item,
          fmt::format("expands to {} items, more than the limit of {}", count, options.max_items),
          "use a larger step or a shorter range");
    }
  }
};

// Expands one item (a value or a range) and appends its values to `out`.
void expand_item(const ListContext& ctx, std::string_view item, std::vector<std::uint64_t>& out) {
  std::array<std::string_view, 3> parts{};
  std::size_t n_parts = 0;
  std::string_view rest = item;
  while (true) {
    const std::size_t colon = rest.find(':');
    if (n_parts == parts.size()) {
      ctx.fail_range(item, "too many ':'", "write start:end, start:end:step or start:end:xFACTOR");
    }
    parts[n_parts++] = rest.substr(0, colon);
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }

  if (n_parts == 1) {
    const std::uint64_t v = ctx.value(parts[0]);
    ctx.validate_zero(parts[0], v);
    out.push_back(v);
    return;
  }

  for (std::size_t i = 0; i < n_parts; ++i) {
    if (trim(parts[i]).empty()) {
      static constexpr std::array<std::string_view, 3> kNames{"start", "end", "step"};
      ctx.fail_range(item, fmt::format("missing {}", kNames[i]),
                     "write start:end, start:end:step or start:end:xFACTOR");
    }
  }

  const std::uint64_t start = ctx.value(parts[0]);
  const std::uint64_t end = ctx.value(parts[1]);
  if (start > end) {
    ctx.fail_range(item, "start is greater than end", "write the smaller value first");
  }
  ctx.validate_zero(parts[0], start);

  const std::string_view step_text = n_parts == 3 ? trim(parts[2]) : std::string_view("1");
  if (!step_text.empty() && (step_text.front() == 'x' || step_text.front() == 'X')) {
    // Geometric: start, start*F, start*F^2, ... while <= end.
    const std::string_view factor_text = trim(step_text.substr(1));
    if (factor_text.empty()) {
      ctx.fail_range(item, "missing factor after 'x'",
                     "write an integer factor of at least 2, e.g. x2");
    }
    Problem problem;
    const auto factor = try_parse_int(factor_text, problem);
    if (!factor) {
      ctx.fail_range(item, fmt::format("invalid factor '{}': {}", factor_text, problem.what),
                     "write an integer factor of at least 2, e.g. x2");
    }
    if (*factor < 2) {
      ctx.fail_range(item, fmt::format("factor {} is less than 2", *factor),
                     "write an integer factor of at least 2, e.g. x2");
    }
    if (start == 0) {
      ctx.fail_range(item, "a geometric range cannot start at 0", "start at 1 or more");
    }
    const auto f = static_cast<std::uint64_t>(*factor);
    std::uint64_t count = 1;
    for (std::uint64_t v = start; v <= end / f; v *= f)
      ++count;
    ctx.validate_range_length(item, count);
    for (std::uint64_t v = start;; v *= f) {
      out.push_back(v);
      if (v > end / f) break;
    }
    return;
  }

  // Arithmetic: start, start+step, ... while <= end.
  const std::uint64_t step = ctx.value(step_text);
  if (step == 0) {
    ctx.fail_range(item, "step is zero", "use a step of at least 1");
  }
  const std::uint64_t last_index = (end - start) / step;  // count - 1, cannot overflow
  if (last_index >= ctx.options.max_items) {
    ctx.fail_range(
        item,
        last_index == kU64Max
            ? fmt::format("expands to more than the limit of {} items", ctx.options.max_items)
            : fmt::format("expands to {} items, more than the limit of {}", last_index + 1,
                          ctx.options.max_items),
        "use a larger step or a shorter range");
  }
  for (std::uint64_t i = 0; i <= last_index; ++i)
    out.push_back(start + i * step);
}

}  // namespace

std::vector<std::uint64_t> parse_list(std::string_view text, const ListOptions& options) {
  const ListContext ctx{text, options};
  const std::string_view example =
      options.kind == ListKind::kSize ? "4KiB,1MiB or 4KiB:1GiB:x4" : "1,2,4 or 0:32:4";
  if (trim(text).empty())
    ctx.fail_list("empty list", fmt::format("give values such as {}", example));

  std::vector<std::uint64_t> result;
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint64_t> expanded;
  std::size_t item_number = 0;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    ++item_number;
    if (trim(item).empty()) {
      ctx.fail_list(fmt::format("item {} is empty", item_number),
                    "remove the extra comma or put a value there");
    }
    expanded.clear();
    expand_item(ctx, item, expanded);
    for (std::uint64_t v : expanded) {
      if (!seen.insert(v).second) continue;
      result.push_back(v);
      if (result.size() > options.max_items) {
        ctx.fail_list(fmt::format("more than the limit of {} items", options.max_items),
                      "use fewer values or larger steps");
      }
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return result;
}

}  // namespace gpuprobe
