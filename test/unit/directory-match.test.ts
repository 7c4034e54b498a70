import { describe, expect, it } from "vitest";
import { feedUrls, homeUrl } from "../../src/core/directory/addresses.ts";
import type { NewCandidate } from "../../src/core/directory/candidate.ts";
import { parseGovernmentName } from "../../src/core/directory/government-names.ts";
import { matchCountyOutlet } from "../../src/core/directory/match-3dlnews.ts";
import { matchCivicPlus } from "../../src/core/directory/match-civicplus.ts";
import { matchDotGov } from "../../src/core/directory/match-dotgov.ts";
import { matchLegistar } from "../../src/core/directory/match-legistar.ts";
import { matchTownOutlet } from "../../src/core/directory/match-local-memory.ts";
import { matchUsCityUrl } from "../../src/core/directory/match-uscityurl.ts";
import { mergeCandidates } from "../../src/core/directory/merge-candidates.ts";
import { nameKey } from "../../src/core/directory/name-keys.ts";
import { townReachKm } from "../../src/core/directory/news-outlets.ts";
import { buildPlaceIndex, type DirectoryPlace } from "../../src/core/directory/place-lookup.ts";
import { operations } from "../../src/contract/operations/index.ts";
import { developerSectionsHtml } from "../../src/publish/developer-sections.ts";

// The directory's matching rules on a small made-up place list (the importer's test runs them on the
// real places data and the shipped file formats: test/integration/directory-import.test.ts).

const place = (geoid: string, name: string, placeType: string, stateCode: string, county: [string, string] | null,
  lat: number, lon: number, extra: Partial<DirectoryPlace> = {}): DirectoryPlace => ({
  geoid, name, placeType, stateCode, stateName: stateCode, countyGeoid: county?.[0] ?? null, countyName: county?.[1] ?? null,
  latitude: lat, longitude: lon, population: 1000, landAreaSqMi: 2, nameAmbiguousInState: 1, ...extra,
});
const WHITE_PINE: [string, string] = ["32033", "White Pine County"];
const places = [
  place("3223500", "Ely", "city", "NV", WHITE_PINE, 39.264928, -114.870868),
  place("3244200", "McGill", "CDP", "NV", WHITE_PINE, 39.401982, -114.777511),
  place("3263800", "Ruth", "CDP", "NV", WHITE_PINE, 39.279288, -114.990045),
  place("3260600", "Reno", "city", "NV", ["32031", "Washoe County"], 39.549097, -119.849907, { landAreaSqMi: 109.3 }),
  place("0545530", "Midway", "CDP", "AR", ["05005", "Baxter County"], 36.39224, -92.475532, { nameAmbiguousInState: 2 }),
  place("0545560", "Midway", "town", "AR", ["05059", "Hot Spring County"], 34.249893, -92.973433, { nameAmbiguousInState: 2 }),
  place("0152320", "Mount Olive", "CDP", "AL", ["01037", "Coosa County"], 33.078454, -86.13304, { nameAmbiguousInState: 2 }),
  place("0152344", "Mount Olive", "CDP", "AL", ["01073", "Jefferson County"], 33.669286, -86.87549, { nameAmbiguousInState: 2 }),
  place("2937000", "Jefferson City", "city", "MO", ["29051", "Cole County"], 38.567461, -92.175254),
  place("3633139", "Hempstead", "village", "NY", ["36059", "Nassau County"], 40.70, -73.62),
  place("4807000", "Avery", "town", "TX", ["48387", "Red River County"], 33.55, -94.78),
  place("0633000", "Hayward", "city", "CA", ["06001", "Alameda County"], 37.626826, -122.104015),
  place("0238420", "Kenai", "city", "AK", ["02122", "Kenai Peninsula Borough"], 60.56224, -151.20806),
  place("0233140", "Homer", "city", "AK", ["02122", "Kenai Peninsula Borough"], 59.64042, -151.509053),
  place("4861592", "Reno", "city", "TX", ["48277", "Lamar County"], 33.666585, -95.479809, { nameAmbiguousInState: 2 }),
  place("4861604", "Reno", "city", "TX", ["48367", "Parker County"], 32.948835, -97.565987, { nameAmbiguousInState: 2 }),
  place("3651000", "New York", "city", "NY", ["36047", "Kings County"], 40.662712, -73.938677, { landAreaSqMi: 300.4 }),
  place("3647042", "Mount Vernon", "city", "NY", ["36119", "Westchester County"], 40.9136, -73.8291),
  place("0812345", "Cañon City", "city", "CO", ["08043", "Fremont County"], 38.44, -105.24),
];
const index = buildPlaceIndex(places);
const geoids = (cs: NewCandidate[]) => cs.map((c) => c.placeGeoid).sort();

describe("names and addresses", () => {
  it("compares names without accents, case, punctuation or Saint/St., Mount/Mt. spellings", () => {
    expect(nameKey("Cañon City")).toBe(nameKey("canon city"));
    expect(nameKey("St. Johns")).toBe(nameKey("Saint Johns"));
    expect(nameKey("Mt. Olive")).toBe(nameKey("Mount Olive"));
    expect(nameKey("Ely")).not.toBe(nameKey("Ely City"));
  });

  it("reads a government's name: its level, its title and the place or county it names", () => {
    expect(parseGovernmentName("City of Ely")).toEqual({ level: "place", title: "city", name: "Ely" });
    expect(parseGovernmentName("Town of Sweden")).toEqual({ level: "place", title: "town", name: "Sweden" });
    expect(parseGovernmentName("The Village of Oak Park")).toEqual({ level: "place", title: "village", name: "Oak Park" });
    expect(parseGovernmentName("Incorporated Village of Garden City")).toEqual({ level: "place", title: "village", name: "Garden City" });
    expect(parseGovernmentName("City of Ely, Nevada")).toEqual({ level: "place", title: "city", name: "Ely" });
    expect(parseGovernmentName("City of Ashton ID", "ID")).toEqual({ level: "place", title: "city", name: "Ashton" });
    expect(parseGovernmentName("HONEYVILLE CITY", "UT")).toEqual({ level: "place", title: "city", name: "HONEYVILLE" });
    // A trailing bare state name is the row's state only: Nevada, Missouri keeps its name.
    expect(parseGovernmentName("City of Nevada", "MO")).toEqual({ level: "place", title: "city", name: "Nevada" });
    expect(parseGovernmentName("White Pine County")).toEqual({ level: "county", name: "White Pine County" });
    expect(parseGovernmentName("County of Bath")).toEqual({ level: "county", name: "Bath County" });
    expect(parseGovernmentName("Kiowa County Kansas", "KS")).toEqual({ level: "county", name: "Kiowa County" });
    expect(parseGovernmentName("Grant County MN", "MN")).toEqual({ level: "county", name: "Grant County" });
    expect(parseGovernmentName("Ascension Parish Government")).toEqual({ level: "county", name: "Ascension Parish" });
    expect(parseGovernmentName("Gilmer County Board of Commissioners")).toEqual({ level: "county", name: "Gilmer County" });
    for (const notGovernment of ["Stephens County Sheriff's Office", "Ohio County Courthouse", "36th District Court", "Keeler Township", "Napa County Airport"]) {
      expect(parseGovernmentName(notGovernment)).toBeNull();
    }
  });

  it("makes home pages absolute http(s) URLs and refuses anything else", () => {
    expect(homeUrl("www.elycity.com")).toBe("http://www.elycity.com/");
    expect(homeUrl(" https://www.nyc.gov/ ")).toBe("https://www.nyc.gov/");
    expect(homeUrl("ftp://files.example.gov/")).toBeNull();
    expect(homeUrl("")).toBeNull();
    expect(homeUrl("localhost")).toBeNull();
  });

  it("resolves relative feeds against the outlet's site, drops comment feeds and repeats", () => {
    expect(feedUrls(["/feed/", "rss.xml", "http://news.example/comments/feed", "https://news.example/?feed=comments-rss2",
      "https://news.example/story/comments/feed/", "https://news.example/feed/", "javascript:alert(1)", 7,
      "/tucson/Rss.xml?id=comments", "/cmlink/most-commented-from-news-1.46588", "/index.php?rss=Article,commentary"], "https://news.example/local/"))
      .toEqual(["https://news.example/feed/", "https://news.example/local/rss.xml", "https://news.example/index.php?rss=Article,commentary"]);
    expect(feedUrls(undefined, "https://news.example/")).toEqual([]);
  });
});

describe("matching rows to places", () => {
  it("UScityURL joins on the place GEOID, and refuses a GEOID whose state disagrees", () => {
    const ely = matchUsCityUrl(index, { GEOID: "1600000US3223500", MUNICIPALITY: "Ely", STATE: "Nevada", WEBSITE_AVAILABLE: "1", WEBSITE_URL: "www.elycity.com" });
    expect(ely).toEqual({ outcome: "matched", candidates: [expect.objectContaining({
      placeGeoid: "3223500", kind: "government", scope: "town", name: "City of Ely", url: "http://www.elycity.com/",
      dataset: "city-websites-uscityurl-2022.csv", datasetRow: "1600000US3223500",
    })] });
    expect(matchUsCityUrl(index, { GEOID: "1600000US3223500", MUNICIPALITY: "Ely", STATE: "Utah", WEBSITE_AVAILABLE: "1", WEBSITE_URL: "ely.example" }).outcome).toBe("state_mismatch");
    expect(matchUsCityUrl(index, { GEOID: "1600000US3223500", MUNICIPALITY: "Ely", STATE: "Nevada", WEBSITE_AVAILABLE: "0", WEBSITE_URL: "" }).outcome).toBe("no_url");
    expect(matchUsCityUrl(index, { GEOID: "1600000US9999999", MUNICIPALITY: "X", STATE: "Nevada", WEBSITE_AVAILABLE: "1", WEBSITE_URL: "x.example" }).outcome).toBe("no_place");
  });

  const dotgov = (domain: string, org: string, state: string, type = "City") =>
    matchDotGov(index, { "Domain name": domain, "Domain type": type, "Organization name": org, State: state });

  it(".gov domains: City/Town/Village of X and X County with the state", () => {
    expect(dotgov("ELYNV.GOV", "City of Ely", "NV")).toEqual({ outcome: "matched", candidates: [expect.objectContaining({
      placeGeoid: "3223500", kind: "gov_domain", scope: "town", name: "City of Ely", url: "https://elynv.gov/", dataset: "dotgov-domains-2026-08-22.csv", datasetRow: "elynv.gov",
    })] });
    // Two places named Midway in Arkansas; only one is a town.
    expect(geoids(dotgov("midwayar.gov", "Town of Midway", "AR").candidates)).toEqual(["0545560"]);
    expect(geoids(dotgov("hempsteadny.gov", "Village of Hempstead", "NY").candidates)).toEqual(["3633139"]);
    // The Census calls Avery a town; it calls itself a city.
    expect(geoids(dotgov("averytx.gov", "City of Avery", "TX").candidates)).toEqual(["4807000"]);
    expect(geoids(dotgov("jeffersoncitymo.gov", "City of Jefferson", "MO").candidates)).toEqual(["2937000"]);
    const county = dotgov("whitepinecountynv.gov", "White Pine County", "NV", "County");
    expect(county.outcome).toBe("matched");
    expect(county.candidates.map((c) => [c.placeGeoid, c.scope])).toEqual([["3223500", "county"], ["3244200", "county"], ["3263800", "county"]]);
  });

  it(".gov domains that are not a town's or county's general government, or of another state, give nothing", () => {
    // New York's Town of Hempstead is a township, not the Village of Hempstead.
    expect(dotgov("townofhempstead.gov", "Town of Hempstead", "NY")).toEqual({ outcome: "no_place", candidates: [] });
    expect(dotgov("elynv.gov", "City of Ely", "MN")).toEqual({ outcome: "no_place", candidates: [] });
    expect(dotgov("wpsheriff.gov", "White Pine County Sheriff's Office", "NV", "County")).toEqual({ outcome: "not_government", candidates: [] });
    expect(dotgov("nv.gov", "State of Nevada", "NV", "State or territory")).toEqual({ outcome: "not_government", candidates: [] });
  });

  it("an ambiguous town name (two places of that name in the state) is not guessed", () => {
    // Texas has two cities named Reno.
    expect(dotgov("renotx.gov", "City of Reno", "TX")).toEqual({ outcome: "ambiguous", candidates: [] });
    expect(matchLegistar(index, { site_type: "municipality", endpoint: "reno.legistar.com/Calendar.aspx", name: "Reno", state: "TX", country: "United States" }).outcome).toBe("ambiguous");
    const outlet = { name: "Mount Olive Messenger", website: "http://mo.example/", "city-county-name": "Mount Olive", "city-county-lat": 33.67, "city-county-long": -86.87 };
    expect(matchTownOutlet(index, outlet, "AL", "AL.newspaper[0]")).toEqual({ outcome: "ambiguous", candidates: [] });
    // Even with coordinates at one of them, and for a bare name on a platform:
    const midway = { name: "Midway Messenger", website: "http://mm.example/", "city-county-name": "Midway", "city-county-lat": 34.25, "city-county-long": -92.97 };
    expect(matchTownOutlet(index, midway, "AR", "AR.newspaper[0]").outcome).toBe("ambiguous");
  });

  it("a town's outlet is its source only if its coordinates are near the town", () => {
    const near = { name: "Ely Times", website: "http://www.elynews.com/", rss: ["/feed/"], "city-county-name": "Ely", "city-county-lat": 39.2474, "city-county-long": -114.8886 };
    expect(matchTownOutlet(index, near, "NV", "NV.newspaper[0]")).toEqual({ outcome: "matched", candidates: [expect.objectContaining({
      placeGeoid: "3223500", kind: "news", scope: "town", name: "Ely Times", url: "http://www.elynews.com/", feedUrls: ["http://www.elynews.com/feed/"],
      dataset: "news-outlets-local-memory-2016.json", datasetRow: "NV.newspaper[0]",
    })] });
    const farAway = { ...near, "city-county-lat": 39.53, "city-county-long": -119.81 }; // Reno, 420 km off
    expect(matchTownOutlet(index, farAway, "NV", "NV.newspaper[1]")).toEqual({ outcome: "far", candidates: [] });
    // A large city reaches further: Reno's 109 square miles add its radius (about 9 km) to the 25 km.
    expect(townReachKm(places[3])).toBeCloseTo(25 + Math.sqrt((109.3 * 2.589988) / Math.PI), 5);
  });

  it("a county's outlet is a county source of every place in the county, never a town source", () => {
    const r = matchCountyOutlet(index, { name: "White Pine Weekly", website: "https://wpweekly.example/news/", rss: ["/feed/", "https://wpweekly.example/comments/feed"], fips: "32033" }, "NV", "NV.newspaper[0]");
    expect(r.outcome).toBe("matched");
    expect(r.candidates.map((c) => [c.placeGeoid, c.scope, c.kind])).toEqual([["3223500", "county", "news"], ["3244200", "county", "news"], ["3263800", "county", "news"]]);
    expect(r.candidates[0].feedUrls).toEqual(["https://wpweekly.example/feed/"]);
    expect(matchCountyOutlet(index, { name: "Nowhere News", website: "https://nn.example/", fips: "99999" }, "NV", "x").outcome).toBe("no_place");
  });

  it("a county the places data does not use is the county of the state's nearest place within 25 km", () => {
    // Connecticut's old county codes, or none: the coordinates decide.
    const outlet = { name: "McGill Miner", website: "https://miner.example/", fips: "09001", "city-county-lat": 39.40, "city-county-long": -114.78 };
    const r = matchCountyOutlet(index, outlet, "NV", "NV.newspaper[1]");
    expect(r.outcome).toBe("county_by_coordinates");
    expect(r.candidates.map((c) => [c.placeGeoid, c.scope])).toEqual([["3223500", "county"], ["3244200", "county"], ["3263800", "county"]]);
    expect(matchCountyOutlet(index, { ...outlet, fips: null as unknown as string }, "NV", "x").outcome).toBe("county_by_coordinates");
    // Too far from any place, or the nearest place is in another state: nothing.
    expect(matchCountyOutlet(index, { ...outlet, "city-county-lat": 38.0, "city-county-long": -117.0 }, "NV", "x")).toEqual({ outcome: "no_place", candidates: [] });
    expect(matchCountyOutlet(index, outlet, "UT", "x")).toEqual({ outcome: "no_place", candidates: [] });
  });

  it("an outlet of the Bronx, Manhattan, Queens or Staten Island is New York City's, though nearer Mount Vernon", () => {
    for (const fips of ["36005", "36061", "36081", "36085"]) {
      const r = matchCountyOutlet(index, { name: "Bronx Times", website: "https://bxtimes.example/", fips, "city-county-lat": 40.8448, "city-county-long": -73.8648 }, "NY", "x");
      expect(r.candidates.map((c) => [c.placeGeoid, c.scope])).toEqual([["3651000", "county"]]);
    }
  });

  it("CivicPlus records the host as platform_id; Legistar the client, with its calendar as the address", () => {
    const cp = (name: string, state: string, level: string, host: string, country = "USA") =>
      matchCivicPlus(index, { end_point: `http://${host}/AgendaCenter`, name, state, country, govt_level: level });
    expect(cp("Ely", "NV", "Municipality", "nv-ely.civicplus.com")).toEqual({ outcome: "matched", candidates: [expect.objectContaining({
      placeGeoid: "3223500", kind: "civic", scope: "town", url: "http://nv-ely.civicplus.com/", platform: "civicplus", platformId: "nv-ely.civicplus.com",
      dataset: "civicplus-sites-2020.csv", datasetRow: "http://nv-ely.civicplus.com/AgendaCenter",
    })] });
    expect(geoids(cp("White Pine County", "NV", "County", "nv-whitepine.civicplus.com").candidates)).toEqual(["3223500", "3244200", "3263800"]);
    // A bare name means an incorporated place: McGill is a CDP.
    expect(cp("McGill", "NV", "Municipality", "nv-mcgill.civicplus.com").outcome).toBe("no_place");
    expect(cp("Banff", "AB", "Municipality", "ab-banff.civicplus.com", "CANADA").outcome).toBe("not_us");
    expect(cp("Ely Water District", "NV", "Other", "nv-elywater.civicplus.com").outcome).toBe("not_government");

    const lg = (siteType: string, endpoint: string, name: string, state: string) => matchLegistar(index, { site_type: siteType, endpoint, name, state, country: "United States" });
    expect(lg("municipality", "hayward.legistar.com/Calendar.aspx", "Hayward", "CA")).toEqual({ outcome: "matched", candidates: [expect.objectContaining({
      placeGeoid: "0633000", kind: "civic", scope: "town", url: "https://hayward.legistar.com/Calendar.aspx", platform: "legistar", platformId: "hayward",
      dataset: "legistar-sites-2021.csv", datasetRow: "hayward.legistar.com/Calendar.aspx",
    })] });
    const kpb = lg("municipality", "kpb.legistar.com/Calendar.aspx", "Kenai Peninsula Borough", "AK");
    expect(kpb.candidates.map((c) => [c.placeGeoid, c.scope, c.platformId])).toEqual([["0238420", "county", "kpb"], ["0233140", "county", "kpb"]]);
    expect(lg("transportation", "bart.legistar.com/Calendar.aspx", "BART", "CA").outcome).toBe("not_government");
  });
});

describe("merging", () => {
  const c = (over: Partial<NewCandidate>): NewCandidate => ({
    placeGeoid: "3223500", kind: "news", scope: "county", name: "Ely Times", url: "http://www.elynews.com/", feedUrls: [],
    platform: null, platformId: null, dataset: "news-outlets-3dlnews-2016-2024.json.gz", datasetRow: "NV.newspaper[1]", ...over,
  });

  it("keeps one candidate per place, kind and site; a town source wins over the same site county-wide", () => {
    const town = c({ scope: "town", url: "https://elynews.com", dataset: "news-outlets-local-memory-2016.json", datasetRow: "NV.newspaper[0]" });
    expect(mergeCandidates([town, c({})])).toEqual([town]);
    expect(mergeCandidates([c({}), town])).toEqual([town]);
    const mcgill = c({ placeGeoid: "3244200" });
    expect(mergeCandidates([town, c({}), mcgill])).toEqual([town, mcgill]);
  });

  it("drops a .gov domain that is the place's official website already", () => {
    const site = c({ kind: "government", scope: "town", name: "Town of Cary", url: "http://www.carync.gov/" });
    const domain = c({ kind: "gov_domain", scope: "town", name: "Town of Cary", url: "https://carync.gov/" });
    expect(mergeCandidates([site, domain])).toEqual([site]);
  });
});

describe("credits", () => {
  it("/developers credits every dataset, UScityURL with the citation its CC BY 4.0 asks for", () => {
    const html = developerSectionsHtml("https://citydaily.example", operations);
    const section = html.slice(html.indexOf('<h2 id="data-sources">'), html.indexOf('<h2 id="versioning">'));
    expect(section).toContain("<strong>UScityURL</strong> (github.com/caimeng2/UScityURL; CC BY 4.0)");
    expect(section).toContain("Cai, Meng, Huang, Huiqing, &amp; Decaminada, Travis (2023)");
    expect(section).toContain("<em>Environment and Planning B: Urban Analytics and City Science</em>, 50(7), 1988-1993. doi:10.1177/23998083231190961");
    for (const credit of [".gov data</strong> (github.com/cisagov/dotgov-data; CC0 1.0)", "3DLNews</strong> (github.com/wm-newslab/3DLNews; MIT, (c) 2024 William and Mary)",
      "Local Memory Project</strong> (github.com/harvard-lil/local-memory; MIT", "civic-scraper</strong> (github.com/biglocalnews/civic-scraper; Apache-2.0"]) {
      expect(section).toContain(credit);
    }
  });
});
