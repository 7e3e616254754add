#!/usr/bin/env bash
# Runs the examples of docs/cli.md that need no GPU and no kernel compile (CI has neither): every
# `$ boo ...` line of a ```console block whose subcommand is parse, codegen, cache, `preload
# --list` or `driver --backend reference`, in a scratch folder (with the repository's bench/,
# samples/ and tests/ linked in) and a scratch kernel cache. An example whose next line starts
# with "boo <subcommand>: error" must exit 2; every other one must exit 0.
# Usage: cli_examples.sh BOO_BINARY REPOSITORY_ROOT
set -uo pipefail
boo_bin=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/run" "$work/home"
ln -s "$boo_bin" "$work/bin/boo"
for d in bench samples tests; do ln -s "$root/$d" "$work/run/$d"; done
export PATH="$work/bin:$PATH" BOO_CACHE_DIR="$work/cache" HOME="$work/home"
unset XDG_CACHE_HOME

runnable() {
  case "$1" in
    "boo parse "* | "boo codegen "* | "boo cache "* | "boo preload --list "*) return 0 ;;
    "boo driver --backend reference "*) return 0 ;;
  esac
  return 1
}

ran=0 failed=0 skipped=0
mapfile -t lines < <(awk '/^```console/{c=1; next} /^```/{c=0} c' "$root/docs/cli.md")
for i in "${!lines[@]}"; do
  line=${lines[$i]}
  [[ $line == '$ boo '* ]] || continue
  cmd=${line#\$ }
  if ! runnable "$cmd"; then
    skipped=$((skipped + 1))
    continue
  fi
  want=0
  next=${lines[$((i + 1))]:-}
  [[ $next =~ ^boo\ [a-z-]+:\ error ]] && want=2
  (cd "$work/run" && bash -c "$cmd") >"$work/out" 2>&1
  got=$?
  ran=$((ran + 1))
  if [ "$got" -ne "$want" ]; then
    failed=$((failed + 1))
    echo "FAIL (exit $got, want $want): $cmd"
    head -20 "$work/out"
  else
    echo "ok: $cmd"
  fi
done
echo "docs/cli.md examples: $ran ran, $failed failed, $skipped need a GPU or compiles (not run)"
[ "$ran" -gt 0 ] && [ "$failed" -eq 0 ]
