package admin

import (
	"strconv"
	"strings"
)

// The metrics chart's drawing area, in SVG user units; the SVG scales to
// its container.
const (
	chartWidth  = 720
	chartHeight = 260
	chartLeft   = 52
	chartRight  = 12
	chartTop    = 12
	chartBottom = 28
	// seriesStyles is how many series classes the CSS has.
	seriesStyles = 6
)

// ChartSeries is one line of a LineChart.
type ChartSeries struct {
	// Key names the series: its label is "admin.metrics.counter.<Key>".
	Key string
	// Class is its CSS class, "series-1" to "series-6" by its place in
	// the chart: a colour and a dash pattern.
	Class  string
	Values []int64
	Total  int64
	// Points is the polyline's points attribute.
	Points string
}

// ChartTick is an axis label with its position. Minor labels (every
// other one on the x axis, counting back from the last) give way on a
// phone, where the labels are drawn larger.
type ChartTick struct {
	X, Y  string
	Label string
	Minor bool
}

// LineChart is a line chart drawn by the server as SVG: the geometry is
// computed here and the colours come from CSS classes (the CSP forbids
// inline styles).
type LineChart struct {
	ViewBox string
	// Plot edges, as SVG attribute values.
	Left, Right, Top, Bottom string
	// Max is the value at the top of the y axis.
	Max    int64
	Series []ChartSeries
	XTicks []ChartTick
	// YTicks carry the grid lines: Y is the line's height.
	YTicks []ChartTick
}

// SeriesInput is one named row of values, one value per label.
type SeriesInput struct {
	Key    string
	Values []int64
}

// NewLineChart lays out series over labels (one per x position, such as
// "05-17"); every labelEvery-th label is shown on the x axis, counting
// back from the last.
func NewLineChart(labels []string, series []SeriesInput, labelEvery int) LineChart {
	c := LineChart{
		ViewBox: "0 0 " + itoa(chartWidth) + " " + itoa(chartHeight),
		Left:    itoa(chartLeft),
		Right:   itoa(chartWidth - chartRight),
		Top:     itoa(chartTop),
		Bottom:  itoa(chartHeight - chartBottom),
	}
	var top int64
	for _, s := range series {
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	c.Max = niceCeiling(top)
	plotW := float64(chartWidth - chartLeft - chartRight)
	plotH := float64(chartHeight - chartTop - chartBottom)
	x := func(i int) float64 {
		if len(labels) < 2 {
			return chartLeft + plotW/2
		}
		return chartLeft + plotW*float64(i)/float64(len(labels)-1)
	}
	y := func(v int64) float64 { return chartTop + plotH - plotH*float64(v)/float64(c.Max) }
	for i, s := range series {
		out := ChartSeries{Key: s.Key, Class: "series-" + itoa(i%seriesStyles+1), Values: s.Values}
		pts := make([]string, 0, len(s.Values))
		for i, v := range s.Values {
			out.Total += v
			pts = append(pts, ftoa(x(i))+","+ftoa(y(v)))
		}
		out.Points = strings.Join(pts, " ")
		c.Series = append(c.Series, out)
	}
	for _, v := range []int64{0, c.Max / 2, c.Max} {
		if v == c.Max/2 && c.Max%2 != 0 {
			continue // only whole numbers on the axis
		}
		c.YTicks = append(c.YTicks, ChartTick{X: itoa(chartLeft - 6), Y: ftoa(y(v)), Label: strconv.FormatInt(v, 10)})
	}
	if labelEvery < 1 {
		labelEvery = 1
	}
	for i, n := len(labels)-1, 0; i >= 0; i, n = i-labelEvery, n+1 {
		c.XTicks = append([]ChartTick{{X: ftoa(x(i)), Y: itoa(chartHeight - 8), Label: labels[i], Minor: n%2 == 1}}, c.XTicks...)
	}
	return c
}

// niceCeiling rounds v up to 1, 2 or 5 times a power of ten, and at least
// 4, so a quiet month does not look busy.
func niceCeiling(v int64) int64 {
	if v <= 4 {
		return 4
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= v {
				return m * p
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
