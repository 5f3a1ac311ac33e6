// Small enhancements for every page; each page works without them (plain forms).
"use strict";

document.addEventListener("DOMContentLoaded", () => i18nReady.then(() => {
  // Forms that ask before doing something that cannot be undone.
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  setupNewGame(document.getElementById("setup-form"));
  setupCapture(document.getElementById("capture-form"));
}));

// A custom menu's dish groups: how many of the kinds each asks for are picked (the new-game
// page and the live page's setup both have one).
function showPickCounts(root) {
  for (const group of root.querySelectorAll(".kind-group")) {
    const wanted = Number(group.dataset.pick);
    const picked = group.querySelectorAll("input:checked").length;
    const counter = group.querySelector(".pick-count");
    counter.textContent = picked === wanted
      ? _("{picked} of {wanted} ✓", { picked, wanted })
      : _("pick {wanted} ({picked} picked)", { picked, wanted });
    counter.classList.toggle("ok", picked === wanted);
  }
}

// New game: show the menu and variants of the chosen edition only, and disable the hidden
// inputs so that they are not sent.
function setupNewGame(form) {
  if (!form) return;
  const customMenu = document.getElementById("custom-menu");
  const sync = () => {
    const edition = form.querySelector('input[name="edition"]:checked')?.value;
    for (const block of form.querySelectorAll(".edition-only")) {
      const shown = block.dataset.edition === edition;
      block.hidden = !shown;
      for (const input of block.querySelectorAll("input")) input.disabled = !shown;
    }
    for (const row of form.querySelectorAll(".party-only")) {
      row.hidden = edition !== "party" && !row.querySelector("input").value;
    }
    const custom = form.querySelector('input[name="menu"][value="custom"]');
    if (customMenu) {
      const open = Boolean(custom && custom.checked && !custom.disabled);
      customMenu.hidden = !open;
      for (const input of customMenu.querySelectorAll("input")) input.disabled = !open;
    }
    showPickCounts(form);
  };
  form.addEventListener("change", sync);
  sync();
}

// Capture: one panel per mode, previews of the chosen photos, and a busy screen while the
// server reads the cards (a few seconds on a small computer).
function setupCapture(form) {
  if (!form) return;
  const sync = () => {
    const mode = form.querySelector('input[name="mode"]:checked')?.value || "table";
    for (const panel of form.querySelectorAll(".mode-panel")) {
      const shown = panel.dataset.mode === mode;
      panel.hidden = !shown;
      for (const input of panel.querySelectorAll("input")) input.disabled = !shown;
    }
  };
  form.addEventListener("change", (event) => {
    const input = event.target;
    if (input.classList.contains("photo-input")) {
      // a photo taken or a photo chosen: one of the two inputs of the same name is sent
      const pick = input.closest(".photo-pick") || input.closest("label");
      for (const other of pick.querySelectorAll(".photo-input")) if (other !== input) other.value = "";
      const preview = pick.querySelector(".preview");
      const file = input.files && input.files[0];
      if (preview && file) {
        preview.src = URL.createObjectURL(file);
        preview.hidden = false;
        pick.querySelector(".shutter").classList.add("has-photo");
      }
    }
    sync();
  });
  // the review page keeps its corrections in this browser until Confirm: send them along, so
  // a re-taken photo of one player keeps everyone else's cards as corrected
  let draft = null;
  try {
    draft = JSON.parse(localStorage.getItem(form.dataset.draftKey) || "null");
  } catch (_) {
    draft = null;
  }
  if (draft) form.querySelector('input[name="draft"]').value = JSON.stringify(draft);
  const cardsRead = draft && draft.review ? draft.review.cards.length : Number(form.dataset.cards || 0);
  form.addEventListener("submit", (event) => {
    const mode = form.querySelector('input[name="mode"]:checked')?.value || "table";
    if (mode === "table" && cardsRead > 0) {
      const question = ngettext(
        "Round {round} already has {n} card. A photo of the whole table replaces it, with your corrections. Replace it?",
        "Round {round} already has {n} cards. A photo of the whole table replaces them all, with your corrections. Replace them?",
        cardsRead, { round: Number(form.dataset.round) });
      if (!window.confirm(question)) {
        event.preventDefault();
        return;
      }
    }
    const busy = document.getElementById("busy");
    if (busy) busy.hidden = false;
  });
  window.addEventListener("pageshow", () => {
    const busy = document.getElementById("busy");
    if (busy) busy.hidden = true;
  });
  sync();
}
