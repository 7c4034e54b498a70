import { z } from "zod";
import { describe, expect, it } from "vitest";
import type { Operation } from "../../src/contract/operation.ts";
import { operationsById } from "../../src/contract/operations/index.ts";
import { toolInput } from "../../src/mcp/tools.ts";

const base = { operationId: "x", method: "POST", path: "/api/x/{slug}", summary: "x", tags: [], response: z.object({}), errors: [], cache: "no-store" } satisfies Operation;

describe("an MCP tool's input", () => {
  it("merges path, query and body fields into one object", () => {
    const input = toolInput(operationsById.getArchive);
    expect(Object.keys(input.schema.shape).sort()).toEqual(["date", "slug"]);
    const subscribe = toolInput(operationsById.subscribe);
    expect(Object.keys(subscribe.schema.shape)).toEqual(expect.arrayContaining(["email", "city", "state", "slug"]));
    expect(subscribe.toOperation({ email: "a@example.org" })).toEqual({ email: "a@example.org" });
  });

  it("keeps a body that is not one object under `body`, so the tool's input is still an object", () => {
    const op: Operation = {
      ...base, params: z.object({ slug: z.string() }),
      body: z.discriminatedUnion("kind", [z.object({ kind: z.literal("a"), n: z.int() }), z.object({ kind: z.literal("b"), s: z.string() })]),
    };
    const input = toolInput(op);
    expect(z.toJSONSchema(input.schema)).toMatchObject({ type: "object", required: ["slug", "body"] });
    const parsed = input.schema.parse({ slug: "boise-idaho", body: { kind: "a", n: 2 } });
    expect(input.toOperation(parsed)).toEqual({ slug: "boise-idaho", kind: "a", n: 2 });
    expect(input.schema.safeParse({ slug: "boise-idaho", body: { kind: "c" } }).success).toBe(false);
  });
});
