// Package perfetto writes a finished run, its trace and the checkers' verdict, as a Chrome
// trace-event JSON file that ui.perfetto.dev and chrome://tracing open.
//
// # Format
//
// The file is the trace-event "JSON Object Format": one object
//
//	{"traceEvents":[...], "displayTimeUnit":"ns", "metadata":{...}}
//
// following these references:
//
//   - Trace Event Format (the specification; the event phases, the JSON Object Format,
//     "X" complete events, "i" instant events and their "s" scope, "M" metadata events,
//     flow events, and the rule that duration events on one thread must nest):
//     https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU/preview
//     (catapult's pointer to it: https://android.googlesource.com/platform/external/chromium-trace/+/be1f909/catapult/docs/trace-event-format.md)
//   - Perfetto, "Visualizing external trace formats", Chrome JSON format (what the UI shows;
//     that overlapping, non-nested duration events are out of spec):
//     https://perfetto.dev/docs/getting-started/other-formats
//     and https://github.com/google/perfetto/issues/4280 (why they must nest)
//   - Perfetto's JSON importer, which is what ui.perfetto.dev runs:
//     https://github.com/google/perfetto/blob/main/src/trace_processor/importers/json/json_trace_parser_impl.cc
//     (ts and dur are microseconds, fractions allowed and rounded to the nanosecond;
//     displayTimeUnit is ignored, as catapult does; flow v2 binds "bind_id" with
//     "flow_out"/"flow_in" to the very slice that carries it), and its flow test traces
//     https://github.com/google/perfetto/blob/main/test/trace_processor/diff_tests/parser/parsing/flow_events_json_v2.json
//
// What follows from them here:
//
//   - Timestamps: a virtual nanosecond t becomes ts = t/1000 microseconds, written as an
//     exact decimal (40557128 ns is 40557.128), never through a float, so the same trace
//     gives the same bytes on every machine. displayTimeUnit "ns" asks the viewer to show
//     nanoseconds; it does not change the unit of ts.
//   - Slices are "X" events (ts and dur) and never "B"/"E" pairs. Duration events on one
//     thread must nest, and a checkpoint or a snapshot can overlap the next one without
//     nesting, so each track is laid out in lanes: a slice goes on the first lane of its
//     track where it nests, and a track that needs more than one lane gets extra threads
//     named "NAME #2", "NAME #3", sorted right after it. Two slices of positive length never
//     start at the same instant on one lane, so the layout does not depend on how a viewer
//     orders events with equal timestamps.
//   - Instants are "i" events with scope "t" (on a thread) or "g" (global: a fault or a
//     violation that names no task, a fault on a link).
//   - Barrier arrows are flow events of the v2 form that Chrome's own exporter writes and
//     both viewers read: the zero-length slice of a barrier.send carries "bind_id" and
//     "flow_out":true, the slice of the matching barrier.recv the same "bind_id" and
//     "flow_in":true. The v1 form ("s"/"f" events, "bp":"e") binds to whichever slice
//     encloses the flow event's timestamp, which for zero-length slices depends on the
//     viewer's ordering of equal timestamps; v2 binds to the slice itself.
//   - Tracks are threads of one process "job" (pid 1), named with "thread_name" and ordered
//     with "thread_sort_index" and by tid alike.
//   - Every string goes through encoding/json, so names and arguments taken from a trace
//     (quotes, newlines, invalid UTF-8) always give valid JSON.
//
// # Mapping
//
// Tracks, in this order: the coordinator (tid 1); "phases" (if the trace has phase events);
// "faults" (if it has windowed faults); then one per task. A task is every name a trace
// event gives as task, from or to, or a violation as task. Tasks are grouped in families,
// a family being a name less its trailing digits ("sum-" for sum-0 and sum-12); families
// come in the order the trace first names one of their members (so sources come before
// the operators and sinks they feed), and tasks within a family in natural order of
// their names (sum-2 before sum-10).
//
// Slices:
//   - coordinator: "checkpoint N", "savepoint N" or "stop-with-savepoint N" from checkpoint.trigger to
//     checkpoint.complete or checkpoint.abort (args outcome, reason); a checkpoint still in
//     flight when the coordinator crashes ends there (outcome "coordinator crashed"), one
//     triggered again ends at the new trigger, one never ended runs to the end of the trace
//     (outcome "unfinished").
//   - tasks: "alignment N" from the first barrier.recv of checkpoint N at a task with more
//     than one input to its snapshot.taken (only when it takes time); "snapshot N" from
//     snapshot.taken to snapshot.ack or snapshot.decline. A task's open slices end at its
//     task.crash, task.restore, a job.failover, or (alignment) its notify.abort or decline.
//   - "barrier -> TO" and "barrier <- FROM": zero-length slices at each barrier.send and
//     barrier.recv, joined by a flow arrow when the receive matches a send (first in, first
//     out per channel and checkpoint).
//   - "phases": "phase: NAME" from each phase event to the next.
//   - "faults": "fault: KIND" from a windowed fault (attr window_ns) to the fault event with
//     the same id and end=true, or to the end of the trace.
//
// Instants: checkpoint.request and checkpoint.persist, coordinator.crash and
// coordinator.recover, job.failover (coordinator); task.crash, task.restore, task.finish,
// snapshot.carried, notify.complete and notify.abort, sink.precommit, sink.commit and
// sink.abort (their task); a fault that is not windowed (on the task it hits, the
// coordinator for crash.coordinator, else global); and each violation, named "violation:
// PROPERTY" with args message, seq, cp, on its task's track at its time (global if it names
// no task). Every slice and instant has args kind, seq and t_ns (the exact virtual time) of
// the trace event it comes from, and the event's fields and attributes.
package perfetto
