import { describe, expect, it } from "vitest";
import { blockCandidates, blockCovers, instanceHost } from "../../src/core/fediverse/hosts.ts";
import { coveredComponents, mayBeFollow, nestsDeeperThan } from "../../src/core/fediverse/incoming.ts";

describe("a remote server's host, written one way", () => {
  it("is the same host whatever its case, trailing dot, default port or URL form", () => {
    for (const spelling of ["mastodon.example", "Mastodon.Example.", "MASTODON.EXAMPLE:443", "https://mastodon.example/", "http://mastodon.example:80/users/a", " mastodon.example.. "]) {
      expect(instanceHost(spelling)).toBe("mastodon.example");
    }
    expect(instanceHost("127.0.0.1.:8080")).toBe("127.0.0.1:8080");
    expect(instanceHost("bücher.example")).toBe("xn--bcher-kva.example");
    expect(instanceHost("mastodon.example:8443")).toBe("mastodon.example:8443");
  });

  it("is covered by a block of itself, of its name without the port, or of a parent domain", () => {
    expect(blockCandidates("eu.example.social:8443")).toEqual(["eu.example.social:8443", "eu.example.social", "example.social"]);
    expect(blockCovers("example.social", instanceHost("EU.Example.Social.:8443"))).toBe(true);
    expect(blockCovers("example.social:8443", "example.social")).toBe(false);
    expect(blockCovers("social", "example.social")).toBe(false);
    expect(blockCovers("127.0.0.1:8080", "127.0.0.1:8081")).toBe(false);
    expect(blockCandidates("127.0.0.1:8080")).toEqual(["127.0.0.1:8080", "127.0.0.1"]);
  });
});

describe("the cheap checks of an incoming activity", () => {
  it("tells nesting past the limit without parsing, brackets in strings not counted", () => {
    expect(nestsDeeperThan(`{"a":${"[".repeat(33)}${"]".repeat(33)}}`, 32)).toBe(true);
    expect(nestsDeeperThan(`{"a":${"[".repeat(31)}${"]".repeat(31)}}`, 32)).toBe(false);
    expect(nestsDeeperThan(`{"a":"${"[".repeat(100)}\\"[["}`, 32)).toBe(false);
  });

  it("reads the components an RFC 9421 signature covers", () => {
    const input = 'sig1=("@method" "@target-uri" "content-digest");alg="rsa-v1_5-sha256";keyid="https://a.example/u#k";created=1, sig2=("@method" "@query-param";name="content-digest");created=1';
    expect(coveredComponents(input, "sig1")).toEqual(["@method", "@target-uri", "content-digest"]);
    expect(coveredComponents(input, "sig2")).toEqual(["@method", "@query-param"]);
    expect(coveredComponents("not a dictionary (", "sig1")).toEqual([]);
  });

  it("counts as a Follow whatever is not plainly another type", () => {
    expect(mayBeFollow({ type: "Follow" })).toBe(true);
    expect(mayBeFollow({ type: "https://www.w3.org/ns/activitystreams#Follow" })).toBe(true);
    expect(mayBeFollow({ type: "F" })).toBe(true);
    expect(mayBeFollow({ type: "Undo" })).toBe(false);
    expect(mayBeFollow({ type: ["as:Create"] })).toBe(false);
  });
});
