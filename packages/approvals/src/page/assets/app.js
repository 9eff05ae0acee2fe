// The approvals page: the asks of toolhost processes, live from /events, answered with a click or a
// key. Everything an ask holds came from a tool, a model or a peer: it is put in the page as text
// (textContent), never as markup, and the page's CSP allows no inline script besides.
"use strict";

const token = document.querySelector('meta[name="toolhost-token"]').getAttribute("content");
const records = new Map();
const cards = new Map();
const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function time(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleTimeString();
}

function connect() {
  const events = new EventSource(`/events?token=${encodeURIComponent(token)}`);
  events.addEventListener("open", () => setStatus("live", false));
  events.addEventListener("error", () => setStatus("connection lost: retrying…", true));
  events.addEventListener("snapshot", (event) => {
    records.clear();
    for (const record of JSON.parse(event.data)) records.set(record.id, record);
    for (const id of [...cards.keys()]) if (!records.has(id)) removeCard(id);
    for (const record of records.values()) show(record);
    update();
  });
  events.addEventListener("ask", (event) => {
    const record = JSON.parse(event.data);
    records.set(record.id, record);
    show(record);
    update();
  });
}

function setStatus(text, lost) {
  $("status").textContent = text;
  $("status").classList.toggle("lost", lost);
}

function removeCard(id) {
  cards.get(id)?.node.remove();
  cards.delete(id);
}

/** Puts a record's card in its list, rebuilt only when its state changed (a reason being typed stays). */
function show(record) {
  const known = cards.get(record.id);
  if (known && known.state === record.state && known.answered === Boolean(record.answer)) return;
  const hadFocus = known && known.node.contains(document.activeElement);
  const node = card(record);
  const list = record.state === "answered" ? $("answered") : $("pending");
  if (known) known.node.remove();
  cards.set(record.id, { node, state: record.state, answered: Boolean(record.answer) });
  if (record.state === "answered") list.prepend(node);
  else insertInOrder(list, node, record.number);
  if (hadFocus) (record.state === "answered" ? firstPending() : node)?.focus();
}

function insertInOrder(list, node, number) {
  node.dataset.number = String(number);
  const after = [...list.children].find((child) => Number(child.dataset.number) > number);
  list.insertBefore(node, after ?? null);
}

function update() {
  const pending = [...records.values()].filter((record) => record.state !== "answered").length;
  $("pending-count").textContent = pending > 0 ? `(${pending})` : "";
  $("none").hidden = pending > 0;
  document.title = pending > 0 ? `(${pending}) toolhost approvals` : "toolhost approvals";
}

function card(record) {
  const { ask } = record;
  const node = el("li", `ask ${record.state}`);
  node.tabIndex = 0;
  node.dataset.id = record.id;
  const title = el("div", "title");
  title.append(el("span", "number", `#${record.number}`), el("span", "tool", ask.tool), el("span", "when", `asked ${time(record.received)}, waits until ${time(record.deadline)}`));
  node.append(title);
  node.append(el("p", "why", ask.reason));
  node.append(el("p", "meta", `asked by ${ask.askedBy} · ${ask.asker.command} (pid ${ask.asker.pid}) in ${ask.asker.cwd}`));
  node.append(...rules(ask), ...previewOf(ask.preview, ask.asker.cwd));
  node.append(record.state === "answered" ? outcome(record) : actions(record));
  return node;
}

function rules(ask) {
  if (ask.parts.length === 0) return [];
  const list = el("ul", "rules");
  for (const part of ask.parts) {
    const item = el("li");
    item.append(el("span", "", `${part.kind} `), el("code", "", part.subject));
    for (const rule of part.rules) {
      const owner = rule.owner ? `, ${rule.owner}` : "";
      item.append(el("span", "", ` · ${rule.decision} by ${rule.id} (layer ${rule.layer}${owner}): `), el("code", "", rule.matcher));
    }
    if (part.locked) item.append(el("span", "locked", " · held by a locked layer: no rule can allow it for good"));
    list.append(item);
  }
  return [list];
}

/** A path as the asker's folder sees it: relative when under it. */
function short(path, cwd) {
  return cwd && path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
}

function previewOf(preview, cwd) {
  const shown = [];
  for (const { command, cwd } of preview.commands) {
    shown.push(el("pre", "command", command));
    if (cwd) shown.push(el("p", "meta", `in ${cwd}`));
  }
  for (const { method, url } of preview.network) shown.push(el("p", "mono", `→ ${method} ${url}`));
  for (const write of preview.writes) shown.push(...writeOf(write, cwd));
  for (const path of preview.reads) shown.push(el("p", "mono", `reads ${short(path, cwd)}`));
  for (const path of preview.readTrees) shown.push(el("p", "mono", `reads everything under ${short(path, cwd)}`));
  if (preview.args !== undefined) shown.push(el("p", "meta", "arguments"), el("pre", "args", preview.args));
  return shown;
}

function writeOf(write, cwd) {
  const head = el("p", "mono", `${write.change ?? "writes"} ${short(write.path, cwd)}${write.note ? ` (${write.note})` : ""}`);
  if (!write.diff || write.diff.length === 0) return [head];
  const diff = el("pre", "diff");
  for (const line of write.diff) diff.append(el("div", line.kind, line.text));
  return [head, diff];
}

function button(label, hint, className, onClick) {
  const node = el("button", className);
  node.type = "button";
  node.append(el("span", "", label), el("span", "hint", hint));
  node.addEventListener("click", onClick);
  return node;
}

function actions(record) {
  const box = el("div", "actions");
  const answer = (choice, reason) => send(record, choice, reason, box);
  const busy = record.state === "answering";
  box.append(button("Yes [y]", "run this call once", "yes once", () => answer("once")));
  box.append(button("Yes, for this session [s]", `also later ${record.sessionText}`, "yes session", () => answer("session")));
  for (const always of record.always) {
    box.append(button(`Always, ${always.where} [a]`, `writes ${always.rules}`, "yes always", () => answer(always.choice)));
  }
  const deny = el("div", "deny");
  const reason = el("input", "reason");
  reason.type = "text";
  reason.placeholder = "why not (the model reads it)";
  reason.setAttribute("aria-label", "reason for refusing");
  reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter") answer("deny", reason.value);
    if (event.key === "Escape") reason.closest(".ask").focus();
    event.stopPropagation();
  });
  deny.append(reason, button("No [n]", "refuse, with the reason", "no", () => answer("deny", reason.value)));
  box.append(deny);
  if (busy) for (const control of box.querySelectorAll("button, input")) control.disabled = true;
  return box;
}

async function send(record, choice, reason, box) {
  for (const control of box.querySelectorAll("button, input")) control.disabled = true;
  box.querySelector(".error")?.remove();
  try {
    const response = await fetch(`/asks/${encodeURIComponent(record.id)}/answer`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ digest: record.ask.digest, choice, ...(reason !== undefined && { reason }) }),
    });
    if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error ?? `status ${response.status}`);
  } catch (error) {
    box.append(el("p", "error", `Not answered: ${error.message}`));
    for (const control of box.querySelectorAll("button, input")) control.disabled = false;
  }
}

function outcome(record) {
  const answer = record.answer ?? { outcome: "withdrawn" };
  const scope = answer.scope === "session" ? " for this session" : answer.scope === "always" ? " always" : answer.approved ? " once" : "";
  const what = { approved: `Approved${scope}`, denied: "Refused", "timed out": "Timed out: no one answered in time", withdrawn: "Withdrawn" }[answer.outcome] ?? answer.outcome;
  const box = el("div", `outcome ${answer.approved ? "approved" : answer.outcome === "denied" ? "denied" : "gone"}`);
  box.append(el("span", "", `${what}${answer.by ? `, by ${answer.by}` : ""}, at ${time(answer.at)}`));
  if (answer.rule) box.append(el("p", "meta", `rule written: ${answer.rule}`));
  if (answer.reason) box.append(el("p", "meta", answer.reason));
  if (record.undelivered) box.append(el("p", "meta", "the asking process had gone before the answer reached it: the call did not run"));
  return box;
}

function pendingCards() {
  return [...$("pending").children];
}

function firstPending() {
  return pendingCards()[0];
}

function keys(event) {
  if (event.target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
  const list = pendingCards();
  const current = document.activeElement?.closest?.(".ask.pending") ?? undefined;
  const index = current ? list.indexOf(current) : -1;
  const press = (selector) => (current ?? list[0])?.querySelector(selector)?.click();
  if (event.key === "j") (list[index + 1] ?? list[0])?.focus();
  else if (event.key === "k") (list[index - 1] ?? list[list.length - 1])?.focus();
  else if (event.key === "y") press("button.once");
  else if (event.key === "s") press("button.session");
  else if (event.key === "a") press("button.always");
  else if (event.key === "n") (current ?? list[0])?.querySelector("input.reason")?.focus();
  else return;
  event.preventDefault();
}

document.addEventListener("keydown", keys);
connect();
