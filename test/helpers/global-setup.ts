import { buildTemplateDb } from "../../scripts/bench/template-db.ts";

/** Each test server starts from a copy of the template database (places already imported; the import itself is tested from scratch). */
export default function setup(): void {
  buildTemplateDb();
}
