import { describe, expect, it } from "vitest";
import { EventCheckoutRequest } from "../../src/contract/commerce.ts";
import { checkoutBody, emptyValues, fieldErrors, formFieldOf, previewListing, valuesOf } from "../../src/site/listing-form.ts";

// The buying page's form rules (shared by the server's answer and the page's script): the contract's
// schemas, in words per field.

const filled = () => ({
  ...emptyValues("event", "featured"), title: "Harvest Fair", description: "Pumpkins.", url: "https://harvestfair.example/", startsDate: "2026-11-28",
  startsTime: "10:00", venue: "Julia Davis Park", buyerEmail: "buyer@example.com",
});

describe("the buying page's form", () => {
  it("turns a filled form into the contract's checkout body, the time local to the town", () => {
    const body = checkoutBody("boise-idaho", filled());
    expect(body).toEqual({ slug: "boise-idaho", tier: "featured", title: "Harvest Fair", description: "Pumpkins.", url: "https://harvestfair.example/", buyerEmail: "buyer@example.com", startsAt: "2026-11-28T10:00", venue: "Julia Davis Park" });
    expect(EventCheckoutRequest.safeParse(body).success).toBe(true);
    expect(fieldErrors("boise-idaho", filled())).toEqual({});
  });

  it("names each field that needs a change in words, from the contract's issues", () => {
    const errors = fieldErrors("boise-idaho", { ...filled(), tier: "gold", title: "", startsDate: "next week", buyerEmail: "nope", url: "harvestfair" });
    expect(errors).toEqual({
      tier: "Choose one of the listings above.",
      title: "Enter the event name.",
      startsDate: "Enter the day of the event.",
      buyerEmail: "Enter the email address where we send the receipt, like name@example.com.",
      url: "Enter the full address of the web page, starting with https://",
    });
    expect(fieldErrors("boise-idaho", { ...filled(), title: "x".repeat(121) }).title).toBe("Event name: at most 120 characters.");
    expect(fieldErrors("boise-idaho", { ...filled(), startsTime: "10am" })).toEqual({ startsTime: "Enter the time like 19:30, or leave it empty." });
    // A business needs its address and category, not a date.
    const business = { ...emptyValues("business"), title: "Rosemary Bakery", description: "Bread.", url: "https://rosemary.example/", buyerEmail: "o@example.com" };
    expect(Object.keys(fieldErrors("boise-idaho", business)).sort()).toEqual(["address", "category"]);
  });

  it("maps the contract's and the screen's field names to the form's", () => {
    expect(formFieldOf("startsAt")).toBe("startsDate");
    expect(formFieldOf("endsAt")).toBe("endsDate");
    expect(formFieldOf("venue")).toBe("venue");
    expect(formFieldOf("slug")).toBeUndefined();
  });

  it("reads a posted form, defaulting what is missing, and previews only what the town page can show", () => {
    const v = valuesOf((n) => ({ kind: "business", tier: "standard", title: "Books" } as Record<string, string>)[n]);
    expect(v).toMatchObject({ kind: "business", tier: "standard", title: "Books", address: "" });
    expect(previewListing({ ...filled(), startsDate: "" }, "2026-12-22")).toEqual({});
    expect(previewListing(filled(), "2026-12-22").event).toMatchObject({ title: "Harvest Fair", startsAt: "2026-11-28T10:00", featured: true, url: "https://harvestfair.example/" });
    // A link that is not http(s) is never drawn as a link.
    expect(previewListing({ ...filled(), url: "javascript:alert(1)" }, "2026-12-22").event?.url).toBeNull();
  });
});
