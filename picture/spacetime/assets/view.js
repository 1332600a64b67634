// view.js: what part of the run is in view. The view is a window [t0, t1] of virtual time
// mapped onto the plot's width, plus the filters; every drawing reads it, and only the
// functions here change it.

const V = {
  t0: 0, t1: 1,
  width: 0, plotW: 1, bodyH: 0, // CSS px, set by layout
  top: 0, // the body's scroll offset as of the last drawing
  cp: null, // checkpoint id the filter keeps, or null for all
  rows: [], // lanes shown, top to bottom
  laneRow: new Int32Array(D.lanes.length).fill(-1),
  selected: -1, // event kept in the detail panel
  hover: -1,
  marks: [], // violation marks as last drawn, for the API
  stats: {},
};

const MIN_SPAN = 20; // ns: below this every event is pixels apart anyway

function fullRange() {
  const pad = Math.max((D.t1 - D.t0) * 0.02, 1);
  return [D.t0 - pad, D.t1 + pad];
}

// setView shows [a, b], no narrower than MIN_SPAN and, once wider than the run, the run.
function setView(a, b) {
  const [f0, f1] = fullRange();
  let w = Math.max(b - a, MIN_SPAN);
  if (w >= f1 - f0) { V.t0 = f0; V.t1 = f1; return; }
  let c = (a + b) / 2;
  c = Math.min(Math.max(c, f0 + w / 2), f1 - w / 2);
  V.t0 = c - w / 2;
  V.t1 = c + w / 2;
}

function fit() { const [a, b] = fullRange(); setView(a, b); }

// opening shows the busy part of the run: from its start to the job's last event (D.busy).
function opening() {
  const pad = Math.max((D.busy - D.t0) * 0.02, 1);
  setView(D.t0 - pad, D.busy + pad);
}

function xOf(t) { return GUTTER + ((t - V.t0) * V.plotW) / (V.t1 - V.t0); }
function tAt(x) { return V.t0 + ((x - GUTTER) * (V.t1 - V.t0)) / V.plotW; }

// zoomAround scales the view by factor keeping the time under x where it is.
function zoomAround(x, factor) {
  const t = tAt(x);
  setView(t - (t - V.t0) * factor, t + (V.t1 - t) * factor);
}

function panBy(dx) {
  const dt = (dx * (V.t1 - V.t0)) / V.plotW;
  setView(V.t0 - dt, V.t1 - dt);
}

// zoomSpan is how wide a view zoomTo opens: a fiftieth of the run, enough to see the
// messages around an event, but never less than a few microseconds.
function zoomSpan() { return Math.max((D.t1 - D.t0) / 50, 5000); }

function passes(i) {
  return V.cp === null || D.cp[i] === V.cp || isContext[D.kind[i]] === 1;
}

// setTaskFilter keeps the lanes whose name contains one of the words of text (commas or
// spaces between them); an empty text keeps every lane.
function setTaskFilter(text) {
  const terms = String(text || "").toLowerCase().split(/[\s,]+/).filter((s) => s !== "");
  V.rows = [];
  V.laneRow.fill(-1);
  D.lanes.forEach((name, l) => {
    const n = name.toLowerCase();
    if (terms.length === 0 || terms.some((w) => n.includes(w))) {
      V.laneRow[l] = V.rows.length;
      V.rows.push(l);
    }
  });
}

// setCheckpointFilter keeps one checkpoint's events (cp null: all) and shows its spans.
function setCheckpointFilter(cp) {
  V.cp = cp === null || cp === "" || cp === undefined ? null : Number(cp);
  if (V.cp === null) return;
  let a = Infinity, b = -Infinity;
  for (const c of D.checkpoints) {
    if (c.cp === V.cp) { a = Math.min(a, c.start); b = Math.max(b, c.end); }
  }
  if (a <= b) {
    const pad = Math.max((b - a) * 0.1, 1000);
    setView(a - pad, b + pad);
  }
}
