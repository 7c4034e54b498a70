import { describe, expect, it } from "vitest";
import { civicPlusFeeds, feedLinksOf, isCommentFeed, robotsAllow, wordPressFeed } from "../../src/integrations/feeds/discover.ts";
import { legistarEventsUrl, legistarTime, looksLikeLegistarEvents, meetingTitle, parseLegistarEvents } from "../../src/integrations/feeds/legistar.ts";

// The pure parts of finding a site's feeds: a home page's <link rel="alternate">, the platforms'
// conventions, robots.txt, and Legistar's events as calendar occurrences.

describe("feedLinksOf", () => {
  it("finds RSS, Atom, JSON Feed and iCalendar links, resolving relative ones and <base href>, without comment feeds", () => {
    const html = `<!doctype html><html><head>
      <base href="https://news.example.org/site/">
      <LINK REL="alternate" TYPE="application/rss+xml" TITLE="News &raquo; Feed" HREF="feed/">
      <link rel="alternate" type="application/rss+xml" title="News &raquo; Comments Feed" href="https://news.example.org/comments/feed/">
      <link rel="alternate" type="application/atom+xml" href="/atom.xml">
      <link rel="alternate" type="application/feed+json" href="feed.json">
      <link rel="alternate home" type="text/calendar; charset=utf-8" href="events.ics">
      <link rel="stylesheet" type="text/css" href="style.css">
      <link rel="alternate" hreflang="es" href="/es/">
      <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
    </head><body><link rel="alternate" type="application/rss+xml" href="feed/"></body></html>`;
    expect(feedLinksOf(html, "https://news.example.org/")).toEqual([
      { url: "https://news.example.org/site/feed/", type: "rss", title: "News » Feed" },
      { url: "https://news.example.org/atom.xml", type: "atom", title: null },
      { url: "https://news.example.org/site/feed.json", type: "json", title: null },
      { url: "https://news.example.org/site/events.ics", type: "ical", title: null },
    ]);
  });
  it("knows comment feeds by address or title", () => {
    expect(isCommentFeed("https://x.example/comments/feed/")).toBe(true);
    expect(isCommentFeed("https://x.example/?feed=comments-rss2")).toBe(true);
    expect(isCommentFeed("https://x.example/2026/11/story/feed/", "Story » Comments Feed")).toBe(true);
    expect(isCommentFeed("https://x.example/feed/", "The Ely Times » Feed")).toBe(false);
  });
});

describe("platform conventions and robots.txt", () => {
  it("CivicPlus and WordPress addresses", () => {
    expect(civicPlusFeeds("https://www.elycity.com/Home")).toEqual([
      "https://www.elycity.com/RSSFeed.aspx?ModID=1&CID=All-newsflash.xml",
      "https://www.elycity.com/common/modules/iCalendar/iCalendar.aspx?catID=14&feed=calendar",
      "https://www.elycity.com/RSSFeed.aspx?ModID=65&CID=All-0",
    ]);
    expect(wordPressFeed("https://elytimes.example.com")).toBe("https://elytimes.example.com/feed/");
    expect(wordPressFeed("https://example.com/news?x=1")).toBe("https://example.com/news/feed/");
  });
  it("respects Disallow for our agent and for all, allows without a robots.txt, and nothing when it answered an error", () => {
    const txt = "User-agent: *\nDisallow: /private/\n\nUser-agent: citydaily\nDisallow: /feeds/secret\n";
    expect(robotsAllow("https://x.example/feed/", txt)).toBe(true);
    expect(robotsAllow("https://x.example/feeds/secret.xml", txt)).toBe(false);
    // A group for our agent replaces the * group.
    expect(robotsAllow("https://x.example/private/feed", txt)).toBe(true);
    expect(robotsAllow("https://x.example/private/feed", "User-agent: *\nDisallow: /private/\n")).toBe(false);
    expect(robotsAllow("https://x.example/anything", null)).toBe(true);
    expect(robotsAllow("https://x.example/anything", undefined)).toBe(false);
  });
});

describe("Legistar events", () => {
  const window = { from: new Date("2026-11-23T15:00:00Z"), to: new Date("2026-12-10T15:00:00Z") };
  const event = (id: number, over: Record<string, unknown>) => ({ EventId: id, EventBodyName: "City Council", EventDate: "2026-12-01T00:00:00", EventTime: "6:00 PM", EventLocation: "Council Chambers", EventAgendaFile: null, EventInSiteURL: null, EventAgendaStatusName: "Final", EventComment: null, ...over });
  it("reads local times, titles, places and agenda links; leaves out cancelled meetings and those outside the window", () => {
    const text = JSON.stringify([
      event(1, { EventAgendaFile: "https://ely.legistar1.com/a.pdf", EventInSiteURL: "https://ely.legistar.com/MeetingDetail.aspx?LEGID=1" }),
      event(2, { EventBodyName: "Board of Adjustment Public Hearing", EventDate: "2026-12-03T00:00:00", EventTime: "12:00 PM" }),
      event(3, { EventDate: "2026-12-04T00:00:00", EventTime: null }),
      event(4, { EventDate: "2026-12-05T00:00:00", EventComment: "MEETING CANCELLED" }),
      event(5, { EventDate: "2026-10-05T00:00:00" }),
      event(6, { EventAgendaFile: "javascript:alert(1)", EventDate: "2026-12-07T00:00:00", EventTime: "12:30 AM" }),
    ]);
    expect(looksLikeLegistarEvents(text)).toBe(true);
    expect(parseLegistarEvents(text, window).map((o) => [o.key, o.title, o.start, o.allDay, o.venue, o.agendaUrl, o.url])).toEqual([
      ["legistar:1", "City Council meeting", "2026-12-01T18:00", false, "Council Chambers", "https://ely.legistar1.com/a.pdf", "https://ely.legistar.com/MeetingDetail.aspx?LEGID=1"],
      ["legistar:2", "Board of Adjustment Public Hearing", "2026-12-03T12:00", false, "Council Chambers", null, null],
      ["legistar:3", "City Council meeting", "2026-12-04", true, "Council Chambers", null, null],
      ["legistar:6", "City Council meeting", "2026-12-07T00:30", false, "Council Chambers", null, null],
    ]);
  });
  it("knows its answer from a JSON Feed or anything else, and builds the same events address every day", () => {
    expect(looksLikeLegistarEvents("[]")).toBe(true);
    expect(looksLikeLegistarEvents('{"version":"https://jsonfeed.org/version/1.1","items":[]}')).toBe(false);
    expect(looksLikeLegistarEvents('[{"id":1}]')).toBe(false);
    expect(legistarTime("6:00 PM")).toBe("18:00");
    expect(legistarTime("12:15 a.m.")).toBe("00:15");
    expect(legistarTime("TBD")).toBeNull();
    expect(meetingTitle("Planning Commission")).toBe("Planning Commission meeting");
    expect(meetingTitle("City Council Work Session")).toBe("City Council Work Session");
    expect(legistarEventsUrl("https://webapi.legistar.com/", "kpb")).toBe("https://webapi.legistar.com/v1/kpb/events?%24orderby=EventDate%20desc&%24top=100");
  });
});
