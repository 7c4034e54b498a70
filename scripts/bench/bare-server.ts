/**
 * The yardstick of `npm run bench:api`: a bare node:http server answering, for each path, the exact
 * bytes and headers our server sent for it (read from the JSON file given as the first argument).
 */
import fs from "node:fs";
import http from "node:http";

type Canned = Record<string, { status: number; headers: Record<string, string>; body: string }>;
const canned = JSON.parse(fs.readFileSync(process.argv[2]!, "utf8")) as Canned;
const answers = new Map(Object.entries(canned).map(([key, a]) => [key, { ...a, body: Buffer.from(a.body, "base64") }]));

const server = http.createServer((req, res) => {
  const answer = answers.get(`${req.method} ${req.url} ${req.headers["accept-encoding"] ?? ""}`);
  // The body of a POST is read (like ours must) before answering.
  req.resume();
  req.on("end", () => {
    if (!answer) { res.writeHead(404).end(); return; }
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });
});
server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as { port: number }).port }));
