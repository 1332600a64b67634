// api.js: start the page, and expose a small API on window.spacetime. Tests drive the page
// through it (and people can, from the console); every call that changes the view draws at
// once, so a caller reads back what it asked for. Coordinates are CSS pixels in the body
// canvas: x from its left edge (the plot starts at plot().left), y from its top.

function laneY(name) {
  const l = D.lanes.indexOf(name);
  return l < 0 || V.laneRow[l] < 0 ? null : laneCenter(l);
}

function eventInfo(i) {
  return { seq: D.seq[i], t: D.t[i], kind: kindOf(i), lane: D.lane[i] < 0 ? null : D.lanes[D.lane[i]], cp: D.cp[i], line: D.line[i], x: xOf(D.t[i]), y: D.lane[i] < 0 ? null : laneY(D.lanes[D.lane[i]]) };
}

const probe = document.createElement("canvas");
probe.width = probe.height = 1;
const probeCtx = probe.getContext("2d", { willReadFrequently: true });

window.spacetime = Object.freeze({
  lanes: () => V.rows.map((l) => D.lanes[l]),
  allLanes: () => D.lanes.slice(),
  viewRange: () => ({ t0: V.t0, t1: V.t1 }),
  runRange: () => ({ t0: D.t0, t1: D.t1 }),
  plot: () => ({ left: GUTTER, width: V.plotW, height: V.bodyH, laneHeight: LANE_H }),
  setView: (t0, t1) => { setView(t0, t1); render(); return { t0: V.t0, t1: V.t1 }; },
  fit: () => { fit(); render(); return { t0: V.t0, t1: V.t1 }; },
  zoomTo: (seq) => zoomToSeq(seq),
  xOf: (t) => xOf(t),
  laneY,
  event: (seq) => (seqIndex.has(Number(seq)) ? eventInfo(seqIndex.get(Number(seq))) : null),
  eventAt: (x, y) => { const [i] = hitEvent(x, y); return i < 0 ? null : D.seq[i]; },
  selected: () => (V.selected < 0 ? null : D.seq[V.selected]),
  violationMarks: () => V.marks.map((m) => Object.assign({}, m)),
  setFilter: (f) => {
    if (f && "task" in f) { taskInput.value = f.task || ""; setTaskFilter(taskInput.value); layout(); }
    if (f && "cp" in f) { cpSelect.value = f.cp === null ? "" : String(f.cp); setCheckpointFilter(f.cp); }
    render();
    return { cp: V.cp, lanes: V.rows.length };
  },
  stats: () => Object.assign({ startupMs: V.startupMs }, V.stats),
  pixel: (x, y) => {
    // Copied through a small canvas made for reading, so that the chart's own canvas
    // stays one the browser may keep on the GPU.
    const dpr = window.devicePixelRatio || 1;
    probeCtx.clearRect(0, 0, 1, 1);
    probeCtx.drawImage(bodyCanvas, Math.round(x * dpr), Math.round(y * dpr), 1, 1, 0, 0, 1, 1);
    return Array.from(probeCtx.getImageData(0, 0, 1, 1).data);
  },
  render: () => { render(); return Object.assign({ startupMs: V.startupMs }, V.stats); },
  channel: () => (channelPanel.hidden ? null : {
    name: document.getElementById("channel-name").textContent,
    rows: Array.from(channelBody.rows, (tr) => Array.from(tr.cells, (td) => td.textContent)),
    violated: channelBody.querySelector("tr.violated")?.dataset.cp ?? null,
    crossing: document.getElementById("channel-crossing").textContent,
    rings: (V.channelSeqs || []).slice(),
  }),
});

setTaskFilter("");
// The first violation that names a channel opens with its channel's story.
{
  const first = D.violations.findIndex((_, k) => D.channels.some((s) => s.violations.includes(k)));
  if (first >= 0) showChannel(first);
}
opening();
layout();
buildLegend();
render();
for (const v of D.violations) labelEls.get(D.lanes[v.lane])?.classList.add("violated");
// Time from the start of navigation to the first picture, for the API and the curious.
V.startupMs = performance.now();
document.documentElement.dataset.ready = "true";
