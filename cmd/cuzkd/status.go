package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	cuzkv1 "github.com/cuzk-go/cuzk/proto/cuzk/v1"
)

func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("status", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "unix:///run/curio/cuzk.sock", "daemon address, unix:///path.sock or host:port")
	asJSON := fl.Bool("json", false, "print the GetStatus response as JSON")
	metrics := fl.Bool("metrics", false, "print the metrics (GetMetrics) instead")
	timeout := fl.Duration("timeout", 5*time.Second, "give up after this long")
	if err := fl.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	conn, err := grpc.NewClient(dialTarget(*addr), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("connect to %s: %w", *addr, err)
	}
	defer conn.Close()
	c := cuzkv1.NewProvingEngineClient(conn)
	if *metrics {
		m, err := c.GetMetrics(ctx, &cuzkv1.GetMetricsRequest{})
		if err != nil {
			return fmt.Errorf("GetMetrics from %s: %w", *addr, err)
		}
		_, err = io.WriteString(stdout, m.PrometheusText)
		return err
	}
	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if err != nil {
		return fmt.Errorf("GetStatus from %s: %w", *addr, err)
	}
	if *asJSON {
		b, err := protojson.MarshalOptions{Multiline: true, EmitUnpopulated: true}.Marshal(st)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	printStatus(stdout, *addr, st)
	return nil
}

// dialTarget turns an address into a gRPC target the way Curio's client does: URLs and unix:
// addresses as they are, a bare host:port through the DNS resolver.
func dialTarget(addr string) string {
	if strings.Contains(addr, "://") || strings.HasPrefix(addr, "unix:") {
		return addr
	}
	return "dns:///" + addr
}

func printStatus(w io.Writer, addr string, st *cuzkv1.GetStatusResponse) {
	fmt.Fprintf(w, "cuzkd at %s: up %v, %d proofs completed, %d failed\n\n", addr,
		time.Duration(st.UptimeSeconds)*time.Second, st.TotalProofsCompleted, st.TotalProofsFailed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "QUEUE\tPENDING\tIN PROGRESS")
	for _, q := range st.Queues {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", q.ProofKind, q.Pending, q.InProgress)
	}
	tw.Flush()
	if len(st.Gpus) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "GPU\tNAME\tVRAM FREE\tVRAM TOTAL\tJOB")
		for _, g := range st.Gpus {
			job := "-"
			if g.CurrentJobId != "" {
				job = g.CurrentJobId + " (" + g.CurrentProofKind + ")"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", g.Ordinal, g.Name, gib(g.VramFreeBytes), gib(g.VramTotalBytes), job)
		}
		tw.Flush()
	}
	if len(st.LoadedSrs) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "CIRCUIT\tTIER\tSIZE\tIN USE")
		for _, s := range st.LoadedSrs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", s.CircuitId, strings.ToLower(s.Tier.String()), gib(s.SizeBytes), s.RefCount)
		}
		tw.Flush()
	}
	if st.PinnedMemoryLimitBytes > 0 {
		fmt.Fprintf(w, "\npinned memory: %s of %s\n", gib(st.PinnedMemoryBytes), gib(st.PinnedMemoryLimitBytes))
	}
}

func gib(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
