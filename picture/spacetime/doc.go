// Package spacetime draws a run as a space-time diagram (in the manner of ShiViz): one lane
// per task and one for the coordinator, virtual time across, barriers as arrows between
// lanes, checkpoints as spans, faults and phases as bands, and the checkers' violations
// pinned to the events that show them.
//
// The picture is one self-contained HTML page. It reaches no network (data, script and
// style are inline, and its Content-Security-Policy forbids every fetch) because it is
// written beside a failing run's artifacts and read wherever they are copied, often offline
// or from a CI artifact store that serves no neighbours. The same Run always gives the same
// bytes, so a picture can be compared and cached like the trace it draws.
//
// The page draws on <canvas>, not one DOM node per event: a run can hold 100,000 events on
// 32 tasks and more, and at any zoom the marks of a lane are bucketed per few pixels, each
// bucket drawn as one density bar under its most telling mark. Arrows are drawn while few
// enough are in view and sampled past that.
//
// A picture shows why a run failed, not only where. A violation that names a channel
// (checker.Violation From and To, a cut that does not balance on it) opens the channel's
// story beside the chart: both snapshots' counts at every checkpoint, the violated one in
// red, the records that cross its cut (numbered on the channel, named by their ids where
// the trace holds record events), and rings on the two snapshots. The side panel keeps the
// chart, the story and the legend in view however many violations there are; the list
// scrolls on its own. A rescale's lanes begin and end with the tasks it started and did
// away with (laneLives).
package spacetime
