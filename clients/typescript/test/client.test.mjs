// The TypeScript client against a live `hindsight-es up` (started by tests/e2e/test_clients.py, which passes
// HINDSIGHT_URL, HINDSIGHT_TOKEN (every bank) and HINDSIGHT_ALICE_TOKEN (bank "alice" only)).
import assert from "node:assert/strict";
import { test } from "node:test";

import { HindsightClient, HindsightError } from "../dist/index.js";

const baseUrl = process.env.HINDSIGHT_URL;
const ops = new HindsightClient({ baseUrl, token: process.env.HINDSIGHT_TOKEN });
const bank = `ts-${Math.random().toString(16).slice(2, 10)}`;

test("retain with wait, then recall, context, browse and history", async () => {
  const retained = await ops.retain(bank, { text: "We use PostgreSQL for the billing database.", session_id: "s1", wait: true });
  assert.equal(retained.ready, true);
  assert.ok(retained.memories.length > 0);
  const { hits } = await ops.recall(bank, { query: "which database does billing use?", explain: true });
  // the turn itself or the statement drawn from it ("The team's database: PostgreSQL")
  assert.ok(hits[0].text.includes("PostgreSQL") && hits[0].source_turn_ids.length === 1);
  assert.ok(hits[0].reasons.some((r) => r.startsWith("matched words:")));
  const block = await ops.context(bank, { session_id: "s1", text: "billing database?" });
  assert.match(block.text, /PostgreSQL/);
  const page = await ops.memories(bank, { kind: ["fact"] });
  assert.ok(page.total >= 1 && page.memories.every((m) => m.kind === "fact"));
  const lineage = await ops.history(bank, page.memories[0].memory_id);
  assert.equal(lineage.source_turns[0].text, "We use PostgreSQL for the billing database.");
  assert.ok((await ops.banks()).some((b) => b.bank_id === bank));
});

test("correct, forget and restore; a second forget is a 409 problem", async () => {
  await ops.retain(bank, { text: "My favorite color is green.", session_id: "s2", wait: true });
  const { hits } = await ops.recall(bank, { query: "favorite color", kinds: ["preference"] });
  const corrected = await ops.correct(bank, hits[0].memory_id, { text: "My favorite color is blue." });
  assert.equal(corrected.ready, true);
  const id = corrected.memory.memory_id;
  assert.equal((await ops.forget(bank, id, { reason: "asked" })).ready, true);
  await assert.rejects(ops.forget(bank, id), (error) => error instanceof HindsightError && error.status === 409);
  assert.equal((await ops.restore(bank, id)).ready, true);
  assert.equal((await ops.memory(bank, id)).status, "active");
});

test("tokens: no token is 401, another bank is 403, with problem details", async () => {
  const anonymous = new HindsightClient({ baseUrl, retries: 0 });
  await assert.rejects(anonymous.banks(), (error) => error.status === 401 && error.problem.type.startsWith("urn:hindsight:problem:"));
  const alice = new HindsightClient({ baseUrl, token: process.env.HINDSIGHT_ALICE_TOKEN });
  await assert.rejects(alice.recall(bank, { query: "x" }), (error) => error.status === 403 && /may not use bank/.test(error.message));
});

test("rollback dry run, apply and undo", async () => {
  await ops.retain(bank, { text: "From now on use FedEx for all international orders.", session_id: "good", wait: true });
  await ops.retain(bank, { text: "From now on use DHL for all international orders.", session_id: "bad", wait: true });
  const plan = await ops.rollbackPlan(bank, { session_id: "bad" });
  assert.ok(plan.retract.some((m) => m.text.includes("DHL")) && plan.restore.some((m) => m.text.includes("FedEx")));
  const done = await ops.rollback(bank, { session_id: "bad", reason: "poisoned" });
  assert.equal(done.ready, true);
  const { hits } = await ops.recall(bank, { query: "which carrier for international orders?" });
  assert.match(hits.find((h) => h.text.includes("orders")).text, /FedEx/);
  const undone = await ops.undoRollback(bank, done.retraction_id);
  assert.deepEqual([...undone.restored].sort(), [...done.retracted].sort());
});

test("owners, an empty dispute list, and erase: a session for good, an unknown one a 404, then the whole bank", async () => {
  const b = `${bank}-trust`;
  await ops.retain(b, { text: "I live in Oslo.", session_id: "s1", wait: true });
  const owners = await ops.setOwners(b, { owners: ["mcp:token-ab12cd34"], reason: "the bank's user" });
  assert.deepEqual(owners.owners, ["mcp:token-ab12cd34"]);
  assert.deepEqual((await ops.owners(b)).owners, ["mcp:token-ab12cd34"]);
  assert.deepEqual((await ops.disputes(b)).disputes, []);
  const erased = await ops.erase(b, { session_id: "s1", reason: "the user asked" });
  assert.equal(erased.ready, true);
  assert.ok(erased.memory_ids.length > 0);
  await assert.rejects(ops.erase(b, { session_id: "never", reason: "x" }), (error) => error.status === 404);
  await ops.retain(b, { text: "I drink green tea.", session_id: "s2", wait: true });
  const all = await ops.eraseBank(b, { reason: "account closed" });
  assert.deepEqual(all.erasures.map((e) => e.ready), [true]); // s1 was erased already: s2 is all that is left
  await assert.rejects(ops.eraseBank(b, { reason: "again" }), (error) => error.status === 404);
});

test("an unreachable server is retried, then a status-0 error", async () => {
  const nowhere = new HindsightClient({ baseUrl: "http://127.0.0.1:9", retries: 1, backoffMs: 10 });
  await assert.rejects(nowhere.banks(), (error) => error instanceof HindsightError && error.status === 0);
});
