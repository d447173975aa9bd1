package benchreport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/council-dev/council/internal/bench"
)

// Chart geometry. The charts are laid out here, in numbers, and drawn by the template, so
// that every label taken from a score goes through html/template's escaping.

// tick is an axis tick: where it is drawn and its label.
type tick struct {
	Pos   float64
	Label string
}

// prChart is one run's precision-recall plane: each tier's micro point with its confidence
// whiskers, and its macro point hollow.
type prChart struct {
	Run          runView
	W, H         float64
	Left, Top    float64
	Right, Bot   float64 // the plot area's right and bottom edges
	MidX, MidY   float64 // where the axis titles go
	XTicks       []tick
	YTicks       []tick
	Curves       []f1Curve
	Points       []prPoint
	LegendX      float64
	LegendY      float64
	LegendMacroY float64
}

type f1Curve struct {
	Points       string
	Label        string
	LabelX, LabY float64
}

type prPoint struct {
	Tier           string
	Label          string // "" when another point at the same spot carries this tier's name
	Micro          bool
	CX, CY         float64
	X1, X2, Y1, Y2 float64 // recall whisker from X1 to X2 at CY; precision whisker from Y1 to Y2 at CX
	LabelX, LabelY float64
	Anchor         string // the label's text-anchor
	Title          string
}

const (
	prW, prH                   = 380.0, 320.0
	prLeft, prRight            = 48.0, 16.0
	prTop, prBottom            = 14.0, 44.0
	legendRowH                 = 16.0
	runNameMax                 = 32
	barPlotH, barTop           = 146.0, 30.0
	barLeft, barRight, barMinW = 44.0, 16.0, 240.0
)

func newPRChart(rv runView, s bench.Score) prChart {
	pw, ph := prW-prLeft-prRight, prH-prTop-prBottom
	x := func(r float64) float64 { return round(prLeft + clamp(r)*pw) }
	y := func(p float64) float64 { return round(prTop + (1-clamp(p))*ph) }
	c := prChart{Run: rv, W: prW, H: prH, Left: prLeft, Top: prTop, Right: prLeft + pw, Bot: prTop + ph,
		MidX: round(prLeft + pw/2), MidY: round(prTop + ph/2)}
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		c.XTicks = append(c.XTicks, tick{x(v), fmt.Sprintf("%.1f", v)})
		c.YTicks = append(c.YTicks, tick{y(v), fmt.Sprintf("%.1f", v)})
	}
	// F1 iso-lines: a point's F1 reads off without arithmetic. P = fR/(2R-f) runs from
	// (f/(2-f), 1) to (1, f/(2-f)).
	for _, f := range []float64{0.2, 0.4, 0.6, 0.8} {
		lo := f / (2 - f)
		var pts []string
		const steps = 32
		for i := 0; i <= steps; i++ {
			r := lo + (1-lo)*float64(i)/steps
			p := f * r / (2*r - f)
			pts = append(pts, fmt.Sprintf("%g,%g", x(r), y(p)))
		}
		c.Curves = append(c.Curves, f1Curve{Points: strings.Join(pts, " "), Label: fmt.Sprintf("F1 %.1f", f),
			LabelX: x(1) - 2, LabY: y(lo) - 3})
	}
	labels := 0
	for _, t := range s.Tiers {
		m := t.Micro
		pt := prPoint{Tier: t.Tier, Label: t.Tier, Micro: true, CX: x(m.Recall), CY: y(m.Precision),
			X1: x(m.RecallCI[0]), X2: x(m.RecallCI[1]), Y1: y(m.PrecisionCI[0]), Y2: y(m.PrecisionCI[1]),
			Title: fmt.Sprintf("%s micro: precision %s, recall %s, F1 %s (TP %d, FP %d, FN %d)", t.Tier,
				withCI(m.Precision, m.PrecisionCI), withCI(m.Recall, m.RecallCI), withCI(m.F1, m.F1CI), t.TP, t.FP, t.FN)}
		// Tiers that land on the same spot (L1 and L3 often do) share one label; close ones
		// alternate above and below so that they stay readable.
		if j := slices.IndexFunc(c.Points, func(o prPoint) bool {
			return o.Label != "" && abs(o.CX-pt.CX) < 4 && abs(o.CY-pt.CY) < 4
		}); j >= 0 {
			c.Points[j].Label += ", " + t.Tier
			pt.Label = ""
		} else {
			// Above right, else below left: clear of the whiskers, and of the macro point,
			// which sits near the micro one.
			pt.LabelX, pt.LabelY, pt.Anchor = pt.CX+7, pt.CY-6, "start"
			if labels%2 == 1 || m.Recall > 0.85 {
				pt.LabelX, pt.LabelY, pt.Anchor = pt.CX-7, pt.CY+14, "end"
			}
			labels++
		}
		c.Points = append(c.Points, pt)
	}
	for _, t := range s.Tiers {
		m := t.Macro
		c.Points = append(c.Points, prPoint{Tier: t.Tier, CX: x(m.Recall), CY: y(m.Precision),
			Title: fmt.Sprintf("%s macro: precision %s, recall %s, F1 %s", t.Tier,
				withCI(m.Precision, m.PrecisionCI), withCI(m.Recall, m.RecallCI), withCI(m.F1, m.F1CI))})
	}
	c.LegendX, c.LegendY = c.Right-150, prTop+12
	c.LegendMacroY = c.LegendY + legendRowH
	return c
}

// barChart is recall by kind, one group of bars per kind, one bar per run, one layer per
// tier: the tier selector shows one layer.
type barChart struct {
	W, H        float64
	Left, Right float64
	Top, Bot    float64
	MidY        float64
	YTicks      []tick
	Groups      []barGroup
	Layers      []barLayer
	Legend      []legendItem
	Rotate      bool // kind labels are tilted when the groups are too narrow for them
}

type barGroup struct {
	Label  string
	X, Y   float64
	Center float64
}

type barLayer struct {
	tiered
	Bars []bar
}

type bar struct {
	Kind, Run      string
	Class          string
	X, Y, W, H     float64
	Label          string
	LabelX, LabelY float64
	Title          string
}

type legendItem struct {
	Name, Full string
	Class      string
	X, Y       float64
}

func newBarChart(runs []runView, scores []bench.Score, allTiers []string, def string) *barChart {
	var kinds []string
	for _, s := range scores {
		for _, rates := range s.ByKind {
			for _, r := range rates {
				if !slices.Contains(kinds, r.Group) {
					kinds = append(kinds, r.Group)
				}
			}
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	slices.Sort(kinds)
	bw := 22.0
	if len(runs) > 3 {
		bw = 14
	}
	// Few kinds get room for their labels level; many are tilted to fit a laptop's width.
	gw := max(72, float64(len(runs))*bw+24)
	if len(kinds) <= 6 {
		gw = max(gw, 100)
	}
	legendW := barLeft
	for _, r := range runs {
		legendW += 24 + 7*float64(len([]rune(r.Short)))
	}
	w := round(max(barMinW, legendW, barLeft+float64(len(kinds))*gw+barRight))
	c := &barChart{W: w, Left: barLeft, Right: w - barRight, Top: barTop, Bot: barTop + barPlotH, Rotate: gw < 96}
	// Tilted labels hang lower than level ones.
	c.H = c.Bot + 26
	if c.Rotate {
		c.H = c.Bot + 70
	}
	ph := c.Bot - c.Top
	c.MidY = round(c.Top + ph/2)
	y := func(v float64) float64 { return round(c.Top + (1-clamp(v))*ph) }
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		c.YTicks = append(c.YTicks, tick{y(v), fmt.Sprintf("%.1f", v)})
	}
	for i, k := range kinds {
		gx := barLeft + float64(i)*gw
		c.Groups = append(c.Groups, barGroup{Label: k, Center: round(gx + gw/2), X: round(gx + gw/2), Y: c.Bot + 14})
	}
	for _, t := range allTiers {
		layer := barLayer{tiered: tieredOf([]string{t}, def)}
		for i, k := range kinds {
			gx := barLeft + float64(i)*gw + (gw-float64(len(runs))*bw)/2
			for j, s := range scores {
				rates, ok := s.ByKind[t]
				if !ok {
					continue
				}
				rt, ok := rateOf(rates, k)
				if !ok {
					continue
				}
				bx := gx + float64(j)*bw
				by := y(rt.Recall)
				layer.Bars = append(layer.Bars, bar{Kind: k, Run: runs[j].Name, Class: runs[j].Class,
					X: round(bx + 1), Y: by, W: bw - 2, H: round(c.Bot - by),
					Label: fmt.Sprintf("%d/%d", rt.Hits, rt.Total), LabelX: round(bx + bw/2), LabelY: by - 3,
					Title: fmt.Sprintf("%s, %s, %s: recall %s", k, runs[j].Name, t, rateText(rt))})
			}
		}
		c.Layers = append(c.Layers, layer)
	}
	lx := barLeft
	for _, r := range runs {
		c.Legend = append(c.Legend, legendItem{Name: r.Short, Full: r.Name, Class: r.Class, X: lx, Y: 12})
		lx += 24 + 7*float64(len([]rune(r.Short)))
	}
	return c
}

func abs(v float64) float64 { return max(v, -v) }

func clamp(v float64) float64 { return min(1, max(0, v)) }

// round keeps coordinates to a tenth of a pixel: shorter output, and no float noise in goldens.
func round(v float64) float64 {
	if v < 0 {
		return -float64(int64(-v*10+0.5)) / 10
	}
	return float64(int64(v*10+0.5)) / 10
}

// short cuts a name for a chart label; the full name goes in the tooltip.
func short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
