/**
 * Realistic synthetic editions for the search benchmark: the fixed sections every edition has
 * (weather, sun, calendar, census fact), so their words are in every row, plus prose drawn from a
 * Zipf-distributed vocabulary (real English words at the head, a long tail of rarer made-up words),
 * so common words have posting lists as long as the archive and rare words have short ones.
 */

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HEAD = `the of and to a in is for on that with at by from this be are it as was will an or have
has new city town council school park street library community board public meeting residents local
county water road week day year morning night center police fire market project plan budget season
family children art music food open hall program event area building business festival downtown
workers students teachers service services state river bridge trail center garden church museum
volunteers neighbors families history game team league football soccer basketball baseball concert
theater parade fair vote election mayor commissioners hearing permit zoning housing traffic repairs
construction closure detour lane transit bus route station airport hospital clinic health flu
vaccine shelter animal dog cat rescue adoption donation food bank pantry holiday thanksgiving
christmas winter spring summer autumn fall snow rain storm wind flood drought heat cold frost ice
sunshine clouds fog hail tornado warning advisory lake beach harbor dock boat fishing hunting
hiking camping bike path sidewalk playground pool recreation senior youth club scouts fundraiser
auction raffle dinner breakfast lunch pancake chili barbecue bake sale craft show book reading
author lecture class workshop seminar training job fair hiring openings employer factory plant
farm harvest crops corn wheat cattle dairy orchard apple pumpkin vineyard brewery restaurant cafe
bakery shop store grocery pharmacy bank office courthouse jail sheriff deputy officer firefighter
ambulance paramedic emergency alert outage power electric gas utility sewer trash recycling
compost cleanup tree planting landscaping mural sculpture gallery exhibit photography film movie
screening dance ballet choir band orchestra jazz blues rock country folk bluegrass opera poetry`.split(/\s+/);

const SYLLABLES = "ba be bi bo bu ca co cu da de di do fa fe fi fo ga go gu ha he hi ho ka ke ki ko la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo wa we wi ya yo za ze zi zo bar ber bir bor cal cel cor dan den dor fan fen gar gen har her kan ken lan len lin mar mer min mor nan nen nor pan per pin ran ren rin ron san sen sin son tan ten tin ton van ven win".split(" ");

/** A vocabulary of `size` words: HEAD first, then made-up words of 2 to 4 syllables. */
export function vocabulary(size = 40_000, seed = 7): string[] {
  const random = rng(seed);
  const words = [...new Set(HEAD)];
  const seen = new Set(words);
  while (words.length < size) {
    const n = 2 + Math.floor(random() * 3);
    let w = "";
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(w)) { seen.add(w); words.push(w); }
  }
  return words;
}

/** Samples ranks with probability proportional to 1 / rank^s. */
export function zipfSampler(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) { sum += 1 / Math.pow(i + 1, s); cdf[i] = sum; }
  return () => {
    const x = random() * sum;
    let lo = 0, hi = n - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (cdf[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  };
}

const CONDITIONS = ["Clear sky", "Mainly clear", "Partly cloudy", "Overcast", "Fog", "Light drizzle", "Light rain", "Moderate rain", "Heavy rain", "Light snow", "Snow showers", "Thunderstorm"];
const EVENT_NOUNS = ["farmers market", "book sale", "blood drive", "story time", "craft fair", "pancake breakfast", "open mic", "town hall meeting", "chili cook-off", "food truck night", "5K run", "trivia night", "plant swap", "jazz concert", "movie in the park"];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export interface EditionCity { geoid: string; name: string; state: string; population: number }

export interface EditionText { subject: string; markdown: string }

/** Builds editions for one generator; `proseWords` is the length of the free-text part. */
export function editionWriter(seed = 1, proseWords = 160) {
  const random = rng(seed);
  const words = vocabulary();
  const zipf = zipfSampler(words.length, 1.05, random);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const sentence = () => {
    const n = 6 + Math.floor(random() * 14);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(words[zipf()]);
    const s = parts.join(" ");
    return s[0].toUpperCase() + s.slice(1) + ".";
  };
  return (city: EditionCity, date: string): EditionText => {
    const d = new Date(`${date}T12:00:00Z`);
    const dayName = `${WEEKDAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
    const condition = pick(CONDITIONS);
    const high = 20 + Math.floor(random() * 75);
    const low = high - 5 - Math.floor(random() * 20);
    const events = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `${words[zipf()]} ${pick(EVENT_NOUNS)}`);
    const prose: string[] = [];
    for (let count = 0; count < proseWords;) { const s = sentence(); prose.push(s); count += s.split(" ").length; }
    const subject = `${city.name} Daily, ${MONTHS[d.getUTCMonth()].slice(0, 3)} ${d.getUTCDate()}: ${condition.toLowerCase()}, high ${high}°F, ${events[0]}`;
    const markdown = [
      `# ${city.name}, ${city.state}: ${dayName}`,
      `## Weather`,
      `${condition}. High ${high}°F, low ${low}°F, ${Math.floor(random() * 100)}% chance of precipitation, wind ${Math.floor(random() * 25)} mph.`,
      `## Sunrise and sunset`,
      `Sunrise at ${6 + Math.floor(random() * 2)}:${String(Math.floor(random() * 60)).padStart(2, "0")} AM, sunset at ${4 + Math.floor(random() * 4)}:${String(Math.floor(random() * 60)).padStart(2, "0")} PM.`,
      `## On the calendar`,
      events.map((e) => `- **${e[0].toUpperCase() + e.slice(1)}**, ${pick(WEEKDAYS)}: ${sentence()}`).join("\n"),
      `## Around town`,
      prose.slice(0, Math.ceil(prose.length / 2)).join(" "),
      prose.slice(Math.ceil(prose.length / 2)).join(" "),
      `## Did you know?`,
      `${city.name} is home to ${city.population.toLocaleString("en-US")} people, according to the [Census Bureau](https://data.census.gov/).`,
    ].join("\n\n");
    return { subject, markdown };
  };
}
