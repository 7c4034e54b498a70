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

function setup(root) {
  root.dataset.ready = "true";
  const input = root.querySelector("[role=combobox]");
  const list = root.querySelector("[role=listbox]");
  const status = root.querySelector("[data-place-finder-status]");
  if (!input || !list) return;
  const indexUrl = root.dataset.indexUrl || "/place-index.json";
  const base = (root.dataset.base || "").replace(/\/+$/, "");
  let options = [];
  let active = -1;
  let generation = 0;

  const say = (text) => { if (status) status.textContent = text; };
  const hrefOf = (place) => `${base}/${place.slug}`;

  function setActive(i) {
    active = i;
    list.querySelectorAll("[role=option]").forEach((el, n) => el.setAttribute("aria-selected", String(n === i)));
    if (i >= 0) {
      const el = list.children[i];
      input.setAttribute("aria-activedescendant", el.id);
      el.scrollIntoView?.({ block: "nearest" });
    } else input.removeAttribute("aria-activedescendant");
  }

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    setActive(-1);
  }

  function render(places) {
    options = places;
    list.replaceChildren(...places.map((place, n) => {
      const li = document.createElement("li");
      li.id = `${list.id}-option-${n}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.dataset.href = hrefOf(place);
      const name = document.createElement("span");
      name.className = "place-finder-name";
      name.textContent = place.county ? `${place.name} (${place.county})` : place.name;
      const state = document.createElement("span");
      state.className = "place-finder-state";
      state.textContent = `, ${place.state}`;
      li.append(name, state);
      // mousedown, not click: it runs before the input's blur closes the list.
      li.addEventListener("mousedown", (event) => { event.preventDefault(); go(n); });
      return li;
    }));
    const open = places.length > 0;
    list.hidden = !open;
    input.setAttribute("aria-expanded", String(open));
    setActive(-1);
  }

  function go(n) {
    const place = options[n];
    if (place) window.location.assign(hrefOf(place));
  }

  async function update() {
    const mine = ++generation;
    const query = input.value;
    if (fold(query.trim()).length < 2) { render([]); say(""); return; }
    let index;
    try {
      index = await loadIndex(indexUrl);
    } catch {
      say("The town list could not be loaded; browse the cities page instead.");
      return;
    }
    if (mine !== generation) return; // a newer keystroke has already answered
    const places = findPlaces(index, query, MAX_SUGGESTIONS);
    render(places);
    say(places.length === 0 ? "No town matches." : `${places.length} ${places.length === 1 ? "town" : "towns"} found; use the arrow keys to choose.`);
  }

  input.addEventListener("input", update);
  input.addEventListener("focus", () => { loadIndex(indexUrl).catch(() => {}); if (input.value) update(); });
  input.addEventListener("blur", close);
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" && options.length) {
      event.preventDefault();
      if (list.hidden) { list.hidden = false; input.setAttribute("aria-expanded", "true"); }
      setActive((active + 1) % options.length);
    } else if (event.key === "ArrowUp" && options.length) {
      event.preventDefault();
      setActive(active <= 0 ? options.length - 1 : active - 1);
    } else if (event.key === "Enter" && !list.hidden && options.length) {
      event.preventDefault();
      go(active >= 0 ? active : 0);
    } else if (event.key === "Escape") {
      close();
    }
  });
}

/** Wires every `[data-place-finder]` element on the page (once each). */
export function initPlaceFinders(root = document) {
  for (const el of root.querySelectorAll("[data-place-finder]")) if (!el.dataset.ready) setup(el);
}

initPlaceFinders();
