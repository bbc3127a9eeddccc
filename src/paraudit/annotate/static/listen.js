// The listening page. It knows only what the server sends: transcripts, response texts and
// opaque audio URLs. Whether a clip was heard to its end is decided by the server from the
// play events posted here; the button state below only mirrors it.
"use strict";

const token = location.pathname.split("/")[2];
const api = (p) => `/a/${token}/api/${p}`;
const $ = (id) => document.getElementById(id);
let question = null;
let requestId = null;
let choice = null;
let confidence = null;
let sending = false;
const heard = new Set();
const players = [];

function newRequestId() {
  // One id per question, kept across reloads, so a retried POST is recognised as the same answer.
  const key = `rid:${token}:${question.seq}`;
  let id = sessionStorage.getItem(key);
  if (!id) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem(key, id);
  }
  return id;
}

async function post(path, body) {
  const r = await fetch(api(path), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function player(clip, mark) {
  const audio = el("audio");
  audio.controls = true;
  audio.preload = "auto";
  audio.src = clip.audio;
  audio.dataset.clip = clip.clip;
  audio.setAttribute("controlsList", "nodownload noplaybackrate");
  // The server times a listen from its first "play" to an "ended", on its own clock, so a
  // clip's events are posted one after the other, each once the one before it is stored: two
  // requests in flight at once may be handled in either order, and a short clip's end (or a
  // quick pause and resume) could otherwise be stored before the "play" it follows.
  let posted = Promise.resolve();
  audio.addEventListener("play", () => {
    players.forEach((p) => { if (p !== audio) p.pause(); });
    posted = posted.then(() => post("play", { clip: clip.clip, event: "play" })).catch(() => null);
  });
  audio.addEventListener("ended", async () => {
    await posted;
    // Not reached, or no answer: the listen is not known to count, so it is asked for again.
    const r = await post("play", { clip: clip.clip, event: "ended" }).catch(() => null);
    if (r && r.status === 200 && r.body.heard) {
      heard.add(clip.clip);
      mark.textContent = "✓ heard";
    } else {
      mark.textContent = "play it through once more";
    }
    update();
  });
  if (clip.heard) {
    heard.add(clip.clip);
    mark.textContent = "✓ heard";
  }
  players.push(audio);
  return audio;
}

function choose(label) {
  choice = label;
  document.querySelectorAll(".option").forEach((o) => {
    const on = o.dataset.label === label;
    o.classList.toggle("chosen", on);
    o.querySelector("input").checked = on;
  });
  update();
}

function render(state) {
  $("bar").max = state.total;
  $("bar").value = state.answered;
  const q = state.question;
  if (!q) {
    $("count").textContent = `${state.answered} of ${state.total} answered`;
    $("question").hidden = true;
    $("finished").hidden = false;
    return;
  }
  $("count").textContent = `Question ${state.answered + 1} of ${state.total}`;
  question = q;
  if (q.ask) $("ask").textContent = q.ask;  // the dimension's own question
  if (q.listen_for) $("listen-for").textContent = q.listen_for;
  requestId = newRequestId();
  choice = null;
  confidence = null;
  heard.clear();
  players.length = 0;
  const ctx = $("context");
  ctx.replaceChildren();
  for (const turn of q.context) {
    const li = el("li", `turn ${turn.speaker === "User" ? "human" : "assistant"}`);
    const who = el("div", "who", turn.speaker);
    const mark = el("span", "heard");
    who.append(mark);
    li.append(who, el("p", "text", turn.text), player(turn, mark));
    ctx.append(li);
  }
  const opts = $("responses");
  opts.replaceChildren();
  q.responses.forEach((resp, i) => {
    const box = el("label", "option");
    box.dataset.label = resp.label;
    const pick = el("span", "pick");
    const radio = el("input");
    radio.type = "radio";
    radio.name = "choice";
    radio.value = resp.label;
    radio.addEventListener("change", () => choose(resp.label));
    const mark = el("span", "heard");
    pick.append(radio, el("span", "", `Response ${i + 1}`), mark);
    box.append(pick, el("p", "text", resp.text), player(resp, mark));
    opts.append(box);
  });
  const scale = $("confidence");
  scale.replaceChildren();
  ["1 guess", "2", "3", "4", "5 certain"].forEach((name, i) => {
    const lab = el("label");
    const r = el("input");
    r.type = "radio";
    r.name = "confidence";
    r.value = String(i + 1);
    r.addEventListener("change", () => { confidence = i + 1; });
    lab.append(r, ` ${name}`);
    scale.append(lab);
  });
  $("comment").value = "";
  $("question").hidden = false;
  $("finished").hidden = true;
  window.scrollTo(0, 0);
  update();
}

function update() {
  const left = players.filter((p) => !heard.has(p.dataset.clip)).length;
  const ready = left === 0 && choice !== null && !sending;
  $("submit").disabled = !ready;
  $("status").textContent = left
    ? `Listen to every clip to the end first (${left} left).`
    : choice === null ? "Choose a response." : "Ready to submit.";
}

async function load() {
  showError("");
  const r = await fetch(api("next"));
  if (r.status !== 200) {
    showError(r.status === 403 ? "This link is not valid." : `Server error (${r.status}).`);
    return;
  }
  render(await r.json());
}

async function submit() {
  if ($("submit").disabled) return;
  sending = true;
  update();
  try {
    const r = await post("answer", {
      seq: question.seq,
      choice,
      confidence,
      comment: $("comment").value,
      request_id: requestId,
    });
    if (r.status === 200 || (r.status === 409 && r.body.reason.includes("already answered"))) {
      await load();
    } else {
      showError(r.body.reason || "The answer was not accepted.");
    }
  } catch (e) {
    showError("Could not reach the server; your answer was not lost, press Submit again.");
  } finally {
    sending = false;
    update();
  }
}

function playNext() {
  const next = players.find((p) => !heard.has(p.dataset.clip)) || null;
  if (next) {
    next.scrollIntoView({ block: "center" });
    next.currentTime = 0;
    next.play();
  }
}

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLTextAreaElement || !question || e.ctrlKey || e.metaKey) return;
  if (e.key === "1" || e.key === "2") choose(question.responses[Number(e.key) - 1].label);
  else if (e.key === "p" || e.key === "P") playNext();
  else if (e.key === "Enter") submit();
  else return;
  e.preventDefault();
});
$("submit").addEventListener("click", submit);
load();
