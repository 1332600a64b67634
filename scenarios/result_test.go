package scenarios

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

func TestJudge(t *testing.T) {
	fail := func(props ...checker.Property) *Result {
		r := &Result{Verdict: VerdictFail}
		for _, p := range props {
			r.Violations = append(r.Violations, checker.Violation{Property: p})
		}
		return r
	}
	pass := Expect{Verdict: VerdictPass}
	control := Expect{Verdict: VerdictFail, Property: checker.PropConsistentCut}
	for _, tc := range []struct {
		name       string
		result     *Result
		expect     Expect
		unexpected bool
	}{
		{"pass as expected", &Result{Verdict: VerdictPass}, pass, false},
		{"violation where a pass was expected", fail(checker.PropLiveness), pass, true},
		{"control fails its property", fail(checker.PropExactlyOnce, checker.PropConsistentCut), control, false},
		{"control passes", &Result{Verdict: VerdictPass}, control, true},
		{"control fails another property", fail(checker.PropLiveness), control, true},
		{"limit", &Result{Verdict: VerdictLimit, LimitReason: "max_events"}, pass, true},
		{"limit of a control", &Result{Verdict: VerdictLimit}, control, true},
		{"undecided", &Result{Verdict: VerdictUnknown, Undecided: []string{"liveness (trace ends before the deadline)"}}, pass, true},
		{"undecided control", &Result{Verdict: VerdictUnknown}, control, true},
	} {
		tc.result.Judge(tc.expect)
		if tc.result.Unexpected != tc.unexpected {
			t.Errorf("%s: unexpected = %v, want %v (%s)", tc.name, tc.result.Unexpected, tc.unexpected, tc.result.Why)
		}
		if tc.result.Unexpected && tc.result.Why == "" {
			t.Errorf("%s: unexpected without saying why", tc.name)
		}
	}
}

func TestViolatedPropertiesOrder(t *testing.T) {
	r := &Result{Violations: []checker.Violation{{Property: checker.PropLiveness}, {Property: "zeta"}, {Property: checker.PropExactlyOnce}, {Property: checker.PropLiveness}}}
	want := []checker.Property{checker.PropExactlyOnce, checker.PropLiveness, "zeta"}
	if got := r.ViolatedProperties(); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSeedRange(t *testing.T) {
	for _, tc := range []struct {
		text  string
		want  SeedRange
		count uint64
		bad   bool
	}{
		{text: "1-20", want: SeedRange{1, 20}, count: 20},
		{text: "7", want: SeedRange{7, 7}, count: 1},
		{text: "0-18446744073709551615", want: SeedRange{0, ^uint64(0)}, count: ^uint64(0)},
		{text: "5-3", bad: true},
		{text: "-3", bad: true},
		{text: "1-", bad: true},
		{text: "x-2", bad: true},
		{text: "1-2-3", bad: true},
		{text: "", bad: true},
	} {
		got, err := ParseSeedRange(tc.text)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseSeedRange(%q) accepted %v", tc.text, got)
			}
			continue
		}
		if err != nil || got != tc.want || got.Count() != tc.count || got.String() != tc.text {
			t.Errorf("ParseSeedRange(%q) = %v (count %d, %q), %v", tc.text, got, got.Count(), got.String(), err)
		}
	}
}
