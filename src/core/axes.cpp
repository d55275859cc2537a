// Sweep axes: parsing and checking each axis's text, the params echo and the help line.
#include "gpuprobe/core/axes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "gpuprobe/core/errors.hpp"
#include "gpuprobe/core/units.hpp"

namespace gpuprobe {
namespace {

std::string number_text(std::uint64_t v, NumberKind kind) {
  return kind == NumberKind::kSize ? format_bytes(static_cast<double>(v)) : fmt::format("{}", v);
}

// "h2d, d2h, bidir".
std::string token_list(const std::vector<std::string>& tokens) {
  return fmt::format("{}", fmt::join(tokens, ", "));
}

void validate_numbers(const Axis& axis, const std::vector<std::uint64_t>& numbers) {
  for (const auto v : numbers) {
    if (v < axis.min) {
      throw UsageError(fmt::format(
          "--{}: {} is smaller than {}{}", axis.name, v, number_text(axis.min, axis.number),
          axis.min == 1 && axis.number == NumberKind::kCount ? " (zero is not allowed)" : ""));
    }
    if (v > axis.max) {
      throw UsageError(fmt::format(
          "--{}: {} is larger than {}", axis.name, v,
          axis.number == NumberKind::kSize
              ? fmt::format("{} ({})", axis.max, format_bytes(static_cast<double>(axis.max)))
              : fmt::format("{}", axis.max)));
    }
    if (axis.validate) {
      const std::string problem = axis.validate(v);
      if (!problem.empty()) throw UsageError(fmt::format("--{}: {}", axis.name, problem));
    }
  }
}

std::vector<std::uint64_t> parse_numbers(const Axis& axis, const std::string& text) {
  std::vector<std::uint64_t> numbers;
  try {
    if (axis.kind == AxisKind::kNumber) {
      numbers.push_back(axis.number == NumberKind::kSize
                            ? parse_size(text)
                            : static_cast<std::uint64_t>(parse_int(text)));
    } else {
      ListOptions options;
      options.kind = axis.number == NumberKind::kSize ? ListKind::kSize : ListKind::kInt;
      options.allow_zero = axis.min == 0;
      options.max_items = axis.max_items;
      numbers = parse_list(text, options);
    }
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--{}: {}", axis.name, e.what()));
  }
  validate_numbers(axis, numbers);
  return numbers;
}

// Tokens of a choice axis from text ("h2d,bidir" or "all"), added to `into` in order, once each.
void add_tokens(const Axis& axis, const std::string& text, std::vector<std::string>& into) {
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string token = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (token.empty()) {
      throw UsageError(fmt::format("--{}: empty item in '{}' (use {})", axis.name, text,
                                   token_list(axis.choices) + " or all"));
    }
    std::vector<std::string> add;
    if (token == "all") {
      add = axis.choices;
    } else if (std::find(axis.choices.begin(), axis.choices.end(), token) != axis.choices.end()) {
      add = {token};
    } else {
      throw UsageError(fmt::format("--{}: unknown value '{}' (use {} or all)", axis.name, token,
                                   token_list(axis.choices)));
    }
    for (auto& t : add) {
      if (std::find(into.begin(), into.end(), t) == into.end()) into.push_back(t);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

Axis make(std::string name, AxisKind kind, std::string help, std::string default_text,
          std::optional<std::string> quick_text) {
  Axis a;
  a.name = std::move(name);
  a.kind = kind;
  a.help = std::move(help);
  a.default_text = std::move(default_text);
  a.quick_text = std::move(quick_text);
  return a;
}

// An axis of byte sizes: parsed as sizes, shown in bytes, at least 1.
Axis of_sizes(Axis a) {
  a.number = NumberKind::kSize;
  a.unit = "B";
  a.min = 1;
  return a;
}

}  // namespace

Axis list_axis(std::string name, std::string help, std::string default_text,
               std::optional<std::string> quick_text) {
  return make(std::move(name), AxisKind::kList, std::move(help), std::move(default_text),
              std::move(quick_text));
}

Axis size_list_axis(std::string name, std::string help, std::string default_text,
                    std::optional<std::string> quick_text) {
  return of_sizes(
      list_axis(std::move(name), std::move(help), std::move(default_text), std::move(quick_text)));
}

Axis size_axis(std::string name, std::string help, std::string default_text,
               std::optional<std::string> quick_text) {
  return of_sizes(number_axis(std::move(name), std::move(help), std::move(default_text),
                              std::move(quick_text)));
}

Axis number_axis(std::string name, std::string help, std::string default_text,
                 std::optional<std::string> quick_text) {
  return make(std::move(name), AxisKind::kNumber, std::move(help), std::move(default_text),
              std::move(quick_text));
}

Axis choice_axis(std::string name, std::string help, std::vector<std::string> choices,
                 std::string default_text, std::optional<std::string> quick_text) {
  Axis a = make(std::move(name), AxisKind::kChoice, std::move(help), std::move(default_text),
                std::move(quick_text));
  a.choices = std::move(choices);
  return a;
}

Axis switch_axis(std::string name, std::string help) {
  return make(std::move(name), AxisKind::kSwitch, std::move(help), "false", std::nullopt);
}

std::function<std::string(std::uint64_t)> multiple_of(std::uint64_t unit, std::string what) {
  return [unit, what = std::move(what)](std::uint64_t v) {
    return v % unit == 0 ? std::string() : fmt::format("{} is not a multiple of {}", v, what);
  };
}

const AxisValues::Value& AxisValues::at(const std::string& name, AxisKind kind) const {
  const auto it = values.find(name);
  if (it == values.end() || it->second.kind != kind)
    throw std::logic_error(fmt::format("no axis '{}' of that kind", name));
  return it->second;
}

const std::vector<std::uint64_t>& AxisValues::list(const std::string& name) const {
  return at(name, AxisKind::kList).numbers;
}

std::uint64_t AxisValues::number(const std::string& name) const {
  return at(name, AxisKind::kNumber).numbers.front();
}

const std::vector<std::string>& AxisValues::choices(const std::string& name) const {
  return at(name, AxisKind::kChoice).tokens;
}

bool AxisValues::has_choice(const std::string& name, const std::string& token) const {
  const auto& tokens = choices(name);
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

bool AxisValues::on(const std::string& name) const {
  return at(name, AxisKind::kSwitch).on;
}

const std::string& AxisValues::text(const std::string& name) const {
  const auto it = values.find(name);
  if (it == values.end()) throw std::logic_error(fmt::format("no axis '{}'", name));
  return it->second.text;
}

bool AxisValues::given(const std::string& name) const {
  const auto it = values.find(name);
  if (it == values.end()) throw std::logic_error(fmt::format("no axis '{}'", name));
  return it->second.given;
}

AxisValues resolve_axes(const std::vector<Axis>& axes, const AxisInput& input, bool quick) {
  AxisValues out;
  for (const Axis& axis : axes) {
    AxisValues::Value v;
    v.kind = axis.kind;
    const auto given = input.text.find(axis.name);
    v.given = given != input.text.end();
    const std::string fallback = quick && axis.quick_text ? *axis.quick_text : axis.default_text;
    v.text = v.given ? given->second : fallback;
    switch (axis.kind) {
      case AxisKind::kList:
      case AxisKind::kNumber:
        v.numbers = parse_numbers(axis, v.text);
        break;
      case AxisKind::kChoice: {
        const auto switched = input.choice_switches.find(axis.name);
        const bool any_switch =
            switched != input.choice_switches.end() && !switched->second.empty();
        if (v.given) add_tokens(axis, v.text, v.tokens);
        if (any_switch) {
          // Switches keep the canonical order after what --name listed.
          for (const auto& token : axis.choices) {
            if (switched->second.count(token) &&
                std::find(v.tokens.begin(), v.tokens.end(), token) == v.tokens.end())
              v.tokens.push_back(token);
          }
          v.given = true;
        }
        if (!v.given) add_tokens(axis, v.text, v.tokens);
        v.text = fmt::format("{}", fmt::join(v.tokens, ","));
        break;
      }
      case AxisKind::kSwitch:
        v.on = input.switches.count(axis.name) != 0;
        v.given = v.on;
        v.text = v.on ? "true" : "false";
        break;
    }
    out.values[axis.name] = std::move(v);
  }
  return out;
}

std::vector<Param> axis_params(const std::vector<Axis>& axes, const AxisValues& values) {
  std::vector<Param> params;
  for (const Axis& axis : axes) {
    if (axis.kind == AxisKind::kSwitch) {
      params.push_back({axis.name, values.on(axis.name), ""});
    } else if (axis.kind == AxisKind::kNumber) {
      params.push_back({axis.name, static_cast<std::int64_t>(values.number(axis.name)), axis.unit});
    } else {
      params.push_back({axis.name, values.text(axis.name), ""});
    }
  }
  return params;
}

std::string axis_help(const Axis& axis) {
  std::string text = axis.help;
  if (axis.kind == AxisKind::kChoice)
    text += fmt::format(" ({}, comma-separated, or all)", token_list(axis.choices));
  if (axis.kind == AxisKind::kSwitch) return text;
  text += fmt::format(" [default: {}", axis.default_text);
  if (axis.quick_text && *axis.quick_text != axis.default_text)
    text += fmt::format("; all: {}", *axis.quick_text);
  return text + "]";
}

}  // namespace gpuprobe
