package main

import (
	"strings"
	"testing"
)

// TestReadExploreLinesSkipsNonCatches: a limit or a bare panic before the first failure is
// counted but is no catch; the failure is, with its run and seconds.
func TestReadExploreLinesSkipsNonCatches(t *testing.T) {
	out := `{"verdict":"limit","unexpected":true,"violations":[],"run":3,"seconds":0.5}
{"verdict":"fail","unexpected":true,"violations":[{"property":"panic"}],"run":5,"seconds":0.7}
{"verdict":"fail","unexpected":true,"violations":[{"property":"exactly-once"}],"run":9,"seconds":1.25}
{"explore":{"runs":40,"seconds":3}}
`
	c, done := readExploreLines(strings.NewReader(out))
	if !done || !c.Caught || c.Run != 9 || c.Seconds != 1.25 || c.Others != 2 || strings.Join(c.Properties, ",") != "exactly-once" {
		t.Errorf("catch %+v, done %v", c, done)
	}
	c, done = readExploreLines(strings.NewReader(`{"explore":{"runs":40,"seconds":3}}` + "\n"))
	if done || c.Caught || c.Runs != 40 || c.Seconds != 3 || c.Error != "" {
		t.Errorf("no catch read as %+v, done %v", c, done)
	}
	if c, _ := readExploreLines(strings.NewReader("")); c.Error == "" {
		t.Error("an output without a summary is no error")
	}
}

// TestFiguresOfCountsMissesAsSlowest: a bug not caught sorts after every catch, so a
// median or a largest that falls on it is not caught.
func TestFiguresOfCountsMissesAsSlowest(t *testing.T) {
	f := figuresOf([]exploreCatch{{Caught: true, Run: 30, Seconds: 3}, {Caught: true, Run: 10, Seconds: 1}, {}})
	if f.Caught != 2 || f.Bugs != 3 || *f.MedianRuns != 30 || *f.MedianSeconds != 3 || f.MaxRuns != nil || f.MaxSeconds != nil {
		t.Errorf("figures %+v", f)
	}
	f = figuresOf([]exploreCatch{{}, {}, {Caught: true, Run: 1}})
	if f.MedianRuns != nil {
		t.Errorf("median of two misses and a catch = %d, want not caught", *f.MedianRuns)
	}
}
