// draw.js: the two canvases. The head shows the time axis, phases, checkpoints, faults and
// where the violations are; the body shows one lane per task with its marks and the
// messages between lanes. Both share the view's mapping from time to x.

const headCanvas = document.getElementById("head-canvas");
const bodyCanvas = document.getElementById("body-canvas");
const bodyEl = document.getElementById("body");
const spacer = document.getElementById("spacer");
const hctx = headCanvas.getContext("2d");
const bctx = bodyCanvas.getContext("2d");
const labelEls = new Map();
for (const el of document.querySelectorAll("#labels .lane")) labelEls.set(el.dataset.lane, el);

const AXIS_H = 22, PHASE_H = 14, ROW_H = 13, VIOL_H = 10;
const cpRows = D.checkpoints.reduce((m, c) => Math.max(m, c.row + 1), 1);
const faultRows = D.faults.reduce((m, f) => Math.max(m, f.row + 1), 1);
const CP_Y = AXIS_H + PHASE_H, FAULT_Y = CP_Y + cpRows * ROW_H, VIOL_Y = FAULT_Y + faultRows * ROW_H;
const HEAD_H = VIOL_Y + VIOL_H;

const PHASE_COLORS = { fault: "rgba(230,80,60,0.06)", heal: "rgba(230,190,40,0.08)", liveness: "rgba(60,130,230,0.06)" };
const PHASE_HEAD_COLORS = { fault: "#f3b8ae", heal: "#f3e2a0", liveness: "#b5cdf3", end: "#555" };
const OUTCOME_COLORS = { complete: "#3a3", abort: "#d33", open: "#999" };
const BUCKET = 3; // px per column of aggregated marks
const MAX_ARROWS = 1500; // more in view than this are sampled: past it they are a texture
let headHits = []; // hover and click targets of the head, as last drawn

// layout sizes both canvases for the current window and device pixel ratio, and places
// the lane labels beside their rows.
function layout() {
  const dpr = window.devicePixelRatio || 1;
  V.width = Math.max(200, bodyEl.clientWidth);
  V.plotW = Math.max(20, V.width - GUTTER - 10);
  V.bodyH = Math.max(LANE_H, bodyEl.clientHeight);
  for (const [c, h] of [[headCanvas, HEAD_H], [bodyCanvas, V.bodyH]]) {
    c.width = Math.round(V.width * dpr);
    c.height = Math.round(h * dpr);
    // Both canvases get the body's width, which excludes its scrollbar, so that one time
    // falls on the same x in the head and in the lanes.
    c.style.width = V.width + "px";
    c.style.height = h + "px";
    c.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  spacer.style.height = Math.max(0, V.rows.length * LANE_H + 4 - V.bodyH) + "px";
  D.lanes.forEach((name, l) => {
    const el = labelEls.get(name);
    if (!el) return;
    const r = V.laneRow[l];
    el.style.display = r < 0 ? "none" : "";
    el.style.top = r * LANE_H + "px";
  });
}

// laneCenter is the y of lane l's centre line in the body canvas. It reads the scroll
// offset that drawBody cached, not the DOM's, which is slow to ask once per arrow.
function laneCenter(l) { return V.laneRow[l] * LANE_H + LANE_H / 2 - V.top; }

// fitText shortens text to fit width px, ending it with an ellipsis, rather than let the
// canvas squeeze the letters together.
function fitText(ctx, text, px) {
  if (ctx.measureText(text).width <= px) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (ctx.measureText(text.slice(0, mid) + "\u2026").width <= px) lo = mid; else hi = mid - 1;
  }
  return lo === 0 ? "" : text.slice(0, lo) + "\u2026";
}

function niceStep(span, px) {
  const raw = (span * 110) / px;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function drawHead() {
  const ctx = hctx, W = V.width;
  headHits = [];
  ctx.clearRect(0, 0, W, HEAD_H);
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  ctx.fillStyle = "#555";
  for (const [y, h, name] of [[AXIS_H / 2, 0, "time"], [AXIS_H, PHASE_H, "phase"], [CP_Y, cpRows * ROW_H, "checkpoints"], [FAULT_Y, faultRows * ROW_H, "faults"], [VIOL_Y, VIOL_H, "violations"]]) {
    ctx.fillText(name, 6, h ? y + Math.min(h, ROW_H) / 2 : y);
  }
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER, 0, V.plotW, HEAD_H);
  ctx.clip();
  // Axis.
  const step = niceStep(V.t1 - V.t0, V.plotW);
  ctx.strokeStyle = "#bbb";
  ctx.fillStyle = "#333";
  ctx.beginPath();
  for (let t = Math.ceil(V.t0 / step) * step; t <= V.t1; t += step) {
    const x = Math.round(xOf(t)) + 0.5;
    ctx.moveTo(x, AXIS_H - 6);
    ctx.lineTo(x, HEAD_H);
    ctx.fillText(fmtTime(t, step, V.t1 - V.t0), x + 3, AXIS_H / 2);
  }
  ctx.stroke();
  // Phases.
  for (const p of D.phases) {
    const x0 = xOf(p.start), x1 = Math.max(xOf(p.end), x0 + 1);
    ctx.fillStyle = PHASE_HEAD_COLORS[p.phase] || "#ddd";
    ctx.fillRect(x0, AXIS_H + 1, x1 - x0, PHASE_H - 2);
    ctx.fillStyle = "#333";
    if (x1 - x0 > 40) ctx.fillText(p.phase, Math.max(x0, GUTTER) + 3, AXIS_H + PHASE_H / 2);
    headHits.push({ x0, x1, y0: AXIS_H, y1: AXIS_H + PHASE_H, text: "phase " + p.phase + ": " + fmtTime(p.start) + " .. " + fmtTime(p.end), range: [p.start, p.end] });
  }
  // Checkpoints.
  for (const c of D.checkpoints) {
    const y = CP_Y + c.row * ROW_H + 1, x0 = xOf(c.start), x1 = Math.max(xOf(c.end), x0 + 2);
    ctx.globalAlpha = V.cp === null || V.cp === c.cp ? 1 : 0.25;
    ctx.fillStyle = OUTCOME_COLORS[c.outcome] || "#999";
    ctx.fillRect(x0, y, x1 - x0, ROW_H - 2);
    if (c.persist >= 0) { ctx.fillStyle = "#fff"; ctx.fillRect(xOf(c.persist), y + 2, 1.5, ROW_H - 6); }
    if (c.savepoint) { ctx.strokeStyle = c.stop ? STOP_COLOR : "#70c"; ctx.lineWidth = 2; ctx.strokeRect(x0, y, x1 - x0, ROW_H - 2); }
    if (V.cp === c.cp) { ctx.strokeStyle = "#000"; ctx.lineWidth = 1.5; ctx.strokeRect(x0 - 1, y - 1, x1 - x0 + 2, ROW_H); }
    const label = (c.drain ? "stop-with-savepoint --drain " : c.stop ? "stop-with-savepoint " : c.savepoint ? "savepoint " : "cp ") + c.cp;
    if (x1 - x0 > ctx.measureText(label).width + 6) { ctx.fillStyle = "#fff"; ctx.fillText(label, Math.max(x0, GUTTER) + 3, y + ROW_H / 2 - 1); }
    ctx.globalAlpha = 1;
    headHits.push({ x0, x1, y0: y, y1: y + ROW_H, text: label + " " + c.outcome + (c.reason ? " (" + c.reason + ")" : "") + ": " + fmtTime(c.start) + " .. " + fmtTime(c.end) + " (" + fmtTime(c.end - c.start) + ")", range: [c.start, c.end], event: c.last >= 0 ? c.last : c.first });
  }
  // Faults.
  for (const f of D.faults) {
    const y = FAULT_Y + f.row * ROW_H + 1, x0 = xOf(f.start), x1 = f.instant ? x0 + 2 : Math.max(xOf(f.end), x0 + 2);
    ctx.fillStyle = f.instant ? "#c60" : "rgba(230,120,20,0.75)";
    ctx.fillRect(f.instant ? x0 - 1 : x0, y, x1 - x0, ROW_H - 2);
    if (!f.instant && x1 - x0 > 50) {
      const left = Math.max(x0, GUTTER) + 3;
      ctx.fillStyle = "#000";
      ctx.fillText(fitText(ctx, f.label, Math.min(x1, GUTTER + V.plotW) - left - 3), left, y + ROW_H / 2 - 1);
    }
    headHits.push({ x0: x0 - 2, x1: x1 + 2, y0: y, y1: y + ROW_H, text: "fault " + f.label + (f.instant ? " (instant)" : ": " + fmtTime(f.start) + " .. " + fmtTime(f.end)), range: [f.start, f.end], event: f.first });
  }
  // Violations: a red triangle above each, so they are found even with their lane scrolled away.
  ctx.fillStyle = "#d00";
  ctx.beginPath();
  for (const v of D.violations) {
    const x = xOf(v.t);
    ctx.moveTo(x - 5, VIOL_Y); ctx.lineTo(x + 5, VIOL_Y); ctx.lineTo(x, VIOL_Y + VIOL_H - 1); ctx.closePath();
    headHits.push({ x0: x - 5, x1: x + 5, y0: VIOL_Y, y1: HEAD_H, text: v.property + " at seq " + v.seq + ": " + v.message, seq: v.seq });
  }
  ctx.fill();
  ctx.restore();
}

// Scratch buffers of the bucketed marks, grown as needed and reused across frames.
let bucketCount = new Int32Array(0), bucketBest = new Int32Array(0);
const kindXs = D.kinds.map(() => []), kindYs = D.kinds.map(() => []);

function drawBody() {
  const ctx = bctx, W = V.width, H = V.bodyH, top = (V.top = bodyEl.scrollTop);
  const r0 = Math.max(0, Math.floor(top / LANE_H)), r1 = Math.min(V.rows.length, Math.ceil((top + H) / LANE_H));
  ctx.clearRect(0, 0, W, H);
  for (let r = r0; r < r1; r++) {
    if (r % 2 === 1) { ctx.fillStyle = "#f5f6f8"; ctx.fillRect(0, r * LANE_H - top, W, LANE_H); }
  }
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER, 0, V.plotW, H);
  ctx.clip();
  drawBands(ctx, top, H, r0, r1);
  ctx.strokeStyle = "#e2e2e2";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let r = r0; r < r1; r++) {
    // A lane's line runs over its task's life: a rescale starts some tasks and ends others,
    // which the line shows with a bar where it begins or ends inside the run.
    const l = V.rows[r], y = Math.round(r * LANE_H + LANE_H / 2 - top) + 0.5;
    const from = D.lives[2 * l], to = D.lives[2 * l + 1];
    const x0 = from > D.t0 ? xOf(from) : GUTTER, x1 = to < D.t1 ? xOf(to) : GUTTER + V.plotW;
    ctx.moveTo(x0, y); ctx.lineTo(x1, y);
    if (from > D.t0) { ctx.moveTo(x0, y - 6); ctx.lineTo(x0, y + 6); }
    if (to < D.t1) { ctx.moveTo(x1, y - 6); ctx.lineTo(x1, y + 6); }
  }
  ctx.stroke();
  V.stats = { events: N, lanes: V.rows.length };
  let t = performance.now();
  drawArrows(ctx, top, H);
  V.stats.arrowsMs = performance.now() - t;
  t = performance.now();
  drawLaneMarks(ctx, top, r0, r1);
  V.stats.marksMs = performance.now() - t;
  drawViolations(ctx, H);
  drawSelection(ctx);
  drawChannelMarks(ctx);
  ctx.restore();
  ctx.strokeStyle = "#ccc";
  ctx.beginPath();
  ctx.moveTo(GUTTER - 0.5, 0); ctx.lineTo(GUTTER - 0.5, H);
  ctx.stroke();
}

// drawBands shades phases, faults and the filtered checkpoint behind the lanes. A fault
// is shaded lightly across every lane and more strongly on the lanes it names.
function drawBands(ctx, top, H, r0, r1) {
  for (const p of D.phases) {
    if (!PHASE_COLORS[p.phase]) continue;
    ctx.fillStyle = PHASE_COLORS[p.phase];
    ctx.fillRect(xOf(p.start), 0, xOf(p.end) - xOf(p.start), H);
  }
  for (const c of D.checkpoints) {
    if (V.cp !== c.cp) continue;
    ctx.fillStyle = "rgba(60,170,60,0.08)";
    ctx.fillRect(xOf(c.start), 0, xOf(c.end) - xOf(c.start), H);
  }
  for (const f of D.faults) {
    const x0 = xOf(f.start);
    if (f.instant) {
      ctx.fillStyle = "rgba(200,90,0,0.6)";
      ctx.fillRect(x0 - 0.5, 0, 1, H);
      continue;
    }
    const w = Math.max(1, xOf(f.end) - x0);
    ctx.fillStyle = "rgba(240,140,30,0.07)";
    ctx.fillRect(x0, 0, w, H);
    ctx.fillStyle = "rgba(240,140,30,0.25)";
    for (const l of f.lanes) {
      const r = V.laneRow[l];
      if (r >= r0 && r < r1) ctx.fillRect(x0, r * LANE_H - top, w, LANE_H);
    }
  }
}

// drawArrows draws each message from its send to its receive. A message never received
// is a dashed red stub toward the lane it was meant for.
function drawArrows(ctx, top, H) {
  const xa = GUTTER - 20, xb = GUTTER + V.plotW + 20;
  const inView = [];
  for (let k = 0; k < NA; k++) {
    const s = A.send[k], r = A.recv[k], e = s >= 0 ? s : r;
    if (!passes(e)) continue;
    const ls = s >= 0 ? D.lane[s] : A.peer[k], lr = r >= 0 ? D.lane[r] : A.peer[k];
    if (ls < 0 || lr < 0 || V.laneRow[ls] < 0 || V.laneRow[lr] < 0) continue;
    const xs = s >= 0 ? xOf(D.t[s]) : xOf(D.t[r]) - 14, xr = r >= 0 ? xOf(D.t[r]) : xs + 14;
    if (Math.max(xs, xr) < xa || Math.min(xs, xr) > xb) continue;
    const ys = laneCenter(ls), yr = laneCenter(lr);
    if ((ys < 0 && yr < 0) || (ys > H && yr > H)) continue;
    inView.push(k);
  }
  const stride = Math.max(1, Math.ceil(inView.length / MAX_ARROWS));
  const paths = new Map();
  let drawn = 0;
  for (let j = 0; j < inView.length; j += stride) {
    const k = inView[j], s = A.send[k], r = A.recv[k];
    const ls = s >= 0 ? D.lane[s] : A.peer[k], lr = r >= 0 ? D.lane[r] : A.peer[k];
    let xs = s >= 0 ? xOf(D.t[s]) : xOf(D.t[r]) - 14, ys = laneCenter(ls);
    let xr = r >= 0 ? xOf(D.t[r]) : xs + 14, yr = laneCenter(lr);
    const lost = s < 0 || r < 0;
    if (lost) { const f = 0.45; if (r < 0) yr = ys + (yr - ys) * f; else ys = yr + (ys - yr) * f; }
    const color = lost ? "lost" : arrowColor(kindOf(s));
    if (!paths.has(color)) paths.set(color, new Path2D());
    const p = paths.get(color);
    p.moveTo(xs, ys);
    p.lineTo(xr, yr);
    const ang = Math.atan2(yr - ys, xr - xs);
    if (r >= 0 && Math.hypot(xr - xs, yr - ys) > 10) {
      p.moveTo(xr, yr); p.lineTo(xr - 6 * Math.cos(ang - 0.4), yr - 6 * Math.sin(ang - 0.4));
      p.moveTo(xr, yr); p.lineTo(xr - 6 * Math.cos(ang + 0.4), yr - 6 * Math.sin(ang + 0.4));
    }
    if (r < 0) { p.moveTo(xr - 3, yr - 3); p.lineTo(xr + 3, yr + 3); p.moveTo(xr + 3, yr - 3); p.lineTo(xr - 3, yr + 3); }
    drawn++;
  }
  for (const [color, p] of paths) {
    ctx.lineWidth = color === "lost" ? 1.5 : 1;
    ctx.strokeStyle = color === "lost" ? "rgba(210,30,30,0.9)" : color;
    ctx.setLineDash(color === "lost" ? [3, 2] : []);
    ctx.stroke(p);
  }
  ctx.setLineDash([]);
  V.stats.arrowsInView = inView.length;
  V.stats.arrowsDrawn = drawn;
  V.stats.arrowStride = stride;
}

// drawLaneMarks draws each lane's events in view, bucketed by BUCKET-pixel columns: a
// column with one event shows its mark, one with more shows a bar whose darkness grows with
// the log of its count under the mark of its most telling event. The cost of a frame is
// linear in the events in view, and what is drawn is bounded by lanes times columns.
function drawLaneMarks(ctx, top, r0, r1) {
  const nb = Math.ceil((V.plotW + 40) / BUCKET);
  if (bucketCount.length < nb) { bucketCount = new Int32Array(nb); bucketBest = new Int32Array(nb); }
  const xa = GUTTER - 20, scale = V.plotW / (V.t1 - V.t0);
  const ta = tAt(xa), tb = tAt(GUTTER + V.plotW + 20);
  const density = [[], [], [], []]; // bars by darkness, one path each
  let inView = 0, buckets = 0;
  for (const list of kindXs) list.length = 0;
  for (const list of kindYs) list.length = 0;
  for (let r = r0; r < r1; r++) {
    const l = V.rows[r], list = byLane[l], ts = laneT[l];
    const lo = lowerBound(ts, ta), hi = upperBound(ts, tb);
    if (lo >= hi) continue;
    bucketCount.fill(0, 0, nb);
    for (let j = lo; j < hi; j++) {
      const i = list[j];
      if (!passes(i)) continue;
      const b = Math.floor((GUTTER + (D.t[i] - V.t0) * scale - xa) / BUCKET);
      if (b < 0 || b >= nb) continue;
      inView++;
      if (bucketCount[b]++ === 0 || markPrio[D.kind[i]] > markPrio[D.kind[bucketBest[b]]]) bucketBest[b] = i;
    }
    const y = r * LANE_H + LANE_H / 2 - top;
    for (let b = 0; b < nb; b++) {
      const n = bucketCount[b];
      if (n === 0) continue;
      buckets++;
      const i = bucketBest[b], k = D.kind[i];
      if (n > 1) density[Math.min(3, Math.floor(Math.log2(n) / 2))].push(xa + b * BUCKET, y);
      kindXs[k].push(xOf(D.t[i]));
      kindYs[k].push(y);
    }
  }
  density.forEach((pts, level) => {
    if (pts.length === 0) return;
    ctx.fillStyle = "rgba(70,90,130," + (0.18 + 0.16 * level) + ")";
    ctx.beginPath();
    for (let j = 0; j < pts.length; j += 2) ctx.rect(pts[j], pts[j + 1] - 6, BUCKET, 12);
    ctx.fill();
  });
  // Low-priority kinds first, so the telling marks end on top.
  const order = D.kinds.map((_, k) => k).sort((a, b) => markPrio[a] - markPrio[b] || a - b);
  for (const k of order) drawMarks(ctx, kindMark[k], kindXs[k], kindYs[k], kindXs[k].length);
  V.stats.eventsInView = inView;
  V.stats.buckets = buckets;
}

// drawViolations rings each violation's event and runs a red line down the whole chart at
// its time, so it is seen from any lane.
function drawViolations(ctx, H) {
  V.marks = [];
  ctx.lineWidth = 2;
  for (const v of D.violations) {
    const x = xOf(v.t), r = V.laneRow[v.lane];
    const y = r < 0 ? -1 : laneCenter(v.lane);
    V.marks.push({ seq: v.seq, property: v.property, lane: D.lanes[v.lane], x, y, shown: r >= 0 && x >= GUTTER && x <= GUTTER + V.plotW });
    ctx.strokeStyle = "rgba(220,0,0,0.35)";
    ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, H); ctx.stroke();
    if (r < 0) continue;
    ctx.strokeStyle = "#e00";
    ctx.fillStyle = "rgba(255,0,0,0.25)";
    ctx.beginPath(); ctx.arc(x, y, 7, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
  }
}

function drawSelection(ctx) {
  for (const [i, color] of [[V.hover, "#888"], [partner[V.selected] ?? -1, "#09f"], [V.selected, "#09f"]]) {
    if (i < 0 || D.lane[i] < 0 || V.laneRow[D.lane[i]] < 0) continue;
    ctx.strokeStyle = color;
    ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.arc(xOf(D.t[i]), laneCenter(D.lane[i]), 9, 0, 2 * Math.PI); ctx.stroke();
  }
}

const rangeEl = document.getElementById("view-range");
const statsEl = document.getElementById("draw-stats");

// render draws everything now. Interaction goes through requestRender, which draws once
// per animation frame however many events arrive; the API draws at once so that a test
// reads what it asked for.
function render() {
  const start = performance.now();
  drawHead();
  drawBody();
  V.stats.frameMs = performance.now() - start;
  const step = (V.t1 - V.t0) / 100;
  rangeEl.textContent = fmtTime(V.t0, step, V.t1 - V.t0) + " .. " + fmtTime(V.t1, step, V.t1 - V.t0) + " (" + fmtTime(V.t1 - V.t0) + " in view)";
  const s = V.stats;
  statsEl.textContent = s.eventsInView + " events in view" + (s.arrowStride > 1 ? ", arrows sampled 1 in " + s.arrowStride : "");
}

let pending = false;
function requestRender() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; render(); });
}
