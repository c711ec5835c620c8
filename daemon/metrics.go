package daemon

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// metrics are the daemon's Prometheus metrics, in a registry of its own (see Daemon.Registry).
type metrics struct {
	reg        *prometheus.Registry
	queued     *prometheus.GaugeVec
	inflight   *prometheus.GaugeVec
	completed  *prometheus.CounterVec
	failed     *prometheus.CounterVec
	cancelled  *prometheus.CounterVec
	partitions *prometheus.CounterVec
	rejected   *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	queueWait  *prometheus.HistogramVec
}

// proofBuckets span a WinningPoSt (about a second) to a 64 GiB PoRep (minutes): 0.25 s to 512 s.
var proofBuckets = prometheus.ExponentialBuckets(0.25, 2, 12)

func newMetrics(d *Daemon) *metrics {
	kind := []string{"proof_kind"}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cuzk_queue_depth",
			Help: "Jobs queued and not yet started."}, kind),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cuzk_jobs_in_flight",
			Help: "Jobs the backend is proving."}, kind),
		completed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_proofs_completed_total",
			Help: "Jobs that ended with a proof."}, kind),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_proofs_failed_total",
			Help: "Jobs that ended with an error."}, kind),
		cancelled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_proofs_cancelled_total",
			Help: "Jobs cancelled by CancelProof or shutdown."}, kind),
		partitions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_partitions_proved_total",
			Help: "Partition proofs (192 bytes each) delivered; rate() of it is partitions per second."}, kind),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_requests_rejected_total",
			Help: "Proof requests refused at submission, by reason."}, []string{"reason"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cuzk_proof_duration_seconds",
			Help: "Submission to completion of completed jobs, seconds.", Buckets: proofBuckets}, kind),
		queueWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cuzk_queue_wait_seconds",
			Help: "Submission to start of started jobs, seconds.", Buckets: proofBuckets}, kind),
	}
	for _, k := range Kinds {
		l := k.MetricLabel()
		m.queued.WithLabelValues(l)
		m.inflight.WithLabelValues(l)
		m.completed.WithLabelValues(l)
		m.failed.WithLabelValues(l)
		m.cancelled.WithLabelValues(l)
		m.partitions.WithLabelValues(l)
	}
	m.reg.MustRegister(m.queued, m.inflight, m.completed, m.failed, m.cancelled, m.partitions,
		m.rejected, m.duration, m.queueWait,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cuzk_uptime_seconds", Help: "Seconds since the daemon started."},
			func() float64 { return time.Since(d.started).Seconds() }),
		backendCollector{d.backend},
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(),
	)
	return m
}

// Registry returns the registry holding the daemon's metrics, the process's (resident memory,
// CPU, file descriptors) and the Go runtime's; serve it with promhttp.HandlerFor.
func (d *Daemon) Registry() *prometheus.Registry { return d.metrics.reg }

// MetricsText returns the metrics in the Prometheus text exposition format.
func (d *Daemon) MetricsText() (string, error) {
	mfs, err := d.metrics.reg.Gather()
	if err != nil {
		return "", fmt.Errorf("gather metrics: %w", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return "", fmt.Errorf("encode metric %s: %w", mf.GetName(), err)
		}
	}
	return buf.String(), nil
}

// backendCollector exports the backend's device and memory status at each scrape. It is an
// unchecked collector: the GPUs and circuits are known only when scraped.
type backendCollector struct{ b Backend }

var (
	gpuUtilDesc = prometheus.NewDesc("cuzk_gpu_utilization_ratio",
		"Fraction of recent time the GPU computed, 0..1, as the backend measures it.", []string{"gpu", "name"}, nil)
	gpuVRAMTotalDesc = prometheus.NewDesc("cuzk_gpu_vram_total_bytes", "GPU memory, bytes.", []string{"gpu", "name"}, nil)
	gpuVRAMFreeDesc  = prometheus.NewDesc("cuzk_gpu_vram_free_bytes", "Free GPU memory, bytes.", []string{"gpu", "name"}, nil)
	srsBytesDesc     = prometheus.NewDesc("cuzk_srs_loaded_bytes",
		"Host memory of a circuit's parameters known to the backend (the verifying key while the points are mapped from their file), by tier.", []string{"circuit_id", "tier"}, nil)
	pinnedDesc      = prometheus.NewDesc("cuzk_pinned_memory_bytes", "Pinned host memory in use, bytes.", nil, nil)
	pinnedLimitDesc = prometheus.NewDesc("cuzk_pinned_memory_limit_bytes", "Pinned host memory limit, bytes.", nil, nil)
)

func (backendCollector) Describe(chan<- *prometheus.Desc) {}

func (c backendCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.b.Status()
	for _, g := range s.GPUs {
		ord := strconv.FormatUint(uint64(g.Ordinal), 10)
		if g.Utilization >= 0 {
			ch <- prometheus.MustNewConstMetric(gpuUtilDesc, prometheus.GaugeValue, g.Utilization, ord, g.Name)
		}
		ch <- prometheus.MustNewConstMetric(gpuVRAMTotalDesc, prometheus.GaugeValue, float64(g.VRAMTotalBytes), ord, g.Name)
		ch <- prometheus.MustNewConstMetric(gpuVRAMFreeDesc, prometheus.GaugeValue, float64(g.VRAMFreeBytes), ord, g.Name)
	}
	for _, r := range s.SRS {
		ch <- prometheus.MustNewConstMetric(srsBytesDesc, prometheus.GaugeValue, float64(r.SizeBytes), r.Circuit, r.Tier.String())
	}
	if s.PinnedMemoryLimitBytes > 0 || s.PinnedMemoryBytes > 0 {
		ch <- prometheus.MustNewConstMetric(pinnedDesc, prometheus.GaugeValue, float64(s.PinnedMemoryBytes))
		ch <- prometheus.MustNewConstMetric(pinnedLimitDesc, prometheus.GaugeValue, float64(s.PinnedMemoryLimitBytes))
	}
}
