// model.js: the run's data, parsed once, and the indexes every frame needs. Nothing here
// depends on the view: it is built at load and never changes.

const D = JSON.parse(document.getElementById("spacetime-data").textContent);
const N = D.seq.length;
const GUTTER = 160; // CSS px left of the plot, where the lane names sit
const LANE_H = 16; // CSS px per lane

// byLane[l] lists lane l's events by time (ties by trace order); laneT[l] holds their
// times, so that a frame finds the events in view by binary search instead of a scan.
const byLane = D.lanes.map(() => []);
for (let i = 0; i < N; i++) {
  if (D.lane[i] >= 0) byLane[D.lane[i]].push(i);
}
for (const list of byLane) list.sort((a, b) => D.t[a] - D.t[b] || a - b);
const laneT = byLane.map((list) => Float64Array.from(list, (i) => D.t[i]));

// seqIndex maps a seq to its event; the first event wins if a trace repeats one.
const seqIndex = new Map();
for (let i = N - 1; i >= 0; i--) seqIndex.set(D.seq[i], i);

// partner[i] is the other end of event i's message, or -1.
const A = D.arrows;
const NA = A.send.length;
const partner = new Int32Array(N).fill(-1);
for (let k = 0; k < NA; k++) {
  if (A.send[k] >= 0 && A.recv[k] >= 0) {
    partner[A.send[k]] = A.recv[k];
    partner[A.recv[k]] = A.send[k];
  }
}

function lowerBound(arr, x) {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

function upperBound(arr, x) {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] <= x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// timeUnit picks the unit a duration of about ns reads best in.
function timeUnit(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return [1e9, "s"];
  if (a >= 1e6) return [1e6, "ms"];
  if (a >= 1e3) return [1e3, "\u00b5s"];
  return [1, "ns"];
}

// fmtTime writes a virtual time in the unit of unitOf (default: step, else the time
// itself), with as many decimals as step needs.
function fmtTime(ns, step, unitOf) {
  const [scale, unit] = timeUnit(unitOf || step || ns || 1);
  const s = step || Math.abs(ns) || 1;
  const decimals = Math.max(0, Math.min(9, Math.ceil(-Math.log10(s / scale) - 1e-9)));
  const v = (ns / scale).toFixed(step ? decimals : Math.max(decimals, 3));
  return (Number(v) === 0 ? v.replace("-", "") : v) + " " + unit;
}

function kindOf(i) { return D.kinds[D.kind[i]]; }
