package review

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 30) // 150 characters, no sentence end
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"within the limit, trimmed", "  Fix the lock.\n\nDetails.  ", 100, "Fix the lock.\n\nDetails."},
		{
			"at a paragraph break",
			"First paragraph here.\n\nSecond one is here.\n\nThird one, much longer than the rest of them.",
			45,
			"First paragraph here.\n\nSecond one is here.\n\n[… 1 more paragraph, 45 characters, not shown]",
		},
		{
			"a sentence end when the paragraph break keeps too little",
			"Short.\n\nThis paragraph has a sentence. And another sentence that runs past the limit.",
			50,
			"Short.\n\nThis paragraph has a sentence. [… the rest of this paragraph, 46 characters, not shown]",
		},
		{
			"no sentence end within the limit: a word boundary",
			"Allow UNIX-domain sockets for the listener so that tests do not need ports\n\nMore.",
			30,
			"Allow UNIX-domain sockets for [… the rest of this paragraph and 1 more paragraph, 51 characters, not shown]",
		},
		{
			"never inside a word",
			long, 13,
			"word word [… the rest of this paragraph, 139 characters, not shown]",
		},
		{
			"CJK without spaces: between two characters",
			"这是一个没有空格的很长的句子用来测试截断",
			8,
			"这是一个没有空格 [… the rest of this paragraph, 12 characters, not shown]",
		},
		{
			"CJK sentence end",
			"第一句话很长很长。第二句话很长很长很长很长",
			12,
			"第一句话很长很长。 [… the rest of this paragraph, 12 characters, not shown]",
		},
		{
			"a URL is not cut: the cut comes before it",
			"See https://example.com/a/very/long/path/to/the/design/document for the design.",
			40,
			"See [… the rest of this paragraph, 75 characters, not shown]",
		},
		{
			"one word longer than the limit: nothing kept, all counted",
			"https://example.com/" + strings.Repeat("x", 2000),
			1500,
			"[… 1 paragraph, 2,020 characters, not shown]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tt.want, Excerpt(tt.in, tt.limit)); d != "" {
				t.Errorf("Excerpt(%q, %d) (-want +got):\n%s", tt.in, tt.limit, d)
			}
		})
	}
}

// Whatever the text, what is kept is a prefix of it no longer than the limit, which ends at a
// word boundary, and the note counts every character left out.
func TestExcerptKeepsWholeWords(t *testing.T) {
	t.Parallel()
	texts := []string{
		"The quick brown fox jumps over the lazy dog. It was not amused!\n\nThe dog slept on, unbothered, while the fox ran off into the woods (again).",
		"日本語の文章はスペースを使わない。これは二つ目の文です。そして三つ目。",
		"a\n\n\n\nb c d e f g h i j k l m n o p q r s t u v w x y z " + strings.Repeat("é", 40),
	}
	for _, text := range texts {
		for limit := range utf8.RuneCountInString(text) {
			got := Excerpt(text, limit)
			i := strings.LastIndex(got, "[… ")
			if i < 0 {
				t.Fatalf("Excerpt(%q, %d) = %q: no note", text, limit, got)
			}
			kept := strings.TrimRightFunc(got[:i], unicode.IsSpace)
			if !strings.HasPrefix(text, kept) || utf8.RuneCountInString(kept) > limit {
				t.Fatalf("Excerpt(%q, %d) kept %q: not a prefix within the limit", text, limit, kept)
			}
			rest := text[len(kept):]
			next, _ := utf8.DecodeRuneInString(rest)
			last, _ := utf8.DecodeLastRuneInString(kept)
			if kept != "" && !unicode.IsSpace(next) && !(cjk(last) && cjk(next)) {
				t.Errorf("Excerpt(%q, %d) cut inside a word: %q | %q", text, limit, kept, rest)
			}
			left := utf8.RuneCountInString(strings.TrimSpace(rest))
			if !strings.Contains(got, " "+itoa(left)+" character") {
				t.Errorf("Excerpt(%q, %d) = %q: want %d characters counted", text, limit, got, left)
			}
		}
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		if n /= 10; n == 0 {
			return s
		}
	}
}
