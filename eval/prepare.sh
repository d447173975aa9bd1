#!/bin/sh
# Make every case's repository available offline for `council bench run eval/cases --cache DIR`.
#
# usage: eval/prepare.sh [MIRRORS] [CACHE] [DATASET]
#   MIRRORS  directory of local git mirrors, one per repository, at MIRRORS/<owner>+<name>/repo
#            (a git directory, as the fetch tool leaves them); default /work/.mirror
#   CACHE    the directory later given to `council bench run --cache`; default ./eval-cache
#   DATASET  the dataset directory whose samples to prepare; default eval/cases (eval/feedback
#            is the other)
#
# council bench run uses CACHE/<owner>/<name> (the sample's repo.name) for a sample without
# repo.path. It opens it as a git work tree (it needs CACHE/<owner>/<name>/.git) and fetches
# repo.url into it only when the sample's base or head commit is missing. This script makes
# that directory with `git init` and borrows the mirror's objects through
# .git/objects/info/alternates, so base and head are present and nothing is fetched.
#
# Alternates, not a fetch: the mirrors are snapshots that lack blobs of 4 MiB and more (for
# example tsdb/testdata/20kseries.json in prometheus), so `git fetch` from them fails with
# "unable to read <blob>". With alternates only the objects the review actually reads must be
# there. The cache stays valid as long as MIRRORS stays where it is.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
mirrors=${1:-/work/.mirror}
cache=${2:-./eval-cache}
dataset=${3:-$here/cases}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
mirrors=$(cd "$mirrors" && pwd)

field() { # field NAME FILE: the first "NAME": "value" string of a case file
	sed -n "s/^ *\"$1\": \"\([^\"]*\)\".*/\1/p" "$2" | head -n 1
}

n=0
for f in "$dataset"/*.json; do
	id=$(basename "$f" .json)
	[ "$id" = import ] && continue
	name=$(field name "$f")
	base=$(field base "$f")
	head=$(field head "$f")
	merge=$(field merge "$f")
	src="$mirrors/$(echo "$name" | tr / +)/repo"
	dst="$cache/$name"
	if [ -d "$src/.git" ]; then # a non-bare clone works too
		src="$src/.git"
	fi
	if [ ! -d "$src/objects" ]; then
		echo "prepare: $id: no mirror of $name at $src" >&2
		exit 1
	fi
	if [ ! -d "$dst/.git" ]; then
		mkdir -p "$dst"
		git -C "$dst" init -q
	fi
	alt="$dst/.git/objects/info/alternates"
	if ! grep -qxF "$src/objects" "$alt" 2>/dev/null; then
		echo "$src/objects" >>"$alt"
	fi
	for sha in $base $head $merge; do
		if ! git -C "$dst" cat-file -e "$sha^{commit}"; then
			echo "prepare: $id: commit $sha is not in $src" >&2
			exit 1
		fi
	done
	# Keep the commits referenced, so that no gc in the cache ever drops what it relies on.
	git -C "$dst" update-ref "refs/eval/$id/base" "$base"
	git -C "$dst" update-ref "refs/eval/$id/head" "$head"
	git -C "$dst" update-ref "refs/eval/$id/merge" "$merge"
	# The diff must be readable: every blob that base..head changes must be in the mirror.
	git -C "$dst" diff --quiet "$base" "$head" -- 2>/dev/null && {
		echo "prepare: $id: base and head have the same tree" >&2
		exit 1
	}
	git -C "$dst" diff --stat "$base" "$head" >/dev/null
	n=$((n + 1))
	echo "prepare: $id: $name ready in $dst ($(git -C "$dst" diff --shortstat "$base" "$head" | sed 's/^ *//'))"
done
echo "prepare: $n cases ready under $cache"
