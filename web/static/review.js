// The review page: the round's photos with every card read on them, corrected by hand.
//
// The review is a list of cards {id, label, seat, photo, box, confidence, on}: `on` names the
// card directly below (a nigiri on a wasabi, a special order on the card it copies). Every
// change goes through change(), which keeps undo history, redraws, and asks /api/score for the
// round's scores with the record as it now stands. Confirm sends the review to the server,
// which checks it again and commits it.
"use strict";

i18nReady.then(() => {
  const state = JSON.parse(document.getElementById("review-state").textContent);
  // the cards by the names the rulebook of the page's language prints, in the game's edition;
  // the English name stays searchable in the picker
  for (const c of state.cards) {
    c.english = c.name;
    c.name = cardName(c.slug, state.game.edition) || c.name;
  }
  for (const [slug, entry] of Object.entries(state.names || {})) entry.name = cardName(slug, state.game.edition) || entry.name;
  const csrfToken = document.querySelector('meta[name="csrf-token"]').content;
  const players = state.game.players;
  const catalogue = new Map(state.cards.map((c) => [c.slug, c]));
  // every card of the picker has a number, its place in the list; two digits typed together
  // (within DIGIT_WAIT_MS) pick the tenth card on
  const numbered = new Map(state.cards.map((c) => [c.hotkey, c.slug]));
  const DIGIT_WAIT_MS = 800;
  const NEVER_COPIED = new Set(state.neverCopied); // the scorer's: they leave the table
  const UNSURE = 0.5; // boxes the recogniser was less sure of stand out
  const MIN_BOX_PX = 14; // smaller drags are taps, not boxes
  const TAP_REACH_PX = 10; // a tap this close to a card (screen pixels) opens it
  const SVG = "http://www.w3.org/2000/svg";
  const draftKey = `sushicam-review-${state.game.id}-${state.round}`;
  const undoKey = `sushicam-undo-${state.game.id}-${state.round}`;
  const MAX_UNDO = 100;
  // the stored review a kept draft grew from, and the one a confirm says it was made from
  let serverFingerprint = state.version;
  let theirs = null; // {review, version}: another phone's or tab's edit confirmed meanwhile

  let review = normalise(state.review);
  let undoStack = [];
  let redoStack = [];
  let mode = "select"; // "draw": drag adds a card; "areas": drag sets a seat area
  let areaSeat = 0;
  let seatAreas = state.game.seatAreas ? state.game.seatAreas.map((a) => a.slice()) : null;
  let picker = null; // {id} of the card being edited, or {pending: card} for a drawn one
  let lastScores = null;
  let unsureCursor = -1;

  const $ = (selector, root = document) => root.querySelector(selector);
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key === "style") node.style.cssText = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
    return node;
  };
  const svg = (tag, attrs = {}) => {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    return node;
  };

  // ---- the review value ------------------------------------------------------------------

  function normalise(value) {
    const cards = (value.cards || []).map((c) => ({
      id: String(c.id),
      label: c.label,
      seat: c.seat,
      photo: c.photo ?? null,
      box: c.box ? c.box.map(Number) : null,
      confidence: c.confidence ?? null,
      unsure: c.unsure ?? null,
      on: c.on ?? null,
    }));
    const normal = { cards, scored_during_round: (value.scored_during_round || []).map((d) => ({ ...d })) };
    // the kinds the players confirmed beyond the deck's count ("our deck is like this")
    if (Array.isArray(value.over_deck) && value.over_deck.length) normal.over_deck = [...value.over_deck];
    return normal;
  }

  const byId = (id) => review.cards.find((c) => c.id === id);
  const cardAbove = (id) => review.cards.find((c) => c.on === id);
  // a card of another edition (a misread) keeps its printed name, though the picker never offers it
  const elsewhere = new Map(Object.entries(state.names || {}));
  const info = (slug) => catalogue.get(slug)
    || { slug, name: elsewhere.get(slug)?.name || slug, colour: elsewhere.get(slug)?.colour || "#999999", family: "other", kind: slug };
  // cards the scorer cannot take as they lie: id -> what to do about it, in the player's words
  const problemOf = (card) => (lastScores && lastScores.problems ? lastScores.problems.get(card.id) : undefined);
  const isNigiri = (card) => info(card.label).kind === "nigiri";
  // the recogniser marks what to check (vision.unsure.is_unsure); older reviews have only a confidence
  const isUnsure = (card) => card.confidence !== null && (typeof card.unsure === "boolean" ? card.unsure : card.confidence < UNSURE);

  function newId() {
    let n = review.cards.length + 1;
    while (review.cards.some((c) => c.id === `n${n}`)) n += 1;
    return `n${n}`;
  }

  function stackOf(card) {
    // bottom card first
    let bottom = card;
    const seen = new Set();
    while (bottom.on && byId(bottom.on) && !seen.has(bottom.id)) {
      seen.add(bottom.id);
      bottom = byId(bottom.on);
    }
    const chain = [bottom];
    let above = cardAbove(bottom.id);
    while (above && !chain.includes(above)) {
      chain.push(above);
      above = cardAbove(above.id);
    }
    return chain;
  }

  // ---- changes and history ---------------------------------------------------------------

  function change(mutate) {
    const before = JSON.stringify(review);
    mutate();
    if (JSON.stringify(review) === before) return;
    undoStack.push(before);
    redoStack = [];
    afterChange();
  }

  function undo() {
    if (!undoStack.length) return;
    redoStack.push(JSON.stringify(review));
    review = JSON.parse(undoStack.pop());
    afterChange();
  }

  function redo() {
    if (!redoStack.length) return;
    undoStack.push(JSON.stringify(review));
    review = JSON.parse(redoStack.pop());
    afterChange();
  }

  function afterChange() {
    scheduleScore(); // first: the scores drawn next are marked as out of date
    render();
    try {
      localStorage.setItem(draftKey, JSON.stringify({ from: serverFingerprint, review }));
      // undo outlives a reload in this tab (a phone that reloads the page while it slept)
      undoStack = undoStack.slice(-MAX_UNDO);
      sessionStorage.setItem(undoKey, JSON.stringify({ from: serverFingerprint, review, undo: undoStack, redo: redoStack }));
    } catch (_) {
      /* private mode or a full store: the draft just isn't kept */
    }
  }

  function setLabel(card, slug) {
    card.label = slug;
    card.confidence = null; // a person chose it
    const kind = info(slug).kind;
    if (card.on && kind !== "nigiri" && kind !== "special-order") card.on = null;
    const above = cardAbove(card.id);
    if (above && kind !== "wasabi" && isNigiri(above)) above.on = null;
  }

  function removeCard(card) {
    const above = cardAbove(card.id);
    if (above) above.on = card.on; // the stack closes over the gap
    review.cards = review.cards.filter((c) => c !== card);
  }

  function moveToSeat(card, seat) {
    // a stack moves as a whole; a card lifted off a stack leaves it
    const chain = stackOf(card);
    const moving = chain.slice(chain.indexOf(card));
    if (moving[0].on) {
      const below = byId(moving[0].on);
      if (below && below.seat !== seat) moving[0].on = null;
    }
    for (const c of moving) c.seat = seat;
  }

  function centre(box) {
    return [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
  }

  function freeWasabis(card) {
    const wasabis = review.cards.filter(
      (c) => c.seat === card.seat && info(c.label).kind === "wasabi" && !cardAbove(c.id) && c !== card,
    );
    if (card.box) {
      const [x, y] = centre(card.box);
      const distance = (c) => (c.box && c.photo === card.photo ? Math.hypot(centre(c.box)[0] - x, centre(c.box)[1] - y) : 1e12);
      wasabis.sort((a, b) => distance(a) - distance(b));
    }
    return wasabis;
  }

  // ---- drawing the photos ----------------------------------------------------------------

  const photosHost = $("#photos");
  const stages = new Map(); // photo id -> {stage, svgRoot, photo}

  function makiIcon() {
    const icon = svg("svg", { viewBox: "0 0 40 40", class: "no-photo-icon", "aria-hidden": "true" });
    for (const [r, fill] of [[18, "#1f2a24"], [13, "#fbf4e6"], [7, "#f07f5a"]]) icon.append(svg("circle", { cx: 20, cy: 20, r, fill }));
    return icon;
  }

  function buildPhotos() {
    photosHost.replaceChildren();
    $("#zoom").hidden = $("#draw").hidden = !state.photos.length;
    if (!state.photos.length) {
      photosHost.append(
        el("div", { class: "no-photo panel" },
          makiIcon(),
          el("p", { text: _("No photo for this round.") }),
          el("p", { class: "hint", text: _("Add each player's cards with “+ Add card”.") })),
      );
      return;
    }
    for (const photo of state.photos) {
      const img = el("img", { src: photo.url, alt: photo.seat === null ? _("Photo of the table") : _("Photo of {player}'s cards", { player: players[photo.seat] }), width: photo.width, height: photo.height, draggable: "false" });
      const overlay = svg("svg", { viewBox: `0 0 ${photo.width} ${photo.height}`, class: "overlay", "data-photo": photo.id, role: "img", "aria-label": _("Cards found on the photo") });
      const stage = el("div", { class: "stage" }, img, overlay);
      const caption = el("figcaption", {},
        photo.seat === null ? _("Whole table") : [el("span", { class: `seat-dot seat-${photo.seat}` }), _("{player}'s cards", { player: players[photo.seat] })]);
      photosHost.append(el("figure", { class: "photo-frame" }, stage, caption));
      stages.set(photo.id, { stage, overlay, photo });
      attachPointer(overlay, photo);
      new ResizeObserver(() => drawOverlay(photo.id)).observe(stage);
    }
    $("#seat-areas").hidden = !state.photos.some((p) => p.seat === null) || players.length < 2;
  }

  function contrastText(hex) {
    const value = parseInt(hex.replace("#", ""), 16);
    const r = (value >> 16) & 255, g = (value >> 8) & 255, b = value & 255;
    return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#2b1a12" : "#ffffff";
  }

  function drawOverlay(photoId) {
    const entry = stages.get(photoId);
    if (!entry) return;
    const { stage, overlay, photo } = entry;
    const k = photo.width / Math.max(1, stage.clientWidth); // photo pixels per screen pixel
    overlay.style.setProperty("--k", k);
    overlay.replaceChildren();
    overlay.classList.toggle("drawing", mode === "draw");
    overlay.classList.toggle("areas", mode === "areas" && photo.seat === null);

    if (photo.seat === null && seatAreas && (mode === "areas" || seatAreas.length)) {
      const areas = svg("g", { class: mode === "areas" ? "seat-areas editing" : "seat-areas" });
      seatAreas.forEach((area, seat) => {
        if (!area) return;
        const [x1, y1, x2, y2] = [area[0] * photo.width, area[1] * photo.height, area[2] * photo.width, area[3] * photo.height];
        areas.append(svg("rect", { x: x1, y: y1, width: x2 - x1, height: y2 - y1, class: `seat-area seat-${seat}` }));
        if (mode === "areas") {
          const label = svg("text", { x: x1 + 8 * k, y: y1 + 22 * k, class: "seat-area-label" });
          label.textContent = players[seat];
          areas.append(label);
        }
      });
      overlay.append(areas);
    }

    // bigger boxes first: a small box (the visible strip of a covered card) lies on top, so
    // it can still be tapped where it overlaps a bigger neighbour
    const area = (c) => (c.box[2] - c.box[0]) * (c.box[3] - c.box[1]);
    const mine = review.cards.filter((c) => c.photo === photo.id && c.box).sort((a, b) => area(b) - area(a));
    for (const card of mine) {
      if (!card.on) continue;
      const below = byId(card.on);
      if (!below || !below.box || below.photo !== photo.id) continue;
      const [x1, y1] = centre(below.box);
      const [x2, y2] = centre(card.box);
      overlay.append(svg("line", { x1, y1, x2, y2, class: "stack-link" }));
    }
    // boxes first, then every name tag above all boxes, so no box hides a tag
    const boxes = svg("g", { class: "boxes" });
    const leaders = svg("g", { class: "leaders" });
    const tags = svg("g", { class: "tags" });
    overlay.append(boxes, leaders, tags);
    for (const card of mine) {
      const [x1, y1, x2, y2] = card.box;
      const c = info(card.label);
      const problem = problemOf(card);
      const classes = `card-box seat-${card.seat}${isUnsure(card) ? " unsure" : ""}${problem ? " invalid" : ""}${picker && picker.id === card.id ? " selected" : ""}`;
      const group = svg("g", {
        class: classes,
        "data-id": card.id,
        tabindex: "0",
        role: "button",
        "aria-label": `${_("{card}, {player}", { card: c.name, player: players[card.seat] })}${isUnsure(card) ? _(", unsure") : ""}${problem ? `: ${problem}` : ""}`,
      });
      group.append(svg("rect", { x: x1, y: y1, width: x2 - x1, height: y2 - y1, class: "box" }));
      boxes.append(group);
    }
    layoutTags(photo, mine, k, tags, leaders);
  }

  // ---- name tags ---------------------------------------------------------------------------
  // Each card's name sits beside its box: never over that box, never over another tag, and
  // never over the middle of another card (where a finger goes to pick it); a tag that had to
  // move away from its card is tied to it by a leader line. A tag takes taps: it picks its card.
  const TAG_MAX_PX = 118; // a longer name is shortened on the photo (the picker shows it whole)
  const TAG_MIN_CHARS = 6; // shortened this far to find room, before the tag is left out
  const TAG_GAP_PX = 2; // between a tag and its box
  const TAG_SEARCH_PX = 4; // the step of the search for room around a box
  const TAG_REACH_PX = 140; // how far from its box a tag may go
  const MIDDLE_PX = 5; // half the size of the middle of a card, kept clear of tags
  const LEADER_PX = 4; // a tag farther than this from its box gets a leader line
  const COVER_WEIGHT = 0.4; // a tag over a neighbour costs this much distance per pixel of it

  const rectsMeet = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
  const overlapArea = (a, b) => Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]))
    * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const rectGap = (a, b) => Math.hypot(Math.max(0, b[0] - a[2], a[0] - b[2]), Math.max(0, b[1] - a[3], a[1] - b[3]));

  function middleOf(box, k) {
    const [cx, cy] = centre(box);
    const hw = Math.min(MIDDLE_PX * k, (box[2] - box[0]) / 2);
    const hh = Math.min(MIDDLE_PX * k, (box[3] - box[1]) / 2);
    return [cx - hw, cy - hh, cx + hw, cy + hh];
  }

  function tagText(card) {
    const below = card.on ? byId(card.on) : null;
    const problem = problemOf(card);
    const name = below ? _("{card} on {below}", { card: info(card.label).name, below: info(below.label).name }) : info(card.label).name;
    return `${problem ? "⚠ " : isUnsure(card) ? "? " : ""}${name}`;
  }

  function findTagPlace(card, cards, placed, width, height, photo, k, reachPx = TAG_REACH_PX) {
    // the places beside the box first (above, below, right, left), then the nearest free room
    const [x1, y1, x2, y2] = card.box;
    const gap = TAG_GAP_PX * k;
    const middles = cards.filter((o) => o !== card).map((o) => middleOf(o.box, k));
    const others = cards.filter((o) => o !== card).map((o) => o.box);
    const fits = (r) => r[0] >= 0 && r[1] >= 0 && r[2] <= photo.width && r[3] <= photo.height
      && !rectsMeet(r, card.box) && !placed.some((p) => rectsMeet(r, [p[0] - gap, p[1] - gap, p[2] + gap, p[3] + gap])) && !middles.some((m) => rectsMeet(r, m));
    const cover = (r) => others.reduce((sum, b) => sum + overlapArea(r, b), 0);
    const at = (x, y) => [x, y, x + width, y + height];
    const beside = [
      at(x1, y1 - height - gap), at(x2 - width, y1 - height - gap),
      at(x1, y2 + gap), at(x2 - width, y2 + gap),
      at(x2 + gap, y1), at(x2 + gap, y2 - height), at(x1 - width - gap, y1), at(x1 - width - gap, y2 - height),
    ];
    const clear = beside.find((r) => fits(r) && cover(r) === 0);
    if (clear) return clear;
    const step = TAG_SEARCH_PX * k;
    const reach = reachPx * k;
    let best = null;
    let bestCost = Infinity;
    const consider = (r) => {
      if (!fits(r)) return;
      const cost = rectGap(r, card.box) + COVER_WEIGHT * cover(r) / height;
      if (cost < bestCost) {
        best = r;
        bestCost = cost;
      }
    };
    beside.forEach(consider);
    for (let y = Math.max(0, y1 - reach); y <= Math.min(photo.height - height, y2 + reach); y += step) {
      for (let x = Math.max(0, x1 - reach); x <= Math.min(photo.width - width, x2 + reach); x += step) consider(at(x, y));
    }
    return best;
  }

  function layoutTags(photo, cards, k, host, leaders) {
    const padX = 5 * k;
    const placed = [];
    // top to bottom, left to right: the tags of a row of cards line up as the cards do
    const order = cards.slice().sort((a, b) => a.box[1] - b.box[1] || a.box[0] - b.box[0]);
    for (const card of order) {
      const c = info(card.label);
      const problem = problemOf(card);
      const classes = `card-box seat-${card.seat}${isUnsure(card) ? " unsure" : ""}${problem ? " invalid" : ""}${picker && picker.id === card.id ? " selected" : ""}`;
      const tag = svg("g", { class: `tag ${classes}`, "data-id": card.id, "aria-hidden": "true" });
      // its own listener: a phone's tap adjustment then takes the tag for the tap target it is
      tag.addEventListener("click", (event) => {
        if (mode !== "select") return;
        event.stopPropagation();
        openPicker({ id: card.id });
      });
      const bg = svg("rect", { class: "tag-bg", rx: 4 * k, fill: c.colour });
      const label = svg("text", { class: "tag-text", fill: contrastText(c.colour) });
      const full = tagText(card);
      label.textContent = full;
      tag.append(bg, label);
      host.append(tag);
      const shorten = (limit) => {
        while (label.getComputedTextLength() > limit && label.textContent.length > TAG_MIN_CHARS) {
          label.textContent = `${label.textContent.slice(0, -2).trimEnd()}…`;
        }
      };
      shorten(TAG_MAX_PX * k - 2 * padX);
      let place = null;
      let box = null;
      for (;;) {
        const textBox = label.getBBox();
        box = { width: textBox.width + 2 * padX, height: textBox.height + 4 * k };
        place = findTagPlace(card, cards, placed, box.width, box.height, photo, k);
        if (place || label.textContent.length <= TAG_MIN_CHARS) break;
        // no room near the card for its whole name: farther away, tied by its leader line
        place = findTagPlace(card, cards, placed, box.width, box.height, photo, k, Infinity);
        if (place) break;
        shorten(Math.max(0, label.getComputedTextLength() * 0.7)); // no room: a shorter name
      }
      if (!place) {
        tag.remove(); // no room anywhere near: the card's name shows in the picker and the list
        continue;
      }
      if (label.textContent !== full) {
        const title = svg("title", {});
        title.textContent = full;
        tag.append(title);
      }
      placed.push(place);
      bg.setAttribute("x", place[0]);
      bg.setAttribute("y", place[1]);
      bg.setAttribute("width", box.width);
      bg.setAttribute("height", box.height);
      label.setAttribute("x", place[0] + padX);
      label.setAttribute("y", place[1] + box.height / 2);
      if (rectGap(place, card.box) > LEADER_PX * k) {
        // from the nearest point of the tag to the nearest point of its box
        const near = (a1, a2, b1, b2) => (a2 < b1 ? [a2, b1] : b2 < a1 ? [a1, b2] : [(Math.max(a1, b1) + Math.min(a2, b2)) / 2, (Math.max(a1, b1) + Math.min(a2, b2)) / 2]);
        const [tx, bx] = near(place[0], place[2], card.box[0], card.box[2]);
        const [ty, by] = near(place[1], place[3], card.box[1], card.box[3]);
        leaders.append(svg("line", { x1: tx, y1: ty, x2: bx, y2: by, class: `leader seat-${card.seat}` }));
      }
    }
    // the selected card's tag goes on top of its neighbours'
    const selected = host.querySelector(".selected");
    if (selected) host.append(selected);
  }

  function cardAt(photo, x, y, reach) {
    // the smallest box holding the point (a covered card's strip over the card on it), else
    // the nearest box within reach of a fingertip
    const mine = review.cards.filter((c) => c.photo === photo.id && c.box);
    const area = (b) => (b[2] - b[0]) * (b[3] - b[1]);
    const holding = mine.filter((c) => c.box[0] <= x && x <= c.box[2] && c.box[1] <= y && y <= c.box[3])
      .sort((a, b) => area(a.box) - area(b.box));
    if (holding.length) return holding[0];
    const gap = (b) => Math.hypot(Math.max(b[0] - x, 0, x - b[2]), Math.max(b[1] - y, 0, y - b[3]));
    const near = mine.filter((c) => gap(c.box) <= reach).sort((a, b) => gap(a.box) - gap(b.box));
    return near[0] || null;
  }

  function drawAllOverlays() {
    for (const id of stages.keys()) drawOverlay(id);
  }

  function toPhoto(overlay, event) {
    const point = overlay.createSVGPoint();
    point.x = event.clientX;
    point.y = event.clientY;
    const p = point.matrixTransform(overlay.getScreenCTM().inverse());
    return [p.x, p.y];
  }

  function attachPointer(overlay, photo) {
    let start = null;
    let ghost = null;
    overlay.addEventListener("click", (event) => {
      if (mode !== "select") return;
      // a tag picks its own card; elsewhere the card under the finger, by its box
      const tag = event.target.closest(".tag[data-id]");
      if (tag) {
        openPicker({ id: tag.dataset.id });
        return;
      }
      const [x, y] = toPhoto(overlay, event);
      const reach = TAP_REACH_PX * photo.width / Math.max(1, overlay.getBoundingClientRect().width);
      const card = cardAt(photo, x, y, reach);
      if (card) openPicker({ id: card.id });
    });
    overlay.addEventListener("keydown", (event) => {
      const group = event.target.closest && event.target.closest(".card-box");
      if (group && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        openPicker({ id: group.dataset.id });
      }
    });
    overlay.addEventListener("pointerdown", (event) => {
      if (mode === "select" || (mode === "areas" && photo.seat !== null)) return;
      event.preventDefault();
      overlay.setPointerCapture(event.pointerId);
      start = toPhoto(overlay, event);
      ghost = svg("rect", { class: mode === "draw" ? "ghost" : `ghost seat-area seat-${areaSeat}` });
      overlay.append(ghost);
    });
    overlay.addEventListener("pointermove", (event) => {
      if (!start || !ghost) return;
      const [x, y] = toPhoto(overlay, event);
      ghost.setAttribute("x", Math.min(start[0], x));
      ghost.setAttribute("y", Math.min(start[1], y));
      ghost.setAttribute("width", Math.abs(x - start[0]));
      ghost.setAttribute("height", Math.abs(y - start[1]));
    });
    const finish = (event) => {
      if (!start) return;
      const [x, y] = toPhoto(overlay, event);
      const box = [Math.min(start[0], x), Math.min(start[1], y), Math.max(start[0], x), Math.max(start[1], y)]
        .map((v, i) => Math.max(0, Math.min(v, i % 2 ? photo.height : photo.width)));
      start = null;
      ghost?.remove();
      ghost = null;
      const k = photo.width / Math.max(1, overlay.clientWidth || overlay.getBoundingClientRect().width);
      if (box[2] - box[0] < MIN_BOX_PX * k || box[3] - box[1] < MIN_BOX_PX * k) return;
      if (mode === "draw") {
        setMode("select"); // one card per drag: the next tap opens a card again
        addDrawnCard(photo, box.map((v) => Math.round(v * 10) / 10));
      }
      else if (mode === "areas") setArea(photo, box);
    };
    overlay.addEventListener("pointerup", finish);
    overlay.addEventListener("pointercancel", () => {
      start = null;
      ghost?.remove();
      ghost = null;
    });
  }

  function seatForBox(photo, box) {
    if (photo.seat !== null) return photo.seat;
    const [x, y] = centre(box);
    if (seatAreas) {
      const inside = seatAreas.findIndex((a) => a && x >= a[0] * photo.width && x <= a[2] * photo.width && y >= a[1] * photo.height && y <= a[3] * photo.height);
      if (inside >= 0) return inside;
    }
    let best = null;
    let bestDistance = Infinity;
    for (const card of review.cards) {
      if (card.photo !== photo.id || !card.box) continue;
      const [cx, cy] = centre(card.box);
      const distance = Math.hypot(cx - x, cy - y);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = card.seat;
      }
    }
    return best ?? 0;
  }

  function addDrawnCard(photo, box) {
    const card = { id: newId(), label: null, seat: seatForBox(photo, box), photo: photo.id, box, confidence: null, on: null };
    openPicker({ pending: card });
  }

  // ---- seat areas ------------------------------------------------------------------------

  function setMode(next) {
    mode = mode === next ? "select" : next;
    $("#draw").setAttribute("aria-pressed", String(mode === "draw"));
    $("#seat-areas").setAttribute("aria-pressed", String(mode === "areas"));
    $("#seat-area-bar").hidden = mode !== "areas";
    document.body.classList.toggle("mode-draw", mode === "draw");
    if (mode === "areas") {
      if (!seatAreas) seatAreas = players.map(() => null);
      renderAreaPlayers();
    }
    drawAllOverlays();
  }

  function renderAreaPlayers() {
    const host = $("#seat-area-players");
    host.replaceChildren(...players.map((name, seat) =>
      el("button", {
        type: "button",
        class: `seat-chip seat-${seat}${seat === areaSeat ? " active" : ""}${seatAreas && seatAreas[seat] ? " done" : ""}`,
        "aria-pressed": String(seat === areaSeat),
        onclick: () => { areaSeat = seat; renderAreaPlayers(); },
      }, el("span", { class: `seat-dot seat-${seat}` }), name)));
  }

  function setArea(photo, box) {
    seatAreas[areaSeat] = [box[0] / photo.width, box[1] / photo.height, box[2] / photo.width, box[3] / photo.height]
      .map((v) => Math.round(Math.min(1, Math.max(0, v)) * 10000) / 10000);
    const missing = players.findIndex((_, seat) => !seatAreas[seat]);
    if (missing >= 0) areaSeat = missing;
    renderAreaPlayers();
    drawAllOverlays();
  }

  async function saveAreas(clear) {
    if (!clear && (!seatAreas || seatAreas.some((a) => !a))) {
      showError(_("Draw an area for every player first."));
      return;
    }
    const response = await postJSON(state.urls.seats, { areas: clear ? null : seatAreas });
    if (!response.ok) {
      showError(response.data.error || _("The seat areas were not saved."));
      return;
    }
    seatAreas = response.data.areas;
    if (seatAreas) {
      change(() => {
        for (const card of review.cards) {
          const photo = state.photos.find((p) => p.id === card.photo);
          if (!photo || photo.seat !== null || !card.box || card.on) continue;
          const [x, y] = centre(card.box);
          const seat = seatAreas.findIndex((a) => x >= a[0] * photo.width && x <= a[2] * photo.width && y >= a[1] * photo.height && y <= a[3] * photo.height);
          if (seat >= 0) moveToSeat(card, seat);
        }
      });
    }
    showError(null);
    if (mode === "areas") setMode("areas"); // done: back to picking cards
    showToast(seatAreas ? _("Seat areas saved: the next photos are split by them.") : _("Seat areas forgotten."));
    drawAllOverlays();
  }

  let toastTimer = null;
  function showToast(message) {
    const toast = $("#toast");
    toast.textContent = message;
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toast.hidden = true; }, 4000);
  }

  // ---- the seats panel: each player's cards and live scores ------------------------------

  const seatsHost = $("#seats");

  function chip(card) {
    const c = info(card.label);
    const problem = problemOf(card);
    return el("button", {
      type: "button",
      class: `chip chip-btn${isUnsure(card) ? " unsure" : ""}${problem ? " invalid" : ""}`,
      style: `--family: ${c.colour}; --on-family: ${contrastText(c.colour)}`,
      title: problem || (card.box ? _("Change this card") : _("Card entered by hand: change it")),
      "data-id": card.id,
      onclick: () => openPicker({ id: card.id }),
    }, `${problem ? "⚠ " : isUnsure(card) ? "? " : ""}${c.name}`);
  }

  function problemList(seat) {
    // one line per problem, with a button that opens the first of its cards in this seat
    const seen = new Map();
    for (const card of review.cards) {
      const message = card.seat === seat && problemOf(card);
      if (message && !seen.has(message)) seen.set(message, card);
    }
    if (!seen.size) return null;
    return el("ul", { class: "card-problems" }, [...seen].map(([message, card]) => {
      const fix = lastScores && lastScores.fixes ? lastScores.fixes.get(message) : null;
      return el("li", { "data-id": card.id },
        el("span", { class: "problem-text", text: message }),
        // a fault one action mends (an uramaki place to enter): that action, else the card
        fix && fix.during
          ? el("button", { type: "button", class: "btn btn-small btn-ghost problem-fix", onclick: () => applyFix(fix) }, fix.label)
          : el("button", { type: "button", class: "btn btn-small btn-ghost", onclick: () => openPicker({ id: card.id }) }, _("Fix")));
    }));
  }

  function applyFix(fix) {
    // e.g. uramaki that reached 10 icons: their place scored, and the cards gone from the table
    change(() => {
      review.scored_during_round.push({ ...fix.during });
      const gone = new Set(fix.remove || []);
      for (const card of review.cards) {
        while (card.on && gone.has(card.on)) card.on = byId(card.on).on;
      }
      review.cards = review.cards.filter((c) => !gone.has(c.id));
    });
    const section = $("#during-round");
    section.hidden = false;
    section.scrollIntoView({ block: "center" });
  }

  function noCardsText(seat) {
    const perPlayer = state.photos.length && state.photos.every((p) => p.seat !== null);
    if (perPlayer && !state.photos.some((p) => p.seat === seat)) return _("No photo of {player}'s cards: add them with “+ Add card”.", { player: players[seat] });
    return _("No cards yet");
  }

  function renderSeats() {
    const scores = lastScores;
    const rows = players.map((name, seat) => {
      const roots = review.cards.filter((c) => c.seat === seat && !c.on);
      const chips = roots.map((card) => {
        const chain = stackOf(card);
        if (chain.length === 1) return chip(card);
        const parts = [];
        chain.forEach((c, i) => {
          if (i) parts.push(el("span", { class: "stack-join", "aria-label": _("under"), text: "▸" }));
          parts.push(chip(c));
        });
        return el("span", { class: "stack" }, parts);
      });
      const player = scores && scores.data && scores.data.players ? scores.data.players[name] : null;
      const roundPoints = player ? player.rounds[scores.index] : null;
      const breakdown = player && player.breakdown ? player.breakdown[scores.index] || [] : [];
      const cardCount = review.cards.filter((c) => c.seat === seat).length;
      return el("section", { class: `seat-card seat-${seat}`, "data-seat": seat, "data-player": name },
        el("header", { class: "seat-head" },
          el("span", { class: `seat-dot seat-${seat}` }),
          el("h2", { text: name }),
          el("span", { class: "seat-count", text: ngettext("{n} card", "{n} cards", cardCount) }),
          el("span", { class: `round-points${scores && scores.stale ? " stale" : ""}`, "data-testid": "round-points", title: _("Points this round") }, roundPoints ?? "–"),
        ),
        el("div", { class: "chips" }, chips.length ? chips : el("span", { class: "muted no-cards", text: noCardsText(seat) })),
        problemList(seat),
        el("div", { class: "seat-foot" },
          el("button", { type: "button", class: "btn btn-small btn-ghost add-card", onclick: () => openPicker({ pending: { id: newId(), label: null, seat, photo: null, box: null, confidence: null, on: null } }) }, _("+ Add card")),
          player && state.rounds.length ? el("span", { class: "game-total", text: _("Game total {total}", { total: player.total }) }) : null,
        ),
        breakdown.length
          ? el("ul", { class: "breakdown" }, breakdown.map((line) =>
            el("li", {},
              el("span", { class: "cat", text: line.category }),
              el("span", { class: "detail", text: line.detail || "" }),
              el("span", { class: `pts${line.points < 0 ? " neg" : ""}`, text: `${line.points > 0 ? "+" : ""}${line.points}` }))))
          : null,
      );
    });
    seatsHost.replaceChildren(...rows);
  }

  // ---- seats turned: the photo taken from another side of the table ------------------------

  const seatToolsHost = $("#seat-tools");

  function turnSeats(step) {
    // every card goes to the player `step` places on (stacks move whole: all their cards do)
    const n = players.length;
    change(() => { for (const card of review.cards) card.seat = (((card.seat + step) % n) + n) % n; });
    showToast(step > 0
      ? _("Every player's cards moved to the next player (Undo takes it back).")
      : _("Every player's cards moved to the previous player (Undo takes it back)."));
  }

  function swapSeats(a, b) {
    if (a === b) return;
    change(() => {
      for (const card of review.cards) {
        if (card.seat === a) card.seat = b;
        else if (card.seat === b) card.seat = a;
      }
    });
    showToast(_("{first}'s and {second}'s cards swapped (Undo takes it back).", { first: players[a], second: players[b] }));
  }

  function renderSeatTools() {
    seatToolsHost.hidden = players.length < 2;
    if (players.length < 2) return;
    const n = players.length;
    const select = (id, label, selected) => el("select", { id, "aria-label": label },
      players.map((name, seat) => el("option", { value: seat, selected: seat === selected }, name)));
    const first = select("swap-a", _("Swap the cards of"), 0);
    const second = select("swap-b", _("with the cards of"), 1);
    const turns = n < 3 ? [] : [
      el("button", { type: "button", class: "btn btn-small btn-ghost", id: "turn-next", onclick: () => turnSeats(1) },
        _("↻ Turn: {first}'s cards to {next}", { first: players[0], next: players[1] })),
      el("button", { type: "button", class: "btn btn-small btn-ghost", id: "turn-previous", onclick: () => turnSeats(-1) },
        _("↺ Turn: {first}'s cards to {previous}", { first: players[0], previous: players[n - 1] })),
    ];
    seatToolsHost.replaceChildren(
      el("p", { class: "seat-tools-title", text: _("Cards at the wrong places? (a photo from another side)") }),
      turns.length ? el("div", { class: "seat-tools-row" }, turns) : null,
      el("div", { class: "seat-tools-row" }, el("span", { text: pgettext("seat tools: Swap <Ann> and <Ben>", "Swap") }), first, el("span", { text: pgettext("seat tools: Swap <Ann> and <Ben>", "and") }), second,
        el("button", { type: "button", class: "btn btn-small btn-ghost", id: "swap-seats", onclick: () => swapSeats(Number(first.value), Number(second.value)) }, pgettext("button", "Swap"))),
    );
  }

  // ---- points scored during the round ----------------------------------------------------

  function renderDuring() {
    const section = $("#during-round");
    const relevant = state.game.edition === "anniversary" || state.cards.some((c) => c.in_game && c.kind === "uramaki");
    section.hidden = !relevant && !review.scored_during_round.length;
    const list = $("#during-list");
    list.replaceChildren(...review.scored_during_round.map((entry, index) => {
      const update = (key, value) => change(() => { review.scored_during_round[index][key] = value; });
      return el("li", { class: "during-row" },
        el("select", { "aria-label": _("Player"), onchange: (e) => update("player", e.target.value) },
          players.map((p) => el("option", { value: p, selected: p === entry.player }, p))),
        el("select", { "aria-label": _("For"), onchange: (e) => update("for", e.target.value) },
          ["uramaki", "strawberry-pudding"].map((f) => el("option", { value: f, selected: f === entry.for }, kindName(f, state.game.edition) || f.replace("-", " ")))),
        el("input", { type: "number", inputmode: "numeric", "aria-label": _("Points"), value: entry.points, onchange: (e) => update("points", Number(e.target.value)) }),
        el("button", { type: "button", class: "icon-btn", "aria-label": _("Remove"), onclick: () => change(() => review.scored_during_round.splice(index, 1)) }, "✕"));
    }));
  }

  // ---- number keys -----------------------------------------------------------------------

  let digits = "";
  let digitTimer = null;

  function numberKey(key, pick) {
    // "1" may start "12": wait for a second digit unless no card's number starts that way
    clearTimeout(digitTimer);
    digits = digits + key;
    const typed = Number(digits);
    const done = () => {
      clearTimeout(digitTimer);
      const slug = numbered.get(Number(digits));
      digits = "";
      if (slug) pick(slug);
    };
    if (typed * 10 > numbered.size || digits.length >= 2) done();
    else digitTimer = setTimeout(done, DIGIT_WAIT_MS);
  }

  function flushDigits() {
    if (!digits) return false;
    clearTimeout(digitTimer);
    const slug = numbered.get(Number(digits));
    digits = "";
    return slug;
  }

  // ---- the picker ------------------------------------------------------------------------

  const dialog = $("#picker");
  const search = $("#picker-search");

  function pickerCard() {
    return picker && (picker.pending || byId(picker.id));
  }

  function openPicker(target) {
    picker = target;
    const card = pickerCard();
    if (!card) return;
    search.value = "";
    dialog.returnValue = ""; // only this opening's "Done" counts
    renderPicker();
    drawAllOverlays();
    renderPickerCrop(card);
    placePicker(card);
    if (!dialog.open) dialog.showModal();
    centrePickerBeside();
    // a phone's keyboard would cover the list: focus the search field only with a mouse
    if (window.matchMedia("(pointer: fine)").matches) search.focus();
    else dialog.focus();
  }

  // ---- the picker: the card being fixed, shown and left in sight ----------------------------

  const CROP_HEIGHT_PX = 96; // the crop of the card being fixed, in the picker's head
  const CROP_WIDTH_PX = 180;
  const PICKER_MARGIN_PX = 8;
  const PICKER_MIN_WIDTH_PX = 340; // narrower than this beside the card, it goes above or below
  const PICKER_MIN_HEIGHT_PX = 320;
  const FAMILY_NAMES = {
    nigiri: pgettext("card family", "Nigiri"), rolls: pgettext("card family", "Rolls"),
    appetizers: pgettext("card family", "Appetizers"), specials: pgettext("card family", "Specials"),
    desserts: pgettext("card family", "Desserts"), other: pgettext("card family", "Other"),
  };
  const pictures = new Map(Object.entries(state.pictures || {})); // slug -> a crop from the players' photos

  function renderPickerCrop(card) {
    // cut from the photo on the page: the player sees the very card the picker is about
    const canvas = $("#picker-crop");
    const entry = card.box ? stages.get(card.photo) : null;
    canvas.hidden = !entry;
    if (!entry) return;
    const img = $("img", entry.stage);
    const [x1, y1, x2, y2] = card.box;
    const scale = Math.min(CROP_HEIGHT_PX / Math.max(1, y2 - y1), CROP_WIDTH_PX / Math.max(1, x2 - x1));
    const width = Math.max(1, Math.round((x2 - x1) * scale));
    const height = Math.max(1, Math.round((y2 - y1) * scale));
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    const draw = () => {
      const k = img.naturalWidth / entry.photo.width; // the file's pixels per photo pixel
      canvas.getContext("2d").drawImage(img, x1 * k, y1 * k, (x2 - x1) * k, (y2 - y1) * k, 0, 0, canvas.width, canvas.height);
    };
    if (img.complete && img.naturalWidth) draw();
    else img.addEventListener("load", draw, { once: true });
  }

  function cardOnScreen(card) {
    const entry = card.box ? stages.get(card.photo) : null;
    if (!entry) return null;
    const frame = entry.overlay.getBoundingClientRect();
    const s = frame.width / entry.photo.width;
    const [x1, y1, x2, y2] = card.box;
    return { left: frame.left + x1 * s, top: frame.top + y1 * s, right: frame.left + x2 * s, bottom: frame.top + y2 * s };
  }

  function placePicker(card) {
    // beside the card being fixed, never over it: on the side with more room, else below or
    // above it (on a phone the page first scrolls the card up, under the toolbar)
    dialog.style.cssText = "";
    dialog.dataset.place = "middle";
    let r = cardOnScreen(card);
    if (!r) return; // a card entered by hand: the picker sits in the middle
    const m = PICKER_MARGIN_PX;
    const vw = document.documentElement.clientWidth;
    const vh = window.innerHeight;
    const side = () => Math.max(r.left, vw - r.right) - 2 * m;
    if (side() < PICKER_MIN_WIDTH_PX && vh - r.bottom - 2 * m < PICKER_MIN_HEIGHT_PX) {
      const toolbar = $(".review-toolbar").offsetHeight; // it stays at the top as the page scrolls
      scrolledFrom = window.scrollY; // given back as the picker closes
      window.scrollBy(0, r.top - toolbar - 2 * m);
      r = cardOnScreen(card);
    }
    const style = { position: "fixed", margin: "0", inset: "auto" };
    if (side() >= PICKER_MIN_WIDTH_PX) {
      dialog.dataset.place = "side";
      const right = vw - r.right >= r.left;
      const width = Math.min(640, side());
      Object.assign(style, { left: `${right ? r.right + m : r.left - m - width}px`, top: `${m}px`, width: `${width}px`, maxHeight: `${vh - 2 * m}px` });
    } else {
      const below = vh - r.bottom >= r.top;
      dialog.dataset.place = below ? "below" : "above";
      const width = Math.min(640, vw);
      const room = Math.max(0, (below ? vh - r.bottom : r.top) - 2 * m);
      Object.assign(style, { left: `${(vw - width) / 2}px`, width: `${width}px`, maxHeight: `${room}px` });
      if (below) style.bottom = "0px";
      else style.top = `${m}px`;
    }
    Object.assign(dialog.style, style);
  }

  let scrolledFrom = null;
  function restoreScroll() {
    // the page as it was before the picker made room: the next tap lands where the eye expects
    if (scrolledFrom === null) return;
    window.scrollTo(window.scrollX, scrolledFrom);
    scrolledFrom = null;
  }
  $("#picker-form").addEventListener("submit", restoreScroll); // Close and Done, before closing

  function centrePickerBeside() {
    // a dialog beside the card goes to the middle of the screen's height once its height is known
    if (dialog.dataset.place !== "side") return;
    const top = Math.max(PICKER_MARGIN_PX, (window.innerHeight - dialog.getBoundingClientRect().height) / 2);
    dialog.style.top = `${top}px`;
  }

  function pickPicture(c) {
    const url = pictures.get(c.slug);
    return url ? el("img", { class: "pick-picture", src: url, alt: "", loading: "lazy", decoding: "async" }) : null;
  }

  function byFamily(cards, button) {
    // the game's cards under their families' names (a Party deck has 37 kinds to scan)
    const out = [];
    let family = null;
    for (const c of cards) {
      if (c.family !== family) {
        family = c.family;
        out.push(el("p", { class: "picker-sep picker-family", text: FAMILY_NAMES[family] || family }));
      }
      out.push(button(c));
    }
    return out;
  }

  function closePicker() {
    restoreScroll();
    if (dialog.open) dialog.close();
  }

  dialog.addEventListener("close", () => {
    const card = pickerCard();
    if (card && !picker.pending && isUnsure(card) && dialog.returnValue === "done") {
      change(() => { card.confidence = null; }); // looked at and kept as it is
    }
    picker = null;
    restoreScroll();
    drawAllOverlays();
  });

  function choose(slug) {
    const card = pickerCard();
    if (!card) return;
    if (picker.pending) {
      const pending = picker.pending;
      change(() => {
        pending.label = slug;
        review.cards.push(pending);
      });
    } else {
      change(() => setLabel(card, slug));
    }
    picker = null;
    closePicker();
  }

  function renderPicker() {
    const card = pickerCard();
    const current = card.label ? info(card.label) : null;
    $("#picker-title").textContent = picker.pending
      ? _("Which card is this? ({player})", { player: players[card.seat] })
      : card.confidence !== null ? _("{card} · {percent}% sure", { card: current.name, percent: Math.round(card.confidence * 100) }) : current.name;
    const problem = !picker.pending && problemOf(card);
    $("#picker-problem").hidden = !problem;
    $("#picker-problem").textContent = problem ? `⚠ ${problem}` : "";
    const query = search.value.trim().toLowerCase();
    const matches = ranked(query);
    const button = (c) => el("button", {
      type: "button",
      class: `pick${card.label === c.slug ? " current" : ""}${c.in_game ? "" : " off-menu"}`,
      style: `--family: ${c.colour}; --on-family: ${contrastText(c.colour)}`,
      "data-slug": c.slug,
      role: "option",
      "aria-selected": String(card.label === c.slug),
      onclick: () => choose(c.slug),
      title: c.in_game ? null : _("Not on this game's menu"),
    }, !query ? el("kbd", { text: c.hotkey }) : null, el("span", { class: "swatch" }), pickPicture(c), el("span", { class: "pick-name", text: c.name }));
    // while searching, the best match comes first whichever section it is in (Enter picks it)
    const inGame = query ? matches : matches.filter((c) => c.in_game);
    const others = query ? [] : matches.filter((c) => !c.in_game);
    $("#picker-cards").replaceChildren(...[
      ...(query ? inGame.map(button) : byFamily(inGame, button)),
      others.length ? el("p", { class: "picker-sep", text: _("Not on this game's menu") }) : null,
      ...others.map(button),
      matches.length ? null : el("p", { class: "muted", text: _("No card matches.") }),
    ].filter(Boolean));

    const seatButtons = players.map((name, seat) => el("button", {
      type: "button",
      class: `seat-chip seat-${seat}${card.seat === seat ? " active" : ""}`,
      "aria-pressed": String(card.seat === seat),
      onclick: () => {
        if (picker.pending) picker.pending.seat = seat;
        else change(() => moveToSeat(card, seat));
        renderPicker();
      },
    }, el("span", { class: `seat-dot seat-${seat}` }), name));
    $("#picker-seats .picker-seat-buttons").replaceChildren(...seatButtons);

    const stackRow = $("#picker-stack");
    stackRow.replaceChildren();
    if (!picker.pending && card.label) {
      const kind = info(card.label).kind;
      if (kind === "nigiri") {
        if (card.on) {
          stackRow.append(el("button", { type: "button", class: "btn btn-small toggle on", id: "stack-toggle", onclick: () => { change(() => { card.on = null; }); renderPicker(); } }, _("On {card}: take it off", { card: info(byId(card.on)?.label).name })));
        } else {
          const wasabi = freeWasabis(card)[0];
          stackRow.append(wasabi
            ? el("button", { type: "button", class: "btn btn-small toggle", id: "stack-toggle", onclick: () => { change(() => { card.on = wasabi.id; }); renderPicker(); } }, _("Put it on a wasabi"))
            : el("span", { class: "muted", text: _("{player} has no free wasabi", { player: players[card.seat] }) }));
        }
      } else if (kind === "special-order") {
        const options = copyable(card);
        stackRow.append(el("label", { class: "picker-label", for: "copies" }, _("Copies")),
          el("select", { id: "copies", onchange: (e) => { change(() => { card.on = e.target.value || null; }); renderPicker(); } },
            el("option", { value: "", text: _("nothing (yet)") }),
            options.map(({ target, label }) => el("option", { value: target.id, selected: card.on === target.id, text: info(label).name }))));
      }
    }
    $("#picker-delete").textContent = picker.pending ? _("Cancel") : _("Delete");
    $("#picker-delete").append(" ", el("kbd", { text: pgettext("keyboard key", "Del") }));
  }

  function ranked(query) {
    // a name starting with the words typed first, then a word of the name, then anywhere in
    // the name or slug, then the family ("special" is Special Order before the specials)
    // (accents aside: "salmon" finds "Nigiri de salmón"; the English name is found too)
    if (!query) return state.cards;
    query = plain(query);
    const rank = (c) => {
      const name = plain(c.name);
      if (name.startsWith(query)) return 0;
      if (name.split(/[\s-]+/).some((word) => word.startsWith(query))) return 1;
      if (name.includes(query) || c.slug.includes(query) || plain(c.english || "").includes(query)) return 2;
      if (c.family.includes(query)) return 3;
      return null;
    };
    return state.cards
      .map((c, index) => ({ c, index, rank: rank(c) }))
      .filter((m) => m.rank !== null)
      .sort((a, b) => a.rank - b.rank || Number(b.c.in_game) - Number(a.c.in_game) || a.index - b.index)
      .map((m) => m.c);
  }

  function plain(text) {
    return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  }

  function copyable(card) {
    // one option per card name the special order could copy: the seat's other cards, not
    // another special order (a copy of a copy is the same card), not one that leaves the
    // table. It lies on top of the stack it copies, over earlier special orders only.
    const options = new Map();
    for (const c of review.cards) {
      if (c === card || c.seat !== card.seat || NEVER_COPIED.has(c.label)) continue;
      let top = c;
      let above = cardAbove(top.id);
      while (above && above !== card && above.label === "special-order") {
        top = above;
        above = cardAbove(top.id);
      }
      if (above && above !== card) continue; // a nigiri lies on it: it is not free
      const option = { target: top, label: c.label };
      if (!options.has(c.label) || card.on === top.id) options.set(c.label, option);
    }
    return [...options.values()];
  }

  search.addEventListener("input", renderPicker);
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      const first = $("#picker-cards .pick");
      if (first) choose(first.dataset.slug);
    }
  });

  function deleteFromPicker() {
    const card = pickerCard();
    if (card && !picker.pending) change(() => removeCard(card));
    picker = null;
    closePicker();
  }
  $("#picker-delete").addEventListener("click", deleteFromPicker);

  dialog.addEventListener("keydown", (event) => {
    const typing = search.value !== "";
    if (!typing && /^[0-9]$/.test(event.key) && (digits || event.key !== "0") && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      numberKey(event.key, choose);
    } else if (!typing && event.key === "Enter" && digits) {
      event.preventDefault();
      const slug = flushDigits();
      if (slug) choose(slug);
    } else if (event.key === "Delete") {
      event.preventDefault();
      deleteFromPicker();
    }
  });
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) closePicker(); // a click on the backdrop
  });

  // ---- keyboard ---------------------------------------------------------------------------

  document.addEventListener("keydown", (event) => {
    if (dialog.open) return;
    const inField = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement?.tagName);
    const ctrl = event.ctrlKey || event.metaKey;
    if (ctrl && event.key.toLowerCase() === "z" && !inField) {
      event.preventDefault();
      if (event.shiftKey) redo();
      else undo();
    } else if (ctrl && event.key.toLowerCase() === "y" && !inField) {
      event.preventDefault();
      redo();
    } else if (event.key === "Escape" && mode !== "select") {
      setMode(mode);
    } else if (!inField && !ctrl) {
      // a card focused with Tab (a box or its chip): Delete removes it, 1-9 renames it
      const focused = document.activeElement?.closest?.("[data-id]");
      const card = focused && byId(focused.dataset.id);
      if (!card) return;
      if (event.key === "Delete" || event.key === "Backspace") {
        event.preventDefault();
        change(() => removeCard(card));
      } else if (/^[0-9]$/.test(event.key) && (digits || event.key !== "0")) {
        event.preventDefault();
        numberKey(event.key, (slug) => {
          change(() => setLabel(card, slug));
          document.querySelector(`.card-box[data-id="${CSS.escape(card.id)}"]`)?.focus();
        });
      }
    }
  });

  // ---- scores -----------------------------------------------------------------------------

  let scoreTimer = null;
  let scoreSeq = 0;

  function scheduleScore() {
    clearTimeout(scoreTimer);
    if (lastScores) lastScores.stale = true;
    scoreTimer = setTimeout(score, 200);
  }

  function problemsFrom(list) {
    const byCard = new Map();
    for (const problem of list || []) for (const id of problem.cards) if (!byCard.has(id)) byCard.set(id, problem.message);
    return byCard;
  }

  function fixesFrom(list) {
    return new Map((list || []).filter((p) => p.fix).map((p) => [p.message, p.fix]));
  }

  function showProblems() {
    const count = lastScores && lastScores.problems ? lastScores.problems.size : 0;
    const warnings = lastScores && lastScores.warnings ? lastScores.warnings : [];
    if (lastScores && lastScores.error) showError(lastScores.error);
    else if (!count && warnings.length) showError(warnings.map((w) => w.message).join(" "));
    else if (count) {
      showError(ngettext(
        "A card cannot be scored as it lies (marked ⚠ below): the scores leave it out until fixed.",
        "{n} cards cannot be scored as they lie (marked ⚠ below): the scores leave them out until fixed.", count));
    }
    else showError(null);
  }

  async function score() {
    const seq = ++scoreSeq;
    const response = await postJSON(state.urls.score, review);
    if (seq !== scoreSeq) return; // a newer change is being scored
    if (response.ok) {
      const data = response.data;
      lastScores = { data: data.result, index: data.index, stale: !data.result, problems: problemsFrom(data.problems), fixes: fixesFrom(data.problems), warnings: data.warnings || [], error: data.error };
    } else {
      lastScores = { ...(lastScores || {}), stale: true, problems: new Map(), error: response.data.error || _("The round cannot be scored.") };
    }
    showProblems();
    renderSeats();
    drawAllOverlays();
    document.body.dataset.scored = String(seq); // lets tests wait for the live scores
  }

  async function postJSON(url, body, withToken = true) {
    const headers = { "Content-Type": "application/json", Accept: "application/json" };
    if (withToken) headers["X-CSRFToken"] = csrfToken;
    try {
      const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), credentials: "same-origin" });
      let data = {};
      try {
        data = await response.json();
      } catch (_) {
        data = { error: _("The server answered {status}.", { status: response.status }) };
      }
      return { ok: response.ok, data };
    } catch (error) {
      return { ok: false, data: { error: _("The server cannot be reached. Check the connection and try again.") } };
    }
  }

  function showError(message) {
    const box = $("#review-error");
    box.hidden = !message;
    box.textContent = message || "";
  }

  async function confirmRound() {
    const button = $("#confirm");
    button.disabled = true;
    button.textContent = _("Saving…");
    showConflict(null);
    const response = await postJSON(state.urls.confirm, { ...review, version: serverFingerprint });
    if (response.ok) {
      try {
        localStorage.removeItem(draftKey);
        sessionStorage.removeItem(undoKey);
      } catch (_) { /* nothing kept */ }
      window.location.assign(response.data.redirect);
      return;
    }
    if (response.data.problems && lastScores) {
      lastScores.problems = problemsFrom(response.data.problems);
      lastScores.fixes = fixesFrom(response.data.problems);
      renderSeats();
      drawAllOverlays();
    }
    button.disabled = false;
    button.textContent = _("Confirm round {round}", { round: state.round });
    if (response.data.current) { // 409: someone else's edit was stored since this page opened
      showError(null);
      showConflict(response.data.error, response.data.current);
      return;
    }
    showError(response.data.error || _("The round was not saved."));
    if (response.data.confirm_anyway && response.data.confirm_anyway.length) {
      // more cards than the deck holds: the players may know their deck is like this
      const kinds = response.data.confirm_anyway;
      $("#review-error").append(" ", el("button", {
        type: "button", class: "btn btn-small btn-salmon", id: "confirm-anyway",
        onclick: () => { change(() => { review.over_deck = [...kinds]; }); confirmRound(); },
      }, _("Confirm anyway: our deck is like this")));
    }
  }

  // Two phones (or tabs) on one round: the second to confirm is shown the first one's version
  // and chooses; nothing is dropped without the player seeing it.
  function showConflict(message, current = null) {
    theirs = current;
    const box = $("#review-conflict");
    box.hidden = !current;
    if (!current) return;
    $(".conflict-message", box).textContent = message;
    const cards = normalise(current.review).cards;
    $(".conflict-theirs", box).textContent = players.map((player, seat) => {
      const names = cards.filter((c) => c.seat === seat).map((c) => info(c.label).name);
      return `${player}: ${names.length ? names.join(", ") : _("no cards")}`;
    }).join("; ");
  }

  function showTheirs() {
    if (!theirs) return;
    const known = new Set(state.photos.map((p) => p.id));
    const other = normalise(theirs.review);
    if (other.cards.some((c) => c.photo !== null && !known.has(c.photo))) {
      window.location.reload(); // their version is on photos taken since: the page shows them
      return;
    }
    serverFingerprint = theirs.version;
    showConflict(null);
    change(() => { review = other; }); // Undo brings this phone's edit back
    showToast(_("Their version is shown: Undo brings yours back."));
  }

  function confirmMine() {
    if (!theirs) return;
    serverFingerprint = theirs.version; // seen, and replaced on purpose
    confirmRound();
  }

  // ---- unsure cards ----------------------------------------------------------------------

  function renderUnsure() {
    const unsure = review.cards.filter(isUnsure);
    const button = $("#next-unsure");
    button.hidden = !unsure.length;
    $(".count", button).textContent = unsure.length;
  }

  function nextUnsure() {
    const unsure = review.cards.filter(isUnsure);
    if (!unsure.length) return;
    unsureCursor = (unsureCursor + 1) % unsure.length;
    const card = unsure[unsureCursor];
    const group = document.querySelector(`.card-box[data-id="${CSS.escape(card.id)}"]`);
    if (group) group.scrollIntoView({ block: "center", behavior: "smooth" });
    openPicker({ id: card.id });
  }

  // ---- wiring -----------------------------------------------------------------------------

  function render() {
    drawAllOverlays();
    renderSeats();
    renderDuring();
    renderUnsure();
    $("#undo").disabled = !undoStack.length;
    $("#redo").disabled = !redoStack.length;
  }

  let zoom = 1;
  $("#zoom").addEventListener("click", () => {
    zoom = zoom >= 3 ? 1 : zoom + 1; // a whole table on a phone: enlarge, then scroll around
    photosHost.style.setProperty("--zoom", zoom);
    photosHost.classList.toggle("zoomed", zoom > 1);
    $("#zoom .zoom-level").textContent = `${zoom}×`;
  });
  $("#undo").addEventListener("click", undo);
  $("#redo").addEventListener("click", redo);
  $("#draw").addEventListener("click", () => setMode("draw"));
  $("#seat-areas").addEventListener("click", () => setMode("areas"));
  $("#save-seat-areas").addEventListener("click", () => saveAreas(false));
  $("#clear-seat-areas").addEventListener("click", () => {
    seatAreas = null;
    saveAreas(true);
  });
  $("#next-unsure").addEventListener("click", nextUnsure);
  $("#confirm").addEventListener("click", confirmRound);
  $("#conflict-show").addEventListener("click", showTheirs);
  $("#conflict-mine").addEventListener("click", confirmMine);
  $("#add-during").addEventListener("click", () => change(() => review.scored_during_round.push({ player: players[0], for: "uramaki", points: 8 })));

  // A draft kept by this browser (a reload, a phone that slept) wins over the server's copy,
  // as long as the server's copy is the one it started from.
  try {
    const kept = JSON.parse(localStorage.getItem(draftKey) || "null");
    if (kept && kept.from === serverFingerprint) review = normalise(kept.review);
    else localStorage.removeItem(draftKey);
  } catch (_) {
    /* no draft */
  }
  try {
    // the history belongs to the review it led to: kept only if that is the one shown now
    const history = JSON.parse(sessionStorage.getItem(undoKey) || "null");
    if (history && history.from === serverFingerprint && JSON.stringify(normalise(history.review)) === JSON.stringify(review)) {
      undoStack = history.undo.filter((entry) => typeof entry === "string");
      redoStack = history.redo.filter((entry) => typeof entry === "string");
    } else {
      sessionStorage.removeItem(undoKey);
    }
  } catch (_) {
    /* no history */
  }

  buildPhotos();
  renderSeatTools();
  render();
  score();
});
