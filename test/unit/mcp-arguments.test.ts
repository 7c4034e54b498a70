import { describe, expect, it } from "vitest";
import { meantArgument, portableSchema } from "../../src/mcp/tools.ts";

// The pieces behind strict tool arguments and a lean tools/list (src/mcp/tools.ts).

describe("meantArgument", () => {
  const search = ["q", "limit", "slug"];
  it("finds the argument a model meant: other case, near spelling, synonym, or a slug's value", () => {
    expect(meantArgument("Slug", "x", search)).toBe("slug");
    expect(meantArgument("slgu", "x", search)).toBe("slug");
    expect(meantArgument("limt", 5, search)).toBe("limit");
    expect(meantArgument("query", "rain", search)).toBe("q");
    expect(meantArgument("town", "anything", search)).toBe("slug");
    expect(meantArgument("where", "denver-colorado", search)).toBe("slug");
  });
  it("suggests nothing rather than a wrong guess", () => {
    expect(meantArgument("verbose", true, search)).toBeUndefined();
    expect(meantArgument("where", "Denver", search)).toBeUndefined();
    // A synonym only for an argument the tool has.
    expect(meantArgument("city", "denver-colorado", ["q", "limit"])).toBeUndefined();
  });
});

describe("portableSchema", () => {
  const zodInt = { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991, description: "Active subscribers" };
  it("drops zod's safe-integer bounds and a pattern that repeats its format, keeps real constraints", () => {
    expect(portableSchema(zodInt)).toEqual({ type: "integer", description: "Active subscribers" });
    expect(portableSchema({ type: "integer", minimum: 1, maximum: 50 })).toEqual({ type: "integer", minimum: 1, maximum: 50 });
    expect(portableSchema({ type: "string", format: "date", pattern: "^(?:x)$" })).toEqual({ type: "string", format: "date" });
    expect(portableSchema({ type: "string", pattern: "^lo_" })).toEqual({ type: "string", pattern: "^lo_" });
  });
  it("lean (output): the result's own fields and named types keep their meaning, deeper fields and constraints go", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", additionalProperties: false,
      properties: { n: zodInt, nested: { type: "object", description: "kept", properties: { deep: { type: "string", description: "dropped", maxLength: 3 } } } },
      $defs: { Named: { type: "object", description: "kept too", properties: { x: { type: "string", description: "dropped", examples: ["a"] } } } },
    };
    expect(portableSchema(schema, true)).toEqual({
      type: "object",
      properties: { n: { type: "integer", description: "Active subscribers" }, nested: { type: "object", description: "kept", properties: { deep: { type: "string" } } } },
      $defs: { Named: { type: "object", description: "kept too", properties: { x: { type: "string" } } } },
    });
  });
});
