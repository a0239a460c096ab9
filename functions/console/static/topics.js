// Topic map: the namespace's topic tree as a treemap sized by members; a topic lists its members.
import { get, path } from "./api.js";
import { h, when, num, shorten, errorBox } from "./dom.js";
import { treemap } from "./charts.js";

async function showMembers(panel, topic) {
  panel.replaceChildren(h("p", { class: "muted" }, `Loading ${topic.name}…`));
  try {
    const detail = await get(path`/v1/topics/${topic.id}`);
    panel.replaceChildren(
      h("h3", { id: "topic-title", tabindex: -1 }, detail.name),
      h("p", { class: "muted" }, [`${num(detail.member_count)} memories`, detail.keywords.length ? ` · ${detail.keywords.join(", ")}` : "",
        detail.children.length ? ` · ${detail.children.length} subtopics` : ""]),
      h("ul", { class: "members", id: "topic-members" }, detail.memories.memories.map((m) => h("li", null,
        h("a", { href: path`#/memory/${m.memory_id}` }, shorten(m.summary, 140)), " ", h("span", { class: "muted" }, `${m.kind} · ${m.layer}`)))));
    panel.querySelector("#topic-title").focus();
  } catch (error) {
    panel.replaceChildren(errorBox(error));
  }
}

export async function render(root, _args, { namespace }) {
  const tree = await get("/v1/topics", { namespace });
  root.append(h("h2", null, `Topics in ${namespace}`));
  if (!tree.topics.length) {
    root.append(h("p", null, "No topic tree yet: an applied consolidation run builds it (Consolidation › Run now)."));
    return;
  }
  const panel = h("div", { class: "topic-members", "aria-live": "polite" }, h("p", { class: "muted" }, "Pick a topic to list its memories."));
  root.append(
    h("p", { class: "muted" }, `${num(tree.memories)} memories in ${num(tree.leaves)} leaf topics, built `, when(tree.built_at)),
    h("figure", { class: "map" }, treemap(tree.topics, (t) => showMembers(panel, t)),
      h("figcaption", { class: "muted" }, "Area is the number of memories; Tab to a topic and press Enter to list them.")),
    panel);
}
