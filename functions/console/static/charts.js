// Small inline SVG charts drawn here: no chart library, nothing fetched.
import { path } from "./api.js";
import { svg, h, shorten } from "./dom.js";

const PALETTE = ["#1f5fa8", "#2e7d32", "#8e4b00", "#6a3d9a", "#b0003a", "#00696b"];

// One horizontal bar split by share; the numbers are in the title and the legend for screen readers.
export function stackedBar(parts, label, width = 160) {
  const total = parts.reduce((s, p) => s + p.value, 0);
  const text = parts.map((p) => `${p.label} ${p.value}`).join(", ");
  const bar = svg("svg", { width, height: 14, viewBox: `0 0 ${width} 14`, role: "img", "aria-label": `${label}: ${text}`, class: "stacked" });
  let x = 0;
  parts.forEach((p, i) => {
    if (!total || !p.value) return;
    const w = (p.value / total) * width;
    bar.append(svg("rect", { x, y: 0, width: w, height: 14, fill: PALETTE[i % PALETTE.length] }, svg("title", null, `${p.label}: ${p.value}`)));
    x += w;
  });
  if (!total) bar.append(svg("rect", { x: 0, y: 0, width, height: 14, class: "empty" }));
  return h("span", { class: "stacked-cell" }, bar, h("span", { class: "legend" }, text));
}

// The score parts of a recall result, each bar scaled to the largest value of that part among the
// results shown (keyword ranks are not on a 0..1 scale), with the raw value beside it.
export function scoreBars(parts, maxima) {
  const names = ["vector", "keyword", "recency", "importance"];
  const rowH = 16, labelW = 78, barW = 140, valueW = 52;
  const width = labelW + barW + valueW;
  const chart = svg("svg", {
    class: "score-bars", width, height: rowH * names.length, viewBox: `0 0 ${width} ${rowH * names.length}`, role: "img",
    "aria-label": "Score parts: " + names.map((n) => `${n} ${parts[n] == null ? "none" : parts[n].toFixed(3)}`).join(", "),
  });
  names.forEach((name, i) => {
    const value = parts[name];
    const y = i * rowH;
    const scale = Math.max(maxima[name] || 0, 1e-9);
    chart.append(
      svg("text", { x: 0, y: y + 12, class: "bar-label" }, name),
      svg("rect", { x: labelW, y: y + 3, width: barW, height: 10, class: "bar-track" }),
      svg("rect", { x: labelW, y: y + 3, width: value == null ? 0 : Math.max(1, (value / scale) * barW), height: 10, fill: PALETTE[i], class: `bar bar-${name}` }),
      svg("text", { x: labelW + barW + 6, y: y + 12, class: "bar-value" }, value == null ? "–" : value.toFixed(3)),
    );
  });
  return chart;
}

// Squarified treemap (Bruls, Huizing, van Wijk) of items {value} into the rectangle; returns rects.
function squarify(items, x, y, w, h) {
  const out = [];
  const total = items.reduce((s, i) => s + i.value, 0);
  if (!total || w <= 0 || h <= 0) return out;
  const scale = (w * h) / total;
  let rest = items.map((i) => ({ item: i, area: i.value * scale }));
  while (rest.length) {
    const short = Math.min(w, h);
    let row = [rest[0]];
    let worst = worstRatio(row, short);
    let n = 1;
    while (n < rest.length) {
      const next = worstRatio([...row, rest[n]], short);
      if (next > worst) break;
      row = [...row, rest[n]]; worst = next; n++;
    }
    const rowArea = row.reduce((s, r) => s + r.area, 0);
    const thick = rowArea / short;
    let offset = 0;
    for (const r of row) {
      const len = r.area / thick;
      out.push(w >= h ? { item: r.item, x, y: y + offset, w: thick, h: len } : { item: r.item, x: x + offset, y, w: len, h: thick });
      offset += len;
    }
    if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
    rest = rest.slice(n);
  }
  return out;
}

function worstRatio(row, short) {
  const sum = row.reduce((s, r) => s + r.area, 0);
  const max = Math.max(...row.map((r) => r.area));
  const min = Math.min(...row.map((r) => r.area));
  return Math.max((short * short * max) / (sum * sum), (sum * sum) / (short * short * min));
}

// The topic tree as nested rectangles sized by members: top topics get a header strip with their
// name, their children fill the rest. Every topic is a focusable button (Enter or click: onPick).
export function treemap(topics, onPick, width = 960, height = 540) {
  const map = svg("svg", { class: "treemap", viewBox: `0 0 ${width} ${height}`, role: "group", "aria-label": "Topic map" });
  const draw = (nodes, x, y, w, hgt, depth) => {
    const sorted = [...nodes].filter((n) => n.member_count > 0).sort((a, b) => b.member_count - a.member_count);
    for (const [index, cell] of squarify(sorted.map((n) => ({ ...n, value: n.member_count })), x, y, w, hgt).entries()) {
      const t = cell.item;
      const pad = 2;
      const g = svg("g", {
        class: `topic depth-${depth}`, tabindex: 0, role: "button", dataset: { topicId: t.id },
        "aria-label": `${t.name}, ${t.member_count} memories`,
      });
      const rx = cell.x + pad, ry = cell.y + pad, rw = Math.max(0, cell.w - 2 * pad), rh = Math.max(0, cell.h - 2 * pad);
      g.append(
        svg("title", null, `${t.name} (${t.member_count})${t.keywords && t.keywords.length ? ": " + t.keywords.join(", ") : ""}`),
        svg("rect", { x: rx, y: ry, width: rw, height: rh, fill: PALETTE[(depth + index) % PALETTE.length], class: "topic-rect" }),
      );
      if (rw > 40 && rh > 16) {
        g.append(svg("text", { x: rx + 4, y: ry + 13, class: "topic-name" }, shorten(`${t.name} (${t.member_count})`, Math.floor(rw / 7))));
      }
      const pick = (event) => { event.stopPropagation(); onPick(t); };
      g.addEventListener("click", pick);
      g.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); pick(event); } });
      map.append(g);
      if (t.children && t.children.length && rh > 40 && rw > 40) draw(t.children, rx + 2, ry + 18, rw - 4, rh - 20, depth + 1);
    }
  };
  draw(topics, 0, 0, width, height, 0);
  return map;
}

// A memory's links as a radial graph: the memory in the middle, depth 1 on the inner ring, depth 2
// outside. Each node is a link to that memory's page.
export function linkGraph(root, nodes, size = 420) {
  const c = size / 2;
  const graph = svg("svg", { class: "link-graph", viewBox: `0 0 ${size} ${size}`, role: "group", "aria-label": `Links of this memory: ${nodes.length}` });
  const position = new Map([[root.id, { x: c, y: c }]]);
  const byDepth = new Map();
  for (const n of nodes) (byDepth.get(n.depth) || byDepth.set(n.depth, []).get(n.depth)).push(n);
  for (const [depth, ring] of byDepth) {
    const radius = Math.min(c - 40, depth * 95);
    ring.forEach((n, i) => {
      const angle = (2 * Math.PI * i) / ring.length - Math.PI / 2 + depth * 0.3;
      position.set(n.memory.id, { x: c + radius * Math.cos(angle), y: c + radius * Math.sin(angle) });
    });
  }
  const edges = svg("g", { class: "edges" });
  for (const n of nodes) {
    const from = position.get(n.via.from_id), to = position.get(n.via.to_id);
    if (!from || !to) continue;
    const mx = (from.x + to.x) / 2, my = (from.y + to.y) / 2;
    edges.append(
      svg("line", { x1: from.x, y1: from.y, x2: to.x, y2: to.y, class: `edge rel-${n.via.relation}`, "marker-end": "url(#arrow)" }),
      svg("text", { x: mx, y: my - 3, class: "edge-label" }, n.via.relation),
    );
  }
  graph.append(
    svg("defs", null, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 16, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
      svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" }))),
    edges,
  );
  const drawNode = (memory, isRoot) => {
    const p = position.get(memory.id);
    const a = svg("a", { href: path`#/memory/${memory.id}`, class: isRoot ? "node root" : "node", "aria-label": shorten(memory.summary, 120) });
    a.append(svg("circle", { cx: p.x, cy: p.y, r: isRoot ? 12 : 9 }), svg("text", { x: p.x, y: p.y + (isRoot ? 26 : 22), class: "node-label" }, shorten(memory.summary, 22)));
    graph.append(a);
  };
  for (const n of nodes) drawNode(n.memory, false);
  drawNode(root, true);
  return graph;
}
