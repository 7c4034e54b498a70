import type { H3 } from "h3";

/**
 * `/favicon.ico`: browsers ask for it on every page that names no icon (a tool's page, a raw JSON
 * answer), and a 404 in their console looks like a fault. The site's icon (a rounded square in the
 * brand's red, Base.astro's inline SVG) as a 16 x 16 ICO: one 32-bit BMP image, drawn here once.
 */
function faviconIco(): Buffer {
  const size = 16;
  const [r, g, b] = [0xa2, 0x3b, 0x12];
  const pixels = Buffer.alloc(size * size * 4);
  // The SVG's rx=3 corners: a pixel is inside when its centre is within the rounded rectangle.
  const inside = (x: number, y: number) => {
    const cx = Math.min(Math.max(x + 0.5, 3), size - 3), cy = Math.min(Math.max(y + 0.5, 3), size - 3);
    return (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= 9;
  };
  for (let row = 0; row < size; row++) {
    const y = size - 1 - row; // BMP rows go bottom-up
    for (let x = 0; x < size; x++) {
      const o = (row * size + x) * 4;
      if (inside(x, y)) pixels.set([b, g, r, 255], o);
    }
  }
  const mask = Buffer.alloc(size * 4); // 1-bit AND mask, rows padded to 4 bytes: all 0 (alpha decides)
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // colour and mask heights together
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([header, pixels, mask]);
  const dir = Buffer.alloc(6 + 16);
  dir.writeUInt16LE(1, 2); // type: icon
  dir.writeUInt16LE(1, 4); // one image
  dir.writeUInt8(size, 6);
  dir.writeUInt8(size, 7);
  dir.writeUInt16LE(1, 10); // planes
  dir.writeUInt16LE(32, 12); // bits per pixel
  dir.writeUInt32LE(image.length, 14);
  dir.writeUInt32LE(22, 18); // offset of the image
  return Buffer.concat([dir, image]);
}

export function faviconRoutes(app: H3): void {
  const ico = faviconIco();
  const answer = () => new Response(new Uint8Array(ico), { headers: { "Content-Type": "image/x-icon", "Cache-Control": "public, max-age=86400" } });
  app.get("/favicon.ico", answer);
  app.head("/favicon.ico", () => new Response(null, { headers: { "Content-Type": "image/x-icon", "Content-Length": String(ico.length), "Cache-Control": "public, max-age=86400" } }));
}
