// marks.js: how each kind of event is drawn. prio ranks the marks that share a crowded
// pixel column: the one drawn on top of the density bar is the most telling (a crash over
// a barrier), so that zooming out never hides a failure behind routine traffic.

const MARKS = {
  "checkpoint.request": { shape: "tick", color: "#999", prio: 1 },
  "checkpoint.trigger": { shape: "tri", color: "#1a8a4a", prio: 5 },
  "checkpoint.persist": { shape: "tick", color: "#27a", prio: 2 },
  "checkpoint.complete": { shape: "diamond", color: "#1a8a4a", prio: 6 },
  "checkpoint.abort": { shape: "diamond", color: "#d22", prio: 8 },
  "coordinator.crash": { shape: "xbox", color: "#b00", prio: 10, big: true },
  "coordinator.recover": { shape: "ring", color: "#06c", prio: 9, big: true },
  "job.failover": { shape: "star", color: "#b0b", prio: 10, big: true },
  "barrier.send": { shape: "dot", color: "#36c", prio: 1 },
  "barrier.recv": { shape: "dot", color: "#7ab", prio: 1 },
  "snapshot.taken": { shape: "circle", color: "#333", prio: 3 },
  "snapshot.carried": { shape: "ring", color: "#777", prio: 2 },
  "snapshot.ack": { shape: "square", color: "#1a8a4a", prio: 4 },
  "snapshot.decline": { shape: "cross", color: "#e60", prio: 8 },
  "notify.complete": { shape: "diamond", color: "#5b5", prio: 4 },
  "notify.abort": { shape: "diamond", color: "#e44", prio: 7 },
  "task.crash": { shape: "cross", color: "#b00", prio: 10, big: true },
  "task.restore": { shape: "up", color: "#06c", prio: 9, big: true },
  "task.finish": { shape: "bar", color: "#000", prio: 3 },
  "job.finish": { shape: "bar", color: "#000", prio: 9, big: true },
  "sink.commit": { shape: "square", color: "#85c", prio: 5 },
  "sink.precommit": { shape: "hollow", color: "#85c", prio: 3 },
  "sink.abort": { shape: "square", color: "#d22", prio: 6 },
  "sink.write": { shape: "tick", color: "#bbb", prio: 0 },
  "sink.writes": { shape: "tick", color: "#bbb", prio: 0 },
  "sink.upsert": { shape: "tick", color: "#bbb", prio: 0 },
  "sink.read": { shape: "tick", color: "#a80", prio: 1 },
  "record.send": { shape: "tick", color: "#ccc", prio: 0 },
  "record.recv": { shape: "tick", color: "#ccc", prio: 0 },
};
const DEFAULT_MARK = { shape: "dot", color: "#888", prio: 0 };
// STOP_COLOR outlines a stop-with-savepoint: the savepoint that ends the job.
const STOP_COLOR = "#c06";
const kindMark = D.kinds.map((k) => MARKS[k] || DEFAULT_MARK);
const markPrio = Int8Array.from(kindMark, (m) => m.prio);

// Events shown whatever checkpoint the filter picks: they are the context a checkpoint's
// fate is read against.
const CONTEXT_KINDS = new Set(["task.crash", "task.restore", "task.finish", "coordinator.crash", "coordinator.recover", "job.failover"]);
const isContext = Uint8Array.from(D.kinds, (k) => (CONTEXT_KINDS.has(k) ? 1 : 0));

// Arrow colours by message kind: barriers blue, records grey, anything else (cancel
// markers, control messages) purple.
function arrowColor(kind) {
  if (kind.startsWith("barrier.")) return "rgba(40,90,200,0.55)";
  if (kind.startsWith("record.")) return "rgba(120,120,120,0.35)";
  return "rgba(150,60,190,0.7)";
}

// traceShape adds one mark's outline to the current path; fill or stroke follows by shape.
function traceShape(ctx, shape, x, y, r) {
  switch (shape) {
    case "dot": ctx.moveTo(x + r * 0.6, y); ctx.arc(x, y, r * 0.6, 0, 2 * Math.PI); break;
    case "circle": case "ring": ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI); break;
    case "square": case "hollow": ctx.rect(x - r * 0.8, y - r * 0.8, r * 1.6, r * 1.6); break;
    case "diamond": ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y); ctx.closePath(); break;
    case "tri": ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x - r, y + r); ctx.closePath(); break;
    case "up": ctx.moveTo(x, y - r); ctx.lineTo(x + r, y + r); ctx.lineTo(x - r, y + r); ctx.closePath(); break;
    case "tick": ctx.moveTo(x, y - r); ctx.lineTo(x, y + r); break;
    case "bar": ctx.rect(x - 1, y - r - 1, 2, 2 * r + 2); break;
    case "xbox": ctx.rect(x - r, y - r, 2 * r, 2 * r); // and the cross below
    // falls through
    case "cross": ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r); ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r); break;
    case "star":
      for (let k = 0; k < 10; k++) {
        const a = -Math.PI / 2 + (k * Math.PI) / 5, rr = k % 2 ? r * 0.45 : r;
        if (k === 0) ctx.moveTo(x + rr * Math.cos(a), y + rr * Math.sin(a));
        else ctx.lineTo(x + rr * Math.cos(a), y + rr * Math.sin(a));
      }
      ctx.closePath();
      break;
  }
}

function strokedShape(shape) {
  return shape === "tick" || shape === "cross" || shape === "xbox" || shape === "ring" || shape === "hollow";
}

// drawMarks draws one kind's marks at the points xs, ys as a single path: one fill or
// stroke per kind per frame rather than one per event.
function drawMarks(ctx, mark, xs, ys, n) {
  const r = mark.big ? 6 : 4;
  ctx.beginPath();
  for (let k = 0; k < n; k++) traceShape(ctx, mark.shape, xs[k], ys[k], r);
  if (strokedShape(mark.shape)) {
    ctx.strokeStyle = mark.color;
    ctx.lineWidth = mark.big ? 2.5 : 1.5;
    ctx.stroke();
  } else {
    ctx.fillStyle = mark.color;
    ctx.fill();
  }
}
