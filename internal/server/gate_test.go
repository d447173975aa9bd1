package server

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// River may take from the head of the queue only jobs this process can start; jobs it has no
// room for move back only when one it has room for waits behind them.
func TestPlan(t *testing.T) {
	t.Parallel()
	const a, b, c = 1, 2, 3 // installations; 0: a job that takes no installation's share
	room := map[int64]int{a: 0, b: 2, c: 1}
	job := func(id, inst int64) queued { return queued{id: id, installation: inst} }
	tests := []struct {
		name     string
		next     []queued
		free     int
		wantTake int
		wantBack []int64
	}{
		{name: "an empty queue", free: 4},
		{name: "room for all", next: []queued{job(1, b), job(2, c), job(3, 0)}, free: 4, wantTake: 3},
		{name: "no more than the free slots", next: []queued{job(1, b), job(2, 0), job(3, 0)}, free: 2, wantTake: 2},
		{name: "an installation's share", next: []queued{job(1, b), job(2, b), job(3, b), job(4, c)}, free: 4, wantTake: 2},
		{name: "stops at the first it has no room for", next: []queued{job(1, c), job(2, c), job(3, b)}, free: 4, wantTake: 1},
		{name: "only jobs it has no room for: nothing moves", next: []queued{job(1, a), job(2, a), job(3, a)}, free: 2},
		{
			name: "another installation's job behind them", next: []queued{job(1, a), job(2, a), job(3, b), job(4, a), job(5, c)},
			free: 2, wantTake: 1, wantBack: []int64{1, 2},
		},
		{
			name: "commands run whatever the share", next: []queued{job(1, a), job(2, 0), job(3, 0), job(4, b)},
			free: 4, wantTake: 3, wantBack: []int64{1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			take, back := plan(tt.next, tt.free, func(inst int64) int { return room[inst] })
			if take != tt.wantTake {
				t.Errorf("take = %d, want %d", take, tt.wantTake)
			}
			if d := cmp.Diff(tt.wantBack, back, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("moved back (-want +got):\n%s", d)
			}
		})
	}
}
