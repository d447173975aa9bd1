package bench

import (
	"strings"
	"testing"
)

func TestSampleValidateNamesTheField(t *testing.T) {
	t.Parallel()
	good := func() Sample {
		return Sample{SampleVersion: SampleVersion, ID: "acme-widget-7", Repo: Repo{URL: "https://example.com/acme/widget.git"},
			Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40),
			Truth: []Truth{{ID: "1", Path: "a.go", Line: 3, Side: "RIGHT", Kind: "bug", Body: "x", Source: SourceFeedback}}}
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("a valid sample: %v", err)
	}
	for _, tt := range []struct {
		name   string
		break_ func(*Sample)
		want   string
	}{
		{"source", func(s *Sample) { s.Truth[0].Source = "commit" }, `truth[0].source "commit": must be "feedback" or left out`},
		{"side", func(s *Sample) { s.Truth[0].Side = "UP" }, `truth[0].side "UP"`},
		{"kind", func(s *Sample) { s.Truth[0].Kind = "nit" }, `truth[0].kind "nit"`},
		{"head", func(s *Sample) { s.Head = "main" }, `head "main": must be a full commit SHA`},
	} {
		s := good()
		tt.break_(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}
