import type { FactsDataset } from "../contract/resources.ts";
import { latestEditionDate } from "../store/editions.ts";
import { activeSubscriberCount } from "../store/cities.ts";
import type { PlaceRow } from "../store/places.ts";
import { censusOf, requireCity } from "./cities.ts";
import type { AppContext } from "./context.ts";

/** Each census figure with its schema.org unit (UN/CEFACT codes) and what it measures. */
const MEASURES: ReadonlyArray<{ key: keyof ReturnType<typeof censusOf>; name: string; unitText: string; unitCode?: string; table: string }> = [
  { key: "population", name: "Total population", unitText: "people", unitCode: "IE", table: "B01003" },
  { key: "housingUnits", name: "Housing units", unitText: "housing units", table: "B25001" },
  { key: "medianIncome", name: "Median household income", unitText: "US dollars", unitCode: "USD", table: "B19013" },
  { key: "medianHomeValue", name: "Median home value", unitText: "US dollars", unitCode: "USD", table: "B25077" },
  { key: "medianRent", name: "Median gross rent", unitText: "US dollars per month", unitCode: "USD", table: "B25064" },
  { key: "ownerOccupied", name: "Owner-occupied housing units", unitText: "housing units", table: "B25003" },
  { key: "renterOccupied", name: "Renter-occupied housing units", unitText: "housing units", table: "B25003" },
  { key: "collegeDegreePercent", name: "Bachelor's degree or higher (age 25+)", unitText: "percent", unitCode: "P1", table: "DP02" },
  { key: "avgCommuteMinutes", name: "Mean travel time to work", unitText: "minutes", unitCode: "MIN", table: "DP03" },
  { key: "workFromHomePercent", name: "Workers who work from home", unitText: "percent", unitCode: "P1", table: "DP03" },
  { key: "walkBikeTransitPercent", name: "Workers who walk, bike or take transit", unitText: "percent", unitCode: "P1", table: "DP03" },
  { key: "medianAge", name: "Median age", unitText: "years", unitCode: "ANN", table: "DP05" },
  { key: "over65Percent", name: "People aged 65 and over", unitText: "percent", unitCode: "P1", table: "DP05" },
  { key: "vacancyRate", name: "Vacant housing units", unitText: "percent", unitCode: "P1", table: "DP04" },
  { key: "landAreaSqMi", name: "Land area", unitText: "square miles", unitCode: "MIK", table: "Gazetteer" },
];

/** ACS 5-year vintage "2023" covers 2019-2023. */
function vintageRange(year: string | null): string | undefined {
  return year && /^\d{4}$/.test(year) ? `${Number(year) - 4}/${year}` : undefined;
}

export function getFacts(ctx: AppContext, slug: string | undefined): FactsDataset {
  const place = requireCity(ctx, slug);
  return factsDataset(ctx, place);
}

export function factsDataset(ctx: AppContext, place: PlaceRow): FactsDataset {
  const base = ctx.config.baseUrl;
  const census = censusOf(place);
  const vintageOf = (key: string) => (key === "population" || key === "housingUnits" ? place.acs_year : key === "landAreaSqMi" ? "2025" : place.acs_detail_year);
  const available = MEASURES.filter((m) => census[m.key] !== null && census[m.key] !== undefined);
  const unavailable = MEASURES.filter((m) => !available.includes(m)).map((m) => m.key);
  const newsletter = `${place.name} Daily`;
  // The ACS vintages behind the figures (land area comes from the Gazetteer, not the ACS).
  const vintages = [...new Set(available.filter((m) => m.table !== "Gazetteer").map((m) => vintageOf(m.key)).filter(Boolean))];
  return {
    "@context": "https://schema.org",
    "@type": "Dataset",
    "@id": `${base}/api/facts/${place.slug}`,
    name: `${place.name}, ${place.state_name}: census facts`,
    description:
      `Census figures for ${place.name}, ${place.state_name} (${place.place_type}, ${place.county_name ?? "no county"}) from the American Community Survey 5-year estimates, as used by the ${newsletter} newsletter.` +
      (unavailable.length ? ` Not available yet: ${unavailable.join(", ")}.` : ""),
    url: `${base}/${place.slug}`,
    identifier: place.slug,
    keywords: ["census", "American Community Survey", place.name, place.state_name, "newsletter"],
    license: "https://creativecommons.org/publicdomain/zero/1.0/",
    isAccessibleForFree: true,
    creator: { "@type": "Organization", name: "U.S. Census Bureau", url: "https://www.census.gov" },
    publisher: { "@type": "Organization", name: "citydaily", url: base },
    temporalCoverage: vintageRange(place.acs_detail_year ?? place.acs_year),
    measurementTechnique: "American Community Survey 5-year estimates (survey estimates with margins of error)",
    spatialCoverage: {
      "@type": "Place",
      name: `${place.name}, ${place.state_name}`,
      address: { "@type": "PostalAddress", addressLocality: place.name, addressRegion: place.state_code, addressCountry: "US" },
      geo: { "@type": "GeoCoordinates", latitude: place.latitude, longitude: place.longitude },
      identifier: { "@type": "PropertyValue", propertyID: "Census place GEOID", value: place.geoid },
    },
    about: {
      "@type": "Periodical",
      name: newsletter,
      url: `${base}/${place.slug}`,
      description: `A free daily newsletter for ${place.name}, ${place.state_name}, published each morning in ${place.timezone}.`,
      publisher: { "@type": "Organization", name: "citydaily", url: base },
      inLanguage: "en-US",
      numberOfSubscribers: activeSubscriberCount(ctx.db, place.geoid),
      dateModified: latestEditionDate(ctx.db, place.geoid) ?? null,
    },
    distribution: [
      { "@type": "DataDownload", encodingFormat: "application/ld+json", contentUrl: `${base}/api/facts/${place.slug}` },
      { "@type": "DataDownload", encodingFormat: "application/json", contentUrl: `${base}/api/city/${place.slug}` },
    ],
    variableMeasured: available.map((m) => ({
      "@type": "PropertyValue",
      name: m.name,
      propertyID: m.key,
      value: census[m.key] as number,
      unitText: m.unitText,
      ...(m.unitCode ? { unitCode: m.unitCode } : {}),
      description: `Source table ${m.table}; vintage ${vintageOf(m.key) ?? "unknown"}`,
    })),
    acsVintage: vintages.length === 1 ? vintages[0] : vintages,
    unavailableVariables: unavailable,
  };
}
