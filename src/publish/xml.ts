import { escapeXml } from "../lib/html.ts";

/** Escaped for element content and attribute values alike (src/lib/html.ts). */
export const xml = escapeXml;

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
