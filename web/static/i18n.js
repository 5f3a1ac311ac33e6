// The page scripts' words in the page's language (its <html lang>): the "js" gettext catalog
// and the cards' printed names, fetched once from /i18n/js.json (web/i18n.py). Every other
// script waits for `i18nReady` before it writes text; an English page needs no catalog (the
// scripts' text is the English) and is ready at once.
//
//   _("Saving…")                                       a message
//   _("Confirm round {n}", { n: 2 })                   with {placeholders} (numbers by locale)
//   ngettext("{n} card", "{n} cards", count)           the plural form of `count` ({n} is it)
//   pgettext("card family", "Rolls")                   a message with a context
//   cardName("tempura", "party"), kindName("maki", "party")   null on an English page
"use strict";

const i18nLang = document.documentElement.lang || "en";
let i18nCatalog = { lang: "en", plural_categories: ["one", "other"], messages: {}, cards: {}, kinds: {} };

const i18nReady = (() => {
  const source = document.querySelector("script[data-i18n-catalog]");
  if (i18nLang === "en" || !source) return Promise.resolve();
  return fetch(source.dataset.i18nCatalog, { headers: { Accept: "application/json" }, credentials: "same-origin" })
    .then((response) => (response.ok ? response.json() : null))
    .then((catalog) => { if (catalog && catalog.messages) i18nCatalog = catalog; })
    .catch(() => { /* no catalog: the scripts write English, the page still works */ });
})();

const i18nPlurals = new Intl.PluralRules(i18nLang);
const i18nNumbers = new Intl.NumberFormat(i18nLang);

// "{name}" replaced by values.name; numbers are written as the page's language writes them
function format(template, values = {}) {
  return template.replace(/\{(\w+)\}/g, (whole, key) => {
    if (!(key in values)) return whole;
    const value = values[key];
    return typeof value === "number" ? i18nNumbers.format(value) : String(value);
  });
}

function _(message, values) {
  const text = i18nCatalog.messages[message];
  return format(typeof text === "string" && text ? text : message, values);
}

function pgettext(context, message, values) {
  const text = i18nCatalog.messages[`${context}\u0004${message}`];
  return format(typeof text === "string" && text ? text : message, values);
}

function ngettext(singular, plural, n, values = {}) {
  const forms = i18nCatalog.messages[singular];
  let text = n === 1 ? singular : plural;
  if (Array.isArray(forms) && forms.length) {
    // gettext's forms are in the order of the language's plural categories (web/i18n.py)
    const index = i18nCatalog.plural_categories.indexOf(i18nPlurals.select(n));
    text = forms[index >= 0 && index < forms.length ? index : forms.length - 1] || text;
  }
  return format(text, { n, ...values });
}

// a card's name as the rulebook of the page's language prints it, in `edition`
function cardName(slug, edition) {
  const names = i18nCatalog.cards[edition] || i18nCatalog.cards.party;
  return (names && names[slug]) || null;
}

function kindName(kind, edition) {
  const names = i18nCatalog.kinds[edition] || i18nCatalog.kinds.party;
  return (names && names[kind]) || null;
}
