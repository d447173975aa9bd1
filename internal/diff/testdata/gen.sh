#!/usr/bin/env bash
# gen.sh regenerates the .patch fixtures next to it from real git. It is run by hand, never by
# the tests: the fixtures are committed so that the tests do not depend on the local git version.
# Each case builds a throwaway repository with a base and a head commit and records
#   git diff --no-color --no-ext-diff --find-renames --find-copies --full-index -U3 base head
# which is what the source stage runs. After changing it, run it and then
#   go test ./internal/diff/ -update
# to refresh the rendered goldens.
set -euo pipefail

out="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A user's own git config (diff.noprefix, diff.renames, color.ui...) must not leak in.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME="$work"
export GIT_AUTHOR_NAME=fixture GIT_AUTHOR_EMAIL=fixture@example.com
export GIT_COMMITTER_NAME=fixture GIT_COMMITTER_EMAIL=fixture@example.com
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'

# case NAME BASE_FN HEAD_FN [extra git diff flags...]
case_() {
	local name="$1" base="$2" head="$3"
	shift 3
	local repo="$work/$name"
	git init -q -b main "$repo"
	(cd "$repo" && "$base" && git add -A && git commit -q --allow-empty -m base)
	(cd "$repo" && "$head" && git add -A && git commit -q --allow-empty -m head)
	(cd "$repo" && git "$@" diff --no-color --no-ext-diff --find-renames --find-copies \
		--full-index -U3 HEAD~1 HEAD) >"$out/$name.patch"
}

lines() { seq -f "line %g" "$1" "$2"; }
gofile() {
	printf 'package demo\n\nimport "fmt"\n\n// Hello greets.\nfunc Hello(name string) string {\n\treturn fmt.Sprintf("hello %%s", name)\n}\n\n// Bye says goodbye.\nfunc Bye() string {\n\treturn "bye"\n}\n'
}

nothing() { :; }

add_head() { mkdir -p pkg && printf 'package pkg\n\n// Answer is the answer.\nconst Answer = 42\n' >pkg/new.go; }
case_ added nothing add_head

del_base() { mkdir -p pkg && printf 'package pkg\n\nfunc Old() {}\n' >pkg/old.go; }
del_head() { rm pkg/old.go; }
case_ deleted del_base del_head

mod_base() { gofile >demo.go; }
mod_head() { gofile | sed 's/"hello %s"/"hello, %s!"/' >demo.go; }
case_ modified mod_base mod_head

ren_base() { mkdir -p old && gofile >old/demo.go; }
ren_head() { mkdir -p new && git mv old/demo.go new/demo.go; }
case_ rename ren_base ren_head

renedit_head() { mkdir -p new && git mv old/demo.go new/demo.go && gofile | sed 's/"bye"/"goodbye"/' >new/demo.go; }
case_ rename_edit ren_base renedit_head

# git -C only finds copies whose source is itself modified in the same change.
copy_base() { gofile >src.go; }
copy_head() { gofile >copy.go && gofile | sed 's/package demo/package demo \/\/ source/' >src.go; }
case_ copy copy_base copy_head

bin_base() { printf 'PNG\0\1\2\3binary' >logo.png; }
bin_head() { printf 'PNG\0\1\2\3\4binary!' >logo.png; }
case_ binary bin_base bin_head
# The same change with --binary: a "GIT binary patch" literal instead of "Binary files differ".
case_bin_literal() {
	local repo="$work/binary"
	(cd "$repo" && git diff --no-color --no-ext-diff --find-renames --find-copies \
		--full-index --binary -U3 HEAD~1 HEAD) >"$out/binary_literal.patch"
}
case_bin_literal

mode_base() { printf '#!/bin/sh\necho hi\n' >run.sh; }
mode_head() { chmod +x run.sh; }
case_ mode mode_base mode_head

# The old side lacked the final newline, the new side adds one.
nlold_base() { printf 'a\nb\nc' >f.txt; }
nlold_head() { printf 'a\nb\nc\n' >f.txt; }
case_ nonewline_old nlold_base nlold_head

nlnew_base() { printf 'a\nb\nc\n' >f.txt; }
nlnew_head() { printf 'a\nb\nc' >f.txt; }
case_ nonewline_new nlnew_base nlnew_head

# Both sides lack it and the last line changes: the marker follows both - and + lines.
nlboth_base() { printf 'a\nb\nc' >f.txt; }
nlboth_head() { printf 'a\nb\nC' >f.txt; }
case_ nonewline_both nlboth_base nlboth_head

# Both sides lack it and the last line is unchanged context.
nlctx_base() { printf 'a\nb\nc\nd' >f.txt; }
nlctx_head() { printf 'a\nB\nc\nd' >f.txt; }
case_ nonewline_context nlctx_base nlctx_head

sp_base() { mkdir -p 'dir with space' && printf 'one\ntwo\n' >'dir with space/my file.txt'; }
sp_head() { printf 'one\n2\n' >'dir with space/my file.txt'; }
case_ spaces sp_base sp_head

na_base() { mkdir -p 'café' && printf 'un\ndeux\n' >'café/naïve file.go'; }
na_head() { printf 'un\ndeux\ntrois\n' >'café/naïve file.go'; }
case_ nonascii_quoted na_base na_head
case_ nonascii_unquoted na_base na_head -c core.quotePath=false

mh_base() { lines 1 60 >long.txt; }
mh_head() { lines 1 60 | sed -e 's/^line 5$/line five/' -e '/^line 30$/d' -e 's/^line 55$/line 55\nline 55.5/' >long.txt; cp long.txt "$out/multi_hunk.head"; }
case_ multi_hunk mh_base mh_head

emptied_base() { printf 'x\ny\n' >gone.txt; }
emptied_head() { : >gone.txt; }
case_ emptied emptied_base emptied_head

empty_added_head() { : >empty.txt; }
case_ empty_added nothing empty_added_head

# A regular file replaced by a symlink: git emits a deletion and an addition for one path.
tc_base() { printf 'target\n' >link; }
tc_head() { rm link && ln -s elsewhere link; }
case_ typechange tc_base tc_head

same_base() { printf 'same\n' >same.txt; }
case_ empty same_base nothing
