package cli

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/council-dev/council/internal/github/githubtest"
	"github.com/council-dev/council/internal/store/storetest"
)

// BenchmarkServeWebhooks measures what one web process (`council serve --role web`) accepts:
// signed pull_request deliveries, each verified, recorded and queued as a review job, from 16
// concurrent senders in the same process (so both share this machine's cores). It reports
// deliveries per second and the latency percentiles a sender saw.
//
//	go test ./internal/cli -run '^$' -bench BenchmarkServeWebhooks -benchtime 2000x
func BenchmarkServeWebhooks(b *testing.B) {
	for _, db := range []string{"sqlite", "postgres"} {
		b.Run(db, func(b *testing.B) {
			url := storetest.SQLiteURL(b)
			if db == "postgres" {
				url = storetest.PostgresURL(b)
			}
			env := map[string]string{
				"GITHUB_WEBHOOK_SECRET": serveSecret, "COUNCIL_DATABASE_URL": url, "COUNCIL_ADDR": freeAddr(b),
				"COUNCIL_ROLE": "web", "COUNCIL_LOG_LEVEL": "warn",
			}
			base, _ := serveInProcess(b, env)
			gh := &githubtest.Server{WebURL: "http://github.example"}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
			var (
				mu        sync.Mutex
				latencies = make([]time.Duration, 0, b.N)
				seq       atomic.Int64
				failed    atomic.Int64
			)
			b.SetParallelism(8)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := seq.Add(1)
					// 1,000 pull requests: most deliveries queue a job, some find one queued.
					body := gh.PullRequestPayload("synchronize", "acme", "inventory", int(i%1000)+1, fmt.Sprintf("%040x", i), false, serveInstallation)
					t0 := time.Now()
					code, err := githubtest.Deliver(context.Background(), client, base+"/webhook", serveSecret, "pull_request", fmt.Sprintf("bench-%d", i), body)
					d := time.Since(t0)
					if err != nil || code != http.StatusAccepted {
						failed.Add(1)
					}
					mu.Lock()
					latencies = append(latencies, d)
					mu.Unlock()
				}
			})
			elapsed := time.Since(start)
			b.StopTimer()
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d of %d deliveries were not accepted", n, b.N)
			}
			sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
			b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
