import { describe, expect, it } from "vitest";
import { itemsNamingTown, townNameMatcher } from "../../src/core/sources/county-filter.ts";

// A county paper's items reach a town's edition only when they name the town: headlines as such
// papers write them, with the near misses that must not count.

describe("townNameMatcher", () => {
  const ely = townNameMatcher("Ely");
  it("finds the town named as a word, in any position and in a shouted headline", () => {
    expect(ely("Ely council approves new water rates")).toBe(true);
    expect(ely("Snowplows out early as storm reaches Ely, McGill")).toBe(true);
    expect(ely("Ely's Nevada Northern Railway adds holiday trains")).toBe(true);
    expect(ely("ELY: Fire crews contain brush fire near airport")).toBe(true);
    expect(ely("Ruth and Ely-area ranchers meet on grazing permits")).toBe(true);
  });
  it("does not take another word or place that contains the name", () => {
    expect(ely("Elyria police investigate break-in")).toBe(false);
    expect(ely("Comely Christmas lights contest returns")).toBe(false);
    expect(ely("East Ely depot museum reopens")).toBe(false);
    expect(ely("Eureka County commissioners approve budget")).toBe(false);
    expect(ely("Closely watched race heads to recount")).toBe(false);
  });
  it("reads St./Saint and Mt./Mount as the same name, and needs the capital a place name has", () => {
    const stGeorge = townNameMatcher("St. George");
    expect(stGeorge("Saint George council weighs new parking rules")).toBe(true);
    expect(stGeorge("St George man honored for service")).toBe(true);
    expect(stGeorge("George Washington statue returns to park")).toBe(false);
    expect(townNameMatcher("St. Mary's")("Saint Mary’s clinic opens new wing")).toBe(true);
    expect(townNameMatcher("Carlisle-Rockledge")("Carlisle-Rockledge water board meets")).toBe(true);
    const mtVernon = townNameMatcher("Mount Vernon");
    expect(mtVernon("Mt. Vernon schools delay start after ice")).toBe(true);
    const hope = townNameMatcher("Hope");
    expect(hope("Hope city council adopts budget")).toBe(true);
    expect(hope("Families hope for a quick reopening of the bridge")).toBe(false);
    expect(townNameMatcher("New Hope")("New Hope library extends hours")).toBe(true);
  });
});

describe("itemsNamingTown", () => {
  it("keeps the county paper's items about the town, in order", () => {
    const items = [
      { title: "Ely council approves new water rates", url: "a" },
      { title: "Elyria police investigate break-in", url: "b" },
      { title: "McGill pool to close for repairs", url: "c" },
      { title: "County budget hearing Tuesday", summary: "The hearing will be held at the Ely courthouse.", url: "d" },
    ];
    expect(itemsNamingTown(items, "Ely").map((i) => i.url)).toEqual(["a", "d"]);
  });
});
