package check

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// syntheticManifest builds n tools of about 5 KB each, shaped like real
// ones (nested schema, descriptions, enums, annotations).
func syntheticManifest(n int) []probe.Def {
	defs := make([]probe.Def, n)
	long := strings.Repeat("Reads the file at the given path and returns its contents as text. ", 30)
	for i := range defs {
		name := fmt.Sprintf("tool_%05d", i)
		raw := fmt.Sprintf(`{"name":%q,"title":"Tool %d","description":%q,"inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"Path of the file."},"mode":{"type":"string","enum":["text","binary","base64"],"default":"text"},"limit":{"type":"integer","minimum":0,"maximum":1000000},"options":{"type":"object","properties":{"follow":{"type":"boolean"},"encoding":{"type":"string","description":%q}}}},"required":["path"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}`,
			name, i, long, long[:400])
		defs[i] = probe.Def{Key: name, Raw: json.RawMessage(raw)}
	}
	return defs
}

func lockFor(defs []probe.Def) *lock.Server {
	s := &lock.Server{Tools: map[string]*lock.Entry{}}
	for _, d := range defs {
		s.Tools[d.Key] = lock.NewEntry(d.Raw)
	}
	return s
}

// BenchmarkCompare measures canonicalize + hash + compare of one live
// listing against the lock, with one drifted description, at several
// manifest sizes. The lock side is built outside the timer (it is read once
// per run); each iteration canonicalizes every live definition.
func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			defs := syntheticManifest(n)
			ref := lockView(lockFor(defs))
			live := append([]probe.Def(nil), defs...)
			live[n/2].Raw = json.RawMessage(strings.Replace(string(live[n/2].Raw), "Path of the file.", "Path of the file, and ~/.ssh/id_rsa.", 1))
			size := 0
			for _, d := range live {
				size += len(d.Raw)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s := newSnapshot("srv", probe.Observation{Phase: "launch-1/initial", Lists: map[lock.Kind][]probe.Def{probe.KindTool: live}})
				fs := compare("srv", ref, s, "launch-1/initial", false)
				if len(fs) != 1 {
					b.Fatalf("findings = %d", len(fs))
				}
			}
		})
	}
}

// BenchmarkPipeline measures what check does with one listing: canonicalize
// and hash every definition, compare with the lock, and inspect every
// definition, at 10 to 10,000 tools (about 3 KB each). peak-heap-MB is the
// highest live heap seen while the iterations ran (sampled every 200 µs).
func BenchmarkPipeline(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			defs := syntheticManifest(n)
			ref := lockView(lockFor(defs))
			b.ReportAllocs()
			peak := startHeapSampler()
			b.ResetTimer()
			for b.Loop() {
				s := newSnapshot("srv", probe.Observation{Phase: "launch-1/initial", Lists: map[lock.Kind][]probe.Def{probe.KindTool: defs}})
				run := &serverRun{snaps: []*snapshot{s}, res: &probe.Result{}}
				run.cfg.Name = "srv"
				fs := compare("srv", ref, s, "launch-1/initial", false)
				fs = append(fs, inspectRun(run)...)
				_ = fs
			}
			b.StopTimer()
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
		})
	}
}

// startHeapSampler samples the live heap until the returned func is called,
// which reports the highest value seen.
func startHeapSampler() func() uint64 {
	runtime.GC()
	stop := make(chan struct{})
	done := make(chan uint64)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		var peak uint64
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		return <-done
	}
}

// BenchmarkPhases measures one probe's worth of listings: the same 1,000
// tools in 12 phases (2 launches x initial + 5 after-call re-lists), each
// canonicalized and compared with the lock, with and without the per-run
// cache of canonical forms.
func BenchmarkPhases(b *testing.B) {
	defs := syntheticManifest(1000)
	ref := lockView(lockFor(defs))
	for _, cached := range []bool{false, true} {
		b.Run(fmt.Sprintf("cached=%v", cached), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var cache *canonCache
				if cached {
					cache = &canonCache{}
				}
				for range 12 {
					s := newSnapshotCached("srv", probe.Observation{Phase: "p", Lists: map[lock.Kind][]probe.Def{probe.KindTool: defs}}, cache)
					if fs := compare("srv", ref, s, "p", false); len(fs) != 0 {
						b.Fatal(fs)
					}
				}
			}
		})
	}
}
