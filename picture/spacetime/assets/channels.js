// The channel panel: for a violation that names a channel, the counts each checkpoint's two
// snapshots give it, the violated checkpoint's row in red, and which records cross that
// cut. Its snapshot events are ringed on the chart.
const channelPanel = document.getElementById("channel-panel");
const channelBody = channelPanel.querySelector("tbody");

// showChannel shows the story of violation k's channel, or hides the panel if it names none.
function showChannel(k) {
  const story = D.channels.find((s) => s.violations.includes(k));
  V.channelSeqs = [];
  if (!story) { channelPanel.hidden = true; return; }
  const cp = D.violations[k].cp;
  document.getElementById("channel-name").textContent = story.from + " \u2192 " + story.to;
  channelBody.replaceChildren();
  let crossing = "";
  for (const r of story.rows) {
    const tr = document.createElement("tr");
    tr.dataset.cp = r.cp;
    if (r.cp === cp) { tr.className = "violated"; crossing = r.crossing || ""; V.channelSeqs = [r.sentSeq, r.recvSeq].filter((s) => s > 0); }
    const cells = [
      [String(r.cp), 0],
      [r.sentSeq ? String(r.sent - r.kept) : "\u2013", r.sentSeq],
      [r.recvSeq ? String(r.recv) : "\u2013", r.recvSeq],
      [r.recvSeq ? String(r.inFlight) : "\u2013", r.recvSeq],
      [r.sentSeq && r.recvSeq ? String(r.sent - r.kept - r.recv - r.inFlight) : "", 0],
    ];
    for (const [text, seq] of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      if (seq) { td.className = "seq"; td.title = "seq " + seq; td.addEventListener("click", () => zoomToSeq(seq)); }
      tr.appendChild(td);
    }
    channelBody.appendChild(tr);
  }
  document.getElementById("channel-crossing").textContent = crossing;
  channelPanel.hidden = false;
  channelBody.querySelector("tr.violated")?.scrollIntoView({ block: "nearest" });
}

// drawChannelMarks rings the two snapshots of the violated checkpoint on the channel.
function drawChannelMarks(ctx) {
  for (const seq of V.channelSeqs || []) {
    const i = seqIndex.get(seq);
    if (i === undefined || D.lane[i] < 0 || V.laneRow[D.lane[i]] < 0) continue;
    ctx.strokeStyle = "#c60";
    ctx.lineWidth = 2;
    ctx.beginPath(); ctx.arc(xOf(D.t[i]), laneCenter(D.lane[i]), 12, 0, 2 * Math.PI); ctx.stroke();
  }
}
