#!/usr/bin/env python3
"""Batches test sources for a unity build (tests/CMakeLists.txt): test files keep helpers of the
same name (words(), metric(), kMiB, ...) in anonymous namespaces, which would clash, or worse
overload one another silently, in one translation unit. So two files go into one batch only if
no name declared at namespace scope in one (function, variable, type, alias, using-declaration,
macro) is declared in the other, and neither uses a name the other defines as a macro; a file
with a using-directive at namespace scope (it would reach the files after it) is never batched.
Names are read from the source with comments and literals stripped; a name wrongly taken for a
declaration only makes the batches smaller.
Usage: unity_batches.py MAX_FILES FILE...; prints one line per file batched: BATCH FILE."""
import collections
import re
import sys

GTEST_MACROS = {"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P", "TYPED_TEST_SUITE",
                "TYPED_TEST_SUITE_P", "REGISTER_TYPED_TEST_SUITE_P", "INSTANTIATE_TEST_SUITE_P",
                "INSTANTIATE_TYPED_TEST_SUITE_P", "GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST"}
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "noexcept",
            "static_assert", "requires", "operator", "template", "typename", "const", "constexpr",
            "auto", "static", "inline", "struct", "class", "enum", "union", "using", "namespace",
            "extern", "void", "int", "double", "bool", "char", "unsigned", "long", "float"}
# What one file declares at namespace scope, defines as macros, names anywhere, and whether it
# has a using-directive at namespace scope.
Scan = collections.namedtuple("Scan", "names macros identifiers using_directive")
IDENTIFIER = re.compile(r'[A-Za-z_]\w*$')
TOKEN = re.compile(r'[A-Za-z_]\w*|::|->|[^\s\w]')
LITERAL = re.compile(r'R"([^(\s]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*'
                     r'|/\*.*?\*/', re.S)


def strip(text):
    """The source without comments and literals (each replaced by a blank) and its macros' names
    (#define NAME), the other preprocessor lines dropped."""
    text = LITERAL.sub(lambda m: '""' if m.group(0)[0] in 'R"\'' else " ", text)
    text = re.sub(r'\\\n', " ", text)
    macros = set(re.findall(r'^\s*#\s*define\s+(\w+)', text, re.M))
    return re.sub(r'^\s*#[^\n]*', " ", text, flags=re.M), macros


def opens_namespace(statement):
    """Whether the tokens before a '{' open a namespace (or an extern "C" block)."""
    return bool(statement) and (statement[0] in ("namespace", "inline") and "namespace" in
                                statement or statement[0] == "extern")


def declared_names(statement):
    """The names a namespace-scope statement (its tokens up to ';' or '{') declares: the name
    before its first top-level '(' (a function), each name before a top-level '=', '[' or ','
    (variables), the name after struct, class, enum or union, an alias or using-declaration's
    name, an operator; else (a plain variable) its last name. And whether it is a
    using-directive."""
    names, parens, angles = set(), 0, 0
    if statement[0] in GTEST_MACROS:
        return names, False
    if statement[:2] == ["using", "namespace"]:
        return names, True
    for i, tok in enumerate(statement):
        prev = statement[i - 1] if i else ""
        if prev == "operator":
            names.add("operator" + tok)
        elif prev in ("struct", "class", "enum", "union"):
            names.add(tok)
        if tok == "(":
            if parens == 0 and angles == 0 and prev not in KEYWORDS:
                names.add(prev)
            parens += 1
        elif tok == ")":
            parens -= 1
        elif tok == "<" and parens == 0:
            angles += 1
        elif tok == ">" and parens == 0:
            angles = max(angles - 1, 0)
        elif parens == 0 and angles == 0 and tok in ("=", "[", ","):
            names.add(prev)
    if statement[0] == "using" and len(statement) > 1:
        names.add(statement[1] if "=" in statement else statement[-1])
    words = [t for t in statement if IDENTIFIER.match(t) and t not in KEYWORDS]
    if words and not {"(", "=", "struct", "class", "enum", "union", "using"} & set(statement):
        names.add(words[-1])
    return {n for n in names if IDENTIFIER.match(n) or n.startswith("operator")} - KEYWORDS, False


def scan(path):
    """The Scan of one file."""
    with open(path, encoding="utf-8") as f:
        text, macros = strip(f.read())
    tokens = TOKEN.findall(text)
    names, stack, statement, using_directive = set(macros), [], [], False
    for tok in tokens:
        at_namespace_scope = all(kind == "ns" for kind in stack)
        if tok in ("{", ";") and at_namespace_scope and statement and \
                not (tok == "{" and opens_namespace(statement)):
            found, directive = declared_names(statement)
            names |= found
            using_directive |= directive
        if tok == "{":
            stack.append("ns" if at_namespace_scope and opens_namespace(statement) else "body")
        elif tok == "}" and stack:
            stack.pop()
        if tok in ("{", "}", ";"):
            statement = []
        elif at_namespace_scope:
            statement.append(tok)
    identifiers = {t for t in tokens if IDENTIFIER.match(t)}
    return Scan(names, macros, identifiers, using_directive)


def clash(a, b):
    """Whether two files' Scans forbid one batch."""
    return bool(a.names & b.names or a.macros & b.identifiers or b.macros & a.identifiers)


def batches(files, max_files):
    """Greedy: the most constrained files first, each into the smallest batch (in lines) it
    does not clash with and that has room, else a new one; a file with a using-directive stays
    alone. Only batches of two or more files are returned."""
    scans = {f: scan(f) for f in files}
    free = [f for f in files if not scans[f].using_directive]
    clashes = {f: sum(clash(scans[f], scans[g]) for g in free) for f in free}
    lines = {f: sum(1 for _ in open(f, encoding="utf-8")) for f in free}
    groups = []
    for f in sorted(free, key=lambda f: (-clashes[f], -lines[f], f)):
        fits = [g for g in groups if len(g) < max_files and
                not any(clash(scans[f], scans[other]) for other in g)]
        if fits:
            min(fits, key=lambda g: sum(lines[other] for other in g)).append(f)
        else:
            groups.append([f])
    return [g for g in groups if len(g) > 1]


def main():
    max_files, files = int(sys.argv[1]), sys.argv[2:]
    for index, group in enumerate(batches(files, max_files)):
        for f in sorted(group):
            print(index, f)


if __name__ == "__main__":
    main()
