// interact.js: the reader's hands on the view. The wheel zooms around the pointer, a drag
// pans (time across, lanes up and down), hovering shows an event's trace line, a click keeps
// it in the panel, and the violations, the filters and the buttons move the view.

const tip = document.getElementById("tip");
const detail = document.getElementById("detail");
const cpSelect = document.getElementById("cp-filter");
const taskInput = document.getElementById("task-filter");
const violationItems = Array.from(document.querySelectorAll("#violations li[data-seq]"));
const HIT_PX = 6;

// hitEvent finds the event nearest x on the lane under y (body canvas CSS px), within
// HIT_PX; among events at the same distance the most telling wins, as it does in drawing.
// It returns the event (or -1) and how many events lie within reach.
function hitEvent(x, y) {
  const r = Math.floor((y + V.top) / LANE_H);
  if (x < GUTTER || r < 0 || r >= V.rows.length) return [-1, 0];
  const l = V.rows[r], ts = laneT[l], list = byLane[l];
  const t = tAt(x), slack = (HIT_PX * (V.t1 - V.t0)) / V.plotW;
  let best = -1, bestD = Infinity, n = 0;
  for (let j = lowerBound(ts, t - slack); j < ts.length && ts[j] <= t + slack; j++) {
    const i = list[j];
    if (!passes(i)) continue;
    n++;
    const d = Math.abs(ts[j] - t);
    if (d < bestD || (d === bestD && markPrio[D.kind[i]] > markPrio[D.kind[best]])) { best = i; bestD = d; }
  }
  return [best, n];
}

function hitViolation(x, y) {
  for (const m of V.marks) if (m.y >= 0 && Math.hypot(m.x - x, m.y - y) <= 8) return m;
  return null;
}

function hitHead(x, y) {
  for (let k = headHits.length - 1; k >= 0; k--) {
    const h = headHits[k];
    if (x >= h.x0 && x <= h.x1 && y >= h.y0 && y <= h.y1) return h;
  }
  return null;
}

function describe(i) {
  let s = D.line[i];
  const p = partner[i];
  if (p >= 0) s += "\n" + (D.seq[p] > D.seq[i] ? "received" : "sent") + " at seq " + D.seq[p] + " by " + D.lanes[D.lane[p]] + ", " + fmtTime(D.t[p]);
  for (const v of D.violations) if (v.event === i) s += "\nVIOLATION " + v.property + ": " + v.message;
  return s;
}

function showTip(text, cx, cy) {
  tip.textContent = text;
  tip.hidden = false;
  const w = tip.offsetWidth, h = tip.offsetHeight;
  tip.style.left = Math.min(cx + 14, window.innerWidth - w - 4) + "px";
  tip.style.top = (cy + 16 + h > window.innerHeight ? cy - h - 8 : cy + 16) + "px";
}

function showDetail(i) {
  if (i < 0) return;
  let text;
  try { text = JSON.stringify(JSON.parse(D.line[i]), null, 1); } catch (err) { text = D.line[i]; }
  detail.textContent = text + describe(i).slice(D.line[i].length);
}

function markViolation(seq) {
  for (const li of violationItems) li.classList.toggle("current", Number(li.dataset.seq) === seq);
}

// zoomToSeq centres the view on event seq, at zoomSpan's width, clears a filter that would
// hide it, scrolls its lane into view and keeps it in the panel.
function zoomToSeq(seq) {
  seq = Number(seq);
  let i = seqIndex.get(seq), t, lane;
  if (i !== undefined) { t = D.t[i]; lane = D.lane[i]; } else {
    const v = D.violations.find((v) => v.seq === seq);
    if (!v) return false;
    i = -1; t = v.t; lane = v.lane;
  }
  for (const v of D.violations) if (v.seq === seq && lane < 0) lane = v.lane;
  if (i >= 0 && !passes(i)) { V.cp = null; cpSelect.value = ""; }
  if (lane >= 0 && V.laneRow[lane] < 0) { taskInput.value = ""; setTaskFilter(""); }
  const w = zoomSpan();
  setView(t - w / 2, t + w / 2);
  layout();
  if (lane >= 0) bodyEl.scrollTop = Math.max(0, V.laneRow[lane] * LANE_H - V.bodyH / 2);
  V.selected = i;
  showDetail(i);
  markViolation(seq);
  render();
  return true;
}

let drag = null;
function onPointerDown(e) {
  if (e.button !== 0) return;
  drag = { x: e.clientX, y: e.clientY, t0: V.t0, t1: V.t1, scroll: bodyEl.scrollTop, moved: false, canvas: e.currentTarget };
  e.currentTarget.setPointerCapture(e.pointerId);
}

function onPointerMove(e) {
  const c = e.currentTarget;
  if (drag && drag.canvas === c) {
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 3) return;
    drag.moved = true;
    c.classList.add("dragging");
    tip.hidden = true;
    const dt = (dx * (drag.t1 - drag.t0)) / V.plotW;
    setView(drag.t0 - dt, drag.t1 - dt);
    if (c === bodyCanvas) bodyEl.scrollTop = drag.scroll - dy;
    requestRender();
    return;
  }
  hover(c, e.offsetX, e.offsetY, e.clientX, e.clientY);
}

function hover(c, x, y, cx, cy) {
  let text = null, i = -1;
  if (c === headCanvas) {
    const h = hitHead(x, y);
    if (h) text = h.text;
  } else {
    const [hit, n] = hitEvent(x, y);
    const v = hitViolation(x, y);
    i = hit;
    if (v && (i < 0 || D.seq[i] !== v.seq)) i = seqIndex.has(v.seq) ? seqIndex.get(v.seq) : -1;
    if (i >= 0) text = describe(i) + (n > 1 ? "\n(" + (n - 1) + " more events within " + HIT_PX + " px: zoom in)" : "");
    else if (v) text = v.property + " at seq " + v.seq;
  }
  if (i !== V.hover) { V.hover = i; requestRender(); }
  if (text === null) { tip.hidden = true; return; }
  showTip(text, cx, cy);
  if (i >= 0 && V.selected < 0) showDetail(i);
}

function onPointerUp(e) {
  const c = e.currentTarget;
  if (!drag || drag.canvas !== c) return;
  const click = !drag.moved;
  drag = null;
  c.classList.remove("dragging");
  if (click) onClick(c, e.offsetX, e.offsetY);
}

function onClick(c, x, y) {
  if (c === headCanvas) {
    const h = hitHead(x, y);
    if (!h) return;
    if (h.seq !== undefined) { zoomToSeq(h.seq); return; }
    const pad = Math.max((h.range[1] - h.range[0]) * 0.1, 1000);
    setView(h.range[0] - pad, h.range[1] + pad);
    if (h.event !== undefined) { V.selected = h.event; showDetail(h.event); }
    render();
    return;
  }
  const v = hitViolation(x, y);
  const [i] = hitEvent(x, y);
  V.selected = v && seqIndex.has(v.seq) ? seqIndex.get(v.seq) : i;
  if (v) markViolation(v.seq);
  showDetail(V.selected);
  render();
}

function onWheel(e) {
  e.preventDefault();
  const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
  if (e.shiftKey) { bodyEl.scrollTop += (e.deltaY || e.deltaX) * unit; return; }
  if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) panBy(-e.deltaX * unit);
  else zoomAround(e.offsetX, Math.exp(Math.max(-200, Math.min(200, e.deltaY * unit)) * 0.002));
  requestRender();
}

for (const c of [headCanvas, bodyCanvas]) {
  c.addEventListener("wheel", onWheel, { passive: false });
  c.addEventListener("pointerdown", onPointerDown);
  c.addEventListener("pointermove", onPointerMove);
  c.addEventListener("pointerup", onPointerUp);
  c.addEventListener("pointercancel", () => { drag = null; });
  c.addEventListener("mouseleave", () => { tip.hidden = true; if (V.hover >= 0) { V.hover = -1; requestRender(); } });
  c.addEventListener("dblclick", () => { fit(); render(); });
}
bodyEl.addEventListener("scroll", requestRender);
// The chart follows its box, not the window: the box also changes when the header or the
// toolbar reflows, or when the window is sized after the page has loaded.
new ResizeObserver(() => { layout(); render(); }).observe(bodyEl);
// Going to a violation shows its channel's story, if it names a channel.
function goToViolation(li) {
  showChannel(Number(li.dataset.index));
  zoomToSeq(li.dataset.seq);
  for (const other of violationItems) other.classList.toggle("current", other === li);
}
for (const li of violationItems) {
  li.addEventListener("click", () => goToViolation(li));
  li.addEventListener("keydown", (e) => { if (e.key === "Enter") goToViolation(li); });
}
cpSelect.addEventListener("change", () => { setCheckpointFilter(cpSelect.value); render(); });
taskInput.addEventListener("input", () => { setTaskFilter(taskInput.value); layout(); render(); });
document.getElementById("fit").addEventListener("click", () => { fit(); render(); });
document.getElementById("zoom-in").addEventListener("click", () => { zoomAround(GUTTER + V.plotW / 2, 0.5); render(); });
document.getElementById("zoom-out").addEventListener("click", () => { zoomAround(GUTTER + V.plotW / 2, 2); render(); });

// The legend draws each kind that occurs with the same code as the chart, so it cannot
// drift from what the chart shows.
function buildLegend() {
  const ul = document.getElementById("legend");
  const entry = (label, paint) => {
    const li = document.createElement("li");
    const c = document.createElement("canvas");
    const dpr = window.devicePixelRatio || 1;
    c.width = 18 * dpr; c.height = 14 * dpr;
    c.style.width = "18px"; c.style.height = "14px";
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paint(ctx);
    li.append(c, document.createTextNode(label));
    ul.append(li);
  };
  const onLanes = new Set();
  for (let i = 0; i < N; i++) if (D.lane[i] >= 0) onLanes.add(D.kind[i]);
  D.kinds.map((k, i) => [k, i]).filter(([, i]) => onLanes.has(i)).sort((a, b) => (a[0] < b[0] ? -1 : 1)).forEach(([k, i]) => {
    entry(k, (ctx) => drawMarks(ctx, kindMark[i], [9], [7], 1));
  });
  const line = (color, dash) => (ctx) => { ctx.strokeStyle = color; ctx.setLineDash(dash); ctx.lineWidth = 1.5; ctx.beginPath(); ctx.moveTo(1, 10); ctx.lineTo(17, 4); ctx.stroke(); };
  entry("barrier", line(arrowColor("barrier.send"), []));
  entry("message never received", line("rgba(210,30,30,0.9)", [3, 2]));
  entry("many events (darker: more)", (ctx) => { ctx.fillStyle = "rgba(70,90,130,0.5)"; ctx.fillRect(7, 1, 4, 12); });
  entry("violation", (ctx) => { ctx.strokeStyle = "#e00"; ctx.lineWidth = 2; ctx.beginPath(); ctx.arc(9, 7, 5, 0, 2 * Math.PI); ctx.stroke(); });
  for (const [name, color] of Object.entries(OUTCOME_COLORS)) entry("checkpoint " + name, (ctx) => { ctx.fillStyle = color; ctx.fillRect(1, 3, 16, 8); });
  entry("savepoint", (ctx) => { ctx.strokeStyle = "#70c"; ctx.lineWidth = 2; ctx.strokeRect(2, 3, 14, 8); });
  if (D.checkpoints.some((c) => c.stop)) entry("stop-with-savepoint", (ctx) => { ctx.strokeStyle = STOP_COLOR; ctx.lineWidth = 2; ctx.strokeRect(2, 3, 14, 8); });
  entry("fault window", (ctx) => { ctx.fillStyle = "rgba(230,120,20,0.75)"; ctx.fillRect(1, 3, 16, 8); });
  entry("instant fault", (ctx) => { ctx.fillStyle = "#c60"; ctx.fillRect(8, 1, 2, 12); });
  for (const [name, color] of Object.entries(PHASE_HEAD_COLORS)) {
    if (name !== "end") entry(name + " phase", (ctx) => { ctx.fillStyle = color; ctx.fillRect(1, 3, 16, 8); });
  }
}
