// The "find your town" box: a combobox over a prebuilt minisearch index of every U.S. place
// (src/site/place-index.ts), searched in the browser with prefix and typo-tolerant matching,
// larger places first. Plain ES module with no build step: it is served as /place-finder.js next
// to /minisearch.js (minisearch's dist/es/index.js) and /place-index.json.
//
// Markup (src/components/PlaceFinder.astro):
//   <div data-place-finder data-index-url="/place-index.json" [data-base=""]>
//     <label for="x-input">…</label>
//     <input id="x-input" role="combobox" aria-controls="x-list" aria-expanded="false" aria-autocomplete="list">
//     <ul id="x-list" role="listbox" hidden></ul>
//     <p data-place-finder-status aria-live="polite"></p>
//   </div>
import MiniSearch from "./minisearch.js";

const MAX_SUGGESTIONS = 8;

/** Keep in step with `fold` in src/site/place-index.ts. */
export function fold(text) {
  return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

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

/** Edit distance counting a swap of two neighbours as one typo ("Tuscon"), as readers make them. */
function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * How far a typed word is from a name's word: nothing when the name's word goes on from it
 * ("pittsburg" in "pittsburgh"), else its typos, a misspelt beginning counting one more than a
 * misspelt whole word (so "Tuscon" is Tucson before Tuscola).
 */
function closeness(typed, word) {
  if (word.startsWith(typed)) return 0;
  return Math.min(distance(typed, word), distance(typed, word.slice(0, typed.length)) + 1);
}

const typoBudget = (term) => (term.length <= 3 ? 0 : term.length <= 5 ? 1 : 2);

/**
 * Places matching what was typed, best first. Minisearch finds the candidates (prefix and
 * typo-tolerant; a name's letters run together are indexed too, so "Sanfrancisco" finds San
 * Francisco); they are then ranked by how few letters the reader got wrong, and among equally
 * close names by population. Minisearch's own score would put a rare misspelt-by-two name
 * ("Brackenridge") before a common one misspelt by one ("Breckenridge"), since rarity weighs more
 * than distance in its formula, and would bury Pittsburgh under every smaller exact "Pittsburg".
 */
export function findPlaces(index, query, limit = MAX_SUGGESTIONS) {
  const q = fold(query.trim());
  if (q.length < 2) return [];
  const candidates = index.search(q, { prefix: true, fuzzy: typoBudget, combineWith: "AND" }).slice(0, 400);
  const ranked = candidates.map((r) => {
    // A word found only in the state's name ("york" for Buffalo, New York) counts half a typo.
    const cost = (t, w) => closeness(t, w) + (r.match[w]?.some((f) => f !== "s") ? 0 : 0.5);
    const off = r.queryTerms.reduce((sum, t) => sum + Math.min(...r.terms.map((w) => cost(t, w))), 0);
    return { r, off };
  });
  ranked.sort((a, b) => a.off - b.off || Number(b.r.population ?? 0) - Number(a.r.population ?? 0) || b.r.score - a.r.score);
  return ranked.slice(0, limit).map(({ r }) => ({ slug: r.id, name: r.name, state: r.state, county: r.county, population: r.population }));
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
    const places = findPlaces(index, query);
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
