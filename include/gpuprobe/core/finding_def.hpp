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
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpuprobe/core/finding_fields.hpp"
#include "gpuprobe/core/result.hpp"

namespace gpuprobe {

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

// make()'s arguments: a std::tuple of given fields stands for its fields.
template <class T>
constexpr bool kIsTuple = false;
template <class... T>
constexpr bool kIsTuple<std::tuple<T...>> = true;
template <class T>
auto as_tuple(T x) {
  if constexpr (kIsTuple<T>)
    return x;
  else
    return std::tuple<T>(std::move(x));
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
  TextList items(X) const {  // a list param, in params or in outcome (as find_param_in looks)
    declared<X>();
    if (auto in_params = list_items_of(f_.params, X::key)) return *in_params;
    return list_items_of(f_.outcome, X::key).value_or(TextList{});
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

  // The finding, from every declared field given once (in any order). A std::tuple of given
  // fields counts as its fields: a group of them built apart (an extreme's point, the fields two
  // definitions share) is handed over whole.
  template <class... G>
  Finding make(G... given) const {
    if constexpr ((finding_field::kIsTuple<G> || ...)) {
      return std::apply([self = this](auto... g) { return self->make(std::move(g)...); },
                        std::tuple_cat(finding_field::as_tuple(std::move(given))...));
    } else {
      return make_flat(std::move(given)...);
    }
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
  template <class... G>
  Finding make_flat(G... given) const {
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
  // A note of one fixed sentence: no params, no values (what a plan cannot know, a method the
  // sentence states once).
  auto note(std::string_view id, const char* sentence) {
    return define(FindingKind::kNote, id, Fields<>{}, Fields<>{}, Fields<>{},
                  [sentence](const auto&) { return std::string(sentence); });
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
