import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";

// The JSON Schemas a tool advertises in `tools/list`, made once per app from the zod contract. What
// a model reads there is all it pays for before it asks anything, so they say what a model needs:
// the arguments with their meaning and constraints, and the result's fields (tools/list was 52.6 KB
// for 15 tools, most of it output schemas; docs/mcp.md has the figures).

type JsonObject = Record<string, unknown>;

/**
 * What an output schema leaves out: a model reads the result's fields, types, enums and meanings, not
 * the constraints the server already met (the result is validated against the full schema here).
 */
const LEAN_DROPS = new Set(["examples", "example", "$schema", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems"]);

/** What an input schema leaves out: the dialect (MCP says 2020-12 is the default) and defaults the descriptions say. */
const INPUT_DROPS = new Set(["$schema", "default"]);

/** Formats whose zod-written `pattern` only repeats the `format` (a 300-character date regex). */
const FORMATS_WITH_PATTERN = new Set(["date", "date-time", "time", "email", "uuid", "uri", "url", "ipv4", "ipv6", "duration"]);

/**
 * JSON Schema as MCP clients check it: a nullable primitive is `anyOf` of the type and `null`
 * rather than a `type` array (`["number", "null"]`), which strict validators such as the MCP
 * Inspector's warn on; `example` (not a JSON Schema keyword) becomes `examples`. And what a model
 * does not need is left out: zod's safe-integer bounds (`±9007199254740991` on every `z.int()`), a
 * `pattern` that repeats its `format`, and, with `lean` (output schemas), `examples` and `$schema`;
 * descriptions stay, they are what a model reads.
 */
export function portableSchema(node: unknown, lean = false, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((n) => portableSchema(n, lean, depth));
  if (node === null || typeof node !== "object") return node;
  const out: JsonObject = {};
  const input = node as JsonObject;
  for (const [key, value] of Object.entries(input)) {
    // Lean: the meaning of the result's own fields and of each named type stays; that of fields nested deeper goes.
    if (lean && key === "description" && depth > 1) continue;
    if ((key === "minimum" && value === -Number.MAX_SAFE_INTEGER) || (key === "maximum" && value === Number.MAX_SAFE_INTEGER)) continue;
    if (key === "pattern" && typeof input.format === "string" && FORMATS_WITH_PATTERN.has(input.format)) continue;
    if (lean && LEAN_DROPS.has(key)) continue;
    if (lean && key === "additionalProperties" && value === false) continue;
    if (key === "example") out.examples ??= [value];
    else if (key === "$defs" || key === "definitions") out[key] = Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, portableSchema(v, lean, 1)]));
    else if (key === "properties" || key === "patternProperties") out[key] = Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, portableSchema(v, lean, depth + 1)]));
    else out[key] = portableSchema(value, lean, depth);
  }
  const type = out.type;
  if (Array.isArray(type)) {
    delete out.type;
    const branches = (type as string[]).map((t) => (t === "null" ? { type: "null" } : { type: t }));
    // Keywords other than annotations belong to the non-null branch (e.g. `minimum` of a number).
    const annotations = new Set(["description", "title", "examples", "default", "deprecated", "readOnly", "writeOnly", "$id", "$schema", "$defs", "id"]);
    const constraints = Object.fromEntries(Object.entries(out).filter(([k]) => !annotations.has(k)));
    for (const k of Object.keys(constraints)) delete out[k];
    out.anyOf = branches.map((b) => (b.type === "null" ? b : { ...b, ...constraints }));
  }
  return out;
}

/** A field of a result as its outline shows it: its type (each branch's, for a union), enum or const. */
function fieldOutline(node: JsonObject, defs: Record<string, JsonObject>): JsonObject {
  const ref = typeof node.$ref === "string" ? /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1] : undefined;
  const field = ref && defs[ref] ? { ...defs[ref], ...node, $ref: undefined } : node;
  const out: JsonObject = {};
  const branches = (field.anyOf ?? field.oneOf) as JsonObject[] | undefined;
  if (branches) {
    const outlined = branches.map((b) => fieldOutline(b, defs));
    // One entry per distinct branch: a union of two object shapes is "an object".
    out.anyOf = [...new Map(outlined.map((b) => [JSON.stringify(b), b])).values()];
    return out;
  }
  if (field.type !== undefined) out.type = field.type;
  if (field.enum !== undefined) out.enum = field.enum;
  if (field.const !== undefined) out.const = field.const;
  return out;
}

/**
 * An output schema trimmed to the result's fields: each top-level field with its type (and enum),
 * and which are always there (`required`). Nested objects and arrays are only that. A client that
 * validates `structuredContent` against it still checks each field is there with its type; a model
 * reads the fields' names here and their meaning in the tool's description and the result itself
 * (the full schemas with every field's meaning took 25 KB of the 52.6 KB). Looser than the contract,
 * never stricter: every answer the contract allows passes it, and the server still validates each
 * result against the contract's full schema.
 */
export function outlineSchema(schema: JsonObject): JsonObject {
  const defs = (schema.$defs ?? {}) as Record<string, JsonObject>;
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, fieldOutline(v, defs)])),
    ...(schema.required ? { required: schema.required } : {}),
  };
}

/** A root that is only a `$ref` to one of its `$defs` (zod's shape for a schema with an id) is that definition. */
function inlineRoot(schema: JsonObject): JsonObject {
  const ref = typeof schema.$ref === "string" ? /^#\/\$defs\/([^/]+)$/.exec(schema.$ref)?.[1] : undefined;
  const defs = schema.$defs as Record<string, JsonObject> | undefined;
  if (!ref || !defs?.[ref] || JSON.stringify({ ...defs, [ref]: null }).includes(`"#/$defs/${ref}"`)) return schema;
  const { [ref]: root, ...rest } = defs;
  const { $ref: _, $defs: __, ...outer } = schema;
  return { ...outer, ...root, ...(Object.keys(rest).length ? { $defs: rest } : {}) };
}

/** Drops `keys` at every level of a schema (not inside `properties`' names or `enum` values). */
function without(node: unknown, keys: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => without(n, keys));
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(Object.entries(node as JsonObject).filter(([k]) => !keys.has(k)).map(([k, v]) => [k, k === "enum" || k === "const" ? v : k === "properties" || k === "$defs"
    ? Object.fromEntries(Object.entries(v as JsonObject).map(([name, s]) => [name, without(s, keys)])) : without(v, keys)]));
}

/**
 * An input schema as a tool offers it: portable, without the dialect and defaults, strict (a tool's
 * arguments are exactly its properties: strictArguments refuses any other), and with the fields the
 * tool describes in its own words (`describe`: a field's meaning for a model, where the contract's
 * speaks HTTP) taking that description in place of the contract's, and no examples.
 */
export function inputJsonSchema(raw: JsonObject, describe: Readonly<Record<string, string>> = {}): JsonObject {
  let schema = without(portableSchema(raw), INPUT_DROPS) as JsonObject;
  if (schema.type !== "object") return schema;
  const properties = { ...(schema.properties as Record<string, JsonObject> | undefined) };
  const defs = (schema.$defs ?? {}) as Record<string, JsonObject>;
  for (const [name, description] of Object.entries(describe)) {
    if (!properties[name]) continue;
    const { examples: _, ...rest } = properties[name]!;
    properties[name] = { ...withDefsInlined(rest, defs), description };
  }
  schema = { ...schema, properties, additionalProperties: false };
  // A definition only a described field used is gone with its words (the tool says them its own way).
  const used = Object.keys(defs).filter((d) => JSON.stringify({ ...schema, $defs: undefined }).includes(`"#/$defs/${d}"`) || Object.values(defs).some((o) => JSON.stringify(o).includes(`"#/$defs/${d}"`)));
  if (schema.$defs !== undefined) {
    const { $defs: __, ...bare } = schema;
    schema = used.length ? { ...bare, $defs: Object.fromEntries(used.map((d) => [d, defs[d]!])) } : bare;
  }
  return schema;
}

/**
 * A described field with its type and constraints in place of a `$ref` (its own, or its items'),
 * without the definition's description and examples: the field's description replaces them.
 */
function withDefsInlined(field: JsonObject, defs: Record<string, JsonObject>): JsonObject {
  const plain = (node: JsonObject): JsonObject => {
    const ref = typeof node.$ref === "string" ? /^#\/\$defs\/([^/]+)$/.exec(node.$ref)?.[1] : undefined;
    if (!ref || !defs[ref]) return node;
    const { $ref: _, ...rest } = node;
    const { description: __, examples: ___, ...def } = defs[ref]!;
    return { ...def, ...rest };
  };
  const inlined = plain(field);
  return inlined.items && typeof inlined.items === "object" && !Array.isArray(inlined.items) ? { ...inlined, items: plain(inlined.items as JsonObject) } : inlined;
}

type JsonConverter = StandardSchemaWithJSON["~standard"]["jsonSchema"];

/** A converter that converts once per direction and target: every request's server reuses it. */
function convertOnce(converter: JsonConverter, describe: Readonly<Record<string, string>>): JsonConverter {
  const done = new Map<string, JsonObject>();
  const once = (io: "input" | "output") => (options: Parameters<JsonConverter["input"]>[0]) => {
    const key = `${io} ${options.target}`;
    let schema = done.get(key);
    if (!schema) {
      const raw = converter[io](options) as JsonObject;
      schema = io === "output" ? outlineSchema(portableSchema(inlineRoot(raw), true) as JsonObject) : inputJsonSchema(raw, describe);
      done.set(key, schema);
    }
    return schema;
  };
  return { input: once("input"), output: once("output") };
}

/**
 * The input schema as the SDK sees it: the contract's JSON Schema for `tools/list`, but a `validate`
 * that lets everything through, so the tool itself validates with zod and answers a bad input with
 * the same `validation_error` problem (and `issues[]`) as the HTTP API instead of the SDK's message.
 */
export function advertised(schema: z.ZodType, describe: Readonly<Record<string, string>> = {}): StandardSchemaWithJSON {
  const std = schema["~standard"] as unknown as StandardSchemaWithJSON["~standard"];
  return { "~standard": { version: 1, vendor: "citydaily", validate: (value: unknown) => ({ value }), jsonSchema: convertOnce(std.jsonSchema, describe) } };
}

/** The output schema: zod validates each result, its JSON Schema (the outline) is made once. */
export function described(schema: z.ZodType): StandardSchemaWithJSON {
  const std = schema["~standard"] as unknown as StandardSchemaWithJSON["~standard"];
  return { "~standard": { ...std, jsonSchema: convertOnce(std.jsonSchema, {}) } };
}
