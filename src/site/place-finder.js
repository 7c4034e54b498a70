// The "find your town" box: a combobox over a prebuilt minisearch index of every U.S. place
// (src/site/place-index.ts), searched in the browser with prefix and typo-tolerant matching,
// larger places first. Plain ES module with no build step: it is served as /place-finder.js next
// to /minisearch.js (minisearch's dist/es/index.js) and /place-index.json.
//
// Markup (src/components/PlaceFinder.astro):
// Ranking: src/site/place-ranking.js (/place-ranking.js), shared with the server's find_place.
// Without JavaScript the box is a GET form to /places?q= (the same ranking, on the server).
//   <form data-place-finder data-index-url="/place-index.json" [data-base=""] action="/places">
//     <label for="x-input">…</label>
//     <input id="x-input" role="combobox" aria-controls="x-list" aria-expanded="false" aria-autocomplete="list">
//     <ul id="x-list" role="listbox" hidden></ul>
//     <p data-place-finder-status aria-live="polite"></p>
//   </div>
import MiniSearch from "./minisearch.js";
import { findPlaces, fold } from "./place-ranking.js";

export { findPlaces, fold };

const MAX_SUGGESTIONS = 8;

const loaded = new Map();

/** Fetches and loads an index once per URL. */
function loadIndex(url) {
  if (!loaded.has(url)) {
    loaded.set(url, fetch(url)
      .then((res) => {
        if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
        return res.json();
      })
      .then((payload) => MiniSearch.loadJS(payload.index, payload.options)));
  }
  return loaded.get(url);
}

/**
 * Wires one finder. Its elements and state travel in `finder`: `options` the places listed, `active`
 * the one chosen with the arrow keys (-1: none), `generation` the latest keystroke's number.
 */
function setup(root) {
  root.dataset.ready = "true";
  const input = root.querySelector("[role=combobox]");
  const list = root.querySelector("[role=listbox]");
  const status = root.querySelector("[data-place-finder-status]");
  if (!input || !list) return;
  const finder = {
    input,
    list,
    indexUrl: root.dataset.indexUrl || "/place-index.json",
    base: (root.dataset.base || "").replace(/\/+$/, ""),
    options: [],
    active: -1,
    generation: 0,
    say: (text) => { if (status) status.textContent = text; },
  };

  input.addEventListener("input", () => update(finder));
  input.addEventListener("focus", () => { loadIndex(finder.indexUrl).catch(() => {}); if (input.value) update(finder); });
  input.addEventListener("blur", () => close(finder));
  input.addEventListener("keydown", (event) => onKey(finder, event));
}

const hrefOf = (finder, place) => `${finder.base}/${place.slug}`;

function setActive(finder, i) {
  const { input, list } = finder;
  finder.active = i;
  list.querySelectorAll("[role=option]").forEach((el, n) => el.setAttribute("aria-selected", String(n === i)));
  if (i >= 0) {
    const el = list.children[i];
    input.setAttribute("aria-activedescendant", el.id);
    el.scrollIntoView?.({ block: "nearest" });
  } else input.removeAttribute("aria-activedescendant");
}

function close(finder) {
  finder.list.hidden = true;
  finder.input.setAttribute("aria-expanded", "false");
  setActive(finder, -1);
}

function render(finder, places) {
  const { input, list } = finder;
  finder.options = places;
  list.replaceChildren(...places.map((place, n) => option(finder, place, n)));
  const open = places.length > 0;
  list.hidden = !open;
  input.setAttribute("aria-expanded", String(open));
  setActive(finder, -1);
}

/** The list's `n`th entry: the place's name, county and state. */
function option(finder, place, n) {
  const li = document.createElement("li");
  li.id = `${finder.list.id}-option-${n}`;
  li.setAttribute("role", "option");
  li.setAttribute("aria-selected", "false");
  li.dataset.href = hrefOf(finder, place);
  const name = document.createElement("span");
  name.className = "place-finder-name";
  name.textContent = place.county ? `${place.name} (${place.county})` : place.name;
  const state = document.createElement("span");
  state.className = "place-finder-state";
  state.textContent = `, ${place.state}`;
  li.append(name, state);
  // mousedown, not click: it runs before the input's blur closes the list.
  li.addEventListener("mousedown", (event) => { event.preventDefault(); go(finder, n); });
  return li;
}

function go(finder, n) {
  const place = finder.options[n];
  if (place) window.location.assign(hrefOf(finder, place));
}

async function update(finder) {
  const mine = ++finder.generation;
  const query = finder.input.value;
  if (fold(query.trim()).length < 2) { render(finder, []); finder.say(""); return; }
  let index;
  try {
    index = await loadIndex(finder.indexUrl);
  } catch {
    finder.say("The town list could not be loaded; browse the cities page instead.");
    return;
  }
  if (mine !== finder.generation) return; // a newer keystroke has already answered
  const places = findPlaces(index, query, MAX_SUGGESTIONS);
  render(finder, places);
  finder.say(places.length === 0 ? "No town matches." : `${places.length} ${places.length === 1 ? "town" : "towns"} found; use the arrow keys to choose.`);
}

function onKey(finder, event) {
  const { input, list, options, active } = finder;
  if (event.key === "ArrowDown" && options.length) {
    event.preventDefault();
    if (list.hidden) { list.hidden = false; input.setAttribute("aria-expanded", "true"); }
    setActive(finder, (active + 1) % options.length);
  } else if (event.key === "ArrowUp" && options.length) {
    event.preventDefault();
    setActive(finder, active <= 0 ? options.length - 1 : active - 1);
  } else if (event.key === "Enter" && !list.hidden && options.length) {
    event.preventDefault();
    go(finder, active >= 0 ? active : 0);
  } else if (event.key === "Escape") {
    close(finder);
  }
}

/** Wires every `[data-place-finder]` element on the page (once each). */
export function initPlaceFinders(root = document) {
  for (const el of root.querySelectorAll("[data-place-finder]")) if (!el.dataset.ready) setup(el);
}

initPlaceFinders();
