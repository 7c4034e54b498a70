// Server entry of the renderer bundle (see astro.config.mjs): exposes Astro's App to the publisher.
import { createApp } from "astro/app/entrypoint";

export const app = createApp({ streaming: false });
