// The reading side of finding definitions: a finding's fields as people read them, by key.
#include "gpuprobe/core/finding_def.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "gpuprobe/core/units.hpp"

namespace gpuprobe {

std::string param_words(const Param& param) {
  if (param.unit == "B") {
    if (const auto* i = std::get_if<std::int64_t>(&param.value))
      return format_bytes(static_cast<double>(*i));
  }
  return scalar_text(param.value);
}

std::string size_words(const Param& param) {
  if (const auto* i = std::get_if<std::int64_t>(&param.value))
    return format_bytes(static_cast<double>(*i));
  if (const auto* d = std::get_if<double>(&param.value)) return format_bytes(*d);
  return param_words(param);
}

std::string byte_words(std::string words) {
  if (words.find('B') == std::string::npos) words += " B";
  return words;
}

std::string quantity_words(const Quantity& q) {
  if (!q.value) return "n/a";
  if (q.unit == "B") return format_bytes(*q.value);
  if (q.unit == "s") return format_seconds(*q.value);
  if (q.unit == "x") return format_number(*q.value, 3) + "x";
  if (q.unit == "%") return format_number(*q.value, 3) + "%";
  if (q.unit.empty()) return format_number(*q.value, 4);
  return fmt::format("{} {}", format_number(*q.value, 4), q.unit);
}

namespace finding_field {

const Param* find_param_in(const Finding& finding, std::string_view key) {
  for (const auto* list : {&finding.params, &finding.outcome})
    for (const Param& p : *list)
      if (p.key == key) return &p;
  return nullptr;
}

const Param& param_in(const Finding& finding, std::string_view key) {
  const Param* p = find_param_in(finding, key);
  if (!p) throw std::out_of_range(fmt::format("finding '{}' has no param '{}'", finding.id, key));
  return *p;
}

const Quantity* find_value_in(const Finding& finding, std::string_view key) {
  for (const Quantity& q : finding.values)
    if (q.name == key) return &q;
  return nullptr;
}

const Quantity& value_in(const Finding& finding, std::string_view key) {
  if (const Quantity* q = find_value_in(finding, key)) return *q;
  throw std::out_of_range(fmt::format("finding '{}' has no value '{}'", finding.id, key));
}

double number_in(const Finding& finding, std::string_view key) {
  const Quantity& q = value_in(finding, key);
  if (!q.value)
    throw std::out_of_range(fmt::format("finding '{}': value '{}' is null", finding.id, key));
  return *q.value;
}

std::int64_t integer_in(const Finding& finding, std::string_view key) {
  const Param& p = param_in(finding, key);
  if (const auto* i = std::get_if<std::int64_t>(&p.value)) return *i;
  wrong_type(finding, key);
}

std::string text_in(const Finding& finding, std::string_view key) {
  return scalar_text(param_in(finding, key).value);
}

void wrong_type(const Finding& finding, std::string_view key) {
  throw std::out_of_range(
      fmt::format("finding '{}': param '{}' holds another type than declared", finding.id, key));
}

void cannot_warn(std::string_view id) {
  throw std::logic_error(fmt::format("finding '{}' is not declared verdict_or_warning", id));
}

void undeclared_point_param(std::string_view key) {
  throw std::logic_error(fmt::format("the point's param '{}' is not declared", key));
}

void missing_point_param(std::string_view key) {
  throw std::logic_error(fmt::format("the point lacks its declared param '{}'", key));
}

}  // namespace finding_field
}  // namespace gpuprobe
