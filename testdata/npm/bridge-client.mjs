// A TypeScript SDK client for guard/remote_test.go: it starts the command
// given on its command line (the guard bridging to a remote server) over
// stdio and runs a fixed session, printing one JSON line per step:
// {"step", "ok", "result"} or {"step", "ok": false, "code", "message"}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "ts-bridge-client", version: "1.0.0" }, { capabilities: {} });

async function step(name, fn) {
  try {
    const result = await fn();
    out({ step: name, ok: true, result: result ?? null });
    return result;
  } catch (e) {
    out({ step: name, ok: false, code: e?.code ?? null, message: String(e?.message ?? e) });
    return null;
  }
}

const opts = { timeout: 15000 };
await step("connect", () => client.connect(transport, opts));
const page1 = await step("list1", () => client.listTools({}, opts));
await step("list2", () => client.listTools({ cursor: page1?.nextCursor ?? "none" }, opts));
for (let i = 1; i <= 4; i++) {
  await step("call" + i, () => client.callTool({ name: "beta", arguments: {} }, undefined, opts));
}
await step("relist", () => client.listTools({}, opts));
await client.close().catch(() => {});
