#!/usr/bin/env bash
# CLI end-to-end check: runs a command, then checks its exit code, output and (optionally) speed.
#
# Usage:
#   expect.sh [OPTIONS] CODE REGEX -- COMMAND [ARGS...]
#   expect.sh [OPTIONS] --either CODE1:REGEX1 CODE2:REGEX2 ... -- COMMAND [ARGS...]
#
# The command's stdout and stderr are captured together. It passes when the exit code equals
# CODE and some line of the output matches REGEX (grep -E). With --either, it passes when any
# one CODE:REGEX pair holds (for commands that behave differently with and without a GPU; the
# REGEX is everything after the first ':').
#
# Options:
#   --has REGEX     the output must also match REGEX (may be repeated)
#   --not REGEX     the output must not match REGEX (may be repeated)
#   --fast MS       also run the command 5 more times; their mean wall time must be < MS ms
#                   (not checked when GPUPROBE_EXPECT_NO_TIMING is set: sanitizer builds)
#   --one-line      the output must be exactly one line (a usage error's message, nothing more)
#
# Prints what it expected and what it got on failure. Exits 0 (pass) or 1 (fail); 2 for
# bad use of this script.

set -u

die_usage() {
  echo "expect.sh: $1" >&2
  echo "usage: expect.sh [--has RE] [--not RE] [--fast MS] CODE REGEX -- COMMAND..." >&2
  echo "       expect.sh [--has RE] [--not RE] [--fast MS] --either CODE:REGEX... -- COMMAND..." >&2
  exit 2
}

expectations=()  # "CODE:REGEX"
required=()
forbidden=()
fast_ms=""
either=0
one_line=0

while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --has)
      [ $# -ge 2 ] || die_usage "--has needs a REGEX"
      required+=("$2")
      shift 2
      ;;
    --not)
      [ $# -ge 2 ] || die_usage "--not needs a REGEX"
      forbidden+=("$2")
      shift 2
      ;;
    --fast)
      [ $# -ge 2 ] || die_usage "--fast needs a number of milliseconds"
      [[ "$2" =~ ^[0-9]+$ ]] || die_usage "--fast '$2' is not a whole number of milliseconds"
      fast_ms="$2"
      shift 2
      ;;
    --either)
      either=1
      shift
      ;;
    --one-line)
      one_line=1
      shift
      ;;
    *)
      if [ "$either" -eq 1 ]; then
        [[ "$1" == *:* ]] || die_usage "--either expects CODE:REGEX, got '$1'"
        expectations+=("$1")
        shift
      else
        [ $# -ge 2 ] || die_usage "expected CODE REGEX before --"
        expectations+=("$1:$2")
        shift 2
      fi
      ;;
  esac
done
if [ $# -eq 0 ] || [ "$1" != "--" ]; then
  die_usage "missing -- before the command"
fi
shift
[ $# -gt 0 ] || die_usage "no command after --"
[ ${#expectations[@]} -gt 0 ] || die_usage "no expected CODE REGEX"
for spec in "${expectations[@]}"; do
  [[ "${spec%%:*}" =~ ^[0-9]+$ ]] || die_usage "exit code '${spec%%:*}' is not a number"
done

output="$("$@" 2>&1)"
rc=$?

fail() {
  echo "FAIL: $1"
  echo "command:  ${command_text}"
  for spec in "${expectations[@]}"; do
    echo "expected: exit ${spec%%:*}, output matching /${spec#*:}/"
  done
  for regex in "${required[@]+"${required[@]}"}"; do
    echo "expected: output also matching /${regex}/"
  done
  for regex in "${forbidden[@]+"${forbidden[@]}"}"; do
    echo "expected: output not matching /${regex}/"
  done
  echo "got:      exit ${rc}, output:"
  printf '%s\n' "${output}" | sed 's/^/  | /'
  exit 1
}
command_text="$(printf '%q ' "$@")"
command_text="${command_text% }"

matched=0
for spec in "${expectations[@]}"; do
  code="${spec%%:*}"
  regex="${spec#*:}"
  if [ "$rc" -eq "$code" ] && grep -Eq -- "$regex" <<<"$output"; then
    matched=1
    break
  fi
done
[ "$matched" -eq 1 ] || fail "exit code or output not as expected"

for regex in "${required[@]+"${required[@]}"}"; do
  if ! grep -Eq -- "$regex" <<<"$output"; then
    fail "output does not match /${regex}/"
  fi
done

for regex in "${forbidden[@]+"${forbidden[@]}"}"; do
  if grep -Eq -- "$regex" <<<"$output"; then
    fail "output matches the forbidden /${regex}/"
  fi
done

if [ "$one_line" -eq 1 ] && [ "$(printf '%s\n' "$output" | wc -l)" -ne 1 ]; then
  fail "the output is not exactly one line"
fi

if [ -n "$fast_ms" ] && [ -n "${GPUPROBE_EXPECT_NO_TIMING:-}" ]; then
  echo "timing: not checked (GPUPROBE_EXPECT_NO_TIMING)"
elif [ -n "$fast_ms" ]; then
  runs=5
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do
    "$@" >/dev/null 2>&1
  done
  end=$(date +%s%N)
  mean_us=$(((end - start) / runs / 1000))
  if [ "$mean_us" -ge $((fast_ms * 1000)) ]; then
    fail "too slow: mean of ${runs} runs $((mean_us / 1000)).$(printf '%03d' $((mean_us % 1000))) ms, limit ${fast_ms} ms (does it initialise CUDA?)"
  fi
  echo "timing: mean of ${runs} runs $((mean_us / 1000)).$(printf '%03d' $((mean_us % 1000))) ms (limit ${fast_ms} ms)"
fi

echo "ok: exit ${rc}: ${command_text}"
exit 0
