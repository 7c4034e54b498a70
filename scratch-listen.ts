import http from "node:http";
import { startTestServer } from "./test/helpers/server.ts";
const server = await startTestServer({ MAIL_SENDER: "off" });
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} } } });
const req = http.request(`${server.url}/mcp`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Accept-Encoding": "gzip, br", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen" } }, (res) => {
  console.log(res.statusCode, res.headers);
  res.on("data", (c) => console.log(JSON.stringify(c.toString())));
});
req.end(body);
setTimeout(async () => { req.destroy(); await server.stop(); process.exit(0); }, 3000);
