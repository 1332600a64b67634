// Package trace defines ckptsim's event schema (version 1), its JSON Lines codec and the
// running trace hash (version 2).
//
// A trace is the single record of what happened in a run: the simulator, the engine and the
// fault injectors emit events into a Recorder, and every property checker judges the run from
// the trace alone. Engines other than ckptsim's can write the same schema and have their runs
// judged by the same checkers.
//
// # Format
//
// The first line is a header, {"kind":"trace.header","version":1,...}, naming the scenario,
// the seed and the build. Every following line is one Event. Fields appear in a fixed order
// (seq, t, kind, task, from, to, cp, ...), empty fields are left out, and extra attributes
// follow in key order, so one event has exactly one text form: its canonical line.
//
// # The trace hash
//
// The hash (version 2) is XXH64, seed 0, over a version byte and a compact binary form of
// each event in turn (not the header); it is written as 16 lower-case hex digits. The binary
// form, laid out byte by byte in binary.go, holds exactly what the event's canonical line
// holds, so a trace read back from its file hashes as the run that wrote it did (HashEvents),
// but it costs far less to make than the line: no decimal numbers, no escaping, no keys.
// Lines are made only when a trace is written or shown. The header is left out so that the
// hash depends on what happened, not on which build produced it: two builds that behave the
// same give the same hash. Because it is computed while events stream out, a run of any
// length needs constant memory to hash and write its trace.
//
// Version 1 of the hash, which builds before it recorded in artifacts and reference files,
// was SHA-256 over the canonical lines, each followed by a newline, written as 64 hex
// digits. The length of a hash tells its version (HashVersion); HashEventsV1 and
// Recorder.HashV1 still compute version 1, so that a reference file that recorded one (as
// another engine's may) is checked against its trace under its own version. Artifacts of
// those builds are refused instead (package scenarios): the engine's traces have changed
// since, so no replay could reproduce their hash.
//
// # Writing a trace from a live engine
//
// A Recorder belongs to one goroutine, as a simulation does. An engine whose coordinator and
// tasks run on goroutines of their own, on a wall clock, wraps it in a SyncRecorder: any
// goroutine may emit, seq is the order in which emits take its lock, and t comes from the
// clock it was given (Since makes one from the monotonic clock) or from the event, never
// going back. Such a trace is one of many interleavings the run could have written; the
// checkers accept any of them, since they judge causality through the protocol's ids and
// through the order the host fixes by emitting each event before it sends what carries its
// effect on (package protocol, "Tracing"). The typed constructors, one per kind
// (CheckpointTrigger, BarrierSend, SnapshotTaken, SinkCommit, ...), take the fields and
// attributes the schema gives their kind as arguments, so that no kind or attribute key is
// misspelt. Example_liveHost runs a pipeline on goroutines, embedding package protocol,
// records it with both and has the file judged by checker.Check.
package trace
