// tsclient.cjs runs guard sessions with the official TypeScript SDK's
// Client (@modelcontextprotocol/sdk, pinned in testdata/npm; NODE_PATH
// points at its node_modules). stdin: a JSON array of {command, env};
// stdout: a JSON array of reports, one per session, in order:
// {steps: {"tools/list": "ok: TEXT" | "error: MESSAGE", ...}, sampling: [TEXT],
// elicit: [TEXT]}. Used by guard/tricks_test.go.
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} = require("@modelcontextprotocol/sdk/types.js");

// texts collects the strings under "text", "description" and "message":
// what a client shows the model.
function texts(v, out) {
  if (Array.isArray(v)) {
    v.forEach((e) => texts(e, out));
  } else if (v && typeof v === "object") {
    for (const [k, e] of Object.entries(v)) {
      if (typeof e === "string" && (k === "text" || k === "description" || k === "message")) {
        out.push(e);
      }
      texts(e, out);
    }
  }
  return out;
}

async function session(spec) {
  const rep = { steps: {}, sampling: [], elicit: [] };
  const client = new Client(
    { name: "claude-code", version: "2.0.0" },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    rep.sampling.push(...texts(req.params.messages, []));
    return { role: "assistant", model: "m", content: { type: "text", text: "ok" } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    rep.elicit.push(req.params.message);
    return { action: "decline" };
  });
  const transport = new StdioClientTransport({ command: spec.command, args: [], env: spec.env, stderr: "ignore" });
  await client.connect(transport);
  const step = async (name, fn) => {
    try {
      const res = await fn();
      rep.steps[name] = "ok: " + texts(res, []).sort().join("\n");
    } catch (e) {
      rep.steps[name] = "error: " + (e && e.message ? e.message : String(e));
    }
  };
  const timeout = { timeout: 20000 };
  await step("tools/list", () => client.listTools({}, timeout));
  await step("tools/call", () => client.callTool({ name: "summarize", arguments: { text: "x" } }, undefined, timeout));
  await step("resources/read", () => client.readResource({ uri: "file:///notes.txt" }, timeout));
  await step("prompts/get", () => client.getPrompt({ name: "hello" }, timeout));
  await client.close();
  return rep;
}

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const specs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  // A few sessions at once: each spends most of its time waiting (for the
  // guard and the server to start, for the transport's close), and each
  // is its own guard and server process, so they do not interfere. The
  // reports stay in the order of the specs.
  const out = new Array(specs.length);
  let next = 0;
  async function worker() {
    while (next < specs.length) {
      const i = next++;
      try {
        out[i] = await session(specs[i]);
      } catch (e) {
        out[i] = { steps: { connect: "error: " + (e && e.message ? e.message : String(e)) }, sampling: [], elicit: [] };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(4, specs.length) }, worker));
  process.stdout.write(JSON.stringify(out));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
