package checker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// A reference file is a Reference written as one JSON object, so that a trace from any engine
// can be judged against it without writing Go (simrun check -reference FILE):
//
//	{
//	  "version": 1,
//	  "guarantee": "exactly-once",
//	  "liveness": {"checkpoint_after_heal_ns": 4000000000, "alignment_max_ns": 2000000000,
//	               "notify_max_ns": 2000000000, "recovery_max_ns": 4000000000,
//	               "switch_max_ns": 100000000, "abort_reach_max_ns": 2000000000,
//	               "reaction_max_ns": 2000000, "finish_tasks": ["source-0", "sink-0"],
//	               "job_finish_traced": true},
//	  "policy": {"tolerable_failures": 3, "retained_checkpoints": 2, "alignment_timeout_ns": 50000000,
//	             "interval_ns": 100000000, "min_pause_ns": 0, "timeout_ns": 1000000000,
//	             "max_concurrent": 1, "channel_state_max_records": 3200000,
//	             "max_pending_transactions": 64, "mode": "aligned-with-timeout"},
//	  "trace_hash": "<16 lower-case hex digits>",
//	  "promises": ["exactly-once", "consistent-cut", "liveness"],
//	  "snapshots": [
//	    {"cp": 5, "name": "script[1]", "tokens": {"N1": 0, "N2": 0}, "channels": {"N1->N2": [1]}}
//	  ],
//	  "output": {
//	    "source:0:1": {"value": "7", "count": 1, "split": "source:0", "offset": 1},
//	    "source:0:2": {"value": "12"}
//	  }
//	}
//
// Every field may be left out, and a field left out means what the zero Reference means:
// no guarantee, no expected output (the output properties are unknown, which `"output": {}`,
// an output that must stay empty, is not), no token workload, no liveness bound, no
// tolerable-failure limit (failure-accounting is unknown; `"tolerable_failures": 0` tolerates
// none), no retained-checkpoint count (state-release is unknown; a count is at least 1), no
// alignment timeout, no interval nor pause (`"interval_ns": 0` takes no periodic
// checkpoints, `"min_pause_ns": 0` pauses not at all), no timeout, no limit on concurrent
// checkpoints and no mode (the rules that need them are not judged), no trace hash, no expected snapshots, no promises (Reference.Promises nil: the default properties follow the guarantee
// alone). An output entry's count defaults to 1; 0 forbids the record. Its split and
// offset name the source record it comes from, which a job that stop-with-savepoint ended
// needs: without them its output is not judged. Durations are integer
// nanoseconds, as in the trace. An expected snapshot (Reference.Snapshots) needs its cp;
// its tokens map processes to balances and its channels map "from->to" to the tokens of the
// messages recorded in flight, in order. version, when given, must be 1: a newer file is refused,
// since its fields may mean something else.
//
// Decoding is strict, as for scenario files: an unknown field, a duplicate key, a value of
// the wrong type or out of range, or data after the object is an error that names the path of
// the field (reference.output["source:0:1"].count) on one line.

// ReferenceFileVersion is the version of the reference file format this build reads and
// writes.
const ReferenceFileVersion = 1

// MaxReferenceFileBytes bounds a reference file, so that a wrong path to a huge file is a
// clear error rather than a large allocation. A million expected records fit.
const MaxReferenceFileBytes = 64 << 20

// ReadReference reads a reference file from r (see ParseReference).
func ReadReference(r io.Reader) (Reference, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxReferenceFileBytes+1))
	if err != nil {
		return Reference{}, fmt.Errorf("checker: reference: %v", err)
	}
	return ParseReference(data)
}

// ParseReference decodes a reference file. Errors start with "checker: reference" and name
// the offending field or line.
func ParseReference(data []byte) (Reference, error) {
	ref, err := parseReference(data)
	if err != nil {
		return Reference{}, errors.New("checker: " + oneLine(err.Error()))
	}
	return ref, nil
}

func parseReference(data []byte) (Reference, error) {
	if len(data) > MaxReferenceFileBytes {
		return Reference{}, fmt.Errorf("reference: file is larger than %d bytes", MaxReferenceFileBytes)
	}
	if err := validJSON(data); err != nil {
		return Reference{}, err
	}
	var ref Reference
	err := eachField(data, "reference", func(key, path string, value json.RawMessage) error {
		var err error
		switch key {
		case "version":
			var v int64
			if v, err = decodeCount(path, value); err == nil && v != ReferenceFileVersion {
				err = fmt.Errorf("%s: version %d, this build reads %d", path, v, ReferenceFileVersion)
			}
		case "guarantee":
			var g string
			if g, err = decodeString(path, value); err == nil {
				ref.Guarantee = Guarantee(g)
				if g != "" && ref.Guarantee != GuaranteeExactlyOnce && ref.Guarantee != GuaranteeAtLeastOnce {
					err = fmt.Errorf("%s: %q is not one of %q, %q", path, g, GuaranteeExactlyOnce, GuaranteeAtLeastOnce)
				}
			}
		case "token_total":
			// The key says the job is a token workload, even with a total of zero.
			ref.TokenTotal, err = decodeCount(path, value)
			ref.TokenWorkload = true
		case "liveness":
			ref.Liveness, err = decodeLiveness(path, value)
		case "policy":
			ref.Policy, err = decodePolicy(path, value)
		case "trace_hash":
			if ref.TraceHash, err = decodeString(path, value); err == nil && !isTraceHash(ref.TraceHash) {
				err = fmt.Errorf("%s: must be 16 lower-case hex digits (or 64, a version 1 trace hash), got %q", path, ref.TraceHash)
			}
		case "output":
			ref.Output, err = decodeOutput(path, value)
		case "promises":
			ref.Promises, err = decodePromises(path, value)
		case "snapshots":
			ref.Snapshots, err = decodeSnapshots(path, value)
		default:
			err = unknownField(path, "version, guarantee, token_total, liveness, policy, trace_hash, promises, snapshots, output")
		}
		return err
	})
	return ref, err
}

// decodePromises reads a list of property names; [] promises nothing beyond well-formedness,
// which is not the same as leaving the field out.
func decodePromises(path string, data json.RawMessage) ([]Property, error) {
	var raw []json.RawMessage
	if kind := jsonKind(data); kind != "an array" {
		return nil, fmt.Errorf("%s: must be an array of property names, got %s", path, kind)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	promises := []Property{}
	for i, item := range raw {
		at := fmt.Sprintf("%s[%d]", path, i)
		name, err := decodeString(at, item)
		if err != nil {
			return nil, err
		}
		p, err := ParseProperty(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a property", at, name)
		}
		if slices.Contains(promises, p) {
			return nil, fmt.Errorf("%s: %q is listed twice", at, name)
		}
		promises = append(promises, p)
	}
	return promises, nil
}

// decodeSnapshots reads the expected global snapshots: a list of {"cp", "name", "tokens",
// "channels"}, cp required and each cp once.
func decodeSnapshots(path string, data json.RawMessage) ([]ExpectedSnapshot, error) {
	var raw []json.RawMessage
	if kind := jsonKind(data); kind != "an array" {
		return nil, fmt.Errorf("%s: must be an array of snapshots, got %s", path, kind)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var snapshots []ExpectedSnapshot
	for i, item := range raw {
		at := fmt.Sprintf("%s[%d]", path, i)
		var x ExpectedSnapshot
		err := eachField(item, at, func(key, path string, value json.RawMessage) error {
			var err error
			switch key {
			case "cp":
				var cp int64
				cp, err = decodeCount(path, value)
				x.CP = uint64(cp)
			case "name":
				x.Name, err = decodeString(path, value)
			case "tokens":
				x.Tokens = map[string]int64{}
				err = eachEntry(value, path, func(process, path string, value json.RawMessage) error {
					n, err := decodeCount(path, value)
					x.Tokens[process] = n
					return err
				})
			case "channels":
				x.Channels = map[string][]int64{}
				err = eachEntry(value, path, func(name, path string, value json.RawMessage) error {
					if _, _, ok := strings.Cut(name, "->"); !ok {
						return fmt.Errorf("%s: a channel is named from->to", path)
					}
					messages, err := decodeCounts(path, value)
					x.Channels[name] = messages
					return err
				})
			default:
				err = unknownField(path, "cp, name, tokens, channels")
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if x.CP == 0 {
			return nil, fmt.Errorf("%s.cp: missing or zero", at)
		}
		for _, other := range snapshots {
			if other.CP == x.CP {
				return nil, fmt.Errorf("%s.cp: checkpoint %d is expected twice", at, x.CP)
			}
		}
		snapshots = append(snapshots, x)
	}
	return snapshots, nil
}

// decodeCounts reads an array of non-negative integers; [] is an empty, non-nil list.
func decodeCounts(path string, data json.RawMessage) ([]int64, error) {
	var raw []json.RawMessage
	if kind := jsonKind(data); kind != "an array" {
		return nil, fmt.Errorf("%s: must be an array of non-negative integers, got %s", path, kind)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	counts := []int64{}
	for i, item := range raw {
		n, err := decodeCount(fmt.Sprintf("%s[%d]", path, i), item)
		if err != nil {
			return nil, err
		}
		counts = append(counts, n)
	}
	return counts, nil
}

func decodeLiveness(path string, data json.RawMessage) (LivenessBounds, error) {
	var b LivenessBounds
	err := eachField(data, path, func(key, path string, value json.RawMessage) error {
		var err error
		switch key {
		case "checkpoint_after_heal_ns":
			b.CheckpointAfterHealNanos, err = decodeCount(path, value)
		case "alignment_max_ns":
			b.AlignmentMaxNanos, err = decodeCount(path, value)
		case "notify_max_ns":
			b.NotifyMaxNanos, err = decodeCount(path, value)
		case "recovery_max_ns":
			b.RecoveryMaxNanos, err = decodeCount(path, value)
		case "switch_max_ns":
			b.SwitchMaxNanos, err = decodeCount(path, value)
		case "abort_reach_max_ns":
			b.AbortReachMaxNanos, err = decodeCount(path, value)
		case "reaction_max_ns":
			b.ReactionMaxNanos, err = decodeCount(path, value)
		case "finish_tasks":
			b.FinishTasks, err = decodeTasks(path, value)
		case "job_finish_traced":
			b.JobFinishTraced, err = decodeBool(path, value)
		default:
			err = unknownField(path, "checkpoint_after_heal_ns, alignment_max_ns, notify_max_ns, recovery_max_ns, switch_max_ns, abort_reach_max_ns, reaction_max_ns, finish_tasks, job_finish_traced")
		}
		return err
	})
	return b, err
}

func decodePolicy(path string, data json.RawMessage) (Policy, error) {
	var p Policy
	err := eachField(data, path, func(key, path string, value json.RawMessage) error {
		var err error
		switch key {
		case "tolerable_failures":
			var n int64
			if n, err = decodeCount(path, value); err == nil && n > 1<<20 {
				err = fmt.Errorf("%s: %d is more failures than any job tolerates", path, n)
			}
			p.TolerableFailures = Tolerating(int(n))
		case "retained_checkpoints":
			var n int64
			if n, err = decodeCount(path, value); err == nil && (n < 1 || n > protocol.MaxRetainedCheckpointsLimit) {
				err = fmt.Errorf("%s: must be from 1 to %d, got %d", path, protocol.MaxRetainedCheckpointsLimit, n)
			}
			p.RetainedCheckpoints = int(n)
		case "alignment_timeout_ns":
			p.AlignmentTimeoutNanos, err = decodeCount(path, value)
		case "interval_ns":
			var n int64
			n, err = decodeCount(path, value)
			p.IntervalNanos = Nanos(n)
		case "min_pause_ns":
			var n int64
			n, err = decodeCount(path, value)
			p.MinPauseNanos = Nanos(n)
		case "timeout_ns":
			if p.TimeoutNanos, err = decodeCount(path, value); err == nil && p.TimeoutNanos == 0 {
				err = fmt.Errorf("%s: a checkpoint timeout must be positive", path)
			}
		case "max_concurrent":
			var n int64
			if n, err = decodeCount(path, value); err == nil && (n == 0 || n > 1<<20) {
				err = fmt.Errorf("%s: must be from 1 to %d, got %d", path, 1<<20, n)
			}
			p.MaxConcurrent = int(n)
		case "channel_state_max_records":
			p.ChannelStateMaxRecords, err = decodeCount(path, value)
		case "max_pending_transactions":
			p.MaxPendingTransactions, err = decodeCount(path, value)
		case "mode":
			if p.Mode, err = decodeString(path, value); err == nil && !slices.Contains(policyModes, p.Mode) {
				err = fmt.Errorf("%s: %q is not one of %s", path, p.Mode, strings.Join(policyModes, ", "))
			}
		default:
			err = unknownField(path, "tolerable_failures, retained_checkpoints, alignment_timeout_ns, interval_ns, min_pause_ns, timeout_ns, max_concurrent, channel_state_max_records, max_pending_transactions, mode")
		}
		return err
	})
	return p, err
}

// policyModes are the checkpoint modes Policy.Mode may name, as package protocol names them.
var policyModes = []string{"aligned", "unaligned", "aligned-with-timeout", "at-least-once"}

func decodeTasks(path string, data json.RawMessage) ([]string, error) {
	var raw []json.RawMessage
	if kind := jsonKind(data); kind != "an array" {
		return nil, fmt.Errorf("%s: must be an array of task names, got %s", path, kind)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var tasks []string // nil for [], as for a field left out
	for i, item := range raw {
		task, err := decodeString(fmt.Sprintf("%s[%d]", path, i), item)
		if err != nil {
			return nil, err
		}
		if task == "" {
			return nil, fmt.Errorf("%s[%d]: empty task name", path, i)
		}
		tasks = append(tasks, task)
	}
	return tasks, nil
}

func decodeOutput(path string, data json.RawMessage) (map[string]Expected, error) {
	out := map[string]Expected{} // not nil: "output": {} expects no output at all
	err := eachEntry(data, path, func(rid, path string, value json.RawMessage) error {
		if rid == "" {
			return fmt.Errorf("%s: empty record id", path)
		}
		want := Expected{Count: 1}
		hasValue := false
		err := eachField(value, path, func(key, path string, value json.RawMessage) error {
			var err error
			switch key {
			case "value":
				want.Value, err = decodeString(path, value)
				hasValue = true
			case "count":
				var n int64
				if n, err = decodeCount(path, value); err == nil && n > maxExpectedCount {
					err = fmt.Errorf("%s: must be at most %d, got %d", path, maxExpectedCount, n)
				}
				want.Count = int(n)
			case "split":
				want.Split, err = decodeString(path, value)
			case "offset":
				want.Offset, err = decodeCount(path, value)
			default:
				err = unknownField(path, "value, count, split, offset")
			}
			return err
		})
		if err == nil && !hasValue {
			err = fmt.Errorf("%s: missing value", path)
		}
		out[rid] = want
		return err
	})
	return out, err
}

// maxExpectedCount bounds an output entry's count: more commits of one record than any trace
// holds lines is a typing mistake.
const maxExpectedCount = 1 << 30

// eachField calls field for each member of the JSON object data, in file order, with the
// member's path (.key). data must be valid JSON (validJSON). A duplicate key is an error:
// encoding/json would keep the last value silently.
func eachField(data json.RawMessage, path string, field func(key, path string, value json.RawMessage) error) error {
	return eachMember(data, path, memberPath, field)
}

// eachEntry is eachField for an object keyed by record ids, whose paths are always ["id"].
func eachEntry(data json.RawMessage, path string, field func(key, path string, value json.RawMessage) error) error {
	return eachMember(data, path, func(key string) string { return "[" + strconv.Quote(key) + "]" }, field)
}

func eachMember(data json.RawMessage, path string, name func(key string) string, field func(key, path string, value json.RawMessage) error) error {
	if kind := jsonKind(data); kind != "an object" {
		return fmt.Errorf("%s: must be an object, got %s", path, kind)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the opening brace
		return fmt.Errorf("%s: %v", path, err)
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		key, _ := tok.(string) // valid JSON: inside an object the decoder yields string keys
		member := path + name(key)
		if seen[key] {
			return fmt.Errorf("%s: duplicate key", member)
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return fmt.Errorf("%s: %v", member, err)
		}
		if err := field(key, member, value); err != nil {
			return err
		}
	}
	return nil
}

// memberPath is how a path names a member: .key for a plain name, ["key"] for a record id or
// anything else.
func memberPath(key string) string {
	plain := key != ""
	for _, c := range key {
		if !(c == '_' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + key
	}
	return "[" + strconv.Quote(key) + "]"
}

func unknownField(path, known string) error {
	return fmt.Errorf("%s: unknown field (known: %s)", path, known)
}

func decodeString(path string, data json.RawMessage) (string, error) {
	if kind := jsonKind(data); kind != "a string" {
		return "", fmt.Errorf("%s: must be a string, got %s", path, kind)
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

// decodeCount decodes a non-negative integer that fits an int64, written without fraction or
// exponent.
func decodeCount(path string, data json.RawMessage) (int64, error) {
	if kind := jsonKind(data); kind != "a number" {
		return 0, fmt.Errorf("%s: must be a non-negative integer, got %s", path, kind)
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: must be a non-negative integer below 2^63, got %s", path, data)
	}
	return n, nil
}

// decodeBool reads a JSON boolean.
func decodeBool(path string, data json.RawMessage) (bool, error) {
	switch string(bytes.TrimSpace(data)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s: must be true or false, got %s", path, jsonKind(data))
}

// jsonKind names the kind of the JSON value data, for messages.
func jsonKind(data json.RawMessage) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "nothing"
	}
	switch c := data[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
}

// validJSON reports a syntax error with its line, so that a person finds it in the file.
func validJSON(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("reference: empty file: want one JSON object")
	}
	var v any
	err := json.Unmarshal(data, &v)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		offset := min(int(syntax.Offset), len(data))
		line := 1 + bytes.Count(data[:offset], []byte("\n"))
		return fmt.Errorf("reference: line %d: invalid JSON: %v", line, syntax)
	}
	return fmt.Errorf("reference: invalid JSON: %v", err)
}

// isTraceHash reports whether s is a trace hash of either version: a reference written
// before trace hash version 2 holds one of version 1, which Determinism checks as such.
func isTraceHash(s string) bool { return trace.HashVersion(s) != 0 }

// MarshalReference writes ref as a reference file that ParseReference reads back as ref: the
// fields in a fixed order, the output sorted by record id, one record a line, so that two
// references of one job diff line by line. Fields at their zero value are left out, except
// version, and an empty non-nil output, which expects no output and is written as {}.
func MarshalReference(ref Reference) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"version\": %d", ReferenceFileVersion)
	if ref.Guarantee != "" {
		fmt.Fprintf(&b, ",\n  \"guarantee\": %s", quoteJSON(string(ref.Guarantee)))
	}
	if ref.TokenTotal != 0 || ref.TokenWorkload {
		fmt.Fprintf(&b, ",\n  \"token_total\": %d", ref.TokenTotal)
	}
	if fields := livenessFields(ref.Liveness); len(fields) > 0 {
		fmt.Fprintf(&b, ",\n  \"liveness\": {%s}", strings.Join(fields, ", "))
	}
	if fields := policyFields(ref.Policy); len(fields) > 0 {
		fmt.Fprintf(&b, ",\n  \"policy\": {%s}", strings.Join(fields, ", "))
	}
	if ref.TraceHash != "" {
		fmt.Fprintf(&b, ",\n  \"trace_hash\": %s", quoteJSON(ref.TraceHash))
	}
	if ref.Promises != nil {
		names := make([]string, len(ref.Promises))
		for i, p := range ref.Promises {
			names[i] = quoteJSON(string(p))
		}
		fmt.Fprintf(&b, ",\n  \"promises\": [%s]", strings.Join(names, ", "))
	}
	writeSnapshots(&b, ref.Snapshots)
	if ref.Output != nil {
		b.WriteString(",\n  \"output\": {")
		for i, rid := range slices.Sorted(maps.Keys(ref.Output)) {
			if i > 0 {
				b.WriteByte(',')
			}
			want := ref.Output[rid]
			fmt.Fprintf(&b, "\n    %s: {\"value\": %s, \"count\": %d", quoteJSON(rid), quoteJSON(want.Value), want.Count)
			if want.Split != "" {
				fmt.Fprintf(&b, ", \"split\": %s, \"offset\": %d", quoteJSON(want.Split), want.Offset)
			}
			b.WriteString("}")
		}
		if len(ref.Output) > 0 {
			b.WriteString("\n  ")
		}
		b.WriteByte('}')
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

// writeSnapshots writes the expected snapshots of a reference file, if there are any.
func writeSnapshots(b *bytes.Buffer, snapshots []ExpectedSnapshot) {
	if len(snapshots) == 0 {
		return
	}
	b.WriteString(",\n  \"snapshots\": [")
	for i, x := range snapshots {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, "\n    {\"cp\": %d", x.CP)
		if x.Name != "" {
			fmt.Fprintf(b, ", \"name\": %s", quoteJSON(x.Name))
		}
		if x.Tokens != nil {
			var fields []string
			for _, process := range slices.Sorted(maps.Keys(x.Tokens)) {
				fields = append(fields, fmt.Sprintf("%s: %d", quoteJSON(process), x.Tokens[process]))
			}
			fmt.Fprintf(b, ", \"tokens\": {%s}", strings.Join(fields, ", "))
		}
		if x.Channels != nil {
			var fields []string
			for _, name := range slices.Sorted(maps.Keys(x.Channels)) {
				items := make([]string, len(x.Channels[name]))
				for k, n := range x.Channels[name] {
					items[k] = strconv.FormatInt(n, 10)
				}
				fields = append(fields, fmt.Sprintf("%s: [%s]", quoteJSON(name), strings.Join(items, ", ")))
			}
			fmt.Fprintf(b, ", \"channels\": {%s}", strings.Join(fields, ", "))
		}
		b.WriteByte('}')
	}
	b.WriteString("\n  ]")
}

// livenessFields are the members of l that a reference file writes, in a fixed order: each
// bound l gives, then the tasks that must finish.
func livenessFields(l LivenessBounds) []string {
	var fields []string
	add := func(name string, nanos int64) {
		if nanos != 0 {
			fields = append(fields, fmt.Sprintf("%s: %d", quoteJSON(name), nanos))
		}
	}
	add("checkpoint_after_heal_ns", l.CheckpointAfterHealNanos)
	add("alignment_max_ns", l.AlignmentMaxNanos)
	add("notify_max_ns", l.NotifyMaxNanos)
	add("recovery_max_ns", l.RecoveryMaxNanos)
	add("switch_max_ns", l.SwitchMaxNanos)
	add("abort_reach_max_ns", l.AbortReachMaxNanos)
	add("reaction_max_ns", l.ReactionMaxNanos)
	if len(l.FinishTasks) > 0 {
		tasks := make([]string, len(l.FinishTasks))
		for i, task := range l.FinishTasks {
			tasks[i] = quoteJSON(task)
		}
		fields = append(fields, `"finish_tasks": [`+strings.Join(tasks, ", ")+"]")
	}
	if l.JobFinishTraced {
		fields = append(fields, `"job_finish_traced": true`)
	}
	return fields
}

// policyFields are the members of p that a reference file writes, in a fixed order: each
// setting p gives, zero included where zero is a setting.
func policyFields(p Policy) []string {
	var fields []string
	add := func(name string, n int64, given bool) {
		if given {
			fields = append(fields, fmt.Sprintf("%s: %d", quoteJSON(name), n))
		}
	}
	if p.TolerableFailures != nil {
		add("tolerable_failures", int64(*p.TolerableFailures), true)
	}
	add("retained_checkpoints", int64(p.RetainedCheckpoints), p.RetainedCheckpoints != 0)
	add("alignment_timeout_ns", p.AlignmentTimeoutNanos, p.AlignmentTimeoutNanos != 0)
	if p.IntervalNanos != nil {
		add("interval_ns", *p.IntervalNanos, true)
	}
	if p.MinPauseNanos != nil {
		add("min_pause_ns", *p.MinPauseNanos, true)
	}
	add("timeout_ns", p.TimeoutNanos, p.TimeoutNanos != 0)
	add("max_concurrent", int64(p.MaxConcurrent), p.MaxConcurrent != 0)
	add("channel_state_max_records", p.ChannelStateMaxRecords, p.ChannelStateMaxRecords != 0)
	add("max_pending_transactions", p.MaxPendingTransactions, p.MaxPendingTransactions != 0)
	if p.Mode != "" {
		fields = append(fields, `"mode": `+quoteJSON(p.Mode))
	}
	return fields
}

// quoteJSON writes s as a JSON string, leaving <, > and & as they are.
func quoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic("checker: encoding a string cannot fail: " + err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}
