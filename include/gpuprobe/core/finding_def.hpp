// A finding declared once: its id, kind, scope params, values with units and sentence.
//
// A probe (or compare, or fleet) names each key of its findings once, as a typed handle:
//
//   constexpr Text<"direction"> kDirection;         // a text param (or outcome entry)
//   constexpr Size<"bytes"> kBytes;                 // an integer param in bytes ("64 MiB")
//   constexpr Value<"ratio", "x"> kRatio;           // a value with its unit
//
// and declares each finding once, through its component's FindingList:
//
//   inline const auto kPinnedFit = kFindings.verdict(
//       "transfer_pinned_fit", params(kDirection), values(kFitBandwidth, kLatency),
//       [](const auto& f) { return fmt::format("pinned {}: {}", f[kDirection], f[kLatency]); });
//
// A builder makes the finding only through its definition, giving every declared field once
// (kPinnedFit.make(kDirection(c.direction), kFitBandwidth(gbps), kLatency(s))); the sentence
// reads the finding through a view typed by the declaration. Giving a field the finding does not
// declare, leaving one out, or reading one in the sentence it does not declare is a compile
// error. The JSON stays {id, params, values, outcome}, in the order declared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
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
    (check_present<H>(v), ...);
    out.insert(out.end(), v.begin(), v.end());
  }
  static Type example() {
    Type out;
    (H::put(out, H::example()), ...);
    return out;
  }

 private:
  template <class X>
  static void check_present(const Type& v) {
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

// The fields of one part of a finding, in the order the JSON carries them.
template <class... H>
struct Fields {};
template <class... H>
constexpr Fields<H...> params(H...) {
  return {};
}
template <class... H>
constexpr Fields<H...> values(H...) {
  return {};
}
template <class... H>
constexpr Fields<H...> outcome(H...) {
  return {};
}

namespace finding_field {

template <class H, class... L>
constexpr bool kHas = (std::is_same_v<H, L> || ...);
template <class H, class... L>
constexpr std::size_t kCount = (std::size_t{std::is_same_v<H, L>} + ... + 0);
template <class H, class... L>
constexpr std::size_t index_of() {
  constexpr bool same[] = {std::is_same_v<H, L>...};
  for (std::size_t i = 0; i < sizeof...(L); ++i)
    if (same[i]) return i;
  return sizeof...(L);
}

// The handles a sentence may read: each field, and each member of a Point or a ValueGroup.
template <class H>
struct Members {
  using type = std::tuple<H>;
};
template <class H>
requires requires {
  typename H::Flat;
}
struct Members<H> {
  using type = typename H::Flat;
};
template <class... H>
struct Members<Point<H...>> {
  using type = std::tuple<Point<H...>, H...>;
};

}  // namespace finding_field

// A finding as its sentence reads it: only the fields its definition declares, by their handles.
// f[h]: the field as people read it ("" for an absent Maybe field); f.value(h): the C++ value (a
// null value throws); f.maybe(h): a value that may be null; f.has(h): whether a Maybe field is
// present; f.items(h): a list's items, or an Each field's (suffix, value) pairs.
template <class... H>
class FindingView {
 public:
  explicit FindingView(const Finding& finding) : f_(finding) {}

  template <class X>
  std::string operator[](X) const {
    declared<X>();
    if constexpr (X::kIsValue && X::kMaybe) {
      const Quantity* q = finding_field::find_value_in(f_, X::key);
      return q ? quantity_words(*q) : std::string();
    } else if constexpr (X::kIsValue) {
      return quantity_words(finding_field::value_in(f_, X::key));
    } else if constexpr (X::kMaybe) {
      const Param* p = finding_field::find_param_in(f_, X::key);
      return p ? param_words(*p) : std::string();
    } else {
      return param_words(finding_field::param_in(f_, X::key));
    }
  }
  template <class X>
  auto value(X) const {
    declared<X>();
    static_assert(!X::kMaybe, "a Maybe field: read it with has() and []");
    if constexpr (X::kIsValue)
      return finding_field::number_in(f_, X::key);
    else if constexpr (std::is_same_v<typename X::Type, std::string>)
      return finding_field::text_in(f_, X::key);
    else if constexpr (std::is_same_v<typename X::Type, std::int64_t>)
      return finding_field::integer_in(f_, X::key);
    else
      return read_param<typename X::Type>(X::key);
  }
  template <class X>
  std::optional<double> maybe(X) const {
    declared<X>();
    static_assert(X::kIsValue, "maybe() reads a value");
    if constexpr (X::kMaybe) {
      const Quantity* q = finding_field::find_value_in(f_, X::key);
      return q ? q->value : std::nullopt;
    } else {
      return finding_field::value_in(f_, X::key).value;
    }
  }
  template <class X>
  bool has(X) const {
    declared<X>();
    static_assert(X::kMaybe, "has() asks after a Maybe field; the others are always there");
    if constexpr (X::kIsValue)
      return finding_field::find_value_in(f_, X::key) != nullptr;
    else
      return finding_field::find_param_in(f_, X::key) != nullptr;
  }
  // A param as stored, for a sentence that reads files of older versions its own way.
  template <class X>
  const Param& param(X) const {
    declared<X>();
    static_assert(!X::kIsValue, "param() reads a param");
    return finding_field::param_in(f_, X::key);
  }
  template <FieldKey K, FieldKey U>
  typename Each<K, U>::Type items(Each<K, U>) const;
  template <FieldKey K>
  std::vector<Param> items(Rest<K>) const {
    declared<Rest<K>>();
    std::vector<Param> out;
    for (const Param& p : f_.params)
      if (((H::kIsValue || p.key != H::key) && ...)) out.push_back(p);
    return out;
  }
  template <class X>
  TextList items(X) const {
    declared<X>();
    return list_items_of(f_.params, X::key).value_or(TextList{});
  }

 private:
  template <class X>
  static constexpr void declared() {
    static_assert(finding_field::kHas<X, H...>, "the sentence reads a field its finding lacks");
  }
  template <class T>
  T read_param(std::string_view key) const {
    const Param& p = finding_field::param_in(f_, key);
    if (const T* t = std::get_if<T>(&p.value)) return *t;
    finding_field::wrong_type(f_, key);
  }
  const Finding& f_;
};

template <class... H>
template <FieldKey K, FieldKey U>
typename Each<K, U>::Type FindingView<H...>::items(Each<K, U>) const {
  declared<Each<K, U>>();
  typename Each<K, U>::Type out;
  const std::string_view key = K.view();
  for (const Quantity& q : f_.values)
    if (q.name.size() > key.size() && std::string_view(q.name).substr(0, key.size()) == key)
      out.emplace_back(q.name.substr(key.size()), q.value);
  return out;
}

// A definition with its types erased: what the glossary keeps, and what the test that phrases
// every finding walks.
struct FindingSpec {
  std::string id;
  FindingKind kind = FindingKind::kNote;
  std::function<std::string(const Finding&)> phrase;
  std::function<Finding()> example;  // every declared field given a made-up value
};

namespace finding_field {
template <class Tuple>
struct ViewOf;
template <class... H>
struct ViewOf<std::tuple<H...>> {
  using type = FindingView<H...>;
};
template <class... H>
using ViewFor =
    typename ViewOf<decltype(std::tuple_cat(std::declval<typename Members<H>::type>()...))>::type;
}  // namespace finding_field

template <class Params, class Vals, class Outcome>
class FindingDef;

// One finding's definition: id, kind, params, values and outcome entries, and its sentence.
template <class... P, class... V, class... O>
class FindingDef<Fields<P...>, Fields<V...>, Fields<O...>> {
 public:
  using View = finding_field::ViewFor<P..., V..., O...>;
  using Sentence = std::function<std::string(const View&)>;

  // `may_warn`: the finding is a verdict that make_warning() may raise to a warning.
  FindingDef(std::string_view id, FindingKind kind, Sentence sentence, bool may_warn = false)
      : id_(id), kind_(kind), sentence_(std::move(sentence)), may_warn_(may_warn) {}

  std::string_view id() const { return id_; }

  // The finding, from every declared field given once (in any order).
  template <class... G>
  Finding make(G... given) const {
    static_assert((finding_field::kHas<typename G::Of, P..., V..., O...> && ...),
                  "make() was given a field the finding does not declare");
    static_assert(((finding_field::kCount<P, typename G::Of...> == 1) && ...) &&
                      ((finding_field::kCount<V, typename G::Of...> == 1) && ...) &&
                      ((finding_field::kCount<O, typename G::Of...> == 1) && ...),
                  "make() must give every field the finding declares, once");
    const std::tuple<G...> all{std::move(given)...};
    Finding f;
    f.id = std::string(id_);
    f.kind = kind_;
    (P::put(f.params, pick<P, G...>(all)), ...);
    (V::put(f.values, pick<V, G...>(all)), ...);
    (O::put(f.outcome, pick<O, G...>(all)), ...);
    return f;
  }

  // The same finding as a warning: for a verdict declared verdict_or_warning (the measurement
  // contradicts what the verdict rests on); std::logic_error for any other.
  template <class... G>
  Finding make_warning(G... given) const {
    if (!may_warn_) finding_field::cannot_warn(id_);
    Finding f = make(std::move(given)...);
    f.kind = FindingKind::kWarning;
    return f;
  }

  std::string phrase(const Finding& finding) const { return sentence_(View(finding)); }

  Finding example() const {
    return make(finding_field::Given<P>{P::example()}..., finding_field::Given<V>{V::example()}...,
                finding_field::Given<O>{O::example()}...);
  }

  FindingSpec spec() const {
    const FindingDef def = *this;
    return {std::string(id_), kind_, [def](const Finding& f) { return def.phrase(f); },
            [def] { return def.example(); }};
  }

 private:
  template <class H, class... G>
  static const typename H::Type& pick(const std::tuple<G...>& all) {
    return std::get<finding_field::index_of<H, typename G::Of...>()>(all).value;
  }

  std::string_view id_;
  FindingKind kind_;
  Sentence sentence_;
  bool may_warn_ = false;
};

// The definitions of one component (a probe, compare, fleet, core), in the order declared. Each
// component declares one, `inline FindingList kFindings;`, ahead of its definitions, and hands
// it to the glossary (Glossary::add_findings).
class FindingList {
 public:
  template <class PL, class VL, class OL, class S>
  auto verdict(std::string_view id, PL p, VL v, OL o, S sentence) {
    return define(FindingKind::kVerdict, id, p, v, o, sentence);
  }
  template <class PL, class VL, class S>
  auto verdict(std::string_view id, PL p, VL v, S sentence) {
    return define(FindingKind::kVerdict, id, p, v, Fields<>{}, sentence);
  }
  template <class PL, class VL, class OL, class S>
  auto note(std::string_view id, PL p, VL v, OL o, S sentence) {
    return define(FindingKind::kNote, id, p, v, o, sentence);
  }
  template <class PL, class VL, class S>
  auto note(std::string_view id, PL p, VL v, S sentence) {
    return define(FindingKind::kNote, id, p, v, Fields<>{}, sentence);
  }
  template <class PL, class VL, class OL, class S>
  auto warning(std::string_view id, PL p, VL v, OL o, S sentence) {
    return define(FindingKind::kWarning, id, p, v, o, sentence);
  }
  template <class PL, class VL, class S>
  auto warning(std::string_view id, PL p, VL v, S sentence) {
    return define(FindingKind::kWarning, id, p, v, Fields<>{}, sentence);
  }

  // A verdict that its builder may raise to a warning (FindingDef::make_warning).
  template <class PL, class VL, class OL, class S>
  auto verdict_or_warning(std::string_view id, PL p, VL v, OL o, S sentence) {
    return define(FindingKind::kVerdict, id, p, v, o, sentence, true);
  }

  const std::vector<FindingSpec>& specs() const { return specs_; }

 private:
  template <class PL, class VL, class OL, class S>
  FindingDef<PL, VL, OL> define(FindingKind kind, std::string_view id, PL, VL, OL, S sentence,
                                bool may_warn = false) {
    typename FindingDef<PL, VL, OL>::Sentence fn = std::move(sentence);
    FindingDef<PL, VL, OL> def(id, kind, std::move(fn), may_warn);
    specs_.push_back(def.spec());
    return def;
  }

  std::vector<FindingSpec> specs_;
};

}  // namespace gpuprobe
