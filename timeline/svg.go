package timeline

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// StageColors are the SVG fill colors of the stages (CSS hex).
var StageColors = [NumStages]string{
	StageSynthesis:   "#4e79a7",
	StageQueue:       "#d0d0d0",
	StagePreparation: "#f28e2b",
	StageLockWait:    "#e15759",
	StageDevice:      "#59a14f",
	StageFinalize:    "#b07aa1",
}

// SVG layout, in pixels.
const (
	svgPlotWidth = 1000
	svgRowHeight = 14
	svgBarHeight = 10
	svgMargin    = 10
	svgCharWidth = 7 // monospace 11px, rounded up
	svgLegendH   = 24
	svgAxisH     = 22
)

// niceStep returns a tick step of 1, 2 or 5 times a power of ten that gives
// at most about n ticks over span.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// WriteSVG writes a standalone SVG waterfall of the timeline: one row per
// partition (as in WriteWaterfall), a thin gray line from the row's first to
// last event, and a colored bar per matched stage (StageColors: synthesis,
// queue, preparation, lock wait, device, finalize), each with a tooltip
// (<title>) giving the stage, job, partition, device, worker, start and
// duration in milliseconds. A legend is at the top and a time axis in
// milliseconds (ticks at 1, 2 or 5 × 10^k ms) above the rows. The plot is
// 1000 px wide; every bar is at least 1 px wide.
func WriteSVG(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	rows, _ := waterfallRows(events, false)
	var t0, t1 time.Duration
	if len(events) > 0 {
		t0, t1 = events[0].Offset, events[0].Offset
		for _, e := range events {
			t0, t1 = min(t0, e.Offset), max(t1, e.Offset)
		}
	}
	span := max(t1-t0, 1)

	labelW := 0
	for _, r := range rows {
		labelW = max(labelW, len(r.label()))
	}
	plotX := float64(svgMargin + labelW*svgCharWidth + svgMargin)
	legendW := 0
	for s := range NumStages {
		legendW += 20 + len(Stage(s).String())*svgCharWidth + 10
	}
	width := max(int(plotX)+svgPlotWidth+svgMargin, svgMargin+legendW)
	rowsY := float64(svgMargin + svgLegendH + svgAxisH)
	height := int(rowsY) + max(len(rows), 1)*svgRowHeight + svgMargin
	x := func(t time.Duration) float64 {
		return plotX + float64(t-t0)*svgPlotWidth/float64(span)
	}

	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(bw, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"11\">\n",
		width, height, width, height)
	fmt.Fprintf(bw, "<title>cuzk timeline: %d partitions, %s..%s ms</title>\n", len(rows), ms(t0), ms(t1))
	fmt.Fprintf(bw, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height)

	// Legend.
	fmt.Fprintf(bw, "<g class=\"legend\">\n")
	lx := svgMargin
	for s := range NumStages {
		name := Stage(s).String()
		fmt.Fprintf(bw, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"%d\" fill=\"%s\"/>", lx, svgMargin, svgBarHeight, StageColors[s])
		fmt.Fprintf(bw, "<text x=\"%d\" y=\"%d\">%s</text>\n", lx+18, svgMargin+svgBarHeight, xmlEscape(name))
		lx += 20 + len(name)*svgCharWidth + 10
	}
	fmt.Fprintf(bw, "</g>\n")

	if len(events) == 0 {
		fmt.Fprintf(bw, "<text x=\"%d\" y=\"%d\">no events</text>\n", svgMargin, int(rowsY)+svgBarHeight)
		fmt.Fprintf(bw, "</svg>\n")
		return flushSVG(bw)
	}

	// Time axis with grid lines, in milliseconds.
	axisY := rowsY - 4
	spanMs := float64(span) / 1e6
	step := niceStep(spanMs, 10)
	fmt.Fprintf(bw, "<g class=\"axis\" stroke=\"#808080\">\n")
	fmt.Fprintf(bw, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", plotX, axisY, plotX+svgPlotWidth, axisY)
	first := math.Ceil(float64(t0)/1e6/step) * step
	for v := first; v <= float64(t1)/1e6+step*1e-9; v += step {
		tx := x(time.Duration(math.Round(v * 1e6)))
		fmt.Fprintf(bw, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>", tx, axisY, tx, height-svgMargin)
		fmt.Fprintf(bw, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", tx, axisY-4, tx, axisY)
		fmt.Fprintf(bw, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" stroke=\"none\" fill=\"#000000\">%s</text>\n",
			tx, axisY-6, xmlEscape(formatTick(v, step)))
	}
	fmt.Fprintf(bw, "<text x=\"%d\" y=\"%.1f\" stroke=\"none\" fill=\"#000000\">ms</text>\n", svgMargin, axisY-6)
	fmt.Fprintf(bw, "</g>\n")

	// Rows.
	for i, r := range rows {
		y := rowsY + float64(i*svgRowHeight)
		mid := y + svgRowHeight/2
		fmt.Fprintf(bw, "<g class=\"row\">")
		fmt.Fprintf(bw, "<text x=\"%d\" y=\"%.1f\">%s</text>", svgMargin, y+svgBarHeight, xmlEscape(r.label()))
		fmt.Fprintf(bw, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#b0b0b0\"/>", x(r.first), mid, x(r.last), mid)
		for _, iv := range r.ivs {
			bx := x(iv.Start)
			bwid := max(x(iv.End)-bx, 1)
			fmt.Fprintf(bw, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s</title></rect>",
				bx, y+float64(svgRowHeight-svgBarHeight)/2, bwid, svgBarHeight, StageColors[iv.Stage],
				xmlEscape(fmt.Sprintf("%s job %d partition %d device %d worker %d: %s ms at %s ms %s",
					iv.Stage, iv.Job, iv.Partition, iv.Device, iv.Worker, ms(iv.Duration()), ms(iv.Start), iv.Detail)))
		}
		fmt.Fprintf(bw, "</g>\n")
	}
	fmt.Fprintf(bw, "</svg>\n")
	return flushSVG(bw)
}

// formatTick prints a tick value with as many decimals as the step needs.
func formatTick(v, step float64) string {
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step)))
	}
	return fmt.Sprintf("%.*f", dec, v)
}

func flushSVG(bw *bufio.Writer) error {
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}
