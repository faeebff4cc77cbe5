#!/usr/bin/env bash
# Include cost of privet's public headers: for each layer's umbrella header
# (and for examples/quickstart.cpp), the preprocessed line count, the CPU
# seconds to parse it (-fsyntax-only) and, for the quick start, to compile
# it at -O2, with the compiler's peak memory. Run from anywhere:
#   bash bench/compile_cost.sh [compiler]      (default: c++)
# CPU seconds are user + system time of the compiler (GNU time), so they do
# not depend on how loaded the machine is as much as wall time does; quote
# `uptime` with the numbers anyway.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cxx="${1:-c++}"
flags=(-std=c++20 -I"$root/include" -I/usr/include/eigen3 -I/usr/include/kissfft)
measure() {  # measure <label> <source file> <extra flags...>
  local label=$1 src=$2
  shift 2
  local lines
  lines=$("$cxx" "${flags[@]}" -E "$src" | wc -l)
  local t
  t=$({ /usr/bin/time -f "%U %S %M" "$cxx" "${flags[@]}" "$@" "$src" -o /dev/null; } 2>&1 | tail -1)
  read -r user sys kb <<<"$t"
  printf "| %-42s | %8d | %6.2f | %5d |\n" "$label" "$lines" "$(echo "$user + $sys" | bc)" \
    "$((kb / 1024))"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "compiler: $("$cxx" --version | head -1); $(uptime)"
echo
echo "| header / file                              | lines    | CPU s  | MB    |"
echo "| ------------------------------------------ | -------- | ------ | ----- |"
# Each layer's umbrella header (crypto has none: paillier.hpp is its core).
for h in core/core mechanisms/mechanisms accounting/accounting sketches/sketches \
  crypto/paillier ml/ml algorithms/algorithms; do
  echo "#include <privet/$h.hpp>" >"$tmp/${h%%/*}.cpp"
  measure "<privet/$h.hpp> (parse)" "$tmp/${h%%/*}.cpp" -fsyntax-only
done
echo "#include <privet/privet.hpp>" >"$tmp/privet.cpp"
measure "<privet/privet.hpp> (parse)" "$tmp/privet.cpp" -fsyntax-only
measure "examples/quickstart.cpp (-O2)" "$root/examples/quickstart.cpp" -O2 -c
