package timeline

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// stageColors are the SVG fill colors of the stages (CSS hex).
var stageColors = [NumStages]string{
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
	// svgMaxRows bounds the rows drawn; the rest are counted in a note.
	svgMaxRows = 2000
	// svgMaxTicks bounds the axis ticks (niceStep aims at 10).
	svgMaxTicks = 20
)

// niceStep returns a tick step in nanoseconds of 1, 2 or 5 times a power of
// ten, at least 1 ns, that gives at most about n ticks over span
// nanoseconds.
func niceStep(span float64, n int) int64 {
	raw := span / float64(n)
	step := int64(1)
	for mag := int64(1); ; mag *= 10 {
		for _, m := range []int64{1, 2, 5} {
			step = m * mag
			if float64(step) >= raw {
				return step
			}
		}
		if mag > math.MaxInt64/100 {
			return step
		}
	}
}

// axisTicks returns the multiples of step in [t0, t1], at most svgMaxTicks
// of them, computed without overflow.
func axisTicks(t0, t1 time.Duration, step int64) []time.Duration {
	q := int64(t0) / step
	if int64(t0)%step > 0 {
		q++ // ceiling; Go's division already rounds negative quotients up
	}
	if q > math.MaxInt64/step || q < math.MinInt64/step {
		return nil
	}
	var ticks []time.Duration
	for t := q * step; t <= int64(t1) && len(ticks) < svgMaxTicks; t += step {
		ticks = append(ticks, time.Duration(t))
		if uint64(int64(t1))-uint64(t) < uint64(step) {
			break // the next tick is past t1 (or would overflow)
		}
	}
	return ticks
}

// formatTick prints an offset in milliseconds with as many decimals as the
// tick step (in nanoseconds) needs, exactly.
func formatTick(t time.Duration, step int64) string {
	dec := 0
	for p := int64(1e6); p > step && dec < 6; p /= 10 {
		dec++
	}
	neg := t < 0
	u := uint64(t)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u/1e6, 10)
	if dec > 0 {
		frac := fmt.Sprintf("%06d", u%1e6)
		s += "." + frac[:dec]
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}

// svgLabelMax bounds a row label in bytes.
const svgLabelMax = 48

// clipLabel shortens s to at most svgLabelMax bytes of valid UTF-8.
func clipLabel(s string) string {
	if len(s) <= svgLabelMax {
		return s
	}
	return strings.ToValidUTF8(s[:svgLabelMax-3], "") + "..."
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// WriteSVG writes a standalone SVG waterfall of the timeline: one row per
// partition (as in WriteWaterfall), a thin gray line from the row's first to
// last event, and a colored bar per matched stage (synthesis blue, queue
// gray, preparation orange, lock wait red, device green, finalize purple),
// each with a tooltip (<title>) giving the stage, job, partition, device,
// worker, start and duration in milliseconds. A legend is at the top and a
// time axis in milliseconds (ticks at 1, 2 or 5 × 10^k ns, at most 20) above
// the rows. The plot is 1000 px wide; every bar is at least 1 px wide. At
// most 2000 rows are drawn (the earliest); a note counts the others. Labels
// longer than 48 bytes are shortened. The output size is linear in the
// number of events whatever their offsets.
func WriteSVG(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	rows, _ := waterfallRows(events, false)
	hidden := 0
	if len(rows) > svgMaxRows {
		rows, hidden = rows[:svgMaxRows], len(rows)-svgMaxRows
	}
	var t0, t1 time.Duration
	if len(events) > 0 {
		t0, t1 = events[0].Offset, events[0].Offset
		for _, e := range events {
			t0, t1 = min(t0, e.Offset), max(t1, e.Offset)
		}
	}
	// The span in float64: t1 - t0 may not fit in an int64.
	span := max(float64(t1)-float64(t0), 1)

	labels := make([]string, len(rows))
	labelW := 0
	for i, r := range rows {
		labels[i] = clipLabel(r.label())
		labelW = max(labelW, utf8.RuneCountInString(labels[i]))
	}
	plotX := float64(svgMargin + labelW*svgCharWidth + svgMargin)
	legendW := 0
	for s := range NumStages {
		legendW += 20 + len(Stage(s).String())*svgCharWidth + 10
	}
	width := max(int(plotX)+svgPlotWidth+svgMargin, svgMargin+legendW)
	rowsY := float64(svgMargin + svgLegendH + svgAxisH)
	nrows := max(len(rows), 1)
	if hidden > 0 {
		nrows++
	}
	height := int(rowsY) + nrows*svgRowHeight + svgMargin
	x := func(t time.Duration) float64 {
		return plotX + (float64(t)-float64(t0))*svgPlotWidth/span
	}

	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(bw, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"11\">\n",
		width, height, width, height)
	fmt.Fprintf(bw, "<title>cuzk timeline: %d partitions, %s..%s ms</title>\n", len(rows)+hidden, ms(t0), ms(t1))
	fmt.Fprintf(bw, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height)

	// Legend.
	fmt.Fprintf(bw, "<g class=\"legend\">\n")
	lx := svgMargin
	for s := range NumStages {
		name := Stage(s).String()
		fmt.Fprintf(bw, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"%d\" fill=\"%s\"/>", lx, svgMargin, svgBarHeight, stageColors[s])
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
	step := niceStep(span, 10)
	fmt.Fprintf(bw, "<g class=\"axis\" stroke=\"#808080\">\n")
	fmt.Fprintf(bw, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", plotX, axisY, plotX+svgPlotWidth, axisY)
	for _, t := range axisTicks(t0, t1, step) {
		tx := x(t)
		fmt.Fprintf(bw, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>", tx, axisY, tx, height-svgMargin)
		fmt.Fprintf(bw, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", tx, axisY-4, tx, axisY)
		fmt.Fprintf(bw, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" stroke=\"none\" fill=\"#000000\">%s</text>\n",
			tx, axisY-6, xmlEscape(formatTick(t, step)))
	}
	fmt.Fprintf(bw, "<text x=\"%d\" y=\"%.1f\" stroke=\"none\" fill=\"#000000\">ms</text>\n", svgMargin, axisY-6)
	fmt.Fprintf(bw, "</g>\n")

	// Rows.
	for i, r := range rows {
		y := rowsY + float64(i*svgRowHeight)
		mid := y + svgRowHeight/2
		fmt.Fprintf(bw, "<g class=\"row\">")
		fmt.Fprintf(bw, "<text x=\"%d\" y=\"%.1f\">%s</text>", svgMargin, y+svgBarHeight, xmlEscape(labels[i]))
		fmt.Fprintf(bw, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#b0b0b0\"/>", x(r.first), mid, x(r.last), mid)
		for _, iv := range r.ivs {
			bx := x(iv.Start)
			bwid := max(x(iv.End)-bx, 1)
			fmt.Fprintf(bw, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s</title></rect>",
				bx, y+float64(svgRowHeight-svgBarHeight)/2, bwid, svgBarHeight, stageColors[iv.Stage],
				xmlEscape(fmt.Sprintf("%s job %s partition %d device %d worker %d: %s ms at %s ms %s",
					iv.Stage, jobLabel(iv.Job, iv.JobID), iv.Partition, iv.Device, iv.Worker, ms(iv.Duration()), ms(iv.Start), iv.Detail)))
		}
		fmt.Fprintf(bw, "</g>\n")
	}
	if hidden > 0 {
		fmt.Fprintf(bw, "<text x=\"%d\" y=\"%.1f\">... %d more partitions not drawn</text>\n",
			svgMargin, rowsY+float64(len(rows)*svgRowHeight)+svgBarHeight, hidden)
	}
	fmt.Fprintf(bw, "</svg>\n")
	return flushSVG(bw)
}

func flushSVG(bw *bufio.Writer) error {
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}
