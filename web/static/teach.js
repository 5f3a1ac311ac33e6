// The teach page: "Teach" links pick the card in the form; Retrain starts in the background
// and its progress is polled. Without this script the page still works with plain forms.
"use strict";

document.addEventListener("DOMContentLoaded", () => i18nReady.then(() => {
  const select = document.getElementById("teach-card");
  for (const link of document.querySelectorAll(".teach-link[data-card]")) {
    link.addEventListener("click", (event) => {
      if (!select) return;
      event.preventDefault();
      select.value = link.dataset.card;
      document.getElementById("teach").scrollIntoView({ behavior: "smooth" });
      document.querySelector('#teach-form input[type="file"]').focus();
    });
  }

  const panel = document.getElementById("retrain");
  if (!panel) return;
  const form = document.getElementById("retrain-form");
  const button = document.getElementById("retrain-button");
  const bar = document.getElementById("retrain-progress");
  const message = document.getElementById("retrain-message");
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content || "";
  let timer = null;

  // the server words the status in the page's language (status.words)
  const show = (status, words) => {
    const running = status.state === "running";
    button.disabled = running;
    bar.hidden = !running;
    if (running) bar.value = status.fraction || 0;
    if (words || status.words) message.textContent = words || status.words;
    return running;
  };

  const poll = async () => {
    try {
      const response = await fetch(panel.dataset.statusUrl, { headers: { Accept: "application/json" } });
      const status = await response.json();
      if (show(status)) {
        timer = setTimeout(poll, 2000);
      } else if (status.state === "done") {
        window.location.reload(); // the model list and card states changed
      }
    } catch (error) {
      timer = setTimeout(poll, 5000);
    }
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    const response = await fetch(panel.dataset.startUrl, {
      method: "POST", headers: { "X-CSRFToken": csrf, Accept: "application/json" }, credentials: "same-origin",
      body: new FormData(form),  // the detector box
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      message.textContent = body.error || _("Retraining could not start (the server answered {status}).", { status: response.status });
      button.disabled = false;
      return;
    }
    show({ state: "running", fraction: 0 }, _("Retraining: starting"));
    clearTimeout(timer);
    timer = setTimeout(poll, 1000);
  });

  if (!button.disabled) return;
  timer = setTimeout(poll, 1000);
}));
