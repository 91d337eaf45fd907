#!/usr/bin/env bash
# Vendor the pinned actions for the workflow-engine tests (tracker/tests/test_workflows_engine.py):
# each action of docs/action-pins.md as a git pack of its pinned commit, its trees and the blobs a
# run needs, read from a local git copy of the action's repository. A pack proves what it holds:
# git names every object by its content, so the commit the pin names, present in the pack, fixes
# every tree and blob under it. The tests unpack it (tracker/tests/engine/actions.py).
#
#   scripts/vendor-actions.sh --mirrors DIR     DIR/<owner>+<name>/repo is a git copy of each
#                                               action's repository (GitHub's, e.g. a mirror)
#
# Some repository copies lack their largest blobs (the bundled dist/*.js of the artifact
# actions). Those are rebuilt from the pinned commit's own sources and lock file (npm ci, then the
# action's ncc build): when the rebuild's blob id equals the one the commit names, it goes into
# the pack like any other; when it does not, it is kept beside the pack as a plain file and
# actions.toml says so (`built`), with both ids.
set -euo pipefail
cd "$(dirname "$0")/.."

mirrors=
while [ $# -gt 0 ]; do
  case $1 in
    --mirrors) mirrors=${2:?--mirrors takes a directory}; shift 2 ;;
    *) echo "vendor-actions: unknown argument $1 (expected --mirrors DIR)" >&2; exit 2 ;;
  esac
done
[ -n "$mirrors" ] || { echo "vendor-actions: --mirrors DIR is required" >&2; exit 2; }

out=tracker/tests/engine/actions
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/vendor-actions.XXXXXX")
trap 'rm -rf "$work"' EXIT
manifest=$work/actions.toml
{
  echo "# The pinned actions the workflow-engine tests run, written by scripts/vendor-actions.sh."
  echo "# Each pack holds the pinned commit, all its trees and the blobs below \`paths\`; \`built\`"
  echo "# maps a path whose blob the repository copy lacked and whose rebuild differs to its file."
} > "$manifest"

# owner/name tag paths (globs under the commit's root) [build: "dir-with-package.json entry out"]
vendor() {
  local action=$1 tag=$2 paths=$3 build=${4:-}
  local git_dir="$mirrors/${action/\//+}/repo" name=${action/\//--}
  local sha; sha=$(git -C "$git_dir" rev-parse "$tag^{commit}")
  local pins; pins=$(grep -F "| \`$action\` | $tag | \`$sha\` |" docs/action-pins.md || true)
  [ -n "$pins" ] || { echo "vendor-actions: $action $tag ($sha) is not a row of docs/action-pins.md" >&2; exit 1; }
  local repo=$work/$name.git
  git init -q --bare "$repo"
  echo "$git_dir/objects" > "$repo/objects/info/alternates"
  local objects=$work/$name.objects built_toml=
  { echo "$sha"; git -C "$git_dir" rev-parse "$sha^{tree}"
    git -C "$git_dir" ls-tree -r -t --full-tree "$sha" | awk '$2 == "tree" {print $3}'; } > "$objects"
  # shellcheck disable=SC2086 # paths is a list of globs for git
  while read -r _ type blob path; do
    [ "$type" = blob ] || continue
    if git -C "$git_dir" cat-file -e "$blob" 2>/dev/null; then
      echo "$blob" >> "$objects"; continue
    fi
    [ -n "$build" ] || { echo "vendor-actions: $action $tag lacks $path and has no build" >&2; exit 1; }
    local src=$work/$name.src
    if [ ! -d "$src" ]; then  # the commit's own tree, as far as the copy has it
      mkdir -p "$src"
      git -C "$git_dir" ls-tree -r --full-tree "$sha" | while read -r _ _ o p; do
        git -C "$git_dir" cat-file -e "$o" 2>/dev/null || continue
        mkdir -p "$src/$(dirname "$p")"; git -C "$git_dir" cat-file blob "$o" > "$src/$p"
      done
      (cd "$src" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    fi
    local entry; entry=$(awk -v p="$path" '$1 == p {print $2}' <<< "$build")
    [ -n "$entry" ] || { echo "vendor-actions: no build entry for $action $path" >&2; exit 1; }
    (cd "$src" && node node_modules/@vercel/ncc/dist/ncc/cli.js build "$entry" -o "$work/$name.build" >/dev/null)
    local made; made=$(git -C "$repo" hash-object -w "$work/$name.build/index.js")
    if [ "$made" = "$blob" ]; then
      echo "vendor-actions: $action $tag $path rebuilt byte for byte ($blob)"
      echo "$blob" >> "$objects"
    else
      local file="$name--$tag.${path//\//-}"
      cp "$work/$name.build/index.js" "$out/$file"
      echo "vendor-actions: $action $tag $path rebuilt from its sources differs: release $blob, ours $made (kept as $file)"
      built_toml+="\"$path\" = { file = \"$file\", release_blob = \"$blob\", built_blob = \"$made\" }, "
    fi
  done < <(git -C "$git_dir" ls-tree -r --full-tree "$sha" -- $paths)
  local pack; pack=$(git -C "$repo" pack-objects -q --window=50 "$work/$name" < "$objects")
  mv "$work/$name-$pack.pack" "$out/$name--$tag.pack"
  chmod 644 "$out/$name--$tag.pack"
  {
    echo
    echo "[[action]]"
    echo "repo = \"$action\""
    echo "tag = \"$tag\""
    echo "sha = \"$sha\""
    echo "pack = \"$name--$tag.pack\""
    # shellcheck disable=SC2086 # one quoted TOML string per path
    echo "paths = [$(printf '"%s", ' $paths | sed 's/, $//')]"
    [ -z "$built_toml" ] || echo "built = { ${built_toml%, } }"
  } >> "$manifest"
  echo "vendor-actions: $action $tag = $sha ($(du -h "$out/$name--$tag.pack" | cut -f1))"
}

vendor actions/checkout v7.0.1 "action.yml LICENSE .licenses dist"
vendor actions/cache v5.0.5 "action.yml LICENSE .licenses dist/restore dist/save"
vendor actions/upload-artifact v6.0.0 "action.yml LICENSE .licenses dist/upload" \
  "dist/upload/index.js src/upload/index.ts"
vendor actions/download-artifact v8.0.1 "action.yml LICENSE .licenses dist" \
  "dist/index.js src/download-artifact.ts"
vendor actions/github-script v8.0.0 "action.yml LICENSE.md .licenses dist"
# No licence file at this tag: the repository's MIT licence (LICENSE.txt on its default branch)
# is vendored beside the pack.
vendor benchmark-action/github-action-benchmark v1.22.0 "action.yml package.json dist node_modules"
git -C "$mirrors/benchmark-action+github-action-benchmark/repo" show HEAD:LICENSE.txt \
  > "$out/benchmark-action--github-action-benchmark.LICENSE.txt"
cp "$manifest" "$out/actions.toml"
echo "vendor-actions: wrote $out/actions.toml"
