import { CACHE, READ_ONLY, type Operation } from "../operation.ts";
import { ReaderCity, ReaderCityParams, ReaderPreferencesUpdate, ReaderSubscriptions, ReaderSubscriptionsParams } from "../preferences.ts";

// A reader's choices for each town they get, for integrators and for the reader's own assistant
// (MCP): the same as the manage page (`/subscriptions/{token}`). The token is the manage link's, in
// every email; it proves the address and never expires, so the tools say it is to be used only when
// the reader gave it (docs/readers.md).

/** The tool arguments in a model's words (the contract's speak HTTP and repeat the section names get_my_newsletter_choices answers). */
const TOKEN_MCP = "The reader's manage-link token, as they gave it";
const CHOICES_MCP = {
  token: TOKEN_MCP,
  slug: "One of the reader's towns",
  frequency: "`weekly`: once a week on `weeklyDay`",
  weeklyDay: "Day of the weekly, town's time",
  deliveryTime: "Send time, town's time",
  hiddenSections: "Sections to leave out (replaces the list)",
};

const TOKEN_NOTE = "`token` is the last part of the \"Manage your cities\" link at the foot of every citydaily email (`{base_url}/subscriptions/{token}`): it stands for the address and reaches every town of it. It does not expire; treat it like a password. An unknown or altered token is `404 not_found`.";

export const readerOperations = {
  getReaderSubscriptions: {
    operationId: "getReaderSubscriptions", method: "GET", path: "/api/subscriptions/{token}", tags: ["Subscriptions"],
    summary: "A reader's towns and what they chose for each (how often, when, which sections)",
    description: [
      "Every town the address follows or followed, with its status and the reader's choices: `frequency` (`daily`, or `weekly` on `weeklyDay`), `deliveryTime` (05:00 to 09:00 in the town's time zone, `timezone`) and `hiddenSections`; and the sections that may be hidden, with their names.",
      "",
      TOKEN_NOTE,
    ].join("\n"),
    params: ReaderSubscriptionsParams, response: ReaderSubscriptions,
    errors: ["validation_error", "not_found"], cache: CACHE.none,
    mcp: {
      tool: "get_my_newsletter_choices", title: "Read newsletter choices",
      description: "A reader's towns, each with its `preferences`, and the `sections` they may hide; `token` is the last part of the reader's own \"Manage your cities\" link: use it only when they gave it to you.",
      input: { describe: { token: TOKEN_MCP } },
      annotations: READ_ONLY,
    },
  },
  updateReaderCity: {
    operationId: "updateReaderCity", method: "PATCH", path: "/api/subscriptions/{token}/cities/{slug}", tags: ["Subscriptions"],
    summary: "Change a reader's choices for one town",
    description: [
      "Send any of `frequency`, `weeklyDay`, `deliveryTime`, `hiddenSections` (at least one); fields left out keep their value, and `hiddenSections` replaces the list. Answers the town with its choices as stored. Daily emails already queued follow at once: cancelled when the reader chose `weekly`, moved to the new `deliveryTime` otherwise (never sent before the edition is published). Sending the same change twice changes nothing more.",
      "",
      "`slug` is one of the address's towns (`GET /api/subscriptions/{token}` lists them); another is `404 not_found`. An unknown field or value is `400 validation_error` with an issue per field.",
      "",
      TOKEN_NOTE,
    ].join("\n"),
    params: ReaderCityParams, body: ReaderPreferencesUpdate, response: ReaderCity,
    errors: ["validation_error", "invalid_json", "payload_too_large", "not_found"], cache: CACHE.none,
    mcp: {
      tool: "set_newsletter_choices", title: "Set newsletter choices",
      description: "Changes a reader's choices for one town (fields left out stay) as they asked; `token` is the last part of the reader's own \"Manage your cities\" link: use it only when they gave it to you.",
      input: { describe: CHOICES_MCP },
      // Changes only this reader's own row (closed world); the same change twice is one; nothing is
      // lost that another call cannot set back.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
  },
} satisfies Record<string, Operation>;
