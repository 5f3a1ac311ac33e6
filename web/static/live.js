// The live view: send camera frames (or follow a server camera), draw the read-out, keep
// the scoreboard and the turn log current. One frame is in flight at a time, so a slow
// server lowers the frame rate instead of building a queue.
"use strict";

const SEAT_COLOURS = ["#e4572e", "#2a9d8f", "#e9a800", "#6a4c93", "#3a86c8", "#76a832", "#d6457b", "#8a5a33"];
const MAX_WIDTH = 960; // frames are sent at most this wide: enough to read cards, cheap to send

document.addEventListener("DOMContentLoaded", () => i18nReady.then(() => {
  setupMenu(document.getElementById("live-setup"));
  const root = document.getElementById("live");
  if (!root) return;
  const view = new LiveView(root);
  if (root.dataset.source === "browser") view.setupCamera();
  else {
    view.watchStream(document.getElementById("live-stream"));
    view.poll();
  }
}));

class LiveView {
  constructor(root) {
    this.root = root;
    this.players = JSON.parse(root.dataset.players);
    this.csrf = document.querySelector('meta[name="csrf-token"]')?.content || "";
    this.status = document.getElementById("live-status");
    this.fps = document.getElementById("live-fps");
    this.running = false;
    this.times = [];
    this.names = {};
    this.editing = null; // the turn being fixed: the log is not redrawn under the player's fingers
    this.state = null;
    // requests in the order sent: an answer is shown only if none sent after it was shown (a
    // frame in flight while the round is ended answers with the log before the end)
    this.sent = 0;
    this.shown = 0;
  }

  // ``fetch`` whose answer is shown only while it is the newest: null for an older one
  async newest(url, options) {
    this.sent += 1;
    const mine = this.sent;
    const response = await fetch(url, options);
    const state = await response.json();
    if (mine < this.shown) return null;
    this.shown = mine;
    return { response, state };
  }

  // a card as players know it (its name printed in the page's language and the game's
  // edition), from the text the server reads: a slug, or "special-order:<slug>" for a copy
  name(text) {
    const [slug, copied] = String(text).split(":");
    const own = cardName(slug, this.edition);
    if (own) return copied ? format("{card} ({copied})", { card: own, copied: cardName(copied, this.edition) || copied }) : own;
    return this.names[text] || text;
  }

  // a card as a player writes it in the fix form, by its name in the page's language, as the
  // text the server reads (the server knows the slugs and the English names)
  slugOf(written) {
    const words = written.trim().toLowerCase();
    const names = i18nCatalog.cards[this.edition] || {};
    const bySlug = Object.entries(names).find(([, name]) => name.toLowerCase() === words);
    if (bySlug) return bySlug[0];
    const copy = /^(.*)\((.*)\)$/.exec(written.trim());
    if (copy) {
      const [head, copied] = [this.slugOf(copy[1]), this.slugOf(copy[2])];
      if (head === "special-order") return `${head}:${copied}`;
    }
    return written.trim();
  }

  setupCamera() {
    this.video = document.getElementById("live-video");
    this.overlay = document.getElementById("live-overlay");
    this.grab = document.createElement("canvas");
    const start = document.getElementById("live-start");
    const stop = document.getElementById("live-stop");
    start.addEventListener("click", async () => {
      try {
        if (!this.video.srcObject) {
          this.video.srcObject = await navigator.mediaDevices.getUserMedia({
            video: { facingMode: "environment", width: { ideal: 1280 }, height: { ideal: 960 } },
            audio: false,
          });
          await this.video.play();
        }
      } catch (error) {
        this.say(_("The camera did not start: {error}. Allow the camera (HTTPS or localhost is needed).", { error: error.message }));
        return;
      }
      this.running = true;
      this.started = this.started ?? performance.now();
      start.hidden = true;
      stop.hidden = false;
      this.say(_("Following the table…"));
      this.loop();
    });
    stop.addEventListener("click", () => {
      this.running = false;
      start.hidden = false;
      stop.hidden = true;
      this.say(_("Paused."));
    });
    const end = document.getElementById("live-end-round");
    end?.addEventListener("click", () => this.endRound(end));
  }

  // The players end the round: the turn in play is read as the table lies, then the round.
  async endRound(button) {
    button.disabled = true;
    try {
      const answer = await this.newest(button.dataset.url, {
        method: "POST",
        headers: { "X-CSRFToken": this.csrf, Accept: "application/json" },
      });
      if (!answer) return;
      const { response, state } = answer;
      if (!response.ok) { this.say(state.error || _("The server answered {status}.", { status: response.status })); return; }
      const rounds = state.record?.rounds || [];
      this.say(ngettext(
        "Round {round} ended after {n} turn: the next card laid starts round {next}.",
        "Round {round} ended after {n} turns: the next card laid starts round {next}.",
        rounds.at(-1)?.turns.length ?? 0, { round: rounds.length, next: rounds.length + 1 }));
      this.show(state);
    } catch (error) {
      this.say(_("Lost the server: {error}", { error: error.message }));
    } finally {
      button.disabled = false;
    }
  }

  async loop() {
    while (this.running) {
      const width = this.video.videoWidth;
      if (!width) { await sleep(100); continue; }
      const scale = Math.min(1, MAX_WIDTH / width);
      this.grab.width = Math.round(width * scale);
      this.grab.height = Math.round(this.video.videoHeight * scale);
      this.grab.getContext("2d").drawImage(this.video, 0, 0, this.grab.width, this.grab.height);
      const blob = await new Promise((resolve) => this.grab.toBlob(resolve, "image/jpeg", 0.8));
      const at = (performance.now() - this.started) / 1000;
      try {
        const answer = await this.newest(this.root.dataset.frameUrl, {
          method: "POST",
          headers: { "Content-Type": "image/jpeg", "X-Frame-Time": at.toFixed(3), "X-CSRFToken": this.csrf, Accept: "application/json" },
          body: blob,
        });
        if (!answer) continue;
        const { response, state } = answer;
        if (!response.ok) { this.say(state.error || _("The server answered {status}.", { status: response.status })); await sleep(1000); continue; }
        this.tick();
        this.draw(state, this.grab.width, this.grab.height);
        this.show(state);
      } catch (error) {
        this.say(_("Lost the server: {error}", { error: error.message }));
        await sleep(1000);
      }
    }
  }

  // The server streams a game to a few screens at once; past them (503) the stream fails to
  // load and the picture is the last frame, fetched every second.
  watchStream(image) {
    if (!image) return;
    const stills = async () => {
      for (;;) {
        image.src = `${image.dataset.snapshotUrl}?at=${Date.now()}`;
        await sleep(1000);
      }
    };
    if (image.complete && image.naturalWidth === 0) stills(); // it failed before this script ran
    else image.addEventListener("error", stills, { once: true });
  }

  async poll() {
    for (;;) {
      try {
        const response = await fetch(this.root.dataset.stateUrl, { headers: { Accept: "application/json" } });
        if (response.ok) this.show(await response.json());
      } catch (error) {
        this.say(_("Lost the server: {error}", { error: error.message }));
      }
      await sleep(400);
    }
  }

  tick() {
    const now = performance.now();
    this.times.push(now);
    while (this.times.length > 1 && now - this.times[0] > 3000) this.times.shift();
    if (this.times.length > 1) {
      const rate = (this.times.length - 1) / ((now - this.times[0]) / 1000);
      const rateText = new Intl.NumberFormat(i18nLang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(rate);
      this.fps.textContent = _("{rate} frames/s", { rate: rateText });
    }
  }

  say(text) { this.status.textContent = text; }

  // Boxes come in the pixels of the frame sent; the overlay matches the video as shown.
  draw(state, width, height) {
    this.edition = state.record?.edition ?? this.edition;
    const canvas = this.overlay;
    canvas.width = this.video.clientWidth;
    canvas.height = this.video.clientHeight;
    const sx = canvas.width / width;
    const sy = canvas.height / height;
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.font = "13px system-ui, sans-serif";
    for (const card of state.cards) {
      const [x1, y1, x2, y2] = card.box;
      const colour = card.seat >= 0 ? SEAT_COLOURS[card.seat % SEAT_COLOURS.length] : "#bbb";
      ctx.strokeStyle = colour;
      ctx.lineWidth = card.visible ? 3 : 1;
      ctx.setLineDash(card.visible ? [] : [4, 4]);
      ctx.strokeRect(x1 * sx, y1 * sy, (x2 - x1) * sx, (y2 - y1) * sy);
      const tag = card.status === "pending" ? _("{card} (new)", { card: this.name(card.text) }) : this.name(card.text);
      ctx.fillStyle = "rgba(0, 0, 0, .6)";
      ctx.fillRect(x1 * sx, y1 * sy, ctx.measureText(tag).width + 6, 17);
      ctx.fillStyle = "#fff";
      ctx.fillText(tag, x1 * sx + 3, y1 * sy + 13);
    }
  }

  show(state) {
    Object.assign(this.names, state.names || {});
    this.edition = state.record?.edition ?? this.edition;
    this.state = state;
    const scores = state.scores;
    for (const row of this.root.querySelectorAll("tr[data-player]")) {
      const result = scores?.players?.[row.dataset.player];
      for (let n = 0; n < 3; n += 1) {
        const cell = row.querySelector(`[data-round="${n + 1}"]`);
        cell.textContent = result && n < result.rounds.length ? result.rounds[n] : "–";
      }
      row.querySelector('[data-col="dessert"]').textContent = result && scores.complete ? result.dessert : "–";
      row.querySelector('[data-col="total"]').textContent = result ? result.total : 0;
    }
    const error = document.getElementById("live-score-error");
    error.hidden = !state.score_error;
    error.textContent = state.score_error ? _("Not scorable yet: {why}", { why: state.score_error }) : "";

    if (!this.editing) this.showTurns(state);
    const waiting = Object.entries(state.pending || {}).filter(([, cards]) => cards.length);
    document.getElementById("live-pending").textContent = waiting.length
      ? _("This turn so far: {cards}", { cards: waiting.map(([p, cards]) => `${p} ${cards.map((c) => this.name(c)).join(" + ")}`).join(", ") })
      : "";
    // the reader's own notes (what it made of a box, a card seen late) are for whoever wants to
    // know how it read the table, behind a toggle: what players must act on is in the turn log
    const notes = state.notes || [];
    document.getElementById("live-notes-box").hidden = !notes.length;
    document.getElementById("live-notes-count").textContent = notes.length;
    document.getElementById("live-notes").replaceChildren(...notes.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    }));
  }
}

LiveView.prototype.showTurns = function showTurns(state) {
  const list = document.getElementById("live-turns");
  // redrawn only when the log changed: a frame comes several times a second, and a list
  // rebuilt under the player's finger loses the tap on its Fix button
  const shown = JSON.stringify(state.record?.rounds || []);
  if (shown === this.shownTurns) return;
  this.shownTurns = shown;
  list.replaceChildren();
  (state.record?.rounds || []).forEach((round, r) => {
    round.turns.forEach((turn, t) => {
      const item = document.createElement("li");
      const text = document.createElement("span");
      const reveals = Object.entries(turn.reveals)
        .map(([p, cards]) => `${p}: ${cards.map((c) => this.name(c)).join(" + ")}`).join(" · ");
      const events = (turn.events || []).map((e) => `${e.player} ${eventName(e.event)}${e.cards ? ` (${e.cards.map((c) => this.name(c)).join(", ")})` : ""}`);
      text.textContent = `${_("Round {round}, turn {turn}", { round: r + 1, turn: t + 1 })} — ${reveals}${events.length ? ` — ${events.join("; ")}` : ""}`;
      const fix = document.createElement("button");
      fix.type = "button";
      fix.className = "btn btn-ghost btn-small live-fix";
      fix.textContent = _("Fix");
      fix.addEventListener("click", () => this.editTurn(item, r, t, turn));
      item.append(text, " ", fix);
      // a player with no card in the turn: their card went unseen, or another's was given it
      const missing = this.players.filter((p) => !(turn.reveals[p] || []).length);
      if (missing.length) {
        const check = document.createElement("span");
        check.className = "live-check";
        check.textContent = _("No card read for {players}: check this turn.", { players: missing.join(", ") });
        item.append(" ", check);
      }
      list.append(item);
    });
  });
  // the newest turn in sight: the log follows the game
  list.scrollTop = list.scrollHeight;
};

// One field per player with the cards of the turn by name; moving a card to another player
// is taking it out of one field and writing it in the other.
LiveView.prototype.editTurn = function editTurn(item, r, t, turn) {
  this.editing = `${r}/${t}`;
  const form = document.createElement("form");
  form.className = "live-fix-form";
  const fields = {};
  for (const player of this.players) {
    const label = document.createElement("label");
    label.textContent = `${player} `;
    const input = document.createElement("input");
    input.type = "text";
    input.name = player;
    input.value = (turn.reveals[player] || []).map((c) => this.name(c)).join(", ");
    label.append(input);
    form.append(label);
    fields[player] = input;
  }
  const error = document.createElement("p");
  error.className = "form-error";
  error.hidden = true;
  const save = document.createElement("button");
  save.type = "submit";
  save.className = "btn btn-small";
  save.textContent = _("Save the turn");
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "btn btn-ghost btn-small";
  cancel.textContent = _("Cancel");
  cancel.addEventListener("click", () => { this.editing = null; this.shownTurns = null; this.showTurns(this.state); });
  form.append(error, save, " ", cancel);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const reveals = {};
    for (const [player, input] of Object.entries(fields)) {
      const cards = input.value.split(",").map((c) => c.trim()).filter(Boolean).map((c) => this.slugOf(c));
      if (cards.length) reveals[player] = cards;
    }
    const url = this.root.dataset.fixUrl.replace(/rounds\/1\/turns\/1$/, `rounds/${r + 1}/turns/${t + 1}`);
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": this.csrf, Accept: "application/json" },
      body: JSON.stringify({ reveals, events: turn.events || [] }),
    });
    const answer = await response.json();
    if (!response.ok) { error.hidden = false; error.textContent = answer.error; return; }
    this.editing = null;
    this.shownTurns = null;
    this.show(answer);
  });
  item.append(form);
  fields[this.players[0]].focus();
};

// what happened in a turn besides the cards laid (scorer/turns.py EVENTS), for the turn log;
// an event this script does not know is shown as the server names it
function eventName(event) {
  const names = {
    "chopsticks-used": pgettext("turn log: Ann ...", "chopsticks-used"),
    "spoon-used": pgettext("turn log: Ann ...", "spoon-used"),
    "takeout-flip": pgettext("turn log: Ann ... (the cards)", "takeout-flip"),
    "mochi-roll": pgettext("turn log: Ann ...", "mochi-roll"),
  };
  return names[event] || event;
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

// The setup form: the menu only for Sushi Go Party!, its dishes only for a custom menu (the
// hidden fields are disabled, so they are not sent).
function setupMenu(form) {
  const menu = document.getElementById("live-menu");
  if (!form || !menu) return;
  const choice = document.getElementById("live-menu-choice");
  const custom = document.getElementById("live-custom-menu");
  const sync = () => {
    const edition = form.querySelector('input[name="edition"]:checked')?.value;
    menu.hidden = edition !== menu.dataset.edition;
    choice.disabled = menu.hidden;
    const open = !menu.hidden && choice.value === "custom";
    custom.hidden = !open;
    for (const input of custom.querySelectorAll("input")) input.disabled = !open;
    showPickCounts(custom);
  };
  form.addEventListener("change", sync);
  sync();
}
