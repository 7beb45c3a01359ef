#!/usr/bin/env bash
# Fails when a tracked file is a binary (a NUL byte in its first 8 KiB) or larger than 1 MB:
# the repository holds source and generated data, not build outputs. Generated data is allowed
# past the size limit by name (zz_generated*), never as a binary.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}" # a repository to check; default this one
limit=$((1024 * 1024))
bad=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue # deleted in the work tree
  if head -c 8192 "$f" | grep -qaP '\x00'; then
    echo "tracked binary: $f" >&2
    bad=1
    continue
  fi
  size=$(stat -c %s "$f")
  case "$(basename "$f")" in
  zz_generated*) ;;
  *) if [ "$size" -gt "$limit" ]; then
       echo "tracked file over 1 MB: $f ($size bytes)" >&2
       bad=1
     fi ;;
  esac
done < <(git ls-files -z)
if [ "$bad" -ne 0 ]; then
  echo "remove these from git (git rm --cached) and ignore them in .gitignore" >&2
  exit 1
fi
echo "tracked files: no binaries, none over 1 MB"
