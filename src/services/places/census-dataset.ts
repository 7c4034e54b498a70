import type { FactsDataset } from "../../contract/resources.ts";
import { CENSUS_FIELDS, fieldVintage } from "../../contract/census-fields.ts";
import { latestEditionDate } from "../../store/morning/editions.ts";
import { activeSubscriberCount } from "../../store/places/cities.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import { censusOf, requireNewsletterTown } from "./cities.ts";
import type { AppContext } from "../platform/context.ts";

/** ACS 5-year vintage "2023" covers 2019-2023. */
function vintageRange(year: string | null): string | undefined {
  return year && /^\d{4}$/.test(year) ? `${Number(year) - 4}/${year}` : undefined;
}

export function getFacts(ctx: AppContext, slug: string | undefined): FactsDataset {
  const place = requireNewsletterTown(ctx, slug);
  return factsDataset(ctx, place);
}

export function factsDataset(ctx: AppContext, place: PlaceRow): FactsDataset {
  const base = ctx.config.baseUrl;
  const census = censusOf(place);
  const available = CENSUS_FIELDS.filter((m) => census[m.key] !== null && census[m.key] !== undefined);
  const unavailable = CENSUS_FIELDS.filter((m) => !(available as readonly unknown[]).includes(m)).map((m) => m.key);
  const newsletter = `${place.name} Daily`;
  // The ACS vintages behind the figures (land area comes from the Gazetteer, not the ACS).
  const vintages = [...new Set(available.filter((m) => m.source !== "gazetteer").map((m) => fieldVintage(m, place)).filter(Boolean))];
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
      name: m.measure,
      propertyID: m.key,
      value: census[m.key] as number,
      unitText: m.unitText,
      ...("unitCode" in m ? { unitCode: m.unitCode } : {}),
      description: `Source table ${m.table}; vintage ${fieldVintage(m, place) ?? "unknown"}`,
    })),
    acsVintage: vintages.length === 1 ? vintages[0] : vintages,
    unavailableVariables: unavailable,
  };
}
