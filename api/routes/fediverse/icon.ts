import zlib from "node:zlib";

/**
 * The town actors' picture: the site's icon (a rounded square in the brand's red, as Base.astro's
 * SVG and /favicon.ico) as a 256 x 256 PNG, since fediverse servers show PNG and JPEG avatars, not
 * SVG. Drawn once when the routes are mounted.
 */
export function actorIconPng(size = 256): Buffer {
  const [r, g, b] = [0xa2, 0x3b, 0x12];
  const radius = size * 3 / 16;
  const rows = Buffer.alloc(size * (1 + size * 4));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 4); // each row starts with filter type 0
    for (let x = 0; x < size; x++) {
      const cx = Math.min(Math.max(x + 0.5, radius), size - radius), cy = Math.min(Math.max(y + 0.5, radius), size - radius);
      if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= radius ** 2) rows.set([r, g, b, 255], row + 1 + x * 4);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter, no interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", zlib.deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}
