package codecontext

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A BPF program whose change uses a struct, a typedef, a macro and inline functions defined in
// headers of another directory: one it includes, and one that header includes.
const (
	cleanupBase = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "conntrack_types.h"

SEC("tc")
int conntrack_cleanup(struct __sk_buff *skb)
{
	__u32 zero = 0;

	if (!skb)
		return TC_ACT_OK;
	return TC_ACT_OK;
}
`
	ctTypesH = `#ifndef CONNTRACK_TYPES_H
#define CONNTRACK_TYPES_H

#include "conntrack_state.h"

#define CT_TIMEOUT_NS 30000000000ULL

struct ct_entry {
	__u64 last_seen;
	__u32 flags;
};

static inline int ct_expire(struct ct_entry *e, ct_state_t st)
{
	e->flags = st;
	return TC_ACT_SHOT;
}

#endif
`
	ctStateH = `typedef enum {
	CT_NEW,
	CT_ESTABLISHED,
} ct_state_t;

static inline ct_state_t ct_state(struct ct_entry *e)
{
	return e ? CT_ESTABLISHED : CT_NEW;
}
`
	// bpfHelpersH is a copy of a library header the repository carries: <bpf/bpf_helpers.h>
	// resolves to it by its path's tail.
	bpfHelpersH = `static long bpf_ktime_get_ns(void)
{
	return 0;
}
`
)

func cleanupHead(include string) string {
	return strings.NewReplacer(`#include "conntrack_types.h"`, include,
		"\tif (!skb)\n", "\tstruct ct_entry *e = bpf_map_lookup_elem(&ct_map, &zero);\n\tct_state_t st = ct_state(e);\n\n\tif (e && e->last_seen + CT_TIMEOUT_NS < bpf_ktime_get_ns())\n\t\treturn ct_expire(e, st);\n\tif (!skb)\n",
	).Replace(cleanupBase)
}

// The definitions a C file's change uses are found in the headers it includes, by a quoted
// name relative to its directory, else anywhere in the repository by the name's tail, and in
// the headers those include.
func TestBuildCIncludes(t *testing.T) {
	t.Parallel()
	want := []string{
		"include/conntrack_state.h:1-4 definition typedef ct_state_t",
		"include/conntrack_state.h:6-9 definition function ct_state",
		"include/conntrack_types.h:13-17 definition function ct_expire",
		"include/conntrack_types.h:6-6 definition macro CT_TIMEOUT_NS",
		"include/conntrack_types.h:8-11 definition struct ct_entry",
		"lib/bpf/bpf_helpers.h:1-4 definition function bpf_ktime_get_ns",
	}
	tests := []struct {
		name, include string
	}{
		{"by base name, in an include directory", `#include "conntrack_types.h"`},
		{"relative to the file", `#include "../include/conntrack_types.h"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := strings.Replace(cleanupBase, `#include "conntrack_types.h"`, tt.include, 1)
			src, files := repo(map[string]string{
				"bpf/conntrack_cleanup.c":   base,
				"include/conntrack_types.h": ctTypesH,
				"include/conntrack_state.h": ctStateH,
				"lib/bpf/bpf_helpers.h":     bpfHelpersH,
				"other/conntrack_types.h":   "struct ct_entry { int wrong; };\n",
			}, map[string]string{"bpf/conntrack_cleanup.c": cleanupHead(tt.include)})
			got := build(t, src, files, Options{})
			defs := definitionSymbols(got)
			for i, s := range defs { // the heuristic, without cgo, names a typedef'd enum by its keyword
				defs[i] = strings.Replace(s, "definition enum ct_state_t", "definition typedef ct_state_t", 1)
			}
			if d := cmp.Diff(want, defs); d != "" {
				t.Errorf("definitions mismatch (-want +got):\n%s\n%s", d, Render(got))
			}
			if p, n := src.maxReads(); n > 1 {
				t.Errorf("%s read %d times, want once", p, n)
			}
		})
	}
}

func TestResolveInclude(t *testing.T) {
	t.Parallel()
	src := newMemSource(map[string]map[string]string{"head": {
		"src/net/conn.c":      "",
		"src/net/conn.h":      "",
		"src/util/conn.h":     "",
		"include/net/conn.h":  "",
		"include/util/log.h":  "",
		"vendor/lib/log.h":    "",
		"src/net/inner/log.h": "",
	}})
	b := &builder{ctx: t.Context(), src: src, revs: map[string]string{SideHead: "head"}, dirs: make(map[string][]string)}
	tests := []struct {
		inc  include
		want string
	}{
		{include{"conn.h", true}, "src/net/conn.h"},                 // beside the file
		{include{"../util/conn.h", true}, "src/util/conn.h"},        // relative
		{include{"net/conn.h", false}, "src/net/conn.h"},            // <net/conn.h>: by the path's tail, nearest
		{include{"conn.h", false}, "src/net/conn.h"},                // nearest, not include/net/conn.h
		{include{"log.h", true}, "src/net/inner/log.h"},             // by base name, nearest
		{include{"util/log.h", false}, "include/util/log.h"},        // not vendor/lib/log.h
		{include{"missing/log.h", true}, "src/net/inner/log.h"},     // a quoted name falls back to the base name
		{include{"missing/log.h", false}, ""},                       // a system header the repository lacks
		{include{"/usr/include/stdio.h", true}, ""},                 // absolute: never
		{include{"../../../../etc/conn.h", true}, "src/net/conn.h"}, // outside the repository: by its tail
	}
	for _, tt := range tests {
		got, err := b.resolveInclude("src/net/conn.c", tt.inc)
		if err != nil || got != tt.want {
			t.Errorf("resolveInclude(%+v) = %q, %v; want %q", tt.inc, got, err, tt.want)
		}
	}
}
