package server

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are what GET /metrics serves (docs/server.md lists them).
type metrics struct {
	reg        *prometheus.Registry
	webhooks   *prometheus.CounterVec // by event and outcome
	running    prometheus.Gauge       // review jobs running in this process
	reviews    *prometheus.CounterVec // finished review runs by status
	latency    prometheus.Histogram   // seconds from job start to posted review
	tokens     *prometheus.CounterVec // by kind: input, output, cache_read, cache_write
	cost       prometheus.Counter     // USD
	errors     *prometheus.CounterVec // by service (github, provider) and kind
	deliveries prometheus.Histogram   // webhook handling seconds
	jobs       *prometheus.GaugeVec   // queue jobs by state, read at scrape time
	jobCounts  func(ctx context.Context) (map[string]int64, error)
}

func newMetrics(jobCounts func(ctx context.Context) (map[string]int64, error)) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "council_webhook_deliveries_total", Help: "Webhook deliveries by event and outcome (accepted, duplicate, ignored, bad_signature, too_large, bad_request, error).",
		}, []string{"event", "outcome"}),
		running: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "council_review_jobs_running", Help: "Review jobs this process is running.",
		}),
		reviews: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "council_reviews_total", Help: "Finished review runs by status (succeeded, skipped, failed).",
		}, []string{"status"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "council_review_duration_seconds", Help: "Seconds one review run takes, from the job's start to its last post.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200},
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "council_model_tokens_total", Help: "Model tokens by kind (input, output, cache_read, cache_write).",
		}, []string{"kind"}),
		cost: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "council_model_cost_usd_total", Help: "What the reviews cost, in US dollars, at the configured prices.",
		}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "council_errors_total", Help: "GitHub and model provider errors by kind.",
		}, []string{"service", "kind"}),
		deliveries: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "council_webhook_seconds", Help: "Seconds to verify, record and enqueue one webhook delivery.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}),
		jobs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "council_jobs", Help: "Jobs in the queue by state (available, scheduled, retryable, running, completed, discarded, cancelled), all processes.",
		}, []string{"state"}),
		jobCounts: jobCounts,
	}
	m.reg.MustRegister(m.webhooks, m.running, m.reviews, m.latency, m.tokens, m.cost, m.errors, m.deliveries,
		jobsCollector{m}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// jobsCollector reads the queue's job counts from the database when scraped, so that every
// process reports the same, whole queue.
type jobsCollector struct{ m *metrics }

func (c jobsCollector) Describe(ch chan<- *prometheus.Desc) { c.m.jobs.Describe(ch) }

func (c jobsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.m.jobCounts(ctx)
	if err != nil {
		return // the scrape shows no queue figures rather than wrong ones
	}
	c.m.jobs.Reset()
	for _, state := range []string{"available", "scheduled", "retryable", "pending", "running", "completed", "discarded", "cancelled"} {
		c.m.jobs.WithLabelValues(state).Set(float64(counts[state]))
	}
	c.m.jobs.Collect(ch)
}
