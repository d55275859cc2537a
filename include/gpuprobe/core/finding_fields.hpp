// The fields of a finding as typed handles: each names one key of the JSON, says where it goes
// (a param, an outcome entry, a value) and what C++ type a builder gives it (see finding_def.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

// A key or a unit as a template argument: Text<"direction">, Value<"ratio", "x">.
template <std::size_t N>
struct FieldKey {
  char chars[N]{};
  constexpr FieldKey(const char (&text)[N]) {  // NOLINT: implicit, for Text<"direction">
    for (std::size_t i = 0; i < N; ++i)
      chars[i] = text[i];
  }
  constexpr FieldKey() = default;
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

// Two keys joined: join<"one_", "speedup">() is "one_speedup".
template <FieldKey A, FieldKey B>
constexpr auto join() {
  constexpr std::size_t a = A.view().size(), b = B.view().size();
  FieldKey<a + b + 1> out;
  for (std::size_t i = 0; i < a; ++i)
    out.chars[i] = A.chars[i];
  for (std::size_t i = 0; i < b; ++i)
    out.chars[a + i] = B.chars[i];
  return out;
}

// How people read a param ("pinned", "64 MiB", "1,2,4") and a value ("54.1 GB/s", "2.65 us",
// "7.31x", "12%", "n/a" when null).
std::string param_words(const Param& param);
std::string quantity_words(const Quantity& quantity);
// A byte param as a size ("64 MiB"), whether it kept its unit or came back from JSON without one
// (an integer or a number); any other value as param_words says it.
std::string size_words(const Param& param);
// A width in bytes as a sentence says it: the words of a Size field ("16 B"), given " B" when they
// came back from JSON without the unit ("16").
std::string byte_words(std::string words);

namespace finding_field {

// Where a field of a finding lives and the errors of reading it from a finding (one read back
// from a file of another version may lack it).
const Param& param_in(const Finding& finding, std::string_view key);
const Param* find_param_in(const Finding& finding, std::string_view key);
const Quantity& value_in(const Finding& finding, std::string_view key);
const Quantity* find_value_in(const Finding& finding, std::string_view key);
double number_in(const Finding& finding, std::string_view key);
std::int64_t integer_in(const Finding& finding, std::string_view key);
std::string text_in(const Finding& finding, std::string_view key);
[[noreturn]] void wrong_type(const Finding& finding, std::string_view key);
[[noreturn]] void cannot_warn(std::string_view id);
[[noreturn]] void undeclared_point_param(std::string_view key);
[[noreturn]] void missing_point_param(std::string_view key);

// A field given to make(): the handle's type and the value.
template <class Handle>
struct Given {
  using Of = Handle;
  typename Handle::Type value;
};

// The handle of a param (or outcome entry) of C++ type T: Param{key, T, unit}.
template <class Self, class T, FieldKey K, FieldKey U>
struct ParamHandle {
  using Type = T;
  static constexpr bool kIsValue = false;
  static constexpr bool kMaybe = false;
  static constexpr std::string_view key = K.view();
  static constexpr std::string_view unit = U.view();
  template <class A>
  Given<Self> operator()(A&& v) const {
    if constexpr (std::is_integral_v<std::decay_t<A>> && std::is_same_v<T, std::int64_t>)
      return {static_cast<std::int64_t>(v)};
    else
      return {T(std::forward<A>(v))};
  }
  static void put(std::vector<Param>& out, const T& v) {
    out.push_back({std::string(key), v, std::string(unit)});
  }
};

}  // namespace finding_field

// A text param: "pinned", "h2d".
template <FieldKey K>
struct Text : finding_field::ParamHandle<Text<K>, std::string, K, ""> {
  static std::string example() { return std::string(K.view()); }
};
// An integer param (unit "B": shown as a size).
template <FieldKey K, FieldKey U = "">
struct Int : finding_field::ParamHandle<Int<K, U>, std::int64_t, K, U> {
  static std::int64_t example() { return U.view() == "B" ? 65536 : 2; }
};
template <FieldKey K>
using Size = Int<K, "B">;
// A real-number param.
template <FieldKey K>
struct Real : finding_field::ParamHandle<Real<K>, double, K, ""> {
  static double example() { return 0.5; }
};
// A param of any scalar type, null included (a schema version that may be unknown).
template <FieldKey K>
struct AnyParam : finding_field::ParamHandle<AnyParam<K>, Scalar, K, ""> {
  static Scalar example() { return std::int64_t{2}; }
};
// A true/false param.
template <FieldKey K>
struct Flag : finding_field::ParamHandle<Flag<K>, bool, K, ""> {
  static bool example() { return true; }
};
// A list of integers (shown "1,2,4") and a list of texts.
template <FieldKey K, FieldKey U = "">
struct Ints : finding_field::ParamHandle<Ints<K, U>, IntList, K, U> {
  static IntList example() { return {1, 2, 4}; }
};
template <FieldKey K>
struct Texts : finding_field::ParamHandle<Texts<K>, TextList, K, ""> {
  static TextList example() { return {std::string(K.view()), "b"}; }
};

// A value with its unit; null (std::nullopt) where not available.
template <FieldKey K, FieldKey U = "">
struct Value {
  using Type = std::optional<double>;
  static constexpr bool kIsValue = true;
  static constexpr bool kMaybe = false;
  static constexpr std::string_view key = K.view();
  static constexpr std::string_view unit = U.view();
  template <class A>
  finding_field::Given<Value> operator()(const A& v) const {
    if constexpr (std::is_arithmetic_v<A>)
      return {static_cast<double>(v)};
    else
      return {Type(v)};
  }
  static void put(std::vector<Quantity>& out, const Type& v) {
    out.push_back({std::string(key), std::string(unit), v});
  }
  static Type example() { return 1.5; }
};

// The values of an Each field: each name's suffix ("0", "3") and its value.
using EachValues = std::vector<std::pair<std::string, std::optional<double>>>;

// Values numbered at run time, one per item: Each<"loss_gpu", "%"> gives loss_gpu0, loss_gpu3.
template <FieldKey K, FieldKey U = "">
struct Each {
  using Type = EachValues;
  static constexpr bool kIsValue = true;
  static constexpr bool kMaybe = false;
  static constexpr std::string_view key = K.view();
  static constexpr std::string_view unit = U.view();
  finding_field::Given<Each> operator()(Type v) const { return {std::move(v)}; }
  static void put(std::vector<Quantity>& out, const Type& items) {
    for (const auto& [suffix, v] : items)
      out.push_back({std::string(key) + suffix, std::string(unit), v});
  }
  static Type example() { return {{"0", 1.5}, {"3", 2.5}}; }
};

// A value whose unit is known only at run time (a metric's): given as kValue(unit, value).
template <FieldKey K>
struct ValueIn {
  struct Type {
    std::string unit;
    std::optional<double> value;
  };
  static constexpr bool kIsValue = true;
  static constexpr bool kMaybe = false;
  static constexpr std::string_view key = K.view();
  finding_field::Given<ValueIn> operator()(std::string unit, std::optional<double> v) const {
    return {{std::move(unit), v}};
  }
  static void put(std::vector<Quantity>& out, const Type& v) {
    out.push_back({std::string(key), v.unit, v.value});
  }
  static Type example() { return {"GB/s", 1.5}; }
};

// Params passed through as they come (a row's params, whatever the probe): a sentence reads
// them with f.items(h), every param of the finding that no other field of it declares.
template <FieldKey K>
struct Rest {
  using Type = std::vector<Param>;
  static constexpr bool kIsValue = false;
  static constexpr bool kMaybe = false;
  static constexpr std::string_view key = K.view();
  finding_field::Given<Rest> operator()(Type v) const { return {std::move(v)}; }
  static void put(std::vector<Param>& out, const Type& v) {
    out.insert(out.end(), v.begin(), v.end());
  }
  static Type example() {
    return {{"pattern", std::string("offset"), ""}, {"bytes", std::int64_t{4096}, "B"}};
  }
};

// A field present only in some findings of its id (a param, outcome entry or value): given as
// std::optional, left out of the finding when empty.
template <class H>
struct Maybe {
  using Type = std::optional<typename H::Type>;
  static constexpr bool kIsValue = H::kIsValue;
  static constexpr bool kMaybe = true;
  static constexpr std::string_view key = H::key;
  template <class A>
  finding_field::Given<Maybe> operator()(A&& v) const {
    if constexpr (std::is_same_v<std::decay_t<A>, std::nullopt_t>)
      return {std::nullopt};
    else if constexpr (requires { v.has_value(); })
      return {v ? Type(H{}(*v).value) : std::nullopt};
    else
      return {Type(H{}(std::forward<A>(v)).value)};
  }
  template <class Out>
  static void put(Out& out, const Type& v) {
    if (v) H::put(out, *v);
  }
  static Type example() { return H::example(); }
};

// Values given together, in order (the timings of one row, under one prefix): a probe derives
// its group, `struct Timing : ValueGroup<Timing, Value<...>...>`, naming the members for its
// sentences; make() takes the group as a std::tuple of the members' values.
template <class Self, class... H>
struct ValueGroup {
  using Type = std::tuple<typename H::Type...>;
  using Flat = std::tuple<Self, H...>;  // what a sentence may read: each member
  static constexpr bool kIsValue = true;
  static constexpr bool kMaybe = false;
  static constexpr std::string_view key = "(group)";
  finding_field::Given<Self> operator()(Type v) const { return {std::move(v)}; }
  static void put(std::vector<Quantity>& out, const Type& v) {
    std::apply([&](const auto&... item) { (H::put(out, item), ...); }, v);
  }
  static Type example() { return {H::example()...}; }
};

// A group of params given together as they come (the params of a row the finding points at),
// each declared by its handle (a Maybe one may be absent), so a sentence reads them by handle.
// make() throws std::logic_error when a given param is not declared or a required one is absent.
template <class... H>
struct Point {
  using Type = std::vector<Param>;
  static constexpr bool kIsValue = false;
  static constexpr bool kMaybe = false;
  static constexpr std::string_view key = "(point)";
  finding_field::Given<Point> operator()(Type v) const { return {std::move(v)}; }
  static void put(std::vector<Param>& out, const Type& v) {
    for (const Param& p : v)
      if (((p.key != H::key) && ...)) finding_field::undeclared_point_param(p.key);
    (validate_present<H>(v), ...);
    out.insert(out.end(), v.begin(), v.end());
  }
  static Type example() {
    Type out;
    (H::put(out, H::example()), ...);
    return out;
  }

 private:
  template <class X>
  static void validate_present(const Type& v) {
    if constexpr (!X::kMaybe) {
      for (const Param& p : v)
        if (p.key == X::key) return;
      finding_field::missing_point_param(X::key);
    }
  }
};

// A Point of handles: point(kMemory, kStride).
template <class... H>
constexpr Point<H...> point(H...) {
  return {};
}

}  // namespace gpuprobe
