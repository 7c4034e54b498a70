// Imported first by scripts that run in the browser under the site's CSP: zod decides at schema
// construction whether it may compile fast parsers with `new Function`, and probing that is itself a
// CSP violation (`script-src` without 'unsafe-eval'). Jitless parsing is what the page needs anyway.
import { z } from "zod";

z.config({ jitless: true });
