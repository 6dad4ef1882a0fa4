// A minimal agent loop over the HTTP API in TypeScript/JavaScript: recall -> prompt -> an OpenAI-compatible
// model -> retain. Build the client first (cd clients/typescript && npm ci && npm run build), then:
//   node examples/agent_loop.mjs "what do I like to drink?"
// with HINDSIGHT_URL, HINDSIGHT_TOKEN, LLM_URL (an OpenAI-compatible API root), LLM_MODEL, HINDSIGHT_BANK.
import { HindsightClient } from "../clients/typescript/dist/index.js";

const hs = new HindsightClient({ baseUrl: process.env.HINDSIGHT_URL, token: process.env.HINDSIGHT_TOKEN });
const llm = process.env.LLM_URL ?? "http://localhost:11434/v1";
const model = process.env.LLM_MODEL ?? "qwen2.5";
const bank = process.env.HINDSIGHT_BANK ?? "me";
const session = process.env.HINDSIGHT_SESSION ?? "chat";
const message = process.argv[2];
if (!message) {
  console.error('usage: node examples/agent_loop.mjs "your message"');
  process.exit(2);
}
process.on("unhandledRejection", (error) => {
  console.error(String(error?.message ?? error)); // the API's problem detail, or the model's status
  process.exit(1);
});

const context = await hs.context(bank, { session_id: session, text: message, budget_tokens: 800 });
await hs.retain(bank, { text: message, session_id: session, role: "user" });
const response = await fetch(`${llm}/chat/completions`, {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({
    model,
    messages: [
      { role: "system", content: `You are a helpful assistant.\n${context.text}` },
      { role: "user", content: message },
    ],
  }),
});
if (!response.ok) throw new Error(`the model answered ${response.status}`);
const reply = (await response.json()).choices[0].message.content;
await hs.retain(bank, { text: reply, session_id: session, role: "assistant", source: "assistant" });
console.log(reply);
